"""The contention load: started and stopped cleanly (no process left behind, even when its parent is
killed), paused until asked, copying for its share of each period, and a kernel timed beside it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import mlx.core as mx
import pytest

from metalforge.autotune.bench import contended_time
from metalforge.runtime import contention
from metalforge.runtime.contention import ContentionError, ContentionLoad

pytestmark = pytest.mark.serial  # timed against the wall clock or a CPU share (pyproject's markers)


def gone(pid: int) -> bool:
    """Whether process `pid` has exited (reaped, or a zombie its new parent has not reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_load_starts_paused_runs_at_its_share_and_stops_cleanly():
    with ContentionLoad(0.25, megabytes=16, period_s=0.1) as load:
        pid, control = load.process.pid, load._path
        assert load.full_bytes_per_s > 0 and not gone(pid)
        before = load.counters()
        time.sleep(0.12)
        assert load.counters() == before  # paused until active()
        with load.active():
            start, before = time.perf_counter(), load.counters()
            time.sleep(0.5)
            after, elapsed = load.counters(), time.perf_counter() - start
        # It copies for at most its share of each 100 ms period plus one chunk (8 MiB: a few ms, tens
        # on a loaded machine), so the copying share of the time stays under 0.25 + 0.25; a load
        # ignoring its share copies nearly all the time.
        busy = (after[1] - before[1]) / elapsed
        assert 0 < busy < 0.5 and load.copy_rate(before, after) > 0
    assert gone(pid) and not os.path.exists(control) and load.process is None
    load.stop()  # idempotent


def test_load_dies_with_its_parent():
    script = ("import os, signal; from metalforge.runtime.contention import ContentionLoad\n"
              "load = ContentionLoad(1.0, megabytes=8).start()\n"
              "print(load.process.pid, flush=True); os.kill(os.getpid(), signal.SIGKILL)")
    parent = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    pid = int(parent.stdout.split()[0])
    deadline = time.monotonic() + 5
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(pid), f"contention worker {pid} outlived its killed parent"


def test_bad_share_and_unavailable_device_are_refused(tmp_path, monkeypatch):
    with pytest.raises(ContentionError, match=r"must be in \(0, 1\]"):
        ContentionLoad(1.5)
    with pytest.raises(ContentionError, match="use 'cpu' or 'cuda'"):
        ContentionLoad(0.5, device="metal")
    with pytest.raises(ContentionError, match="not running"):
        ContentionLoad(0.5).counters()
    for missing in ("cupy", "torch"):  # the worker finds neither GPU library (its environment is ours)
        (tmp_path / missing).mkdir()
        (tmp_path / missing / "__init__.py").write_text(f"raise ImportError('no {missing} here')")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    load = ContentionLoad(0.5, device="cuda", megabytes=8)
    with pytest.raises(ContentionError, match="did not start: .*no torch here; the GPU load needs cupy or torch"):
        load.start()
    assert load.process is None


def test_a_stalled_load_is_reported_instead_of_waited_for(monkeypatch):
    monkeypatch.setattr(contention, "STOP_TIMEOUT_S", 0.2)
    with ContentionLoad(0.5, megabytes=8, period_s=0.02) as load:
        os.kill(load.process.pid, signal.SIGSTOP)  # a worker that never reaches its next period
        try:
            with pytest.raises(ContentionError, match="did not take share 0.5 within 0.22 s"), load.active():
                pass
        finally:
            os.kill(load.process.pid, signal.SIGCONT)


def test_a_kernel_timed_beside_the_load():
    copies = [(mx.ones((1 << 16,)),)]
    with ContentionLoad(1.0, megabytes=32, period_s=0.02) as load:
        result = contended_time(lambda args: args[0] * 2 + 1, copies, load, warmup_ms=5, rep_ms=20, timeout_s=10,
                                estimate_s=1e-4)
        before = load.counters()
        time.sleep(0.1)
        assert load.counters() == before  # paused again afterwards
    assert result.time_ms > 0 and result.slowdown is not None and result.slowdown > 0
