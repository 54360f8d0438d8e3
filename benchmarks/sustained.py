"""Sustained decode-like load at each run-time policy, idle and under contention (issue 23), for the
lead's GPU run.

    python benchmarks/sustained.py --out DIR --seconds N [--policies fastest efficient robust] [--share 0.5]
                                   [--trials 6] [--budget 180] [--smoke]

A token-equivalent is one decoder layer of a Llama-3-8B-sized model at batch 1: two 4-bit matvecs
14336x4096 (gate, up), one 4096x14336 (down), decode attention over 8192 cached positions (32 query
heads, 8 KV heads, d 128) and two residual-add RMS norms of 4096; weights rotated over copies so
they are not all in cache. Each kernel of the mix whose tuning at its shape has no front with energy
and contention figures is tuned first (`tune(objective=(time, energy, contended))`, `--trials`
each, into DIR/tuning.sqlite: run after benchmarks/energy_bench.py with the same --out and the
matvec's front is reused). Then, for each policy (`set_tuning_policy`), the mix runs for N seconds
idle and N seconds beside a contention load (`--share` of the time streaming memory: a second CUDA
process on the GPU machine, the CPU on a Mac), after the idle power is measured (once the power has
settled; NVML counter windows aligned to the counter's changes, as energy_bench.py's): tokens per second,
average power, joules per token (total and above idle), the load's slowdown, and the clocks and
temperature sampled every 0.2 s (DIR/sustained.png).

`--budget S` bounds the whole run: tuning gets the budget's first half at most (each kernel's share
as `tune(timeout=...)`), and N shrinks so the runs fit the rest. Writes DIR/sustained.json,
DIR/sustained.log, DIR/sustained.png; prints a short table last; fails soft (`FAILED: reason`).
"""
from __future__ import annotations

import json
import platform
import sys
import threading
import time
from pathlib import Path
from typing import Any

import mlx.core as mx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from energy_bench import Log, device_name, parser, soft, start  # noqa: E402

import metalforge as mf  # noqa: E402
from metalforge.autotune.bench import as_outputs, idle_power, rotating_copies  # noqa: E402
from metalforge.kernels import registered  # noqa: E402
from metalforge.runtime import meters  # noqa: E402
from metalforge.runtime.contention import ContentionLoad  # noqa: E402
from metalforge.tuning_db import TuningDB  # noqa: E402
from metalforge.tuning_db.front import front_of  # noqa: E402

# (kernel, shape as its tune_args takes it, launches per token-equivalent)
MIX = [("qmv_kernel", (14336, 4096), 2), ("qmv_kernel", (4096, 14336), 1),
       ("decode_attention_kernel", (32, 8, 8192, 128), 1), ("add_rms_norm_kernel", (1, 4096), 2)]
SMOKE_MIX = [("qmv_kernel", (256, 1024), 2), ("decode_attention_kernel", (4, 2, 100, 64), 1),
             ("add_rms_norm_kernel", (1, 512), 2)]
OBJECTIVES = ("time", "energy", "contended")
TOKENS_PER_EVAL = 4   # token-equivalents built before each evaluation (a decode step's graph)
SAMPLE_S = 0.2


class Mix:
    """The decode mix's launches, each through its kernel's normal launch path (so the process's
    policy picks the config), over rotating copies of its inputs."""

    def __init__(self, mix: list[tuple]) -> None:
        self.parts = []
        for name, shape, count in mix:
            tuner = registered()[name]
            grid, args = tuner.tune_case(shape, tuner.dtypes[0])
            self.parts.append((tuner, grid, rotating_copies(args), count))
        self.step = 0

    def token(self) -> list[mx.array]:
        outputs = []
        for tuner, grid, copies, count in self.parts:
            for _ in range(count):
                outputs += as_outputs(tuner[grid](*copies[self.step % len(copies)]))
                self.step += 1
        return outputs

    def run(self) -> int:
        """One evaluation of TOKENS_PER_EVAL token-equivalents (a meter's unit of work); how many."""
        mx.eval([o for _ in range(TOKENS_PER_EVAL) for o in self.token()])
        return TOKENS_PER_EVAL

    def configs(self) -> list[str]:
        return [f"{tuner.name} {'x'.join(map(str, tuner.tuning_key(copies[0]).shape))}: "
                f"{tuner.config_for(grid, *copies[0])[0]}" for tuner, grid, copies, _ in self.parts]


class Trace:
    """Meter readings every SAMPLE_S seconds on a thread, each labelled with the run going on."""

    def __init__(self, meter: meters.Meter) -> None:
        self.meter, self.label, self.rows = meter, "setup", []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            r = self.meter.sample()
            self.rows.append({"t": r.t, "label": self.label, "power_w": r.power_w, "sm_mhz": r.sm_clock_mhz,
                              "mem_mhz": r.mem_clock_mhz, "temp_c": r.temperature_c})

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def has_front(tuner: Any, args: tuple) -> bool:
    winner = TuningDB(tuner.db_path).lookup(tuner.tuning_key(args)).winner
    return winner is not None and winner["study"].endswith("|" + "+".join(OBJECTIVES)) and bool(front_of(winner))


def tune_mix(mix: list[tuple], trials: int, budget_s: float, log: Log, failures: list[str]) -> None:
    todo = []
    for name, shape, _ in mix:
        tuner = registered()[name]
        grid, args = tuner.tune_case(shape, tuner.dtypes[0])
        if has_front(tuner, args):
            log(f"{name} {shape}: front found in {tuner.db_path}")
        elif (name, shape) not in [(t.name, s) for t, s, _, _ in todo]:
            todo.append((tuner, shape, grid, args))
    deadline = time.perf_counter() + budget_s
    for i, (tuner, shape, grid, args) in enumerate(todo):
        share = (deadline - time.perf_counter()) / (len(todo) - i)
        t0 = time.perf_counter()
        soft(log, f"tune {tuner.name} {shape}", failures,
             lambda: tuner.tune(grid, *args, trials=trials, objective=OBJECTIVES, timeout=max(1.0, share)))
        log(f"tuned {tuner.name} {shape} in {time.perf_counter() - t0:.0f} s")


def run_policy(mix: Mix, policy: str, contended: bool, seconds: float, meter: meters.Meter,
               load: ContentionLoad | None, trace: Trace, log: Log) -> dict:
    mf.set_tuning_policy(policy)
    mx.eval(mix.token())  # lookups (the policy's configs) and compiles outside the measurement
    trace.label = f"{policy} idle power"
    idle_w = idle_power(meter)
    trace.label = f"{policy} {'contended' if contended else 'alone'}"
    slowdown = None
    if contended:
        with load.active():
            before = load.counters()
            time.sleep(0.25)
            alone = load.copy_rate(before, load.counters())
            before = load.counters()
            [(window, tokens)] = meter.measure(seconds, mix.run)
            beside = load.copy_rate(before, load.counters())
        slowdown = alone / beside if alone and beside else None
    else:
        [(window, tokens)] = meter.measure(seconds, mix.run)
    samples = [r for r in trace.rows if r["label"] == trace.label]
    row = {"policy": policy, "condition": "contended" if contended else "alone", "tokens": tokens,
           "seconds": window.seconds, "tokens_per_s": tokens / window.seconds, "power_w": window.watts,
           "idle_w": idle_w, "j_per_token": window.joules / tokens,
           "j_per_token_above_idle": (window.joules - idle_w * window.seconds) / tokens,
           "load_slowdown": slowdown, "configs": mix.configs(),
           "sm_mhz": mean([s["sm_mhz"] for s in samples]), "temp_c_max": max(
               [s["temp_c"] for s in samples if s["temp_c"] is not None], default=None)}
    log(json.dumps({k: v for k, v in row.items() if k != "configs"}, default=str))
    return row


def mean(values: list) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def plot_trace(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t0 = rows[0]["t"]
    fig, axes = plt.subplots(3, 1, figsize=(10, 7), sharex=True)
    for ax, key, label in zip(axes, ("power_w", "sm_mhz", "temp_c"),
                              ("power (W)", "SM clock (MHz)", "temperature (C)")):
        ax.plot([r["t"] - t0 for r in rows], [r[key] if r[key] is not None else float("nan") for r in rows], lw=1)
        ax.set_ylabel(label)
    spans: list[list] = []
    for r in rows:
        if spans and spans[-1][0] == r["label"]:
            spans[-1][2] = r["t"] - t0
        else:
            spans.append([r["label"], r["t"] - t0, r["t"] - t0])
    for i, (label, begin, end) in enumerate(spans):
        for ax in axes:
            ax.axvspan(begin, end, color=f"C{i % 10}", alpha=0.08)
        axes[0].annotate(label, ((begin + end) / 2, 1.0), xycoords=("data", "axes fraction"), rotation=90,
                         fontsize=6, ha="center", va="top")
    axes[-1].set_xlabel("seconds")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> int:
    ap = parser(__doc__, 180.0, "tuning the mix included", "tiny shapes")
    ap.add_argument("--seconds", type=float, default=15.0, help="seconds of the mix per policy and condition")
    ap.add_argument("--policies", nargs="+", default=["fastest", "efficient", "robust"])
    ap.add_argument("--trials", type=int, default=6, help="trials per kernel of the mix lacking a front")
    args = ap.parse_args()
    started, failures = time.perf_counter(), []
    out, log, backend, meter = start(args.out, args.db, "sustained")
    mix_spec = SMOKE_MIX if args.smoke else MIX
    tune_mix(mix_spec, args.trials, args.budget / 2, log, failures)
    mix = soft(log, "build the mix", failures, lambda: Mix(mix_spec))
    rows: list[dict] = []
    if mix is not None:
        runs = len(args.policies) * 2
        left = args.budget - (time.perf_counter() - started)
        idle_s = meter.window_s + 6 * (meter.period_s or 0.0)  # a settle, a lead-in, a window
        seconds = max(1.0, min(args.seconds, left / runs - idle_s - 2.0))
        if seconds < args.seconds:
            log(f"{args.seconds:g} s per run does not fit the budget: {seconds:.1f} s")
        trace = Trace(meter)
        device = "cuda" if backend.name == "cuda" else "cpu"
        try:
            with ContentionLoad(args.share, device) as load:
                for policy in args.policies:
                    for contended in (False, True):
                        row = soft(log, f"{policy} {'contended' if contended else 'alone'}", failures,
                                   lambda: run_policy(mix, policy, contended, seconds, meter, load, trace, log))
                        if row is not None:
                            rows.append(row)
        except Exception as e:  # noqa: BLE001 - the load itself failed to start: report, keep what ran
            failures.append(f"FAILED: contention load: {e}")
        finally:
            trace.stop()
            mf.set_tuning_policy(None)
        if trace.rows:
            soft(log, "plot", failures, lambda: plot_trace(trace.rows, out / "sustained.png"))
    meter.close()
    report = {"device": device_name(), "backend": backend.name, "meter": meter.name,
              "date": time.strftime("%Y-%m-%d"),
              "mlx": mx.__version__, "python": platform.python_version(), "share": args.share,
              "mix": [list(m) for m in mix_spec], "rows": rows, "failures": failures,
              "seconds": time.perf_counter() - started}
    (out / "sustained.json").write_text(json.dumps(report, indent=1, default=str))
    print(f"sustained: {report['device']}, {backend.name}, meter {meter.name}, MLX {mx.__version__}, "
          f"{report['date']}, load {args.share:.0%}, {report['seconds']:.0f} s")
    print("| policy | condition | tok/s | avg W | idle W | J/token | J/token above idle | load slowdown | SM MHz "
          "| max C |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['policy']} | {r['condition']} | {r['tokens_per_s']:.1f} | {r['power_w']:.0f} | "
              f"{r['idle_w']:.0f} | "
              f"{r['j_per_token']:.4g} | {r['j_per_token_above_idle']:.4g} | "
              f"{'-' if r['load_slowdown'] is None else format(r['load_slowdown'], '.3g')} | "
              f"{'-' if r['sm_mhz'] is None else format(r['sm_mhz'], '.0f')} | {r['temp_c_max'] or '-'} |")
    print("\n".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
