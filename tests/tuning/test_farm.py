"""The tuning farm on a real PostgreSQL server: workers sharing one study, a worker killed mid-trial,
`db pull`/`db push`, and merging per-chip databases into one to ship."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest

from metalforge.tuning_db import DeviceIdentity, TuningDB, TuningKey

TARGET = str(Path(__file__).with_name("farm_kernels.py"))


def worker(db: Path, *extra: str, env: dict | None = None) -> subprocess.Popen:
    environ = {k: v for k, v in os.environ.items() if k != "METALFORGE_DB"}
    return subprocess.Popen([sys.executable, "-m", "metalforge.cli", "autotune", TARGET, "--backend", "emulator",
                             "--trials", "8", "--quiet", "--db", str(db), *extra], env={**environ, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p: subprocess.Popen) -> None:
    out, err = p.communicate(timeout=240)
    assert p.returncode == 0, out + err


def winner_config(db: Path) -> dict:
    (w,) = TuningDB(db).winners("farm")
    return json.loads(w["config"])


def test_four_workers_share_one_study_and_a_killed_workers_trial_is_retried(emu, tmp_path, postgres_url):
    finish(worker(tmp_path / "single.sqlite"))  # the reference: one process, every config (grid search)
    shared = ["--storage", postgres_url, "--heartbeat", "1"]
    stall = tmp_path / "stalled"
    doomed = worker(tmp_path / "doomed.sqlite", *shared, env={"FARM_STALL_FILE": str(stall)})
    deadline = time.monotonic() + 120
    while not stall.exists():  # it is inside its first trial, heartbeats running
        assert doomed.poll() is None and time.monotonic() < deadline, doomed.communicate()
        time.sleep(0.1)
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait()
    time.sleep(2.5)  # past the grace period (2 heartbeats): the next worker to start a trial fails it
    joined = tmp_path / "joined"
    joined.mkdir()
    workers = [worker(tmp_path / f"w{i}.sqlite", *shared, env={"FARM_JOIN_DIR": str(joined)}) for i in range(4)]
    for p in workers:
        finish(p)

    (study,) = optuna.get_all_study_summaries(postgres_url)
    trials = optuna.load_study(study_name=study.study_name, storage=postgres_url).get_trials(deepcopy=False)
    killed = [t for t in trials if t.state == optuna.trial.TrialState.FAIL]
    assert len(killed) == 1 and not any(t.state.name in ("RUNNING", "WAITING") for t in trials)
    (retry,) = [t for t in trials if t.system_attrs.get("failed_trial") == killed[0].number]
    assert retry.state.is_finished() and retry.params == killed[0].params and "status" in retry.user_attrs
    finished = [t for t in trials if t.state != optuna.trial.TrialState.FAIL]
    # every config was tried, and the statuses are the single process's
    single = {t["config"]: t["status"] for t in TuningDB(tmp_path / "single.sqlite").trials("farm")}
    farm = {json.dumps(t.user_attrs["config"], sort_keys=True): t.user_attrs["status"] for t in finished}
    assert farm == single
    # every finished trial is in exactly one worker's local file, nothing else is
    local = [t["trial_number"] for i in range(4) for t in TuningDB(tmp_path / f"w{i}.sqlite").trials("farm")]
    assert sorted(local) == sorted(t.number for t in finished)
    # shared out: two workers at least ran a trial (each one's first waited for a second to join)
    assert sum(bool(TuningDB(tmp_path / f"w{i}.sqlite").trials("farm")) for i in range(4)) >= 2
    best = winner_config(tmp_path / "single.sqlite")
    assert all(winner_config(tmp_path / f"w{i}.sqlite") == best for i in range(4))

    # the winner is in the shared store: pull it into a new file; push a file's winner back
    r = subprocess.run([sys.executable, "-m", "metalforge.cli", "db", "pull", "--storage", postgres_url, "--db",
                        str(tmp_path / "pulled.sqlite")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "1 winners added" in r.stdout, r.stdout + r.stderr
    assert winner_config(tmp_path / "pulled.sqlite") == best


def test_push_then_pull_round_trips_and_bad_urls_are_one_line_errors(tmp_path, postgres_url):
    a = TuningDB(tmp_path / "a.sqlite")
    for chip, ms in (("M1", 2.0), ("M4", 1.0)):
        key = TuningKey("k", "h1", "9", DeviceIdentity("metal", chip, "g", "Darwin-24", "0.32"), ("float32",), (64,))
        a.record_winner(key, config={"kwargs": {"BLOCK": 64}}, time_ms=ms, trials=3, study=key.study_name)

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "metalforge.cli", "db", *args], capture_output=True, text=True,
                              timeout=120)

    r = cli("push", "--storage", postgres_url, "--db", str(a.path))
    assert r.returncode == 0 and "2 of 2 winners stored" in r.stdout, r.stdout + r.stderr
    assert "0 of 2 winners stored" in cli("push", "--storage", postgres_url, "--db", str(a.path)).stdout
    r = cli("pull", "--storage", postgres_url, "--db", str(tmp_path / "b.sqlite"))
    assert r.returncode == 0 and TuningDB(tmp_path / "b.sqlite").winners() == a.winners(), r.stdout + r.stderr
    for url in ("postgresql+psycopg2://mf@127.0.0.1:1/nothing", "nosuchdialect://x"):
        r = cli("pull", "--storage", url, "--db", str(tmp_path / "c.sqlite"))
        assert r.returncode == 1 and r.stderr.startswith("metalforge: error: cannot open the shared tuning store")
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def chip(name: str) -> DeviceIdentity:
    return DeviceIdentity("metal", name, "applegpu_g15", "Darwin-25", "0.32.4")


def per_chip_file(path: Path, name: str, rows: list[tuple]) -> Path:
    """A per-chip database with winners (kernel, source, codegen, shape, BLOCK, time_ms, tuned_at)."""
    db = TuningDB(path)
    for kernel, source, codegen, shape, block, ms, when in rows:
        key = TuningKey(kernel, source, codegen, chip(name), ("float16",), shape)
        db.record_winner(key, config={"kwargs": {"BLOCK": block}, "num_warps": 4}, time_ms=ms, trials=10,
                         study=key.study_name, tuned_at=when)
        db.record_trial(key, study=key.study_name, trial_number=0, config={"kwargs": {"BLOCK": block}},
                        status="ok", time_ms=ms)
    return path


def dump(path: Path) -> list[str]:
    return list(sqlite3.connect(path).iterdump())


def test_merging_per_chip_files_to_ship_is_deterministic_idempotent_and_follows_the_rules(tmp_path):
    files = [
        per_chip_file(tmp_path / "m1.sqlite", "Apple M1", [
            ("softmax", "new", "9", (4096,), 256, 1.0, "2026-12-01T00:00:00+00:00"),
            ("softmax", "old", "9", (8192,), 512, 0.5, "2026-11-01T00:00:00+00:00"),   # stale: older source
            ("matmul", "m", "9", (64, 64), 32, 3.0, "2026-12-01T00:00:00+00:00")]),
        per_chip_file(tmp_path / "m4.sqlite", "Apple M4", [
            ("softmax", "new", "10", (4096,), 1024, 0.9, "2026-12-02T00:00:00+00:00"),
            ("softmax", "new", "9", (4096,), 128, 0.1, "2026-12-02T00:00:00+00:00")]),  # faster, older codegen
        per_chip_file(tmp_path / "m1-again.sqlite", "Apple M1", [
            ("softmax", "new", "9", (4096,), 64, 0.8, "2026-11-15T00:00:00+00:00"),     # same key, faster
            ("matmul", "m", "9", (64, 64), 16, 3.0, "2026-12-03T00:00:00+00:00")]),     # same time, newer
    ]
    out = tmp_path / "shipped.sqlite"
    report = TuningDB.merge_for_shipping(files, out)
    shipped = {(w["kernel"], w["chip"], w["shape_key"]): (w["codegen_version"], json.loads(w["config"])["kwargs"]["BLOCK"])
               for w in TuningDB(out, create=False).winners()}
    assert shipped == {("softmax", "Apple M1", "[4096]"): ("9", 64), ("softmax", "Apple M4", "[4096]"): ("10", 1024),
                       ("matmul", "Apple M1", "[64, 64]"): ("9", 16)}
    assert (len(report.merged), len(report.skipped), len(report.stale)) == (3, 3, 1)
    assert report.stale[0]["source_hash"] == "old" and TuningDB(out, create=False).trials() == []
    first = dump(out)
    TuningDB.merge_for_shipping(list(reversed(files)), out)  # again, inputs in another order
    assert dump(out) == first
    again = TuningDB.merge_for_shipping([out], tmp_path / "reshipped.sqlite")  # merging the result changes nothing
    assert dump(tmp_path / "reshipped.sqlite") == first and not again.skipped and not again.stale

    r = subprocess.run([sys.executable, "-m", "metalforge.cli", "db", "merge", *map(str, files), "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "3 winners merged, 3 skipped" in r.stdout and "1 stale" in r.stdout, r.stderr
    assert dump(out) == first


def test_a_database_this_process_may_not_write_is_opened_read_only(tmp_path):
    """Tests run as root, whom file modes do not stop: the open decides from `os.access`, so the
    file is made unwritable for a process that runs as another user (`setpriv`), as an installed app would."""
    import pwd
    import shutil

    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run the lookup as an unprivileged user")
    user = next((u for u in pwd.getpwall() if u.pw_name in ("postgres", "nobody")), None)
    if user is None:
        pytest.skip("no unprivileged user (postgres or nobody) to run the lookup as")
    directory = Path("/tmp") / f"mf-ro-{os.getpid()}"
    directory.mkdir(exist_ok=True)
    try:
        out = per_chip_file(tmp_path / "a.sqlite", "Apple M1",
                            [("softmax", "new", "9", (4096,), 256, 1.0, "2026-12-01T00:00:00+00:00")])
        shipped = directory / "shipped.sqlite"
        TuningDB.merge_for_shipping([out], shipped)
        shipped.chmod(0o444)
        directory.chmod(0o555)  # not even a journal can be created next to it
        probe = ("import json; from metalforge.tuning_db import TuningDB, TuningKey, DeviceIdentity as D; "
                 f"db = TuningDB({str(shipped)!r}, create=False); "
                 "k = TuningKey('softmax', 'new', '9', D('metal', 'Apple M1', 'applegpu_g15', 'Darwin-25', '0.32.4'), "
                 "('float16',), (4096,)); f = db.lookup(k); "
                 "print(db.read_only, f.source, json.loads(f.winner['config'])['kwargs']['BLOCK'])")
        r = subprocess.run(["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
                            sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                           cwd="/", env={**os.environ, "HOME": "/tmp"})
        assert r.returncode == 0 and r.stdout.split() == ["True", "exact", "256"], r.stdout + r.stderr
        assert TuningDB(shipped, create=False).read_only is False  # root may write: opened as always
    finally:
        directory.chmod(0o755)
        shutil.rmtree(directory, ignore_errors=True)
