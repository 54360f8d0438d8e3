"""Energy per call, Pareto fronts and contention (issue 23), for the lead's GPU run.

    python benchmarks/energy_bench.py --out DIR [--budget 200] [--repeats 5]
                                      [--front-trials qmv_kernel=4 matmul_kernel=4]
                                      [--kernels softmax_kernel ...] [--share 0.5] [--quick | --smoke]
                                      [--record-trace FILE]

In the order of the issue's targets, each part as far as `--budget` allows:

1. **Joules per call** of every library kernel at its benchmark shape (benchmarks/gpu_bench.py's
   `benchmark_shapes`), with the config the tuning database gives it (or its default): checked against
   the reference first, then timed and metered by the tuner's own `Autotuner.evaluate`
   (`energy_per_call`: idle power after a settle, before and after; `--repeats` windows of at least
   the meter's window each, aligned to NVML's counter; the median and spread of joules per call). A
   row whose spread is over 5% is metered again over windows 3 times as long, where the budget allows
   (the smallest kernels: their energy above idle is the smallest part of a window's).
2. **Pareto fronts** of the quantized matvec and matmul: `tune(objective=(time, energy))` over a
   handful of configs each (`--front-trials`), into DIR/tuning.sqlite (`metalforge db show qmv_kernel
   --db DIR/tuning.sqlite --plot DIR` shows them again); the energy the most efficient config within
   10% of the fastest time saves against the fastest; a PNG of each front.
3. **Contention**: under a load streaming memory `--share` of the time (a second CUDA process on the
   GPU machine, the CPU on a Mac), each front's measured configs timed beside it; the time-tuned config
   (fastest alone) and the contention-tuned one (fastest beside the load), each with its time alone,
   beside the load, and the slowdown it inflicts on the load, side by side.

**The budget is planned**: the meter's window and update period give each part's metering time
(`energy_seconds`: windows x repeats, idle measurements, settles), plus what compiling, checking and
timing a config took so far (OVERHEAD_S until one has been seen); a part that no longer fits is
skipped with a `SKIPPED:` line saying what it needed and what was left, and the next part tried.
The contention table's seconds are held back from the parts before it (`Plan.hold`). Start-up
(imports, opening the meter: it times NVML's counter updates) comes before the budget's clock
starts only as far as the script cannot see it.

Writes DIR/energy.json, DIR/energy.log and DIR/*-front.png; prints a short table last. Fails soft: a
row that breaks prints `FAILED: reason` and the rest goes on. The meter's update period (measured
when it opens) and read cost are in the table's last line; `--record-trace FILE` records an NVML
trace (counter, power, clocks, temperature every 10 ms over an idle-busy-idle second) in the format
of tests/energy/nvml_trace.json.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import mlx.core as mx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_bench import benchmark_shapes  # noqa: E402
from runlog import Log  # noqa: E402

import metalforge as mf  # noqa: E402
from metalforge.autotune import plot  # noqa: E402
from metalforge.autotune.bench import as_outputs, energy_seconds, rotating_copies  # noqa: E402
from metalforge.autotune.space import Config  # noqa: E402
from metalforge.kernels import registered  # noqa: E402
from metalforge.runtime import backends, meters  # noqa: E402
from metalforge.runtime.contention import ContentionLoad  # noqa: E402
from metalforge.tuning_db import TuningDB  # noqa: E402
from metalforge.tuning_db.front import pareto_front  # noqa: E402

FRONT_TRIALS = {"qmv_kernel": 4, "matmul_kernel": 4}
FRONT_OBJECTIVES = ("time", "energy")
FRONT_REPEATS = 3     # energy windows per config of a front (the per-call table takes --repeats)
OVERHEAD_S = 2.0      # compiling, checking and timing one config: the plan's guess until one is seen
LOAD_START_S = 5.0    # starting the contention load (a second process calibrating its copy speed)
CONTENDED_S = 1.5     # one config beside the load: its check, time alone, time beside, the load's rate
SPREAD_TARGET = 0.05  # the issue's bound on the spread of joules per call over the repeats
LONG_WINDOWS = 3      # a row that misses it is metered again over windows this many times the meter's


class Plan:
    """The run's budget: how long is left, what a config's compile-check-time has taken so far, and
    whether a part fits (a part that does not is logged as `SKIPPED: ...` and listed)."""

    def __init__(self, seconds: float, log: Log) -> None:
        self.deadline, self.log = time.perf_counter() + seconds, log
        self.overheads: list[float] = []
        self.skipped: list[str] = []
        self.held = 0.0

    def left(self) -> float:
        return self.deadline - time.perf_counter() - self.held

    def hold(self, seconds: float) -> None:
        """Keep `seconds` of the budget from every part until `hold(0)`: the contention table's, which
        the parts before it (their estimates short of what they took) once used up entirely."""
        self.held = seconds

    def overhead(self) -> float:
        """Seconds a config takes besides its metering: the mean seen so far, else OVERHEAD_S."""
        return sum(self.overheads) / len(self.overheads) if self.overheads else OVERHEAD_S

    def observe(self, took_s: float, metered_s: float) -> None:
        self.overheads.append(max(0.0, took_s - metered_s))

    def fits(self, what: str, seconds: float) -> bool:
        if seconds <= self.left():
            return True
        self.skip(f"{what}: needs ~{seconds:.0f} s, {max(0.0, self.left()):.0f} s left of --budget")
        return False

    def skip(self, why: str) -> None:
        self.skipped.append(f"SKIPPED: {why}")
        self.log(self.skipped[-1])


def soft(log: Log, what: str, failures: list[str], run: Callable[[], Any]) -> Any:
    """Run one row; a failure is logged, printed as `FAILED: reason`, and the script goes on."""
    try:
        return run()
    except Exception as e:  # noqa: BLE001 - one broken row never ends the run
        log(f"{what}: {traceback.format_exc()}")
        failures.append(f"FAILED: {what}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:160])
        return None


def probe_meter(meter: meters.Meter, reads: int = 200) -> dict:
    """NVML's energy counter: its update period (ms, measured when the meter opened) and what one read
    costs (us)."""
    if not isinstance(meter, meters.NvmlMeter) or not meter.counter:
        return {}
    start = time.perf_counter()
    for _ in range(reads):
        meter.energy_mj()
    return {"counter_update_ms": meter.period_s * 1e3, "window_s": meter.window_s,
            "read_us": (time.perf_counter() - start) / reads * 1e6}


def record_trace(meter: meters.Meter, path: Path, log: Log) -> None:
    """An NVML trace over 1.2 s (idle 0.3 s, matmuls for 0.5 s, idle): the test fixture's format."""
    if not isinstance(meter, meters.NvmlMeter):
        raise RuntimeError(f"a trace is recorded from NVML, not {meter.name}")
    a = mx.random.normal((4096, 4096)).astype(mx.float16)
    rows, start = [], time.monotonic()
    while (now := time.monotonic() - start) < 1.2:
        if 0.3 <= now < 0.8:
            mx.eval(a @ a)
        r = meter.sample()
        rows.append({"t": round(now, 4), "energy_mj": int(meter.energy_mj()) if meter.counter else None,
                     "power_mw": int((r.power_w or 0) * 1e3), "sm_mhz": r.sm_clock_mhz, "mem_mhz": r.mem_clock_mhz,
                     "temp_c": r.temperature_c})
        time.sleep(max(0.0, 0.01 - (time.monotonic() - start - now)))
    about = f"Recorded by benchmarks/energy_bench.py on {device_name()} at {datetime.datetime.now():%Y-%m-%d %H:%M}"
    path.write_text(json.dumps({"about": about, "rows": rows}, indent=0))
    log(f"trace: {len(rows)} rows into {path}")


def start(out_dir: str, db: str | None, name: str) -> tuple[Path, Log, Any, meters.Meter]:
    """A benchmark's output directory, its log `<name>.log` there, the back end and its meter; the
    tuning database is `db`, else DIR/tuning.sqlite (energy_bench.py and sustained.py share it).
    Without a meter there is nothing to measure: it says why and exits 1."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    os.environ["METALFORGE_DB"] = db or str(out / "tuning.sqlite")
    log = Log(out / f"{name}.log")
    backend = backends.resolve()
    meter = meters.meter_for(backend.name)
    log(f"{name} on {backend.name} ({device_name()}), meter {meter.name}: "
        f"{meter.reason or meter.note or 'available'}")
    if not meter.available:
        print(f"FAILED: no power meter on {backend.name}: {meter.reason}")
        sys.exit(1)
    return out, log, backend, meter


def device_name() -> str:
    info = mx.device_info() if backends.resolve().name != "emulator" else {}
    return str(info.get("device_name", platform.processor() or platform.machine()))


@contextlib.contextmanager
def tuner_settings(tuner: Any, **values: Any):
    """A library tuner's attributes set for one part and restored after it, and its configs by shape
    forgotten (a tuning keeps its winner there): the registered tuners serve the whole process."""
    saved = {name: getattr(tuner, name) for name in values}
    for name, value in values.items():
        setattr(tuner, name, value)
    try:
        yield tuner
    finally:
        for name, value in saved.items():
            setattr(tuner, name, value)
        tuner.clear_cache()


def joules_per_call(name: str, shape: tuple, meter: meters.Meter, repeats: int, log: Log,
                    longer: Callable[[float], bool] = lambda seconds: False) -> dict:
    """One library kernel at one shape: its looked-up config checked, timed and metered over windows of
    the meter's length; where the spread over them misses SPREAD_TARGET and `longer(seconds)` allows
    it, metered again over windows LONG_WINDOWS times as long (a small kernel's energy above idle is a
    small part of a window's, so the counter's and the host's jitter weigh more), and that is the row,
    with the first spread kept beside it."""
    tuner = registered()[name]
    dtype = tuner.dtypes[0]
    grid, args = tuner.tune_case(shape, dtype)
    config, source = tuner.config_for(grid, *args)
    expected = as_outputs(tuner.reference(*args))
    window, first_spread = meter.window_s, None
    with tuner_settings(tuner, energy_repeats=repeats, energy_window_s=None):
        while True:
            r = tuner.evaluate(grid, config, rotating_copies(args), expected, meter=meter)
            if r.status != "ok":
                raise RuntimeError(f"{r.status}: {r.reason.splitlines()[0] if r.reason else ''}")
            log(f"{name} {'x'.join(map(str, shape))}: {r.time_ms:.4g} ms, {r.energy_j * 1e3:.4g} mJ/call "
                f"(spread {r.energy_spread:.1%} over {window:.3g} s windows), {r.power_w:.0f} W busy, "
                f"{r.idle_w:.0f} W idle (drift {r.idle_drift:+.1%}); config {config} ({source})")
            long_window = window * LONG_WINDOWS
            if first_spread is not None or r.energy_spread <= SPREAD_TARGET or not longer(
                    energy_seconds(meter, repeats, long_window)):
                break
            first_spread, window = r.energy_spread, long_window
            tuner.energy_window_s = window
    return {"kernel": name, "shape": "x".join(map(str, shape)), "dtype": str(dtype).rsplit(".", 1)[-1],
            "config": str(config), "config_from": source, **r.figures, "idle_drift": r.idle_drift,
            "window_s": window, "first_spread": first_spread}


def front_study(name: str, shape: tuple, trials: int, timeout: float, meter: meters.Meter, log: Log,
                out: Path) -> dict:
    """A time-and-energy tuning of one kernel (at most `trials` configs in `timeout` seconds): its
    front, the energy saved within 10% of the fastest, and its measured configs fastest first (for
    the contention table)."""
    tuner = registered()[name]
    dtype = tuner.dtypes[0]
    grid, args = tuner.tune_case(shape, dtype)
    t0 = time.perf_counter()
    with tuner_settings(tuner, energy_repeats=FRONT_REPEATS):
        tuner.tune(grid, *args, trials=trials, objective=FRONT_OBJECTIVES, timeout=timeout, meter=meter)
    db = TuningDB(tuner.db_path)
    winner = db.lookup(tuner.tuning_key(args)).winner
    # one row per config: a point the sampler suggests again is a trial of its own, with the first's figures
    ok = sorted({t["config"]: t for t in db.trials(name) if t["study"] == winner["study"] and t["status"] == "ok"
                 and t["energy_j"] is not None}.values(), key=lambda t: t["time_ms"])
    front = pareto_front(ok, ("time_ms", "energy_j"))
    fastest = ok[0]
    near = [t for t in ok if t["time_ms"] <= 1.10 * fastest["time_ms"]]
    thrifty = min(near, key=lambda t: t["energy_j"])
    png = plot.plot_front(f"{name} {'x'.join(map(str, shape))}", ok, front, out) if plot.available() else None
    log(f"{name}: {len(ok)} configs measured in {time.perf_counter() - t0:.0f} s, front of {len(front)}; plot {png}")

    def brief(t: dict) -> dict:
        return {k: t[k] for k in ("config", "time_ms", "energy_j", "energy_spread", "power_w", "idle_w")}
    return {"kernel": name, "shape": shape, "measured": len(ok), "configs": [t["config"] for t in ok],
            "front": [brief(t) for t in front], "fastest": brief(fastest), "within_10pct": brief(thrifty),
            "saved": 1 - thrifty["energy_j"] / fastest["energy_j"] if fastest["energy_j"] > 0 else None}


def contention_rows(front: dict, load: ContentionLoad, plan: Plan, log: Log) -> list[dict]:
    """A front's measured configs (fastest alone first, as many as the budget allows) each timed
    alone and beside `load`, with the slowdown it inflicts on the load; the time-tuned (fastest
    alone) and the contention-tuned (fastest beside the load) of them."""
    name, shape = front["kernel"], tuple(front["shape"])
    tuner = registered()[name]
    grid, args = tuner.tune_case(shape, tuner.dtypes[0])
    copies, expected = rotating_copies(args), as_outputs(tuner.reference(*args))
    measured = []
    for text in front["configs"]:
        if not plan.fits(f"contention: {name} {text}", CONTENDED_S):
            break
        r = tuner.evaluate(grid, Config.from_json(json.loads(text)), copies, expected, load=load)
        if r.status == "ok":
            measured.append({"config": text, "time_ms": r.time_ms, "contended_ms": r.contended_ms,
                             "inflicted_slowdown": r.inflicted_slowdown})
            log(f"{name} [{config_text(text)}]: {r.time_ms:.4g} ms alone, {r.contended_ms:.4g} ms beside the "
                f"load, which runs x{r.inflicted_slowdown or float('nan'):.3g} slower")
    if not measured:
        raise RuntimeError("no config of the front could be timed beside the load")
    fastest = min(measured, key=lambda m: m["time_ms"])
    robust = min(measured, key=lambda m: m["contended_ms"])
    shape_text = "x".join(map(str, shape))
    return [{"kernel": name, "shape": shape_text, "chosen_by": "time", "of": len(measured), **fastest},
            {"kernel": name, "shape": shape_text, "chosen_by": "contention", "of": len(measured), **robust}]


def config_text(text: str) -> str:
    data = json.loads(text)
    return " ".join(f"{k}={v}" for k, v in {**data["kwargs"], "w": data.get("num_warps")}.items())


def table(per_call: list[dict], fronts: list[dict], contention: list[dict], probe: dict, share: float) -> list[str]:
    lines = ["| kernel | shape | ms | mJ/call | spread | windows s | busy W | idle W | idle drift | config from |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in per_call:
        first = f" ({r['first_spread']:.1%} over {r['window_s'] / LONG_WINDOWS:.3g} s)" if r.get("first_spread") else ""
        lines.append(f"| {r['kernel']} | {r['shape']} {r['dtype']} | {r['time_ms']:.4g} | {r['energy_j'] * 1e3:.4g} | "
                     f"{r['energy_spread']:.1%}{first} | {r.get('window_s', float('nan')):.3g} | {r['power_w']:.0f} | "
                     f"{r['idle_w']:.0f} | {r['idle_drift']:+.1%} | {r['config_from']} |")
    for f in fronts:
        fast, thrifty = f["fastest"], f["within_10pct"]
        saved = f["saved"] if f["saved"] is not None else float("nan")
        lines.append(f"{f['kernel']} {'x'.join(map(str, f['shape']))}: {f['measured']} configs, front of "
                     f"{len(f['front'])}; most efficient within 10% of fastest saves {saved:.1%} "
                     f"({fast['energy_j'] * 1e3:.4g} -> {thrifty['energy_j'] * 1e3:.4g} mJ, "
                     f"{fast['time_ms']:.4g} -> {thrifty['time_ms']:.4g} ms)")
    if contention:
        lines += [f"| beside a {share:.0%} load | tuned for | config | ms alone | ms beside | load slowdown |",
                  "|---|---|---|---|---|---|"]
        for c in contention:
            lines.append(f"| {c['kernel']} {c['shape']} | {c['chosen_by']} (of {c['of']}) | {config_text(c['config'])} "
                         f"| {c['time_ms']:.4g} | {c['contended_ms']:.4g} | "
                         f"x{c['inflicted_slowdown'] or float('nan'):.3g} |")
    if probe:
        lines.append(f"meter: NVML energy counter changes every {probe['counter_update_ms']:.3g} ms (windows of "
                     f"{probe['window_s']:.3g} s), a read costs {probe['read_us']:.3g} us")
    return lines


def parser(doc: str, budget: float, budget_help: str, smoke_help: str) -> argparse.ArgumentParser:
    """The options energy_bench.py and sustained.py share: --out, --share, --budget, --db, --smoke."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--share", type=float, default=0.5, help="the contention load's busy share (default 0.5)")
    ap.add_argument("--budget", type=float, default=budget, help=f"seconds for the whole run: {budget_help}")
    ap.add_argument("--db", help="tuning database (default DIR/tuning.sqlite, shared by energy_bench.py and "
                    "sustained.py)")
    ap.add_argument("--smoke", action="store_true", help=f"{smoke_help}: checks the script runs")
    return ap


def main() -> int:
    ap = parser(__doc__, 200.0, "planned: each part runs if its estimate fits what is left",
                "each kernel's small standard shape")
    ap.add_argument("--repeats", type=int, default=5, help="energy windows per kernel (the spread is over them)")
    ap.add_argument("--kernels", nargs="*", help="library kernels for the joules-per-call table (default: all)")
    ap.add_argument("--front-trials", nargs="*", default=[f"{k}={v}" for k, v in FRONT_TRIALS.items()],
                    metavar="KERNEL=N", help="kernels whose Pareto front is measured, with their trial budgets")
    ap.add_argument("--quick", action="store_true", help="gpu_bench's --quick shapes (smaller)")
    ap.add_argument("--record-trace", metavar="FILE", help="also record an NVML trace for tests/energy")
    args = ap.parse_args()
    started, failures = time.perf_counter(), []
    out, log, backend, meter = start(args.out, args.db, "energy")
    plan = Plan(args.budget - (time.perf_counter() - started), log)
    probe = soft(log, "meter probe", failures, lambda: probe_meter(meter)) or {}
    if args.record_trace:
        soft(log, "trace", failures, lambda: record_trace(meter, Path(args.record_trace), log))
    shapes = ({name: tuner.shapes[:1] for name, tuner in registered().items()} if args.smoke
              else benchmark_shapes(args.quick))
    rows = [(name, shape) for name in (args.kernels or list(shapes)) for shape in shapes.get(name, [])]
    metered, front_metered = energy_seconds(meter, args.repeats), energy_seconds(meter, FRONT_REPEATS)
    studies = [(name, int(trials or FRONT_TRIALS.get(name, 4)), shape) for spec in args.front_trials
               for name, _, trials in [spec.partition("=")] for shape in shapes.get(name, [])]
    log(f"plan for {args.budget:.0f} s: meter windows of {meter.window_s:.3g} s; {len(rows)} kernels x "
        f"~{metered + plan.overhead():.1f} s ({args.repeats} windows, idle before and after), then "
        f"{sum(t for _, t, _ in studies)} front configs x ~{front_metered + plan.overhead():.1f} s, then the "
        f"contention table (~{LOAD_START_S:.0f} s + {CONTENDED_S:.1f} s per config)")

    plan.hold(LOAD_START_S + 2 * CONTENDED_S * len(studies) if studies else 0.0)
    per_call = []
    for name, shape in rows:
        if plan.fits(f"{name} {shape} joules per call", metered + plan.overhead()):
            t0 = time.perf_counter()
            row = soft(log, f"{name} {shape}", failures, lambda: joules_per_call(
                name, shape, meter, args.repeats, log,
                longer=lambda seconds: plan.fits(f"{name} {shape} over longer windows", seconds + plan.overhead())))
            took = time.perf_counter() - t0
            if row and row["first_spread"]:  # two passes, each a check-and-time plus its metering
                longer = energy_seconds(meter, args.repeats, row["window_s"])
                for _ in range(2):
                    plan.observe((took - metered - longer) / 2, 0.0)
            else:
                plan.observe(took, metered)
            if row is not None:
                per_call.append(row)

    fronts = []
    for i, (name, trials, shape) in enumerate(studies):
        per_config = front_metered + plan.overhead()
        share = plan.left() / (len(studies) - i + 1)  # this front's part of what is left (the contention table's too)
        if plan.fits(f"front {name} {shape} (2 configs at least)", 2 * per_config):
            trials = min(trials, max(2, int(share // per_config)))
            # the tuner stops at `trials` configs; its timeout, the share, only guards against configs far
            # slower than planned (a timeout of trials * per_config would cut the front at one config
            # whenever this kernel's compile runs longer than the rows' that set the overhead)
            front = soft(log, f"front {name} {shape}", failures,
                         lambda: front_study(name, shape, trials, max(share, 2 * per_config), meter, log, out))
            if front is not None:
                fronts.append(front)

    plan.hold(0.0)
    contention: list[dict] = []
    if not fronts:
        plan.skip("contention table: no front was measured, so no configs to time beside the load")
    elif plan.fits("contention table (the load and 2 configs)", LOAD_START_S + 2 * CONTENDED_S):
        def measure_beside() -> None:
            with ContentionLoad(args.share, "cuda" if backend.name == "cuda" else "cpu") as load:
                for front in fronts:
                    found = soft(log, f"contention {front['kernel']}", failures,
                                 lambda: contention_rows(front, load, plan, log))
                    contention.extend(found or [])
        soft(log, "contention load", failures, measure_beside)
    meter.close()
    report = {"device": device_name(), "backend": backend.name, "meter": meter.name, "date": time.strftime("%Y-%m-%d"),
              "mlx": mx.__version__, "metalforge": mf.__version__, "python": platform.python_version(),
              "probe": probe, "per_call": per_call, "fronts": fronts, "contention": contention, "share": args.share,
              "budget": args.budget, "skipped": plan.skipped, "failures": failures,
              "seconds": time.perf_counter() - started}
    (out / "energy.json").write_text(json.dumps(report, indent=1, default=str))
    print(f"energy_bench: {report['device']}, {backend.name}, meter {meter.name}, MLX {mx.__version__}, "
          f"{report['date']}, {report['seconds']:.0f} s of a {args.budget:.0f} s budget")
    print("\n".join(table(per_call, fronts, contention, probe, args.share) + plan.skipped + failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
