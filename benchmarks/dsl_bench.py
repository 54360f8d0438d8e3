"""DSL compile and launch cost on the host.

- compile: IR + code generation per specialisation of the library kernels, and their first launch
  (compile, back-end kernel object, generated launch functions); target <= 50 ms;
- launch: the host time of one cached launch, measured side by side in one process, in three columns:
  the raw MLX kernel call of the same generated source (the function `mx.fast.metal_kernel` /
  `cuda_kernel` returns, with scalars as ready-made arrays), the `@jit` kernel's launch, and the
  `@autotune` entry point users call (a config tuned for the key, in a scratch tuning database);
  kernels of 4, 8 and 16 arguments (arrays, `empty` placeholders made per call, ints, floats) with a
  tuple grid and a `lambda meta:` grid. Target: `@autotune` <= raw + 3 us.

By default the back end is a null one (its kernels do no work and return ready-made outputs), so only
Python's part is timed. `--backend cuda` launches on MLX's CUDA back end instead: the raw column is
then the `mx.fast.cuda_kernel` object itself, launches are queued and evaluated between samples.

Run: python benchmarks/dsl_bench.py [--backend cuda] [--smoke]   (results in docs/dsl.md, docs/benchmarks.md)
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import mlx.core as mx

import metalforge as mf
import metalforge.language as tl
from metalforge.autotune import Config, autotune
from metalforge.kernels import attention, norms, quantized, softmax
from metalforge.runtime import backends, metal_kernel
from metalforge.tuning_db import TuningDB

N = 4096                                    # elements per argument array
TUNED = Config({"BLOCK": 256}, num_warps=4)  # the config stored for every benchmark kernel
TARGET_US = 3.0


class NullBackend:
    """Takes launches and returns ready-made outputs: measures the launch path alone."""

    name = "null"
    language = "msl"
    batch_timing = False

    @staticmethod
    def available() -> bool:
        return True

    def build(self, kernel: Any) -> Callable[..., list[mx.array]]:
        outputs = [mx.zeros((1,))] * len(kernel.output_names)
        return lambda **call: outputs


@mf.jit
def args4(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * scale, mask=mask)


@mf.jit
def args8(x_ptr, y_ptr, out_ptr, sum_ptr, n, stride, alpha, beta, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)
    y = tl.load(y_ptr + offs * stride, mask=mask)
    tl.store(out_ptr + offs, alpha * x + beta * y, mask=mask)
    tl.store(sum_ptr + offs, x + y, mask=mask)


@mf.jit
def args16(a_ptr, b_ptr, c_ptr, d_ptr, e_ptr, f_ptr, o1_ptr, o2_ptr, o3_ptr, n, sa, sb, sc, alpha, beta, gamma,
           BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs * sa, mask=mask)
    b = tl.load(b_ptr + offs * sb, mask=mask)
    c = tl.load(c_ptr + offs * sc, mask=mask)
    d = tl.load(d_ptr + offs, mask=mask)
    e = tl.load(e_ptr + offs, mask=mask)
    f = tl.load(f_ptr + offs, mask=mask)
    tl.store(o1_ptr + offs, alpha * a + b, mask=mask)
    tl.store(o2_ptr + offs, beta * c + d, mask=mask)
    tl.store(o3_ptr + offs, gamma * e + f, mask=mask)


def call_sites(kernel, tuned, backend: Any) -> tuple[dict[str, Callable[[], Any]], tuple]:
    """The @jit and @autotune calls of `kernel` as a caller writes them (placeholders and grid made in
    the call), with a tuple and a lambda grid; and the arguments of one call."""
    a, b, c, d, e, f = (mx.ones((N,)) for _ in range(6))
    p, cdiv, empty, B = N // TUNED.kwargs["BLOCK"], mf.cdiv, mf.empty, backend
    if kernel is args4:
        return {
            "jit tuple": lambda: kernel[(p,)](a, empty((N,)), N, 2.0, BLOCK=256, num_warps=4, backend=B),
            "jit lambda": lambda: kernel[lambda m: (cdiv(N, m["BLOCK"]),)](a, empty((N,)), N, 2.0, BLOCK=256,
                                                                          num_warps=4, backend=B),
            "autotune tuple": lambda: tuned[(p,)](a, empty((N,)), N, 2.0, backend=B),
            "autotune lambda": lambda: tuned[lambda m: (cdiv(N, m["BLOCK"]),)](a, empty((N,)), N, 2.0, backend=B),
        }, (a, empty((N,)), N, 2.0)
    if kernel is args8:
        return {
            "jit tuple": lambda: kernel[(p,)](a, b, empty((N,)), empty((N,)), N, 1, 0.5, 1.5, BLOCK=256, num_warps=4,
                                              backend=B),
            "jit lambda": lambda: kernel[lambda m: (cdiv(N, m["BLOCK"]),)](a, b, empty((N,)), empty((N,)), N, 1, 0.5,
                                                                          1.5, BLOCK=256, num_warps=4, backend=B),
            "autotune tuple": lambda: tuned[(p,)](a, b, empty((N,)), empty((N,)), N, 1, 0.5, 1.5, backend=B),
            "autotune lambda": lambda: tuned[lambda m: (cdiv(N, m["BLOCK"]),)](a, b, empty((N,)), empty((N,)), N, 1,
                                                                              0.5, 1.5, backend=B),
        }, (a, b, empty((N,)), empty((N,)), N, 1, 0.5, 1.5)
    return {
        "jit tuple": lambda: kernel[(p,)](a, b, c, d, e, f, empty((N,)), empty((N,)), empty((N,)), N, 1, 1, 1, 0.5,
                                          1.5, -1.0, BLOCK=256, num_warps=4, backend=B),
        "jit lambda": lambda: kernel[lambda m: (cdiv(N, m["BLOCK"]),)](
            a, b, c, d, e, f, empty((N,)), empty((N,)), empty((N,)), N, 1, 1, 1, 0.5, 1.5, -1.0, BLOCK=256,
            num_warps=4, backend=B),
        "autotune tuple": lambda: tuned[(p,)](a, b, c, d, e, f, empty((N,)), empty((N,)), empty((N,)), N, 1, 1, 1,
                                              0.5, 1.5, -1.0, backend=B),
        "autotune lambda": lambda: tuned[lambda m: (cdiv(N, m["BLOCK"]),)](
            a, b, c, d, e, f, empty((N,)), empty((N,)), empty((N,)), N, 1, 1, 1, 0.5, 1.5, -1.0, backend=B),
    }, (a, b, c, d, e, f, empty((N,)), empty((N,)), empty((N,)), N, 1, 1, 1, 0.5, 1.5, -1.0)


def benchmarked(kernel, backend: Any, db: Path) -> dict[str, Callable[[], Any]]:
    """The five timed calls of one kernel: the raw MLX kernel call of its generated source, and the
    @jit and @autotune calls (a config stored for the key in `db`)."""
    tuned = autotune(configs=[TUNED, Config({"BLOCK": 512}, num_warps=8)], key=["n"], db=db)(kernel)
    calls, args = call_sites(kernel, tuned, backend)
    TuningDB(db).record_winner(tuned.tuning_key(args), config=TUNED.to_json(), time_ms=1.0, trials=2,
                               study="dsl_bench")
    assert tuned.config_for((1,), *args)[1] == "exact"
    mx.eval(calls["autotune tuple"]())  # compiles; the raw call runs its source
    compiled = kernel.last
    raw = backend.build(metal_kernel(compiled.name, [n for n, _ in compiled.inputs], [n for n, _ in compiled.outputs],
                                     compiled.body, compiled.header, atomic_outputs=compiled.atomic_outputs,
                                     shared_memory=compiled.shared_bytes))
    named = dict(zip(kernel.arg_names, args))
    inputs = [named[n] if isinstance(named[n], mx.array) else
              mx.array(named[n], dtype=mx.int32 if isinstance(named[n], int) else mx.float32) for n, _ in compiled.inputs]
    outputs, threads, programs = len(compiled.outputs), compiled.threads, N // TUNED.kwargs["BLOCK"]
    return {"raw": lambda: raw(inputs=list(inputs), output_shapes=[(N,)] * outputs,
                               output_dtypes=[mx.float32] * outputs, grid=(programs * threads, 1, 1),
                               threadgroup=(threads, 1, 1)),
            **calls}


def sample_us(launch: Callable[[], Any], calls: int, clock: Callable[[], float]) -> float:
    """Microseconds per call over `calls` calls; their outputs are evaluated after the clock stops."""
    start = clock()
    outs = [launch() for _ in range(calls)]
    elapsed = clock() - start
    mx.eval(outs)
    return elapsed / calls * 1e6


def fastest_us(variants: dict[str, Callable[[], Any]], calls: int, rounds: int,
               clock: Callable[[], float]) -> dict[str, float]:
    """Each variant's us per call in its least disturbed round (as timeit advises); the rounds
    interleave the variants, so that the machine's drift reaches each alike."""
    for launch in variants.values():
        launch()  # warm: the first call of each grid kind compiles or looks up
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, launch in variants.items():
            samples[name].append(sample_us(launch, calls, clock))
    return {name: min(s) for name, s in samples.items()}


def launch_table(backend: Any, db: Path, calls: int, rounds: int, clock: Callable[[], float]) -> list[str]:
    rows = []
    for kernel in (args4, args8, args16):
        us = fastest_us(benchmarked(kernel, backend, db), calls, rounds, clock)
        for grid in ("tuple", "lambda"):
            jit, tuned = us[f"jit {grid}"], us[f"autotune {grid}"]
            rows.append(f"| {len(kernel.arg_names) - 1:>4} | {grid:<6} | {us['raw']:6.2f} | {jit:6.2f} | "
                        f"{tuned:9.2f} | {jit - us['raw']:+7.2f} | {tuned - us['raw']:+9.2f} |")
    return rows


def breakdown(backend: Any, db: Path, calls: int, rounds: int, clock: Callable[[], float]) -> list[str]:
    """Where the 16-argument @autotune call with a lambda grid spends its time beyond the raw call,
    by difference of timed parts."""
    variants = benchmarked(args16, backend, db)
    _, args = call_sites(args16, None, backend)
    launch = next(iter(args16.launches.values()))  # the specialisation's launch function (@jit's: same code)
    tuned = next(t for t in autotune_tuners() if t.fn is args16)
    p, empty = N // TUNED.kwargs["BLOCK"], mf.empty
    us = fastest_us({**variants,
                     "placeholders": lambda: (empty((N,)), empty((N,)), empty((N,))),
                     "shape tuples": lambda: ((N,), (N,), (N,)),
                     "indexing": lambda: tuned[(p,)],
                     "launch function": lambda: launch((p,), *args, None)}, calls, rounds, clock)
    parts = {
        "3 `mf.empty((N,))` placeholders, beyond 3 shape tuples": us["placeholders"] - us["shape tuples"],
        "`tuned[grid]`": us["indexing"],
        "dispatcher: bind 16 arguments, check their types, key, find": us["autotune tuple"] - us["placeholders"]
        - us["indexing"] - us["launch function"],
        "launch function beyond the raw call (0-d checks, scalar arrays, shapes, grid)":
            us["launch function"] - us["raw"],
        "the grid lambda (made, called; cdiv)": us["autotune lambda"] - us["autotune tuple"],
    }
    return [f"| {part} | {value:5.2f} |" for part, value in parts.items()] + \
        [f"| total (@autotune lambda - raw) | {us['autotune lambda'] - us['raw']:5.2f} |"]


def autotune_tuners() -> list:
    from metalforge.autotune.tuner import _TUNERS

    return list(_TUNERS)


def compile_table(repeats: int) -> list[str]:
    """IR + codegen per library kernel specialisation, and the first launch of one on the null back end."""
    x16 = mx.zeros((4, 1024), mx.float16)
    flat, row = x16.reshape(-1), x16[0]
    w_q, scales, biases = mx.quantize(mx.zeros((64, 512)), 64, 4)
    q, kv = mx.zeros((256,)), mx.zeros((2 * 100 * 64,))
    cases = {  # kernel, arguments, constexprs: what the library wrappers launch
        "softmax": (softmax.softmax_kernel, (flat, mf.empty((4, 1024), mx.float16), 1024, 1024), dict(BLOCK=1024)),
        "layer_norm": (norms.layer_norm_kernel, (flat, row, row, mf.empty((4, 1024), mx.float16), mf.empty(4),
                                                 mf.empty(4), 1024, 1e-5), dict(BLOCK=1024)),
        "add_rms_norm": (norms.add_rms_norm_kernel, (flat, flat, row, mf.empty((4, 1024), mx.float16),
                                                     mf.empty((4, 1024), mx.float16), 1024, 1e-5), dict(BLOCK=1024)),
        "qmv_4bit": (quantized.qmv_kernel, (mx.zeros((512,)), w_q.reshape(-1), scales.reshape(-1),
                                            biases.reshape(-1), mf.empty(64), 64, 512, 64, 4),
                     dict(BLOCK_N=8, BLOCK_K=256)),
        "decode_attention": (attention.decode_attention_kernel, (q, kv, kv, mf.empty((4, 64), mx.float32), mf.empty(4),
                                                                mf.empty(4), 100, 50, 0, 0.125),
                             dict(GROUP=2, D=64, FINAL=False, BLOCK_N=64)),
    }
    null = NullBackend()
    rows = []
    for name, (kernel, args, meta) in cases.items():
        jit = kernel.fn  # library kernels are autotuned: time the kernel itself
        compile_ms, first_ms = [], []
        for _ in range(repeats):
            jit.cache.clear()
            start = time.perf_counter()
            jit.compile(*args, **meta)
            compile_ms.append((time.perf_counter() - start) * 1e3)
            jit.cache.clear()
            jit.launches.clear()
            start = time.perf_counter()
            jit[(1,)](*args, **meta, backend=null)
            first_ms.append((time.perf_counter() - start) * 1e3)
        rows.append(f"| {name:<16} | {statistics.median(compile_ms):7.1f} | {statistics.median(first_ms):7.1f} |")
    return rows


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, timeout=10).stdout.strip() or "?"
    except OSError:
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="null", help="null (default: Python's part alone) or a back end name "
                                                      "(cuda: against the real mx.fast.cuda_kernel call)")
    ap.add_argument("--smoke", action="store_true", help="few calls: checks that the script runs")
    ap.add_argument("--breakdown", action="store_true",
                    help="also where the 16-argument @autotune call's time beyond the raw call goes")
    args = ap.parse_args()
    backend = NullBackend() if args.backend == "null" else backends.resolve(args.backend)
    calls, rounds, repeats = (20, 1, 1) if args.smoke else (1000, 21, 5)
    # the null back end's calls are Python alone: the calling thread's CPU time leaves out the other
    # processes of a shared machine; a real back end's are timed on the wall clock
    clock, clock_name = (time.thread_time, "thread CPU time") if args.backend == "null" else \
        (time.perf_counter, "wall clock")
    print(f"# metalforge {_commit()}, {backend.name} back end, {platform.node()} ({os.cpu_count()} cores), "
          f"{time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, mlx {mx.__version__}")
    with tempfile.TemporaryDirectory() as scratch:
        rows = launch_table(backend, Path(scratch) / "tuning.sqlite", calls, rounds, clock)
        parts = breakdown(backend, Path(scratch) / "tuning.sqlite", calls, rounds, clock) if args.breakdown else []
    print(f"\ncached launch, us per call ({clock_name}, fastest of {rounds} interleaved rounds of {calls} calls)")
    print("| args | grid   |    raw |   @jit | @autotune | jit-raw | tuned-raw |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"target: @autotune - raw <= {TARGET_US} us")
    if parts:
        print("\nthe 16-argument @autotune call with a lambda grid, beyond the raw call (by difference), us")
        print("| part | us |\n|---|---|\n" + "\n".join(parts))
    print("\ncompile (IR + codegen) and first launch, ms")
    print("| kernel           | compile | first launch |")
    print("|---|---|---|")
    print("\n".join(compile_table(repeats)))


if __name__ == "__main__":
    main()
