"""Stand-ins for the energy tests: NVML modules replaying a synthetic trace and the H200's recorded
energy counter, and a meter whose energy is known exactly (constant idle power plus a charge per
launch)."""
from __future__ import annotations

import bisect
import itertools
import json
import threading
import time
from pathlib import Path
from typing import Any

from metalforge.runtime.meters import Meter, Reading, Window

TRACE = json.loads(Path(__file__).with_name("nvml_trace.json").read_text())["rows"]
H200_TRACE = json.loads(Path(__file__).with_name("h200_nvml_trace.json").read_text())["rows"]


class FakeNVML:
    """The part of `pynvml` the NVML meter uses, answering from `TRACE` at the time `now` (the row
    at or before it). `counter=False` plays a GPU without the total-energy counter; `step_s` > 0
    advances the time by that much at each reading of the clock (`clock`), up to the trace's last row
    (then the clock stands still: a sampling thread may read it any number of times); `sleep` moves the
    time on (the meter's waits for the counter), whole microseconds as the rows' times are."""

    NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU = 1, 2, 0
    rows = TRACE

    class NVMLError(Exception):
        pass

    class NVMLError_NotSupported(NVMLError):
        pass

    def __init__(self, counter: bool = True, step_s: float = 0.0, start: float = 0.0) -> None:
        self.has_counter, self.step_s, self.now = counter, step_s, start
        self.lock = threading.Lock()
        self.initialised = 0

    def clock(self) -> float:
        with self.lock:
            now = self.now
            self.now = min(round(self.now + self.step_s, 6), self.rows[-1]["t"])
            return now

    def sleep(self, seconds: float) -> None:
        with self.lock:
            self.now = round(self.now + seconds, 6)

    def row(self) -> dict:
        return [r for r in self.rows if r["t"] <= self.now + 1e-9][-1]

    def nvmlInit(self) -> None:
        self.initialised += 1

    def nvmlShutdown(self) -> None:
        self.initialised -= 1

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"gpu{index}"

    def nvmlDeviceGetTotalEnergyConsumption(self, handle: str) -> int:
        if not self.has_counter:
            raise self.NVMLError_NotSupported("Not Supported")
        return self.row()["energy_mj"]

    def nvmlDeviceGetPowerUsage(self, handle: str) -> int:
        return self.row()["power_mw"]

    def nvmlDeviceGetClockInfo(self, handle: str, kind: int) -> int:
        return self.row()["sm_mhz" if kind == self.NVML_CLOCK_SM else "mem_mhz"]

    def nvmlDeviceGetTemperature(self, handle: str, kind: int) -> int:
        return self.row()["temp_c"]


class ReplayNVML(FakeNVML):
    """NVML as the H200 answered it (H200_TRACE), its energy counter replayed for as long as a test
    runs: the recorded changes of the counter (each at the time of the row that shows it; rows come
    every ~10 ms) repeat end to end, each step its recorded millijoules over its recorded interval,
    on a time axis starting at the first change. One row was read ~170 ms after its time (the next
    row's time says so: the first matmul compiled in between), so when its change happened is
    unknown: it is merged into the next change, which makes one step of ~0.3 s (the updates the
    recording could not see): an irregular step, as a meter may meet.

    The truth behind it: the GPU draws each step's mean power (its mJ over its interval) throughout
    the step, and `load_w` watts more while `work` runs (a simulated launch); the counter at any
    time is the whole millijoules of that energy up to the last step's end (as NVML's is up to its
    last update). `energy_j(t0, t1)` is the true energy of any span."""

    def __init__(self, load_w: float = 0.0, start: float = 0.0) -> None:
        super().__init__(counter=True, start=start)
        changes, carried = [], 0
        for a, b, c in zip(H200_TRACE, H200_TRACE[1:], H200_TRACE[2:] + [H200_TRACE[-1]]):
            if b["energy_mj"] != a["energy_mj"]:
                carried += b["energy_mj"] - a["energy_mj"]
                if c["t"] - b["t"] < 0.05:  # else `b` was read late: its change joins the next one
                    changes.append((b["t"], carried))
                    carried = 0
        self.steps = [(round(t1 - t0, 6), mj / 1e3) for (t0, _), (t1, mj) in itertools.pairwise(changes)]  # s, J
        self.ends = [round(t, 6) for t in itertools.accumulate(s for s, _ in self.steps)]
        self.cycle_s, self.cycle_j = self.ends[-1], sum(j for _, j in self.steps)
        self.base_mj = H200_TRACE[0]["energy_mj"]
        self.load_w = load_w
        self.busy_ends, self.busy_total = [0.0], [0.0]  # when each `work` ended; busy seconds by then

    def watts(self) -> list[float]:
        """Each recorded step's power (the background the load adds to)."""
        return [j / s for s, j in self.steps]

    def work(self, seconds: float) -> None:
        """A simulated launch: `seconds` of time at `load_w` above the background."""
        with self.lock:
            self.now = round(self.now + seconds, 6)
            self.busy_ends.append(self.now)
            self.busy_total.append(self.busy_total[-1] + seconds)

    def _busy_s(self, t: float) -> float:
        """Seconds of `work` before `t` (works run one after another, each ending at `busy_ends`)."""
        i = bisect.bisect_right(self.busy_ends, t)
        if i == len(self.busy_ends):
            return self.busy_total[-1]
        started = self.busy_ends[i] - (self.busy_total[i] - self.busy_total[i - 1])
        return self.busy_total[i - 1] + max(0.0, t - started)

    def _background_j(self, t: float) -> float:
        cycles, offset = divmod(t, self.cycle_s)
        i = bisect.bisect_right(self.ends, offset)
        done = sum(j for _, j in self.steps[:i])
        start = self.ends[i - 1] if i else 0.0
        seconds, joules = self.steps[min(i, len(self.steps) - 1)]
        return cycles * self.cycle_j + done + (offset - start) * joules / seconds

    def background_j(self, t0: float, t1: float) -> float:
        """The recorded steps' energy over [t0, t1], without the load."""
        return self._background_j(t1) - self._background_j(t0)

    def energy_j(self, t0: float, t1: float) -> float:
        return self.background_j(t0, t1) + self.load_w * (self._busy_s(t1) - self._busy_s(t0))

    def last_update(self, t: float) -> float:
        """The end of the last step at or before `t`."""
        cycles, offset = divmod(t + 1e-9, self.cycle_s)
        i = bisect.bisect_right(self.ends, offset)
        return cycles * self.cycle_s + (self.ends[i - 1] if i else 0.0)

    def row(self) -> dict:
        offset = self.now % self.cycle_s
        return [r for r in H200_TRACE if r["t"] <= offset + 1e-9][-1]

    def nvmlDeviceGetTotalEnergyConsumption(self, handle: str) -> int:
        return self.base_mj + int(self.energy_j(0.0, self.last_update(self.now)) * 1e3)


class FakeMeter(Meter):
    """A meter whose device draws `idle_w` always plus `joules[key]` per launch `charge(key)`d (the
    tests count launches through `Autotuner._launch`), over real elapsed time: joules per call come
    out exactly, whatever the timing, once idle power is subtracted."""

    name = "fake"

    def __init__(self, idle_w: float = 30.0, joules: Any = None, window_s: float = 0.02) -> None:
        self.idle_w, self.joules, self.window_s = idle_w, joules or {}, window_s
        self.charged = 0.0
        self.windows: list[Window] = []

    def charge(self, key: Any) -> None:
        self.charged += self.joules.get(key, 0.0)

    def begin(self) -> Any:
        return time.monotonic(), self.charged

    def end(self, token: Any) -> Window:
        t0, charged = token
        seconds = time.monotonic() - t0
        window = Window(self.idle_w * seconds + self.charged - charged, seconds, [Reading(t0), Reading(t0 + seconds)])
        self.windows.append(window)
        return window
