"""Objectives, Pareto fronts and run-time policies: front extraction against a brute-force reference,
each policy's choice, multi-objective tuning that stores every figure and the front (a meter of known
energy), the process policy (API and environment), a schema-1 database migrated, and the CLI's
`--objective` and `db show --plot` end to end on the emulator."""
from __future__ import annotations

import json
import sqlite3
import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
from metalforge import cli, env
from metalforge.autotune import Autotuner, Config, autotune
from metalforge.autotune.objectives import objective_value, parse_objectives
from metalforge.runtime import meters
from metalforge.tests.tuning.cli_kernels import tune_args
from metalforge.tests.tuning.standin import Launchable, reference
from metalforge.tuning_db import TuningDB
from metalforge.tuning_db.front import Policy, choose, pareto_front, parse_policy
from metalforge.tuning_db.rows import row_problem
from metalforge.tuning_db.store import WINNER_COLUMNS

from ..tuning.test_cli import TARGET
from .fakes import FakeMeter

JOULES = {(64, 1): 2e-3, (128, 2): 1e-3, (256, 4): 4e-3}  # what the fake meter charges per launch of a config


@pytest.fixture
def charged(monkeypatch):
    """A fake meter charging JOULES per launch of each config (counted in Autotuner._launch), as the
    back end's meter."""
    meter = FakeMeter(idle_w=25.0, joules=JOULES, window_s=0.01)
    launch = Autotuner._launch

    def counted(self, grid, args, config, meta=None):
        meter.charge((config.kwargs["BLOCK"], config.num_warps))
        return launch(self, grid, args, config, meta)
    monkeypatch.setattr(Autotuner, "_launch", counted)
    monkeypatch.setattr(meters, "meter_for", lambda backend: meter)
    yield meter
    mf.set_tuning_policy(None)


def brute_front(points, keys):
    """Indices of the points no other point dominates, by comparing every pair (numpy)."""
    values = np.array([[p[k] for k in keys] for p in points])
    keep = []
    for i, v in enumerate(values):
        dominated = np.any(np.all(values <= v, axis=1) & np.any(values < v, axis=1))
        if not dominated and not any(np.array_equal(values[j], v) for j in keep):
            keep.append(i)
    return sorted(tuple(values[i]) for i in keep)


@pytest.mark.parametrize("keys", [("time_ms", "energy_j"), ("time_ms", "energy_j", "contended_ms")])
def test_pareto_front_against_brute_force(rng, keys):
    # Small integers make ties and duplicates likely: the front keeps one of equal points.
    points = [{"config": {"kwargs": {"B": i}}, **{k: float(rng.integers(1, 8)) for k in keys}} for i in range(40)]
    front = pareto_front(points, keys)
    assert sorted(tuple(p[k] for k in keys) for p in front) == brute_front(points, keys)
    assert pareto_front(points + [{"config": {}, "time_ms": 0.0}], keys) == front  # unmeasured points left out


def test_each_policy_picks_from_the_front():
    def point(block, ms, joules, contended):
        return {"config": {"kwargs": {"B": block}, "num_warps": 4, "num_stages": 1}, "time_ms": ms,
                "energy_j": joules, "contended_ms": contended}
    front = [point(1, 1.0, 10.0, 3.0), point(2, 1.2, 5.3, 1.5), point(3, 1.5, 5.0, 2.0)]
    winner = {"config": json.dumps(front[0]["config"], sort_keys=True), "front": json.dumps(front)}
    picked = {str(p): json.loads(choose(winner, p)[0])["kwargs"]["B"]
              for p in map(parse_policy, ["tuned", "fastest", "efficient", "within:10", "within:5", "robust"])}
    # within 10% of 5.0 J: 1.2 ms at 5.3 J is the fastest; within 5% (5.25 J) only 5.0 J is
    assert picked == {"tuned": 1, "fastest": 1, "efficient": 3, "within:10": 2, "within:5": 3, "robust": 2}
    timed_only = {"config": winner["config"], "front": None}
    assert choose(timed_only, Policy("efficient")) == (winner["config"], False)  # nothing to choose from
    assert choose(timed_only, Policy("tuned")) == (winner["config"], True)


@pytest.mark.parametrize("text", ["fast", "within:x", "within:-3", "efficient:2", ""])
def test_bad_policies_and_objectives_are_refused(text, monkeypatch):
    with pytest.raises(ValueError, match="unknown tuning policy"):
        parse_policy(text)
    monkeypatch.setenv("METALFORGE_POLICY", text or "nope")
    with pytest.raises(env.EnvironmentVariableError, match="METALFORGE_POLICY"):
        mf.set_tuning_policy(None)  # back to the environment, which is read at once
    monkeypatch.delenv("METALFORGE_POLICY")
    assert str(mf.set_tuning_policy(None)) == "tuned"
    with pytest.raises(ValueError, match="unknown tuning objective 'speed'"):
        parse_objectives("time,speed")
    assert parse_objectives("energy, time,energy") == ("energy", "time")
    assert objective_value("edp", {"time_ms": 2.0, "energy_j": 3.0}) == pytest.approx(6e-3)


def test_multi_objective_tuning_stores_every_figure_and_the_front(emu, db_path, charged):
    tuner = autotune(configs=[Config({"BLOCK": b}, num_warps=w) for b, w in JOULES], key=["n"], reference=reference,
                     warmup=1, rep=3, objective=("time", "energy"), energy_repeats=3)(Launchable("mo_kernel"))
    grid, args = tune_args((300,), mx.float32)
    tuner.tune(grid, *args, trials=3)
    db = TuningDB(db_path)
    trials = db.trials("mo_kernel")
    assert len(trials) == 3 and all(t["study"].endswith("|time+energy") for t in trials)
    for t in trials:  # the fake meter's charge, exactly, once 25 W of idle power is subtracted
        config = json.loads(t["config"])
        assert t["energy_j"] == pytest.approx(JOULES[config["kwargs"]["BLOCK"], config["num_warps"]], rel=1e-6)
        assert t["energy_spread"] < 1e-6 and t["idle_w"] == pytest.approx(25.0) and t["time_ms"] > 0
    (winner,) = db.winners("mo_kernel")
    points = [{"config": json.loads(t["config"]), "time_ms": t["time_ms"], "energy_j": t["energy_j"]} for t in trials]
    front = json.loads(winner["front"])
    assert sorted((p["time_ms"], p["energy_j"]) for p in front) == brute_front(points, ("time_ms", "energy_j"))
    assert winner["time_ms"] == min(p["time_ms"] for p in front)  # several objectives: the fastest wins
    assert row_problem(winner, WINNER_COLUMNS, "tuned_at") is None

    def chosen(policy):
        mf.set_tuning_policy(policy)
        config, source = tuner.config_for(grid, *args)
        return (config.kwargs["BLOCK"], config.num_warps), source
    assert chosen("efficient") == ((128, 2), "exact")
    fastest = min(front, key=lambda p: p["time_ms"])["config"]
    assert chosen("fastest")[0] == (fastest["kwargs"]["BLOCK"], fastest["num_warps"])
    with pytest.warns(UserWarning, match="policy robust needs figures"):
        assert chosen("robust")[0] == chosen("fastest")[0]  # no contention measured: the winner


def test_energy_objective_without_a_meter_is_refused_before_tuning(emu, db_path):
    tuner = autotune(configs=[Config({"BLOCK": 64}, num_warps=1)], key=["n"], objective="energy")(Launchable("nometer"))
    grid, args = tune_args((300,), mx.float32)
    with pytest.raises(meters.MeterUnavailableError, match="kernel `nometer`: objective energy.*no power meter"):
        tuner.tune(grid, *args, trials=1)
    assert not TuningDB(db_path).trials("nometer")


def test_tune_closes_the_meter_it_opens_and_only_that(emu, db_path, charged, monkeypatch):
    """The back end's meter (an NVML handle, a powermetrics process) is opened by `tune` and closed
    when it ends, refused or not; a meter the caller passes stays open for the caller."""
    closed = []
    monkeypatch.setattr(charged, "close", lambda: closed.append(1), raising=False)
    tuner = autotune(configs=[Config({"BLOCK": 64}, num_warps=1)], key=["n"], reference=reference, warmup=1, rep=3,
                     objective="energy", energy_repeats=2)(Launchable("closing_kernel"))
    grid, args = tune_args((300,), mx.float32)
    tuner.tune(grid, *args, trials=1)
    assert closed == [1]
    tuner.tune(grid, *args, trials=1, meter=charged)  # the caller's meter
    assert closed == [1]
    monkeypatch.setattr(charged, "reason", "unplugged", raising=False)
    monkeypatch.setattr(type(charged), "available", property(lambda self: not hasattr(self, "reason")))
    with pytest.raises(meters.MeterUnavailableError, match="unplugged"):
        tuner.tune(grid, *args, trials=1)
    assert closed == [1, 1]


@pytest.mark.serial  # a load taking a CPU share (pyproject's markers)
def test_contended_objective_times_beside_the_load(emu, db_path):
    tuner = autotune(configs=[Config({"BLOCK": 64}, num_warps=1), Config({"BLOCK": 128}, num_warps=2)], key=["n"],
                     reference=reference, warmup=1, rep=3, objective="contended",
                     contention_share=0.5)(Launchable("contended_kernel"))
    grid, args = tune_args((300,), mx.float32)
    tuner.tune(grid, *args, trials=2)
    trials = TuningDB(db_path).trials("contended_kernel")
    assert len(trials) == 2 and all(t["contended_ms"] > 0 and t["inflicted_slowdown"] > 0 for t in trials)
    (winner,) = TuningDB(db_path).winners("contended_kernel")
    best = min(trials, key=lambda t: t["contended_ms"])
    assert winner["config"] == best["config"]  # the objective's best, not the fastest alone


SCHEMA_1_TRIALS = ("uid text primary key, kernel text, source_hash text, codegen_version text, backend text, "
                   "chip text, "
                   "gpu_family text, os text, mlx_version text, dtypes text, shape_key text, bucket text, study text, "
                   "trial_number integer, config text, status text, reason text, time_ms float, max_error float, "
                   "created_at text")
SCHEMA_1_WINNERS = ("kernel text, source_hash text, codegen_version text, backend text, chip text, gpu_family text, "
                    "os text, mlx_version text, dtypes text, shape_key text, bucket text, config text, time_ms float, "
                    "trials integer, study text, tuned_at text, primary key (kernel, source_hash, codegen_version, "
                    "backend, chip, os, mlx_version, dtypes, shape_key)")


def test_a_schema_1_file_is_migrated_in_place_and_still_read(tmp_path):
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(f"create table mf_trials ({SCHEMA_1_TRIALS})")
    conn.execute(f"create table mf_winners ({SCHEMA_1_WINNERS})")
    conn.execute("create table mf_meta (key text primary key, value text)")
    conn.execute("insert into mf_meta values ('schema_version', '1')")
    key = ["k", "h", "9", "emulator", "cpu", "x86_64", "Linux", "0.32", '["float32"]', "[300]", "[512]"]
    config = '{"kwargs": {"BLOCK": 64}, "num_stages": 1, "num_warps": 1}'
    conn.execute("insert into mf_winners values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                 key + [config, 0.5, 3, "study", "2026-12-01T00:00:00+00:00"])
    conn.execute("insert into mf_trials values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                 ["u1"] + key + ["study", 0, config, "ok", "", 0.5, 0.0, "2026-12-01T00:00:00+00:00"])
    conn.commit()
    conn.close()
    # Read as it is (a shipped file is never written): the rows lack the new columns and are valid.
    old = TuningDB(path, create=False)
    assert old.schema_version() == 1 and old.check().ok
    export = tmp_path / "old.json"
    old.export(export)
    merged = TuningDB(tmp_path / "new.sqlite")
    report = merged.merge(export)
    assert report.winners_added == 1 and report.trials_added == 1 and merged.winners()[0]["front"] is None
    # Opened to write: migrated in place, old rows kept with null figures, new rows take them.
    db = TuningDB(path)
    assert db.schema_version() == 2 and db.check().ok
    assert {"energy_j", "contended_ms", "inflicted_slowdown"} <= set(db.db["mf_trials"].columns_dict)
    (trial,) = db.trials()
    assert trial["time_ms"] == 0.5 and trial["energy_j"] is None and db.winners()[0]["config"] == config


@pytest.mark.parametrize("front, problem", [
    ("[1, 2]", "front point 0 is not an object"),
    ('[{"config": {"kwargs": {}}, "energy_j": -1}]', "energy_j=-1 is not a finite non-negative number"),
    ('[{"config": {"kwargs": {}, "num_warps": 3}}]', "num_warps=3"),
    ("{", "is not a JSON list"),
])
def test_malformed_fronts_are_refused(front, problem):
    row = {c: "x" for c in WINNER_COLUMNS}
    row.update(dtypes="[]", shape_key="[]", bucket="[]", config='{"kwargs": {}}', time_ms=1.0, trials=1,
               tuned_at="2026-12-01T00:00:00", front=front)
    assert problem in row_problem(row, WINNER_COLUMNS, "tuned_at")


def test_cli_objective_and_db_show_end_to_end(emu, tmp_path, monkeypatch, capsys, charged):
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")
    db = str(tmp_path / "t.sqlite")
    code = cli.main(["autotune", TARGET, "--shapes", "300", "--trials", "3", "--db", db, "--quiet", "--objective",
                     "energy", "time", "--plot", str(tmp_path / "plots")])
    out = capsys.readouterr().out
    assert code == 0, out
    # several objectives: the winner is the fastest of the front, shown with its joules per call
    (winner,) = TuningDB(db).winners("double_plus_one")
    fastest = min(json.loads(winner["front"]), key=lambda p: p["time_ms"])
    block, warps = fastest["config"]["kwargs"]["BLOCK"], fastest["config"]["num_warps"]
    assert "J/call" in out and f"{JOULES[block, warps]:.4g}   BLOCK={block} num_warps={warps}" in out
    assert len(list((tmp_path / "plots").glob("*-front.png"))) == 1
    code = cli.main(["db", "show", "double_plus_one", "--db", db, "--plot", str(tmp_path / "shown")])
    out = capsys.readouterr().out
    assert code == 0 and "Pareto front of double_plus_one 300 float32" in out and "(energy+time)" in out
    assert "efficient" in out and "within:10" in out and "tuned" in out
    png = next((tmp_path / "shown").glob("*-front.png"))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"plot: {png}" in out
    with pytest.raises(SystemExit) as exit_:
        cli.main(["autotune", TARGET, "--objective", "speed"])
    assert exit_.value.code == 2 and "invalid choice: 'speed'" in capsys.readouterr().err
