"""Timing and checking one candidate config: median of repeated launches over rotating input copies,
and the largest error against a reference."""
from __future__ import annotations

import statistics
import time
from typing import Any, Callable, Optional, Sequence

import mlx.core as mx
import numpy as np

ROTATION_BYTES = 64 << 20  # input copies cycled per candidate: enough bytes to push inputs out of caches
MAX_COPIES = 8
MIN_REPS, MAX_REPS = 5, 1000

# (rtol, atol) by output dtype when the user gives none; integers and bools must match exactly.
TOLERANCES = {"float32": (1e-5, 1e-5), "float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2)}


class TrialTimeout(Exception):
    """A launch (or the whole measurement) of one candidate took longer than the trial time limit."""


def rotating_copies(args: Sequence[Any]) -> list[tuple]:
    """`args` plus copies of its arrays (other arguments shared), so consecutive timed launches read
    inputs that are not already in cache."""
    arrays = [a for a in args if isinstance(a, mx.array)]
    nbytes = sum(a.nbytes for a in arrays)
    if not nbytes:
        return [tuple(args)]
    count = max(1, min(MAX_COPIES, -(-ROTATION_BYTES // nbytes)))
    copies = [tuple(args)]
    for _ in range(count - 1):
        copies.append(tuple(mx.array(np.array(a, copy=True)) if isinstance(a, mx.array) else a for a in args))
    mx.eval([a for c in copies for a in c if isinstance(a, mx.array)])
    return copies


def as_outputs(result: Any) -> list[mx.array]:
    """A launch's return value (one array or a tuple) as a list."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def timed(launch: Callable[[tuple], Any], args: tuple, timeout_s: float) -> tuple[float, list[mx.array]]:
    """One launch, waited for; seconds and outputs. Raises TrialTimeout past `timeout_s` (the launch
    itself cannot be interrupted: a kernel that never ends hangs the tuner)."""
    start = time.perf_counter()
    outputs = as_outputs(launch(args))
    mx.eval(outputs)
    elapsed = time.perf_counter() - start
    if elapsed > timeout_s:
        raise TrialTimeout(f"one launch took {elapsed:.3g} s > trial limit {timeout_s:.3g} s")
    return elapsed, outputs


def median_time_ms(launch: Callable[[tuple], Any], copies: list[tuple], *, warmup_ms: float, rep_ms: float,
                   timeout_s: float) -> float:
    """Median launch time in ms: launches for `warmup_ms`, then `rep_ms` worth of timed ones (at least
    MIN_REPS), cycling through the input copies, within `timeout_s` overall."""
    deadline = time.perf_counter() + timeout_s
    estimate, _ = timed(launch, copies[0], timeout_s)
    n_warmup = max(1, min(MAX_REPS, int(warmup_ms / 1e3 / estimate)))
    n_rep = max(MIN_REPS, min(MAX_REPS, int(rep_ms / 1e3 / estimate)))
    times = []
    for i in range(n_warmup + n_rep):
        elapsed, _ = timed(launch, copies[i % len(copies)], timeout_s)
        if i >= n_warmup:
            times.append(elapsed)
        if time.perf_counter() > deadline:
            raise TrialTimeout(f"measuring took longer than the trial limit {timeout_s:.3g} s "
                               f"(median launch so far {statistics.median(times or [elapsed]) * 1e3:.3g} ms)")
    return statistics.median(times) * 1e3


def _host(a: Any) -> np.ndarray:
    if isinstance(a, mx.array):
        return np.array(a.astype(mx.float32) if a.dtype == mx.bfloat16 else a).astype(np.float64)
    return np.asarray(a, np.float64)


def max_error(outputs: Sequence[mx.array], expected: Sequence[Any], rtol: Optional[float],
              atol: Optional[float]) -> tuple[float, Optional[str]]:
    """The largest absolute error of `outputs` against `expected`, and why they disagree (None: they
    agree within rtol/atol, which default by each output's dtype)."""
    if len(outputs) != len(expected):
        return float("inf"), f"{len(outputs)} outputs, the reference returned {len(expected)}"
    worst, reason = 0.0, None
    for i, (out, exp) in enumerate(zip(outputs, expected)):
        got, want = _host(out), _host(exp)
        if got.shape != want.shape:
            return float("inf"), f"output {i} has shape {got.shape}, the reference {want.shape}"
        default_rtol, default_atol = TOLERANCES.get(str(out.dtype).rsplit(".", 1)[-1], (0.0, 0.0))
        r, a = default_rtol if rtol is None else rtol, default_atol if atol is None else atol
        diff = np.abs(got - want)
        err = float(np.nanmax(np.where(np.isnan(got) != np.isnan(want), np.inf, diff), initial=0.0))
        worst = max(worst, err)
        bad = ~np.isclose(got, want, rtol=r, atol=a, equal_nan=True)
        if reason is None and bad.any():
            first = tuple(int(j) for j in np.argwhere(bad)[0])
            reason = (f"output {i}: {int(bad.sum())} of {bad.size} elements differ (first at {first}: "
                      f"{float(got[first]):.6g} vs {float(want[first]):.6g}; rtol={r}, atol={a})")
    return worst, reason
