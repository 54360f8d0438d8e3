"""The launch path (metalforge.launcher): a cached launch runs the specialisation its arguments select,
never a stale one; bad calls say what is wrong, naming the kernel; the autotuned entry point keeps its
config per key and notices a tune. Most tests use a back end that records launches instead of
running them; one runs on the emulator."""
from __future__ import annotations

import math

import mlx.core as mx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metalforge as mf
import metalforge.language as tl
from metalforge import Config, errors
from metalforge.launcher import generated
from metalforge.runtime.emulator import EmulatorBackend


class Recording:
    """Runs nothing: keeps each launch's kernel and call, and returns zero outputs."""

    name = "recording"
    language = "msl"
    batch_timing = False

    def __init__(self) -> None:
        self.launches: list[tuple] = []  # (runtime MetalKernel, MLX call keywords)

    @staticmethod
    def available() -> bool:
        return True

    def build(self, kernel):
        def run(**call):
            self.launches.append((kernel, call))
            return [mx.zeros(s, dtype=d) for s, d in zip(call["output_shapes"], call["output_dtypes"])]
        return run


@mf.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


N = 4096
BASE = dict(x=mx.ones(N), out=(N,), n=N, factor=2.0, meta=dict(BLOCK=128, num_warps=4))
VARIANTS = {  # each differs from BASE in one thing that selects the specialisation
    "input dtype": dict(x=mx.ones(N, dtype=mx.float16)),
    "not a multiple of 16": dict(n=N - 1),
    "a multiple of 16, not 32": dict(n=N - 16),
    "a multiple of 64, not 128": dict(n=N - 64),
    "64-bit int": dict(n=2**31 + 16),
    "int scalar for a float one": dict(factor=2),
    "constexpr": dict(meta=dict(BLOCK=256, num_warps=4)),
    "num_warps": dict(meta=dict(BLOCK=128, num_warps=2)),
    "num_stages": dict(meta=dict(BLOCK=128, num_warps=4, num_stages=0)),
    "output dtype": dict(out=((N,), mx.float16)),
    "output initial value": dict(out=((N,), mx.float32, 0.0)),
}


def _call(case: dict) -> tuple[tuple, dict]:
    out = case["out"]
    shape, dtype, init = (out, mx.float32, None) if isinstance(out[0], int) else (*out, None)[:3]
    placeholder = mf.empty(shape, dtype) if init is None else mf.full(shape, init, dtype)
    return (case["x"], placeholder, case["n"], case["factor"]), dict(case["meta"])


def _expect_ran(kernel, backend: Recording, args: tuple, meta: dict) -> None:
    """The last launch ran the kernel `compile` makes for these arguments (no launch cache involved)."""
    ran, call = backend.launches[-1]
    compiled = kernel.compile(*args, **meta, backend=backend)
    assert (ran.name, ran.source) == (compiled.name, compiled.body)
    assert call["threadgroup"] == (compiled.threads, 1, 1)
    placeholder = args[1]
    assert call["output_dtypes"] == [placeholder.dtype] and call.get("init_value") == placeholder.init
    n, factor = call["inputs"][1:]  # scalars, as MLX takes them
    assert n.item() == args[2] and n.dtype == (mx.int32 if args[2] < 2**31 else mx.int64)
    assert factor.item() == args[3] and factor.dtype == (mx.float32 if isinstance(args[3], float) else mx.int32)


@pytest.mark.parametrize("entry", ["jit", "autotune"])
def test_every_fact_that_selects_a_specialisation_gives_its_own_kernel(entry):
    """A changed dtype, divisibility class (16, 32, 64, 128 or none), int width, scalar type, constexpr, launch option, output dtype or
    initial value compiles a specialisation of its own, and every launch (the first and the cached
    ones) runs the one its arguments select; back to the first arguments, the first kernel runs."""
    backend = Recording()
    kernel = mf.jit(scale.fn)  # caches of its own
    tuned = mf.autotune(configs=[Config({"BLOCK": 128}, num_warps=4)], key=["n"])(kernel)
    for name, change in [("base", {}), *VARIANTS.items(), ("base again", {})]:
        args, meta = _call({**BASE, **change})
        compiled = len(kernel.cache)
        for _ in range(3):  # the first launch, then cached ones
            if entry == "autotune" and meta == BASE["meta"]:  # the tuned config is BASE's
                tuned[(4,)](*args, backend=backend)
            else:
                kernel[(4,)](*args, **meta, backend=backend)
            _expect_ran(kernel, backend, args, meta)
        assert len(kernel.cache) == compiled + (name != "base again"), name


def test_ints_specialise_on_eight_divisibility_classes():
    """The largest power of two up to 128 dividing an int: 4096 and 256 and 0 share one class, so
    shapes that are multiples of 128 compile one kernel; 1000 is a class of 8 (vectors of 8 halves);
    the launch's inline fact and `fact` agree with `divisibility` (which the compiler is given) on
    both signs, and whether an int fits 32 bits stays apart from its class."""
    from metalforge.launcher.arguments import DIVISIBILITY, divisibility, fact
    values = [0, 1, 15, 16, 48, 32, 96, 64, 192, 128, 256, 4096, 4080, 75, -16, -128, 2**31 + 64, -(2**40), 1000,
              1004, 2, 6, 2**33 + 2]
    assert [divisibility(v) for v in values] == [128, 1, 1, 16, 16, 32, 32, 64, 64, 128, 128, 128, 16, 1, 16, 128,
                                                 64, 128, 8, 4, 2, 2, 2]
    assert set(DIVISIBILITY) == {1, 2, 4, 8, 16, 32, 64, 128}
    assert all(fact(v) == divisibility(v) | (256 if -2**31 <= v < 2**31 else 0) for v in values)
    assert len({fact(v) for v in (2, 2**33 + 2, 6, 1)}) == 3  # 2 and 6 share a class; 2**33 + 2 does not fit


@mf.jit
def row_sum(x_ptr, out_ptr, K, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK):
        k = k0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + k, mask=k < K, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def test_do_not_specialize_compiles_no_fact_of_the_first_value():
    """A specialised K that is a multiple of BLOCK drops the loop's mask (codegen/ir_passes/masks.py):
    with K in do_not_specialize, the one kernel compiled at K = 4096 must be the one compiled for
    K = 100 (no divisibility known), and must sum K = 100 right afterwards (the emulator, which
    refuses out-of-bounds reads, runs both)."""
    def launch(kernel, k: int) -> tuple[str, float]:
        out = kernel[(1,)](mx.arange(k).astype(mx.float32), mf.empty((1,), mx.float32), k, BLOCK=64,
                           backend=EmulatorBackend())
        assert out.item() == k * (k - 1) / 2  # exact: integers under 2^24
        return list(kernel.cache.values())[-1].body
    specialised, unknown = launch(mf.jit(row_sum.fn), 4096), launch(mf.jit(row_sum.fn), 100)
    assert specialised != unknown  # the facts of 4096 change the code: a leak would show
    kernel = mf.jit(do_not_specialize=["K"])(row_sum.fn)
    assert launch(kernel, 4096) == unknown and launch(kernel, 100) == unknown and len(kernel.cache) == 1


@pytest.mark.parametrize("entry", ["jit", "autotune"])
def test_do_not_specialize_compiles_one_kernel_for_every_value(entry):
    """`@jit(do_not_specialize=[...])` (names or positions, as Triton takes them): an int named there
    compiles once whatever its divisibility, each launch passing its value; the same kernel without
    it compiles one kernel per class. A name that is no
    runtime parameter is refused, naming the kernel."""
    backend = Recording()
    for spec, compiles in ((["n"], 1), ([2], 1), (None, 5)):
        kernel = mf.jit(do_not_specialize=spec)(scale.fn)
        launch = kernel if entry == "jit" else mf.autotune(configs=[Config({"BLOCK": 128}, num_warps=4)],
                                                           key=["factor"])(kernel)
        for n in (1, 16, 32, 64, 128, 96, 4096, 7):
            args, meta = _call({**BASE, "n": n})
            launch[(4,)](*args, **({} if entry == "autotune" else meta), backend=backend)
            assert backend.launches[-1][1]["inputs"][1].item() == n
        assert len(kernel.cache) == compiles, spec
    with pytest.raises(errors.LaunchConfigError, match=r"scale \(.*test_launch.py:\d+\): do_not_specialize names 'BLOCK'.*of x_ptr, out_ptr, n, factor"):
        mf.jit(do_not_specialize=["BLOCK"])(scale.fn)


def test_each_back_end_runs_its_own_launches():
    first, second = Recording(), Recording()
    args, meta = _call(BASE)
    for backend in (first, second, first):
        scale[(4,)](*args, **meta, backend=backend)
    assert (len(first.launches), len(second.launches)) == (2, 1)


def test_the_grid_reaches_mlx_in_threads_and_a_grid_function_gets_the_meta_parameters():
    backend, seen = Recording(), []
    args, meta = _call(BASE)

    def grid(m):
        seen.append(dict(m))
        return (m["BLOCK"] // 64, 3)
    scale[grid](*args, **meta, backend=backend)
    assert seen == [{"BLOCK": 128, "num_warps": 4}]
    assert backend.launches[-1][1]["grid"] == (2 * 128, 3, 1)
    scale[(2, 2, 2)](*args, **meta, backend=backend)
    assert backend.launches[-1][1]["grid"] == (2 * 128, 2, 2)
    assert scale[(0,)](*args, **meta, backend=backend).shape == (N,)  # an empty grid launches nothing
    assert len(backend.launches) == 2


def test_scalar_arrays_keep_the_sign_of_zero():
    backend = Recording()
    args, meta = _call(BASE)
    for factor in (-0.0, 0.0, -0.0):
        scale[(4,)](*args[:3], factor, **meta, backend=backend)
        assert math.copysign(1, backend.launches[-1][1]["inputs"][2].item()) == math.copysign(1, factor)


def test_placeholders_are_tuples_that_normalise_their_shape_and_nan():
    p = mf.Placeholder([4, 2], mx.float16, float("nan"))
    assert p == ((4, 2), mx.float16, p.init) and p.shape == (4, 2) and math.isnan(p.init)
    assert mf.full(3, float("nan")).init is mf.full((3,), float("nan")).init  # one NaN: equal launch keys
    assert mf.empty(5) == mf.Placeholder((5,)) and mf.zeros([2, 3]).shape == (2, 3)


# -- errors -------------------------------------------------------------------------------------------------------
def _bad_calls():
    x, out = mx.ones(N), mf.empty(N)
    return {
        "too many arguments": (lambda k: k[(4,)](x, out, N, 2.0, 128, 7),
                               errors.MetalforgeError, "scale: takes 5 arguments, got 6"),
        "missing argument": (lambda k: k[(4,)](x, out, N, BLOCK=128),
                             errors.MetalforgeError, "scale: missing argument `factor`"),
        "unknown keyword": (lambda k: k[(4,)](x, out, N, 2.0, 128, BLK=64),
                            errors.MetalforgeError, r"scale: unexpected argument `BLK`; parameters are x_ptr, out_ptr"),
        "given twice": (lambda k: k[(4,)](x, out, N, 2.0, BLOCK=128, x_ptr=x),
                        TypeError, r"scale\(\) got multiple values for argument 'x_ptr'"),
        "bad argument type": (lambda k: k[(4,)]([1.0], out, N, 2.0, 128),
                              errors.MetalforgeError, "scale: argument `x_ptr` is a list; pass an mx.array"),
        "unsupported dtype": (lambda k: k[(4,)](mx.ones(N, dtype=mx.float64), out, N, 2.0, BLOCK=128),
                              errors.MetalforgeError, "argument `x_ptr` has dtype mlx.core.float64"),
        "grid not a tuple": (lambda k: k[4](x, out, N, 2.0, BLOCK=128),
                             errors.MetalforgeError, "scale: grid must be 1 to 3 non-negative ints"),
        "negative grid": (lambda k: k[(4, -1)](x, out, N, 2.0, 128),
                          errors.MetalforgeError, r"scale: grid must be 1 to 3 non-negative ints, got \(4, -1\)"),
        "4-D grid": (lambda k: k[(1, 1, 1, 1)](x, out, N, 2.0, BLOCK=128),
                     errors.MetalforgeError, "scale: grid must be 1 to 3"),
        "bad num_warps": (lambda k: k[(4,)](x, out, N, 2.0, BLOCK=128, num_warps=3),
                          errors.LaunchConfigError, "scale: num_warps=3; use a power of two"),
    }


class OnBackend:
    """`kernel[grid](...)` launched on `backend`."""

    def __init__(self, kernel, backend) -> None:
        self.kernel, self.backend = kernel, backend

    def __getitem__(self, grid):
        launch = self.kernel[grid]
        return lambda *args, **kwargs: launch(*args, **kwargs, backend=self.backend)


@pytest.mark.parametrize("case", list(_bad_calls()))
@pytest.mark.parametrize("first", [True, False], ids=["first call", "after a launch"])
def test_bad_calls_say_what_is_wrong_naming_the_kernel(case, first):
    """Before any launch (the dispatcher is not made yet) and after one (it is), alike; and a bad call
    leaves the launch path working."""
    kernel, backend = mf.jit(scale.fn), Recording()
    args, meta = _call(BASE)
    if not first:
        kernel[(4,)](*args, **meta, backend=backend)
    call, error, message = _bad_calls()[case]
    with pytest.raises(error, match=message):
        call(OnBackend(kernel, backend))
    kernel[(4,)](*args, **meta, backend=backend)
    assert len(backend.launches) == 1 + (not first)
    assert "if type(x_ptr) is" in kernel._dispatch.source  # a bad first call leaves the typed keys on


def test_bad_calls_through_the_autotuned_entry_name_the_kernel():
    tuned = mf.autotune(configs=[Config({"BLOCK": 128}, num_warps=4)], key=["n"])(mf.jit(scale.fn))
    on = OnBackend(tuned, Recording())
    x, out = mx.ones(N), mf.empty(N)
    with pytest.raises(TypeError, match="kernel `scale`: BLOCK is tuned; do not pass it"):
        on[(4,)](x, out, N, 2.0, 128, 7)
    with pytest.raises(errors.MetalforgeError, match="scale: unexpected argument `BLK`"):
        on[(4,)](x, out, N, 2.0, BLK=64)
    with pytest.raises(errors.MetalforgeError, match="scale: argument `x_ptr` is a list"):
        on[(4,)]([1.0], out, N, 2.0)
    with pytest.raises(errors.MetalforgeError, match=r"scale: grid must be 1 to 3 non-negative ints, got \(4, -1\)"):
        on[(4, -1)](x, out, N, 2.0)
    with pytest.raises(TypeError, match="kernel `scale`: BLOCK is tuned; do not pass it"):
        on[(4,)](x, out, N, 2.0, BLOCK=64)


def test_a_missing_autotune_key_argument_is_named():
    tuned = mf.autotune(configs=[Config({"BLOCK": 128}, num_warps=4)], key=["n"])(scale)
    with pytest.raises(TypeError, match="kernel `scale`: the autotune key argument `n` was not given"):
        tuned[(4,)](mx.ones(N), mf.empty(N), backend=Recording())


def test_outputs_with_different_initial_values_are_refused():
    @mf.jit
    def two_outputs(x_ptr, a_ptr, b_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(a_ptr + offs, tl.load(x_ptr + offs))
        tl.store(b_ptr + offs, tl.load(x_ptr + offs))

    with pytest.raises(errors.MetalforgeError, match="two_outputs: outputs with different initial values"):
        two_outputs[(1,)](mx.ones(32), mf.zeros(32), mf.full(32, 1.0), BLOCK=32, backend=Recording())


def test_parameters_named_like_launch_options_are_refused_at_the_first_launch():
    @mf.jit
    def clash(x_ptr, num_warps):
        tl.store(x_ptr, num_warps)

    with pytest.raises(errors.MetalforgeError, match="kernel `clash`: parameter `num_warps` clashes"):
        clash[(1,)](mf.empty(1, mx.int32), 4, backend=Recording())


# -- the autotuned entry point ------------------------------------------------------------------------------------
def test_the_autotuned_entry_counts_untuned_calls_and_uses_a_tune_of_the_same_process(tmp_path, monkeypatch):
    if not EmulatorBackend.available():
        pytest.skip("the emulator needs clang++ >= 17")
    blocks = []
    kernel = mf.jit(scale.fn)
    default, tuned_config = Config({"BLOCK": 32}, num_warps=1), Config({"BLOCK": 64}, num_warps=1)
    monkeypatch.delenv("METALFORGE_TUNE_ON_MISS", raising=False)
    tuned = mf.autotune(configs=[default, tuned_config], key=["n"], warmup=1, rep=2, db=tmp_path / "tuning.sqlite",
                        prune=[lambda meta, named: meta["BLOCK"] != 32])(kernel)  # the search can only pick 64
    n, x = 300, mx.arange(300, dtype=mx.float32)

    def grid(meta):
        blocks.append(meta["BLOCK"])
        return (mf.cdiv(n, meta["BLOCK"]),)

    for _ in range(3):
        np.testing.assert_array_equal(np.array(tuned[grid](x, mf.empty(n), n, 2.0)), np.arange(n) * 2)
    report = [r for r in mf.tuning_report() if r["kernel"] == "scale" and r["shape"] == (n,)]
    assert blocks == [32] * 3 and [r["calls"] for r in report] == [3]
    assert tuned.tune(grid, x, mf.empty(n), n, 2.0, trials=2, sampler="grid") == tuned_config
    np.testing.assert_array_equal(np.array(tuned[grid](x, mf.empty(n), n, 2.0)), np.arange(n) * 2)
    assert blocks[-1] == 64 and [r["calls"] for r in mf.tuning_report()
                                 if r["kernel"] == "scale" and r["shape"] == (n,)] == [3]


def test_alternating_specialisations_on_the_emulator_each_compute_their_own_result(rng):
    if not EmulatorBackend.available():
        pytest.skip("the emulator needs clang++ >= 17")
    kernel = mf.jit(scale.fn)
    tuned = mf.autotune(configs=[Config({"BLOCK": 64}, num_warps=1)], key=["n"])(kernel)
    cases = []
    for n, dtype, factor in [(64, mx.float32, 3.0), (67, mx.float16, 0.5), (64, mx.float32, -2), (67, mx.float32, 2.5)]:
        x = mx.array(rng.uniform(-4, 4, n).astype(np.float32)).astype(dtype)
        cases.append((x, n, dtype, factor))
    for _ in range(2):
        for x, n, dtype, factor in cases:
            want = np.array(x.astype(mx.float32)) * factor
            got = tuned[lambda meta: (mf.cdiv(n, meta["BLOCK"]),)](x, mf.empty(n, dtype), n, factor)
            assert got.dtype == dtype
            np.testing.assert_allclose(np.array(got.astype(mx.float32)), want, rtol=1e-3 if dtype == mx.float16 else 1e-6)


def test_a_config_pre_hook_sees_every_launch_of_the_autotuned_entry():
    seen = []
    config = Config({"BLOCK": 128}, num_warps=4, pre_hook=lambda named: seen.append((named["n"], named["BLOCK"])))
    tuned = mf.autotune(configs=[config], key=["n"])(mf.jit(scale.fn))
    backend = Recording()
    for n in (N, N, N - 1):
        tuned[(4,)](mx.ones(N), mf.empty(N), n, 2.0, backend=backend)
    assert seen == [(N, 128), (N, 128), (N - 1, 128)] and len(backend.launches) == 3


# -- prepared launches --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("entry", ["jit", "autotune"])
def test_a_prepared_launch_runs_what_the_full_launch_runs_and_falls_back_where_the_facts_differ(entry):
    """`prepare` fixes all but the varying arguments: each call runs the kernel and MLX call that the
    full launch with those arguments makes; a varying argument of other facts (dtype, int class, a
    tuned key's value) goes through the dispatcher; a cache cleared since (a tune) too."""
    backend = Recording()
    kernel = mf.jit(scale.fn)
    tuned = mf.autotune(configs=[Config({"BLOCK": 128}, num_warps=4)], key=["n"])(kernel)
    meta = {} if entry == "autotune" else dict(BLOCK=128, num_warps=4)
    launchable = tuned if entry == "autotune" else kernel
    prepared = launchable.prepare((4,), mx.ones(N), mf.empty(N), N, 2.0, varying=("x_ptr", "factor"), **meta,
                                  backend=backend)
    assert backend.launches == []  # preparing launches nothing
    for x, factor in [(mx.ones(N), 3.0), (mx.zeros(N), -1.5), (mx.ones(N, dtype=mx.float16), 2.0), (mx.ones(N), 2)]:
        prepared(x, factor)
        ran, call = backend.launches[-1]
        full = kernel.compile(x, mf.empty(N), N, factor, BLOCK=128, num_warps=4, backend=backend)
        assert (ran.name, ran.source) == (full.name, full.body)
        assert call["inputs"][0] is x and call["inputs"][2].item() == factor and call["output_shapes"] == [(N,)]
    if entry == "autotune":
        def untuned_calls() -> int:
            return sum(r["calls"] for r in mf.tuning_report() if r["kernel"] == "scale" and r["shape"] == (N,))
        before = untuned_calls()
        tuned.clear_cache()  # what a tune in the process does: the prepared launch must not keep the old config
        prepared(mx.ones(N), 2.0)
        assert len(backend.launches) == 5
        # ... and it made the launch anew for the config found now: later calls take it directly
        at, launch, _ = prepared.__globals__["_mf_state"]
        assert at == tuned._dispatch.cache.epoch[0] and launch is not None and len(tuned._dispatch.cache) == 1
        prepared(mx.ones(N), 2.0)
        assert untuned_calls() == before + 2  # every launch counts, the one that renewed too
    with pytest.raises(errors.LaunchConfigError, match=r"scale: a launch prepared for `x_ptr` of shape \(4096,\)"):
        prepared(mx.ones(N - 1), 2.0)


def test_a_prepared_launch_follows_the_back_end_chosen_by_the_environment(monkeypatch):
    recording = Recording()
    monkeypatch.setattr(mf.runtime.backends, "_named", lambda name, language=None: recording)
    monkeypatch.delenv("METALFORGE_BACKEND", raising=False)
    prepared = mf.jit(scale.fn).prepare((4,), mx.ones(N), mf.empty(N), N, 2.0, varying=("x_ptr",), BLOCK=128)
    prepared(mx.ones(N))
    other = Recording()
    monkeypatch.setattr(mf.runtime.backends, "_named", lambda name, language=None: other)
    monkeypatch.setenv("METALFORGE_BACKEND", "other")
    prepared(mx.ones(N))
    assert len(recording.launches) == 1 and len(other.launches) == 1


def test_prepare_refuses_varying_names_that_are_no_parameter_or_not_given():
    kernel = mf.jit(scale.fn)
    with pytest.raises(errors.MetalforgeError, match=r"varying='x_ptr'; give a sequence of parameter names"):
        kernel.prepare((4,), mx.ones(N), mf.empty(N), N, 2.0, varying="x_ptr", BLOCK=128, backend=Recording())
    with pytest.raises(errors.MetalforgeError,
                       match=r"prepare: varying names y_ptr; .* runtime parameters \(x_ptr, out_ptr, n, factor\)"):
        kernel.prepare((4,), mx.ones(N), mf.empty(N), N, 2.0, varying=("y_ptr",), BLOCK=128, backend=Recording())
    with pytest.raises(errors.MetalforgeError, match="varying names BLOCK; .*a constexpr compiles into the kernel"):
        kernel.prepare((4,), mx.ones(N), mf.empty(N), N, 2.0, varying=("BLOCK",), BLOCK=128, backend=Recording())
    with pytest.raises(errors.MetalforgeError, match="varying parameter `factor` was not given"):
        kernel.prepare((4,), mx.ones(N), mf.empty(N), N, varying=("factor",), BLOCK=128, backend=Recording())


def test_a_prepared_launch_on_the_emulator_computes_each_call_s_result(rng):
    if not EmulatorBackend.available():
        pytest.skip("the emulator needs clang++ >= 17")
    n = 67  # a masked tail
    prepared = mf.jit(scale.fn).prepare((2,), mx.zeros(n), mf.empty(n), n, 1.0, varying=("x_ptr", "factor"), BLOCK=64)
    for factor in (3.0, -0.5):
        x = rng.uniform(-4, 4, n).astype(np.float32)
        np.testing.assert_array_equal(np.array(prepared(mx.array(x), factor)), x * np.float32(factor))


def test_launches_prepared_for_other_fixed_values_share_their_code_and_keep_their_values(rng):
    """Preparing compiles no Python source again for a launch that differs only in what it fixes (a
    decode step prepares several per layer); each launch still computes with its own values."""
    if not EmulatorBackend.available():
        pytest.skip("the emulator needs clang++ >= 17")
    n, kernel = 67, mf.jit(scale.fn)
    triple = kernel.prepare((2,), mx.zeros(n), mf.empty(n), n, 3.0, varying=("x_ptr",), BLOCK=64)
    compiled = generated._code.cache_info().misses
    halve = kernel.prepare((2,), mx.zeros(n), mf.empty(n), n, -0.5, varying=("x_ptr",), BLOCK=64)
    assert generated._code.cache_info().misses == compiled
    x = rng.uniform(-4, 4, n).astype(np.float32)
    np.testing.assert_array_equal(np.array(triple(mx.array(x))), x * np.float32(3.0))
    np.testing.assert_array_equal(np.array(halve(mx.array(x))), x * np.float32(-0.5))


def test_a_prepared_launch_reads_a_fixed_0d_array_as_it_is_at_each_call():
    """A fixed 0-d input goes to MLX as one element, reshaped at each call: an update in place shows."""
    if not EmulatorBackend.available():
        pytest.skip("the emulator needs clang++ >= 17")

    @mf.jit
    def shift(x_ptr, s_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(s_ptr), mask=offs < n)

    shift_by = mx.array(1.0)
    prepared = shift.prepare((1,), mx.zeros(2), shift_by, mf.empty(2), 2, BLOCK=2, varying=("x_ptr",))
    shift_by[...] = 10.0
    np.testing.assert_array_equal(np.array(prepared(mx.array([0.0, 1.0]))), [10.0, 11.0])


def test_prepare_needs_a_jit_kernel():
    from metalforge.tests.tuning.standin import Launchable

    tuned = mf.autotune(configs=[Config({"BLOCK": 32})], key=["n"])(Launchable("standin"))
    with pytest.raises(TypeError, match="kernel `standin`: prepare needs a @metalforge.jit kernel"):
        tuned.prepare((1,), mx.ones(4), None, 4, varying=("x",))


@mf.jit
def strided_affine(x_ptr, out_ptr, M, N, sx, so, f, c, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sx + rn[None, :], mask=mask, other=0)
    tl.store(out_ptr + rm[:, None] * so + rn[None, :], x * f + c, mask=mask)


LAUNCH_TYPES = {"float32": mx.float32, "float16": mx.float16, "bfloat16": mx.bfloat16, "int32": mx.int32}
ONE_LAUNCH = st.fixed_dictionaries({
    "dtype": st.sampled_from(sorted(LAUNCH_TYPES)), "M": st.sampled_from([1, 2, 3, 16, 17]),
    "N": st.sampled_from([1, 7, 16, 32, 33, 64]), "pads": st.tuples(st.sampled_from([0, 1, 3, 16]), st.sampled_from([0, 5, 16])),
    "start": st.sampled_from([0, 1, 2, 3, 4, 8]), "f": st.sampled_from([1.0, 2.0, -0.5, 0.25]),
    "c": st.sampled_from([0, 1, 3, 16, -32]), "blocks": st.tuples(st.sampled_from([1, 2, 8]), st.sampled_from([8, 16, 64])),
    "num_warps": st.sampled_from([1, 2]), "prepared": st.booleans()})


@settings(max_examples=10, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(launches=st.lists(ONE_LAUNCH, min_size=4, max_size=10), seed=st.integers(0, 2**32 - 1))
def test_random_sequences_of_launches_each_compute_their_own_result(launches, seed):
    """One kernel object launched with a random sequence of element types, sizes (1, multiples of 16 and
    not), strides, views starting at any element, scalars (1 and 16 among them), tiles, warps, directly or
    through a prepared launch: each result is exact and every element between the rows keeps its poison,
    whatever the launches before it compiled and cached (a launch given another's facts would not be)."""
    if not EmulatorBackend.available():
        pytest.skip("the emulator needs clang++ >= 17")
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    for launch in launches:
        dtype, M, N, start = LAUNCH_TYPES[launch["dtype"]], launch["M"], launch["N"], launch["start"]
        sx, so = N + launch["pads"][0], N + launch["pads"][1]
        values = rng.integers(-8, 9, size=start + M * sx).astype(np.float32)
        x = mx.array(values).astype(dtype)[start:]  # a view at element `start`
        poison = -77 if dtype == mx.int32 else 1000.0
        out = mf.full((M * so,), poison, dtype)
        BM, BN = launch["blocks"]
        grid = (mf.cdiv(M, BM), mf.cdiv(N, BN))
        f, c = launch["f"], launch["c"]
        options = dict(BM=BM, BN=BN, num_warps=launch["num_warps"])
        if launch["prepared"]:
            got = strided_affine.prepare(grid, x, out, M, N, sx, so, f, c, varying=("x_ptr", "f"), **options)(x, f)
        else:
            got = strided_affine[grid](x, out, M, N, sx, so, f, c, **options)
        rows = values[start:start + M * sx].reshape(M, sx)[:, :N].astype(np.float64) * f + c  # exact in float32
        want = np.full((M, so), poison, np.float64)  # then one conversion to the output's type:
        want[:, :N] = np.trunc(rows) if dtype == mx.int32 else np.array(mx.array(rows.astype(np.float32)).astype(dtype)
                                                                        .astype(mx.float32))
        np.testing.assert_array_equal(np.array(got.astype(mx.float32)).reshape(M, so), want, err_msg=str(launch))
