"""Property-based tests: hypothesis generates random kernels (elementwise float and integer expression
trees, masked reductions, strided masked copies, scans, index reductions, sorts and reorderings along an
axis, chains of shape ops, loops carrying pointers, strided walks, control flow over tiles, masks, pair
reductions and scans with a @jit combine, conversions between element types, atomics); each is compiled
by metalforge, run on the emulator and compared with numpy (float64, or exactly) or MLX's CPU ops.

Hypothesis draws the kernel, the shapes and a numpy seed for the inputs; a failure prints all three.
"""
from __future__ import annotations

import mlx.core as mx
import numpy as np
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import metalforge as mf
import metalforge.language as tl

from .kutil import define_source, mxa, npy

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


def make_kernel(body_expr: str, scalars: str = "s, ", other: str = "1.0", result_type: str = "tl.float32",
                check: str = ""):
    """A @mf.jit kernel from generated source (registered with linecache so the front end can read it):
    `result = body_expr` over tiles a, b, c and the row vector r (loaded with `other` past the edges),
    stored after `check` (a line, or none) as `result_type`."""
    src = f'''
def generated(a_ptr, b_ptr, c_ptr, r_ptr, out_ptr, {scalars}M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    a = tl.load(a_ptr + offs, mask=mask, other={other})
    b = tl.load(b_ptr + offs, mask=mask, other={other})
    c = tl.load(c_ptr + offs, mask=mask, other={other})
    r = tl.load(r_ptr + rn, mask=rn < N, other={other})
    result = {body_expr}
    {check}
    tl.store(out_ptr + offs, result + tl.zeros((BM, BN), {result_type}), mask=mask)
'''
    return jit_source(src)


def jit_source(src: str):
    """The @mf.jit kernel `generated` that `src` defines."""
    return define_source(src, mf.jit, tl=tl, mf=mf)


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


# --- random integer expression trees ---------------------------------------------------------------------------
# One integer type a kernel (its leaves, constant tiles, and the Python constants of shifts and divisors,
# which take the tiles' type), so every op's result has it by any promotion rule: the reference is numpy in
# that type, wrapping at its width, with C's truncating division and remainder (Triton's // and % on
# integers) by divisors kept in [1, 63], shifts by constants below the width (>> arithmetic on signed types).
# Exact: any difference is a wrong result.
INT_TYPES = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
             "uint32": np.uint32}
INT_LEAVES = ["a", "b", "c", "r[None, :]"]


def int_extend(children, const_operands=False):
    """One level of an integer expression tree over `children`; with `const_operands`, binary ops also
    meet a Python constant (MIXED_EXPR: a constant only ever meets a tile)."""
    ops = st.sampled_from(["+", "-", "*", "&", "|", "^"])
    binop = st.tuples(ops, children, children)
    if const_operands:
        binop = st.one_of(binop, st.tuples(ops, children, st.integers(0, 100).map(lambda v: ("const", v))))
    shift = st.tuples(st.sampled_from(["<<", ">>"]), children, st.integers(0, 7))
    divide = st.tuples(st.sampled_from(["//", "%"]), children, st.sampled_from(INT_LEAVES))
    minmax = st.tuples(st.sampled_from(["minimum", "maximum"]), children, children)
    where = st.tuples(st.just("where"), st.sampled_from(INT_LEAVES), st.sampled_from(["<", ">=", "!="]),
                      st.sampled_from(INT_LEAVES), children, children)
    return st.one_of(binop, shift, divide, minmax, where)


INT_EXPR = st.recursive(st.one_of(st.sampled_from(INT_LEAVES).map(lambda v: ("leaf", v)),
                                  st.integers(0, 100).map(lambda v: ("const", v))), int_extend, max_leaves=8)


def int_src(e, mixed: bool = False) -> str:
    """The kernel source of an expression tree. One type (`mixed` False): constants as tiles of a's type
    (an expression of constants alone would be Python's int). Mixed types: constants as Python ints, which
    take the other operand's type (MIXED_EXPR draws them only where a tile meets them), and division in
    int32 (Triton refuses // and % of mixed signedness)."""
    kind = e[0]
    sub = [int_src(x, mixed) if isinstance(x, tuple) else x for x in e[1:]]
    if kind == "leaf":
        return e[1]
    if kind == "const":
        return str(e[1]) if mixed else f"tl.full((BM, BN), {e[1]}, a.dtype)"
    if kind in ("<<", ">>"):
        return f"({sub[0]} {kind} {e[2]})"
    if kind in ("//", "%"):
        if mixed:
            return f"({sub[0]}.to(tl.int32) {kind} (({e[2]} & 63) | 1).to(tl.int32))"
        return f"({sub[0]} {kind} (({e[2]} & 63) | 1))"
    if kind in ("minimum", "maximum"):
        return f"tl.{kind}({sub[0]}, {sub[1]})"
    if kind == "where":
        return f"tl.where({e[1]} {e[2]} {e[3]}, {sub[3]}, {sub[4]})"
    return f"({sub[0]} {kind} {sub[1]})"


def int_evaluate(e, env, t):
    """The expression's value in numpy type `t` (arrays wrap at their width, as the kernel's type does)."""
    kind = e[0]
    if kind == "leaf":
        return env[e[1]]
    if kind == "const":
        return t(e[1])
    x = int_evaluate(e[1], env, t) if kind != "where" else None
    if kind in ("<<", ">>"):
        return (np.left_shift if kind == "<<" else np.right_shift)(x, t(e[2]))
    if kind in ("//", "%"):
        d = (env[e[2]] & t(63)) | t(1)
        wide_x, wide_d = np.asarray(x).astype(np.int64), np.asarray(d).astype(np.int64)
        q = np.sign(wide_x) * (np.abs(wide_x) // wide_d)  # C: toward zero (d > 0)
        return (q if kind == "//" else wide_x - q * wide_d).astype(t)
    if kind in ("minimum", "maximum"):
        return (np.minimum if kind == "minimum" else np.maximum)(x, int_evaluate(e[2], env, t))
    if kind == "where":
        lhs, rhs = env[e[1]], env[e[3]]
        cond = {"<": lhs < rhs, ">=": lhs >= rhs, "!=": lhs != rhs}[e[2]]
        return np.where(cond, int_evaluate(e[4], env, t), int_evaluate(e[5], env, t)).astype(t)
    y = int_evaluate(e[2], env, t)
    return {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and, "|": np.bitwise_or,
            "^": np.bitwise_xor}[kind](x, y)


@settings(**SETTINGS)
@given(expr=INT_EXPR, dtype=st.sampled_from(sorted(INT_TYPES)), M=st.integers(1, 12), N=st.integers(1, 40),
       seed=st.integers(0, 2**32 - 1))
def test_random_integer_expressions(expr, dtype, M, N, seed):
    t = INT_TYPES[dtype]
    info = np.iinfo(t)
    rng = np.random.default_rng(seed)
    a, b, c = (rng.integers(info.min, info.max, size=(M, N), endpoint=True, dtype=np.int64).astype(t) for _ in range(3))
    r = rng.integers(info.min, info.max, size=N, endpoint=True, dtype=np.int64).astype(t)
    a[0, 0] = info.min  # the extremes, every run
    b.flat[-1] = info.max
    src = int_src(expr)
    BM, BN = 8, 16
    poisoned = mf.full((M * N,), info.max // 3, getattr(mx, dtype))
    kernel = make_kernel(src, scalars="", other="1", result_type="a.dtype")
    out = kernel[(mf.cdiv(M, BM), mf.cdiv(N, BN))](mxa(a.reshape(-1)), mxa(b.reshape(-1)), mxa(c.reshape(-1)), mxa(r),
                                                   poisoned, M, N, BM=BM, BN=BN, num_warps=2)
    with np.errstate(over="ignore"):
        want = np.broadcast_to(int_evaluate(expr, {"a": a, "b": b, "c": c, "r[None, :]": r[None, :]}, t), (M, N))
    got = npy(out).reshape(M, N)
    assert got.dtype == t, got.dtype
    bad = got != want
    assert not bad.any(), (dtype, src, np.argwhere(bad)[:5], got[bad][:5], want[bad][:5])


# --- random integer expressions over mixed types (int_src's mixed form) ----------------------------------
# Leaves of three drawn types; each op computes in the promoted type of its operands by Triton's rule for
# integers (C's usual arithmetic conversions without C's promotion to int: the wider type wins, at equal width
# the unsigned one), written here apart from metalforge's semantic.py. Division goes through int32 (Triton
# refuses // and % of mixed signedness).
def promote(s: np.dtype, t: np.dtype) -> np.dtype:
    s, t = np.dtype(s), np.dtype(t)
    if (s.kind == "u") == (t.kind == "u"):
        return s if s.itemsize >= t.itemsize else t
    unsigned, signed = (s, t) if s.kind == "u" else (t, s)
    return unsigned if unsigned.itemsize >= signed.itemsize else signed


def mixed_evaluate(e, env):
    """(value, numpy type) of the expression, each op in its operands' promoted type (wrapping)."""
    kind = e[0]
    if kind == "leaf":
        return env[e[1]], env[e[1]].dtype
    if kind == "const":  # a Python int constant: it takes the other operand's type (int_src, mixed)
        return np.int64(e[1]), None
    if kind in ("<<", ">>"):
        x, t = mixed_evaluate(e[1], env)
        t = t or np.dtype(np.int32)
        return (np.left_shift if kind == "<<" else np.right_shift)(np.asarray(x).astype(t), t.type(e[2])), t
    if kind in ("//", "%"):
        x, t = mixed_evaluate(e[1], env)
        d = env[e[2]]
        wide_x = np.asarray(x).astype(t or np.int32).astype(np.int32).astype(np.int64)
        wide_d = ((d & d.dtype.type(63)) | d.dtype.type(1)).astype(np.int64)
        q = np.sign(wide_x) * (np.abs(wide_x) // wide_d)
        return (q if kind == "//" else wide_x - q * wide_d).astype(np.int32), np.dtype(np.int32)
    if kind == "where":
        (l, lt), (r, rt) = (mixed_evaluate(("leaf", e[i]), env) for i in (1, 3))
        c = promote(lt, rt)
        lhs, rhs = l.astype(c), r.astype(c)
        cond = {"<": lhs < rhs, ">=": lhs >= rhs, "!=": lhs != rhs}[e[2]]
        (x, xt), (y, yt) = mixed_evaluate(e[4], env), mixed_evaluate(e[5], env)
    else:
        (x, xt), (y, yt) = mixed_evaluate(e[1], env), mixed_evaluate(e[2], env)
    t = promote(xt, yt) if xt is not None and yt is not None else (xt or yt or np.dtype(np.int32))
    x, y = np.asarray(x).astype(t), np.asarray(y).astype(t)
    if kind == "where":
        return np.where(cond, x, y).astype(t), t
    if kind in ("minimum", "maximum"):
        return (np.minimum if kind == "minimum" else np.maximum)(x, y), t
    return {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and, "|": np.bitwise_or,
            "^": np.bitwise_xor}[kind](x, y).astype(t), t


MIXED_EXPR = st.recursive(st.sampled_from(INT_LEAVES).map(lambda v: ("leaf", v)),
                          lambda children: int_extend(children, const_operands=True), max_leaves=8)


@settings(**SETTINGS)
@given(expr=MIXED_EXPR, types=st.tuples(*[st.sampled_from(sorted(INT_TYPES))] * 4), M=st.integers(1, 12),
       N=st.integers(1, 40), seed=st.integers(0, 2**32 - 1))
def test_random_mixed_integer_expressions(expr, types, M, N, seed):
    rng = np.random.default_rng(seed)
    env = {}
    for leaf, dtype, shape in zip(INT_LEAVES, types, [(M, N)] * 3 + [(1, N)]):
        info = np.iinfo(INT_TYPES[dtype])
        env[leaf] = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np.int64).astype(INT_TYPES[dtype])
        env[leaf].flat[0] = info.min
    src = int_src(expr, mixed=True)
    with np.errstate(over="ignore"):
        want, t = mixed_evaluate(expr, env)
    want = np.broadcast_to(np.asarray(want).astype(t), (M, N))
    BM, BN = 8, 16
    kernel = make_kernel(src, scalars="", other="1", result_type="result.dtype",
                         check="tl.static_assert(result.dtype == out_ptr.dtype.element_ty)")  # the promoted type
    out = kernel[(mf.cdiv(M, BM), mf.cdiv(N, BN))](*(mxa(env[leaf].reshape(-1)) for leaf in INT_LEAVES),
                                                   mf.full((M * N,), 77, getattr(mx, t.name)), M, N, BM=BM, BN=BN,
                                                   num_warps=2)
    got = npy(out).reshape(M, N)
    bad = got != want
    assert not bad.any(), (types, src, t, np.argwhere(bad)[:5], got[bad][:5], want[bad][:5])


# --- random strided, masked 2-D copies ---------------------------------------------------------------------------
# Odd sizes, row strides and starting elements (views that are not aligned to a vector), tile shapes and warps drawn
# at random: every element in range is x * 3 + 1 (exact: small integer values), every other element of the output
# buffer keeps its poison (the gaps between rows of a wider stride and the rows' ends).
@mf.jit
def strided_copy(x_ptr, out_ptr, M, N, sx, so, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sx + rn[None, :], mask=mask, other=5)
    tl.store(out_ptr + rm[:, None] * so + rn[None, :], x * 3 + 1, mask=mask)


COPY_TYPES = {"float32": np.float32, "float16": np.float16, "int8": np.int8, "int32": np.int32, "uint16": np.uint16}


@settings(**SETTINGS)
@given(dtype=st.sampled_from(sorted(COPY_TYPES)), M=st.integers(1, 40), N=st.integers(1, 300),
       pads=st.tuples(st.integers(0, 20), st.integers(0, 20)), start=st.integers(0, 9),
       BM=st.sampled_from([1, 2, 4, 8, 16]), BN=st.sampled_from([1, 8, 32, 64, 128, 256]),
       num_warps=st.sampled_from([1, 2, 4]), seed=st.integers(0, 2**32 - 1))
def test_random_strided_masked_copies(dtype, M, N, pads, start, BM, BN, num_warps, seed):
    t = COPY_TYPES[dtype]
    sx, so = N + pads[0], N + pads[1]
    rng = np.random.default_rng(seed)
    base = rng.integers(0 if t == np.uint16 else -40, 40, size=start + M * sx).astype(t)
    poison = 77
    out = strided_copy[(mf.cdiv(M, BM), mf.cdiv(N, BN))](
        mxa(base)[start:], mf.full((M * so,), poison, getattr(mx, dtype)), M, N, sx, so, BM=BM, BN=BN,
        num_warps=num_warps)
    x = base[start:].reshape(M, sx)[:, :N].astype(np.int64)
    want = np.full((M, so), poison, dtype=np.int64)
    want[:, :N] = x * 3 + 1
    got = npy(out).reshape(M, so)
    assert got.dtype == t
    with np.errstate(over="ignore"):
        bad = got != want.astype(t)
    assert not bad.any(), (dtype, M, N, sx, so, start, BM, BN, num_warps, np.argwhere(bad)[:5])


# --- random scans, index reductions, sorts and reorderings along an axis ---------------------------------------
# The whole tile is loaded (masked-off lanes take OTHER, which the reference's padded tile holds too) and the
# whole result is stored, so the padding's share of each scan, sort and index is checked as well. Values are
# small integers, many equal (ties decide argmax/argmin: the first index), in float32 exact at every partial
# sum and product of a tile (|sum| <= 64 * 100, |product| <= 2^64), in int32 wrapping as numpy's does.
AXIS_OPS = ["cumsum", "cumprod", "flip", "sort", "argmax", "argmin", "topk", "gather"]
AXIS_OTHER = {"cumsum": 0, "cumprod": 1, "flip": 0, "sort": 0, "argmax": -1000, "argmin": 1000, "topk": 0,
              "gather": 0}


@mf.jit
def along_axis(x_ptr, index_ptr, out_ptr, M, N, OTHER: tl.constexpr, OP: tl.constexpr, AXIS: tl.constexpr,
               REVERSE: tl.constexpr, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    tile = rm[:, None] * BN + rn[None, :]
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N), other=OTHER)
    if OP == "cumsum":
        tl.store(out_ptr + tile, tl.cumsum(x, axis=AXIS, reverse=REVERSE))
    elif OP == "cumprod":
        tl.store(out_ptr + tile, tl.cumprod(x, axis=AXIS, reverse=REVERSE))
    elif OP == "flip":
        tl.store(out_ptr + tile, tl.flip(x, AXIS))
    elif OP == "sort":
        tl.store(out_ptr + tile, tl.sort(x, descending=REVERSE))
    elif OP == "gather":
        tl.store(out_ptr + tile, tl.gather(x, tl.load(index_ptr + tile), AXIS))
    elif OP == "topk":
        tl.store(out_ptr + rm[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K))
    elif OP == "argmax":
        if AXIS == 0:
            tl.store(out_ptr + rn, tl.argmax(x, axis=0))
        else:
            tl.store(out_ptr + rm, tl.argmax(x, axis=1))
    else:
        if AXIS == 0:
            tl.store(out_ptr + rn, tl.argmin(x, axis=0))
        else:
            tl.store(out_ptr + rm, tl.argmin(x, axis=1))


def along_axis_reference(op: str, x: np.ndarray, index: np.ndarray, axis: int, reverse: bool, k: int) -> np.ndarray:
    """What `along_axis` stores, from the padded tile `x` (int64 or float64 values, exact)."""
    if op in ("cumsum", "cumprod"):
        scan = np.cumsum if op == "cumsum" else np.cumprod
        return np.flip(scan(np.flip(x, axis), axis=axis), axis) if reverse else scan(x, axis=axis)
    if op == "flip":
        return np.flip(x, axis)
    if op == "sort":
        return np.flip(np.sort(x, axis=1), 1) if reverse else np.sort(x, axis=1)
    if op == "gather":
        return np.take_along_axis(x, index, axis)
    if op == "topk":
        return np.flip(np.sort(x, axis=1), 1)[:, :k]
    return (np.argmax if op == "argmax" else np.argmin)(x, axis=axis)  # numpy's first index on ties


@settings(**SETTINGS)
@given(op=st.sampled_from(AXIS_OPS), dtype=st.sampled_from(["float32", "int32", "float16"]), axis=st.integers(0, 1),
       reverse=st.booleans(), BM=st.sampled_from([1, 2, 4, 8, 16]), BN=st.sampled_from([1, 2, 8, 32, 64]),
       num_warps=st.sampled_from([1, 2, 4]), data=st.data())
def test_random_ops_along_an_axis(op, dtype, axis, reverse, BM, BN, num_warps, data):
    M = data.draw(st.integers(1, BM), label="M")
    N = data.draw(st.integers(1, BN), label="N")
    k = data.draw(st.sampled_from([k for k in (1, 2, 4, 8, 16, 32) if k <= BN]), label="k")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    if op == "cumprod":
        values = rng.choice(np.array([-2, -1, 1, 2]), size=(M, N))
    else:
        values = rng.integers(-3 if op.startswith("arg") else -100, 4 if op.startswith("arg") else 101, size=(M, N))
    if dtype == "float16" and op in ("cumsum", "cumprod"):
        values = np.clip(values, -1, 1)  # float16 is exact to 2048 only: 64 terms of 1
    if op == "sort" or op == "topk":
        axis = 1  # the last axis only (Triton's rule)
    if op == "gather":
        index = rng.integers(0, BM if axis == 0 else BN, size=(BM, BN))
    else:
        index = np.zeros((BM, BN), dtype=np.int64)
    other = AXIS_OTHER[op]
    padded = np.full((BM, BN), other, dtype=np.int64)
    padded[:M, :N] = values
    want = along_axis_reference(op, padded, index, axis, reverse, k)
    if dtype == "int32":
        want = want.astype(np.int32) if not op.startswith("arg") else want  # wraps as the kernel's int32 does
    size = {"topk": BM * k, "argmax": (BN, BM)[axis], "argmin": (BN, BM)[axis]}.get(op, BM * BN)
    out_dtype = mx.int32 if op.startswith("arg") else getattr(mx, dtype)
    out = along_axis[(1,)](mxa(values.reshape(-1).astype(dtype)), mxa(index.reshape(-1).astype(np.int32)),
                           mf.full((size,), 99, out_dtype), M, N, OTHER=other, OP=op, AXIS=axis, REVERSE=reverse, K=k,
                           BM=BM, BN=BN, num_warps=num_warps)
    got = npy(out).astype(np.float64 if dtype != "int32" or op.startswith("arg") else np.int64)
    np.testing.assert_array_equal(got.reshape(want.shape), want.astype(got.dtype),
                                  err_msg=f"{op} {dtype} axis {axis} reverse {reverse} M {M} N {N} BM {BM} BN {BN} "
                                          f"k {k} warps {num_warps} seed {seed}")


# --- random chains of shape ops ------------------------------------------------------------------------------
# A masked [BM, BN] int32 tile through random trans, permute, reshape, join, split, interleave, flip,
# broadcast and sums kept as a broadcast axis, each followed in numpy; every result is stored through
# offsets built per axis (not a reshape), and compared exactly: each op is a ring operation on int32, so
# the kernel's wrapping equals the int64 reference taken modulo 2^32.
SHAPE_OPS = ["trans", "permute", "reshape", "join", "split", "interleave", "flip", "broadcast", "sum"]
SHAPE_LIMIT = 4096  # elements a tile may grow to


def shape_step(data, op: str, name: str, t: np.ndarray) -> tuple[str, np.ndarray] | None:
    """The source of one op applied to tile `name` (numpy value `t`) and its value, or None where the op
    does not apply to t's shape."""
    shape, ndim = t.shape, t.ndim
    if op == "trans" and ndim == 2:
        return f"tl.trans({name})", t.T
    if op == "permute" and ndim == 3:
        perm = data.draw(st.permutations(range(3)), label="perm")
        return f"tl.permute({name}, {tuple(perm)})", np.transpose(t, perm)
    if op == "reshape":
        dims = data.draw(st.integers(1, 3), label="dims")
        exponents = [0] * dims
        for _ in range(t.size.bit_length() - 1):  # the size's factors of two, dealt out at random
            exponents[data.draw(st.integers(0, dims - 1), label="axis")] += 1
        new = tuple(1 << e for e in exponents)
        return f"tl.reshape({name}, {new})", t.reshape(new)
    if op == "join" and ndim <= 2 and 2 * t.size <= SHAPE_LIMIT:
        return f"tl.join({name}, {name} * 2 + 1)", np.stack([t, t * 2 + 1], axis=-1)
    if op == "split" and shape[-1] == 2 and ndim >= 2:
        return f"_mf_difference(*tl.split({name}))", t[..., 0] - t[..., 1] * 3
    if op == "interleave" and 2 * t.size <= SHAPE_LIMIT:
        return (f"tl.interleave({name}, {name} + 100)",
                np.stack([t, t + 100], axis=-1).reshape(*shape[:-1], 2 * shape[-1]))
    if op == "flip":
        axis = data.draw(st.integers(0, ndim - 1), label="flip axis")
        return f"tl.flip({name}, {axis})", np.flip(t, axis)
    if op == "broadcast" and ndim <= 2 and 2 * t.size <= SHAPE_LIMIT:
        return (f"tl.broadcast_to(tl.expand_dims({name}, 0), {(2, *shape)}) - 5",
                np.broadcast_to(t[None], (2, *shape)) - 5)
    if op == "sum":
        axis = data.draw(st.integers(0, ndim - 1), label="sum axis")
        return (f"{name} + tl.expand_dims(tl.sum({name}, axis={axis}), {axis})",
                t + t.sum(axis=axis, keepdims=True))
    return None


@settings(**SETTINGS)
@given(BM=st.sampled_from([1, 2, 4, 8, 16]), BN=st.sampled_from([2, 4, 8, 32]), num_warps=st.sampled_from([1, 2, 4]),
       ops=st.lists(st.sampled_from(SHAPE_OPS), min_size=1, max_size=6), data=st.data())
def test_random_chains_of_shape_ops(BM, BN, num_warps, ops, data):
    M = data.draw(st.integers(1, BM), label="M")
    N = data.draw(st.integers(1, BN), label="N")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    x = np.random.default_rng(seed).integers(-50, 51, size=(M, N)).astype(np.int32)
    t = np.full((BM, BN), -7, dtype=np.int64)
    t[:M, :N] = x
    lines = []
    for i, op in enumerate(ops):
        step = shape_step(data, op, f"t{i}", t)
        if step is None:
            lines.append(f"t{i + 1} = t{i}")
            continue
        code, t = step
        lines.append(f"t{i + 1} = {code}")
    final = f"t{len(ops)}"
    strides = np.cumprod((1, *t.shape[::-1]))[-2::-1]  # row-major strides of the result
    axes = [f"tl.arange(0, {n})[{', '.join(':' if a == k else 'None' for a in range(t.ndim))}]"
            for k, n in enumerate(t.shape)]
    offsets = " + ".join(f"{axis} * {stride}" for axis, stride in zip(axes, strides))
    body = "\n    ".join(lines)
    src = f'''
@mf.jit
def _mf_difference(a, b):
    return a - b * 3


def generated(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    t0 = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N), other=-7)
    {body}
    tl.store(out_ptr + {offsets}, {final})
'''
    kernel = jit_source(src)
    out = kernel[(1,)](mxa(x.reshape(-1)), mf.full((t.size,), 99, mx.int32), M, N, BM=BM, BN=BN, num_warps=num_warps)
    want = t.reshape(-1).astype(np.int32)  # modulo 2^32, as the kernel's int32 ring wraps
    got = npy(out)
    assert (got == want).all(), (src, np.argwhere(got != want)[:5].ravel(), got[:16], want[:16])


# --- random loops carrying pointers ---------------------------------------------------------------------------
# A loop (for or while, a run-time trip count) carries an int32 tile and two pointers into the inputs x and
# y, or into the output, which it advances, swaps between iterations and chooses between with a scalar `if`;
# after the loop, the pointers it leaves are read or written. Exact against numpy: each pointer is followed
# as an index into its own array (`where`).
@mf.jit
def carried_step(acc, p, q, o, i, SWAP: tl.constexpr, CHOOSE: tl.constexpr, STEP_X: tl.constexpr,
                 STEP_Y: tl.constexpr, BLOCK: tl.constexpr):
    """One iteration of `carried_pointers`' loop (a helper: pointers in and out of a call too)."""
    if CHOOSE and i % 3 == 1:
        acc = acc * 3 + tl.load(q)
    else:
        acc = acc * 3 + tl.load(p)
    p += STEP_X
    q += STEP_Y
    o += BLOCK
    if SWAP:
        p, q = q, p
    return acc, p, q, o


@mf.jit
def carried_pointers(x_ptr, y_ptr, o_ptr, trips, n, WHILE: tl.constexpr, SWAP: tl.constexpr, CHOOSE: tl.constexpr,
                     AFTER: tl.constexpr, STEP_X: tl.constexpr, STEP_Y: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.int32)
    p = x_ptr + offs
    q = y_ptr + offs
    o = o_ptr + offs
    i = 0
    if WHILE:
        while i < trips:
            acc, p, q, o = carried_step(acc, p, q, o, i, SWAP, CHOOSE, STEP_X, STEP_Y, BLOCK)
            i += 1
    else:
        for i in range(trips):
            acc, p, q, o = carried_step(acc, p, q, o, i, SWAP, CHOOSE, STEP_X, STEP_Y, BLOCK)
    if AFTER == 1:
        acc += tl.load(p) * 1000
    if AFTER == 2:
        acc += tl.load(q) * 1000
    tl.store(o, acc)
    tl.store(o_ptr + n - BLOCK + offs, tl.load(p) - tl.load(q))


def carried_pointers_reference(x: np.ndarray, y: np.ndarray, out: np.ndarray, trips: int, swap: bool, choose: bool,
                               after: int, step_x: int, step_y: int, block: int) -> np.ndarray:
    """What `carried_pointers` writes into `out`: each pointer an (array, index) pair."""
    offs = np.arange(block)
    acc = np.zeros(block, np.int64)
    p, q, o = (x, 0), (y, 0), 0
    for i in range(trips):
        source = q if choose and i % 3 == 1 else p
        acc = acc * 3 + source[0][source[1] + offs]
        p, q, o = (p[0], p[1] + step_x), (q[0], q[1] + step_y), o + block
        if swap:
            p, q = q, p
    if after:
        chosen = p if after == 1 else q
        acc = acc + chosen[0][chosen[1] + offs] * 1000
    out = out.copy()
    out[o + offs] = acc.astype(np.int32)
    out[len(out) - block + offs] = (p[0][p[1] + offs] - q[0][q[1] + offs]).astype(np.int32)
    return out


@settings(**SETTINGS)
@given(loop=st.sampled_from(["for", "while"]), swap=st.booleans(), choose=st.booleans(), after=st.integers(0, 2),
       trips=st.integers(0, 6), steps=st.tuples(st.sampled_from([0, 1, 8, 16]), st.sampled_from([0, 1, 8, 16])),
       block=st.sampled_from([8, 16, 32]), num_warps=st.sampled_from([1, 2]), seed=st.integers(0, 2**32 - 1))
def test_random_loops_carrying_pointers(loop, swap, choose, after, trips, steps, block, num_warps, seed):
    rng = np.random.default_rng(seed)
    size = block + 6 * 16  # room for every pointer's last advance
    x, y = (rng.integers(-9, 10, size=size).astype(np.int32) for _ in range(2))
    n = block * 8  # the output: the tile at o (<= 6 blocks on), then p - q in its last block
    out = carried_pointers[(1,)](mxa(x), mxa(y), mf.full((n,), 99, mx.int32), trips, n, WHILE=loop == "while",
                                 SWAP=swap, CHOOSE=choose, AFTER=after, STEP_X=steps[0], STEP_Y=steps[1], BLOCK=block,
                                 num_warps=num_warps)
    want = carried_pointers_reference(x, y, np.full(n, 99, np.int32), trips, swap, choose, after, *steps, block)
    got = npy(out)
    assert (got == want).all(), np.argwhere(got != want)[:5].ravel()


# --- random strided walks in a loop ---------------------------------------------------------------------------
# A tile of neighbouring elements read at a start that moves by a step each iteration (a run-time or constexpr
# step, a start of any divisibility), masked at the buffer's end, summed in int32: whatever vector width the
# compiler proves for the reads, each must read the elements named. Exact.
WALK_TYPES = {"float32": np.float32, "float16": np.float16, "int8": np.int8, "int16": np.int16, "int32": np.int32}


@mf.jit
def strided_walk(x_ptr, o_ptr, n, start, trips, step, CONST_STEP: tl.constexpr, USE_CONST: tl.constexpr,
                 ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.arange(0, ROWS)
    offs = start + rows[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]
    acc = tl.zeros((ROWS, BLOCK), tl.int32)
    for k in range(trips):
        if USE_CONST:
            idx = offs + k * CONST_STEP
        else:
            idx = offs + k * step
        acc = acc * 3 + tl.load(x_ptr + idx, mask=idx < n, other=-1).to(tl.int32)
    out = rows[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]
    tl.store(o_ptr + out, acc)


@settings(**SETTINGS)
@given(dtype=st.sampled_from(sorted(WALK_TYPES)), rows=st.sampled_from([1, 2, 4]),
       block=st.sampled_from([1, 4, 8, 16, 64]),
       step=st.sampled_from([0, 1, 2, 3, 4, 8, 16, 17, 32, 64]), use_const=st.booleans(), start=st.integers(0, 40),
       trips=st.integers(0, 5), spare=st.integers(-40, 40), num_warps=st.sampled_from([1, 2, 4]),
       seed=st.integers(0, 2**32 - 1))
def test_random_strided_walks(dtype, rows, block, step, use_const, start, trips, spare, num_warps, seed):
    t = WALK_TYPES[dtype]
    n = max(1, start + rows * block + step * max(trips - 1, 0) + spare)  # the buffer ends before, at or past the walk
    x = np.random.default_rng(seed).integers(-9, 10, size=n).astype(t)
    out = strided_walk[(1,)](mxa(x), mf.full((rows * block,), 99, mx.int32), n, start, trips, step, CONST_STEP=step,
                             USE_CONST=use_const, ROWS=rows, BLOCK=block, num_warps=num_warps)
    offs = start + np.arange(rows * block)
    want = np.zeros(rows * block, np.int64)
    for k in range(trips):
        idx = offs + k * step
        inside = idx < n
        want = want * 3 + np.where(inside, x[np.minimum(idx, n - 1)].astype(np.int64), -1)
    got = npy(out)
    assert (got == want.astype(np.int32)).all(), (n, np.argwhere(got != want.astype(np.int32))[:5].ravel())


# --- random control flow over tiles in several layouts -----------------------------------------------------------
# Two square int32 tiles, t (loaded by rows) and u (loaded transposed), rewritten by random statements: `if`
# on a run-time scalar, `for` and `while` loops with a run-time trip count, nested; the expressions mix
# layouts (trans, sums broadcast back along their axis, where on a bit, maximum). numpy runs the same
# program in int64; a draw whose values leave int32 is rejected, so every comparison means the same on both
# sides and the results are exact.
TILE_EXPR = st.recursive(
    st.sampled_from(["t", "u"]),
    lambda e: st.one_of(st.tuples(st.just("trans"), e), st.tuples(st.sampled_from(["+", "3*-", "max"]), e, e),
                        st.tuples(st.just("bsum"), st.integers(0, 1), e, e), st.tuples(st.just("where"), e, e, e)),
    max_leaves=4)


def _block(statements):
    return st.lists(statements, min_size=1, max_size=3)


CONTROL = st.recursive(
    st.one_of(st.tuples(st.just("assign"), st.sampled_from(["t", "u"]), TILE_EXPR),
              st.tuples(st.just("addc"), st.sampled_from(["t", "u"]))),
    lambda s: st.one_of(st.tuples(st.just("if"), st.integers(-2, 2), _block(s), _block(s)),
                        st.tuples(st.sampled_from(["for", "while"]), _block(s))),
    max_leaves=6)


def tile_src(e) -> str:
    if isinstance(e, str):
        return e
    kind, *args = e
    if kind == "trans":
        return f"tl.trans({tile_src(args[0])})"
    if kind == "+":
        return f"({tile_src(args[0])} + {tile_src(args[1])})"
    if kind == "3*-":
        return f"({tile_src(args[0])} * 3 - {tile_src(args[1])})"
    if kind == "max":
        return f"tl.maximum({tile_src(args[0])}, {tile_src(args[1])})"
    if kind == "bsum":
        return f"(tl.expand_dims(tl.sum({tile_src(args[1])}, axis={args[0]}), {args[0]}) + {tile_src(args[2])})"
    return f"tl.where(({tile_src(args[0])} & 1) == 0, {tile_src(args[1])}, {tile_src(args[2])})"


def tile_value(e, env: dict) -> np.ndarray:
    if isinstance(e, str):
        return env[e]
    kind, *args = e
    if kind == "trans":
        return tile_value(args[0], env).T
    if kind == "+":
        return tile_value(args[0], env) + tile_value(args[1], env)
    if kind == "3*-":
        return tile_value(args[0], env) * 3 - tile_value(args[1], env)
    if kind == "max":
        return np.maximum(tile_value(args[0], env), tile_value(args[1], env))
    if kind == "bsum":
        return tile_value(args[1], env).sum(axis=args[0], keepdims=True) + tile_value(args[2], env)
    return np.where((tile_value(args[0], env) & 1) == 0, tile_value(args[1], env), tile_value(args[2], env))


def control_src(statements, depth: int = 1) -> list[str]:
    pad, lines = "    " * depth, []
    for s in statements:
        if s[0] == "assign":
            lines.append(f"{pad}{s[1]} = {tile_src(s[2])}")
        elif s[0] == "addc":
            lines.append(f"{pad}{s[1]} = {s[1]} + c")
        elif s[0] == "if":
            lines += [f"{pad}if c > {s[1]}:", *control_src(s[2], depth + 1), f"{pad}else:",
                      *control_src(s[3], depth + 1)]
        elif s[0] == "for":
            lines += [f"{pad}for i{depth} in range(trips):", *control_src(s[1], depth + 1)]
        else:
            lines += [f"{pad}j{depth} = 0", f"{pad}while j{depth} < trips:", *control_src(s[1], depth + 1),
                      f"{pad}    j{depth} += 1"]
    return lines


def control_run(statements, env: dict) -> None:
    for s in statements:
        if s[0] in ("assign", "addc"):
            env[s[1]] = tile_value(s[2], env) if s[0] == "assign" else env[s[1]] + env["c"]
            if np.abs(env[s[1]]).max() >= 2**31:
                reject()  # int32 would wrap where numpy's int64 does not: comparisons would differ
        elif s[0] == "if":
            control_run(s[2] if env["c"] > s[1] else s[3], env)
        else:
            for _ in range(env["trips"]):
                control_run(s[1], env)


@settings(**SETTINGS)
@given(program=_block(CONTROL), B=st.sampled_from([2, 4, 8, 16]), c=st.integers(-3, 3), trips=st.integers(0, 3),
       num_warps=st.sampled_from([1, 2, 4]), seed=st.integers(0, 2**32 - 1))
def test_random_control_flow_over_tiles(program, B, c, trips, num_warps, seed):
    x = np.random.default_rng(seed).integers(-20, 21, size=(B, B)).astype(np.int32)
    env = {"t": x.astype(np.int64), "u": x.T.astype(np.int64), "c": c, "trips": trips}
    control_run(program, env)
    kernel = control_kernel(program)
    out = kernel[(1,)](mxa(x.reshape(-1)), mf.full((2 * B * B,), 99, mx.int32), c, trips, B=B, num_warps=num_warps)
    want = np.concatenate([env["t"].reshape(-1), env["u"].reshape(-1)]).astype(np.int32)
    got = npy(out)
    assert (got == want).all(), ("".join(kernel.source.lines), np.argwhere(got != want)[:5].ravel())


def control_kernel(program):
    """The kernel of a CONTROL program: t and u loaded from x ([B, B], by rows and transposed), the
    program run, both stored to o, t first."""
    body = "\n".join(control_src(program))
    source = f'''
def generated(x_ptr, o_ptr, c, trips, B: tl.constexpr):
    r = tl.arange(0, B)
    t = tl.load(x_ptr + r[:, None] * B + r[None, :])
    u = tl.load(x_ptr + r[None, :] * B + r[:, None])
{body}
    tl.store(o_ptr + r[:, None] * B + r[None, :], t)
    tl.store(o_ptr + B * B + r[:, None] * B + r[None, :], u)
'''
    return jit_source(source)


# --- random masks ------------------------------------------------------------------------------------------------
# A load and a store of a 2-D tile under a random boolean expression (&, |, ~ over comparisons of the row and
# column indices with run-time and constexpr bounds, their sum, their low bit), each anded with the array's
# bounds; the output starts poisoned, so a mask proven true or false wrongly shows as a wrong element. Exact.
MASK_ATOMS = ["rm[:, None] < M", "rn[None, :] < N", "rm[:, None] >= LO", "rn[None, :] != K", "rm[:, None] < CM",
              "(rm[:, None] + rn[None, :]) < D", "(rn[None, :] & 1) == 0", "rn[None, :] < CN"]
MASK_EXPR = st.recursive(st.sampled_from(MASK_ATOMS),
                         lambda e: st.one_of(st.tuples(st.sampled_from(["&", "|"]), e, e), st.tuples(st.just("~"), e)),
                         max_leaves=5)


def mask_src(e) -> str:
    if isinstance(e, str):
        return f"({e})"
    if e[0] == "~":
        return f"(~{mask_src(e[1])})"
    return f"({mask_src(e[1])} {e[0]} {mask_src(e[2])})"


def mask_value(e, env: dict) -> np.ndarray:
    if isinstance(e, str):
        return eval(e, {}, env)  # the atoms are numpy expressions too
    if e[0] == "~":
        return ~mask_value(e[1], env)
    return (mask_value(e[1], env) & mask_value(e[2], env) if e[0] == "&" else
            mask_value(e[1], env) | mask_value(e[2], env))


@settings(**SETTINGS)
@given(load_mask=MASK_EXPR, store_mask=MASK_EXPR, sizes=st.tuples(st.integers(1, 40), st.integers(1, 70)),
       blocks=st.tuples(st.sampled_from([1, 2, 8, 16]), st.sampled_from([1, 4, 16, 64])),
       bounds=st.tuples(*[st.integers(-2, 80)] * 6), num_warps=st.sampled_from([1, 2, 4]),
       seed=st.integers(0, 2**32 - 1))
def test_random_masks(load_mask, store_mask, sizes, blocks, bounds, num_warps, seed):
    (M, N), (BM, BN) = sizes, blocks
    LO, K, D, CM, CN, _ = bounds
    src = f'''
def generated(x_ptr, o_ptr, M, N, LO, K, D, CM: tl.constexpr, CN: tl.constexpr, BM: tl.constexpr,
              BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    inside = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=inside & {mask_src(load_mask)}, other=-5)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], x * 2 + 1, mask=inside & {mask_src(store_mask)})
'''
    x = np.random.default_rng(seed).integers(-100, 100, size=(M, N)).astype(np.int32)
    out = jit_source(src)[(mf.cdiv(M, BM), mf.cdiv(N, BN))](
        mxa(x.reshape(-1)), mf.full((M * N,), 7777, mx.int32), M, N, LO, K, D, CM=CM, CN=CN, BM=BM, BN=BN,
        num_warps=num_warps)
    env = {"rm": np.arange(M), "rn": np.arange(N), "M": M, "N": N, "LO": LO, "K": K, "D": D, "CM": CM, "CN": CN,
           "None": None}
    loaded = np.where(mask_value(load_mask, env), x, -5)
    want = np.where(mask_value(store_mask, env), loaded * 2 + 1, 7777)
    got = npy(out).reshape(M, N)
    assert (got == want).all(), (src, np.argwhere(got != want)[:5].tolist())


# --- random reductions and scans of (value, index) pairs with a @jit combine, on 3-D tiles -------------------------
@mf.jit
def first_max(v1, i1, v2, i2):
    """The larger value with its index, the smaller index on ties: associative and commutative, so
    any order of combining gives one answer."""
    take = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take, v1, v2), tl.where(take, i1, i2)


@mf.jit
def pairs_along(x_ptr, v_ptr, i_ptr, SCAN: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr,
                KEEP: tl.constexpr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    ra = tl.arange(0, A)[:, None, None]
    rb = tl.arange(0, B)[None, :, None]
    rc = tl.arange(0, C)[None, None, :]
    flat = ra * B * C + rb * C + rc
    x = tl.load(x_ptr + flat)
    index = flat
    if SCAN:
        v, i = tl.associative_scan((x, index), AXIS, first_max, reverse=REVERSE)
        tl.store(v_ptr + flat, v)
        tl.store(i_ptr + flat, i)
    else:
        v, i = tl.reduce((x, index), AXIS, first_max, keep_dims=KEEP)
        if KEEP:
            out = (tl.arange(0, 1 if AXIS == 0 else A)[:, None, None] * B * C +
                   tl.arange(0, 1 if AXIS == 1 else B)[None, :, None] * C +
                   tl.arange(0, 1 if AXIS == 2 else C)[None, None, :])
            tl.store(v_ptr + out, v)
            tl.store(i_ptr + out, i)
        elif AXIS == 0:
            tl.store(v_ptr + tl.arange(0, B)[:, None] * C + tl.arange(0, C)[None, :], v)
            tl.store(i_ptr + tl.arange(0, B)[:, None] * C + tl.arange(0, C)[None, :], i)
        elif AXIS == 1:
            tl.store(v_ptr + tl.arange(0, A)[:, None] * C + tl.arange(0, C)[None, :], v)
            tl.store(i_ptr + tl.arange(0, A)[:, None] * C + tl.arange(0, C)[None, :], i)
        else:
            tl.store(v_ptr + tl.arange(0, A)[:, None] * B + tl.arange(0, B)[None, :], v)
            tl.store(i_ptr + tl.arange(0, A)[:, None] * B + tl.arange(0, B)[None, :], i)


def first_max_reference(x: np.ndarray, axis: int, scan: bool, reverse: bool) -> tuple[np.ndarray, np.ndarray]:
    """numpy's (max, first flat index of it) along `axis`, or its inclusive scan (from the end when reversed)."""
    index = np.arange(x.size).reshape(x.shape)
    xs, ids = np.moveaxis(x, axis, -1), np.moveaxis(index, axis, -1)
    if not scan:
        at = np.argmax(np.where(xs == xs.max(axis=-1, keepdims=True), -ids, np.iinfo(np.int64).min), axis=-1)
        return np.take_along_axis(xs, at[..., None], -1)[..., 0], np.take_along_axis(ids, at[..., None], -1)[..., 0]
    v, i = np.empty_like(xs), np.empty_like(ids)
    order = range(xs.shape[-1] - 1, -1, -1) if reverse else range(xs.shape[-1])
    best_v, best_i = None, None
    for k in order:
        if best_v is None:
            best_v, best_i = xs[..., k].copy(), ids[..., k].copy()
        else:
            take = (xs[..., k] > best_v) | ((xs[..., k] == best_v) & (ids[..., k] < best_i))
            best_v, best_i = np.where(take, xs[..., k], best_v), np.where(take, ids[..., k], best_i)
        v[..., k], i[..., k] = best_v, best_i
    return np.moveaxis(v, -1, axis), np.moveaxis(i, -1, axis)


@settings(**SETTINGS)
@given(scan=st.booleans(), axis=st.integers(0, 2), reverse=st.booleans(), keep=st.booleans(),
       shape=st.tuples(*[st.sampled_from([1, 2, 4, 8])] * 3), num_warps=st.sampled_from([1, 2, 4]),
       seed=st.integers(0, 2**32 - 1))
def test_random_pair_reductions_and_scans(scan, axis, reverse, keep, shape, num_warps, seed):
    x = np.random.default_rng(seed).integers(-3, 4, size=shape).astype(np.int32)  # many ties
    size = x.size if scan or keep else x.size // shape[axis]
    v, i = pairs_along[(1,)](mxa(x.reshape(-1)), mf.full((x.size,), 99, mx.int32), mf.full((x.size,), 99, mx.int32),
                             SCAN=scan, AXIS=axis, REVERSE=reverse, KEEP=keep, A=shape[0], B=shape[1], C=shape[2],
                             num_warps=num_warps)
    want_v, want_i = first_max_reference(x.astype(np.int64), axis, scan, reverse)
    if keep and not scan:  # stored where the kept axis is 0
        want_v, want_i = np.expand_dims(want_v, axis), np.expand_dims(want_i, axis)
        got_v = npy(v).reshape(shape).take([0], axis)
        got_i = npy(i).reshape(shape).take([0], axis)
    else:
        got_v, got_i = npy(v)[:size].reshape(want_v.shape), npy(i)[:size].reshape(want_i.shape)
    assert (got_v == want_v).all() and (got_i == want_i).all(), (got_v.ravel()[:8], want_v.ravel()[:8],
                                                                 got_i.ravel()[:8], want_i.ravel()[:8])


# --- random conversions between element types ------------------------------------------------------------------
# x.to(DST) for every pair of nine types, on values where the conversion is defined (floats to integers within
# the integer's range; integers to bfloat16 below 2^24, so no route through float32 rounds twice), including
# each type's extremes, infinities between float types and halfway cases; against MLX's own conversion on the
# CPU (C's: truncation toward zero, wrapping, round to nearest even). Same-width pairs also by bitcast, against
# numpy's view. Exact.
CONVERT_TYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "float16", "bfloat16", "float32"]
_WIDTH = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32, "uint32": 32, "float16": 16,
          "bfloat16": 16, "float32": 32}


@mf.jit
def convert(x_ptr, o_ptr, b_ptr, n, DST: tl.constexpr, BITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(o_ptr + offs, x.to(DST), mask=mask)
    if BITS:
        tl.store(b_ptr + offs, x.to(b_ptr.dtype.element_ty, bitcast=True), mask=mask)


def conversion_inputs(rng, src: str, dst: str, n: int) -> np.ndarray:
    """float64 values of type `src` (exactly representable) whose conversion to `dst` is defined."""
    def limits(name: str) -> tuple[float, float]:
        if name.startswith(("int", "uint")):
            info = np.iinfo(name)
            return float(info.min), float(info.max)
        return {"float16": (-65504.0, 65504.0), "bfloat16": (-3.3e38, 3.3e38), "float32": (-3.4e38, 3.4e38)}[name]
    lo, hi = limits(src)
    if dst.startswith(("int", "uint")) and not src.startswith(("int", "uint")):
        lo, hi = max(lo, limits(dst)[0]), min(hi, limits(dst)[1] * 0.99)  # truncation stays in range
    if dst == "bfloat16" and src.startswith(("int", "uint")):
        lo, hi = max(lo, -2.0 ** 24), min(hi, 2.0 ** 24)
    if src.startswith(("int", "uint")):
        values = rng.integers(int(lo), int(hi), size=n, endpoint=True).astype(np.float64)
        special = [lo, hi, 0, 1, -1 if lo < 0 else 2, 2049, 16777217 if hi > 2**24 else hi]
    else:
        scale = rng.choice([1.0, 100.0, 70000.0, 2.0 ** 30, hi], size=n)
        values = np.clip(rng.uniform(-1, 1, size=n) * scale, lo, hi)
        special = [lo, hi, 0.5, -0.5, 1.5, 2.5, -2.5, 65519.0 if hi > 65519 else hi, 1e-6, -0.0]
        if not dst.startswith(("int", "uint")):
            special += [np.inf, -np.inf, 1e-8]
    values[:len(special)] = np.clip(special, lo, hi) if dst.startswith(("int", "uint")) else special
    if src == "bfloat16":  # numpy has no bfloat16: MLX rounds
        return np.array(mx.array(values.astype(np.float32)).astype(mx.bfloat16).astype(mx.float32)).astype(np.float64)
    return values.astype(src).astype(np.float64)


@settings(**SETTINGS)
@given(src=st.sampled_from(CONVERT_TYPES), dst=st.sampled_from(CONVERT_TYPES), n=st.integers(16, 64),
       seed=st.integers(0, 2**32 - 1))
def test_random_conversions(src, dst, n, seed):
    values = conversion_inputs(np.random.default_rng(seed), src, dst, n)
    with mx.stream(mx.cpu):
        x = (mx.array(values.astype(np.float32)).astype(getattr(mx, src)) if src in ("bfloat16", "float32", "float16")
             else mx.array(values.astype(src)))
        want = x.astype(getattr(mx, dst))
    same_width = _WIDTH[src] == _WIDTH[dst] and src != dst
    bits_type = getattr(mx, dst) if same_width else mx.int32
    out, bits = convert[(1,)](x, mf.full((n,), 7, getattr(mx, dst)), mf.full((n,), 7, bits_type), n,
                              DST=getattr(tl, dst), BITS=same_width, BLOCK=64, num_warps=1)
    as_bits = {8: np.uint8, 16: np.uint16, 32: np.uint32}[_WIDTH[dst]]
    got_bits, want_bits = (np.array(a.view(mx.uint8)).view(as_bits) for a in (out, want))
    bad = got_bits != want_bits
    assert not bad.any(), (src, dst, values[bad][:4], np.array(out.astype(mx.float32))[bad][:4],
                           np.array(want.astype(mx.float32))[bad][:4])
    if same_width:
        np.testing.assert_array_equal(np.array(bits.view(mx.uint8)), np.array(x.view(mx.uint8)))


# --- random atomics ---------------------------------------------------------------------------------------------
# Programs racing on a few bins of one output through atomic add, max or min (masked lanes skip), and storing
# plainly to a second output; 16-bit outputs are reached through 32-bit words. The bins end as numpy's
# reductions whatever the order: integers, and floats holding small integers (every sum exact).
ATOMIC_TYPES = {"int32": np.int32, "uint32": np.uint32, "float32": np.float32, "float16": np.float16}


@mf.jit
def racing(x_ptr, bins_ptr, o_ptr, copy_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = (offs < n) & (offs % 5 != 3)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    b = tl.load(bins_ptr + offs, mask=offs < n, other=0)
    if OP == "add":
        tl.atomic_add(o_ptr + b, x, mask=mask)
    elif OP == "max":
        tl.atomic_max(o_ptr + b, x, mask=mask)
    else:
        tl.atomic_min(o_ptr + b, x, mask=mask)
    tl.store(copy_ptr + offs, x, mask=offs < n)


@settings(**SETTINGS)
@given(dtype=st.sampled_from(sorted(ATOMIC_TYPES)), op=st.sampled_from(["add", "max", "min"]), n=st.integers(1, 600),
       bins=st.integers(1, 13), block=st.sampled_from([32, 64, 128]), num_warps=st.sampled_from([1, 2, 4]),
       seed=st.integers(0, 2**32 - 1))
def test_random_atomics(dtype, op, n, bins, block, num_warps, seed):
    if dtype == "float16" and op != "add":
        op = "add"  # Triton's half atomics: add (metalforge's max and min: tests/conformance)
    rng = np.random.default_rng(seed)
    t = ATOMIC_TYPES[dtype]
    x = rng.integers(0 if dtype == "uint32" else -8, 9, size=n).astype(t)
    b = rng.integers(0, bins, size=n).astype(np.int32)
    start = {"add": 0, "max": 0 if dtype == "uint32" else -100, "min": 100}[op]
    # MLX starts every output of a kernel at one value: the copy starts where the bins do
    out, copy = racing[(mf.cdiv(n, block),)](mxa(x), mxa(b), mf.full((bins,), start, getattr(mx, dtype)),
                                             mf.full((n,), start, getattr(mx, dtype)), n, OP=op, BLOCK=block,
                                             num_warps=num_warps)
    live = (np.arange(n) % 5) != 3
    reduce = {"add": np.add, "max": np.maximum, "min": np.minimum}[op]
    want = np.full(bins, start, np.float64)
    reduce.at(want, b[live], x[live].astype(np.float64))
    np.testing.assert_array_equal(npy(out).astype(np.float64), want)
    np.testing.assert_array_equal(npy(copy), x)
