"""Emulator speed on this machine's CPU: compile time, launch overhead, threads/s, barrier cost.

These numbers describe the emulator only (a test harness); they say nothing about GPU speed.
Run: python benchmarks/emulator_bench.py   (results are recorded in docs/emulator.md)
"""
from __future__ import annotations

import os
import platform
import statistics
import tempfile
import time

import mlx.core as mx
import numpy as np

from metalforge.runtime import metal_kernel
from metalforge.runtime.emulator import EmulatorBackend

ELEMENTWISE = "uint i = thread_position_in_grid.x; out[i] = inp[i] * 2.0f + 1.0f;"
BARRIERS = 16
BARRIER_HEAVY = f"""
  uint i = thread_position_in_grid.x, l = thread_position_in_threadgroup.x, n = threads_per_threadgroup.x;
  threadgroup float t[256];
  float acc = inp[i];
  for (int r = 0; r < {BARRIERS // 2}; r++) {{
    t[l] = acc; threadgroup_barrier(mem_flags::mem_threadgroup);
    acc += t[(l + 1) % n]; threadgroup_barrier(mem_flags::mem_threadgroup);
  }}
  out[i] = acc;"""
# 64 device reads per thread: what checked mode's per-access checks cost, beyond its copies.
ACCESS_HEAVY = ("uint i = thread_position_in_grid.x, n = threads_per_grid.x; float a = 0.0f;\n"
                "for (uint k = 0; k < 64; k++) a += inp[(i + 37 * k) & (n - 1)];\nout[i] = a;")
SIMD_HEAVY = "uint i = thread_position_in_grid.x; float a = inp[i]; for (int r = 0; r < 16; r++) a = simd_sum(a) * 0.03125f; out[i] = a;"


def timed(fn, reps: int = 5) -> float:
    fn()  # warm: compile, caches
    return statistics.median(_once(fn) for _ in range(reps))


def _once(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def launcher(source: str, name: str, n: int, backend: EmulatorBackend, tg: int = 256):
    k = metal_kernel(name, ["inp"], ["out"], source, backend=backend)
    x = mx.array(np.arange(n, dtype=np.float32))
    return lambda: mx.eval(k(inputs=[x], output_shapes=[(n,)], output_dtypes=[mx.float32], grid=(n, 1, 1),
                              threadgroup=(tg, 1, 1)))


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        os.environ["METALFORGE_CACHE_DIR"] = cache
        backend = EmulatorBackend()
        k = launcher(ELEMENTWISE, "bench_cold", 1024, backend)
        runtime_and_kernel = _once(k)  # builds the runtime library and the kernel
        cold = _once(launcher(ELEMENTWISE.replace("1.0f", "3.0f"), "bench_cold2", 1024, EmulatorBackend()))
        rows.append(("compile, cold (kernel only)", f"{cold * 1e3:.0f} ms"))
        rows.append(("compile, cold (first kernel + runtime library)", f"{runtime_and_kernel * 1e3:.0f} ms"))
        fresh = EmulatorBackend()  # new process-level cache: loads the library from disk
        rows.append(("compile, cached on disk", f"{_once(launcher(ELEMENTWISE, 'bench_cold', 1024, fresh)) * 1e3:.1f} ms"))
        for checked in (True, False):
            b = EmulatorBackend(checked=checked)
            rows.append((f"cached launch, 1024 threads, checked={checked}",
                         f"{timed(launcher(ELEMENTWISE, 'bench_small', 1024, b), 50) * 1e3:.3f} ms"))
        n = 1 << 22
        for checked in (True, False):
            t = timed(launcher(ELEMENTWISE, "bench_elementwise", n, EmulatorBackend(checked=checked)))
            rows.append((f"elementwise, {n} threads, checked={checked}", f"{n / t / 1e6:.0f} M threads/s"))
        for checked in (True, False):
            t = timed(launcher(ACCESS_HEAVY, "bench_accesses", n, EmulatorBackend(checked=checked)))
            rows.append((f"64 reads per thread, {n} threads, checked={checked}",
                         f"{t / (n * 64) * 1e9:.2f} ns per read"))
        n = 1 << 20
        for schedule in ("forward", "reverse"):
            t = timed(launcher(BARRIER_HEAVY, "bench_barrier", n, EmulatorBackend(checked=False, schedule=schedule)), 3)
            base = timed(launcher(BARRIER_HEAVY.replace("threadgroup_barrier(mem_flags::mem_threadgroup);", ""),
                                  "bench_barrier_free", n, EmulatorBackend(checked=False)), 3)
            rows.append((f"barrier cost ({schedule}), {n} threads x {BARRIERS}",
                         f"{(t - base) / (n * BARRIERS) * 1e9:.1f} ns per thread per barrier"))
        t = timed(launcher(SIMD_HEAVY, "bench_simd", n, EmulatorBackend(checked=False)), 3)
        rows.append((f"simd_sum, {n} threads x 16", f"{t / (n * 16) * 1e9:.1f} ns per thread per call"))
    print(f"# emulator benchmark — {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d')}, mlx {mx.__version__}")
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:{width}s}  {value}")


if __name__ == "__main__":
    main()
