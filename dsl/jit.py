"""`@metalforge.jit` kernels and their launch: `kernel[grid](*args, BLOCK=..., num_warps=...)`.

A launch binds the arguments (mx.arrays are read-only inputs, `empty`/`zeros`/`full` placeholders
are outputs, Python numbers are scalars, constexpr parameters specialise), compiles the
specialisation once (cached), and runs it through `metalforge.runtime.metal_kernel` on the active
back end: one Triton program is one Metal threadgroup of `num_warps * 32` threads.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any, Callable, Sequence, Union

import mlx.core as mx

import hashlib

from ..codegen.passes.debug_print import PRINT_CAPACITY, RECORD_WORDS, decode as decode_prints
from ..codegen.pipeline import CODEGEN_VERSION, CompiledKernel, compile_ir, dot_stages_for
from ..errors import BackendUnavailableError, LaunchConfigError, MetalforgeError
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
        self.is_constexpr = [n in self.constexpr_params for n in self.arg_names]
        self.arg_index = {n: i for i, n in enumerate(self.arg_names)}
        self.defaults = [p.default if p.default is not p.empty else _MISSING
                         for p in self.signature.parameters.values()]
        self.launchers: dict[tuple, tuple] = {}  # per (compiled kernel, back end): see `launcher`
        self.constexpr_at = tuple(i for i, c in enumerate(self.is_constexpr) if c)
        self.runtime_at = tuple(i for i, c in enumerate(self.is_constexpr) if not c)

    codegen_version = CODEGEN_VERSION

    @property
    def source_hash(self) -> str:
        """Changes when the kernel's source, a @jit helper it calls, a global constant it reads or
        metalforge's code generation changes (tuning goes stale)."""
        text = self.dependency_text()
        return hashlib.sha256(f"{CODEGEN_VERSION}\0{text}".encode()).hexdigest()[:16]

    def __getitem__(self, grid) -> Callable[..., Any]:
        return lambda *args, **kwargs: self.run(grid, *args, **kwargs)

    def bind(self, args: tuple, kwargs: dict) -> list[Any]:
        """Argument values in parameter order (defaults filled in)."""
        params = self.arg_names
        if len(args) > len(params):
            raise MetalforgeError(f"{self.__name__}: takes {len(params)} arguments, got {len(args)}")
        values = list(args) + [_MISSING] * (len(params) - len(args))
        for k, v in kwargs.items():
            i = self.arg_index.get(k)
            if i is None:
                raise MetalforgeError(f"{self.__name__}: unexpected argument `{k}`; parameters are "
                                      f"{', '.join(params)} (plus num_warps, num_stages, warps_m, matmul2d, backend)")
            if values[i] is not _MISSING:
                raise MetalforgeError(f"{self.__name__}: argument `{k}` given twice")
            values[i] = v
        if any(v is _MISSING for v in values):
            for i, v in enumerate(values):
                if v is _MISSING:
                    default = self.defaults[i]
                    if default is _MISSING:
                        raise MetalforgeError(f"{self.__name__}: missing argument `{params[i]}`")
                    values[i] = default
        return values

    def arg_type(self, name: str, value: Any) -> ir.Type:
        if isinstance(value, mx.array):
            return ir.ptr(_element(value.dtype, f"argument `{name}`"))
        if isinstance(value, Placeholder):
            return ir.ptr(_element(value.dtype, f"output `{name}`"))
        if isinstance(value, (bool, int, float)):
            return _scalar_type(value)
        raise MetalforgeError(f"{self.__name__}: argument `{name}` is a {type(value).__name__}; pass an mx.array "
                              "(input), metalforge.empty/zeros/full (output), or a Python number")

    def specialize(self, values: list[Any], num_warps: int, target: str = "msl",
                   num_stages: int | None = None, warps_m: int | None = None,
                   matmul2d: bool = False) -> CompiledKernel:
        """The compiled kernel for these argument values (cached by their types and constexprs), for `target`;
        `num_stages=0` loads `tl.dot` operands straight from device memory instead of staging them in
        threadgroup memory; 1 (the default) stages them in one buffer, 2 or more in two, alternating
        between loop iterations (double buffering: one barrier per iteration instead of two).
        `warps_m` simdgroups go along the rows of each `tl.dot` result, the rest along its columns
        (None: the compiler splits the longer side first). `matmul2d=True` multiplies `tl.dot` tiles
        with Metal 4's cooperative `matmul2d` (MetalPerformancePrimitives; M5-class GPUs, macOS 26)
        instead of 8x8 simdgroup matrices; its operands are always staged."""
        stages = dot_stages_for(num_stages, matmul2d)
        key = (num_warps, target, stages, warps_m, matmul2d, *[values[i] for i in self.constexpr_at],
               *[_type_key(values[i]) for i in self.runtime_at])
        compiled = self.cache.get(key)
        if compiled is None:  # launch settings are checked once, before the first compile of a key
            self.check_launch_settings(num_warps, target, warps_m, matmul2d)
            types = {n: self.arg_type(n, v) for n, v, c in zip(self.arg_names, values, self.is_constexpr) if not c}
            constexprs = {n: v for n, v, c in zip(self.arg_names, values, self.is_constexpr) if c}
            outputs = {n for n, v in zip(self.arg_names, values) if isinstance(v, Placeholder)}
            divisible = frozenset(n for n, v, c in zip(self.arg_names, values, self.is_constexpr)
                                  if not c and type(v) is int and v % 16 == 0)
            compiled = compile_ir(self.build_ir(types, constexprs), outputs, num_warps, target, divisible,
                                  dot_stages=stages, warps_m=warps_m, matmul2d=matmul2d)
            self.cache[key] = compiled
        self.last = compiled
        return compiled

    def check_launch_settings(self, num_warps: int, target: str, warps_m: int | None, matmul2d: bool) -> None:
        if num_warps < 1 or num_warps > 32 or num_warps & (num_warps - 1):
            raise LaunchConfigError(f"{self.__name__}: num_warps={num_warps}; use a power of two from 1 to 32 "
                                    "(a Metal threadgroup has at most 1024 threads)")
        if warps_m is not None and (warps_m < 1 or warps_m > num_warps or warps_m & (warps_m - 1)):
            raise LaunchConfigError(f"{self.__name__}: warps_m={warps_m} with num_warps={num_warps}; use a power "
                                    "of two from 1 to num_warps (or None to let the compiler choose)")
        if matmul2d and target != "msl":
            raise LaunchConfigError(f"{self.__name__}: matmul2d=True is Metal 4's cooperative matmul, which the "
                                    f"{target} target does not have; drop matmul2d (tl.dot then uses the target's "
                                    "own matrix instructions)")

    def compile(self, *args: Any, num_warps: int = 4, num_stages: int | None = None, backend: Any = None,
                target: str | None = None, warps_m: int | None = None, matmul2d: bool = False,
                **kwargs: Any) -> CompiledKernel:
        """The compiled specialisation for these arguments, with `.asm` (IR after each pass, MSL or CUDA);
        `target` ("msl", "cuda") defaults to what `backend` (else the active back end) runs."""
        return self.specialize(self.bind(args, kwargs), num_warps, target or _target(backend), num_stages, warps_m,
                               matmul2d)

    def warmup(self, *args: Any, grid: Any = None, num_warps: int = 4, num_stages: int | None = None,
               backend: Any = None, warps_m: int | None = None, matmul2d: bool = False,
               **kwargs: Any) -> CompiledKernel:
        """Compile without running (as Triton's `warmup`), e.g. so autotuning times runs only."""
        return self.specialize(self.bind(args, kwargs), num_warps, _target(backend), num_stages, warps_m, matmul2d)

    @property
    def asm(self) -> dict[str, str]:
        """Stages of the most recently compiled specialisation."""
        if self.last is None:
            raise MetalforgeError(f"{self.__name__} has not been compiled yet: launch it or call .compile(...)")
        return self.last.asm

    def run(self, grid, *args: Any, backend: Any = None, num_warps: int = 4, num_stages: int | None = None,
            warps_m: int | None = None, matmul2d: bool = False, **kwargs: Any) -> Any:
        values = self.bind(args, kwargs)
        try:
            runner = _backend(backend)
        except BackendUnavailableError:
            runner = None  # nothing runs here: an empty grid still returns its outputs, any other raises
        compiled = self.specialize(values, num_warps, runner.language if runner else "msl", num_stages, warps_m,
                                   matmul2d)
        if callable(grid):
            meta = {self.arg_names[i]: values[i] for i in self.constexpr_at}
            grid = grid({**meta, "num_warps": num_warps})
        g = tuple(grid)
        if not 1 <= len(g) <= 3 or not all(isinstance(n, int) and n >= 0 for n in g):
            raise MetalforgeError(f"{self.__name__}: grid must be 1 to 3 non-negative ints, got {g!r}")
        g = g + (1,) * (3 - len(g))
        kernel, inputs_at, outputs_at = self.launcher(compiled, runner)
        outputs = [values[i] if i is not None else zeros(((PRINT_CAPACITY + 1) * RECORD_WORDS,), mx.uint32)
                   for i in outputs_at]  # None: the hidden device_print buffer, zero-initialised
        inits = {_NAN if p.init != p.init else p.init for p in outputs if p.init is not None}  # one NaN object
        if len(inits) > 1:
            raise MetalforgeError(f"{self.__name__}: outputs with different initial values {sorted(inits)}; MLX "
                                  "initialises all outputs of a kernel alike: use one value (or empty)"
                                  + (" (tl.device_print needs 0)" if compiled.prints else ""))
        if 0 in g:
            outs = [mx.full(p.shape, p.init or 0, p.dtype) for p in outputs]
        else:
            if kernel is None:
                _backend(backend)  # raises BackendUnavailableError, saying what is missing
            outs = kernel(inputs=[_as_input(values[i], t) for i, t in inputs_at],
                          output_shapes=[p.shape for p in outputs], output_dtypes=[p.dtype for p in outputs],
                          grid=(g[0] * compiled.threads, g[1], g[2]), threadgroup=(compiled.threads, 1, 1),
                          init_value=inits.pop() if inits else None)
        if compiled.prints:
            decode_prints(outs[-1], compiled.prints)
            outs = outs[:-1]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def launcher(self, compiled: CompiledKernel, runner: Any) -> tuple[Any, list, list]:
        """(runtime kernel on `runner`, or None without one; where each input buffer comes from in
        the argument list and its dtype; where each output comes from), made once per pair."""
        key = (id(compiled), id(runner))  # `cache` keeps compiled kernels alive, back ends live on
        found = self.launchers.get(key)
        if found is None:
            index = {n: i for i, n in enumerate(self.arg_names)}
            kernel = None if runner is None else metal_kernel(
                compiled.name, [n for n, _ in compiled.inputs], [n for n, _ in compiled.outputs], compiled.body,
                compiled.header, atomic_outputs=compiled.atomic_outputs, backend=runner)
            found = (kernel, [(index[n], MX_DTYPES.get(t)) for n, t in compiled.inputs],
                     [index.get(n) for n, _ in compiled.outputs])
            if runner is not None:
                self.launchers[key] = found
        return found


_MISSING = object()
_NAN = float("nan")  # the one NaN initial value: a set holds NaNs once only when they are the same object


def _backend(backend: Any) -> Any:
    """The back end a launch runs on (resolved once per name: launches stay cheap)."""
    if backend is not None and not isinstance(backend, str):
        return backend
    return _named_backend(backend or os.environ.get("METALFORGE_BACKEND") or "auto")


@functools.lru_cache(maxsize=None)
def _named_backend(name: str) -> Any:
    return backends.resolve(name)


def _target(backend: Any) -> str:
    """The renderer for a back end: its source language (MSL when no back end runs here, so that
    compile() still shows the Metal source)."""
    try:
        return _backend(backend).language
    except BackendUnavailableError:
        return "msl"


def _type_key(value: Any) -> Any:
    """What of a runtime argument selects the specialisation: its dtype or scalar kind (cheap: every
    launch computes it for every argument)."""
    t = type(value)
    if t is mx.array:
        return value.dtype
    if t is Placeholder:
        return ("out", value.dtype)
    if t is int:  # multiples of 16 specialise apart (as in Triton): their masks allow vector accesses
        return ("i32" if -2**31 <= value < 2**31 else "i64", value % 16 == 0)
    if t is float:
        return "f32"
    if t is bool:
        return "i1"
    return t  # anything else: arg_type() accepts it (number subclasses) or says what to pass


_SCALARS: dict[tuple, mx.array] = {}


def _as_input(value: Any, dtype: mx.Dtype | None) -> mx.array:
    """An argument as MLX takes it: arrays as they are (0-d ones as 1-d), Python numbers as arrays of
    the scalar parameter's dtype (`dtype`), made once per value (every launch converts its scalars)."""
    if type(value) is mx.array:
        return value if value.ndim else value.reshape(1)
    key = (value, type(value), dtype)
    scalar = _SCALARS.get(key)
    if scalar is None:  # scalars repeat (sizes, strides): keep a few hundred as arrays
        if len(_SCALARS) > 512:
            _SCALARS.clear()
        scalar = _SCALARS[key] = mx.array(value, dtype=dtype)
    return scalar


def jit(fn: Callable[..., Any]) -> JITFunction:
    """Compile a Triton-style kernel function for Metal (launch with `kernel[grid](...)`)."""
    return JITFunction(fn)
