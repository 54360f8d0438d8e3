"""The Python a cached launch runs, generated (as Triton's `create_function_from_signature` does) so
that a launch is two calls with no argument binding, dict building or table lookups of its own:

- a kernel's *dispatcher*, made at its first launch with the kernel's own parameters: it computes
  the specialisation key from each argument's facts (launcher.arguments: inline for the argument
  types of that first launch), the constexpr values and the launch options, and finds the key in a
  cache (compared with the last key found first, so that a repeated launch hashes nothing);
- a specialisation's *launch function*, made once per key: it evaluates the grid and calls the MLX
  kernel object with the arguments in the kernel's input order (scalars as cached arrays) and the
  output shapes of the placeholders.

A miss (or a call to report: missing, extra or unknown arguments) goes to a `miss` function with the
call as it was given; it returns the launch function, which the dispatcher caches under the key.
"""
from __future__ import annotations

import functools
import itertools
import linecache
import math
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import mlx.core as mx

from ..errors import LaunchConfigError, MetalforgeError
from ..runtime.backends import environment_choice
from . import arguments

# Keyword-only launch options and their defaults; `backend` is a name, an instance or None
# ($METALFORGE_BACKEND, else automatic).
LAUNCH_OPTIONS: dict[str, Any] = {"num_warps": 4, "num_stages": None, "warps_m": None, "matmul2d": False,
                                  "num_ctas": 1, "backend": None}
_PREFIX = "_mf_"  # generated code's own names; no kernel parameter may start with it
_serial = itertools.count()


class _Unset:
    def __repr__(self) -> str:
        return "<not given>"


UNSET = _Unset()  # a parameter the call did not give (the dispatcher's default)
_GENERIC = object()  # the first element of keys made of full facts (never a typed key's first)


def _compile(source: str, namespace: dict[str, Any], kernel: str, what: str) -> Callable[..., Any]:
    """The function `_mf_function` that `source` defines, named after the kernel (Python's own
    errors, such as an argument given twice, name it), its source kept where tracebacks and
    debuggers find it (linecache)."""
    filename = f"<metalforge {what} of {kernel} {next(_serial)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    function = namespace["_mf_function"]
    function.__name__ = function.__qualname__ = kernel
    function.__code__ = function.__code__.replace(co_name=kernel)
    function.source = source
    return function


def check_parameter_names(kernel: str, params: Sequence[str]) -> None:
    """Kernel parameters share the launch's namespace with its options and generated names."""
    for name in params:
        if name in LAUNCH_OPTIONS or name.startswith(_PREFIX):
            raise MetalforgeError(f"kernel `{kernel}`: parameter `{name}` clashes with metalforge's launch "
                                  f"{'option' if name in LAUNCH_OPTIONS else 'names'} "
                                  f"({', '.join(LAUNCH_OPTIONS)}, {_PREFIX}*); rename it")


def given_call(params: Sequence[str], values: Sequence[Any], options: Mapping[str, Any], extra: tuple,
               named: dict[str, Any]) -> tuple[tuple, dict[str, Any]]:
    """A call as it was given, from a dispatcher's parameters: positional arguments up to the first
    parameter not given, the rest by name (a kernel call binds both alike)."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    positional = True
    for name, value in zip(params, values):
        if value is UNSET:
            positional = False
        elif positional:
            args.append(value)
        else:
            kwargs[name] = value
    args.extend(extra)  # only where every parameter was given by position
    kwargs.update((name, value) for name, value in options.items() if value is not UNSET)
    kwargs.update(named)
    return tuple(args), kwargs


class LaunchCache(dict):
    """A dispatcher's cache, key -> what runs it, that also holds the last key found and what it found
    (`recent[0]`, one tuple: replaced at once, so threads never see a key with another's launch). A
    dispatcher compares its key with that one before it looks it up: a kernel launched with arguments
    of the same facts as last time finds its launch without hashing its key. `clear()` forgets both."""

    def __init__(self) -> None:
        super().__init__()
        self.recent: list[tuple] = [((), None)]  # `()` is no dispatcher's key

    def clear(self) -> None:
        super().clear()
        self.recent[0] = ((), None)


def dispatcher(kernel: str, params: Sequence[str], constexpr: Sequence[bool], defaults: Sequence[Any],
               types: Sequence[type | None], cache: LaunchCache, miss: Callable[[Any, tuple, tuple, dict], Any], *,
               open_meta: bool = False, shape_of: Sequence[str] = (), buckets: Mapping[str, Callable[[int], int]] | None = None,
               counted: bool = False, unspecialized: frozenset[str] = frozenset()) -> Callable[..., Any]:
    """`kernel`'s dispatcher: `dispatch(grid, *args, **kwargs)` with the kernel's parameters and the
    launch options. It looks its key up in `cache` (also its `.cache`) and runs what it finds as
    `run(grid, *every parameter)`; on a miss it calls `miss(grid, key, args, kwargs)` with the call as
    given, which returns what to run and whether to cache it under the key. Parameters without a
    default are not given unless passed.

    types: the Python type of each runtime parameter in the calls to expect (None for constexprs):
    when a call's arguments have them, the key holds only the facts those types leave open
    (arguments.TYPED_FACTS); other calls key on every argument's full facts. open_meta: constexprs
    and launch options other than `backend` are not given unless passed (an autotuner fills them in
    from its config). shape_of: parameters whose shapes (arrays and placeholders) or values
    (scalars) are part of the key too (an autotuner's key); buckets: those of them (ints) whose
    key holds a function of the value instead (`bucket(value)`). counted: the cache holds `(run, calls)`
    pairs, and each launch adds 1 to `calls[0]` where it is not None. unspecialized: parameters named
    in `@jit(do_not_specialize=...)`, whose int values key without their divisibility."""
    check_parameter_names(kernel, params)
    namespace: dict[str, Any] = {"_mf_array": mx.array, "_mf_Placeholder": arguments.Placeholder,
                                 "_mf_fact": arguments.fact, "_mf_divisibility": arguments.DIVISIBILITY,
                                 "_mf_unspecialized_fact": arguments.unspecialized_fact,
                                 "_mf_get": cache.get,
                                 "_mf_cache": cache, "_mf_recent": cache.recent,
                                 "_mf_miss": miss, "_mf_id": id, "_mf_UNSET": UNSET, "_mf_GENERIC": _GENERIC,
                                 "_mf_choice": environment_choice, "_mf_given": given_call,
                                 "_mf_params": tuple(params)}
    signature, options, runtime, guards, typed, rest = [], [], [], [], [], []
    for i, (name, is_constexpr, default, kind) in enumerate(zip(params, constexpr, defaults, types)):
        if default is UNSET or (open_meta and is_constexpr):
            signature.append(f"{name}=_mf_UNSET")
        else:
            namespace[f"_mf_default_{i}"] = default
            signature.append(f"{name}=_mf_default_{i}")
        if is_constexpr:
            rest.append(name)
            continue
        runtime.append(name)
        namespace[f"_mf_type_{i}"] = kind
        guards.append(f"type({name}) is _mf_type_{i}")
        facts = arguments.UNSPECIALIZED_INT_FACTS if kind is int and name in unspecialized \
            else arguments.TYPED_FACTS.get(kind, ())
        typed += [fact.format(v=name) for fact in facts]
    for name, default in LAUNCH_OPTIONS.items():
        if name == "backend":
            options.append(f"{name}=None")
            rest.append("(_mf_choice() if backend is None else backend if type(backend) is str else _mf_id(backend))")
        else:
            namespace[f"_mf_option_{name}"] = UNSET if open_meta else default
            options.append(f"{name}=_mf_option_{name}")
            rest.append(name)
    kinds = dict(zip(params, types))
    for p, bucket in (buckets or {}).items():
        namespace[f"_mf_bucket_{p}"] = bucket
    value = {p: f"_mf_bucket_{p}({p})" if p in (buckets or {}) else p for p in shape_of}
    generic = ["_mf_GENERIC", *[f"_mf_unspecialized_fact({name})" if name in unspecialized else f"_mf_fact({name})"
                                for name in runtime], *rest,
               *[f"({p}.shape if type({p}) is _mf_array else {p}[0] if type({p}) is _mf_Placeholder else {value[p]})"
                 for p in shape_of]]
    if runtime and all(kind in arguments.TYPED_FACTS for kind, c in zip(types, constexpr) if not c):
        shapes = [f"{p}.shape" if kinds[p] is mx.array else f"{p}[0]" if kinds[p] is arguments.Placeholder
                  else value[p] for p in shape_of]
        key = f"""\
    if {" and ".join(guards)}:
        _mf_key = ({", ".join([*typed, *rest, *shapes])},)
    else:
        _mf_key = ({", ".join(generic)},)"""
    else:
        key = f"    _mf_key = ({', '.join(generic)},)"
    values = ", ".join(params)
    found = "_mf_run, _mf_calls = _mf_found\n    if _mf_calls is not None:\n        _mf_calls[0] += 1\n    " \
        if counted else "_mf_run = _mf_found\n    "
    option_values = ", ".join(f"{name!r}: {name}" for name in LAUNCH_OPTIONS)
    source = f"""\
def _mf_function(_mf_grid, {", ".join(signature)}, *_mf_extra, {", ".join(options)}, **_mf_named):
{key}
    _mf_last = _mf_recent[0]
    if _mf_key == _mf_last[0] and not (_mf_extra or _mf_named):
        _mf_found = _mf_last[1]
    else:
        _mf_found = _mf_get(_mf_key)
        if _mf_found is None or _mf_extra or _mf_named:
            _mf_call = _mf_given(_mf_params, ({values},), {{{option_values}}}, _mf_extra, _mf_named)
            _mf_found, _mf_keep = _mf_miss(_mf_grid, _mf_key, *_mf_call)
            if _mf_keep:
                _mf_cache[_mf_key] = _mf_found
        else:
            _mf_recent[0] = (_mf_key, _mf_found)
    {found}return _mf_run(_mf_grid, {values})
"""
    dispatch = _compile(source, namespace, kernel, "dispatcher")
    dispatch.cache = cache
    return dispatch


class ByValue(NamedTuple):
    """A scalar input the back end takes by value (runtime.cuda), converted by `kind` for MLX (to the
    parameter's C type: int, bool, a float that float32 holds exactly)."""

    kind: Callable[[Any], Any]


def launch_function(kernel: str, params: Sequence[str], inputs: Sequence[tuple[str, Any]],
                    outputs: Sequence[str | arguments.Placeholder], output_dtypes: Sequence[mx.Dtype], threads: int,
                    meta: Mapping[str, Any], init: float | None, run: Callable[..., list[mx.array]],
                    prints: Callable[[list[mx.array]], Any] | None, owner: Any, compiled: Any,
                    words: Sequence[mx.Dtype | None] = ()) -> Callable[..., Any]:
    """One specialisation's launch function: `launch(grid, *every parameter)`.

    inputs: the kernel's inputs in order, each a parameter name and None (an array), the
    ScalarArrays its value is passed through, or ByValue (`run` takes it in `scalars=`, in order). outputs: the kernel's outputs in order, each the
    parameter holding its placeholder or a placeholder of its own (device_print's buffer, last:
    `prints` decodes it and returns the rest). `run` is the MLX kernel object; `meta` what a grid
    function receives; `init` the outputs' initial value. Each launch sets `owner.last = compiled`
    (what the kernel's `asm` shows). `words`: per output, the 16-bit dtype of an output MLX makes as
    32-bit words (`output_dtypes` says uint32), viewed back after the call; None for the others."""
    namespace: dict[str, Any] = {"_mf_run": run, "_mf_grid_of": mlx_grid, "_mf_meta": meta, "_mf_kernel": kernel,
                                 "_mf_dtypes": list(output_dtypes), "_mf_threadgroup": (threads, 1, 1),
                                 "_mf_init": init, "_mf_empty": empty_outputs, "_mf_prints": prints,
                                 "_mf_owner": owner, "_mf_compiled": compiled}
    given, values = [], []
    for i, (name, scalars) in enumerate(inputs):
        if scalars is None:
            given.append(f"{name} if {name}.ndim else {name}.reshape(1)")  # a 0-d array, as a 1-element buffer
        elif isinstance(scalars, ByValue):
            namespace[f"_mf_value_{i}"] = scalars.kind
            values.append(f"_mf_value_{i}({name})")
        else:
            namespace[f"_mf_scalars_{i}"] = scalars
            given.append(f"_mf_scalars_{i}[{name}]")
    shapes = []
    for i, output in enumerate(outputs):
        if isinstance(output, str):
            shapes.append(f"{output}.shape")
        else:
            namespace[f"_mf_shape_{i}"] = output.shape
            shapes.append(f"_mf_shape_{i}")
    by_value = f", scalars=[{', '.join(values)}]" if values else ""
    asked = [f"_mf_word_shape({s})" if i < len(words) and words[i] is not None else s for i, s in enumerate(shapes)]
    call = (f"_mf_run(inputs=[{', '.join(given)}], output_shapes=[{', '.join(asked)}], output_dtypes=_mf_dtypes, "
            f"grid=_mf_g, threadgroup=_mf_threadgroup{'' if init is None else ', init_value=_mf_init'}{by_value})")
    if any(w is not None for w in words):
        namespace.update(_mf_word_shape=word_shape, _mf_halves=functools.partial(halves_of_words, list(words)))
        call = f"_mf_halves({call}, [{', '.join(shapes)}])"
    if prints is not None:
        result = f"_mf_prints({call})"
    elif not any(isinstance(o, str) for o in outputs):  # only the hidden output MLX requires: return nothing
        result = f"{call} and None"
    elif len(outputs) == 1:
        result = f"{call}[0]"
    else:
        result = f"tuple({call})"
    source = f"""\
def _mf_function({", ".join(["_mf_grid", *params])}):
    _mf_owner.last = _mf_compiled
    _mf_p = _mf_grid if type(_mf_grid) is tuple or not callable(_mf_grid) else _mf_grid(_mf_meta)
    if type(_mf_p) is tuple and len(_mf_p) == 1 and type(_mf_p[0]) is int and _mf_p[0] > 0:
        _mf_g = (_mf_p[0] * {threads}, 1, 1)
    else:
        _mf_g = _mf_grid_of(_mf_p, {threads}, _mf_kernel)
        if _mf_g is None:
            return _mf_empty({", ".join(o for o in outputs if isinstance(o, str))})
    try:
        return {result}
    except (TypeError, ValueError):  # MLX refuses the call: say which output's shape, if that is why
        _mf_check_shapes(_mf_kernel, _mf_output_names, [{", ".join(shapes)}])
        raise
"""
    namespace["_mf_check_shapes"] = check_output_shapes
    namespace["_mf_output_names"] = [o if isinstance(o, str) else "device_print's buffer" for o in outputs]
    return _compile(source, namespace, kernel, "launch")


def word_shape(shape: Sequence[int]) -> tuple[int]:
    """The 32-bit words holding a 16-bit output of `shape`."""
    return ((math.prod(shape) + 1) // 2,)


def halves_of_words(words: Sequence[mx.Dtype | None], arrays: Sequence[mx.array],
                    shapes: Sequence[Sequence[int]]) -> list[mx.array]:
    """The outputs of a launch, the 32-bit words of 16-bit outputs viewed back as their elements."""
    return [a if w is None else a.view(w)[:math.prod(s)].reshape(s) for a, w, s in zip(arrays, words, shapes)]


def check_output_shapes(kernel: str, names: Sequence[str], shapes: Sequence[Any]) -> None:
    """Raise a LaunchConfigError naming the first output whose shape is not a tuple of sizes (the
    placeholders trust a tuple when made, to stay cheap: a launch MLX refuses checks them here)."""
    for name, shape in zip(names, shapes):
        if arguments.sizes(shape) is None:
            raise LaunchConfigError(f"{kernel}: output `{name}` has shape {tuple(shape)!r}; give mf.empty/zeros/full "
                                    "a shape of non-negative ints")


def mlx_grid(programs: Any, threads: int, kernel: str) -> tuple[int, int, int] | None:
    """The MLX grid (threads per dimension) of a launch's grid of programs, 1 to 3 ints; None where it
    is empty (no program runs). A launch function takes a 1-D tuple of positive ints itself."""
    grid = programs if type(programs) is tuple else _grid_tuple(programs, kernel)
    n = len(grid)
    if n == 2:
        x, y = grid
        if type(x) is int and type(y) is int and x > 0 and y > 0:
            return x * threads, y, 1
    elif n == 3:
        x, y, z = grid
        if type(x) is int and type(y) is int and type(z) is int and x > 0 and y > 0 and z > 0:
            return x * threads, y, z
    if not 1 <= n <= 3 or not all(isinstance(g, int) and g >= 0 for g in grid):
        raise MetalforgeError(f"{kernel}: grid must be 1 to 3 non-negative ints, got {grid!r}")
    if 0 in grid:
        return None
    x, y, z = (*map(int, grid), 1, 1)[:3]  # bools and other ints
    return x * threads, y, z


def _grid_tuple(grid: Any, kernel: str) -> tuple:
    try:
        return tuple(grid)
    except TypeError:
        raise MetalforgeError(f"{kernel}: grid must be 1 to 3 non-negative ints (a tuple, or a function of the "
                              f"launch's meta-parameters returning one), got {grid!r}") from None


def empty_outputs(*outputs: arguments.Placeholder) -> Any:
    """A launch's outputs when its grid is empty: their initial contents (zeros where undefined)."""
    arrays = [mx.full(p.shape, p.init or 0, p.dtype) for p in outputs]
    return arrays[0] if len(arrays) == 1 else tuple(arrays)
