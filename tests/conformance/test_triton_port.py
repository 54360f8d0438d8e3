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


# --- control flow -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("if_type", ["if", "if_and_dynamic", "if_exp_static", "if_exp_dynamic", "if_exp_dynamic_constexpr",
                                     "if_exp_dynamic_void", "if_and_static", "if_or_dynamic"])
def test_if(both, if_type):
    cond = np.ones(1, np.int32)
    x_true, x_false = np.array([3.14], np.float32), np.array([1.51], np.float32)
    both.check("if_kernel", (1,), (cond, x_true, x_false, Out(1, "float32", 0.0)), [x_true],
               consts={"IfType": if_type, "BoolVar": True, "StaticVaue": 1})


@pytest.mark.parametrize("cond1,cond2,cond3", [(a, b, c) for a in (True, False) for b in (True, False)
                                               for c in (True, False)])
def test_nested_if_else_return(both, cond1, cond2, cond3):
    conds = [np.array([c], np.int32) for c in (cond1, cond2, cond3)]
    vals = [np.array([v], np.int32) for v in (1, 2, 3)]
    want = -1 if cond1 and not cond2 else (1 if cond1 else (2 if cond3 else 3))
    both.check("nested_if_else_return_kernel", (1,), (*conds, *vals, Out(1, "int32", -1)),
               [np.array([want], np.int32)])


def test_while(both):
    init_i, bound, cut_off = (np.full(1, v, np.int32) for v in (1, 10, 5))
    both.check("while_kernel", (1,), (init_i, bound, cut_off, *[Out(1, "int32", 0)] * 3),
               [init_i + 1, init_i, bound])


def test_nested_while(both):
    count = np.array([8], np.int32)
    both.check("nested_while_kernel", (1,), (Out(1, "float32", 0.0), count), [np.array([40.0], np.float32)])


@pytest.mark.parametrize("start,end,step", [(0, 10, 3), (1, 8, 2), (10, 0, -3), (3, 3, 1)])
def test_static_range(both, start, end, step):
    both.check("static_range_kernel", (1,), (Out(1, "int32", 0),),
               [np.array([sum(range(start, end, step))], np.int32)], consts={"START": start, "END": end, "STEP": step})


@pytest.mark.parametrize("lo,hi,iv", [(2**35, 2**35 + 20, 1), (2**35, 2**35 + 20, 3), (15, -16, -1), (15, -16, -3),
                                      (-18, -22, -1), (22, 18, -1)])
def test_for_iv(both, lo, hi, iv):
    both.check("for_iv_kernel", (1,), (Out(1, "int64"),), [np.array([sum(range(lo, hi, iv))], np.int64)],
               consts={"LO": lo, "HI": hi, "iv": iv})


@pytest.mark.parametrize("n", [1, 63, 157])
def test_early_return_guard(both, rng, n):
    """More programs than blocks: the extra ones return first; a returning branch after a reduction."""
    block = 32
    x = rng.uniform(-1, 1, n).astype(np.float32)
    want = np.empty(n, np.float32)
    for pid in range(-(-n // block)):
        s = slice(pid * block, (pid + 1) * block)
        want[s] = -x[s] if x[s].sum() < 0 else x[s] + (1.0 if pid % 2 == 0 else 2.0)
    both.check("guard_return_kernel", (-(-n // block) + 3,), (x, Out(n, "float32"), n), [want],
               consts={"BLOCK": block}, rtol=1e-6)


# --- math and casts ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype_str", ["int32", "uint32"])
def test_umulhi(both, rng, dtype_str):
    x, y = random_ints(rng, dtype_str, 128), random_ints(rng, dtype_str, 128)
    wide = (x.astype(object) * y.astype(object)) >> 32
    z = np.array([int(v) & 0xFFFFFFFF for v in wide], np.uint64).astype(np.uint32).view(NP[dtype_str])
    both.check("umulhi_kernel", (1,), (x, y, Out(128, dtype_str)), [z], consts={"N": 128})


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("propagate_nan", ["NONE", "ALL"])
@pytest.mark.parametrize("func", ["minimum", "maximum", "clamp"])
@pytest.mark.parametrize("mode", ["A", "B", "both"])
def test_propagate_nan(both, rng, dtype, propagate_nan, func, mode):
    if func == "clamp" and mode == "B":
        pytest.skip("Triton's test skips it too")
    a, b = (np.abs(rng.standard_normal(1)).astype(NP[dtype]) for _ in range(2))
    if mode in ("A", "both"):
        a[0] = np.nan
    if mode in ("B", "both"):
        b[0] = np.nan
    nan = mode == "both" or propagate_nan == "ALL"  # Triton's test: NaN exactly then
    consts = {"propagate_nan": propagate_nan, "func": func}
    if nan:
        both.check("propagate_nan_kernel", (1,), (a, b, Out(1, dtype)), [np.full(1, np.nan, NP[dtype])],
                   consts=consts)
    else:  # Triton's interpreter computes np.minimum (NaN) here; Triton on GPUs, and its test, the number
        for schedule in ("forward", "reverse"):
            got, = both.mf.run("propagate_nan_kernel", (1,), a, b, Out(1, dtype), schedule=schedule, **consts)
            assert not np.isnan(got[0]), got


MATH_NAMESPACE = {"abs": np.abs, "ceil": np.ceil, "cos": np.cos, "erf": np.vectorize(__import__("math").erf),
                  "exp": np.exp, "exp2": np.exp2, "floor": np.floor, "log": np.log, "log2": np.log2,
                  "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "sqrt": np.sqrt, "sqrt_rn": np.sqrt,
                  "div_rn": None, "fdiv": None, "fma": None}


@pytest.mark.parametrize("fn", sorted(MATH_NAMESPACE))
def test_math_namespace(both, rng, fn):
    n = 157
    x = rng.uniform(0.1, 4, n).astype(np.float32)
    y = rng.uniform(0.5, 3, n).astype(np.float32)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    want = (x64 * y64 + x64 if fn == "fma" else x64 / y64 if fn in ("div_rn", "fdiv")
            else MATH_NAMESPACE[fn](x64)).astype(np.float32)
    both.check("math_namespace_kernel", (3,), (x, y, Out(n, "float32"), n), [want],
               consts={"FN": fn, "BLOCK": 64}, rtol=2e-6, atol=2e-6)


def test_cast_bitcast_zeros_like(both, rng):
    n = 157
    x = rng.uniform(-100, 100, n).astype(np.float32)
    both.check("cast_like_kernel", (3,), (x, Out(n, "int32"), Out(n, "uint32"), Out(n, "float32"), n),
               [x.astype(np.int32), x.view(np.uint32), np.sqrt(np.abs(x))], consts={"BLOCK": 64})
