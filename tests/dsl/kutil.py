"""Helpers for the emulator kernel tests: numpy <-> MLX and comparisons with float64 references."""
from __future__ import annotations

import itertools
import linecache
from typing import Any, Callable

import mlx.core as mx
import numpy as np

_sources = itertools.count()


def mxa(a: np.ndarray) -> mx.array:
    """A contiguous MLX input from a numpy array (keeps the dtype)."""
    return mx.array(np.ascontiguousarray(a))


def npy(a: mx.array) -> np.ndarray:
    return np.array(a)


def randf(rng: np.random.Generator, *shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def close(got: mx.array | np.ndarray, want: np.ndarray, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """Compare a kernel output with a float64 reference; NaNs (unwritten, poisoned elements) fail."""
    g = np.asarray(got, dtype=np.float64)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, (g.shape, w.shape)
    assert not np.isnan(g).any() or np.isnan(w).any(), f"unwritten/NaN elements at {np.argwhere(np.isnan(g))[:5]}"
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


def contracts_fma() -> bool:
    """NVRTC fuses a*b+c into one rounding (as Triton on NVIDIA does); Metal and the emulator don't."""
    from metalforge.runtime import backends

    return backends.resolve().name == "cuda"


def equal(got: mx.array | np.ndarray, want: np.ndarray) -> None:
    """Exactly equal; on a back end that fuses multiply-adds, floats within a few rounding errors of
    the largest value (a fused a*b+c skips one rounding, which cancellation can make many ulps)."""
    g = np.asarray(got)
    w = np.asarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    if g.dtype.kind == "f" and contracts_fma():
        assert not np.isnan(g).any() or np.isnan(w).any(), "unwritten/NaN elements"
        eps = float(np.finfo(g.dtype).eps)
        scale = float(np.max(np.abs(w.astype(np.float64)))) if w.size else 0.0
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=4 * eps, atol=4 * eps * scale)
    else:
        np.testing.assert_array_equal(g, w)


def generated(kernel) -> str:
    """The source the last launch of `kernel` ran: MSL, or CUDA on the cuda back end."""
    return kernel.asm.get("msl") or kernel.asm["cuda"]


def loop_body(source: str, head: str) -> str:
    """The text of the first loop whose line starts with `head`, up to its closing brace."""
    start = source.index(head)
    depth, i = 0, source.index("{", start)
    while True:
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        if depth == 0:
            return source[start:i + 1]
        i += 1


def define_source(src: str, jit: Callable[[Any], Any], **scope: Any) -> Any:
    """The kernel `generated` that `src` defines (with `scope`'s names), decorated by `jit`; the text is
    registered with linecache under a fresh name, since a front end reads a kernel's source back through it."""
    name = f"<generated-kernel-{next(_sources)}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    exec(compile(src, name, "exec"), scope)
    return jit(scope["generated"])
