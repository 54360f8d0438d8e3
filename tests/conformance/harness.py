"""Run one kernel text on both sides: Triton's interpreter (torch CPU tensors) and metalforge (mx arrays).

A launch is described once, side-neutrally: numpy arrays are inputs (`BF16(a)` for bfloat16 inputs),
`Out(shape, dtype)` are outputs, Python numbers are scalars, `DT("float32")` is a dtype passed as a
constexpr. Each side's launcher turns that into its own launch and returns the outputs as numpy
arrays in argument order (bfloat16 outputs come back as float32).
"""
from __future__ import annotations

import contextlib
import os
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..dsl.kutil import define_source

KERNELS = [Path(__file__).with_name(name) for name in ("kernels.py", "triton_port_kernels.py")]

NP = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
      "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
      "float16": np.float16, "float32": np.float32, "bfloat16": np.float32}
TL_NAME = {"bool": "int1"}  # tl spells bool `int1`
CONFORMANCE_BACKEND = "METALFORGE_CONFORMANCE_BACKEND"  # a back end's name: run metalforge's side there


@dataclass(frozen=True)
class Out:
    """An output; `init` fills it first (else it is poisoned), for kernels that may leave it unwritten."""
    shape: tuple[int, ...] | int
    dtype: str
    init: int | float | None = None

    @property
    def dims(self) -> tuple[int, ...]:
        return (self.shape,) if isinstance(self.shape, int) else tuple(self.shape)


@dataclass(frozen=True)
class DT:
    """A dtype constexpr: each side passes its own `tl.<name>`."""
    name: str


@dataclass(frozen=True, eq=False)
class BF16:
    """A bfloat16 input given as float32 values (numpy has no bfloat16)."""
    values: np.ndarray


def bf16_round(a: np.ndarray) -> np.ndarray:
    """float32 -> nearest bfloat16 (ties to even), returned as float32."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def _exec_kernels(tl: Any, jit: Any, name: str) -> types.SimpleNamespace:
    kernels: dict[str, Any] = {}
    for path in KERNELS:
        scope: dict[str, Any] = {"__name__": name, "__file__": str(path), "tl": tl, "jit": jit}
        exec(compile(path.read_text(), str(path), "exec"), scope)
        for k, v in scope.items():
            if k.endswith("_kernel"):
                assert k not in kernels, f"kernel {k} is defined twice"
                kernels[k] = v
    return types.SimpleNamespace(**kernels)


@contextlib.contextmanager
def interpret_mode():
    """TRITON_INTERPRET=1 while Triton decorates and runs kernels (its knobs read the variable then)."""
    old = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ["TRITON_INTERPRET"]
        else:
            os.environ["TRITON_INTERPRET"] = old


class TritonSide:
    name = "triton"

    def __init__(self) -> None:
        import torch
        import triton
        import triton.language as tl
        from triton.runtime.interpreter import InterpretedFunction

        # triton.language's own @jit helpers (tl.sum, tl.max, ...) are decorated when triton is
        # imported: the interpreter only works if TRITON_INTERPRET was set then (conftest does it).
        assert isinstance(tl.standard.sum, InterpretedFunction), \
            "triton was imported without TRITON_INTERPRET=1; tests/conformance/conftest.py sets it first"
        self.torch, self.tl = torch, tl
        with interpret_mode():
            self.k = _exec_kernels(tl, triton.jit, "conformance_kernels_triton")

    def define(self, src: str) -> Any:
        """Triton's kernel `generated` of a generated source text, for `run`."""
        import triton

        with interpret_mode():
            return define_source(src, triton.jit, tl=self.tl)

    def _torch_dtype(self, name: str):
        return getattr(self.torch, name)

    def run(self, kernel: str | Any, grid, *args: Any, num_warps: int = 4, **consts: Any) -> list[np.ndarray]:
        """`kernel`: a kernel's name in the kernel files, or one that `define` made."""
        torch = self.torch
        targs, outs = [], []
        for a in args:
            if isinstance(a, Out):
                t = torch.empty(a.dims, dtype=self._torch_dtype(a.dtype))
                if a.init is not None:
                    t.fill_(a.init)
                elif t.dtype.is_floating_point:
                    t.fill_(float("nan"))  # poison: unwritten elements show
                elif t.dtype != torch.bool:
                    t.fill_(torch.iinfo(t.dtype).max - 1)
                outs.append(t)
                targs.append(t)
            elif isinstance(a, BF16):
                targs.append(torch.from_numpy(np.ascontiguousarray(a.values, np.float32)).to(torch.bfloat16))
            elif isinstance(a, np.ndarray):
                targs.append(torch.from_numpy(np.ascontiguousarray(a)).clone())
            else:
                targs.append(a)
        tconsts = {k: getattr(self.tl, TL_NAME.get(v.name, v.name)) if isinstance(v, DT) else v
                   for k, v in consts.items()}
        with interpret_mode():
            fn = getattr(self.k, kernel) if isinstance(kernel, str) else kernel
            fn[grid](*targs, num_warps=num_warps, **tconsts)
        return [(t.float() if t.dtype == torch.bfloat16 else t).numpy().copy() for t in outs]


class MetalforgeSide:
    name = "metalforge"

    def __init__(self) -> None:
        import mlx.core as mx

        import metalforge as mf
        import metalforge.language as tl

        self.mx, self.mf, self.tl = mx, mf, tl
        self.k = _exec_kernels(tl, mf.jit, "conformance_kernels_metalforge")

    def define(self, src: str) -> Any:
        """metalforge's kernel `generated` of a generated source text, for `run`."""
        return define_source(src, self.mf.jit, tl=self.tl)

    def _mx_dtype(self, name: str):
        return self.mx.bool_ if name == "bool" else getattr(self.mx, name)

    def run(self, kernel: str | Any, grid, *args: Any, num_warps: int = 4, schedule: str = "forward",
            **consts: Any) -> list[np.ndarray]:
        """`kernel`: a kernel's name in the kernel files, or one that `define` made. `schedule`: the
        emulator's thread order ("reverse" exposes missing barriers). With
        $METALFORGE_CONFORMANCE_BACKEND set (e.g. `cuda` on a GPU machine) the kernels run there instead,
        in the GPU's own thread order (`schedule` is the emulator's)."""
        from metalforge.runtime.emulator import EmulatorBackend

        mx, mf = self.mx, self.mf
        margs, n_out = [], 0
        for a in args:
            if isinstance(a, Out):
                margs.append(mf.empty(a.dims, self._mx_dtype(a.dtype)) if a.init is None
                             else mf.full(a.dims, a.init, self._mx_dtype(a.dtype)))
                n_out += 1
            elif isinstance(a, BF16):
                margs.append(mx.array(np.ascontiguousarray(a.values, np.float32)).astype(mx.bfloat16))
            elif isinstance(a, np.ndarray):
                margs.append(mx.array(np.ascontiguousarray(a)))
            else:
                margs.append(a)
        mconsts = {k: getattr(self.tl, TL_NAME.get(v.name, v.name)) if isinstance(v, DT) else v
                   for k, v in consts.items()}
        backend = os.environ.get(CONFORMANCE_BACKEND) or EmulatorBackend(schedule=schedule)
        fn = getattr(self.k, kernel) if isinstance(kernel, str) else kernel
        res = fn[grid](*margs, num_warps=num_warps, backend=backend, **mconsts)
        res = [] if n_out == 0 else [res] if n_out == 1 else list(res)
        return [np.array(r.astype(mx.float32) if r.dtype == mx.bfloat16 else r) for r in res]


def compare(got: np.ndarray, want: np.ndarray, what: str, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Exact (default) or close comparison; dtype and shape must agree; NaN matches NaN."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if rtol == 0 and atol == 0:
        if got.dtype.kind == "f":
            same = (got == want) | (np.isnan(got) & np.isnan(want))
        else:
            same = got == want
        if not same.all():
            bad = np.argwhere(~same.reshape(got.shape))[:6]
            detail = ", ".join(f"{tuple(i)}: {got[tuple(i)]!r} vs {want[tuple(i)]!r}" for i in bad)
            raise AssertionError(f"{what}: {int((~same).sum())} of {same.size} differ; {detail}")
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)
