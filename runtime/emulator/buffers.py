"""Device buffers for the emulator: mx.array memory handed to kernels, and checked mode's copies.

In checked mode every buffer is copied into its own slot of one reserved address range (the
middle of a 2^37-byte slot), and the kernel, compiled with a check before every device access,
compares each address with the extent of the buffer whose slot it falls in. An access any distance
out of bounds, misaligned, or writing an input is reported with the buffer and the element, and
never touches other memory.
"""
from __future__ import annotations

import contextlib
import ctypes
import mmap
import threading
from dataclasses import dataclass
from typing import Iterator

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
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)
_MAP_FIXED = 0x10

SLOT_SHIFT = 37  # shim/mfemu/abi.h kSlotShift
SLOTS = 64       # shim/mfemu/abi.h kSlots
ACCESS_WRITE = 1  # shim/mfemu/abi.h AccessFlags

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


BUFFER_ALIGNMENT = 64  # Metal buffers are at least this aligned; MLX's CPU arrays are only 8-byte aligned


def aligned_host_view(a: mx.array) -> np.ndarray:
    """`a`'s memory, or an aligned copy when it is contiguous but not aligned like a Metal buffer.

    Vector accesses (`float4`) compile to instructions that fault on misaligned addresses, and are
    legal on Metal because its buffers are aligned: without the copy they would fault here."""
    view = host_view(a)
    if view.ctypes.data % BUFFER_ALIGNMENT == 0 or not view.flags.c_contiguous:
        return view
    copy = aligned_empty(view.shape, view.dtype)
    copy[...] = view
    return copy


def aligned_empty(shape, dtype: np.dtype) -> np.ndarray:
    """An uninitialised array aligned like a Metal buffer."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    raw = np.empty(nbytes + BUFFER_ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % BUFFER_ALIGNMENT
    return raw[start:start + nbytes].view(dtype).reshape(shape)


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


class SlotTable(ctypes.Structure):
    """Mirror of mfemu::Arena (shim/mfemu/abi.h): the buffers checked kernels compare addresses with."""

    class Slot(ctypes.Structure):
        _fields_ = [("begin", ctypes.c_uint64), ("end", ctypes.c_uint64), ("writable", ctypes.c_uint64)]

    _fields_ = [("base", ctypes.c_uint64), ("slots", Slot * SLOTS)]


@dataclass
class DeviceBuffer:
    """One buffer of a checked launch: `nbytes` at `address`, element 0 at `element0`."""

    name: str
    role: str  # "input", "output", "shape of input", ...
    address: int
    nbytes: int
    element0: int
    itemsize: int
    writable: bool

    def bytes_view(self) -> np.ndarray:
        return np.frombuffer((ctypes.c_char * self.nbytes).from_address(self.address), np.uint8) if self.nbytes \
            else np.zeros(0, np.uint8)

    def distance(self, addr: int) -> int:
        return max(self.address - addr, addr - (self.address + self.nbytes), 0)

    def describe(self, addr: int, size: int, align: int, flags: int) -> str:
        """What an access of `size` bytes at `addr` that failed its check did to this buffer."""
        what = f"{self.role} '{self.name}' ({self.nbytes // self.itemsize} elements)"
        access = "write" if flags & ACCESS_WRITE else "read"
        element = (addr - self.element0) // self.itemsize
        end = self.address + self.nbytes
        if addr < self.address:
            before = (self.address - addr + self.itemsize - 1) // self.itemsize
            return f"out-of-bounds {access} of {what}: element {element}, {_elements(before)} before its start"
        if addr + size > end:
            past = (addr + size - end + self.itemsize - 1) // self.itemsize
            return f"out-of-bounds {access} of {what}: element {element}, {_elements(past)} past the end"
        if addr % align:
            return (f"misaligned {size}-byte {access} of {what} at element {element} (byte offset "
                    f"{addr - self.element0}): the access needs {align}-byte alignment, as on Metal")
        return f"write to {what} at element {element}: inputs are read-only"


def _elements(n: int) -> str:
    return f"{n} element" if n == 1 else f"{n} elements"


class _Arena:
    """The reserved address range: SLOTS slots of 2^SLOT_SHIFT bytes, inaccessible until used."""

    def __init__(self) -> None:
        size = SLOTS << SLOT_SHIFT
        base = _libc.mmap(None, size, _PROT_NONE,
                          mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE, -1, 0)
        if base in (None, _MAP_FAILED):
            raise MemoryError(f"checked mode cannot reserve {size >> 40} TiB of address space for its buffers; "
                              "run with checked=False (METALFORGE_EMULATOR_CHECKED=0)")
        self.base = base
        self.lock = threading.Lock()

    def map(self, slot: int, nbytes: int, prot: int) -> int:
        address = self.base + (slot << SLOT_SHIFT) + (1 << (SLOT_SHIFT - 1))
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_FIXED
        flags |= getattr(mmap, "MAP_POPULATE", 0) if prot != _PROT_NONE else _MAP_NORESERVE
        if _libc.mmap(address, round_up(max(nbytes, 1), PAGE), prot, flags, -1, 0) != address:
            raise MemoryError(f"cannot map {nbytes} bytes for a checked buffer")
        return address


_ARENA: _Arena | None = None
_ARENA_LOCK = threading.Lock()


class CheckedBuffers:
    """The buffers of one checked launch, entered in the runtime's slot table."""

    def __init__(self, arena: _Arena, table: SlotTable) -> None:
        self.arena, self.table = arena, table
        self.buffers: list[DeviceBuffer] = []

    def add(self, name: str, role: str, nbytes: int, itemsize: int, writable: bool, lo: int = 0) -> DeviceBuffer:
        """A zeroed buffer of `nbytes` whose element 0 lies `-lo` bytes in (`lo` <= 0: negative strides)."""
        slot = len(self.buffers)
        if slot >= SLOTS:
            raise MemoryError(f"checked mode holds at most {SLOTS} buffers (inputs, their shape/strides arrays and "
                              "outputs) per launch; run this kernel with checked=False")
        address = self.arena.map(slot, nbytes, mmap.PROT_READ | mmap.PROT_WRITE)
        buf = DeviceBuffer(name, role, address, nbytes, address - lo, itemsize, writable)
        self.buffers.append(buf)
        self.table.slots[slot].begin, self.table.slots[slot].end = address, address + nbytes
        self.table.slots[slot].writable = int(writable)
        return buf

    def describe(self, addr: int, size: int, align: int, flags: int) -> str:
        """The failed access at `addr`, said of the buffer whose slot holds it (else the nearest)."""
        slot = (addr - self.arena.base) >> SLOT_SHIFT
        if 0 <= slot < len(self.buffers):
            return self.buffers[slot].describe(addr, size, align, flags)
        if not self.buffers:
            return f"access to address {addr:#x}, which is in no buffer"
        return min(self.buffers, key=lambda b: b.distance(addr)).describe(addr, size, align, flags)

    def release(self) -> None:
        for slot, buf in enumerate(self.buffers):
            self.table.slots[slot].begin = self.table.slots[slot].end = 0
            self.arena.map(slot, buf.nbytes, _PROT_NONE)
        self.buffers.clear()


@contextlib.contextmanager
def checked_buffers(table: SlotTable) -> Iterator[CheckedBuffers]:
    """Slots for one checked launch; one checked launch at a time (the runtime's table is global)."""
    global _ARENA
    with _ARENA_LOCK:
        if _ARENA is None:
            _ARENA = _Arena()
    with _ARENA.lock:
        table.base = _ARENA.base
        buffers = CheckedBuffers(_ARENA, table)
        try:
            yield buffers
        finally:
            buffers.release()
