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
`measure(seconds, step)` runs work over windows (`step`, one unit of work, called until the window is
covered), `settle()` waits for the power to stop falling after work, before idle power is measured:
the NVML counter's windows run from one observed change of the counter to another (see NvmlMeter).
"""
from __future__ import annotations

import atexit
import math
import os
import platform
import plistlib
import shutil
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from ..errors import MetalforgeError

SAMPLE_S = 0.01              # NVML power sampling period without an energy counter
POLL_S = 0.001               # the NVML energy counter is read this often while a window waits for it to change
WINDOW_STEPS = 10            # an NVML counter window spans at least this many of the counter's updates
MIN_WINDOW_S = 0.5           # ... and at least this long (a counter updating faster than every 50 ms)
PERIOD_STEPS = 4             # counter updates timed when the meter opens, to measure their period
STEP_TIMEOUT_S = 1.0         # a counter that does not change for this long is stuck (the H200's: every ~0.1 s)
SETTLE_STEPS = 10            # settle() waits at most this many counter updates for the power to stop falling
SETTLE_TOLERANCE = 0.02      # a step's power this close to the previous one's is "no longer falling"
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
    counter's or sampler's update period); `period_s`: the update period of a meter whose readings
    change in steps (None otherwise); `available`/`reason`: whether it can measure here and, if not,
    why; `note`: anything else about how it measures (a fallback taken)."""

    name = "meter"
    window_s = 1.0
    period_s: Optional[float] = None
    available = True
    reason = ""
    note = ""
    clock: Callable[[], float] = staticmethod(time.monotonic)

    def begin(self) -> Any:
        """Start a window; returns a token for `end`."""
        raise NotImplementedError

    def end(self, token: Any) -> Window:
        """Close the window started by `begin`."""
        raise NotImplementedError

    def sample(self) -> Reading:
        """One reading now (power, clocks, temperature), for traces over time."""
        return Reading(time.monotonic())

    def measure(self, seconds: float, step: Optional[Callable[[], int]] = None,
                windows: int = 1) -> list[tuple[Window, int]]:
        """`windows` consecutive windows of at least `seconds` each, with `step` (one unit of work,
        finished when it returns; it returns how many launches it ran) called over and over while
        they are open, or nothing run (`step` None: idle power). Each window with the launches run
        inside it. This one opens each window with `begin`, runs the work until `seconds` have
        passed and closes it with `end`; a meter whose readings change in steps aligns them."""
        measured = []
        for _ in range(windows):
            token, launches = self.begin(), 0
            deadline = self.clock() + seconds
            if step is None:
                time.sleep(seconds)
            while step is not None and self.clock() < deadline:
                launches += step()
            measured.append((self.end(token), launches))
        return measured

    def settle(self) -> float:
        """Wait until the device's power has stopped falling after work (idle power is measured
        after it); the seconds waited. This one cannot tell and waits for nothing."""
        return 0.0

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
    `clock`: the time source (monotonic seconds); `sleep`: how to wait (a simulated clock's in tests).

    The total-energy counter changes in steps: on the H200 every ~101 ms (docs/runs), so a window
    read at arbitrary instants counts whole steps over a time that is not theirs (up to one step
    per edge: +-20% of a 0.5 s window). Counter windows therefore run from one observed change of
    the counter to another: the counter is read every POLL_S (between units of work while work
    runs) and a window starts at the first change seen and ends at the first change seen once
    `seconds` (less half a step) have passed, its joules the counter's difference between the two
    changes and its seconds the host time between them. The work runs from before the first edge
    (a lead-in of one update period, so a counter published late still counts only work) until
    the last. Each edge is seen late by at most one poll plus one unit of work (`delta`), so the
    window's seconds are off by at most `delta` against the counter's: a relative error at most
    P_max/P_min x delta / seconds (1 ms over 1 s: 0.1%). The update period is measured when the
    meter opens (`period_s`: the median of PERIOD_STEPS observed steps) and windows span at least
    WINDOW_STEPS of them. A counter that does not change within STEP_TIMEOUT_S at open is not used
    (power sampling instead, `note` says why); one that stops later raises MeterUnavailableError."""

    name = "nvml"

    def __init__(self, index: int = 0, nvml: Any = None, clock: Callable[[], float] = time.monotonic,
                 sample_s: float = SAMPLE_S, sleep: Callable[[float], None] = time.sleep) -> None:
        if nvml is None:
            import pynvml as nvml  # the optional `energy` extra
        self.nvml, self.clock, self.sample_s, self.sleep = nvml, clock, sample_s, sleep
        nvml.nvmlInit()
        self.handle = nvml.nvmlDeviceGetHandleByIndex(index)
        try:
            nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle)
            self.counter = True
        except nvml.NVMLError:  # older GPUs: NotSupported
            self.counter = False
        if self.counter:
            try:
                self.period_s = self._update_period()
            except MeterUnavailableError as e:
                self.counter, self.note = False, f"{e} when the meter opened: power is sampled instead"
        # Power readings are averages over up to 1 s: sampled windows span at least that.
        self.window_s = max(MIN_WINDOW_S, WINDOW_STEPS * self.period_s) if self.counter else 1.0
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

    def _edge(self, work: Optional[Callable[[], int]] = None,
              not_before: float = -math.inf) -> tuple[float, float, int]:
        """Run `work` until the counter is seen to change at or after host time `not_before`: the time
        it was seen (the first read showing it), the counter's value then, and the launches `work` ran
        meanwhile. The counter is read every POLL_S: after each sleep of POLL_S when there is no
        `work`, else after the first unit of work ending POLL_S or more after the last read. A counter
        unchanged for STEP_TIMEOUT_S raises MeterUnavailableError."""
        last, launches = self.energy_mj(), 0
        polled = changed = self.clock()
        while True:
            if work is None:
                self.sleep(POLL_S)
            else:
                launches += work()
            now = self.clock()
            if work is not None and now - polled < POLL_S:
                continue
            polled, value = now, self.energy_mj()
            if value != last:
                if now >= not_before:
                    return now, value, launches
                last, changed = value, now
            elif now - changed > STEP_TIMEOUT_S:
                raise MeterUnavailableError(f"NVML's energy counter did not change for {STEP_TIMEOUT_S:g} s")

    def _update_period(self) -> float:
        """The counter's update period: the median of PERIOD_STEPS steps observed at idle."""
        edges = [self._edge()[0] for _ in range(PERIOD_STEPS + 1)]
        return statistics.median(b - a for a, b in zip(edges, edges[1:]))

    def begin(self) -> Any:
        """Wait for the counter to change; the window starts there (`end` waits for another change:
        nothing runs meanwhile, so the window's last update period is mostly idle)."""
        if self.counter:
            t, mj, _ = self._edge()
            return self.sample(), t, mj
        return _Sampler(self.sample, self.sample_s)

    def end(self, token: Any) -> Window:
        if self.counter:
            first, t0, start_mj = token
            t1, stop_mj, _ = self._edge()
            return Window((stop_mj - start_mj) / 1e3, t1 - t0, [first, self.sample()])
        readings = token.stop()
        return Window(integrate(trapezoids(readings), readings[0].t, readings[-1].t),
                      readings[-1].t - readings[0].t, readings)

    def measure(self, seconds: float, step: Optional[Callable[[], int]] = None,
                windows: int = 1) -> list[tuple[Window, int]]:
        """Counter windows aligned to its changes (the class docstring), back to back: each ends at
        the first change seen once `seconds` less half an update period have passed since its start
        (so a window of WINDOW_STEPS periods spans that many steps, not one more), the next starts
        there. The work runs throughout, from a lead-in of one period before the first window."""
        if not self.counter:
            return super().measure(seconds, step, windows)
        t, mj, _ = self._edge(step, self.clock() + self.period_s)  # the lead-in
        first, measured = self.sample(), []
        for _ in range(windows):
            t1, mj1, launches = self._edge(step, t + seconds - self.period_s / 2)
            last = self.sample()
            measured.append((Window((mj1 - mj) / 1e3, t1 - t, [first, last]), launches))
            t, mj, first = t1, mj1, last
        return measured

    def settle(self) -> float:
        """Wait (nothing running) until the power over one counter step is no longer below the
        previous step's by more than SETTLE_TOLERANCE, at most SETTLE_STEPS steps; the seconds
        waited. The step that saw the work end is skipped. The tolerance covers how finely a step's
        power is known: its ends are each seen within one poll, +-1 ms of a ~100 ms step (1%) each."""
        if not self.counter:
            return super().settle()
        start = self.clock()
        t, mj, _ = self._edge()
        previous = None
        for _ in range(SETTLE_STEPS):
            t1, mj1, _ = self._edge()
            power = (mj1 - mj) / (t1 - t)
            if previous is not None and power >= previous * (1 - SETTLE_TOLERANCE):
                break
            previous, t, mj = power, t1, mj1
        return self.clock() - start

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
