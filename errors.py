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


class LaunchConfigError(KernelLaunchError, ValueError):
    """Grid or threadgroup sizes that Metal would refuse."""


class BarrierError(KernelLaunchError):
    """A threadgroup_barrier was not reached by every thread of a threadgroup."""


class SimdDivergenceError(KernelLaunchError):
    """A simd function was called from diverged lanes of a simdgroup."""


class OutOfBoundsError(KernelLaunchError):
    """A thread read or wrote outside a buffer (or wrote to an input)."""


class ThreadgroupMemoryError(KernelLaunchError):
    """The kernel needs more threadgroup memory than a Metal threadgroup has."""
