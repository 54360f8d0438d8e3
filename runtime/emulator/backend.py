"""The emulator back end: MLX's generated Metal source, compiled by clang, run on the CPU."""
from __future__ import annotations

import ctypes
import math
import os
import re
import signal
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, NoReturn, Optional

import mlx.core as mx
import numpy as np

from ... import env, errors
from ..kernel import TimeLimit, current_time_limit
from ..signature import GeneratedKernel
from . import compiler, counters, translation_unit
from .buffers import (CheckedBuffers, SlotTable, aligned_empty, aligned_host_view, byte_span, checked_buffers, host_view, numpy_dtype,
                      to_mx)

THREADGROUP_MEMORY_LIMIT = 32 * 1024  # bytes, as on Apple GPUs
POISON_BYTE = 0xFF                    # NaN in every float type, -1 in every integer type
# Metal's GPU watchdog stops a command buffer after a few seconds; the emulator runs kernels a few
# hundred times slower than a GPU, so the same limit still only stops kernels that would hang one.
DEFAULT_TIMEOUT_S = 5.0
TIMEOUT_ENV = "METALFORGE_EMULATOR_TIMEOUT"
_STATUS_TIMEOUT, _STATUS_INTERRUPT = 8, 9


class _Launch(ctypes.Structure):
    """Mirror of mfemu::Launch (shim/mfemu/abi.h)."""

    _fields_ = [("grid", ctypes.c_uint32 * 3), ("threadgroup", ctypes.c_uint32 * 3), ("workers", ctypes.c_int32),
                ("use_fibers", ctypes.c_int32), ("reverse_schedule", ctypes.c_int32),
                ("threadgroup_memory_limit", ctypes.c_uint32), ("status", ctypes.c_int32),
                ("fault_address", ctypes.c_uint64), ("message", ctypes.c_char * 1024),
                ("fault_size", ctypes.c_uint64), ("fault_align", ctypes.c_uint64), ("fault_flags", ctypes.c_uint32),
                ("timeout_ms", ctypes.c_uint32), ("stop_on_interrupt", ctypes.c_int32),
                ("take_counts", ctypes.c_void_p), ("counts", ctypes.c_void_p)]


_STATUS_ERRORS = {
    1: errors.BarrierError, 2: errors.SimdDivergenceError, 3: errors.OutOfBoundsError,
    4: errors.ThreadgroupMemoryError, 5: errors.LaunchConfigError, 6: errors.KernelLaunchError,
    7: errors.KernelRuntimeError,
}


@dataclass
class _Compiled:
    unit: translation_unit.CompilableUnit
    library: ctypes.CDLL
    thread_fn: int
    group_fn: int


@dataclass
class Argument:
    """One buffer of a launch: an input (`data`: an mx.array, or a numpy array of constant bytes) or, when
    `data` is None, an output of `shape` and `dtype`, filled with `init_value` or else poisoned."""

    name: str
    role: str  # "input", "output", "shape of input", ... (named in checked mode's reports)
    data: Optional[object] = None
    shape: tuple = ()
    dtype: Optional[mx.Dtype] = None
    init_value: Optional[float] = None

    @property
    def output(self) -> bool:
        return self.data is None


@dataclass
class EmulatorBackend:
    """Runs Metal kernels on the CPU.

    checked: check every device access against its buffer's extent and every integer division
        (default on; off runs uninstrumented code on MLX's memory, copied only where it is not
        aligned like a Metal buffer: faster, nothing caught).
    schedule: "forward" or "reverse" order of resuming a threadgroup's threads; running a test
        under both exposes missing barriers.
    workers: worker threads (default: all cores).
    timeout: seconds a launch may run before the watchdog stops it with KernelTimeoutError
        (default $METALFORGE_EMULATOR_TIMEOUT, else 5; 0: no limit). Ctrl-C stops a launch too.
    """

    checked: bool = field(default_factory=lambda: env.flag("METALFORGE_EMULATOR_CHECKED", True))
    schedule: str = field(default_factory=lambda: os.environ.get("METALFORGE_EMULATOR_SCHEDULE", "forward"))
    workers: int = field(default_factory=lambda: env.integer("METALFORGE_EMULATOR_WORKERS", 0))
    timeout: float = field(default_factory=lambda: env.seconds(TIMEOUT_ENV, DEFAULT_TIMEOUT_S))
    name: str = "emulator"
    language = "msl"
    batch_timing = False

    def __post_init__(self) -> None:
        if self.schedule not in ("forward", "reverse"):
            raise ValueError(f"emulator schedule must be 'forward' or 'reverse', not {self.schedule!r}")
        if not (isinstance(self.timeout, (int, float)) and 0 <= self.timeout < math.inf):
            raise ValueError(f"emulator timeout must be a number of seconds >= 0 (0: no limit), not {self.timeout!r}")

    _cache: dict = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @staticmethod
    def available() -> bool:
        try:
            compiler.compiler()
            return True
        except errors.BackendUnavailableError:
            return False

    def compile(self, generated: GeneratedKernel, body: str, header: str, output_dtypes, atomic_outputs: bool,
                math_mode: str, label: str) -> _Compiled:
        unit = translation_unit.build(generated, body, header, output_dtypes, atomic_outputs)
        return self.compile_unit(unit, label, math_mode)

    def compile_unit(self, unit: translation_unit.CompilableUnit, label: str, math_mode: str = "safe") -> _Compiled:
        """The loaded library of a translation unit (compiled once per text, mode, checking and counting; cached
        on disk)."""
        counting = counters.active()
        key = (unit.text, math_mode, self.checked, counting)
        with self._lock:
            hit = self._cache.get(key)
        if hit:
            return hit
        compiler.runtime_library()  # loaded globally first: kernel libraries link against it
        lib = compiler.load_library(lambda: compiler.compile_kernel(unit.text, label, math_mode, unit.describe_line,
                                                                    unit.display_text, self.checked, counting))
        compiled = _Compiled(unit, lib, ctypes.cast(lib.mfemu_thread, ctypes.c_void_p).value,
                             ctypes.cast(lib.mfemu_group, ctypes.c_void_p).value)
        with self._lock:
            self._cache[key] = compiled
        return compiled

    def scalars_by_value(self) -> Mapping[mx.Dtype, Callable[[Any], Any]]:
        """None: Metal binds scalars as `constant T&` buffers, read through the constant cache."""
        return {}

    def build(self, kernel) -> Callable[..., list[mx.array]]:
        """What runs `kernel` here, called as MLX's kernel objects are (compiled at its first launch
        with each set of input types, as MLX does)."""
        return lambda **call: self.launch(kernel, call)

    def launch(self, kernel, call: dict) -> list[mx.array]:
        p = kernel.prepare(**call)
        compiled = self.compile(p.generated, kernel.source, kernel.header, p.output_dtypes, kernel.atomic_outputs,
                                kernel.math_mode, kernel.label)
        arguments: list[Argument] = []
        for info, a in zip(p.generated.inputs, p.inputs):
            arguments.append(Argument(info.name, "input", a))
            if info.ndim > 0:
                extras = ((info.uses_shape, "shape", np.array(a.shape, np.int32)),
                          (info.uses_strides, "strides", element_strides(host_view(a))),
                          (info.uses_ndim, "ndim", np.array([a.ndim], np.int32)))
                arguments += [Argument(info.name, f"{what} of input", arr) for used, what, arr in extras if used]
        for name, shape, dtype in zip(kernel.output_names, p.output_shapes, p.output_dtypes):
            arguments.append(Argument(name, "output", None, shape, dtype, p.init_value))
        return self.run_unit(compiled, arguments, p.grid, p.threadgroup, kernel.label, kernel.origin)

    def run_unit(self, compiled: _Compiled, arguments: list["Argument"], grid, threadgroup, label: str,
                 origin=None) -> list[mx.array]:
        """Run a compiled unit with `arguments` bound to buffers 0, 1, ... in order (copied into checked slots
        in checked mode) over `grid` threads in groups of `threadgroup`; returns the outputs, in order.

        Every launch goes through here: `metal_kernel` calls and MLX's own kernels (mlx_kernels.py)."""
        if not self.checked:
            return self._bind_and_run(compiled, arguments, grid, threadgroup, None, label, origin)
        with checked_buffers(SlotTable.in_dll(compiler.runtime_library(), "mfemu_arena")) as buffers:
            return self._bind_and_run(compiled, arguments, grid, threadgroup, buffers, label, origin)

    def _bind_and_run(self, compiled: _Compiled, arguments: list["Argument"], grid, threadgroup,
                      buffers: CheckedBuffers | None, label: str, origin) -> list[mx.array]:
        keep: list = []  # keeps every host array alive during the launch
        pointers: list[int] = []
        outputs = []
        for arg in arguments:
            if arg.output:
                np_dtype = numpy_dtype(arg.dtype)
                count = int(np.prod(arg.shape, dtype=np.int64))
                if buffers is None:
                    host = aligned_empty(arg.shape, np_dtype)
                    keep.append(host)
                else:
                    buf = buffers.add(arg.name, arg.role, count * np_dtype.itemsize, np_dtype.itemsize, writable=True)
                    host = buf.bytes_view().view(np_dtype).reshape(arg.shape)
                if arg.init_value is None:
                    host.reshape(-1).view(np.uint8).fill(POISON_BYTE)  # reshape: a 0-d output too  # Metal leaves outputs uninitialised
                else:
                    host[...] = host_view(mx.array(arg.init_value, dtype=arg.dtype))
                outputs.append((host, arg.dtype))
                pointers.append(host.ctypes.data)
                continue
            data = arg.data
            if isinstance(data, mx.array):
                view = host_view(data) if buffers is not None else aligned_host_view(data)
            else:
                view = data
            if buffers is None:
                keep.append(view)
                pointers.append(view.ctypes.data)
            else:
                lo, hi = byte_span(view)
                buf = buffers.add(arg.name, arg.role, hi - lo, view.itemsize, writable=False, lo=lo)
                if hi > lo:
                    ctypes.memmove(buf.address, view.ctypes.data + lo, hi - lo)
                pointers.append(buf.element0)
        self._run(compiled, pointers, grid, threadgroup, buffers, label, origin, sum(host.size for host, _ in outputs))
        return [to_mx(host, dtype) for host, dtype in outputs]  # mx.array copies out of checked slots

    def _run(self, compiled: _Compiled, pointers: list[int], grid, threadgroup, buffers: CheckedBuffers | None,
             label: str, origin=None, output_elements: int = 0) -> None:
        """Launch a compiled kernel on bound buffers; a counting library's counts are recorded
        (counters.record) with `output_elements`, the elements of all outputs."""
        lib = compiler.runtime_library()
        launch = _Launch()
        launch.grid[:] = list(grid)
        launch.threadgroup[:] = list(threadgroup)
        launch.workers = self.workers
        launch.use_fibers = int(compiled.unit.uses_fibers)
        launch.reverse_schedule = int(self.schedule == "reverse")
        launch.threadgroup_memory_limit = THREADGROUP_MEMORY_LIMIT
        limit = self._time_limit()
        launch.timeout_ms = min(math.ceil(limit.seconds * 1000), 2**32 - 1) if limit else 0
        # Ctrl-C stops the kernel only where Python would raise KeyboardInterrupt for it
        launch.stop_on_interrupt = int(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
        counts = None
        if hasattr(compiled.library, "mfemu_take_counts"):  # a counting library (compile_kernel's `counting`)
            groups = math.prod(-(-g // min(t, g)) if g and t else 0 for g, t in zip(grid, threadgroup))
            counts = np.zeros((groups, counters.COUNTERS), np.uint64)
            launch.take_counts = ctypes.cast(compiled.library.mfemu_take_counts, ctypes.c_void_p).value
            launch.counts = counts.ctypes.data
        array = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
        status = lib.mfemu_launch(ctypes.c_void_p(compiled.thread_fn), ctypes.c_void_p(compiled.group_fn), array,
                                  ctypes.byref(launch))  # ctypes releases the GIL while it runs
        if status == 0:
            if counts is not None:
                counters.record(counters.LaunchCounts(label, tuple(grid), tuple(threadgroup), output_elements, counts))
            return
        if status == _STATUS_INTERRUPT:
            _raise_keyboard_interrupt()
        message = re.sub(r"\[\[line:(\d+)\]\]", lambda m: compiled.unit.describe_line(int(m.group(1)), origin),
                         launch.message.decode(errors="replace"))
        message = re.sub(r"\[\[shim:(\d+):(\d+)\]\]", lambda m: _describe_shim_site(int(m.group(1)), int(m.group(2))),
                         message)
        if status == 3 and buffers is not None and launch.fault_size:
            what = buffers.describe(launch.fault_address, launch.fault_size, launch.fault_align, launch.fault_flags)
            message = f"{what}: {message}"
        if status == _STATUS_TIMEOUT:
            raise errors.KernelTimeoutError(f"{label}: ran longer than {limit.name} of {limit.seconds:g} s and was "
                                            f"stopped {message}; make sure the loop ends, {limit.fix}")
        raise _STATUS_ERRORS.get(status, errors.KernelLaunchError)(f"{label}: {message}")

    def _time_limit(self) -> Optional[TimeLimit]:
        """The shorter of the watchdog's limit and the caller's (`kernel.launch_time_limit`), if any."""
        own = TimeLimit(self.timeout, "the emulator's watchdog limit",
                        f"or raise the limit with {TIMEOUT_ENV}=<seconds> or EmulatorBackend(timeout=...) (0: none)")
        limits = [limit for limit in (own, current_time_limit()) if limit is not None and limit.seconds > 0]
        return min(limits, key=lambda limit: limit.seconds, default=None)


def element_strides(view: np.ndarray) -> np.ndarray:
    """MLX's `_strides` array of an input: its strides in elements, as int64."""
    return np.array([s // view.itemsize for s in view.strides], np.int64)


def _raise_keyboard_interrupt() -> NoReturn:
    """Ctrl-C stopped the kernel: run Python's pending SIGINT handler now (in the main thread it raises
    KeyboardInterrupt, consuming the signal so that it is not raised twice); other threads raise it here."""
    ctypes.pythonapi.PyErr_CheckSignals()
    raise KeyboardInterrupt


def _describe_shim_site(file_index: int, line: int) -> str:
    """A checked-mode site outside the kernel's source: a Metal library function of the shim."""
    files = compiler.shim_files()
    where = f"shim/{files[file_index - 1]}:{line}" if 0 < file_index <= len(files) else "a C++ library header"
    return f"a Metal library function called by the kernel ({where})"
