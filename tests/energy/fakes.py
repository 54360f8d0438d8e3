"""Stand-ins for the energy tests: an NVML module replaying a trace, and a meter whose energy is known
exactly (constant idle power plus a charge per launch)."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from metalforge.runtime.meters import Meter, Reading, Window

TRACE = json.loads(Path(__file__).with_name("nvml_trace.json").read_text())["rows"]


class FakeNVML:
    """The part of `pynvml` the NVML meter uses, answering from `TRACE` at the time `now` (the row
    at or before it). `counter=False` plays a GPU without the total-energy counter; `step_s` > 0
    advances the time by that much at each reading of the clock (`clock`), up to the trace's last row
    (then the clock stands still: a sampling thread may read it any number of times)."""

    NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU = 1, 2, 0

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
            self.now = min(round(self.now + self.step_s, 6), TRACE[-1]["t"])
            return now

    def row(self) -> dict:
        return [r for r in TRACE if r["t"] <= self.now + 1e-9][-1]

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
