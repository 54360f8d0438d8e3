"""Device buffers for the emulator: mx.array memory handed to kernels, and guarded copies.

In checked mode every buffer is a private mapping whose data ends flush against a PROT_NONE page
(and starts after one), and inputs are mapped read-only: an out-of-bounds access or a write to an
input faults, and the runtime reports which buffer it hit instead of corrupting memory.
"""
from __future__ import annotations

import ctypes
import mmap
from dataclasses import dataclass

import mlx.core as mx
import numpy as np

PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_MAP_FAILED = ctypes.c_void_p(-1).value
_PROT_NONE = 0

# numpy has no bfloat16: its bits travel as uint16.
_NUMPY_DTYPES = {
    mx.bool_: np.bool_, mx.uint8: np.uint8, mx.uint16: np.uint16, mx.uint32: np.uint32, mx.uint64: np.uint64,
    mx.int8: np.int8, mx.int16: np.int16, mx.int32: np.int32, mx.int64: np.int64,
    mx.float16: np.float16, mx.bfloat16: np.uint16, mx.float32: np.float32,
}


def numpy_dtype(dtype: mx.Dtype) -> np.dtype:
    try:
        return np.dtype(_NUMPY_DTYPES[dtype])
    except KeyError:
        raise TypeError(f"dtype {dtype} has no Metal equivalent the emulator supports") from None


def host_view(a: mx.array) -> np.ndarray:
    """A zero-copy numpy view of `a`'s memory (strides included)."""
    return np.asarray(a.view(mx.uint16) if a.dtype == mx.bfloat16 else a)


def to_mx(values: np.ndarray, dtype: mx.Dtype) -> mx.array:
    out = mx.array(values)
    return out.view(mx.bfloat16) if dtype == mx.bfloat16 else out


def round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


def byte_span(view: np.ndarray) -> tuple[int, int]:
    """Byte offsets (lo, hi) of the memory `view` can touch, relative to its first element."""
    lo = sum(min(0, (n - 1) * s) for n, s in zip(view.shape, view.strides) if n > 0)
    hi = sum(max(0, (n - 1) * s) for n, s in zip(view.shape, view.strides) if n > 0)
    return lo, (hi + view.itemsize if view.size else 0)


@dataclass
class GuardedBuffer:
    """`nbytes` of memory between two inaccessible pages, its end flush with the second."""

    name: str
    role: str  # "input" or "output"
    nbytes: int
    base: int = 0
    address: int = 0

    def __post_init__(self) -> None:
        self._mapped = round_up(self.nbytes, PAGE) + 2 * PAGE
        base = _libc.mmap(None, self._mapped, mmap.PROT_READ | mmap.PROT_WRITE,
                          mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0), -1, 0)
        if base in (None, _MAP_FAILED):
            raise MemoryError(f"cannot map {self._mapped} bytes for buffer {self.name!r}")
        self.base = base
        self.address = base + PAGE + round_up(self.nbytes, PAGE) - self.nbytes
        _libc.mprotect(base, PAGE, _PROT_NONE)
        _libc.mprotect(base + self._mapped - PAGE, PAGE, _PROT_NONE)

    def bytes_view(self) -> np.ndarray:
        return np.frombuffer((ctypes.c_char * self.nbytes).from_address(self.address), np.uint8) if self.nbytes \
            else np.zeros(0, np.uint8)

    def make_read_only(self) -> None:
        _libc.mprotect(self.base + PAGE, self._mapped - 2 * PAGE, mmap.PROT_READ)

    def free(self) -> None:
        if self.base:
            _libc.munmap(self.base, self._mapped)
            self.base = 0

    def describe_fault(self, addr: int, itemsize: int, start: int | None = None) -> str | None:
        """What an access at `addr` did to this buffer, or None if it is not ours."""
        start = self.address if start is None else start
        end = self.address + self.nbytes
        if not (self.base <= addr < self.base + self._mapped):
            return None
        count = f"{self.role} '{self.name}' ({self.nbytes // max(itemsize, 1)} elements)"
        if end <= addr:
            return f"out-of-bounds access to {count}: element {(addr - start) // itemsize}, past the end"
        if addr < self.address:
            return f"out-of-bounds access to {count}: {self.address - addr} bytes before its start"
        return f"write to {count}: inputs are read-only"
