"""Triton's own unit tests (test_core.py, Triton 3.6), ported: kernels in triton_port_kernels.py, run
on Triton's interpreter and on metalforge (both emulator schedules), inputs from a printed seed.

Parametrised as Triton parametrises them; where Triton's numpy reference is written inline it is
repeated here, so that Triton's interpreter is checked against it too.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="conformance suite needs torch and triton: pip install -e '.[conformance]'")
pytest.importorskip("triton", reason="conformance suite needs torch and triton: pip install -e '.[conformance]'")

from .harness import NP, Out  # noqa: E402

INT = ["int8", "int16", "int32", "int64"]
UINT = ["uint8", "uint16", "uint32", "uint64"]
SIZE = 128  # _test_binary's


def promote(a: str, b: str) -> str:
    """Triton's integer promotion: wider wins, unsigned wins at equal width."""
    ba, bb = NP[a](0).itemsize, NP[b](0).itemsize
    if ba != bb:
        return a if ba > bb else b
    return a if a.startswith("u") else b


def random_ints(rng, dtype: str, n: int, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    info = np.iinfo(NP[dtype])
    return rng.integers(info.min if lo is None else lo, info.max if hi is None else hi, size=n, endpoint=True,
                        dtype=np.int64 if dtype != "uint64" else np.uint64).astype(NP[dtype])


# --- test_shift_op -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype_x,dtype_y,op", [(x, y, op) for op in ["<<", ">>"] for x in INT + UINT for y in UINT])
def test_shift_op(both, rng, dtype_x, dtype_y, op):
    """Triton picks the shift from x's type before promotion: int32 >> uint32 is arithmetic."""
    bw = max(NP[dtype_x](0).itemsize, NP[dtype_y](0).itemsize) * 8
    dtype_z = f"{'int' if dtype_x.startswith('int') else 'uint'}{bw}"
    x = random_ints(rng, dtype_x, SIZE)
    y = random_ints(rng, dtype_y, SIZE, 0, bw - 1)
    with np.errstate(over="ignore"):
        xz, yz = x.astype(NP[dtype_z]), y.astype(NP[dtype_z])
        z = (xz << yz if op == "<<" else xz >> yz).astype(NP[promote(dtype_x, dtype_y)])
    out = Out(SIZE, promote(dtype_x, dtype_y))
    both.check("shl_kernel" if op == "<<" else "shr_kernel", (1,), (out, x, y), [z], consts={"SIZE": SIZE})
    if op == ">>":
        with np.errstate(over="ignore"):
            z = (xz >> yz[0]).astype(NP[promote(dtype_x, dtype_y)])
        both.check("shr_broadcast_rhs_kernel", (1,), (out, x, y), [z], consts={"SIZE": SIZE})


# --- stores read back ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,block", [(1, 16), (77, 128), (100, 128)])
def test_store_then_load_sees_the_value(both, rng, n, block):
    """Triton runs a program's statements in order: a load after a store reads the stored value, also
    where another thread of the threadgroup stored it (thread 0 for a scalar)."""
    x = random_ints(rng, "int32", n, 0, 1000)
    i = int(x.max()) % n
    rev = x[::-1]
    out = np.concatenate([x[(np.arange(n) + i) % n], rev * 2, rev + 1])
    both.check("store_reload_kernel", (1,), (x, Out(1, "int32"), Out(3 * n, "int32"), n),
               [np.array([i], np.int32), out], consts={"BLOCK": block})


@pytest.mark.parametrize("n,steps", [(37, 3), (64, 2)])
def test_store_then_load_across_loop_iterations(both, n, steps):
    a = np.arange(n, dtype=np.int32)
    for _ in range(steps):
        b = a[::-1] * 2 + 1
        a = b[::-1].copy()
    both.check("loop_reload_kernel", (1,), (Out(2 * n, "int32"), n), [np.concatenate([a, b])],
               consts={"STEPS": steps, "BLOCK": 64})
