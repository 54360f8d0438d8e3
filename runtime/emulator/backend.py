"""The emulator back end: MLX's generated Metal source, compiled by clang, run on the CPU."""
from __future__ import annotations

import ctypes
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Callable

import mlx.core as mx
import numpy as np

from ... import errors
from ..signature import GeneratedKernel
from . import compiler, translation_unit
from .buffers import GuardedBuffer, byte_span, host_view, numpy_dtype, to_mx

THREADGROUP_MEMORY_LIMIT = 32 * 1024  # bytes, as on Apple GPUs
POISON_BYTE = 0xFF                    # NaN in every float type, -1 in every integer type


class _Launch(ctypes.Structure):
    """Mirror of mfemu::Launch (shim/mfemu/abi.h)."""

    _fields_ = [("grid", ctypes.c_uint32 * 3), ("threadgroup", ctypes.c_uint32 * 3), ("workers", ctypes.c_int32),
                ("use_fibers", ctypes.c_int32), ("reverse_schedule", ctypes.c_int32),
                ("threadgroup_memory_limit", ctypes.c_uint32), ("status", ctypes.c_int32),
                ("fault_address", ctypes.c_uint64), ("message", ctypes.c_char * 1024)]


_STATUS_ERRORS = {
    1: errors.BarrierError, 2: errors.SimdDivergenceError, 3: errors.OutOfBoundsError,
    4: errors.ThreadgroupMemoryError, 5: errors.LaunchConfigError, 6: errors.KernelLaunchError,
}


@dataclass
class _Compiled:
    unit: translation_unit.TranslationUnit
    library: ctypes.CDLL
    thread_fn: int
    group_fn: int


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() not in ("0", "false", "no", "off", "")


@dataclass
class EmulatorBackend:
    """Runs Metal kernels on the CPU.

    checked: guard every buffer so out-of-bounds accesses raise (default on; off copies less).
    schedule: "forward" or "reverse" order of resuming a threadgroup's threads; running a test
        under both exposes missing barriers.
    workers: worker threads (default: all cores).
    """

    checked: bool = field(default_factory=lambda: _env_flag("METALFORGE_EMULATOR_CHECKED", True))
    schedule: str = field(default_factory=lambda: os.environ.get("METALFORGE_EMULATOR_SCHEDULE", "forward"))
    workers: int = field(default_factory=lambda: int(os.environ.get("METALFORGE_EMULATOR_WORKERS", "0")))
    name: str = "emulator"
    language = "msl"
    batch_timing = False

    def __post_init__(self) -> None:
        if self.schedule not in ("forward", "reverse"):
            raise ValueError(f"emulator schedule must be 'forward' or 'reverse', not {self.schedule!r}")

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
        key = (generated.source, math_mode)
        with self._lock:
            hit = self._cache.get(key)
        if hit:
            return hit
        unit = translation_unit.build(generated, body, header, output_dtypes, atomic_outputs)
        path = compiler.compile_kernel(unit.text, label, math_mode, unit.describe_line, unit.display_text)
        compiler.runtime_library()  # loaded globally first: kernel libraries link against it
        lib = ctypes.CDLL(str(path))
        compiled = _Compiled(unit, lib, ctypes.cast(lib.mfemu_thread, ctypes.c_void_p).value,
                             ctypes.cast(lib.mfemu_group, ctypes.c_void_p).value)
        with self._lock:
            self._cache[key] = compiled
        return compiled

    def build(self, kernel) -> Callable[..., list[mx.array]]:
        """What runs `kernel` here, called as MLX's kernel objects are (compiled at its first launch
        with each set of input types, as MLX does)."""
        return lambda **call: self.launch(kernel, call)

    def launch(self, kernel, call: dict) -> list[mx.array]:
        p = kernel.prepare(**call)
        generated, inputs, output_dtypes, label = p.generated, p.inputs, p.output_dtypes, kernel.label
        compiled = self.compile(generated, kernel.source, kernel.header, output_dtypes, kernel.atomic_outputs,
                                kernel.math_mode, label)
        keep: list = []          # keeps every buffer alive during the launch
        guarded: list[tuple[GuardedBuffer, int, int]] = []  # buffer, element-0 address, itemsize
        pointers: list[int] = []
        try:
            for info, a in zip(generated.inputs, inputs):
                view = host_view(a)
                if self.checked:
                    lo, hi = byte_span(view)
                    buf = GuardedBuffer(info.name, "input", hi - lo)
                    if hi > lo:
                        ctypes.memmove(buf.address, view.ctypes.data + lo, hi - lo)
                    buf.make_read_only()
                    guarded.append((buf, buf.address - lo, view.itemsize))
                    pointers.append(buf.address - lo)
                else:
                    keep.append(view)
                    pointers.append(view.ctypes.data)
                if info.ndim > 0:
                    extras = ((info.uses_shape, np.array(a.shape, np.int32)),
                              (info.uses_strides, np.array([s // view.itemsize for s in view.strides], np.int64)),
                              (info.uses_ndim, np.array([a.ndim], np.int32)))
                    for used, arr in extras:
                        if used:
                            keep.append(arr)
                            pointers.append(arr.ctypes.data)
            outputs = []
            for name, shape, dtype in zip(kernel.output_names, p.output_shapes, output_dtypes):
                np_dtype = numpy_dtype(dtype)
                count = int(np.prod(shape, dtype=np.int64))
                if self.checked:
                    buf = GuardedBuffer(name, "output", count * np_dtype.itemsize)
                    guarded.append((buf, buf.address, np_dtype.itemsize))
                    host = buf.bytes_view().view(np_dtype).reshape(shape)
                else:
                    host = np.empty(shape, np_dtype)
                    keep.append(host)
                if p.init_value is None:
                    host.view(np.uint8).fill(POISON_BYTE)  # Metal leaves outputs uninitialised
                else:
                    host[...] = host_view(mx.array(p.init_value, dtype=dtype))
                outputs.append((host, dtype))
                pointers.append(host.ctypes.data)
            self._run(compiled, pointers, p.grid, p.threadgroup, guarded, label)
            return [to_mx(host, dtype) for host, dtype in outputs]  # mx.array copies out of the guarded pages
        finally:
            for buf, _, _ in guarded:
                buf.free()

    def _run(self, compiled: _Compiled, pointers: list[int], grid, threadgroup, guarded, label: str) -> None:
        lib = compiler.runtime_library()
        launch = _Launch()
        launch.grid[:] = list(grid)
        launch.threadgroup[:] = list(threadgroup)
        launch.workers = self.workers
        launch.use_fibers = int(compiled.unit.uses_fibers)
        launch.reverse_schedule = int(self.schedule == "reverse")
        launch.threadgroup_memory_limit = THREADGROUP_MEMORY_LIMIT
        array = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
        status = lib.mfemu_launch(ctypes.c_void_p(compiled.thread_fn), ctypes.c_void_p(compiled.group_fn), array,
                                  ctypes.byref(launch))  # ctypes releases the GIL while it runs
        if status == 0:
            return
        message = launch.message.decode(errors="replace")
        message = re.sub(r"\[\[line:(\d+)\]\]", lambda m: compiled.unit.describe_line(int(m.group(1))), message)
        if status == 3:
            for buf, start, itemsize in guarded:
                what = buf.describe_fault(launch.fault_address, itemsize, start)
                if what:
                    message = f"{what} ({message})"
                    break
        raise _STATUS_ERRORS.get(status, errors.KernelLaunchError)(f"{label}: {message}")
