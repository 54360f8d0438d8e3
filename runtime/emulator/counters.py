"""Counting mode: what each emulator launch executed, exactly, per launch, per threadgroup and per
output element.

Counted (shim/mfemu/counts.h; the layout mirrors shim/mfemu/abi.h):

- memory accesses through `device`, `constant` and `threadgroup` pointers, per thread, loads and
  stores, by width (bytes per access as the Metal source writes it: a load through a
  `device half4*` is one 8-byte access, four `half` loads are four 2-byte accesses) and their
  bytes. Accesses are counted in clang's unoptimised IR, before anything is merged or removed:
  Apple's compiler may combine adjacent accesses or drop repeated ones, which is not modelled.
  A `simdgroup_load`/`simdgroup_store` moves each lane's two elements as two scalar accesses of
  the matrix's memory; Metal 4 tensor ops (`matmul2d`) count their element accesses only;
- threadgroup barriers, once per threadgroup that executes one; `simdgroup_barrier`, simd
  shuffles (permutations, broadcasts) and simd reductions (folds, scans, votes), once per
  simdgroup; simdgroup-matrix loads, stores and multiply-accumulates (`simdgroup_multiply` too),
  once per simdgroup (8x8 each);
- atomic operations, per thread, on device and on threadgroup memory.

Off by default, at no cost: kernels compile without counters. Inside `with counting() as launches:`
every emulator launch runs a separately compiled (and cached) counting variant of its kernel and
appends a `LaunchCounts` to `launches`; `METALFORGE_EMULATOR_COUNTS=1` counts every launch of the
process and prints one summary line per launch on stderr.
"""
from __future__ import annotations

import contextlib
import sys
import threading
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ... import env

COUNTS_ENV = "METALFORGE_EMULATOR_COUNTS"
SPACES = ("device", "constant", "threadgroup")  # abi.h CounterSpace
DIRECTIONS = ("load", "store")
WIDTH_SLOTS = 65                                # abi.h kWidthSlots: widths 1..64; slot 0: any other size
ACCESS_BLOCK = WIDTH_SLOTS + 1                  # abi.h kAccessBlock: the widths, then the bytes
EVENTS = ("barriers", "simdgroup_barriers", "simd_shuffles", "simd_reductions", "matrix_loads", "matrix_stores",
          "matrix_mmas", "device_atomics", "threadgroup_atomics")  # abi.h Event
EVENT_BASE = len(SPACES) * len(DIRECTIONS) * ACCESS_BLOCK
COUNTERS = EVENT_BASE + len(EVENTS)             # abi.h kCounters


def _block(space: str, direction: str) -> int:
    if space not in SPACES or direction not in DIRECTIONS:
        raise ValueError(f"memory counts are kept for spaces {SPACES} and directions {DIRECTIONS}, not "
                         f"{space!r}/{direction!r}")
    return (SPACES.index(space) * 2 + DIRECTIONS.index(direction)) * ACCESS_BLOCK


@dataclass(frozen=True)
class Counts:
    """One vector of counters: a launch's total, or one threadgroup's."""

    values: np.ndarray  # COUNTERS integers

    def widths(self, space: str = "device", direction: str = "load") -> dict[int, int]:
        """Accesses by bytes per access ({16: 256} is 256 accesses of 16 bytes; 0: a memcpy/memset of
        a size that is not a constant from 1 to 64)."""
        base = _block(space, direction)
        return {w: int(n) for w, n in enumerate(self.values[base:base + WIDTH_SLOTS]) if n}

    def accesses(self, space: str = "device", direction: str | None = None) -> int:
        """Memory accesses (instructions, per thread) in `space`, loads and stores unless `direction`."""
        return sum(sum(self.widths(space, d).values()) for d in ((direction,) if direction else DIRECTIONS))

    def bytes(self, space: str = "device", direction: str | None = None) -> int:
        """Bytes those accesses moved."""
        return sum(int(self.values[_block(space, d) + WIDTH_SLOTS]) for d in ((direction,) if direction else DIRECTIONS))

    def event(self, name: str) -> int:
        """A counter of EVENTS (`barriers`, `matrix_mmas`, ...)."""
        if name not in EVENTS:
            raise ValueError(f"no event counter {name!r}; the events counted are {', '.join(EVENTS)}")
        return int(self.values[EVENT_BASE + EVENTS.index(name)])

    def as_dict(self) -> dict[str, int]:
        """Every nonzero counter by name: `device_loads`, `device_load_bytes`, `device_load_16B` (accesses
        of 16 bytes), ... and the EVENTS."""
        out: dict[str, int] = {}
        for space in SPACES:
            for d in DIRECTIONS:
                out[f"{space}_{d}s"] = self.accesses(space, d)
                out[f"{space}_{d}_bytes"] = self.bytes(space, d)
                out.update({f"{space}_{d}_{w}B" if w else f"{space}_{d}_other": n
                            for w, n in self.widths(space, d).items()})
        out.update({name: self.event(name) for name in EVENTS})
        return {k: v for k, v in out.items() if v}


@dataclass(frozen=True)
class LaunchCounts:
    """What one launch executed: `groups` holds one row of counters per threadgroup, in the order
    of their positions in the grid (x fastest)."""

    kernel: str
    grid: tuple[int, int, int]
    threadgroup: tuple[int, int, int]
    output_elements: int  # elements of all outputs together
    groups: np.ndarray    # (threadgroups, COUNTERS) integers

    @property
    def threadgroups(self) -> int:
        return len(self.groups)

    @property
    def total(self) -> Counts:
        return Counts(self.groups.sum(axis=0, dtype=np.uint64))

    def threadgroup_counts(self, index: int) -> Counts:
        """The counters of threadgroup `index` (x + count_x * (y + count_y * z))."""
        return Counts(self.groups[index])

    def per_threadgroup(self) -> dict[str, float]:
        """The total's counters divided by the number of threadgroups."""
        return {k: v / max(1, self.threadgroups) for k, v in self.total.as_dict().items()}

    def per_element(self) -> dict[str, float]:
        """The total's counters divided by the number of output elements."""
        return {k: v / max(1, self.output_elements) for k, v in self.total.as_dict().items()}

    def summary(self) -> str:
        """One line: device and threadgroup traffic, and the events that happened."""
        t = self.total
        parts = [f"device {t.accesses('device', 'load')} loads / {t.bytes('device', 'load')} B, "
                 f"{t.accesses('device', 'store')} stores / {t.bytes('device', 'store')} B",
                 f"threadgroup {t.accesses('threadgroup')} accesses / {t.bytes('threadgroup')} B"]
        parts += [f"{name} {t.event(name)}" for name in EVENTS if t.event(name)]
        return f"{self.kernel}: grid {self.grid} threadgroup {self.threadgroup} ({self.threadgroups} groups): " + \
            "; ".join(parts)


_collectors: list[list[LaunchCounts]] = []
_lock = threading.Lock()


def active() -> bool:
    """Whether launches are counted now (inside `counting()`, or METALFORGE_EMULATOR_COUNTS=1)."""
    return bool(_collectors) or env.flag(COUNTS_ENV, False)


@contextlib.contextmanager
def counting() -> Iterator[list[LaunchCounts]]:
    """Count every emulator launch in the block: yields the list each launch's LaunchCounts is
    appended to (nested blocks each get every launch)."""
    launches: list[LaunchCounts] = []
    with _lock:
        _collectors.append(launches)
    try:
        yield launches
    finally:
        with _lock:
            del _collectors[next(i for i, c in enumerate(_collectors) if c is launches)]  # not ==: lists


def record(launch: LaunchCounts) -> None:
    """Hand a counted launch to every open `counting()` block (and to stderr under the env flag)."""
    with _lock:
        for launches in _collectors:
            launches.append(launch)
    if env.flag(COUNTS_ENV, False):
        print(f"[metalforge counts] {launch.summary()}", file=sys.stderr)
