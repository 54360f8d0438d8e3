"""How quickly the autotuner's TPE search finds the best config, against the exhaustive optimum.

Every config of a kernel's space is measured once (exhaustive search); then TPE and random search
are replayed on that table for many seeds with a budget of 25% of the space, so the comparison is
about the samplers, not timing noise. Reports, per kernel: the optimum, the share of seeds whose
best config is within 5% of it, and the mean best-so-far curve.

    python benchmarks/tuner_quality.py [--seeds 30]

Timings come from the active back end (the emulator here: its times are CPU times, which shape the
landscape differently from a GPU's).
"""
from __future__ import annotations

import argparse
import math
import statistics

import mlx.core as mx
import optuna

from metalforge.autotune import Config
from metalforge.autotune.bench import as_outputs, rotating_copies
from metalforge.kernels import registered
from metalforge.runtime import backends

CASES = {"softmax_kernel": ((8, 4000), mx.float16), "qmv_kernel": ((256, 1024), mx.float16),
         "matmul_kernel": ((64, 96, 80), mx.float16)}


def exhaustive(tuner, shape, dtype) -> dict:
    grid, args = tuner.tune_case(shape, dtype)
    copies, expected = rotating_copies(args), as_outputs(tuner.reference(*args))
    table = {}
    for point in tuner.space.points():
        config = Config.from_point(point)
        r = tuner.evaluate(grid, config, copies, expected)
        table[config] = r.time_ms if r.status == "ok" else None
    return table


def replay(tuner, table, sampler, budget: int) -> list[float]:
    """Best-so-far time after each trial of one search, started as the tuner starts one."""
    study = tuner.create_study(sampler)
    best, curve = math.inf, []

    def objective(trial):
        config, _ = tuner.space.suggest(trial)
        t = table[config]
        if t is None:
            raise optuna.TrialPruned()
        return t
    for _ in range(budget):
        study.optimize(objective, n_trials=1)
        done = [t.value for t in study.trials if t.value is not None]
        best = min(done) if done else math.inf
        curve.append(best)
    return curve


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=30)
    args = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    print(f"back end: {backends.resolve().name}")
    library = registered()
    for name, (shape, dtype) in CASES.items():
        tuner = library[name]
        table = exhaustive(tuner, shape, dtype)
        optimum = min(t for t in table.values() if t is not None)
        budget = max(1, math.ceil(0.25 * len(table)))
        print(f"\n{name} {shape}: {len(table)} configs, optimum {optimum:.3f} ms, budget {budget} trials (25%)")
        samplers = {
            "tpe": lambda s: tuner.make_sampler("tpe", s, budget),
            "random": lambda s: optuna.samplers.RandomSampler(seed=s),
        }
        for label, factory in samplers.items():
            curves = [replay(tuner, table, factory(seed), budget) for seed in range(args.seeds)]
            within = sum(c[-1] <= 1.05 * optimum for c in curves) / len(curves)
            mean_curve = [statistics.mean(c[i] for c in curves) / optimum for i in range(budget)]
            print(f"  {label:6s} within 5% of the optimum: {within:4.0%}   mean best/optimum by trial: "
                  + " ".join(f"{x:.2f}" for x in mean_curve))


if __name__ == "__main__":
    main()
