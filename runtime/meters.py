"""Power meters: the energy a device drew over a window of time, with its clocks and temperature.

A `Meter` measures windows: `begin()` before the work, `end(token)` after it, giving a `Window` of
joules and seconds (and the clock and temperature readings seen in between). Three kinds:

- `NvmlMeter` (NVIDIA, `nvidia-ml-py`, the optional `energy` extra): the GPU's total-energy counter
  (`nvmlDeviceGetTotalEnergyConsumption`, millijoules since the driver loaded; Volta and later) read
  at both ends of the window, else power samples (`nvmlDeviceGetPowerUsage`, milliwatts) taken by a
  thread and integrated. SM and memory clocks and the GPU temperature are read beside them.
- `PowermetricsMeter` (macOS): `powermetrics --samplers gpu_power` streaming plist samples (GPU
  energy per sampling interval) from a process kept running while the meter is open. powermetrics
  needs root: as root it runs directly, else through `sudo -n` (never a password prompt); when
  neither works, `meter_for` returns `NoMeter` saying how to allow it.
- `NoMeter`: nothing can be measured here (the emulator, a GPU without a reachable meter); `reason`
  says why. Measuring with it raises `MeterUnavailableError` with that reason.

Resolution and overhead of each are in docs/energy.md; `window_s` is the shortest window a
measurement should span (autotune.bench.energy_per_call runs the kernel at least that long).
"""
from __future__ import annotations

import atexit
import math
import os
import platform
import plistlib
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from ..errors import MetalforgeError

SAMPLE_S = 0.01              # NVML power sampling period without an energy counter
POWERMETRICS_INTERVAL_MS = 100
PROBE_TIMEOUT_S = 5.0        # `sudo -n` / powermetrics start-up checks never wait longer


class MeterUnavailableError(MetalforgeError):
    """An energy measurement was asked for where no power meter can be read."""


@dataclass(frozen=True)
class Reading:
    """One sample beside the energy: when (monotonic seconds), power (W, None where not read), SM and
    memory clocks (MHz) and temperature (degrees C); None where the meter cannot tell."""

    t: float
    power_w: Optional[float] = None
    sm_clock_mhz: Optional[float] = None
    mem_clock_mhz: Optional[float] = None
    temperature_c: Optional[float] = None


@dataclass
class Window:
    """What a meter measured between `begin` and `end`: joules, seconds and the readings seen."""

    joules: float
    seconds: float
    readings: list[Reading] = field(default_factory=list)

    @property
    def watts(self) -> float:
        return self.joules / self.seconds if self.seconds > 0 else 0.0


class Meter:
    """A power meter. `window_s`: the shortest window that resolves energy to about 1% (set by the
    counter's or sampler's update period); `available`/`reason`: whether it can measure here and,
    if not, why."""

    name = "meter"
    window_s = 1.0
    available = True
    reason = ""

    def begin(self) -> Any:
        """Start a window; returns a token for `end`."""
        raise NotImplementedError

    def end(self, token: Any) -> Window:
        """Close the window started by `begin`."""
        raise NotImplementedError

    def sample(self) -> Reading:
        """One reading now (power, clocks, temperature), for traces over time."""
        return Reading(time.monotonic())

    def close(self) -> None:
        """Release what the meter holds (a sampling process, a library handle)."""

    def __enter__(self) -> "Meter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class NoMeter(Meter):
    """No power meter here; `reason` says why (and, where there is one, how to get one)."""

    name = "none"
    available = False

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def begin(self) -> Any:
        raise MeterUnavailableError(f"no power meter: {self.reason}")

    def end(self, token: Any) -> Window:
        raise MeterUnavailableError(f"no power meter: {self.reason}")


def integrate(segments: Sequence[tuple[float, float, float]], t0: float, t1: float) -> float:
    """Joules over [t0, t1] from piecewise-constant power: (start, end, watts) segments, each
    counted for the part of it inside the window."""
    return sum(watts * max(0.0, min(end, t1) - max(start, t0)) for start, end, watts in segments)


def trapezoids(readings: Sequence[Reading]) -> list[tuple[float, float, float]]:
    """Power samples taken at instants as segments of their mean power between neighbours (the
    trapezoid rule, for `integrate`)."""
    return [(a.t, b.t, (a.power_w + b.power_w) / 2) for a, b in zip(readings, readings[1:])
            if a.power_w is not None and b.power_w is not None]


class _Sampler:
    """A thread calling `read()` every `period_s` seconds until stopped; the readings in order."""

    def __init__(self, read: Callable[[], Reading], period_s: float) -> None:
        self.readings: list[Reading] = [read()]
        self._read, self._period, self._stop = read, period_s, threading.Event()
        self._thread = threading.Thread(target=self._run, name="metalforge-meter", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            self.readings.append(self._read())

    def stop(self) -> list[Reading]:
        self._stop.set()
        self._thread.join()
        self.readings.append(self._read())
        return self.readings


class NvmlMeter(Meter):
    """An NVIDIA GPU's energy through NVML. `nvml`: the `pynvml` module (a stand-in in tests);
    `clock`: the time source (monotonic seconds)."""

    name = "nvml"

    def __init__(self, index: int = 0, nvml: Any = None, clock: Callable[[], float] = time.monotonic,
                 sample_s: float = SAMPLE_S) -> None:
        if nvml is None:
            import pynvml as nvml  # the optional `energy` extra
        self.nvml, self.clock, self.sample_s = nvml, clock, sample_s
        nvml.nvmlInit()
        self.handle = nvml.nvmlDeviceGetHandleByIndex(index)
        try:
            nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle)
            self.counter = True
        except nvml.NVMLError:  # older GPUs: NotSupported
            self.counter = False
        # The counter is in mJ and updated every few ms; power readings are averages over up to 1 s.
        self.window_s = 0.5 if self.counter else 1.0
        self.name = "nvml-counter" if self.counter else "nvml-power"

    def _optional(self, read: Callable[..., Any], *args: Any) -> Optional[float]:
        try:
            return float(read(self.handle, *args))
        except self.nvml.NVMLError:
            return None

    def sample(self) -> Reading:
        n = self.nvml
        power = self._optional(n.nvmlDeviceGetPowerUsage)
        return Reading(self.clock(), None if power is None else power / 1e3,
                       self._optional(n.nvmlDeviceGetClockInfo, n.NVML_CLOCK_SM),
                       self._optional(n.nvmlDeviceGetClockInfo, n.NVML_CLOCK_MEM),
                       self._optional(n.nvmlDeviceGetTemperature, n.NVML_TEMPERATURE_GPU))

    def energy_mj(self) -> float:
        return float(self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle))

    def begin(self) -> Any:
        if self.counter:
            return self.sample(), self.energy_mj()
        return _Sampler(self.sample, self.sample_s)

    def end(self, token: Any) -> Window:
        if self.counter:
            first, start_mj = token
            stop_mj, last = self.energy_mj(), self.sample()
            return Window((stop_mj - start_mj) / 1e3, last.t - first.t, [first, last])
        readings = token.stop()
        return Window(integrate(trapezoids(readings), readings[0].t, readings[-1].t),
                      readings[-1].t - readings[0].t, readings)

    def close(self) -> None:
        try:
            self.nvml.nvmlShutdown()
        except self.nvml.NVMLError:
            pass


def parse_powermetrics(chunk: bytes) -> Optional[tuple[float, float, Optional[float]]]:
    """One powermetrics plist sample as (seconds it covers, GPU joules, GPU clock MHz); None when it
    holds no GPU power (another sampler's output). `processor.gpu_energy` is millijoules over the
    sample; older macOS gives `processor.gpu_power` (mW) instead."""
    try:
        data = plistlib.loads(chunk.strip(b"\x00\n"))
    except (plistlib.InvalidFileException, ValueError):
        return None
    seconds = data.get("elapsed_ns", 0) / 1e9
    processor, gpu = data.get("processor", {}), data.get("gpu", {})
    if "gpu_energy" in processor:
        joules = processor["gpu_energy"] / 1e3
    elif "gpu_power" in processor:
        joules = processor["gpu_power"] / 1e3 * seconds
    else:
        return None
    freq = gpu.get("freq_hz")
    return seconds, joules, None if freq is None else freq / 1e6


class PowermetricsMeter(Meter):
    """Apple GPU energy from `powermetrics` samples every `interval_ms`. `command` starts it (with
    `sudo -n` in front when not root: see `powermetrics_meter`). The process runs from the first
    `begin` until `close` (also at exit).

    Each sample is the GPU energy over its `elapsed_ns`, and consecutive samples tile powermetrics'
    time, so the samples are laid end to end as segments of constant power on one timeline. That
    timeline is placed on ours by the earliest any sample arrived after its end (`_offset`: a
    sample's arrival is its end plus a delivery delay, which varies with the machine's load; the
    smallest delay seen is the best estimate of none; this assumes `elapsed_ns` and our monotonic
    clock tick at the same rate). Placing each sample at its own arrival instead shifts the
    window's edges by the difference of two delays: on a loaded machine, milliseconds of energy
    counted twice or not at all. A window counts the parts of the segments
    inside it, so its joules are those of exactly its seconds, shifted by at most the smallest
    delivery delay; `end` waits (bounded) for the sample covering the window's end."""

    name = "powermetrics"

    def __init__(self, command: Sequence[str], interval_ms: int = POWERMETRICS_INTERVAL_MS) -> None:
        self.command, self.interval_s = list(command), interval_ms / 1e3
        # The two samples at a window's edges are prorated at their mean power: over 20 intervals,
        # at most a tenth of the window is so estimated.
        self.window_s = 20 * self.interval_s
        self.samples: list[tuple[float, float, float, Optional[float]]] = []  # start, end, W, MHz
        self._elapsed = 0.0      # the end of the last sample on powermetrics' timeline
        self._offset = math.inf  # our time minus powermetrics' timeline
        self._process: Optional[subprocess.Popen] = None
        self._arrived = threading.Condition()

    def _start(self) -> None:
        if self._process is not None:
            return
        self._process = subprocess.Popen([*self.command, "--samplers", "gpu_power", "-f", "plist", "-i",
                                          str(round(self.interval_s * 1e3))],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, start_new_session=True)
        atexit.register(self.close)
        threading.Thread(target=self._read, args=(self._process.stdout,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        buffer = b""
        for block in iter(lambda: stream.read1(65536), b""):
            arrived = time.monotonic()
            buffer += block
            *samples, buffer = buffer.split(b"\x00")
            for chunk in samples:
                parsed = parse_powermetrics(chunk)
                if parsed is not None:
                    self.add_sample(arrived, *parsed)

    def add_sample(self, arrived: float, seconds: float, joules: float, clock_mhz: Optional[float]) -> None:
        """Lay a sample that `arrived` (monotonic seconds) end to end after the previous ones and
        refine the timeline's placement with its arrival."""
        with self._arrived:
            if seconds > 0:  # a sample without elapsed time places nothing
                start, self._elapsed = self._elapsed, self._elapsed + seconds
                self._offset = min(self._offset, arrived - self._elapsed)
                self.samples.append((start, self._elapsed, joules / seconds, clock_mhz))
            self._arrived.notify_all()

    def _covers(self, t: float) -> bool:
        return bool(self.samples) and self._elapsed + self._offset >= t

    def _wait_for(self, t: float) -> None:
        """Wait until a sample covering time `t` has arrived (powermetrics sends one per interval)."""
        limit_s = 3 * self.interval_s + PROBE_TIMEOUT_S
        deadline = time.monotonic() + limit_s
        with self._arrived:
            while not self._covers(t):
                remaining = deadline - time.monotonic()
                if self._process is None or self._process.poll() is not None:
                    raise MeterUnavailableError(f"powermetrics ({' '.join(self.command)}) stopped sending samples")
                if remaining <= 0:
                    raise MeterUnavailableError(
                        f"powermetrics ({' '.join(self.command)}) sent no sample covering the window "
                        f"within {limit_s:g} s (it samples every {self.interval_s:g} s): is it stalled?")
                self._arrived.wait(min(remaining, 0.1))

    def window(self, t0: float, t1: float) -> Window:
        """The window [t0, t1] (monotonic seconds) against the samples arrived so far: the parts of
        the segments inside it, and a reading per sample overlapping it."""
        with self._arrived:
            offset, samples = self._offset, list(self.samples)
        placed = [(start + offset, end + offset, watts, clock) for start, end, watts, clock in samples]
        return Window(integrate([segment[:3] for segment in placed], t0, t1), t1 - t0,
                      [Reading(end, watts, clock) for start, end, watts, clock in placed if start < t1 and end > t0])

    def begin(self) -> Any:
        """Start powermetrics if needed and wait for its first sample: the timeline then reaches
        back to before the window's start."""
        self._start()
        self._wait_for(-math.inf)
        return time.monotonic()

    def end(self, token: Any) -> Window:
        t1 = time.monotonic()
        self._wait_for(t1)
        return self.window(token, t1)

    def sample(self) -> Reading:
        self._start()
        with self._arrived:
            if not self.samples:
                return Reading(time.monotonic())
            start, end, watts, clock = self.samples[-1]
            return Reading(end + self._offset, watts, clock)

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, 15)
                process.wait(timeout=PROBE_TIMEOUT_S)
            except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
                process.kill()  # sudo's child runs as root: the group signal may be refused
                process.wait()


def powermetrics_meter(system: str = platform.system(), which: Callable[[str], Optional[str]] = shutil.which,
                       euid: Optional[int] = None) -> Meter:
    """A `PowermetricsMeter` when powermetrics can run without a password here, else `NoMeter` with
    the reason and the fix. As root it runs directly; otherwise `sudo -n` (non-interactive: it fails
    at once instead of asking) must be allowed to run it, which is checked with a timeout."""
    if system != "Darwin":
        return NoMeter(f"powermetrics is macOS's; this is {system}")
    tool = which("powermetrics")
    if tool is None:
        return NoMeter("powermetrics is not on PATH (it ships with macOS in /usr/bin)")
    if (os.geteuid() if euid is None else euid) == 0:
        return PowermetricsMeter([tool])
    sudo = which("sudo")
    refusal = "sudo is not on PATH"
    if sudo is not None:
        try:
            probe = subprocess.run([sudo, "-n", tool, "-n", "1", "-i", "1", "--samplers", "gpu_power"],
                                   stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                   timeout=PROBE_TIMEOUT_S)
            if probe.returncode == 0:
                return PowermetricsMeter([sudo, "-n", tool])
            refusal = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[0]
        except subprocess.TimeoutExpired:
            refusal = f"`sudo -n powermetrics` did not answer within {PROBE_TIMEOUT_S:g} s"
    return NoMeter(f"powermetrics needs root ({refusal}): run as root, or allow it without a password with "
                   f"a sudoers line such as `{os.environ.get('USER', 'you')} ALL=(root) NOPASSWD: {tool}`")


def nvml_meter(index: int = 0) -> Meter:
    """An `NvmlMeter` for GPU `index`, else `NoMeter` saying why (nvidia-ml-py missing, no driver)."""
    try:
        import pynvml
    except ImportError:
        return NoMeter("nvidia-ml-py is not installed (pip install 'metalforge[energy]')")
    try:
        return NvmlMeter(index, pynvml)
    except pynvml.NVMLError as e:
        return NoMeter(f"NVML cannot read GPU {index}: {e}")


def meter_for(backend_name: str) -> Meter:
    """The power meter of the device `backend_name` runs on: NVML for cuda, powermetrics for metal;
    the emulator runs on the CPU and has none."""
    if backend_name == "cuda":
        return nvml_meter()
    if backend_name == "metal":
        return powermetrics_meter()
    return NoMeter(f"the {backend_name} back end has no power meter (energy objectives need a GPU: "
                   "NVML on NVIDIA, powermetrics on a Mac)")
