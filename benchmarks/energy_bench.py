"""Energy per call, Pareto fronts and contention (issue 23), for the lead's GPU run.

    python benchmarks/energy_bench.py --out DIR [--repeats 5] [--front-trials qmv_kernel=18 matmul_kernel=16]
                                      [--kernels softmax_kernel ...] [--share 0.5] [--budget 200] [--quick | --smoke]
                                      [--record-trace FILE]

1. **Joules per call** of every library kernel at its benchmark shape (benchmarks/gpu_bench.py's
   `benchmark_shapes`), with the config the tuning database gives it (or its default): checked against
   the reference first, then timed and metered by the tuner's own `Autotuner.evaluate` (idle power
   measured just before, `--repeats` windows of at least the meter's window each, the median and
   spread of joules per call over them).
2. **Pareto fronts** of the quantized matvec and matmul: `tune(objective=(time, energy, contended))`
   with `--front-trials` trials each (every trial measures time, joules per call and time beside the
   contention load), into DIR/tuning.sqlite (`metalforge db show qmv_kernel --db DIR/tuning.sqlite
   --plot DIR` shows them again); the energy the most efficient config within 10% of the fastest
   time saves against the fastest; a PNG of each front.
3. **Contention**: under a load streaming memory `--share` of the time (a second CUDA process on the
   GPU machine, the CPU on a Mac), the time-tuned config (fastest alone) and the contention-tuned one
   (fastest beside the load), each with its time alone, beside the load, and the slowdown it inflicts
   on the load, side by side.

Writes DIR/energy.json, DIR/energy.log and DIR/*-front.png; prints a short table last. Fails soft: a
row that breaks prints `FAILED: reason` and the rest goes on. The meter's update period and read cost
(NVML's energy counter) are measured first; `--record-trace FILE` records an NVML trace (counter,
power, clocks, temperature every 10 ms over an idle-busy-idle second) in the format of
tests/energy/nvml_trace.json.
"""
from __future__ import annotations

import argparse
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
from metalforge.autotune.bench import as_outputs, rotating_copies  # noqa: E402
from metalforge.kernels import registered  # noqa: E402
from metalforge.runtime import backends, meters  # noqa: E402
from metalforge.tuning_db import TuningDB  # noqa: E402
from metalforge.tuning_db.front import pareto_front  # noqa: E402

FRONT_TRIALS = {"qmv_kernel": 18, "matmul_kernel": 16}
OBJECTIVES = ("time", "energy", "contended")


def soft(log: Log, what: str, failures: list[str], run: Callable[[], Any]) -> Any:
    """Run one row; a failure is logged, printed as `FAILED: reason`, and the script goes on."""
    try:
        return run()
    except Exception as e:  # noqa: BLE001 - one broken row never ends the run
        log(f"{what}: {traceback.format_exc()}")
        failures.append(f"FAILED: {what}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:160])
        return None


def probe_meter(meter: meters.Meter, seconds: float = 0.3) -> dict:
    """NVML's energy counter: how often it changes (ms) and what one read costs (us)."""
    if not isinstance(meter, meters.NvmlMeter) or not meter.counter:
        return {}
    reads, changes, last = 0, [], meter.energy_mj()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        value = meter.energy_mj()
        reads += 1
        if value != last:
            changes.append(time.perf_counter())
            last = value
    elapsed = time.perf_counter() - start
    period = (changes[-1] - changes[0]) / (len(changes) - 1) * 1e3 if len(changes) > 1 else None
    return {"counter_update_ms": period, "read_us": elapsed / reads * 1e6}


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
    log(f"{name} on {backend.name} ({device_name()}), meter {meter.name}: {meter.reason or 'available'}")
    if not meter.available:
        print(f"FAILED: no power meter on {backend.name}: {meter.reason}")
        sys.exit(1)
    return out, log, backend, meter


def device_name() -> str:
    info = mx.device_info() if backends.resolve().name != "emulator" else {}
    return str(info.get("device_name", platform.processor() or platform.machine()))


def joules_per_call(name: str, shape: tuple, meter: meters.Meter, repeats: int, log: Log) -> dict:
    """One library kernel at one shape: its looked-up config checked, timed and metered."""
    tuner = registered()[name]
    dtype = tuner.dtypes[0]
    grid, args = tuner.tune_case(shape, dtype)
    config, source = tuner.config_for(grid, *args)
    tuner.energy_repeats = repeats
    expected = as_outputs(tuner.reference(*args))
    r = tuner.evaluate(grid, config, rotating_copies(args), expected, meter=meter)
    if r.status != "ok":
        raise RuntimeError(f"{r.status}: {r.reason.splitlines()[0] if r.reason else ''}")
    row = {"kernel": name, "shape": "x".join(map(str, shape)), "dtype": str(dtype).rsplit(".", 1)[-1],
           "config": str(config), "config_from": source, **r.figures}
    log(f"{name} {row['shape']}: {r.time_ms:.4g} ms, {r.energy_j * 1e3:.4g} mJ/call "
        f"(spread {r.energy_spread:.1%}), {r.power_w:.0f} W busy, {r.idle_w:.0f} W idle; config {config} ({source})")
    return row


def front_study(name: str, shape: tuple, trials: int, timeout: float, share: float, log: Log, out: Path) -> dict:
    """A multi-objective tuning of one kernel (at most `trials` configs in `timeout` seconds): its
    front, the energy saved within 10% of the fastest, and the time-tuned against the
    contention-tuned config beside the load."""
    tuner = registered()[name]
    dtype = tuner.dtypes[0]
    grid, args = tuner.tune_case(shape, dtype)
    tuner.contention_share = share
    t0 = time.perf_counter()
    tuner.tune(grid, *args, trials=trials, objective=OBJECTIVES, timeout=timeout)
    db = TuningDB(tuner.db_path)
    winner = db.lookup(tuner.tuning_key(args)).winner
    ok = [t for t in db.trials(name) if t["study"] == winner["study"] and t["status"] == "ok"
          and t["energy_j"] is not None]
    front = pareto_front(ok, ("time_ms", "energy_j"))
    fastest = min(ok, key=lambda t: t["time_ms"])
    near = [t for t in ok if t["time_ms"] <= 1.10 * fastest["time_ms"]]
    thrifty = min(near, key=lambda t: t["energy_j"])
    robust = min((t for t in ok if t["contended_ms"] is not None), key=lambda t: t["contended_ms"])
    png = plot.plot_front(f"{name} {'x'.join(map(str, shape))}", ok, front, out) if plot.available() else None
    log(f"{name}: {len(ok)} configs measured in {time.perf_counter() - t0:.0f} s, front of {len(front)}; plot {png}")

    def brief(t: dict) -> dict:
        return {k: t[k] for k in ("config", "time_ms", "energy_j", "energy_spread", "contended_ms",
                                  "inflicted_slowdown", "power_w")}
    return {"kernel": name, "shape": "x".join(map(str, shape)), "measured": len(ok),
            "front": [brief(t) for t in front], "fastest": brief(fastest), "within_10pct": brief(thrifty),
            "saved": 1 - thrifty["energy_j"] / fastest["energy_j"] if fastest["energy_j"] > 0 else None,
            "contention_tuned": brief(robust)}


def config_text(text: str) -> str:
    data = json.loads(text)
    return " ".join(f"{k}={v}" for k, v in {**data["kwargs"], "w": data.get("num_warps")}.items())


def table(per_call: list[dict], fronts: list[dict], probe: dict, share: float) -> list[str]:
    lines = ["| kernel | shape | ms | mJ/call | spread | busy W | idle W | config from |",
             "|---|---|---|---|---|---|---|---|"]
    for r in per_call:
        lines.append(f"| {r['kernel']} | {r['shape']} {r['dtype']} | {r['time_ms']:.4g} | {r['energy_j'] * 1e3:.4g} | "
                     f"{r['energy_spread']:.1%} | {r['power_w']:.0f} | {r['idle_w']:.0f} | {r['config_from']} |")
    for f in fronts:
        fast, thrifty, robust = f["fastest"], f["within_10pct"], f["contention_tuned"]
        saved = f["saved"] if f["saved"] is not None else float("nan")
        lines += [f"{f['kernel']} {f['shape']}: {f['measured']} configs, front of {len(f['front'])}; "
                  f"most efficient within 10% of fastest saves {saved:.1%} "
                  f"({fast['energy_j'] * 1e3:.4g} -> {thrifty['energy_j'] * 1e3:.4g} mJ, "
                  f"{fast['time_ms']:.4g} -> {thrifty['time_ms']:.4g} ms)",
                  f"  under {share:.0%} load: time-tuned [{config_text(fast['config'])}] "
                  f"{fast['time_ms']:.4g} ms alone, "
                  f"{fast['contended_ms']:.4g} beside, inflicts x{fast['inflicted_slowdown'] or float('nan'):.3g}",
                  f"  contention-tuned [{config_text(robust['config'])}] {robust['time_ms']:.4g} ms alone, "
                  f"{robust['contended_ms']:.4g} beside, inflicts x{robust['inflicted_slowdown'] or float('nan'):.3g}"]
    if probe:
        lines.append(f"meter: NVML energy counter changes every {probe['counter_update_ms'] or float('nan'):.3g} ms, "
                     f"a read costs {probe['read_us']:.3g} us")
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
    ap = parser(__doc__, 200.0, "the fronts' tunings share what the first table leaves",
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
    probe = soft(log, "meter probe", failures, lambda: probe_meter(meter)) or {}
    if args.record_trace:
        soft(log, "trace", failures, lambda: record_trace(meter, Path(args.record_trace), log))
    shapes = ({name: tuner.shapes[:1] for name, tuner in registered().items()} if args.smoke
              else benchmark_shapes(args.quick))
    per_call = [r for name in (args.kernels or list(shapes)) for shape in shapes.get(name, [])
                if (r := soft(log, f"{name} {shape}", failures,
                              lambda: joules_per_call(name, shape, meter, args.repeats, log))) is not None]
    fronts = []
    studies = [(name, int(trials or 16), shape) for spec in args.front_trials
               for name, _, trials in [spec.partition("=")] for shape in shapes.get(name, [])]
    for i, (name, trials, shape) in enumerate(studies):
        timeout = max(5.0, (args.budget - (time.perf_counter() - started)) / (len(studies) - i))
        f = soft(log, f"front {name} {shape}", failures,
                 lambda: front_study(name, shape, trials, timeout, args.share, log, out))
        if f is not None:
            fronts.append(f)
    meter.close()
    report = {"device": device_name(), "backend": backend.name, "meter": meter.name, "date": time.strftime("%Y-%m-%d"),
              "mlx": mx.__version__, "metalforge": mf.__version__, "python": platform.python_version(),
              "probe": probe, "per_call": per_call, "fronts": fronts, "share": args.share, "failures": failures,
              "seconds": time.perf_counter() - started}
    (out / "energy.json").write_text(json.dumps(report, indent=1, default=str))
    print(f"energy_bench: {report['device']}, {backend.name}, meter {meter.name}, MLX {mx.__version__}, "
          f"{report['date']}, {report['seconds']:.0f} s")
    print("\n".join(table(per_call, fronts, probe, args.share) + failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
