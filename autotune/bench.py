"""Timing and checking one candidate config: median of repeated launches over rotating input copies,
the largest error against a reference, and joules per launch from a power meter."""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import mlx.core as mx
import numpy as np

from ..runtime.contention import ContentionLoad
from ..runtime.meters import Meter

ROTATION_BYTES = 64 << 20  # input copies cycled per candidate: enough bytes to push inputs out of caches
MAX_COPIES = 8
MIN_REPS, MAX_REPS = 5, 1000
ENERGY_REPEATS = 5  # energy windows per config: the spread is over these
SLOWDOWN_WINDOW_S = 0.25  # how long the contention load's copy rate is read, alone and beside a kernel
BATCH_MS, MAX_BATCH = 2.0, 64  # a batched sample: launches that one waited-for launch says take 2 ms

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
    """One launch, waited for; seconds and outputs. Raises TrialTimeout past `timeout_s` (a back end
    that can stop a running kernel stops it at the limit instead: `Autotuner.evaluate`)."""
    start = time.perf_counter()
    outputs = as_outputs(launch(args))
    mx.eval(outputs)
    elapsed = time.perf_counter() - start
    if elapsed > timeout_s:
        raise TrialTimeout(f"one launch took {elapsed:.3g} s > trial limit {timeout_s:.3g} s")
    return elapsed, outputs


def batch_size(estimate_s: float) -> int:
    """Launches in a batched sample: as many as take BATCH_MS by one waited-for launch's time (which
    includes the wait, so the batch's device time is somewhat less), at most MAX_BATCH."""
    return max(1, min(MAX_BATCH, round(BATCH_MS / 1e3 / estimate_s)))


def median_time_ms(launch: Callable[[tuple], Any], copies: list[tuple], *, warmup_ms: float, rep_ms: float,
                   timeout_s: float, batched: bool = False) -> float:
    """Median time per launch in ms: launches for `warmup_ms`, then `rep_ms` worth of timed ones (at
    least MIN_REPS samples), cycling through the input copies, within `timeout_s` overall.

    A sample is one launch, built and waited for, unless `batched` (a back end whose launches are
    lazy and run in order: CUDA): then a sample builds a batch of launches (`batch_size`) and
    evaluates them all at once, per launch. Waiting for the device after every launch added
    0.10-0.15 ms to a 0.17 ms matmul on the H200 and varied: between runs, the single-launch median
    of one config moved by up to 29%, the batched one by at most 8% (docs/autotune.md). Building
    counts: it is what a program pays per launch besides the device's time, and it differs between
    configs, since MLX's CUDA back end copies and hashes a kernel's whole cubin at every launch
    (3 us for a cubin under 12 KB, 12 us at 28 KB, 24 us at 53 KB on the H200's host,
    benchmarks/launch_cost.py); for the few-microsecond kernels of a decode step that is most of
    the cost, and a config of smaller code wins there."""
    deadline = time.perf_counter() + timeout_s
    estimate, _ = timed(launch, copies[0], timeout_s)
    batch = batch_size(estimate) if batched else 1
    n_warmup = math.ceil(max(1, min(MAX_REPS, int(warmup_ms / 1e3 / estimate))) / batch)
    n_rep = max(MIN_REPS, math.ceil(min(MAX_REPS, int(rep_ms / 1e3 / estimate)) / batch))
    times: list[float] = []
    launched = 0
    for i in range(n_warmup + n_rep):
        start = time.perf_counter()
        outputs: list[mx.array] = []
        for _ in range(batch):
            outputs += as_outputs(launch(copies[launched % len(copies)]))
            launched += 1
        mx.eval(outputs)
        elapsed = (time.perf_counter() - start) / batch
        if elapsed > timeout_s:
            raise TrialTimeout(f"one launch took {elapsed:.3g} s > trial limit {timeout_s:.3g} s")
        if i >= n_warmup:
            times.append(elapsed)
        if time.perf_counter() > deadline:
            raise TrialTimeout(f"measuring took longer than the trial limit {timeout_s:.3g} s "
                               f"(median launch so far {statistics.median(times or [elapsed]) * 1e3:.3g} ms)")
    return statistics.median(times) * 1e3


@dataclass
class EnergyResult:
    """Joules per launch (median over `per_call`, one value per repeated window) with the idle power
    subtracted, the spread of the repeats ((max - min) / median), the idle power (the mean of its
    measurements before and after the repeats; `idle_drift`: after less before, over that mean) and
    the mean power while launching, in watts."""

    joules: float
    spread: float
    idle_w: float
    busy_w: float
    calls: int
    per_call: list[float]
    idle_drift: float = 0.0


def launch_step(launch: Callable[[tuple], Any], copies: list[tuple], batch: int) -> Callable[[], int]:
    """One unit of work for a meter: `batch` launches (cycling through the input copies, on from
    where the last unit stopped) evaluated together; returns `batch` once they have finished."""
    launched = 0

    def step() -> int:
        nonlocal launched
        outputs: list[mx.array] = []
        for _ in range(batch):
            outputs += as_outputs(launch(copies[launched % len(copies)]))
            launched += 1
        mx.eval(outputs)
        return batch
    return step


def launch_for(launch: Callable[[tuple], Any], copies: list[tuple], seconds: float, batch: int) -> int:
    """Launch (cycling through the input copies, `batch` launches per evaluation) until `seconds`
    have passed; returns how many launches ran, all finished."""
    step, launched, deadline = launch_step(launch, copies, batch), 0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        launched += step()
    return launched


def idle_power(meter: Meter) -> float:
    """The device's idle power (W): once it has settled after work (`meter.settle`), over one
    `meter.window_s` window with nothing launched."""
    mx.synchronize()  # nothing of ours still running
    meter.settle()
    window, _ = meter.measure(meter.window_s)[0]
    return window.watts


def energy_seconds(meter: Meter, repeats: int, window_s: Optional[float] = None) -> float:
    """About how long `energy_per_call` meters on `meter` (to plan a run): two idle measurements (a
    settle of ~3 of the counter's updates, a lead-in of ~1.5 and a window each) and `repeats`
    windows (`window_s`, the meter's own by default) after a lead-in, each ending ~half an update past."""
    update, window = meter.period_s or 0.0, window_s or meter.window_s
    return 2 * (4.5 * update + meter.window_s) + 1.5 * update + repeats * (window + update / 2)


def energy_per_call(launch: Callable[[tuple], Any], copies: list[tuple], meter: Meter, *, estimate_s: float,
                    repeats: int = ENERGY_REPEATS, batched: bool = False,
                    window_s: Optional[float] = None) -> EnergyResult:
    """Joules per launch: `repeats` windows back to back (`meter.measure`, each at least `window_s`,
    by default `meter.window_s`, so the meter resolves the energy) over which launches run, each giving
    (joules - idle watts x seconds) / launches in it; the idle power is that before and after them
    (`idle_power`, their mean: the device warms while it works, and idle power rises with it).
    Launches are evaluated in batches as `median_time_ms` times them (`estimate_s`, one launch's
    time, sizes the batch), so the energy is that of the launches as the tuner timed them, host
    gaps included."""
    before = idle_power(meter)
    step = launch_step(launch, copies, batch_size(estimate_s) if batched else 1)
    windows = meter.measure(window_s or meter.window_s, step, repeats)
    after = idle_power(meter)
    idle_w = (before + after) / 2
    per_call = [(window.joules - idle_w * window.seconds) / calls for window, calls in windows]
    median = statistics.median(per_call)
    spread = (max(per_call) - min(per_call)) / abs(median) if median else math.inf
    return EnergyResult(median, spread, idle_w, statistics.fmean(w.watts for w, _ in windows), windows[-1][1],
                        per_call, (after - before) / idle_w if idle_w else 0.0)


@dataclass
class ContendedResult:
    """A config beside a contention load: its median time per launch while the load runs, and the
    slowdown it inflicts on the load (the load's copy rate alone over its rate beside the launches;
    None when the load did not copy in a window)."""

    time_ms: float
    slowdown: Optional[float]


def contended_time(launch: Callable[[tuple], Any], copies: list[tuple], load: ContentionLoad, *, warmup_ms: float,
                   rep_ms: float, timeout_s: float, estimate_s: float, batched: bool = False) -> ContendedResult:
    """Time a config with `load` running (as `median_time_ms` does alone), and read the load's copy
    rate for SLOWDOWN_WINDOW_S alone and then beside launches of the config, side by side."""
    with load.active():
        before = load.counters()
        time.sleep(SLOWDOWN_WINDOW_S)
        alone = load.copy_rate(before, load.counters())
        ms = median_time_ms(launch, copies, warmup_ms=warmup_ms, rep_ms=rep_ms, timeout_s=timeout_s, batched=batched)
        before = load.counters()
        launch_for(launch, copies, SLOWDOWN_WINDOW_S, batch_size(estimate_s) if batched else 1)
        beside = load.copy_rate(before, load.counters())
    return ContendedResult(ms, alone / beside if alone and beside else None)


def _host(a: Any) -> np.ndarray:
    if isinstance(a, mx.array):
        return np.array(a.astype(mx.float32) if a.dtype == mx.bfloat16 else a).astype(np.float64)
    return np.asarray(a, np.float64)


def _floating(a: Any) -> bool:
    if isinstance(a, mx.array):
        return mx.issubdtype(a.dtype, mx.floating)
    return np.issubdtype(np.asarray(a).dtype, np.floating)


def _device32(a: Any) -> mx.array:
    return a.astype(mx.float32) if isinstance(a, mx.array) else mx.array(np.asarray(a, np.float32))


def _element(a: Any, flat_index: int) -> float:
    if isinstance(a, mx.array):
        return a.reshape(-1)[flat_index].astype(mx.float32).item()
    return float(np.asarray(a).reshape(-1)[flat_index])


def _compare(got: Any, want: Any, rtol: float, atol: float) -> tuple[float, int, int]:
    """The largest absolute error (NaN against NaN counts as none, NaN against a number as inf), how
    many elements are outside rtol/atol, and the flat index of the first of them. Floating values are
    compared in float32 where they are (a large output pulled to the host in float64 cost seconds per
    trial); others in float64 on the host, where integers compare exactly."""
    if _floating(got) and _floating(want):
        xp, g, w = mx, _device32(got), _device32(want)
    else:
        xp, g, w = np, _host(got), _host(want)
    diff = xp.abs(g - w)
    diff = xp.where(xp.isnan(g) != xp.isnan(w), math.inf, xp.where(xp.isnan(diff), 0.0, diff))
    bad = xp.logical_not(xp.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)).reshape(-1)
    return xp.max(diff).item(), xp.sum(bad).item(), xp.argmax(bad).item()


def max_error(outputs: Sequence[mx.array], expected: Sequence[Any], rtol: Optional[float],
              atol: Optional[float]) -> tuple[float, Optional[str]]:
    """The largest absolute error of `outputs` against `expected`, and why they disagree (None: they
    agree within rtol/atol, which default by each output's dtype)."""
    if len(outputs) != len(expected):
        return float("inf"), f"{len(outputs)} outputs, the reference returned {len(expected)}"
    worst, reason = 0.0, None
    for i, (out, exp) in enumerate(zip(outputs, expected)):
        shape, want_shape = tuple(out.shape), tuple(np.shape(exp) if not isinstance(exp, mx.array) else exp.shape)
        if shape != want_shape:
            return float("inf"), f"output {i} has shape {shape}, the reference {want_shape}"
        if not math.prod(shape):
            continue
        default_rtol, default_atol = TOLERANCES.get(str(out.dtype).rsplit(".", 1)[-1], (0.0, 0.0))
        r, a = default_rtol if rtol is None else rtol, default_atol if atol is None else atol
        err, n_bad, first = _compare(out, exp, r, a)
        worst = max(worst, err)
        if reason is None and n_bad:
            where = tuple(int(j) for j in np.unravel_index(first, shape))
            reason = (f"output {i}: {n_bad} of {math.prod(shape)} elements differ (first at {where}: "
                      f"{_element(out, first):.6g} vs {_element(exp, first):.6g}; rtol={r}, atol={a})")
    return worst, reason
