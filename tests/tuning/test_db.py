"""The tuning database: lookup fallback, stale winners, merging, schema versions, concurrent writers."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from metalforge.autotune import Config, autotune
from metalforge.errors import TuningDatabaseError
from metalforge.tuning_db import SCHEMA_VERSION, DeviceIdentity, TuningDB, TuningKey, bucket

from . import standin
from .standin import Launchable, reference

M1 = DeviceIdentity("metal", "Apple M1", "applegpu_g13", "Darwin-24", "0.32.4")
M1_PRO = DeviceIdentity("metal", "Apple M1 Pro", "applegpu_g13", "Darwin-24", "0.32.4")
M4 = DeviceIdentity("metal", "Apple M4", "applegpu_g16", "Darwin-24", "0.32.4")


def key(device=M1, shape=(1000,), source="h1", dtypes=("float32",)) -> TuningKey:
    return TuningKey("k", source, "0.1", device, dtypes, shape)


def win(db: TuningDB, k: TuningKey, block: int, tuned_at: str | None = None) -> None:
    db.record_winner(k, config=Config({"BLOCK": block}).to_json(), time_ms=1.0, trials=1, study=k.study_name,
                     tuned_at=tuned_at)


def block(found) -> int | None:
    return json.loads(found.winner["config"])["kwargs"]["BLOCK"] if found.winner else None


def test_bucket_is_the_next_power_of_two():
    assert bucket((1, 3, 4, 1000, 1025)) == [1, 4, 4, 1024, 2048]


def test_lookup_falls_back_exact_then_bucket_then_family_then_default(tmp_path):
    db = TuningDB(tmp_path / "t.sqlite")
    win(db, key(shape=(1000,)), 1)
    win(db, key(shape=(4096,)), 2)
    win(db, key(shape=(100,)), 3)
    win(db, key(M1_PRO, shape=(64,)), 4)
    found = db.lookup(key(shape=(1000,)))
    assert (found.source, block(found)) == ("exact", 1)
    found = db.lookup(key(shape=(3000,)))       # bucket 4096: nearest is the 4096 winner, not the 1000 one
    assert (found.source, block(found)) == ("bucket", 2)
    found = db.lookup(key(shape=(200,)))        # bucket 256: 128 (from 100) is nearer than 1024
    assert (found.source, block(found)) == ("bucket", 3)
    found = db.lookup(key(M1_PRO, shape=(5000,)))  # the M1 Pro's only winner, although the M1 has nearer ones
    assert (found.source, block(found)) == ("bucket", 4)
    other_chip = DeviceIdentity("metal", "Apple M1 Max", "applegpu_g13", "Darwin-24", "0.32.4")
    found = db.lookup(key(other_chip, shape=(60,)))  # same family: nearest bucket among M1 and M1 Pro
    assert (found.source, block(found)) == ("family", 4)
    assert db.lookup(key(M4)).source == "default"
    assert db.lookup(key(dtypes=("float16",))).source == "default"
    assert db.lookup(key(shape=(1000, 8))).source == "default"   # another rank never matches
    newer_mlx = DeviceIdentity("metal", "Apple M1", "applegpu_g13", "Darwin-24", "0.33.0")
    found = db.lookup(key(newer_mlx))  # versions are part of the exact key; the same chip's shape is nearest
    assert (found.source, block(found)) == ("bucket", 1)


def test_changed_source_makes_winners_stale(emu, db_path):
    configs = [Config({"BLOCK": 64}, num_warps=1), Config({"BLOCK": 128}, num_warps=2)]
    old = autotune(configs=configs, key=["n"], reference=reference, warmup=1, rep=3, default=configs[1])(
        Launchable("evolving", emu, version="1"))
    old.tune(standin.grid, *standin.args(), trials=2)
    assert old.config_for(standin.grid, *standin.args())[1] == "exact"
    new = autotune(configs=configs, key=["n"], reference=reference, default=configs[1])(
        Launchable("evolving", emu, version="2"))
    with pytest.warns(UserWarning, match="older version of its source"):
        assert new.config_for(standin.grid, *standin.args()) == (configs[1], "stale")
    db = TuningDB(db_path)
    current = {"evolving": (new.fn.source_hash, new.codegen_version)}
    assert [w["source_hash"] for w in db.stale_winners(current)] == [old.fn.source_hash]
    assert len(db.prune_stale(current)) == 1 and db.winners("evolving") == []


def test_export_and_merge_round_trip_newest_wins(tmp_path):
    a, b = TuningDB(tmp_path / "a.sqlite"), TuningDB(tmp_path / "b.sqlite")
    for db, blk, when in ((a, 1, "2026-01-01"), (b, 2, "2026-02-01")):
        win(db, key(shape=(1000,)), blk, when)
        db.record_trial(key(shape=(1000,)), study="s", trial_number=0, config={"kwargs": {"BLOCK": blk}},
                        status="ok", time_ms=1.0)
    win(a, key(shape=(64,)), 7, "2026-03-01")
    win(b, key(shape=(64,)), 8, "2026-01-01")
    win(b, key(M4), 9)
    a.export(tmp_path / "a.json")
    fresh = TuningDB(tmp_path / "fresh.sqlite")
    report = fresh.merge(tmp_path / "a.json")
    assert (report.winners_added, report.trials_added, report.conflicts) == (2, 1, [])
    assert fresh.winners() == a.winners() and fresh.trials() == a.trials()
    report = a.merge(tmp_path / "b.sqlite")  # a database file merges as well as an export
    assert (report.winners_added, report.winners_updated, report.winners_kept, report.trials_added) == (1, 1, 1, 1)
    assert sorted((c["shape_key"], c["kept"]) for c in report.conflicts) == [("[1000]", "theirs"), ("[64]", "ours")]
    assert block(a.lookup(key(shape=(1000,)))) == 2 and block(a.lookup(key(shape=(64,)))) == 7
    assert block(a.lookup(key(M4))) == 9
    assert a.merge(tmp_path / "b.sqlite").trials_added == 0  # merging twice adds nothing


def test_newer_schema_and_foreign_files_are_refused(tmp_path):
    path = tmp_path / "t.sqlite"
    db = TuningDB(path)
    db.db["mf_meta"].upsert({"key": "schema_version", "value": str(SCHEMA_VERSION + 1)}, pk="key")
    for create in (True, False):
        with pytest.raises(TuningDatabaseError, match=f"schema version {SCHEMA_VERSION + 1}.*newer metalforge"):
            TuningDB(path, create=create)
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database at all, but long enough to have a header")
    with pytest.raises(TuningDatabaseError, match="cannot read tuning database"):
        TuningDB(junk)
    with pytest.raises(TuningDatabaseError, match="neither a tuning database nor a JSON export"):
        TuningDB(tmp_path / "ok.sqlite").merge(junk)


_WRITER = textwrap.dedent("""
    import sys
    from metalforge.autotune import Config, autotune
    from metalforge.runtime.emulator import EmulatorBackend
    from metalforge.tests.tuning import standin
    configs = [Config({"BLOCK": b}, num_warps=w) for b in (32, 64, 128, 256) for w in (1, 2)]
    tuned = autotune(configs=configs, key=["n"], warmup=0.1, rep=0.1, db=sys.argv[1])(
        standin.Launchable("shared", EmulatorBackend(workers=1)))
    tuned.tune(standin.grid, *standin.args(), trials=8, sampler="random", seed=int(sys.argv[2]))
""")


def test_two_processes_tuning_one_file_lose_no_row(emu, tmp_path):
    path = tmp_path / "shared.sqlite"
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(seed)], stderr=subprocess.PIPE,
                              text=True) for seed in (1, 2)]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read()
    db = TuningDB(path)
    (study,) = db.db.query("select count(*) as n from trials")  # Optuna's own trials of the one shared study
    # each process measures 8 configs, drawing (with repeats, which do not count) up to 16 times
    assert 16 <= len(db.trials("shared")) == study["n"] <= 32
    assert len(db.winners("shared")) == 1
