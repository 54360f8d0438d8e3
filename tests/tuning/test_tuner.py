"""The autotuner on real emulator kernels: statuses, search spaces, early stopping, run-time lookup."""
from __future__ import annotations

import json
import shutil

import mlx.core as mx
import optuna
import pytest

from metalforge.autotune import Config, Space, autotune, pow2, tuning_report
from metalforge.autotune.space import ConfigList
from metalforge.autotune import tuner as tuner_module
from metalforge.autotune.bench import as_outputs, rotating_copies
from metalforge.runtime.emulator import EmulatorBackend
from metalforge.tuning_db import TuningDB

from . import standin
from .standin import Launchable, reference

CONFIGS = [
    Config({"BLOCK": 64, "VARIANT": "good"}, num_warps=1),
    Config({"BLOCK": 256, "VARIANT": "good"}, num_warps=4),
    Config({"BLOCK": 128, "VARIANT": "wrong"}, num_warps=2),    # the fastest, and wrong
    Config({"BLOCK": 128, "VARIANT": "broken"}, num_warps=2),   # does not compile
    Config({"BLOCK": 128, "VARIANT": "hang"}, num_warps=2),     # past the trial time limit (never ends)
    Config({"BLOCK": 128, "VARIANT": "good"}, num_warps=64),    # 2048 threads: Metal refuses the launch
]


def test_every_failure_is_recorded_and_only_a_right_config_wins(emu, db_path):
    # a limit over 100 times what a right config's trial takes here (3-4 ms): a stall of the host does not time it out
    tuned = autotune(configs=CONFIGS, key=["n"], reference=reference, warmup=1, rep=3, trial_timeout=0.5)(
        Launchable("statuses", emu))
    best = tuned.tune(standin.grid, *standin.args(), trials=len(CONFIGS), sampler="grid", seed=1)
    assert best.kwargs["VARIANT"] == "good"
    trials = {json.dumps(json.loads(t["config"]), sort_keys=True): t for t in TuningDB(db_path).trials("statuses")}
    by_variant = {(json.loads(k)["kwargs"]["VARIANT"], json.loads(k)["num_warps"]): t for k, t in trials.items()}
    assert len(trials) == len(CONFIGS)
    assert by_variant[("wrong", 2)]["status"] == "wrong" and by_variant[("wrong", 2)]["max_error"] > 0
    assert "elements differ" in by_variant[("wrong", 2)]["reason"]
    assert by_variant[("broken", 2)]["status"] == "compile_error"
    assert "undeclared_variable" in by_variant[("broken", 2)]["reason"]
    assert by_variant[("hang", 2)]["status"] == "timeout"
    assert by_variant[("good", 64)]["status"] == "invalid" and "1024" in by_variant[("good", 64)]["reason"]
    assert by_variant[("good", 1)]["status"] == by_variant[("good", 4)]["status"] == "ok"
    (winner,) = TuningDB(db_path).winners("statuses")
    assert json.loads(winner["config"]) == best.to_json()
    # the launch now uses the winner, found by exact key
    assert tuned.config_for(standin.grid, *standin.args()) == (best, "exact")
    x, out, n = standin.args()
    assert mx.allclose(tuned[standin.grid](x, out, n), x * 2 + 1).item()


def test_space_constraints_and_prune_reject_before_compiling(emu, db_path):
    fn = Launchable("space", emu)
    space = Space({"BLOCK": pow2(32, 256), "num_warps": [1, 2], "VARIANT": ["good"]},
                  constraints=[lambda c: c["BLOCK"] >= 64 * c["num_warps"]])
    tuned = autotune(space=space, key=["n"], reference=reference, warmup=1, rep=3,
                     prune=lambda meta, args: meta["BLOCK"] <= args["n"] // 4)(fn)
    best = tuned.tune(standin.grid, *standin.args(n=512), trials=50, seed=0)
    assert space.size == 8 and pow2(32, 256) == [32, 64, 128, 256]
    trials = TuningDB(db_path).trials("space")
    assert len(trials) == 8  # "auto" picked the grid: every point once, then stopped
    statuses = {(json.loads(t["config"])["kwargs"]["BLOCK"], json.loads(t["config"])["num_warps"]): t for t in trials}
    assert "constraint" in statuses[(32, 1)]["reason"] and statuses[(64, 2)]["status"] == "invalid"
    assert "pruned" in statuses[(256, 1)]["reason"]
    valid = {k for k, t in statuses.items() if t["status"] == "ok"}
    assert valid == {(64, 1), (128, 1), (128, 2)}
    assert {(m["BLOCK"], m["num_warps"]) for m in fn.compiled} == valid  # nothing invalid was compiled
    assert (best.kwargs["BLOCK"], best.num_warps) in valid


def test_trials_count_measured_configs_and_the_search_starts_from_the_default_for_the_shape(emu, db_path):
    """Suggestions that a constraint rejects or that repeat a point measure nothing and do not use up
    `trials`; a default that depends on the arguments is what an untuned launch runs and the first trial."""
    fn = Launchable("budget", emu)
    space = Space({"BLOCK": pow2(32, 1024), "num_warps": [1, 2, 4], "VARIANT": ["good"]},
                  constraints=[lambda c: c["BLOCK"] >= 128 * c["num_warps"]])  # 9 of 18 points
    tuned = autotune(space=space, key=["n"], reference=reference, warmup=1, rep=3,
                     default=lambda named: Config({"BLOCK": 128 if named["n"] < 500 else 256, "VARIANT": "good"}))(fn)
    assert tuned.config_for(standin.grid, *standin.args(n=300)) == \
        (Config({"BLOCK": 128, "VARIANT": "good"}), "default")
    tuned.tune(standin.grid, *standin.args(n=1000), trials=4, sampler="random", seed=0)
    trials = sorted(TuningDB(db_path).trials("budget"), key=lambda t: t["trial_number"])
    assert json.loads(trials[0]["config"]) == Config({"BLOCK": 256, "VARIANT": "good"}).to_json()
    assert sum(t["status"] == "ok" for t in trials) == 4
    # the default breaks the space's constraint (256 < 128 x 4 warps), so no trial measured it; it is
    # what an untuned launch runs, so the search's best is still confirmed against it (one compile more)
    assert trials[0]["status"] == "invalid" and len(fn.compiled) == 4 + 1 and fn.compiled[-1]["BLOCK"] == 256
    assert any(t["status"] == "invalid" for t in trials)  # this seed draws rejected points, which did not count
    assert len({t["config"] for t in trials}) < len(trials)  # and repeats


def test_a_new_search_starts_from_the_nearest_tuned_shapes_winner_then_the_default(emu, db_path):
    """Winners carry over between nearby shapes on one chip, so a search for a new shape measures the
    run-time lookup's pick first (here the default is a wrong variant: it can never be that winner)."""
    configs = [Config({"BLOCK": 64, "VARIANT": "good"}, num_warps=1),
               Config({"BLOCK": 128, "VARIANT": "good"}, num_warps=2), CONFIGS[2]]
    tuned = autotune(configs=configs, key=["n"], reference=reference, warmup=1, rep=3, default=CONFIGS[2])(
        Launchable("warm", emu))
    first = tuned.tune(standin.grid, *standin.args(n=1000), trials=3, sampler="grid")
    assert first in configs[:2]
    def grid(meta: dict) -> tuple:
        return (-(-3000 // meta["BLOCK"]),)

    tuned.tune(grid, *standin.args(n=3000), trials=2, sampler="random", seed=0)
    later = sorted((t for t in TuningDB(db_path).trials("warm") if json.loads(t["shape_key"]) == [3000]),
                   key=lambda t: t["trial_number"])
    assert [json.loads(t["config"]) for t in later[:2]] == [first.to_json(), CONFIGS[2].to_json()]
    assert later[1]["status"] == "wrong"
    # a study that already has trials goes on where it stopped: nothing is enqueued again
    tuned.tune(grid, *standin.args(n=3000), trials=1, sampler="random", seed=1)
    study = optuna.load_study(study_name=later[0]["study"], storage=TuningDB(db_path).optuna_storage())
    assert len(study.trials) > len(later)
    assert [t.number for t in study.trials if "fixed_params" in t.system_attrs] == [0, 1]  # the enqueued


class _RecordingLock:
    """A stand-in for a lock shared between processes: records how many configs `fn` had compiled
    each time it is taken."""

    def __init__(self, fn: Launchable) -> None:
        self.fn, self.taken = fn, []

    def __enter__(self) -> None:
        self.taken.append(len(self.fn.compiled))

    def __exit__(self, *exc: object) -> None:
        return None


def test_a_timing_lock_is_taken_after_compiling_and_checking_and_only_for_a_right_config(emu):
    fn = Launchable("locked", emu)
    tuned = autotune(configs=CONFIGS, key=["n"], reference=reference, warmup=1, rep=3)(fn)
    lock, args = _RecordingLock(fn), standin.args()
    copies, expected = rotating_copies(args), as_outputs(reference(*args))
    statuses = [tuned.evaluate(standin.grid, config, copies, expected, timing_lock=lock).status
                for config in (CONFIGS[2], CONFIGS[3], CONFIGS[0])]
    assert statuses == ["wrong", "compile_error", "ok"]
    assert lock.taken == [3]  # once, for the right config, after its compile (the broken one was tried too)


@pytest.mark.parametrize("batch_timing", [False, True])
def test_a_back_end_that_batches_gets_batched_samples(emu, monkeypatch, batch_timing):
    """`evaluate` times in batches exactly where the kernel's back end says its launches allow it."""
    backend = EmulatorBackend(workers=0)
    monkeypatch.setattr(backend, "batch_timing", batch_timing, raising=False)
    asked = []
    monkeypatch.setattr(tuner_module, "median_time_ms", lambda *a, **kw: asked.append(kw["batched"]) or 1.0)
    tuned = autotune(configs=CONFIGS[:1], key=["n"], reference=reference)(Launchable("batching", backend))
    args = standin.args()
    r = tuned.evaluate(standin.grid, CONFIGS[0], rotating_copies(args), as_outputs(reference(*args)))
    assert (r.status, r.time_ms, asked) == ("ok", 1.0, [batch_timing])


def test_a_search_with_nothing_new_to_measure_ends(emu, db_path):
    fn = Launchable("exhausted", emu)
    space = Space({"BLOCK": [64, 128], "num_warps": [1, 2], "VARIANT": ["good"]},
                  constraints=[lambda c: (c["BLOCK"], c["num_warps"]) == (128, 1)])
    tuned = autotune(space=space, key=["n"], reference=reference, warmup=1, rep=3)(fn)
    assert tuned.tune(standin.grid, *standin.args(), trials=3, sampler="random", seed=0).kwargs["BLOCK"] == 128
    assert len(TuningDB(db_path).trials("exhausted")) == 3 + space.size and len(fn.compiled) == 1


def test_patience_stops_when_the_best_stops_improving(emu, db_path):
    tuned = autotune(configs=[Config({"BLOCK": 128}, num_warps=2)] * 10, key=["n"], warmup=1, rep=3)(
        Launchable("patience", emu))
    tuned.tune(standin.grid, *standin.args(), trials=10, sampler="random", seed=0, patience=3)
    assert len(TuningDB(db_path).trials("patience")) == 4  # the first trial, then 3 without improvement


def test_no_valid_config_is_an_error_not_a_winner(emu, db_path):
    from metalforge.errors import TuningError

    tuned = autotune(configs=[CONFIGS[2], CONFIGS[3]], key=["n"], reference=reference, warmup=1, rep=3)(
        Launchable("hopeless", emu))
    with pytest.raises(TuningError, match="no valid config.*1 compile_error, 1 wrong"):
        tuned.tune(standin.grid, *standin.args(), trials=2)
    assert TuningDB(db_path).winners("hopeless") == []
    assert tuned.config_for(standin.grid, *standin.args()) == (CONFIGS[2], "default")


def test_untuned_calls_are_reported_and_tune_on_miss_tunes(emu, db_path, monkeypatch):
    tuned = autotune(configs=CONFIGS[:2], key=["n"], reference=reference, warmup=1, rep=3)(Launchable("report", emu))
    tuned.tune(standin.grid, *standin.args(n=1000), trials=2)
    x, out, n = standin.args(n=900)  # same bucket (1024), not tuned itself
    grid = (-(-n // 64),)
    for _ in range(3):
        tuned[lambda meta: (-(-n // meta["BLOCK"]),)](x, out, n)
    rows = [r for r in tuning_report() if r["kernel"] == "report"]
    assert rows == [{"kernel": "report", "shape": (900,), "dtypes": ("float32", "float32"), "source": "bucket",
                     "calls": 3}]
    assert "report" in str(tuning_report())
    monkeypatch.setenv("METALFORGE_TUNE_ON_MISS", "1")
    x, out, n = standin.args(n=64)
    assert tuned.config_for(grid, x, out, n)[1] == "exact"
    assert len(TuningDB(db_path).winners("report")) == 2


def test_simdgroup_arrangement_is_a_config_field_a_space_can_search():
    """`warps_m` is a launch setting like num_warps: a Space parameter becomes it, the tuning
    database keeps it, and configs without it read back as before."""
    space = Space({"BLOCK_M": [32, 64], "num_warps": [4], "warps_m": [None, 1, 4]})
    configs = [Config.from_point(p) for p in space.points()]
    assert Config({"BLOCK_M": 64}, num_warps=4, warps_m=1) in configs
    assert all("warps_m" not in c.kwargs for c in configs)
    for c in configs:
        assert Config.from_json(json.loads(json.dumps(c.to_json()))) == c
    assert Config({"BLOCK_M": 64}, num_warps=4, warps_m=4).all_kwargs()["warps_m"] == 4
    assert "warps_m" not in Config({"BLOCK_M": 64}).all_kwargs()  # unset: the launch keeps its default
    assert Config.from_json({"kwargs": {"BLOCK_M": 64}, "num_warps": 4, "num_stages": 1}).warps_m is None
    assert Config({"BLOCK_M": 64}, warps_m=2) != Config({"BLOCK_M": 64})


def test_matmul2d_is_a_config_field_the_tuner_can_choose(emu, db_path):
    """The tuner measures a DSL matmul with and without Metal 4's cooperative matmul (emulated) and
    stores the launch setting with the config."""
    from metalforge.launcher import empty
    from metalforge.kernels.matmul import launch_grid, matmul_kernel, reference as matmul_reference

    space = Space({"BLOCK_M": [32], "BLOCK_N": [32], "BLOCK_K": [16], "GROUP_M": [1], "num_warps": [4],
                   "matmul2d": [False, True]})
    tuned = autotune(space=space, key=["M", "N", "K"], warmup=1, rep=2, rtol=2e-3, atol=1e-2,
                     reference=lambda a, b, c, *rest: matmul_reference(a, b, c.dtype))(matmul_kernel.fn)
    m, n, k = 40, 33, 50
    a, b = mx.random.normal((m, k)).astype(mx.float16), mx.random.normal((k, n)).astype(mx.float16)
    args = (a, b, empty((m, n), mx.float16), m, n, k)
    tuned.tune(launch_grid(m, n), *args, trials=2, sampler="grid", seed=0)
    trials = {json.loads(t["config"]).get("matmul2d", False): t for t in TuningDB(db_path).trials("matmul_kernel")}
    assert set(trials) == {False, True} and all(t["status"] == "ok" for t in trials.values()), trials
    assert Config.from_json(json.loads(trials[True]["config"])).matmul2d
    assert Config({"BLOCK_M": 32}, matmul2d=True).all_kwargs()["matmul2d"] is True
    assert "matmul2d" not in Config({"BLOCK_M": 32}).to_json()  # unset: stored rows read as before


def test_a_search_offers_only_what_its_back_end_runs(emu, db_path):
    """A space offering wgmma (CUDA's Hopper only) tuned on the emulator (Metal's rules) searches the
    configs without it: no trial is spent on a launch the back end refuses; on CUDA both stay, and
    Metal keeps matmul2d, which CUDA drops. A config list keeps what its back end runs."""
    from metalforge.codegen.target import CUDA, METAL
    from metalforge.launcher import empty
    from metalforge.kernels.matmul import launch_grid, matmul_kernel, reference as matmul_reference

    space = Space({"BLOCK_M": [32], "BLOCK_N": [32], "BLOCK_K": [16], "GROUP_M": [1], "num_warps": [4],
                   "wgmma": [False, True], "matmul2d": [False, True]})
    assert space.on(METAL.lacks).params["wgmma"] == [False] and space.on(METAL.lacks).params["matmul2d"] == [False, True]
    assert space.on(CUDA.lacks).params["wgmma"] == [False, True] and space.on(CUDA.lacks).params["matmul2d"] == [False]
    assert Space({"wgmma": [True]}).on(METAL.lacks).params == {"wgmma": [True]}  # the launch says why none runs
    listed = ConfigList([Config({"B": 1}, wgmma=True), Config({"B": 2})])
    assert listed.on(METAL.lacks).configs == [Config({"B": 2})] and listed.on(CUDA.lacks) is listed
    tuned = autotune(space=Space({**space.params, "matmul2d": [False]}), key=["M", "N", "K"], warmup=1, rep=2,
                     rtol=2e-3, atol=1e-2, reference=lambda a, b, c, *rest: matmul_reference(a, b, c.dtype))(
        matmul_kernel.fn)
    m, n, k = 40, 33, 50
    a, b = mx.random.normal((m, k)).astype(mx.float16), mx.random.normal((k, n)).astype(mx.float16)
    tuned.tune(launch_grid(m, n), a, b, empty((m, n), mx.float16), m, n, k, trials=2, sampler="grid", seed=0)
    trials = TuningDB(db_path).trials("matmul_kernel")
    assert [json.loads(t["config"]).get("wgmma", False) for t in trials] == [False], trials
    assert trials[0]["status"] == "ok"


def test_lookups_of_new_keys_reuse_the_open_database_until_the_file_changes(emu, db_path, monkeypatch):
    """A decode step meets a new key at every token: its lookup must not reopen the database (about
    1.5 ms), but a database replaced on disk (a shipped file, a repair) is opened again."""
    tuned = autotune(configs=CONFIGS[:2], key=["n"], reference=reference, warmup=1, rep=3)(Launchable("reader", emu))
    tuned.tune(standin.grid, *standin.args(n=1000), trials=2, sampler="grid")
    opened = []
    monkeypatch.setattr(tuner_module, "TuningDB", lambda *a, **k: opened.append(a) or TuningDB(*a, **k))
    for n in (1001, 1002, 1003):
        assert tuned.config_for(standin.grid, *standin.args(n=n))[1] == "bucket"
    assert len(opened) == 1
    copy = db_path.with_name("copy.sqlite")
    shutil.copy(db_path, copy)
    copy.replace(db_path)
    assert tuned.config_for(standin.grid, *standin.args(n=1004))[1] == "bucket" and len(opened) == 2


class _LastLaunch(Launchable):
    """The stand-in, remembering the meta of its last launch (which config a timing ran)."""

    def __getitem__(self, grid):
        inner = super().__getitem__(grid)

        def launch(*args, **meta):
            self.last = meta
            return inner(*args, **meta)
        return launch


def _scripted(fn, search: dict, confirm: dict, calls: list):
    """A median_time_ms whose times depend on the config a launch ran (`fn.last`): `search[BLOCK]` for the
    search's two trials, then `confirm[BLOCK]`, a list with one time per re-timing round."""
    def timing(launch, copies, **kw):
        launch(copies[0])
        block = fn.last["BLOCK"]
        phase = "search" if len(calls) < len(search) else "confirm"
        calls.append((phase, block))
        if phase == "search":
            return search[block]
        return confirm[block][sum(1 for p, b in calls if (p, b) == ("confirm", block)) - 1]
    return timing


@pytest.mark.parametrize("best_rounds,winner,stored", [
    ([1.3, 0.4, 1.2], 64, 1.0),   # the median 1.2: slower than the default's 1.0, although one round was faster
    ([0.7, 0.6, 2.0], 256, 0.7),  # the median 0.7: the search's best keeps the win
    ([1.0, 1.0, 1.0], 64, 1.0)])  # a tie keeps the default
def test_a_search_best_must_beat_the_default_again_in_alternation(emu, db_path, monkeypatch, best_rounds, winner,
                                                                  stored):
    """The search times the default (64) at 1.0 ms and the other config at 0.5 (the host's noise, say);
    timed again in alternation, CONFIRM_ROUNDS each, the other config keeps the win only where the median
    of its times is the lower one; the winner is stored with its median."""
    fn = _LastLaunch("confirm", emu)
    tuned = autotune(configs=CONFIGS[:2], key=["n"], reference=reference, warmup=1, rep=3)(fn)
    calls = []
    monkeypatch.setattr(tuner_module, "median_time_ms",
                        _scripted(fn, {64: 1.0, 256: 0.5}, {64: [1.0, 1.0, 1.0], 256: best_rounds}, calls))
    best = tuned.tune(standin.grid, *standin.args(), trials=2, sampler="grid")
    assert sorted(calls[:2]) == [("search", 64), ("search", 256)]
    assert calls[2:] == [("confirm", 256), ("confirm", 64)] * tuner_module.CONFIRM_ROUNDS
    (row,) = TuningDB(db_path).winners("confirm")
    assert best.kwargs["BLOCK"] == json.loads(row["config"])["kwargs"]["BLOCK"] == winner
    assert row["time_ms"] == stored


def test_no_confirmation_where_the_default_won_the_search(emu, db_path, monkeypatch):
    fn = _LastLaunch("unconfirmed", emu)
    tuned = autotune(configs=CONFIGS[:2], key=["n"], reference=reference, warmup=1, rep=3)(fn)
    calls = []
    monkeypatch.setattr(tuner_module, "median_time_ms", _scripted(fn, {64: 0.5, 256: 1.0}, {}, calls))
    assert tuned.tune(standin.grid, *standin.args(), trials=2, sampler="grid").kwargs["BLOCK"] == 64
    assert sorted(calls) == [("search", 64), ("search", 256)]  # the two trials, nothing after


def test_a_continued_study_confirms_against_the_default_it_did_not_measure(emu, db_path, monkeypatch):
    """A second tuning of the same key continues the study without measuring the default again: its
    best (an earlier trial) is still re-timed against the default, which is checked first."""
    fn = _LastLaunch("continued", emu)
    tuned = autotune(configs=CONFIGS[:2], key=["n"], reference=reference, warmup=1, rep=3)(fn)
    calls = []
    monkeypatch.setattr(tuner_module, "median_time_ms",
                        _scripted(fn, {64: 1.0, 256: 0.5}, {64: [1.0] * 9, 256: [2.0] * 9}, calls))
    assert tuned.tune(standin.grid, *standin.args(), trials=2, sampler="grid").kwargs["BLOCK"] == 64
    calls.clear()
    monkeypatch.setattr(tuner_module, "median_time_ms",
                        _scripted(fn, {256: 0.3}, {64: [1.0] * 9, 256: [2.0] * 9}, calls))
    assert tuned.tune(standin.grid, *standin.args(), trials=1, sampler="random", seed=3).kwargs["BLOCK"] == 64
    assert calls[-2 * tuner_module.CONFIRM_ROUNDS:] == [("confirm", 256), ("confirm", 64)] * tuner_module.CONFIRM_ROUNDS
    assert json.loads(TuningDB(db_path).winners("continued")[0]["config"])["kwargs"]["BLOCK"] == 64


def test_a_re_timing_that_fails_keeps_the_search_best(emu, db_path, monkeypatch):
    fn = _LastLaunch("retime_fails", emu)
    tuned = autotune(configs=CONFIGS[:2], key=["n"], reference=reference, warmup=1, rep=3)(fn)
    calls = []
    search = _scripted(fn, {64: 1.0, 256: 0.5}, {}, calls)

    def failing(launch, copies, **kw):
        if len(calls) >= 2:
            raise tuner_module.TrialTimeout("re-timing past the trial limit")
        return search(launch, copies, **kw)
    monkeypatch.setattr(tuner_module, "median_time_ms", failing)
    assert tuned.tune(standin.grid, *standin.args(), trials=2, sampler="grid").kwargs["BLOCK"] == 256
    assert TuningDB(db_path).winners("retime_fails")[0]["time_ms"] == 0.5


def test_a_config_whose_kernel_is_already_measured_is_not_timed_again(db_path, monkeypatch):
    """Without a `tl.dot`, `num_stages` 1 and 2 compile to the same kernel: one search times it once
    and records the second config with that measurement and why; a different kernel (another
    BLOCK) is timed, and the two configs of one kernel tie, the first one winning."""
    import metalforge as mf
    import metalforge.language as tl

    @mf.jit
    def doubled(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

    configs = [Config({"BLOCK": 64}, num_warps=2, num_stages=1), Config({"BLOCK": 64}, num_warps=2, num_stages=2),
               Config({"BLOCK": 128}, num_warps=2, num_stages=1)]
    tuned = autotune(configs=configs, key=["n"], reference=lambda x, out, n: x * 2, warmup=1, rep=3)(doubled)
    timed = []
    measure = tuner_module.Autotuner._measure
    monkeypatch.setattr(tuner_module.Autotuner, "_measure",
                        lambda self, grid, config, *rest: timed.append(config) or measure(self, grid, config, *rest))
    n = 1000
    tuned.tune(lambda meta: (mf.cdiv(n, meta["BLOCK"]),), mx.random.normal((n,)), mf.empty((n,)), n, trials=3,
               sampler="grid", seed=0)
    assert sorted(c.kwargs["BLOCK"] for c in timed) == [64, 128]  # one of the BLOCK 64 pair, and BLOCK 128
    first = next(c.num_stages for c in timed if c.kwargs["BLOCK"] == 64)
    trials = {(json.loads(t["config"])["kwargs"]["BLOCK"], json.loads(t["config"])["num_stages"]): t
              for t in TuningDB(db_path).trials("doubled")}
    twin = trials[(64, 3 - first)]
    assert twin["status"] == "ok" and twin["time_ms"] == trials[(64, first)]["time_ms"]
    assert "the same kernel as" in twin["reason"] and trials[(128, 1)]["reason"] == ""
