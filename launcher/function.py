"""`@metalforge.jit` kernels and their launch: `kernel[grid](*args, BLOCK=..., num_warps=...)`.

A launch binds the arguments (mx.arrays are read-only inputs, `empty`/`zeros`/`full` placeholders
are outputs, Python numbers are scalars, constexpr parameters specialise), compiles the
specialisation once, and runs it on the chosen back end: one Triton program is one Metal
threadgroup of `num_warps * 32` threads.

A cached launch runs two generated functions (launcher/generated.py): the kernel's dispatcher
computes the specialisation key and finds the specialisation's launch function in `launches`, which
calls the MLX kernel object. Everything else (checking the call, choosing the back end, compiling)
happens once per key, on a miss.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import types
from typing import Any, Callable, Mapping, NamedTuple, Optional, Sequence

import mlx.core as mx

from ..codegen import lir
from ..codegen.lowering.debug_print import PRINT_CAPACITY, RECORD_WORDS, decode as decode_prints
from ..codegen.pipeline import CODEGEN_VERSION, CompiledKernel, compile_ir, dot_stages_for
from ..codegen.target import target_named
from ..dsl import ir
from ..dsl.frontend import JITFunction as _FrontendFunction
from ..errors import BackendUnavailableError, LaunchConfigError, MetalforgeError
from ..runtime import backends, metal_kernel
from ..runtime.kernel import ValueTypes
from . import generated
from .arguments import (MX_DTYPES, Placeholder, check_element, divisibility, fact, scalar_arrays, scalar_type,
                        unspecialized_fact, zeros)
from .generated import LAUNCH_OPTIONS, UNSET

_PRINT_BUFFER = zeros(((PRINT_CAPACITY + 1) * RECORD_WORDS,), mx.uint32)  # tl.device_print's hidden output
# MLX kernels need an output: a kernel that writes none (Triton's `pass` kernel) gets this one, unused
_NO_OUTPUT = ("_mf_no_output", zeros((1,), mx.uint8))


@contextlib.contextmanager
def collector_paused() -> Any:
    """Python's cyclic garbage collector off while a specialisation compiles: the compiler makes tens
    of thousands of short-lived objects, and every collection they set off walks all the objects the
    process holds (a model's modules, MLX's and torch's): in an mlx-lm process, 286 ms of a 396 ms
    compile were collections. The collector runs again at its next threshold after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class JITFunction(_FrontendFunction):
    """A kernel: index it with a grid to launch it."""

    codegen_version = CODEGEN_VERSION

    def __init__(self, fn: Callable[..., Any], debug: bool | None = None, do_not_specialize: Any = None) -> None:
        super().__init__(fn, debug)
        self.cache: dict[tuple, CompiledKernel] = {}     # compiled specialisations (see `specialize`)
        self.launches = generated.LaunchCache()  # the dispatcher's: key -> launch function
        self.last: CompiledKernel | None = None
        self.name = fn.__name__
        self.arg_names = list(self.signature.parameters)
        self.is_constexpr = [n in self.constexpr_params for n in self.arg_names]
        self.arg_index = {n: i for i, n in enumerate(self.arg_names)}
        self.defaults = [p.default if p.default is not p.empty else UNSET for p in self.signature.parameters.values()]
        self.constexpr_at = tuple(i for i, c in enumerate(self.is_constexpr) if c)
        self.runtime_at = tuple(i for i, c in enumerate(self.is_constexpr) if not c)
        self.unspecialized = self._unspecialized(do_not_specialize)
        self.runtime_facts = tuple(unspecialized_fact if self.arg_names[i] in self.unspecialized else fact
                                   for i in self.runtime_at)
        self._dispatch: Callable[..., Any] = self._first_launch

    def _unspecialized(self, names: Any) -> frozenset[str]:
        """The parameters of `do_not_specialize` (names or positions, as Triton takes them): integer
        arguments whose values change from call to call (a position, an offset) compile once, not
        once per divisibility class."""
        if names is None:
            return frozenset()
        found = set()
        for item in ([names] if isinstance(names, (str, int)) else names):
            name = self.arg_names[item] if type(item) is int and 0 <= item < len(self.arg_names) else item
            if name not in self.arg_index or self.is_constexpr[self.arg_index[name]]:
                code = self.fn.__code__
                raise LaunchConfigError(f"{self.name} ({code.co_filename}:{code.co_firstlineno}): do_not_specialize "
                                        f"names {item!r}, which is not one of its runtime parameters; name some of "
                                        f"{', '.join(self.arg_names[i] for i in self.runtime_at)}")
            found.add(name)
        return frozenset(found)

    @property
    def source_hash(self) -> str:
        """Changes when the kernel's source, a @jit helper it calls, a global constant it reads or
        metalforge's code generation changes (tuning goes stale)."""
        text = self.dependency_text()
        return hashlib.sha256(f"{CODEGEN_VERSION}\0{text}".encode()).hexdigest()[:16]

    # -- launching ----------------------------------------------------------------------------------

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        return functools.partial(self._dispatch, grid)

    def _first_launch(self, grid: Any, *args: Any, **kwargs: Any) -> Any:
        """The first launch makes the dispatcher, for its argument types (helpers, which are never
        launched, never need one)."""
        dispatch = self._dispatcher_for(args, kwargs)
        launched = dispatch(grid, *args, **kwargs)
        self._dispatch = dispatch  # after the launch: a call that fails (its types unknown) teaches nothing
        return launched

    def prepare(self, grid: Any, *args: Any, varying: Sequence[str], **kwargs: Any) -> Callable[..., Any]:
        """`kernel[grid](*args, **kwargs)` made once for calls that change only the parameters named in
        `varying`: `launch(*their values)` skips the dispatcher's key over every argument and the
        conversions of the fixed ones (a decode step launches the same layer's kernels with the same
        weights token after token). See launcher.generated.prepare for what is checked per call."""
        dispatch = self._dispatcher_for(args, kwargs)
        prepared = dispatch.prepare(grid, args, kwargs, varying)
        self._dispatch = dispatch  # after preparing: a call that fails teaches nothing
        return prepared

    def _dispatcher_for(self, args: Sequence[Any], kwargs: dict[str, Any]) -> Callable[..., Any]:
        """The dispatcher, made for these argument types where no launch has made it yet."""
        if self._dispatch != self._first_launch:
            return self._dispatch
        return self.dispatcher(self._miss, args, kwargs, cache=self.launches)

    def dispatcher(self, miss: Callable[[Any, tuple, tuple, dict], Any], args: Sequence[Any], kwargs: dict[str, Any],
                   *, cache: generated.LaunchCache | None = None, open_meta: bool = False,
                   shape_of: Sequence[str] = (), buckets: Optional[Mapping[str, Callable[[int], int]]] = None,
                   counted: bool = False) -> Callable[..., Any]:
        """A dispatcher with this kernel's parameters (see launcher.generated.dispatcher), quickest for
        calls with the argument types of `kernel[grid](*args, **kwargs)`, over `cache` (a new one unless
        given; it is the dispatcher's `.cache`): the kernel's own, and an autotuner's, whose cache also
        holds the tuned config."""
        given = {**dict(zip(self.arg_names, args)), **kwargs}
        kinds = [None if c else type(given.get(n, default))
                 for n, c, default in zip(self.arg_names, self.is_constexpr, self.defaults)]
        return generated.dispatcher(self.name, self.arg_names, self.is_constexpr, self.defaults, kinds,
                                    generated.LaunchCache() if cache is None else cache, miss,
                                    open_meta=open_meta, shape_of=shape_of, buckets=buckets, counted=counted,
                                    unspecialized=self.unspecialized)

    def _miss(self, grid: Any, key: tuple, args: tuple, kwargs: dict[str, Any]) -> tuple[Callable[..., Any], bool]:
        return self.launch_function(args, kwargs)

    def launch_function(self, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Callable[..., Any], bool]:
        """The launch function of the specialisation a call `kernel[grid](*args, **kwargs)` runs,
        compiled first where needed: `launch(grid, *every parameter in order)` (constexprs are ignored:
        they are compiled in). Also whether it may be cached: not where no back end runs here (then
        only an empty grid launches)."""
        kwargs = dict(kwargs)
        options = {name: kwargs.pop(name, default) for name, default in LAUNCH_OPTIONS.items()}
        if options["num_ctas"] != 1:
            raise LaunchConfigError(f"{self.__name__}: num_ctas={options['num_ctas']!r}; a Triton program is one Metal "
                                    "threadgroup and Metal has no thread block clusters: use num_ctas=1 (the default)")
        values = self.bind(args, kwargs)
        try:
            runner, missing = backends.resolve(options["backend"]), None
        except BackendUnavailableError as e:
            runner, missing = None, str(e)
        compiled = self.specialize(values, options["num_warps"], runner.language if runner else "msl",
                                   options["num_stages"], options["warps_m"], options["matmul2d"], options["wgmma"])
        return self._launch_function(compiled, runner, missing, values, options["num_warps"]), runner is not None

    def _launch_function(self, compiled: CompiledKernel, runner: Any, missing: str | None, values: list[Any],
                         num_warps: int) -> Callable[..., Any]:
        index = self.arg_index
        outputs: list[str | Placeholder] = [n if n in index else _PRINT_BUFFER for n, _ in compiled.outputs]
        # a 16-bit output of a kernel with atomics goes to MLX as 32-bit words (codegen's WordCell)
        output_names = [lir.words_name(n) if n in compiled.word_outputs else n for n, _ in compiled.outputs]
        if not outputs:
            output_names, outputs = [_NO_OUTPUT[0]], [_NO_OUTPUT[1]]
        placeholders = [values[index[o]] if isinstance(o, str) else o for o in outputs]
        words = [p.dtype if o in compiled.word_outputs else None for o, p in zip(outputs, placeholders)]
        inits = {p.init for p in placeholders if p.init is not None}
        if len(inits) > 1:
            raise MetalforgeError(f"{self.__name__}: outputs with different initial values {sorted(inits)}; MLX "
                                  "initialises all outputs of a kernel alike: use one value (or empty)"
                                  + (" (tl.device_print needs 0)" if compiled.prints else ""))
        init = inits.pop() if inits else None
        if init and any(w is not None for w in words):
            init = self._word_init(init, words)
        output_dtypes = [p.dtype if w is None else mx.uint32 for p, w in zip(placeholders, words)]  # as MLX has them
        by_value = runner.scalars_by_value() if hasattr(runner, "scalars_by_value") else {}  # optional
        inputs: list[tuple[str, Any]] = []
        for name, t in compiled.inputs:
            value, dtype = values[index[name]], MX_DTYPES[getattr(t, "element", t)]
            if isinstance(t, ir.PointerType):
                inputs.append((name, None))
            elif dtype in by_value:
                inputs.append((name, generated.ByValue(by_value[dtype])))
            else:
                inputs.append((name, scalar_arrays(type(value), dtype)))
        if runner is None:
            run = functools.partial(_unavailable, missing)
        else:
            passed = tuple(n for n, how in inputs if isinstance(how, generated.ByValue))
            value_types = ValueTypes(tuple(MX_DTYPES[getattr(t, "element", t)] for _, t in compiled.inputs),
                                     tuple(output_dtypes), passed) if passed else None
            run = runner.build(metal_kernel(compiled.name, [n for n, _ in compiled.inputs],
                                            output_names, compiled.body, compiled.header,
                                            atomic_outputs=compiled.atomic_outputs, backend=runner,
                                            origin=functools.partial(self.python_origin, compiled),
                                            value_types=value_types, shared_memory=compiled.shared_bytes,
                                            max_threads=compiled.threads))
        meta = types.MappingProxyType({**{self.arg_names[i]: values[i] for i in self.constexpr_at},
                                       "num_warps": num_warps})
        prints = functools.partial(_decode_prints, compiled.prints) if compiled.prints else None
        return generated.launch_function(self.name, self.arg_names, inputs, outputs, output_dtypes, compiled.threads,
                                         meta, init, run, prints, self, compiled, words)

    def _word_init(self, init: float, words: list[mx.Dtype | None]) -> float:
        """The initial value MLX gives the 32-bit words of 16-bit outputs that start at `init` (MLX starts
        every output at one value, converted to the output's type): both halves `init`, which must be
        exact in float32 and can be only where every output is such words of one type."""
        if any(w is None for w in words) or len(set(words)) > 1:
            raise MetalforgeError(f"{self.__name__}: outputs start at {init!r}, and a 16-bit output of a kernel with "
                                  "atomics is kept as 32-bit words, which MLX starts at one value with the other "
                                  "outputs: start them at 0 (mf.zeros) or give the 16-bit output a kernel of its own")
        half = mx.array(init, words[0]).view(mx.uint16).item()
        pattern = half | half << 16
        if mx.array(pattern, mx.float32).item() != pattern:
            raise MetalforgeError(f"{self.__name__}: a 16-bit output of a kernel with atomics starts at {init!r}, whose "
                                  "two halves of a 32-bit word MLX cannot set (its initial value is a float32): start "
                                  "it at 0 (mf.zeros) and add the value in the kernel")
        return float(pattern)

    def python_origin(self, compiled: CompiledKernel, body_line: int) -> str | None:
        """`file:line (`code`)` of this kernel's Python behind line `body_line` of `compiled.body`
        (a line of an inlined @jit helper keeps its number and text, without a file)."""
        found = compiled.python_line(body_line)
        if found is None:
            return None
        line, code = found
        own = self.source.line(line) == code.strip()
        return f"{self.source.file + ':' if own else 'line '}{line} (`{code}`)"

    # -- binding and compiling ----------------------------------------------------------------------

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
        """Argument values in parameter order (defaults filled in), or the error that says what is wrong."""
        params = self.arg_names
        if len(args) > len(params):
            raise MetalforgeError(f"{self.__name__}: takes {len(params)} arguments, got {len(args)}")
        values = list(args) + [UNSET] * (len(params) - len(args))
        for k, v in kwargs.items():
            i = self.arg_index.get(k)
            if i is None:
                raise MetalforgeError(f"{self.__name__}: unexpected argument `{k}`; parameters are "
                                      f"{', '.join(params)} (plus {', '.join(LAUNCH_OPTIONS)})")
            if values[i] is not UNSET:
                raise MetalforgeError(f"{self.__name__}: argument `{k}` given twice")
            values[i] = v
        for i, v in enumerate(values):
            if v is UNSET:
                if self.defaults[i] is UNSET:
                    raise MetalforgeError(f"{self.__name__}: missing argument `{params[i]}`")
                values[i] = self.defaults[i]
        return values

    def arg_type(self, name: str, value: Any) -> ir.Type:
        if isinstance(value, mx.array):
            return ir.ptr(check_element(value.dtype, f"argument `{name}`"))
        if isinstance(value, Placeholder):
            return ir.ptr(check_element(value.dtype, f"output `{name}`"))
        if isinstance(value, (bool, int, float)):
            return scalar_type(value)
        raise MetalforgeError(f"{self.__name__}: argument `{name}` is a {type(value).__name__}; pass an mx.array "
                              "(input), metalforge.empty/zeros/full (output), or a Python number")

    def specialize(self, values: list[Any], num_warps: int, target: str = "msl",
                   num_stages: int | None = None, warps_m: int | None = None,
                   matmul2d: bool = False, wgmma: bool = False) -> CompiledKernel:
        """The compiled kernel for these argument values (cached by their facts and constexprs), for `target`;
        `num_stages=0` loads `tl.dot` operands straight from device memory instead of staging them in
        threadgroup memory; 1 (the default) stages them in one buffer, 2 or more in two, alternating
        between loop iterations (double buffering: one barrier per iteration instead of two).
        `warps_m` simdgroups go along the rows of each `tl.dot` result, the rest along its columns
        (None: the compiler splits the longer side first). `matmul2d=True` multiplies `tl.dot` tiles
        with Metal 4's cooperative `matmul2d` (MetalPerformancePrimitives; M5-class GPUs, macOS 26)
        instead of 8x8 simdgroup matrices; its operands are always staged. `wgmma=True` multiplies
        those `tl.dot`s that can (fp16/bf16, not transposed, num_warps a multiple of 4, BLOCK_M of
        16 * num_warps, BLOCK_N a multiple of 64 up to 256, BLOCK_K of 64) with Hopper's warpgroup
        MMA (CUDA on sm_90; the others keep mma.sync; docs/dot.md)."""
        stages = dot_stages_for(num_stages, matmul2d, target)
        key = (num_warps, target, stages, warps_m, matmul2d, wgmma, *[values[i] for i in self.constexpr_at],
               *[f(values[i]) for f, i in zip(self.runtime_facts, self.runtime_at)])
        compiled = self.cache.get(key)
        if compiled is None:  # launch settings are checked once, before the first compile of a key
            self.check_launch_settings(num_warps, target, warps_m, matmul2d, wgmma)
            arg_types = {n: self.arg_type(n, v) for n, v, c in zip(self.arg_names, values, self.is_constexpr) if not c}
            constexprs = {n: v for n, v, c in zip(self.arg_names, values, self.is_constexpr) if c}
            outputs = {n for n, v in zip(self.arg_names, values) if isinstance(v, Placeholder)}
            divisible = {n: divisibility(v) for n, v, c in zip(self.arg_names, values, self.is_constexpr)
                         if not c and type(v) is int and divisibility(v) > 1 and n not in self.unspecialized}
            with collector_paused():
                compiled = compile_ir(self.build_ir(arg_types, constexprs), outputs, num_warps, target, divisible,
                                      dot_stages=stages, warps_m=warps_m, matmul2d=matmul2d, wgmma=wgmma)
            self.cache[key] = compiled
        self.last = compiled
        return compiled

    def check_launch_settings(self, num_warps: int, target: str, warps_m: int | None, matmul2d: bool,
                              wgmma: bool = False) -> None:
        if type(num_warps) is not int or num_warps < 1 or num_warps > 32 or num_warps & (num_warps - 1):
            raise LaunchConfigError(f"{self.__name__}: num_warps={num_warps!r}; use a power of two from 1 to 32 "
                                    "(a Metal threadgroup has at most 1024 threads)")
        if warps_m is not None and (type(warps_m) is not int or warps_m < 1 or warps_m > num_warps or warps_m & (warps_m - 1)):
            raise LaunchConfigError(f"{self.__name__}: warps_m={warps_m} with num_warps={num_warps}; use a power "
                                    "of two from 1 to num_warps (or None to let the compiler choose)")
        facts = target_named(target)
        for setting, asked in (("matmul2d", matmul2d), ("wgmma", wgmma)):
            what = facts.lacks(setting)
            if asked and what:
                raise LaunchConfigError(f"{self.__name__}: {setting}=True is {what}, which the {target} target does "
                                        f"not have; drop {setting} (tl.dot then uses the target's own matrix "
                                        "instructions)")

    def compile(self, *args: Any, num_warps: int = 4, num_stages: int | None = None, backend: Any = None,
                target: str | None = None, warps_m: int | None = None, matmul2d: bool = False,
                wgmma: bool = False, **kwargs: Any) -> CompiledKernel:
        """The compiled specialisation for these arguments, with `.asm` (IR after each pass, MSL or CUDA);
        `target` ("msl", "cuda") defaults to what `backend` (else the active back end) runs."""
        return self.specialize(self.bind(args, kwargs), num_warps, target or _target(backend), num_stages, warps_m,
                               matmul2d, wgmma)

    def warmup(self, *args: Any, grid: Any = None, num_warps: int = 4, num_stages: int | None = None,
               backend: Any = None, warps_m: int | None = None, matmul2d: bool = False, wgmma: bool = False,
               **kwargs: Any) -> CompiledKernel:
        """Compile without running (as Triton's `warmup`), e.g. so autotuning times runs only."""
        return self.specialize(self.bind(args, kwargs), num_warps, _target(backend), num_stages, warps_m, matmul2d,
                               wgmma)

    @property
    def asm(self) -> dict[str, str]:
        """Stages of the specialisation compiled or launched last."""
        if self.last is None:
            raise MetalforgeError(f"{self.__name__} has not been compiled yet: launch it or call .compile(...)")
        return self.last.asm


class Launch(NamedTuple):
    """A launch described before it is made, `kernel[grid](*args, **kwargs)`: a library function builds
    one (its checks and arguments in one place) and either runs it (`run`) or prepares it for calls
    that change only the parameters `varying` (`prepare`: see JITFunction.prepare)."""

    kernel: Any  # a JITFunction or an Autotuner
    grid: Any
    args: tuple
    kwargs: dict[str, Any]
    varying: tuple[str, ...] = ()

    def run(self, backend: Any = None) -> Any:
        return self.kernel[self.grid](*self.args, **self.kwargs, backend=backend)

    def prepare(self, backend: Any = None) -> Callable[..., Any]:
        return self.kernel.prepare(self.grid, *self.args, varying=self.varying, **self.kwargs, backend=backend)


def _target(backend: Any) -> str:
    """The renderer for a back end: its source language (MSL when no back end runs here, so that
    compile() still shows the Metal source)."""
    try:
        return backends.resolve(backend).language
    except BackendUnavailableError:
        return "msl"


def lacking(backend: Any = None) -> Callable[[str], str | None]:
    """What a feature launch setting (`wgmma`, `matmul2d`) switches on, where `backend` (resolved as
    launches resolve it) lacks it, else None: its language's target facts, then what its device
    lacks (CUDA: wgmma's Hopper GPU). With no back end, every feature is lacking. The tuner searches
    by it (`Space.on`) and the library's defaults choose by it."""
    try:
        found = backends.resolve(backend)
    except BackendUnavailableError as e:
        reason = f"no back end runs here ({e})"
        return lambda setting: reason
    target, device = target_named(found.language), getattr(found, "lacks", None)
    return lambda setting: target.lacks(setting) or (device(setting) if device is not None else None)


def _unavailable(reason: str, **call: Any) -> list[mx.array]:
    """Runs a launch where no back end runs: only an empty grid launches nothing."""
    raise BackendUnavailableError(reason)


def _decode_prints(prints: list, outputs: list[mx.array]) -> Any:
    """Print a launch's device_print records (its last output) and return its other outputs."""
    decode_prints(outputs[-1], prints)
    return outputs[0] if len(outputs) == 2 else tuple(outputs[:-1])


def jit(fn: Callable[..., Any] | None = None, *, version: Any = None, repr: Any = None, launch_metadata: Any = None,
        do_not_specialize: Any = None, do_not_specialize_on_alignment: Any = None, debug: bool | None = None,
        noinline: bool | None = None) -> Any:
    """Compile a Triton-style kernel function for Metal (launch with `kernel[grid](...)`).

    `@jit` and `@jit(...)` with `triton.jit`'s keyword arguments both work, so Triton sources need no
    edit; the arguments steer Triton's own compiler and change nothing here (helpers are always
    inlined, whatever `noinline` says), except `do_not_specialize` (integer parameters, by name or
    position, whose divisibility the kernel is not specialised on: one compile for every value) and `debug`:
    `tl.device_assert` and `tl.assume` are checked at run time in a kernel built with debug on
    (default: the METALFORGE_DEBUG environment variable when the kernel is defined, as Triton reads
    TRITON_DEBUG)."""
    if fn is None:
        return functools.partial(JITFunction, debug=debug, do_not_specialize=do_not_specialize)
    return JITFunction(fn, debug, do_not_specialize)
