"""A stand-in for an `@mf.jit` launchable (until the DSL exists): a hand-written MSL elementwise kernel
`out = 2 * x + 1` behind the launch contract the autotuner relies on (`name`, `source_hash`,
`arg_names`, `fn[grid](*args, **meta)`, `warmup`). Each config picks `BLOCK` (elements per
threadgroup, a template argument), `num_warps` (threadgroup = 32 * num_warps threads) and a
`VARIANT`: "good", "wrong" (fast, writes one element per group), "broken" (does not compile),
"slow" (right, but spins long enough to hit a small trial time limit), "hang" (never ends) or
"crash" (stores to address 16: a segmentation fault unless checked mode stops it first)."""
from __future__ import annotations

import hashlib
from typing import Any, Callable

import mlx.core as mx

from metalforge.runtime import backends, metal_kernel

_LOOP = """
    for (uint i = thread_position_in_threadgroup.x; i < BLOCK; i += threads_per_threadgroup.x) {
        uint e = threadgroup_position_in_grid.x * BLOCK + i;
        if (e < uint(n)) { out[e] = %s; }
    }
"""
SLOW_SPIN = 150000
SOURCES = {
    "good": _LOOP % "x[e] * 2.0f + 1.0f",
    "wrong": """
        uint e = threadgroup_position_in_grid.x * BLOCK;
        if (thread_position_in_threadgroup.x == 0 && e < uint(n)) { out[e] = x[e] * 2.0f + 1.0f; }
    """,
    "broken": _LOOP % "x[e] * 2.0f + undeclared_variable",
    "slow": """
        float spin = 0.0f;
        for (int k = 0; k < %d; ++k) { spin = spin * 0.5f + 1.0f; }
    """ % SLOW_SPIN + _LOOP % "x[e] * 2.0f + 1.0f + (spin > 3.0f ? 1.0f : 0.0f)",
    "hang": "uint k = 1; while (k != 0) { k = k * 2 + 1; }" + _LOOP % "x[e] * 2.0f + 1.0f",
    "crash": "*(device float*)16 = x[0];" + _LOOP % "x[e] * 2.0f + 1.0f",
}


class Empty:
    """An output placeholder (the DSL's `mf.empty`)."""

    def __init__(self, shape: tuple, dtype: mx.Dtype) -> None:
        self.shape, self.dtype = tuple(shape), dtype


def reference(x: mx.array, out: Empty, n: int) -> mx.array:
    return x * 2 + 1


class Launchable:
    def __init__(self, name: str, backend: Any = None, version: str = "1") -> None:
        self.name, self.backend, self.arg_names = name, backend, ["x", "out", "n"]
        self.source_hash = hashlib.sha256(f"{version}{sorted(SOURCES.items())}".encode()).hexdigest()
        self.kernels = {v: metal_kernel(f"{name}_{v}", ["x", "n"], ["out"], src, backend=backend)
                        for v, src in SOURCES.items()}
        self.compiled: list[dict] = []  # meta of every warmup (compile) call, to check pruning precedes it

    def _call(self, grid: Any, x: mx.array, out: Empty, n: int, meta: dict) -> dict:
        programs = (grid(meta) if callable(grid) else grid)[0]
        threads = 32 * meta["num_warps"]
        return dict(inputs=[x, n], output_shapes=[out.shape], output_dtypes=[out.dtype],
                    grid=(programs * threads, 1, 1), threadgroup=(threads, 1, 1), template=[("BLOCK", meta["BLOCK"])])

    def __getitem__(self, grid: Any) -> Callable[..., mx.array]:
        def launch(x: mx.array, out: Empty, n: int, **meta: Any) -> mx.array:
            return self.kernels[meta.get("VARIANT", "good")](**self._call(grid, x, out, n, meta))[0]
        return launch

    def warmup(self, x: mx.array, out: Empty, n: int, *, grid: Any, **meta: Any) -> None:
        """Compile without running, as Triton's `JITFunction.warmup`."""
        self.compiled.append(meta)
        kernel = self.kernels[meta.get("VARIANT", "good")]
        call = self._call(grid, x, out, n, meta)
        p = kernel.prepare(**call)
        backends.resolve(self.backend).compile(p.generated, kernel.source, kernel.header, p.output_dtypes, kernel.atomic_outputs,
                             kernel.math_mode, kernel.label)


def grid(meta: dict) -> tuple:
    return (-(-N // meta["BLOCK"]),)


N = 1000


def args(n: int = N, dtype: mx.Dtype = mx.float32) -> tuple:
    return (mx.random.normal((n,)).astype(dtype), Empty((n,), dtype), n)
