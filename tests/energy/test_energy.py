"""Joules per launch from a meter: idle power subtracted, windows long enough for the meter, the spread
over repeats; against a meter whose energy is known exactly."""
from __future__ import annotations

import statistics

import mlx.core as mx
import pytest

from metalforge.autotune.bench import batch_size, energy_per_call

from .fakes import FakeMeter


def charging_launch(meter: FakeMeter, key: str):
    def launch(args: tuple) -> mx.array:
        meter.charge(key)
        return args[0] + 1
    return launch


@pytest.mark.parametrize("batched", [False, True])
def test_energy_per_call_subtracts_the_idle_power(batched):
    meter = FakeMeter(idle_w=30.0, joules={"k": 0.25}, window_s=0.02)
    copies = [(mx.array([1.0, 2.0]),), (mx.array([3.0, 4.0]),)]
    result = energy_per_call(charging_launch(meter, "k"), copies, meter, estimate_s=1e-4, repeats=5, batched=batched)
    # The meter adds 0.25 J per launch to 30 W x elapsed time: subtracting the idle 30 W leaves exactly
    # 0.25 J per launch, up to rounding (30 W x ~0.02 s in float64: ~1e-16 J).
    assert result.per_call == pytest.approx([0.25] * 5, rel=1e-9) and result.joules == pytest.approx(0.25, rel=1e-9)
    assert result.spread < 1e-9 and result.idle_w == pytest.approx(30.0) and result.idle_drift == pytest.approx(0.0)
    idle, *busy, idle_after = meter.windows  # idle power before and after the repeats
    for window in (idle, idle_after):
        assert window.joules == pytest.approx(30.0 * window.seconds) and window.seconds >= 0.02
    assert len(busy) == 5 and all(w.seconds >= 0.02 for w in busy)
    # Each window's energy above idle is its launches' 0.25 J each: a whole number, however long the
    # window ran (float64 rounding of 30 W x seconds: ~1e-15 J); whole batches only when batched.
    launches = [(w.joules - 30.0 * w.seconds) / 0.25 for w in busy]
    assert all(n == pytest.approx(round(n), abs=1e-9) and round(n) >= 1 for n in launches)
    assert round(launches[-1]) == result.calls
    if batched:
        assert all(round(n) % batch_size(1e-4) == 0 for n in launches)
    assert result.busy_w == pytest.approx(statistics.fmean(w.watts for w in busy), rel=1e-12)


def test_without_the_subtraction_the_figure_would_be_the_idle_power():
    """The idle share is the larger part here (30 W against a launch's 1 mJ): a check that the
    subtraction happens, not a coincidence of the numbers."""
    meter = FakeMeter(idle_w=30.0, joules={"k": 1e-3}, window_s=0.02)
    result = energy_per_call(charging_launch(meter, "k"), [(mx.array([1.0]),)], meter, estimate_s=1e-4, repeats=3)
    raw = [w.joules for w in meter.windows[1:-1]]
    assert result.joules == pytest.approx(1e-3, rel=1e-6) and min(raw) > 30.0 * 0.02
