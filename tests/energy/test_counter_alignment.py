"""NVML counter windows aligned to the counter's changes, against the H200's energy counter as recorded
(tests/energy/h200_nvml_trace.json, replayed by `ReplayNVML` on a simulated clock): the window's joules
are the true energy of its seconds to within what one poll can hide, where windows read at arbitrary
instants (the scheme before) are off by up to a counter step."""
from __future__ import annotations

import statistics

import mlx.core as mx
import numpy as np
import pytest

from metalforge.autotune.bench import batch_size, energy_per_call
from metalforge.runtime import meters
from metalforge.runtime.meters import POLL_S, MeterUnavailableError, NvmlMeter

from .fakes import FakeNVML, ReplayNVML


def replay_meter(load_w: float = 0.0, start: float = 0.0) -> tuple[ReplayNVML, NvmlMeter]:
    nvml = ReplayNVML(load_w=load_w, start=start)
    return nvml, NvmlMeter(nvml=nvml, clock=lambda: nvml.now, sleep=nvml.sleep)


def test_the_update_period_is_measured_when_the_meter_opens():
    nvml, meter = replay_meter()
    steps = [s for s, _ in nvml.steps]
    # Opened at the first change, the meter times the next PERIOD_STEPS steps (the first is the
    # recording's long one); each edge is seen within one poll of its time, so each observed step is
    # within one poll of the true one, and so is their median.
    assert meter.counter and meter.name == "nvml-counter"
    assert meter.period_s == pytest.approx(statistics.median(steps[1:1 + meters.PERIOD_STEPS]), abs=POLL_S)
    assert meter.window_s == pytest.approx(meters.WINDOW_STEPS * meter.period_s)


def test_aligned_idle_windows_are_the_true_energy_of_their_seconds(rng):
    """Windows from random instants over three passes of the recording. An aligned window runs from one
    change of the counter to another: its joules are the true energy between the two changes (to the
    counter's whole mJ: 1 mJ at each end), and its ends are seen late by under one poll each (POLL_S,
    the time between reads at idle), so against the true energy of the seconds it reports the error is
    under P_max x POLL_S + 2 mJ. A 0.5 s window read at arbitrary instants misses up to a whole
    ~0.1 s step at each end: the old scheme fails the same check by far."""
    nvml, meter = replay_meter()
    p_max = max(nvml.watts())
    bound = p_max * POLL_S + 2e-3
    for start in rng.uniform(0.0, 3 * nvml.cycle_s, 12):
        nvml.now = round(float(start), 6)
        (window, launches), = meter.measure(meter.window_s)
        first, last = window.readings
        assert launches == 0 and window.seconds == pytest.approx(last.t - first.t)
        assert window.seconds >= meter.window_s - meter.period_s / 2  # whole steps, not one fewer
        assert abs(window.joules - nvml.energy_j(first.t, last.t)) <= bound
    # The old scheme: the counter read at both ends of a 0.5 s window from the same instant, at 12
    # instants evenly over three of the counter's cycles (fixed ones: at random instants all 12 miss
    # by less than 20 bounds about once in 400 runs).
    old_errors = []
    for t0 in np.linspace(0.0, 3 * nvml.cycle_s, 12, endpoint=False).round(6):
        nvml.now = float(t0)
        before = meter.energy_mj()
        nvml.now = float(t0) + 0.5
        old_errors.append(abs((meter.energy_mj() - before) / 1e3 - nvml.energy_j(t0, t0 + 0.5)))
    assert max(old_errors) > 20 * bound  # a step is ~13 J; the bound ~0.15 J


def test_back_to_back_windows_cover_the_work_and_count_its_launches():
    """Launches of 0.2 ms at 400 W above the recorded background, in batches as on CUDA. The launches
    counted in a window are those of the batches finished between the two reads that saw its edges,
    which are its host seconds' launches exactly; each edge is seen late by under one poll plus one
    batch (a batch crossing a change), so the window's joules are the true energy of its seconds to
    P_max x (POLL_S + batch) + 2 mJ, and its energy above the background 400 W x 0.2 ms per launch
    counted to the same."""
    nvml, meter = replay_meter(load_w=400.0, start=0.25)
    seconds = 2e-4
    batch = batch_size(seconds)

    def step() -> int:
        for _ in range(batch):
            nvml.work(seconds)
        return batch

    measured = meter.measure(meter.window_s, step, windows=3)
    bound_j = (max(nvml.watts()) + 400.0) * (POLL_S + batch * seconds) + 2e-3
    for (window, launches), (later, _) in zip(measured, measured[1:] + [(None, 0)]):
        first, last = window.readings
        if later is not None:
            assert later.readings[0] is last  # back to back: one window's end is the next one's start
        assert window.seconds >= meter.window_s - meter.period_s / 2
        assert abs(window.joules - nvml.energy_j(first.t, last.t)) <= bound_j
        above = window.joules - nvml.background_j(first.t, last.t)
        assert abs(above - 400.0 * seconds * launches) <= bound_j


def test_energy_per_call_on_the_h200_counter_meets_the_spread_target():
    """Joules per call end to end (settle, idle before and after, five windows) with 0.2 ms launches
    drawing 400 W above the recorded background: 80 mJ each. A window's figure is off by its
    background's mean power less the idle power subtracted, times its seconds per launch, plus its
    edges' error (the test above) per launch; windows of ~10 steps span about one pass of the
    recording each, so their backgrounds hardly differ, and the spread is bounded by that difference
    plus twice the edges' error."""
    nvml, meter = replay_meter(load_w=400.0, start=0.05)
    seconds, truth = 2e-4, 400.0 * 2e-4
    measured = []
    measure = meter.measure
    meter.measure = lambda *a, **k: measured.append(measure(*a, **k)) or measured[-1]

    def launch(args: tuple) -> mx.array:
        nvml.work(seconds)
        return args[0]

    result = energy_per_call(launch, [(mx.array([1.0]),)], meter, estimate_s=seconds, repeats=5, batched=True)
    [(idle_before, _)], busy, [(idle_after, _)] = measured
    assert result.idle_w == pytest.approx((idle_before.watts + idle_after.watts) / 2)
    edge_j = (max(nvml.watts()) + 400.0) * (POLL_S + batch_size(seconds) * seconds) + 2e-3
    backgrounds = []
    for (window, calls), per_call in zip(busy, result.per_call):
        first, last = window.readings
        background_w = nvml.background_j(first.t, last.t) / window.seconds
        backgrounds.append(background_w)
        expected = truth + (background_w - result.idle_w) * window.seconds / calls
        assert abs(per_call - expected) <= edge_j / calls
    calls = min(c for _, c in busy)
    spread_bound = ((max(backgrounds) - min(backgrounds)) * seconds + 2 * edge_j / calls) / (truth - edge_j / calls)
    assert result.spread <= spread_bound < 0.05
    watts = nvml.watts()  # the median window's background is within their range of the idle power
    assert abs(result.joules - truth) <= (max(watts) - min(watts)) * seconds + edge_j / calls


def test_settle_waits_for_the_power_to_stop_falling():
    """From 0.65 s into the recording (the matmuls' 151 W step) the steps fall to 136 W then 133.7 W:
    within SETTLE_TOLERANCE of 136 W, so settle ends at the change closing that step (0.8996 s),
    seen within one poll."""
    nvml, meter = replay_meter()
    nvml.now = nvml.cycle_s + 0.65
    waited = meter.settle()
    falls = [a for a, b in zip(nvml.watts(), nvml.watts()[1:]) if b < a * (1 - meters.SETTLE_TOLERANCE)]
    assert falls  # the recording does fall after the matmuls
    assert waited == pytest.approx(nvml.ends[6] - 0.65, abs=POLL_S)


def test_a_stuck_counter_falls_back_to_sampled_power_or_raises():
    nvml = FakeNVML(counter=True)
    nvml.nvmlDeviceGetTotalEnergyConsumption = lambda handle: 5  # never changes
    meter = NvmlMeter(nvml=nvml, clock=lambda: nvml.now, sleep=nvml.sleep)
    assert not meter.counter and meter.name == "nvml-power" and "did not change for 1 s" in meter.note
    nvml, meter = replay_meter()
    nvml.nvmlDeviceGetTotalEnergyConsumption = lambda handle: 5  # stops after the meter opened
    with pytest.raises(MeterUnavailableError, match="did not change for 1 s"):
        meter.measure(meter.window_s)
