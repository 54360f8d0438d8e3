"""benchmarks/energy_bench.py end to end on the emulator with a stand-in meter (its joules measure
nothing here: the meter's arithmetic is tested against NVML replays): every part runs within a
generous budget, and a budget too small for a part skips it with a line saying so, in the issue's
order."""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from metalforge.autotune.space import Space
from metalforge.runtime import meters

from .fakes import FakeMeter

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import energy_bench  # noqa: E402


def run(tmp_path, monkeypatch, capsys, budget: float) -> tuple[int, dict, str]:
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")
    monkeypatch.setenv("METALFORGE_DB", str(tmp_path / "unused.sqlite"))  # main points it at DIR; restored after
    monkeypatch.setattr(meters, "meter_for", lambda name: FakeMeter(idle_w=30.0, window_s=0.02))
    monkeypatch.setattr(sys, "argv", ["energy_bench.py", "--out", str(tmp_path), "--smoke", "--kernels",
                                      "softmax_kernel", "rope_kernel", "--front-trials", "qmv_kernel=2",
                                      "--budget", str(budget)])
    code = energy_bench.main()
    return code, json.loads((tmp_path / "energy.json").read_text()), capsys.readouterr().out


def test_every_part_runs_within_the_budget(tmp_path, monkeypatch, capsys):
    code, report, printed = run(tmp_path, monkeypatch, capsys, 600)
    assert code == 0 and not report["skipped"] and not report["failures"]
    assert [r["kernel"] for r in report["per_call"]] == ["softmax_kernel", "rope_kernel"]
    assert all(r["energy_spread"] is not None and r["idle_drift"] == 0.0 for r in report["per_call"])
    [front] = report["fronts"]
    assert front["kernel"] == "qmv_kernel" and front["measured"] == 2
    assert [c["chosen_by"] for c in report["contention"]] == ["time", "contention"]
    assert all(c["contended_ms"] > 0 and c["time_ms"] > 0 for c in report["contention"])
    assert "| beside a 50% load | tuned for |" in printed and "idle drift" in printed
    assert (tmp_path / "energy.log").read_text()


def test_a_point_suggested_again_counts_once_in_the_front(tmp_path, monkeypatch, capsys):
    """The sampler suggesting a measured point again records a trial of its own (with the first's
    figures; it costs no device time): the front study still counts, and the contention table
    times, each config once. The second suggestion here repeats the first."""
    suggested = []

    def repeating(self, trial):
        config, violated = original(self, trial)
        suggested.append((config, violated))
        return suggested[0] if len(suggested) == 2 else (config, violated)
    original = Space.suggest
    monkeypatch.setattr(Space, "suggest", repeating)
    code, report, _ = run(tmp_path, monkeypatch, capsys, 600)
    assert code == 0 and not report["failures"] and len(suggested) >= 3
    [front] = report["fronts"]
    assert front["measured"] == 2 and len(set(front["configs"])) == 2
    assert all(c["of"] == 2 for c in report["contention"])


def test_a_budget_too_small_skips_each_part_saying_so(tmp_path, monkeypatch, capsys):
    code, report, printed = run(tmp_path, monkeypatch, capsys, 0)
    assert code == 0 and not report["per_call"] and not report["fronts"] and not report["contention"]
    skipped = report["skipped"]
    assert [line.split(":")[1].strip() for line in skipped] == [
        "softmax_kernel (8, 4000) joules per call", "rope_kernel (4, 64, 128) joules per call",
        "front qmv_kernel (256, 1024) (2 configs at least)", "contention table"]
    assert all(line in printed for line in skipped) and "s left of --budget" in skipped[0]


def test_the_plan_learns_the_overhead_and_refuses_what_does_not_fit():
    lines = []
    plan = energy_bench.Plan(10.0, lines.append)
    assert plan.overhead() == energy_bench.OVERHEAD_S  # nothing seen yet
    plan.observe(took_s=4.0, metered_s=3.0)
    plan.observe(took_s=6.0, metered_s=3.0)
    assert plan.overhead() == pytest.approx(2.0)
    assert plan.fits("small", 5.0) and not plan.fits("large", 11.0)
    assert lines == plan.skipped and lines[0].startswith("SKIPPED: large: needs ~11 s, ") and len(lines) == 1
    plan.hold(6.0)  # the contention table's seconds: no part before it may take them
    assert not plan.fits("held back", 5.0) and plan.left() < 4.0
    plan.hold(0.0)
    assert plan.fits("released", 5.0)


class ShortWindowJitter(FakeMeter):
    """A fake meter charging 1 mJ a launch whose windows asked for shorter than twice its own window
    read the launches' energy alternately 10% high and low (a small kernel's share of a short window,
    lost in the counter's steps), longer ones exactly: joules per call spread 20% at the meter's
    window. By the length asked for, not the one measured: a window stretched by a stall of the
    host (a garbage collection) is still a short one."""

    def __init__(self) -> None:
        super().__init__(idle_w=30.0, joules={"k": 1e-3}, window_s=0.02)
        self.sign, self.short = 1.0, False

    def measure(self, seconds, step=None, windows=1):
        self.short = seconds < 2 * self.window_s
        return super().measure(seconds, step, windows)

    def end(self, token):
        window = super().end(token)
        if self.short:
            self.sign = -self.sign
            window = dataclasses.replace(window, joules=window.joules + 0.1 * self.sign * (self.charged - token[1]))
        return window


@pytest.mark.parametrize("allowed", [True, False])
def test_a_row_over_the_spread_target_is_metered_again_over_longer_windows(monkeypatch, allowed):
    """Spread 20% over the meter's windows: metered again over windows LONG_WINDOWS times as long where
    the plan allows it (the row then says so, with the first spread), kept as it is where not."""
    from metalforge.autotune.tuner import Autotuner

    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")
    meter, launch = ShortWindowJitter(), Autotuner._launch

    def counted(self, grid, args, config, meta=None):
        meter.charge("k")
        return launch(self, grid, args, config, meta)
    monkeypatch.setattr(Autotuner, "_launch", counted)
    asked = []
    row = energy_bench.joules_per_call("softmax_kernel", (8, 4000), meter, 4, lambda line: None,
                                       longer=lambda seconds: asked.append(seconds) or allowed)
    assert len(asked) == 1 and asked[0] > 4 * energy_bench.LONG_WINDOWS * meter.window_s
    if allowed:
        assert row["window_s"] == pytest.approx(energy_bench.LONG_WINDOWS * meter.window_s)
        assert row["first_spread"] == pytest.approx(0.2, rel=1e-6)  # (1.1 - 0.9) / median 1.0
        assert row["energy_spread"] == pytest.approx(0.0, abs=1e-9) and row["energy_j"] == pytest.approx(1e-3)
    else:
        assert row["window_s"] == meter.window_s and row["first_spread"] is None
        assert row["energy_spread"] == pytest.approx(0.2, rel=1e-6)  # (1.1 - 0.9) / median 1.0
    assert energy_bench.registered()["softmax_kernel"].energy_window_s is None  # left as it was
