"""Codegen 40 before/after in one process (MLX's CUDA back end): each quantized kernel of
decode_configs.py's Llama-3-8B shapes at its untuned default, compiled twice from the same source,
once with the CUDA target's `ints_to_float_by_bits` (a 4-bit weight becomes float32 through its
bits: LOP3 + FADD) and once without (a conversion: I2FP), timed alternately so that clock and
thermal drift fall on both alike. Both variants' outputs are checked equal to MLX's op within the
same bound as decode_configs' first.

    python benchmarks/bits_ab.py [--kernels qmv,qmm] [--rounds 5]
    python benchmarks/bits_ab.py --ncu-once      (one launch of each variant, for ncu's counters)
    python benchmarks/bits_ab.py --smoke         (small shapes on any back end: checks the script)
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
from pathlib import Path
from typing import Any, Optional

import mlx.core as mx

import metalforge as mf
from metalforge.codegen import target
from metalforge.launcher import Launch
from metalforge.runtime import backends

sys.path.insert(0, str(Path(__file__).resolve().parent))
import decode_configs  # noqa: E402
from decode_configs import cases, first  # noqa: E402
from gpu_bench import time_mlx  # noqa: E402


def variant(launch: Launch, by_bits: bool) -> tuple[Any, dict]:
    """A fresh compile of the launch's kernel with the CUDA record's rewrite set to `by_bits` (its
    first launch compiles it, under the patched record), and the default config's kwargs."""
    tuner = launch.kernel
    kwargs = {**launch.kwargs, **tuner.default_config(launch.args).all_kwargs()}
    fresh = mf.jit(tuner.fn.fn)
    language = backends.resolve().language  # "cuda"; "msl" on the emulator (--smoke), where it is off by default
    saved = target.TARGETS[language]
    target.TARGETS[language] = dataclasses.replace(saved, ints_to_float_by_bits=by_bits)
    try:
        mx.eval(first(run(launch, fresh, kwargs)))
    finally:
        target.TARGETS[language] = saved
    return fresh, kwargs


def run(launch: Launch, kernel: Any, kwargs: dict) -> Any:
    grid = launch.grid(kwargs) if callable(launch.grid) else launch.grid
    return kernel[grid](*launch.args, **kwargs)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", default="qmv,qmm", help="comma-separated name prefixes of decode_configs' cases")
    ap.add_argument("--rounds", type=int, default=5, help="alternating timings of each variant (median)")
    ap.add_argument("--ncu-once", action="store_true", help="launch each variant once, untimed (for ncu)")
    ap.add_argument("--smoke", action="store_true", help="decode_configs' small shapes, one launch timed once")
    args = ap.parse_args(argv)
    timing = dict(launches=100, reps=3)
    if args.smoke:
        decode_configs.HIDDEN, decode_configs.HEADS, decode_configs.KV_HEADS = 256, 4, 2
        decode_configs.HEAD_DIM, decode_configs.MLP, decode_configs.PREFILL = 64, 512, 24
        timing = dict(launches=1, reps=1)
    wanted = [k for k in args.kernels.split(",") if k]
    mx.random.seed(0)
    print(f"{'kernel':32} {'conversion us':>14} {'by bits us':>11} {'bits/conv':>9}  max diff from MLX (conv, bits)")
    for name, (make, mlx_op, copies) in cases(640).items():
        if not any(name.startswith(w) for w in wanted):
            continue
        launches = [make(i) for i in range(copies)]
        variants = {b: variant(launches[0], b) for b in (False, True)}
        sources = [variants[b][0].asm[backends.resolve().language] for b in (False, True)]
        if sources[0] == sources[1]:
            raise SystemExit(f"{name}: both variants compiled to the same source (the record was not read)")
        if args.ncu_once:  # each variant's compiling launch only: no MLX kernel between them
            print(name, "launched once each (conversion, then by bits)")
            continue
        theirs = first(mlx_op(0)).astype(mx.float32)
        diffs = [float(mx.abs(first(run(launches[0], *variants[b])).astype(mx.float32) - theirs).max())
                 for b in (False, True)]
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.rounds):
            for b in (False, True):
                kernel, kwargs = variants[b]
                times[b].append(time_mlx(lambda i: run(launches[i], kernel, kwargs), copies, **timing))
        conv, bits = (statistics.median(times[b]) for b in (False, True))
        print(f"{name:32} {conv:14.2f} {bits:11.2f} {bits / conv:9.3f}  {diffs[0]:.3g}, {diffs[1]:.3g}  "
              f"(spread {min(times[False]):.1f}-{max(times[False]):.1f} / {min(times[True]):.1f}-{max(times[True]):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
