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
                                  "wgmma": False, "num_ctas": 1, "backend": None}
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
    code = _code(source, kernel, what)
    linecache.cache.setdefault(code.co_filename, (len(source), None, source.splitlines(True), code.co_filename))
    exec(code, namespace)
    function = namespace["_mf_function"]
    function.__name__ = function.__qualname__ = kernel
    function.__code__ = function.__code__.replace(co_name=kernel)
    function.source = source
    return function


@functools.lru_cache(maxsize=1024)
def _code(source: str, kernel: str, what: str, mode: str = "exec") -> Any:
    """`source` compiled, once per text: a prepared launch's source names the values it fixes
    (`_mf_fixed_*` in its namespace) instead of spelling them, so launches prepared for other
    shapes or weights share it and its expressions, and preparing one costs dictionary lookups
    instead of Python's compiler (~0.25 ms a launch)."""
    return compile(source, f"<metalforge {what} of {kernel} {next(_serial)}>", mode)


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
    of the same facts as last time finds its launch without hashing its key. `clear()` forgets both
    and counts itself in `epoch[0]`, which prepared launches (`prepare`) check."""

    def __init__(self) -> None:
        super().__init__()
        self.recent: list[tuple] = [((), None)]  # `()` is no dispatcher's key
        self.epoch = [0]

    def clear(self) -> None:
        super().clear()
        self.recent[0] = ((), None)
        self.epoch[0] += 1


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
    in `@jit(do_not_specialize=...)`, whose int values key without their divisibility.

    `dispatch(grid, *args, _mf_lookup=True, **kwargs)` runs nothing: it returns what the call would
    run (None where the cache may not keep it) and every parameter's value as `run` takes them
    (`prepare` builds on it)."""
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
def _mf_function(_mf_grid, {", ".join(signature)}, *_mf_extra, {", ".join(options)}, _mf_lookup=False, **_mf_named):
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
            elif _mf_lookup:
                return None, ({values},)
        else:
            _mf_recent[0] = (_mf_key, _mf_found)
    if _mf_lookup:
        return _mf_found, ({values},)
    {found}return _mf_run(_mf_grid, {values})
"""
    dispatch = _compile(source, namespace, kernel, "dispatcher")
    dispatch.cache = cache
    dispatch.keyed = Keyed(tuple(params), frozenset(p for p, c in zip(params, constexpr) if c), tuple(shape_of),
                           dict(buckets or {}), unspecialized, counted)
    dispatch.prepare = functools.partial(prepare, dispatch)
    return dispatch


class ByValue(NamedTuple):
    """A scalar input the back end takes by value (runtime.cuda), converted by `kind` for MLX (to the
    parameter's C type: int, bool, a float that float32 holds exactly)."""

    kind: Callable[[Any], Any]


def launch_function(kernel: str, params: Sequence[str], inputs: Sequence[tuple[str, Any]],
                    outputs: Sequence[str | arguments.Placeholder], output_dtypes: Sequence[mx.Dtype], threads: int,
                    meta: Mapping[str, Any], init: float | None, run: Callable[..., list[mx.array]],
                    prints: Callable[[list[mx.array]], Any] | None, owner: Any, compiled: Any,
                    words: Sequence[mx.Dtype | None] = (), bound: Bound | None = None) -> Callable[..., Any]:
    """One specialisation's launch function: `launch(grid, *every parameter)`.

    inputs: the kernel's inputs in order, each a parameter name and None (an array), the
    ScalarArrays its value is passed through, or ByValue (`run` takes it in `scalars=`, in order). outputs: the kernel's outputs in order, each the
    parameter holding its placeholder or a placeholder of its own (device_print's buffer, last:
    `prints` decodes it and returns the rest). `run` is the MLX kernel object; `meta` what a grid
    function receives; `init` the outputs' initial value. Each launch sets `owner.last = compiled`
    (what the kernel's `asm` shows). `words`: per output, the 16-bit dtype of an output MLX makes as
    32-bit words (`output_dtypes` says uint32), viewed back after the call; None for the others.

    The function has `.bind(Bound)`: the same launch with the grid and every parameter but
    `bound.varying` fixed, `launch(*varying)`, everything computed from the fixed ones (the grid,
    inputs as MLX takes them, scalars converted, output shapes) computed once (None where the grid
    is empty: nothing to prepare)."""
    recipe = (kernel, params, inputs, outputs, output_dtypes, threads, meta, init, run, prints, owner, compiled, words)
    namespace: dict[str, Any] = {"_mf_run": run, "_mf_grid_of": mlx_grid, "_mf_meta": meta, "_mf_kernel": kernel,
                                 "_mf_dtypes": list(output_dtypes), "_mf_threadgroup": (threads, 1, 1),
                                 "_mf_init": init, "_mf_empty": empty_outputs, "_mf_prints": prints,
                                 "_mf_owner": owner, "_mf_compiled": compiled}
    fixed = {} if bound is None else {p: v for p, v in zip(params, bound.values) if p not in bound.varying}

    def once(name: str, expression: str) -> str:
        """`expression` of parameter `name`, or the name of its value computed now where `name` is fixed."""
        if name not in fixed:
            return expression
        constant = f"_mf_fixed_{len(namespace)}"
        namespace[constant] = eval(_code(expression, kernel, "fixed value", "eval"), namespace,  # noqa: S307
                                   {name: fixed[name]})  # (our own expression)
        return constant

    given, values = [], []
    for i, (name, scalars) in enumerate(inputs):
        if scalars is None:  # a 0-d array as 1 element, reshaped at each call (it may be updated in place)
            expression = f"{name} if {name}.ndim else {name}.reshape(1)"
            given.append(once(name, expression) if name not in fixed or fixed[name].ndim else
                         f"{once(name, name)}.reshape(1)")
        elif isinstance(scalars, ByValue):
            namespace[f"_mf_value_{i}"] = scalars.kind
            values.append(once(name, f"_mf_value_{i}({name})"))
        else:
            namespace[f"_mf_scalars_{i}"] = scalars
            given.append(once(name, f"_mf_scalars_{i}[{name}]"))
    shapes = []
    for i, output in enumerate(outputs):
        if isinstance(output, str):
            shapes.append(once(output, f"{output}.shape"))
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
    namespace["_mf_check_shapes"] = check_output_shapes
    namespace["_mf_output_names"] = [o if isinstance(o, str) else "device_print's buffer" for o in outputs]
    run_it = f"""\
    try:
        return {result}
    except (TypeError, ValueError):  # MLX refuses the call: say which output's shape, if that is why
        _mf_check_shapes(_mf_kernel, _mf_output_names, [{", ".join(shapes)}])
        raise
"""
    if bound is not None:
        programs = bound.grid if type(bound.grid) is tuple or not callable(bound.grid) else bound.grid(meta)
        namespace["_mf_g"] = mlx_grid(programs, threads, kernel)
        if namespace["_mf_g"] is None:
            return None
        source = f"def _mf_function({', '.join(bound.varying)}):\n    _mf_owner.last = _mf_compiled\n{run_it}"
        return _compile(source, namespace, kernel, "prepared launch")
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
{run_it}"""
    launch = _compile(source, namespace, kernel, "launch")
    launch.bind = lambda how: launch_function(*recipe, bound=how)
    return launch


class Bound(NamedTuple):
    """What a prepared launch fixes: the grid, every parameter's value as a launch function takes them
    (in order), but those named in `varying` (passed at each call, in that order)."""

    grid: Any
    values: tuple
    varying: tuple[str, ...]


class Keyed(NamedTuple):
    """How a dispatcher keys its calls (see `dispatcher`), for `prepare` to check the varying
    arguments of a prepared launch alike."""

    params: tuple[str, ...]
    constexpr: frozenset[str]
    shape_of: tuple[str, ...]
    buckets: dict[str, Callable[[int], int]]
    unspecialized: frozenset[str]
    counted: bool


def prepare(dispatch: Callable[..., Any], grid: Any, args: tuple, kwargs: dict[str, Any],
            varying: Sequence[str]) -> Callable[..., Any]:
    """`kernel[grid](*args, **kwargs)` prepared for calls that change only the parameters `varying`
    (`launch(*varying values)`, in that order): what the dispatcher would run is found now, and the
    grid, the other arguments and everything computed from them are fixed in a launch made for them.
    A call whose varying arguments differ in what selects the kernel's specialisation or tuned
    config (their facts, and shapes or values where the key holds them), a cache cleared since (a
    tuning run), or another $METALFORGE_BACKEND goes through the dispatcher as a full launch: the
    result is always the launch's. A varying array must keep its shape (the fixed outputs and sizes
    were made for it): another shape is an error. The caller must keep the grid, and what the fixed
    arguments stand for, independent of the varying ones otherwise."""
    keyed: Keyed = dispatch.keyed
    if isinstance(varying, str):
        raise MetalforgeError(f"prepare: varying={varying!r}; give a sequence of parameter names, e.g. ({varying!r},)")
    varying = tuple(varying)
    unknown = [v for v in varying if v not in keyed.params or v in keyed.constexpr]
    if unknown or len(set(varying)) != len(varying):
        raise MetalforgeError(f"prepare: varying names {', '.join(unknown) or 'a parameter twice'}; name each of "
                              f"the kernel's runtime parameters "
                              f"({', '.join(p for p in keyed.params if p not in keyed.constexpr)}) at most once "
                              "(a constexpr compiles into the kernel: prepare a launch per value)")
    call, given_by_name = list(args), dict(kwargs)
    for name in varying:  # the full launch's call, the varying arguments as the prepared launch's parameters
        position = keyed.params.index(name)
        if name in given_by_name:
            given_by_name[name] = _Expression(name)
        elif position < len(call):
            call[position] = _Expression(name)
        else:
            raise MetalforgeError(f"prepare: varying parameter `{name}` was not given; pass it in the call prepared")
    namespace: dict[str, Any] = {"_mf_dispatch": dispatch, "_mf_grid": grid, "_mf_epoch": dispatch.cache.epoch,
                                 "_mf_choice": environment_choice, "_mf_type": type, "_mf_fact": arguments.fact,
                                 "_mf_unspecialized_fact": arguments.unspecialized_fact, "_mf_same_shape": _same_shape,
                                 "_mf_kernel": getattr(dispatch, "__name__", "kernel")}

    def install(epoch: int, found: Any, values: tuple) -> Callable[..., Any] | None:
        """Make the launch for what the dispatcher found (at cache epoch `epoch`), for the calls to come."""
        run, calls = found if keyed.counted and found is not None else (found, None)
        launch = None if found is None or not hasattr(run, "bind") else run.bind(Bound(grid, values, varying))
        namespace["_mf_state"] = (epoch, launch, calls)  # one object: a call reads a consistent triple
        return launch

    def renew(*now: Any) -> Any:
        """Run a call whose cache epoch moved since the launch was made (a tune cleared the cache):
        find what the dispatcher runs for it now, make the launch for it, and run it."""
        given = dict(zip(varying, now))
        positional = [given[v] if type(v) is _Expression else v for v in call]
        named = {k: given[v] if type(v) is _Expression else v for k, v in given_by_name.items()}
        epoch = dispatch.cache.epoch[0]
        launch = install(epoch, *dispatch(grid, *positional, _mf_lookup=True, **named))
        if launch is None:
            return dispatch(grid, *positional, **named)
        calls = namespace["_mf_state"][2]
        if calls is not None:
            calls[0] += 1
        return launch(*now)

    namespace["_mf_renew"] = renew
    epoch = dispatch.cache.epoch[0]
    found, values = dispatch(grid, *args, _mf_lookup=True, **kwargs)  # nothing runs
    install(epoch, found, values)
    checks, same_shapes = [], []
    if kwargs.get("backend") is None:
        namespace["_mf_backend"] = environment_choice()
        checks.append("_mf_choice() == _mf_backend")
    for i, name in enumerate(varying):
        value = values[keyed.params.index(name)]
        facts = arguments.unspecialized_fact if name in keyed.unspecialized else arguments.fact
        namespace.update({f"_mf_kind_{i}": type(value), f"_mf_facts_{i}": facts(value)})
        checks += [f"_mf_type({name}) is _mf_kind_{i}",
                   f"{'_mf_unspecialized_fact' if facts is arguments.unspecialized_fact else '_mf_fact'}({name}) == "
                   f"_mf_facts_{i}"]
        if type(value) is mx.array:
            namespace[f"_mf_shape_{i}"] = value.shape
            checks.append(f"{name}.shape == _mf_shape_{i}")
            same_shapes.append(f"    _mf_same_shape(_mf_kernel, {name!r}, {name}, _mf_shape_{i})\n")
        if name in keyed.shape_of and type(value) is not mx.array:  # an array's shape is checked above
            bucket = keyed.buckets.get(name)
            namespace[f"_mf_bucket_{i}"] = bucket
            namespace[f"_mf_keyed_{i}"] = (value[0] if type(value) is arguments.Placeholder else
                                           value if bucket is None else bucket(value))
            checks.append(f"{name}[0] == _mf_keyed_{i}" if type(value) is arguments.Placeholder else
                          f"{name if bucket is None else f'_mf_bucket_{i}({name})'} == _mf_keyed_{i}")
    full = ", ".join([*(_argument(namespace, v) for v in call),
                      *(f"{k}={_argument(namespace, v)}" for k, v in given_by_name.items())])
    names = ", ".join(varying)
    source = f"""\
def _mf_function({names}):
    if {' and '.join(checks) or 'True'}:
        _mf_at, _mf_launch, _mf_calls = _mf_state
        if _mf_epoch[0] != _mf_at:
            return _mf_renew({names})
        if _mf_launch is not None:
            if _mf_calls is not None:
                _mf_calls[0] += 1
            return _mf_launch({names})
{''.join(same_shapes)}    return _mf_dispatch(_mf_grid, {full})
"""
    return _compile(source, namespace, namespace["_mf_kernel"], "prepared call")


def _same_shape(kernel: str, name: str, value: Any, shape: tuple) -> None:
    """A prepared launch's varying array `name` has the shape it was prepared with, or an error."""
    if getattr(value, "shape", shape) != shape:
        raise LaunchConfigError(f"{kernel}: a launch prepared for `{name}` of shape {shape} was given one of shape "
                                f"{tuple(value.shape)}; prepare another launch for that shape")


class _Expression(str):
    """A varying argument's name in a prepared call (`prepare`), as opposed to a fixed value."""


def _argument(namespace: dict[str, Any], value: Any) -> str:
    """The source of an argument of a prepared call: a varying one's name, else a fixed value's."""
    if type(value) is _Expression:
        return str(value)
    name = f"_mf_fixed_{len(namespace)}"
    namespace[name] = value
    return name


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
