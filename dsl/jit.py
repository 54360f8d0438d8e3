"""`@metalforge.jit` kernels and their launch: `kernel[grid](*args, BLOCK=..., num_warps=...)`.

A launch binds the arguments (mx.arrays are read-only inputs, `empty`/`zeros`/`full` placeholders
are outputs, Python numbers are scalars, constexpr parameters specialise), compiles the
specialisation once (cached), and runs it through `metalforge.runtime.metal_kernel` on the active
back end: one Triton program is one Metal threadgroup of `num_warps * 32` threads.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence, Union

import mlx.core as mx

import hashlib

from ..codegen.pipeline import CODEGEN_VERSION, CompiledKernel, compile_ir
from ..errors import MetalforgeError
from ..runtime import backends, metal_kernel
from . import ir
from .frontend import JITFunction as _FrontendFunction

DTYPES = {mx.bool_: ir.int1, mx.int8: ir.int8, mx.int16: ir.int16, mx.int32: ir.int32, mx.int64: ir.int64,
          mx.uint8: ir.uint8, mx.uint16: ir.uint16, mx.uint32: ir.uint32, mx.uint64: ir.uint64,
          mx.float16: ir.float16, mx.bfloat16: ir.bfloat16, mx.float32: ir.float32}
MX_DTYPES = {v: k for k, v in DTYPES.items()}


@dataclass(frozen=True)
class Placeholder:
    """An output of a launch: its shape, dtype and initial contents (None: uninitialised)."""

    shape: tuple[int, ...]
    dtype: mx.Dtype
    init: float | None = None


def empty(shape: Union[int, Sequence[int]], dtype: mx.Dtype = mx.float32) -> Placeholder:
    """An output whose initial contents are undefined (every element must be written)."""
    return Placeholder(_shape(shape), dtype)


def zeros(shape: Union[int, Sequence[int]], dtype: mx.Dtype = mx.float32) -> Placeholder:
    """An output initialised to zero (for atomics and partial writes)."""
    return Placeholder(_shape(shape), dtype, 0.0)


def full(shape: Union[int, Sequence[int]], value: float, dtype: mx.Dtype = mx.float32) -> Placeholder:
    return Placeholder(_shape(shape), dtype, float(value))


def cdiv(x: int, div: int) -> int:
    return -(-x // div)


def _shape(shape) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)


def _element(dtype: mx.Dtype, what: str) -> ir.ScalarType:
    if dtype not in DTYPES:
        raise MetalforgeError(f"{what} has dtype {dtype}, which Metal kernels cannot take "
                              f"(supported: {', '.join(str(d) for d in DTYPES)})")
    return DTYPES[dtype]


def _scalar_type(value: Any) -> ir.ScalarType:
    if isinstance(value, bool):
        return ir.int1
    if isinstance(value, int):
        return ir.int32 if -2**31 <= value < 2**31 else ir.int64
    return ir.float32


class JITFunction(_FrontendFunction):
    """A kernel: index it with a grid to launch it."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__(fn)
        self.cache: dict[tuple, CompiledKernel] = {}
        self.last: CompiledKernel | None = None
        self.name = fn.__name__
        self.arg_names = list(self.signature.parameters)

    @property
    def source_hash(self) -> str:
        """Changes when the kernel's source or metalforge's code generation changes (tuning goes stale)."""
        text = "".join(self.source.lines)
        return hashlib.sha256(f"{CODEGEN_VERSION}\0{text}".encode()).hexdigest()[:16]

    def __getitem__(self, grid) -> Callable[..., Any]:
        return lambda *args, **kwargs: self.run(grid, *args, **kwargs)

    def bind(self, args, kwargs) -> tuple[dict[str, Any], dict[str, Any], int]:
        """(runtime arguments, constexpr values, num_warps) of a call."""
        kwargs = dict(kwargs)
        num_warps = int(kwargs.pop("num_warps", 4))
        kwargs.pop("num_stages", None)
        if num_warps < 1 or num_warps > 32 or num_warps & (num_warps - 1):
            raise MetalforgeError(f"{self.__name__}: num_warps={num_warps}; use a power of two from 1 to 32 "
                                  "(a Metal threadgroup has at most 1024 threads)")
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise MetalforgeError(f"{self.__name__}: {e}") from None
        bound.apply_defaults()
        runtime = {k: v for k, v in bound.arguments.items() if k not in self.constexpr_params}
        constexprs = {k: v for k, v in bound.arguments.items() if k in self.constexpr_params}
        return runtime, constexprs, num_warps

    def arg_type(self, name: str, value: Any) -> ir.Type:
        if isinstance(value, mx.array):
            return ir.ptr(_element(value.dtype, f"argument `{name}`"))
        if isinstance(value, Placeholder):
            return ir.ptr(_element(value.dtype, f"output `{name}`"))
        if isinstance(value, (bool, int, float)):
            return _scalar_type(value)
        raise MetalforgeError(f"{self.__name__}: argument `{name}` is a {type(value).__name__}; pass an mx.array "
                              "(input), metalforge.empty/zeros/full (output), or a Python number")

    def specialize(self, runtime: dict[str, Any], constexprs: dict[str, Any], num_warps: int) -> CompiledKernel:
        types = {k: self.arg_type(k, v) for k, v in runtime.items()}
        outputs = {k for k, v in runtime.items() if isinstance(v, Placeholder)}
        key = (tuple(types.items()), tuple(sorted(outputs)), tuple(sorted(constexprs.items(), key=str)), num_warps)
        compiled = self.cache.get(key)
        if compiled is None:
            compiled = compile_ir(self.build_ir(types, constexprs), outputs, num_warps)
            self.cache[key] = compiled
        self.last = compiled
        return compiled

    def compile(self, *args: Any, **kwargs: Any) -> CompiledKernel:
        """The compiled specialisation for these arguments, with `.asm` (IR after each pass, MSL)."""
        return self.specialize(*self.bind(args, kwargs))

    @property
    def asm(self) -> dict[str, str]:
        """Stages of the most recently compiled specialisation."""
        if self.last is None:
            raise MetalforgeError(f"{self.__name__} has not been compiled yet: launch it or call .compile(...)")
        return self.last.asm

    def run(self, grid, *args: Any, backend: Any = None, **kwargs: Any) -> Any:
        runtime, constexprs, num_warps = self.bind(args, kwargs)
        compiled = self.specialize(runtime, constexprs, num_warps)
        meta = {**constexprs, "num_warps": num_warps}
        g = tuple(grid(meta) if callable(grid) else grid)
        if not 1 <= len(g) <= 3 or not all(isinstance(n, int) and n >= 0 for n in g):
            raise MetalforgeError(f"{self.__name__}: grid must be 1 to 3 non-negative ints, got {g!r}")
        g = g + (1,) * (3 - len(g))
        outputs = [(k, runtime[k]) for k, _ in compiled.outputs]
        inits = {p.init for _, p in outputs if p.init is not None}
        if len(inits) > 1:
            raise MetalforgeError(f"{self.__name__}: outputs with different initial values {sorted(inits)}; MLX "
                                  "initialises all outputs of a kernel alike: use one value (or empty)")
        inputs = []
        for name, t in compiled.inputs:
            value = runtime[name]
            if isinstance(value, mx.array):
                inputs.append(value.reshape(1) if value.ndim == 0 else value)
            else:
                inputs.append(mx.array(value, dtype=MX_DTYPES[t]))
        kernel = metal_kernel(compiled.name, [n for n, _ in compiled.inputs], [n for n, _ in outputs],
                              compiled.body, compiled.header, atomic_outputs=compiled.atomic_outputs,
                              backend=backend)
        if any(n == 0 for n in g):
            outs = [mx.full(p.shape, p.init or 0, p.dtype) for _, p in outputs]
        else:
            outs = kernel(inputs=inputs, output_shapes=[p.shape for _, p in outputs],
                          output_dtypes=[p.dtype for _, p in outputs],
                          grid=(g[0] * compiled.threads, g[1], g[2]), threadgroup=(compiled.threads, 1, 1),
                          init_value=inits.pop() if inits else None)
        return outs[0] if len(outs) == 1 else tuple(outs)


def jit(fn: Callable[..., Any]) -> JITFunction:
    """Compile a Triton-style kernel function for Metal (launch with `kernel[grid](...)`)."""
    return JITFunction(fn)
