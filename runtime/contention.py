"""A contention load: a second process streaming memory for a share of the time, so that a kernel can
be timed as it runs beside other programs, and the slowdown it inflicts on them measured.

`ContentionLoad(share, device)` starts `contention_worker.py` (a copy loop at full speed for `share`
of every period, sleeping the rest: alone, it moves `share` x its copy bandwidth) on the CPU (numpy:
on a Mac the CPU and GPU share memory, so this contends with GPU kernels) or on the CUDA GPU (a
second CUDA process: cupy, else torch). It starts paused; `with load.active():` runs it.

The worker never outlives metalforge: it runs in its own process group, which `stop` (also called
by the context manager and at exit) ends, and it exits by itself when its parent is gone.
`counters()` read the worker's bytes moved and seconds spent copying; `copy_rate` over two readings
is its copy speed while it copied, which a kernel running beside it lowers: the other process's
slowdown is its rate alone over its rate beside the kernel.
"""
from __future__ import annotations

import atexit
import contextlib
import mmap
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, Optional

from ..errors import MetalforgeError
from .contention_worker import BUSY, BYTES, CONTROL_BYTES, FULL, READY, SEEN, SHARE

WORKER = Path(__file__).with_name("contention_worker.py")
START_TIMEOUT_S = 60.0  # importing cupy/torch and allocating on a GPU can take this long
STOP_TIMEOUT_S = 2.0
PERIOD_S = 0.05


class ContentionError(MetalforgeError):
    """The contention load could not start (its device or library is missing) or was misused."""


class ContentionLoad:
    """A second process streaming memory for `share` (0 < share <= 1) of every `period_s` on
    `device` ("cpu" or "cuda") over a buffer of `megabytes` (default: 256 MiB on the CPU, 4 GiB on
    a GPU: beyond the caches)."""

    def __init__(self, share: float = 0.5, device: str = "cpu", megabytes: Optional[int] = None,
                 period_s: float = PERIOD_S) -> None:
        if not 0 < share <= 1:
            raise ContentionError(f"contention share {share!r} must be in (0, 1]: the busy share of each period")
        if device not in ("cpu", "cuda"):
            raise ContentionError(f"contention device {device!r}: use 'cpu' or 'cuda'")
        self.share, self.device, self.period_s = share, device, period_s
        self.megabytes = megabytes or (256 if device == "cpu" else 4096)
        self.process: Optional[subprocess.Popen] = None
        self._control: Optional[mmap.mmap] = None
        self._path: Optional[str] = None
        self._log = None

    # -- life cycle ---------------------------------------------------------------------------------

    def start(self) -> "ContentionLoad":
        """Start the worker (paused) and wait until it has calibrated its copy speed."""
        if self.process is not None:
            return self
        fd, self._path = tempfile.mkstemp(prefix="metalforge-contention-")
        os.write(fd, bytes(CONTROL_BYTES))
        self._control = mmap.mmap(fd, CONTROL_BYTES)
        os.close(fd)
        self._log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), "--control", self._path, "--device", self.device, "--megabytes",
             str(self.megabytes), "--period", str(self.period_s), "--parent", str(os.getpid())],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log, start_new_session=True)
        atexit.register(self.stop)
        deadline = time.monotonic() + START_TIMEOUT_S
        while self._get(READY) == 0 and self.process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if self._get(READY) != 1:
            self._log.seek(0)
            why = self._log.read().decode(errors="replace").strip().splitlines()
            self.stop()
            raise ContentionError(f"the contention load on {self.device} did not start: "
                                  f"{why[-1] if why else f'no answer within {START_TIMEOUT_S:g} s'}"
                                  + ("; the GPU load needs cupy or torch with CUDA" if self.device == "cuda" else ""))
        return self

    def stop(self) -> None:
        """Stop the worker and everything in its process group; idempotent."""
        process, self.process = self.process, None
        if process is not None:
            if self._control is not None:
                self._put(SHARE, -1.0)
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # anything the worker started goes too
            process.wait()
            atexit.unregister(self.stop)
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._path)
            self._path = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> "ContentionLoad":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- control and readings -----------------------------------------------------------------------

    def _get(self, slot: int) -> float:
        return struct.unpack_from("d", self._control, 8 * slot)[0]

    def _put(self, slot: int, value: float) -> None:
        struct.pack_into("d", self._control, 8 * slot, value)

    def _require_running(self) -> None:
        if self.process is None:
            raise ContentionError("the contention load is not running: use `with ContentionLoad(...) as load:`")

    def _run_at(self, share: float) -> None:
        """Set the share and wait until the worker runs at it (it answers at its next period's start,
        after the chunk it is copying, however late a loaded machine runs it): once paused, its
        counters stand still."""
        self._put(SHARE, share)
        deadline = time.monotonic() + self.period_s + STOP_TIMEOUT_S
        while self._get(SEEN) != share:
            if self.process is None or self.process.poll() is not None or time.monotonic() > deadline:
                raise ContentionError(f"the contention load on {self.device} did not take share {share:g} within "
                                      f"{self.period_s + STOP_TIMEOUT_S:g} s (it exited or is stalled)")
            time.sleep(min(self.period_s, 0.01) / 2)

    @contextlib.contextmanager
    def active(self) -> Iterator["ContentionLoad"]:
        """Run the load (at `share`) inside the block; paused again after it. Waits on entry and on
        exit until the worker has taken the change."""
        self._require_running()
        self._run_at(self.share)
        try:
            yield self
        finally:
            if self._control is not None:
                self._run_at(0.0)

    @property
    def full_bytes_per_s(self) -> float:
        """The worker's copy speed (bytes read + written per second) measured alone at its start."""
        self._require_running()
        return self._get(FULL)

    def counters(self) -> tuple[float, float]:
        """(bytes moved, seconds spent copying) so far."""
        self._require_running()
        return self._get(BYTES), self._get(BUSY)

    @staticmethod
    def copy_rate(before: tuple[float, float], after: tuple[float, float]) -> Optional[float]:
        """Bytes per second the worker copied between two `counters()` readings, counting only the
        time it was copying (None if it did not copy in between)."""
        moved, busy = after[0] - before[0], after[1] - before[1]
        return moved / busy if busy > 0 else None
