"""`metalforge autotune` and `metalforge db ...` end to end, in subprocesses, including bad input."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from metalforge.tuning_db import SCHEMA_VERSION, TuningDB

TARGET = str(Path(__file__).with_name("cli_kernels.py"))


def cli(*args: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "METALFORGE_DB"}
    return subprocess.run([sys.executable, "-m", "metalforge.cli", *args], capture_output=True, text=True,
                          timeout=120, env=environ)


def test_autotune_and_db_commands_end_to_end(emu, tmp_path):
    db = str(tmp_path / "t.sqlite")
    r = cli("autotune", TARGET, "--shapes", "300", "200", "--trials", "3", "--backend", "emulator", "--db", db,
            "--quiet")
    assert r.returncode == 0, r.stderr
    assert "double_plus_one  300" in r.stdout and "double_plus_one  200" in r.stdout
    assert "VARIANT=wrong" not in r.stdout and "BLOCK=" in r.stdout
    store = TuningDB(db)
    assert len(store.winners("double_plus_one")) == 2 and len(store.trials("double_plus_one")) == 6
    assert {t["status"] for t in store.trials()} == {"ok", "wrong"}

    r = cli("db", "list", "--db", db)
    assert r.returncode == 0 and r.stdout.count("double_plus_one") == 2, r.stderr
    r = cli("db", "show", "double_plus_one", "--db", db)
    assert r.returncode == 0 and "6 trials: 4 ok, 2 wrong" in r.stdout, r.stdout + r.stderr
    r = cli("db", "export", str(tmp_path / "e.json"), "--db", db)
    assert r.returncode == 0 and len(json.loads((tmp_path / "e.json").read_text())["trials"]) == 6
    r = cli("db", "merge", str(tmp_path / "e.json"), "--db", str(tmp_path / "m.sqlite"))
    assert r.returncode == 0 and "2 winners added" in r.stdout and "6 trials added" in r.stdout, r.stderr
    r = cli("db", "prune", "--stale", "--db", db)
    assert r.returncode == 0 and "removed 0 stale winners" in r.stdout
    r = subprocess.run([sys.executable, "-m", "metalforge.cli", "db", "path"], capture_output=True, text=True,
                       env={**os.environ, "METALFORGE_DB": "/somewhere/x.sqlite"})
    assert r.stdout.strip() == "/somewhere/x.sqlite"


@pytest.mark.parametrize("args, code, message", [
    (["autotune", TARGET + ":nope", "--shapes", "64"], 2, "unknown kernel 'nope'.*double_plus_one"),
    (["autotune", TARGET, "--shapes", "12xq"], 2, "malformed shape '12xq'"),
    (["autotune", "no.such.module"], 2, "cannot import module 'no.such.module'"),
    (["db", "show", "nope"], 2, "unknown kernel 'nope'"),
])
def test_bad_input_exits_with_a_clear_message(emu, tmp_path, args, code, message):
    import re

    TuningDB(tmp_path / "t.sqlite")
    r = cli(*args, "--db", str(tmp_path / "t.sqlite"))
    assert r.returncode == code and re.search(message, r.stderr), (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr


def test_plot_writes_a_png_per_study(emu, tmp_path):
    r = cli("autotune", TARGET, "--shapes", "300", "--trials", "3", "--backend", "emulator", "--quiet",
            "--db", str(tmp_path / "t.sqlite"), "--plot", str(tmp_path / "plots"))
    assert r.returncode == 0, r.stderr
    pngs = list((tmp_path / "plots").glob("*.png"))
    assert len(pngs) == 1 and pngs[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"plot: {pngs[0]}" in r.stdout


def test_plot_without_matplotlib_says_so(tmp_path):
    hide = "import sys; sys.modules['matplotlib'] = None; from metalforge.cli import main; sys.exit(main())"
    r = subprocess.run([sys.executable, "-c", hide, "autotune", TARGET, "--plot", "--db", str(tmp_path / "t.sqlite")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--plot needs matplotlib" in r.stderr


def test_unreadable_and_newer_databases_are_refused(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_text("this is not SQLite " * 10)
    r = cli("db", "list", "--db", str(junk))
    assert r.returncode == 1 and "cannot read tuning database" in r.stderr and "Traceback" not in r.stderr
    newer = TuningDB(tmp_path / "newer.sqlite")
    newer.db["mf_meta"].upsert({"key": "schema_version", "value": str(SCHEMA_VERSION + 1)}, pk="key")
    r = cli("db", "list", "--db", str(newer.path))
    assert r.returncode == 1 and "newer metalforge" in r.stderr
    r = cli("db", "list", "--db", str(tmp_path / "missing.sqlite"))
    assert r.returncode == 1 and "no tuning database at" in r.stderr
