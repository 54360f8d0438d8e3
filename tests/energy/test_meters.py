"""The power meters: NVML against a recorded-format trace (energy counter and sampled power), powermetrics
absent, refusing, hanging and streaming (a stand-in script), and "no meter" on the emulator."""
from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from metalforge.runtime import meters
from metalforge.runtime.meters import (MeterUnavailableError, NoMeter, NvmlMeter, PowermetricsMeter, Reading,
                                       integrate, meter_for, powermetrics_meter, trapezoids)

from .fakes import TRACE, FakeNVML


def trace_joules(t0: float, t1: float) -> float:
    """The trace's power integrated over [t0, t1] by numpy's trapezoid rule (the reference)."""
    rows = [r for r in TRACE if t0 - 1e-9 <= r["t"] <= t1 + 1e-9]
    return float(np.trapezoid([r["power_mw"] / 1e3 for r in rows], [r["t"] for r in rows]))


def test_nvml_energy_counter_over_a_window():
    nvml = FakeNVML(counter=True)
    meter = NvmlMeter(nvml=nvml, clock=lambda: nvml.now, sleep=nvml.sleep)
    assert meter.counter and meter.name == "nvml-counter" and nvml.initialised == 1
    # The synthetic counter changes every 20 ms (at even hundredths), polled every 1 ms from there.
    assert meter.period_s == pytest.approx(0.02) and meter.window_s == meters.MIN_WINDOW_S
    nvml.now = 0.205
    token = meter.begin()  # waits for the change at 0.22
    nvml.now = 0.905
    window = meter.end(token)  # and the one at 0.92
    # The counter is whole mJ of the unrounded power, the reference integrates the trace's rounded
    # mW: 1 mJ per reading plus 0.5 mW x 0.7 s of rounding, under 3 mJ in all.
    assert window.joules == pytest.approx(trace_joules(0.22, 0.92), abs=3e-3)
    assert window.seconds == pytest.approx(0.70)
    first, last = window.readings
    assert (first.sm_clock_mhz, last.sm_clock_mhz, first.mem_clock_mhz) == (345, 345, 2619)
    assert last.temperature_c > first.temperature_c and first.power_w == pytest.approx(TRACE[22]["power_mw"] / 1e3)
    meter.close()
    assert nvml.initialised == 0


def test_nvml_without_counter_integrates_sampled_power():
    nvml = FakeNVML(counter=False, step_s=0.01, start=0.25)  # each reading of the clock moves 10 ms on
    meter = NvmlMeter(nvml=nvml, clock=nvml.clock, sample_s=0.0005)
    assert not meter.counter and meter.name == "nvml-power" and meter.window_s == 1.0
    token = meter.begin()
    deadline = time.monotonic() + 10  # the thread's readings, however slowly a loaded machine runs it
    while len(token.readings) < 3 and time.monotonic() < deadline:
        time.sleep(0.001)
    window = meter.end(token)
    t = [r.t for r in window.readings]
    assert len(t) >= 4 and t == sorted(t)
    # Each reading's power is the trace's row at its time: the same trapezoids numpy integrates.
    assert window.joules == pytest.approx(trace_joules(t[0], t[-1]), rel=1e-9)
    assert window.seconds == pytest.approx(t[-1] - t[0])


def test_integrate_counts_the_part_of_each_segment_inside_the_window():
    segments = [(0.0, 1.0, 10.0), (1.0, 2.0, 20.0), (2.0, 3.0, 40.0)]
    assert integrate(segments, 0.5, 1.5) == pytest.approx(0.5 * 10 + 0.5 * 20)
    assert integrate(segments, -1.0, 9.0) == pytest.approx(70.0)
    assert integrate(segments, 5.0, 6.0) == 0.0
    readings = [Reading(0.0, 10.0), Reading(1.0, 30.0), Reading(3.0, None), Reading(4.0, 0.0)]
    assert trapezoids(readings) == [(0.0, 1.0, 20.0)]  # a reading without power makes no segment


def test_no_meter_on_the_emulator_says_why():
    meter = meter_for("emulator")
    assert isinstance(meter, NoMeter) and not meter.available and "no power meter" in meter.reason
    with pytest.raises(MeterUnavailableError, match="emulator back end has no power meter"):
        meter.begin()


def test_nvml_meter_without_nvidia_ml_py(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    meter = meters.nvml_meter()
    assert not meter.available and "pip install 'metalforge[energy]'" in meter.reason


def test_nvml_meter_through_the_real_library_says_why_it_cannot_read():
    """nvidia-ml-py itself (the test extra installs it): on a machine without an NVIDIA driver, as CI,
    its load failure becomes the meter's reason."""
    pynvml = pytest.importorskip("pynvml", reason="nvidia-ml-py is in the test extra: pip install -e '.[test]'")
    meter = meters.nvml_meter()
    if meter.available:  # a machine with a GPU: the real meter
        assert isinstance(meter, NvmlMeter) and meter.nvml is pynvml
        meter.close()
    else:
        assert meter.reason.startswith("NVML cannot read GPU 0: ")


def _script(path, body: str) -> str:
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return str(path)


def test_powermetrics_absent_or_not_macos():
    assert "this is Linux" in powermetrics_meter(system="Linux").reason
    assert "not on PATH" in powermetrics_meter(system="Darwin", which=lambda name: None).reason


def test_powermetrics_refused_by_sudo_names_the_fix(tmp_path):
    tools = {"powermetrics": _script(tmp_path / "powermetrics", "raise SystemExit('must be run as root')"),
             "sudo": _script(tmp_path / "sudo", "import sys\nassert sys.argv[1] == '-n'\n"
                             "sys.exit('sudo: a password is required')")}
    meter = powermetrics_meter(system="Darwin", which=tools.get, euid=501)
    assert not meter.available
    assert "needs root (sudo: a password is required)" in meter.reason and "NOPASSWD: " in meter.reason


def test_powermetrics_probe_never_hangs(tmp_path, monkeypatch):
    monkeypatch.setattr(meters, "PROBE_TIMEOUT_S", 0.5)
    tools = {"powermetrics": str(tmp_path / "powermetrics"),
             "sudo": _script(tmp_path / "sudo", "import time\ntime.sleep(60)")}  # a prompt that never returns
    start = time.monotonic()
    meter = powermetrics_meter(system="Darwin", which=tools.get, euid=501)
    assert time.monotonic() - start < 5 and "did not answer within 0.5 s" in meter.reason


FAKE_POWERMETRICS = """import plistlib, random, sys, time
interval = float(sys.argv[sys.argv.index("-i") + 1]) / 1e3
delays = random.Random(1)  # each sample is sent up to a whole interval late, as on a loaded machine
last = time.monotonic()
while True:
    time.sleep(interval)
    now = time.monotonic()
    sample = {"elapsed_ns": int((now - last) * 1e9), "processor": {"gpu_energy": 2.5 * (now - last) * 1e3},
              "gpu": {"freq_hz": 1.296e9}}
    last = now
    time.sleep(delays.uniform(0, interval))
    sys.stdout.buffer.write(plistlib.dumps(sample) + b"\\x00")
    sys.stdout.flush()
"""


def test_powermetrics_as_root_streams_gpu_energy(tmp_path):
    tool = _script(tmp_path / "powermetrics", FAKE_POWERMETRICS)  # 2.5 W, samples tiling time, sent late
    meter = powermetrics_meter(system="Darwin", which={"powermetrics": tool}.get, euid=0)
    assert isinstance(meter, PowermetricsMeter) and meter.command == [tool]
    meter.interval_s = 0.02
    with meter:
        token = meter.begin()
        time.sleep(0.2)
        window = meter.end(token)
        process = meter._process
    # Laid end to end, the samples cover the window's exact seconds at 2.5 W whenever they arrive.
    # What is left is elapsed_ns truncated to whole ns while the energy is not: each sample's power
    # is high by under 1 ns / 20 ms = 5e-8, and its edges move by under 1 ns per sample (~20
    # samples: 2e-8 s of 0.2 s = 1e-7); with float64's rounding of the clock, well under 1e-6.
    assert window.joules == pytest.approx(2.5 * window.seconds, rel=1e-6)
    assert window.readings and all(r.sm_clock_mhz == pytest.approx(1296) for r in window.readings)
    assert process.poll() is not None  # closing stops powermetrics


def test_powermetrics_window_is_exact_whenever_samples_arrive(rng):
    """Samples of varying power arriving after varying delays (some together, as one read): the
    window's joules are the true energy of its seconds, shifted by the smallest delay. Placing each
    sample at its own arrival time would count the differences of the delays at the edges."""
    meter = PowermetricsMeter(["powermetrics"], interval_ms=100)
    seconds = 0.1 + rng.uniform(-0.01, 0.01, 40)       # the samples' true lengths, tiling time from 10 s
    watts = rng.uniform(1.0, 20.0, 40)
    ends = 10.0 + np.cumsum(seconds)
    arrived = ends + rng.uniform(0.002, 0.08, 40)       # delivery delays; the smallest is the shift
    arrived[5:8] = arrived[7]                           # three samples read at once
    for t, s, w in zip(arrived, seconds, watts):
        meter.add_sample(float(t), float(s), float(w * s), 1296.0)
    shift = float(np.min(arrived - ends))
    energy = np.concatenate([[0.0], np.cumsum(watts * seconds)])  # at the samples' true edges
    edges = np.concatenate([[10.0], ends])
    for t0, t1 in [(10.5, 12.0), (10.53, 13.31), (ends[3] + shift, ends[20] + shift), (11.0, 11.04)]:
        window = meter.window(t0, t1)
        truth = np.interp(t1 - shift, edges, energy) - np.interp(t0 - shift, edges, energy)
        # Both are sums of 40 products of float64 near 1-20: rounding ~1e-14 relative.
        assert window.joules == pytest.approx(truth, rel=1e-9) and window.seconds == pytest.approx(t1 - t0)
        # A reading per sample used, at its end; a sample ending at an edge may fall either side of it.
        starts, stops = ends - seconds + shift, ends + shift
        surely = np.round(stops[(starts < t1 - 1e-9) & (stops > t0 + 1e-9)], 6)
        maybe = np.round(stops[(starts < t1 + 1e-9) & (stops > t0 - 1e-9)], 6)
        got = np.round([r.t for r in window.readings], 6)
        assert set(surely) <= set(got) <= set(maybe) and len(got) == len(set(got)) >= 1
        assert all(r.sm_clock_mhz == 1296.0 for r in window.readings)


def test_powermetrics_that_stalls_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(meters, "PROBE_TIMEOUT_S", 0.3)
    tool = _script(tmp_path / "powermetrics", FAKE_POWERMETRICS.replace("time.sleep(delays", "time.sleep(60 + delays"))
    meter = PowermetricsMeter([tool], interval_ms=20)
    start = time.monotonic()
    with pytest.raises(MeterUnavailableError, match=r"sent no sample covering the window within 0.36 s"), meter:
        meter.begin()
    assert time.monotonic() - start < 5


def test_powermetrics_that_dies_is_reported(tmp_path):
    tool = _script(tmp_path / "powermetrics", "raise SystemExit(1)")
    meter = PowermetricsMeter([tool], interval_ms=20)
    with pytest.raises(MeterUnavailableError, match="stopped sending samples"), meter:
        meter.begin()
