"""Property-based tests: hypothesis generates random elementwise expression kernels and random masked
reductions; each is compiled by metalforge, run on the emulator and compared with numpy (float64).

Hypothesis draws the kernel, the shapes and a numpy seed for the inputs; a failure prints all three.
"""
from __future__ import annotations

import itertools
import linecache

import mlx.core as mx
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metalforge as mf
import metalforge.language as tl

from .kutil import mxa, npy

SETTINGS = dict(max_examples=15, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# --- random elementwise expression trees ---------------------------------------------------------------------
# Leaves: full tiles a, b, c (BM x BN), a row vector r broadcast along rows, a runtime scalar s, constants.
# Inputs have magnitudes in [0.5, 2] so that dividing by a leaf is safe; `where` conditions compare leaves
# (exact in float32 and float64), so only rounding separates the kernel from the float64 reference, and the
# tolerance is derived from a bound on the magnitudes of every intermediate.
LEAVES = ["a", "b", "c", "r[None, :]", "s"]
CONSTS = [0.5, 1.25, -2.0, 3.0, -0.75]


def leaf():
    return st.one_of(st.sampled_from(LEAVES).map(lambda v: ("leaf", v)),
                     st.sampled_from(CONSTS).map(lambda v: ("const", v)))


def extend(children):
    binop = st.tuples(st.sampled_from(["+", "-", "*"]), children, children)
    div = st.tuples(st.just("/"), children, st.sampled_from(LEAVES).map(lambda v: ("leaf", v)))
    minmax = st.tuples(st.sampled_from(["minimum", "maximum"]), children, children)
    cond = st.tuples(st.sampled_from(LEAVES[:4]), st.sampled_from(["<", ">", "<=", ">=", "!="]),
                     st.sampled_from(LEAVES + ["0.0"]))
    where = st.tuples(st.just("where"), cond, children, children)
    return st.one_of(binop, div, minmax, where)


EXPR = st.recursive(leaf(), extend, max_leaves=8)


def to_src(e) -> str:
    kind = e[0]
    if kind == "leaf":
        return e[1]
    if kind == "const":
        return repr(e[1])
    if kind in "+-*/":
        return f"({to_src(e[1])} {kind} {to_src(e[2])})"
    if kind in ("minimum", "maximum"):
        return f"tl.{kind}({to_src(e[1])}, {to_src(e[2])})"
    lhs, op, rhs = e[1]
    return f"tl.where({lhs} {op} {rhs}, {to_src(e[2])}, {to_src(e[3])})"


def evaluate(e, env):
    """(float64 value, bound on |value| and its float32 rounding error scale)."""
    kind = e[0]
    if kind == "leaf":
        v = env[e[1]]
        return v, np.abs(v)
    if kind == "const":
        return np.float64(e[1]), abs(e[1])
    if kind in "+-*/":
        (x, bx), (y, by) = evaluate(e[1], env), evaluate(e[2], env)
        if kind == "+":
            return x + y, bx + by
        if kind == "-":
            return x - y, bx + by
        if kind == "*":
            return x * y, bx * by
        return x / y, bx / np.abs(y)
    if kind in ("minimum", "maximum"):
        (x, bx), (y, by) = evaluate(e[1], env), evaluate(e[2], env)
        return (np.minimum if kind == "minimum" else np.maximum)(x, y), np.maximum(bx, by)
    lhs, op, rhs = e[1]
    l, r = env[lhs], (0.0 if rhs == "0.0" else env[rhs])
    c = {"<": l < r, ">": l > r, "<=": l <= r, ">=": l >= r, "!=": l != r}[op]
    (x, bx), (y, by) = evaluate(e[2], env), evaluate(e[3], env)
    return np.where(c, x, y), np.maximum(bx, by)


_counter = itertools.count()


def make_kernel(body_expr: str):
    """A @mf.jit kernel from generated source (registered with linecache so the front end can read it)."""
    src = f'''
def generated(a_ptr, b_ptr, c_ptr, r_ptr, out_ptr, s, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    a = tl.load(a_ptr + offs, mask=mask, other=1.0)
    b = tl.load(b_ptr + offs, mask=mask, other=1.0)
    c = tl.load(c_ptr + offs, mask=mask, other=1.0)
    r = tl.load(r_ptr + rn, mask=rn < N, other=1.0)
    result = {body_expr}
    tl.store(out_ptr + offs, result + tl.zeros((BM, BN), tl.float32), mask=mask)
'''
    name = f"<metalforge-generated-{next(_counter)}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    scope = {"tl": tl}
    exec(compile(src, name, "exec"), scope)
    return mf.jit(scope["generated"])


def signed_magnitudes(rng, *shape):
    return (rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)).astype(np.float32)


@settings(**SETTINGS)
@given(expr=EXPR, M=st.integers(1, 20), N=st.integers(1, 40), seed=st.integers(0, 2**32 - 1))
def test_random_elementwise(expr, M, N, seed):
    rng = np.random.default_rng(seed)
    a, b, c = (signed_magnitudes(rng, M, N) for _ in range(3))
    r = signed_magnitudes(rng, N)
    s = float(signed_magnitudes(rng, 1)[0])
    src = to_src(expr)
    kernel = make_kernel(src)
    BM, BN = 8, 16
    out = kernel[(mf.cdiv(M, BM), mf.cdiv(N, BN))](mxa(a.reshape(-1)), mxa(b.reshape(-1)), mxa(c.reshape(-1)), mxa(r),
                                                   mf.empty((M * N,), mx.float32), s, M, N, BM=BM, BN=BN, num_warps=2)
    env = {"a": a.astype(np.float64), "b": b.astype(np.float64), "c": c.astype(np.float64),
           "r[None, :]": r.astype(np.float64)[None, :], "s": np.float64(s)}
    want, bound = evaluate(expr, env)
    want = np.broadcast_to(want, (M, N))
    bound = np.broadcast_to(bound, (M, N))
    got = npy(out).reshape(M, N).astype(np.float64)
    assert not np.isnan(got).any(), f"unwritten elements for {src}"
    err = np.abs(got - want)
    tol = 1e-5 * bound + 1e-6
    assert (err <= tol).all(), (src, np.argwhere(err > tol)[:5], got[err > tol][:5], want[err > tol][:5])


# --- random masked reductions ---------------------------------------------------------------------------------
@mf.jit
def masked_reduce(x_ptr, out_ptr, M, N, KIND: tl.constexpr, AXIS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    if KIND == 0:
        r = tl.sum(tl.where(mask, x, 0), axis=AXIS)
    elif KIND == 1:
        r = tl.max(tl.where(mask, x, -1000000), axis=AXIS)
    else:
        r = tl.min(tl.where(mask, x, 1000000), axis=AXIS)
    if AXIS == 0:
        tl.store(out_ptr + rn, r, mask=rn < N)
    elif AXIS == 1:
        tl.store(out_ptr + rm, r, mask=rm < M)
    else:
        tl.store(out_ptr + tl.arange(0, 2), r + tl.zeros((2,), r.dtype), mask=tl.arange(0, 2) < 1)


@settings(**SETTINGS)
@given(kind=st.integers(0, 2), axis=st.sampled_from([0, 1, None]), BM=st.sampled_from([1, 2, 8, 16]),
       BN=st.sampled_from([1, 4, 32, 64]), num_warps=st.sampled_from([1, 2, 4]), dtype=st.sampled_from(["f32", "i32"]),
       data=st.data())
def test_random_reduction(kind, axis, BM, BN, num_warps, dtype, data):
    M = data.draw(st.integers(1, BM), label="M")
    N = data.draw(st.integers(1, BN), label="N")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    shift = data.draw(st.sampled_from([-150, 0, 150]), label="shift")  # all negative / mixed / all positive
    if dtype == "f32":
        x = (rng.uniform(-100, 100, size=(M, N)) + shift).astype(np.float32)
    else:
        x = (rng.integers(-10000, 10000, size=(M, N)) + shift * 100).astype(np.int32)
    size = {0: N, 1: M, None: 1}[axis]
    out = masked_reduce[(1,)](mxa(x.reshape(-1)), mf.empty((size,), mx.float32 if dtype == "f32" else mx.int32), M, N,
                              KIND=kind, AXIS=axis, BM=BM, BN=BN, num_warps=num_warps)
    ref = [np.sum, np.max, np.min][kind](x.astype(np.float64), axis=axis)
    ref = np.atleast_1d(ref)
    if dtype == "i32":
        np.testing.assert_array_equal(npy(out), ref.astype(np.int32))
    else:
        # float32 max and min are exact; a sum of n terms in any order is off by at most n 2^-24 sum |x|
        # (near 0 a relative tolerance would be no bound)
        terms = np.atleast_1d(np.sum(np.abs(x.astype(np.float64)), axis=axis))
        bound = x.size // size * 2.0 ** -24 * terms if kind == 0 else 0.0
        assert (np.abs(npy(out).astype(np.float64) - ref) <= bound).all(), (npy(out), ref, bound)
