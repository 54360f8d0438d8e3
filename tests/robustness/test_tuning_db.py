"""The tuning database refuses bad data and heals (issue #19): a bad `db import` overwrote a good
winner, a config that is not JSON broke `db list` and every launch, a corrupted page made launches
raise sqlite3.DatabaseError, and changing a @jit helper kept configs tuned for the old code."""
from __future__ import annotations

import copy
import datetime
import importlib.util
import json
import sqlite3
import warnings

import mlx.core as mx
import pytest

from metalforge.autotune import Config, autotune
from metalforge.errors import TuningDatabaseError
from metalforge.tuning_db import DeviceIdentity, TuningDB, TuningKey

from ..tuning.standin import Launchable, reference

M1 = DeviceIdentity("metal", "Apple M1", "applegpu_g13", "Darwin-24", "0.32.4")
KEY = TuningKey("k", "h1", "0.1", M1, ("float32",), (1000,))


def dump(path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [line for line in conn.iterdump() if "mf_" in line]
    finally:
        conn.close()


def good_database(path) -> TuningDB:
    db = TuningDB(path)
    db.record_winner(KEY, config=Config({"BLOCK": 256}).to_json(), time_ms=1.0, trials=3, study="s")
    db.record_trial(KEY, study="s", trial_number=0, config=Config({"BLOCK": 256}).to_json(), status="ok", time_ms=1.0)
    return db


def spoil(export: dict, table: str, column: str, value, _message: str) -> dict:
    bad = copy.deepcopy(export)
    if value is KeyError:
        del bad[table][0][column]
    else:
        bad[table][0][column] = value
    return bad


# case: (table, column, bad value, what the one-line error says)
BAD_IMPORTS = {
    "config not JSON": ("winners", "config", "{BLOCK: 1024", "config is not JSON"),
    "config with an unknown setting": ("winners", "config", json.dumps({"kwargs": {"BLOCK": 8}, "num_wraps": 4}),
                                       "unknown settings ['num_wraps']"),
    "num_warps not a power of two": ("winners", "config", json.dumps({"kwargs": {}, "num_warps": 3}),
                                     "num_warps=3 is not a power of two"),
    "tuned_at '9999'": ("winners", "tuned_at", "9999", "tuned_at='9999' is not an ISO timestamp"),
    "tuned_at in the future": ("winners", "tuned_at", "2999-01-01T00:00:00+00:00", "is in the future"),
    "time_ms not a number": ("winners", "time_ms", "fast", "time_ms='fast' is not a number"),
    "a column missing": ("winners", "shape_key", KeyError, "lacks shape_key"),
    "trial with an unknown status": ("trials", "status", "great", "status='great' is not one of"),
    "trial config not JSON": ("trials", "config", "[[", "trial 1 of 1 (kernel 'k'): config is not JSON"),
}


@pytest.mark.parametrize("case", list(BAD_IMPORTS))
def test_bad_import_is_rejected_in_one_line_and_changes_nothing(tmp_path, case):
    db = good_database(tmp_path / "ours.sqlite")
    export = db.export(tmp_path / "export.json")
    # Their winner for our key has another config and is newer: without validation it would replace ours.
    export["winners"][0]["config"] = json.dumps(Config({"BLOCK": 1024}).to_json(), sort_keys=True)
    export["winners"][0]["tuned_at"] = (datetime.datetime.now(datetime.timezone.utc)
                                        + datetime.timedelta(minutes=1)).isoformat()
    bad = spoil(export, *BAD_IMPORTS[case])
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    before = dump(db.path)
    with pytest.raises(TuningDatabaseError) as info:
        db.merge(tmp_path / "bad.json")
    message = str(info.value)
    assert "\n" not in message and "nothing was imported" in message and "bad.json" in message, message
    assert BAD_IMPORTS[case][3] in message, message
    assert dump(db.path) == before


def test_winner_from_the_future_never_replaces_ours(tmp_path):
    db = good_database(tmp_path / "ours.sqlite")
    export = db.export(tmp_path / "export.json")
    export["winners"][0]["tuned_at"] = "9999-12-31T00:00:00+00:00"
    export["winners"][0]["config"] = json.dumps(Config({"BLOCK": 1024}).to_json(), sort_keys=True)
    (tmp_path / "future.json").write_text(json.dumps(export))
    with pytest.raises(TuningDatabaseError, match="in the future"):
        db.merge(tmp_path / "future.json")
    assert json.loads(db.winners()[0]["config"])["kwargs"] == {"BLOCK": 256}


def test_a_malformed_winner_of_ours_is_replaced_by_a_valid_one(tmp_path):
    db = good_database(tmp_path / "ours.sqlite")
    export = db.export(tmp_path / "export.json")
    db.db.execute("update mf_winners set config = 'not json', tuned_at = '9999'")
    db.db.conn.commit()
    report = db.merge(tmp_path / "export.json")
    assert report.winners_updated == 1 and db.check().ok
    assert json.loads(db.winners()[0]["config"])["kwargs"] == {"BLOCK": 256}


def test_check_finds_and_repair_deletes_malformed_rows(tmp_path):
    db = good_database(tmp_path / "ours.sqlite")
    db.record_winner(TuningKey("k", "h1", "0.1", M1, ("float32",), (2000,)), config={"kwargs": {}}, time_ms=2.0,
                     trials=1, study="s")
    db.db.execute("update mf_winners set config = '{oops' where shape_key = '[2000]'")
    db.db.conn.commit()
    report = db.check()
    assert report.bad_rows and report.bad_rows[0][0] == "mf_winners" and "not JSON" in report.bad_rows[0][2]
    assert db.repair() == (1, False)
    assert db.check().ok and len(db.winners()) == 1


def corrupt_pages(path) -> None:
    """Overwrite everything after the first page (the schema stays readable, the rows do not)."""
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xa5" * (len(data) - 4096)
    path.write_bytes(bytes(data))


def truncate(path) -> None:
    path.write_bytes(path.read_bytes()[: 4096 + 100])


@pytest.fixture
def tuned(tmp_path):
    """An autotuned stand-in kernel with a winner (BLOCK 128) stored in its own database file."""
    tuner = autotune(configs=[Config({"BLOCK": 64}, num_warps=1), Config({"BLOCK": 128}, num_warps=2)], key=["n"],
                     reference=reference, db=tmp_path / "t.sqlite")(Launchable("robust_db"))
    args = (mx.zeros((300,)), None, 300)
    db = TuningDB(tuner.db_path)
    for n in (300, 5000):  # rows on several pages
        db.record_winner(tuner.tuning_key((mx.zeros((n,)), None, n)), config=Config({"BLOCK": 128}, num_warps=2).to_json(),
                         time_ms=1.0, trials=2, study="s")
    for i in range(400):
        db.record_trial(tuner.tuning_key(args), study="s", trial_number=i, config={"kwargs": {"BLOCK": 64}},
                        status="ok", reason="x" * 200, time_ms=1.0)
    db.db.conn.execute("pragma wal_checkpoint(truncate)")
    db.db.conn.close()
    return tuner


@pytest.mark.parametrize("damage", [corrupt_pages, truncate])
def test_damaged_database_at_run_time_warns_once_and_runs_the_default(tuned, damage):
    damage(tuned.db_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in (300, 5000, 7000):
            config, source = tuned.config_for(None, mx.zeros((n,)), None, n)
            assert source == "default" and config == tuned.default_config((None, None, n))
    messages = [str(w.message) for w in caught if "cannot be read" in str(w.message)]
    assert len(messages) == 1 and "db repair" in messages[0], [str(w.message) for w in caught]


def test_repair_rebuilds_a_damaged_file_from_its_readable_rows(tuned):
    corrupt_pages(tuned.db_path)
    db = TuningDB.open_damaged(tuned.db_path)
    assert not db.check().ok
    lost, rebuilt = db.repair()
    assert rebuilt and lost >= 0
    assert TuningDB(tuned.db_path, create=False).check().ok
    assert list(tuned.db_path.parent.glob("t.sqlite.damaged-*"))


HELPER_MODULE = '''
import metalforge as mf
import metalforge.language as tl

SCALE = tl.constexpr({scale})


@mf.jit
def helper(x):
    return x * {factor}


@mf.jit
def middle(x):
    return helper(x) + 1


@mf.jit
def kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, middle(tl.load(x_ptr + offs)) * SCALE)
'''


def load_kernel(tmp_path, name: str, **values):
    path = tmp_path / f"{name}.py"
    path.write_text(HELPER_MODULE.format(**values))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


def test_source_hash_covers_helpers_called_transitively_and_constexpr_globals(tmp_path):
    base = load_kernel(tmp_path, "v1", scale=2, factor=3).source_hash
    assert load_kernel(tmp_path, "v2", scale=2, factor=3).source_hash == base
    assert load_kernel(tmp_path, "v3", scale=2, factor=4).source_hash != base  # a helper's helper changed
    assert load_kernel(tmp_path, "v4", scale=5, factor=3).source_hash != base  # a constexpr global changed


def test_a_valid_newer_import_does_replace_our_winner(tmp_path):
    """The bad-import cases above differ from this one only in their malformed field."""
    db = good_database(tmp_path / "ours.sqlite")
    export = db.export(tmp_path / "export.json")
    export["winners"][0]["config"] = json.dumps(Config({"BLOCK": 1024}).to_json(), sort_keys=True)
    export["winners"][0]["tuned_at"] = (datetime.datetime.now(datetime.timezone.utc)
                                        + datetime.timedelta(minutes=1)).isoformat()
    (tmp_path / "good.json").write_text(json.dumps(export))
    assert db.merge(tmp_path / "good.json").winners_updated == 1
    assert json.loads(db.winners()[0]["config"])["kwargs"] == {"BLOCK": 1024}


def test_cli_check_and_repair(tuned, capsys):
    from metalforge import cli

    corrupt_pages(tuned.db_path)
    assert cli.main(["db", "check", "--db", str(tuned.db_path)]) == 1
    assert cli.main(["db", "repair", "--db", str(tuned.db_path)]) == 0
    assert cli.main(["db", "check", "--db", str(tuned.db_path)]) == 0
    assert "rebuilt" in capsys.readouterr().out
