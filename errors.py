"""Errors metalforge raises. Each names the user's kernel and says how to fix the problem."""
from __future__ import annotations


class MetalforgeError(Exception):
    """Base class of every metalforge error."""


class BackendUnavailableError(MetalforgeError):
    """The requested back end cannot run on this machine."""


class KernelCompileError(MetalforgeError):
    """The kernel's source does not compile (or uses something Metal rejects)."""


class KernelLaunchError(MetalforgeError):
    """The kernel failed while running."""


class KernelRuntimeError(KernelLaunchError):
    """The kernel did something undefined while running (integer division by zero, an access out of
    bounds, ...): checked mode stops it and says where, instead of computing garbage or crashing."""


class KernelTimeoutError(KernelLaunchError):
    """The kernel ran past a time limit (the emulator's watchdog, or the tuner's per-trial limit) and
    was stopped, as Metal's GPU watchdog stops a command buffer that runs too long."""


class LaunchConfigError(KernelLaunchError, ValueError):
    """Grid or threadgroup sizes that Metal would refuse."""


class BarrierError(KernelLaunchError):
    """A threadgroup_barrier was not reached by every thread of a threadgroup."""


class SimdDivergenceError(KernelLaunchError):
    """A simd function was called from diverged lanes of a simdgroup."""


class DeviceAssertionError(KernelRuntimeError):
    """A `tl.device_assert` (or `tl.assume`) of a kernel built with debug on found a false element."""


class OutOfBoundsError(KernelRuntimeError):
    """A thread read or wrote outside a buffer, wrote to an input, or made a misaligned access."""


class ThreadgroupMemoryError(KernelLaunchError):
    """The kernel needs more threadgroup memory than a Metal threadgroup has."""


class KernelDefinitionError(MetalforgeError):
    """A @jit kernel uses something metalforge cannot compile; raised while building its IR.

    The message names the kernel, the file and line, shows the offending source line and says how to
    fix it, because the user reads it instead of a traceback into the compiler.
    """

    def __init__(self, message: str, *, kernel: str, file: str, line: int, source: str, hint: str) -> None:
        self.kernel, self.file, self.line, self.source, self.hint = kernel, file, line, source, hint
        self.reason = message
        super().__init__(f"in kernel `{kernel}` at {file}:{line}:\n    {source}\n{message}\nfix: {hint}")


class SharedMemoryLimitError(KernelDefinitionError):
    """A config's tiles need more threadgroup (shared) memory than the target has, by the compiler's
    own count (the compiled kernel's `shared_bytes`, Triton's `shared`): the autotuner records such
    a config as invalid, as Triton skips configs that run out of resources, so no library kernel
    recomputes the bytes."""


class TuningError(MetalforgeError):
    """Autotuning could not produce a config (every candidate failed, or nothing to tune)."""


class TuningTargetError(TuningError):
    """`metalforge autotune` was given a target (module, kernel, shape) it cannot use."""


class TuningDatabaseError(TuningError):
    """The tuning database cannot be used: not a SQLite file, unreadable, or from a newer metalforge."""
