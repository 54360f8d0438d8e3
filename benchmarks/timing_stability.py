"""How much a config's measured time moves between runs, by timing method.

The autotuner scores a config by `autotune.bench.median_time_ms`. This times a few configs of one
library kernel several rounds over, each round starting after 2 s of idle device (as while the tuner
compiles the next config) and timing every config by every method in turn, in the order below:
- single: samples of one launch, built and waited for (the tuner's on Metal and the emulator);
- batched: a batch of launches (`bench.batch_size`: about 2 ms of them) built, then evaluated at
  once, building and evaluation timed, their mean (the tuner's on CUDA);
- pipelined: a batch of launches, each submitted as it is built (`mx.async_eval`), one wait, their
  mean (docs/landscapes/h200-in-order-2026-12-03.json was measured so).
It prints each method's median per round and the spread (slowest round over fastest). Outputs are
checked against the kernel's reference before timing.

    python benchmarks/timing_stability.py [--case matmul_kernel:2048x2048x2048:float16] [--rounds 4]
                                          [--config '{"kwargs": {"BLOCK_M": 128, ...}, "num_warps": 8}' ...]

Without --config it times the kernel's default config for the shape.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Optional, Sequence

if importlib.util.find_spec("metalforge") is None:  # run from an unpacked copy: <dir>/metalforge/benchmarks/
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import mlx.core as mx  # noqa: E402

from metalforge.autotune import Config  # noqa: E402
from metalforge.autotune.bench import (as_outputs, batch_size, max_error, median_time_ms,  # noqa: E402
                                      rotating_copies, timed)
from metalforge.kernels import registered  # noqa: E402
from metalforge.runtime import backends  # noqa: E402
from tuner_quality import DTYPES, parse_case  # noqa: E402

WARMUP_MS, REP_MS, IDLE_S = 25.0, 100.0, 2.0


def pipelined_ms(launch: Callable[[tuple], object], copies: list[tuple]) -> float:
    """Median over samples of a batch of launches (`batch_size`), each submitted as it is built, one wait."""
    estimate, _ = timed(launch, copies[0], 60)
    batch = batch_size(estimate)
    times: list[float] = []
    built = 0
    deadline = time.perf_counter() + (WARMUP_MS + REP_MS) / 1e3
    while len(times) < 5 or time.perf_counter() < deadline:
        start, outputs = time.perf_counter(), []
        for _ in range(batch):
            out = as_outputs(launch(copies[built % len(copies)]))
            mx.async_eval(out)
            outputs += out
            built += 1
        mx.eval(outputs)
        times.append((time.perf_counter() - start) / batch)
    return statistics.median(times[len(times) // 5:]) * 1e3  # the first fifth is warm-up


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", default="matmul_kernel:2048x2048x2048:float16", metavar="NAME:SHAPE[:DTYPE]")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--config", nargs="+", default=[], metavar="JSON",
                    help="configs as the tuning database stores them")
    args = ap.parse_args(argv)
    library = registered()
    try:
        case = parse_case(args.case, library)
    except ValueError as e:
        ap.error(str(e))
    configs = []
    for text in args.config:
        try:
            configs.append(Config.from_json(json.loads(text)))
        except (ValueError, KeyError, TypeError) as e:
            ap.error(f"--config {text!r}: {type(e).__name__}: {e}; expected JSON such as "
                     f'\'{{"kwargs": {{"BLOCK": 1024}}, "num_warps": 4}}\'')
    if args.rounds < 2:
        ap.error("--rounds must be at least 2 (the spread is between rounds)")
    tuner = library[case.kernel]
    grid, launch_args = tuner.tune_case(case.shape, DTYPES[case.dtype])
    copies, expected = rotating_copies(launch_args), as_outputs(tuner.reference(*launch_args))
    configs = configs or [tuner.default_config(launch_args)]
    launches = {}
    for config in configs:
        launches[config] = lambda a, c=config: tuner._launch(grid, a, c)
        _, wrong = max_error(as_outputs(launches[config](copies[0])), expected, tuner.rtol, tuner.atol)
        if wrong:
            print(f"error: {config} gives a wrong result: {wrong}", file=sys.stderr)
            return 1
    methods = {
        "single": lambda f: median_time_ms(f, copies, warmup_ms=WARMUP_MS, rep_ms=REP_MS, timeout_s=60),
        "batched": lambda f: median_time_ms(f, copies, warmup_ms=WARMUP_MS, rep_ms=REP_MS, timeout_s=60,
                                            batched=True),
        "pipelined": lambda f: pipelined_ms(f, copies),
    }
    rows: dict[tuple[str, Config], list[float]] = {}
    for round_ in range(args.rounds):
        print(f"round {round_ + 1}/{args.rounds}", file=sys.stderr, flush=True)
        time.sleep(IDLE_S)
        for method, timing in methods.items():
            for config, launch in launches.items():
                rows.setdefault((method, config), []).append(timing(launch))
    print(f"{case} on {backends.resolve().name}: median ms per launch in each round, spread = slowest / fastest")
    for (method, config), times in rows.items():
        rounds = " ".join(f"{t:8.4g}" for t in times)
        print(f"  {method:10s} {rounds}   spread {max(times) / min(times):.3f}   {config}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
