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
    meter = NvmlMeter(nvml=nvml, clock=lambda: nvml.now)
    assert meter.counter and meter.name == "nvml-counter" and nvml.initialised == 1
    nvml.now = 0.20  # rows at even hundredths: the counter (updated every 20 ms) is current there
    token = meter.begin()
    nvml.now = 0.90
    window = meter.end(token)
    # The counter is whole mJ of the unrounded power, the reference integrates the trace's rounded
    # mW: 1 mJ per reading plus 0.5 mW x 0.7 s of rounding, under 3 mJ in all.
    assert window.joules == pytest.approx(trace_joules(0.20, 0.90), abs=3e-3)
    assert window.seconds == pytest.approx(0.70)
    first, last = window.readings
    assert (first.sm_clock_mhz, last.sm_clock_mhz, first.mem_clock_mhz) == (345, 345, 2619)
    assert last.temperature_c > first.temperature_c and first.power_w == pytest.approx(TRACE[20]["power_mw"] / 1e3)
    meter.close()
    assert nvml.initialised == 0


def test_nvml_without_counter_integrates_sampled_power():
    nvml = FakeNVML(counter=False, step_s=0.01, start=0.25)  # each reading of the clock moves 10 ms on
    meter = NvmlMeter(nvml=nvml, clock=nvml.clock, sample_s=0.0005)
    assert not meter.counter and meter.name == "nvml-power" and meter.window_s == 1.0
    token = meter.begin()
    time.sleep(0.03)
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


FAKE_POWERMETRICS = """import plistlib, sys, time
interval = float(sys.argv[sys.argv.index("-i") + 1]) / 1e3
last = time.monotonic()
while True:
    time.sleep(interval)
    now = time.monotonic()
    sample = {"elapsed_ns": int((now - last) * 1e9), "processor": {"gpu_energy": 2.5 * (now - last) * 1e3},
              "gpu": {"freq_hz": 1.296e9}}
    last = now
    sys.stdout.buffer.write(plistlib.dumps(sample) + b"\\x00")
    sys.stdout.flush()
"""


def test_powermetrics_as_root_streams_gpu_energy(tmp_path):
    tool = _script(tmp_path / "powermetrics", FAKE_POWERMETRICS)  # 2.5 W, samples tiling time
    meter = powermetrics_meter(system="Darwin", which={"powermetrics": tool}.get, euid=0)
    assert isinstance(meter, PowermetricsMeter) and meter.command == [tool]
    meter.interval_s = 0.02
    with meter:
        token = meter.begin()
        time.sleep(0.2)
        window = meter.end(token)
        process = meter._process
    # Samples tile time from the process's start, so the window is covered: 2.5 W x seconds, up to
    # the rounding of elapsed_ns.
    assert window.joules == pytest.approx(2.5 * window.seconds, rel=1e-3)
    assert window.readings and all(r.sm_clock_mhz == pytest.approx(1296) for r in window.readings)
    assert process.poll() is not None  # closing stops powermetrics


def test_powermetrics_that_dies_is_reported(tmp_path):
    tool = _script(tmp_path / "powermetrics", "raise SystemExit(1)")
    meter = PowermetricsMeter([tool], interval_ms=20)
    with pytest.raises(MeterUnavailableError, match="stopped sending samples"), meter:
        meter.begin()
