"""One emulator test per `tl` construct of issue 4 not already exercised by test_kernels.py.

Where several constructs share a kernel (to keep clang compiles few), a module-scoped fixture runs
it once and each construct gets its own test over its own output.
"""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.errors import MetalforgeError

from .kutil import close, equal, mxa, npy, randf


@pytest.fixture(scope="module")
def mrng():
    """A module-scoped generator with a fresh seed (printed, replayable with METALFORGE_TEST_SEED)."""
    import os
    env = os.environ.get("METALFORGE_TEST_SEED")
    seed = int(env) if env else int(np.random.SeedSequence().entropy % (1 << 63))
    print(f"module random seed: {seed} (replay with METALFORGE_TEST_SEED={seed})")
    return np.random.default_rng(seed), seed


# --- program_id / num_programs ------------------------------------------------------------------
@mf.jit
def grid_ids(out_ptr, nums_ptr):
    p0 = tl.program_id(0)
    p1 = tl.program_id(1)
    p2 = tl.program_id(2)
    n0 = tl.num_programs(0)
    n1 = tl.num_programs(1)
    n2 = tl.num_programs(2)
    lin = (p2 * n1 + p1) * n0 + p0
    tl.store(out_ptr + lin, p0 + 10 * p1 + 100 * p2)
    tl.store(nums_ptr + lin * 3 + tl.arange(0, 4), tl.where(tl.arange(0, 4) == 0, n0, tl.where(tl.arange(0, 4) == 1, n1, n2)),
             mask=tl.arange(0, 4) < 3)


@pytest.mark.parametrize("grid", [(5, 3), (3, 2, 4)])
def test_program_id_num_programs(grid):
    g = grid + (1,) * (3 - len(grid))
    total = g[0] * g[1] * g[2]
    ids, nums = grid_ids[grid](mf.empty((total,), mx.int32), mf.empty((total * 3,), mx.int32), num_warps=1)
    p2, p1, p0 = np.meshgrid(np.arange(g[2]), np.arange(g[1]), np.arange(g[0]), indexing="ij")
    equal(ids, (p0 + 10 * p1 + 100 * p2).reshape(-1).astype(np.int32))
    equal(npy(nums).reshape(total, 3), np.tile(np.array(g, dtype=np.int32), (total, 1)))


# --- zeros / full / cdiv -------------------------------------------------------------------------
@mf.jit
def fills(a_ptr, b_ptr, c_ptr, v, n, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(a_ptr + r, tl.zeros((BM, BN), tl.float32) + tl.full((BM, BN), 2.5, tl.float32))
    tl.store(b_ptr + r, tl.full((BM, BN), v, tl.int32) + tl.zeros([BM, BN], dtype=tl.int32))
    tl.store(c_ptr + tl.arange(0, 2), tl.full((2,), tl.cdiv(n, BN), tl.int32))


def test_zeros_full_cdiv(rng):
    v, n = int(rng.integers(-1000, 1000)), int(rng.integers(1, 100))
    a, b, c = fills[(1,)](mf.empty((8 * 16,), mx.float32), mf.empty((8 * 16,), mx.int32), mf.empty((2,), mx.int32),
                          v, n, BM=8, BN=16, num_warps=2)
    equal(a, np.full(128, 2.5, np.float32))
    equal(b, np.full(128, v, np.int32))
    equal(c, np.full(2, -(-n // 16), np.int32))


# --- shape manipulation: reshape, permute, expand_dims, broadcast_to ---------------------------------
@mf.jit
def shapes(x_ptr, r_ptr, p_ptr, e_ptr, s_ptr):
    # x holds 2 * 4 * 8 = 64 elements
    x = tl.load(x_ptr + tl.arange(0, 64))
    x3 = tl.reshape(x, (2, 4, 8))
    i = tl.arange(0, 2)[:, None, None]
    j = tl.arange(0, 4)[None, :, None]
    k = tl.arange(0, 8)[None, None, :]
    # reshape: row sums of x viewed as (8, 8), back to flat through a reshape of a 2-D tile
    x2 = x.reshape(8, 8)
    tl.store(r_ptr + tl.arange(0, 8), tl.sum(x2, axis=1))
    # permute: (2, 4, 8) -> (8, 2, 4); element [k, i, j] = x3[i, j, k]
    p = tl.permute(x3, (2, 0, 1))
    kk = tl.arange(0, 8)[:, None, None]
    ii = tl.arange(0, 2)[None, :, None]
    jj = tl.arange(0, 4)[None, None, :]
    tl.store(p_ptr + kk * 8 + ii * 4 + jj, p)
    # expand_dims + broadcast_to: the first row of x repeated 4 times, and a column broadcast
    row = tl.load(x_ptr + tl.arange(0, 8))
    b = tl.broadcast_to(tl.expand_dims(row, 0), (4, 8))
    col = tl.expand_dims(tl.load(x_ptr + tl.arange(0, 4)), 1)  # (4, 1)
    tl.store(e_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :], b * 10.0 + col)
    # reshape 3-D -> 1-D after a computation
    tl.store(s_ptr + tl.arange(0, 64), tl.reshape(x3 * 2.0 + (i + j + k).to(tl.float32), (64,)))


@pytest.fixture(scope="module")
def shapes_run(mrng):
    rng, _ = mrng
    x = randf(rng, 64)
    outs = shapes[(1,)](mxa(x), mf.empty((8,), mx.float32), mf.empty((64,), mx.float32), mf.empty((32,), mx.float32),
                        mf.empty((64,), mx.float32), num_warps=1)
    return x, [npy(o) for o in outs]


def test_reshape(shapes_run):
    x, (r, _, _, s) = shapes_run
    close(r, x.astype(np.float64).reshape(8, 8).sum(axis=1), rtol=1e-5, atol=1e-6)
    i, j, k = np.meshgrid(np.arange(2), np.arange(4), np.arange(8), indexing="ij")
    equal(s, (x.reshape(2, 4, 8) * np.float32(2) + (i + j + k).astype(np.float32)).reshape(-1))


def test_permute(shapes_run):
    x, (_, p, _, _) = shapes_run
    equal(p.reshape(8, 2, 4), x.reshape(2, 4, 8).transpose(2, 0, 1))


def test_expand_dims_broadcast_to(shapes_run):
    x, (_, _, e, _) = shapes_run
    equal(e.reshape(4, 8), np.broadcast_to(x[:8], (4, 8)) * np.float32(10) + x[:4, None])


# --- where, minimum, maximum, clamp, comparisons, unary ops ------------------------------------------
@mf.jit
def select_ops(x_ptr, y_ptr, out_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + 0 * n + offs, tl.where(x > y, x, y * 2.0), mask=mask)
    tl.store(out_ptr + 1 * n + offs, tl.where(x < 0, 0.0, x), mask=mask)  # scalar arm
    tl.store(out_ptr + 2 * n + offs, tl.minimum(x, y), mask=mask)
    tl.store(out_ptr + 3 * n + offs, tl.maximum(x, y), mask=mask)
    tl.store(out_ptr + 4 * n + offs, tl.clamp(x, lo, hi), mask=mask)
    tl.store(out_ptr + 5 * n + offs, ((x <= y).to(tl.float32) + (x != y).to(tl.float32) * 2.0
                                      + (x >= 0.5).to(tl.float32) * 4.0 + (x == x).to(tl.float32) * 8.0), mask=mask)
    tl.store(out_ptr + 6 * n + offs, -x, mask=mask)
    tl.store(out_ptr + 7 * n + offs, x % 0.75, mask=mask)  # float % is fmod (sign of the dividend)


@pytest.fixture(scope="module")
def select_run(mrng):
    rng, _ = mrng
    n = int(rng.integers(100, 128)) | 1
    x, y = randf(rng, n), randf(rng, n)
    y[:5] = x[:5]  # equal elements
    lo, hi = sorted(float(v) for v in rng.uniform(-1.5, 1.5, size=2))
    out = select_ops[(1,)](mxa(x), mxa(y), mf.empty((8 * n,), mx.float32), n, lo, hi, BLOCK=128, num_warps=2)
    return x, y, lo, hi, npy(out).reshape(8, n)


def test_where(select_run):
    x, y, _, _, o = select_run
    equal(o[0], np.where(x > y, x, y * np.float32(2)))
    equal(o[1], np.where(x < 0, np.float32(0), x))


def test_minimum_maximum(select_run):
    x, y, _, _, o = select_run
    equal(o[2], np.minimum(x, y))
    equal(o[3], np.maximum(x, y))


def test_clamp(select_run):
    x, _, lo, hi, o = select_run
    equal(o[4], np.clip(x, np.float32(lo), np.float32(hi)))


def test_comparisons(select_run):
    x, y, _, _, o = select_run
    want = (x <= y) + (x != y) * 2.0 + (x >= 0.5) * 4.0 + 8.0
    equal(o[5], want.astype(np.float32))


def test_negation_and_float_mod(select_run):
    x, _, _, _, o = select_run
    equal(o[6], -x)
    close(o[7], np.fmod(x.astype(np.float64), 0.75), rtol=0, atol=1e-6)


# --- integer arithmetic: C-style division/modulo, bitwise ops, promotion ---------------------------------
@mf.jit
def int_ops(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    results = (a // b, a % b, a * b, a - b, a + b, a & b, a | b, a ^ b, ~a, -a, a // 3, a % -5, tl.cdiv(a, 4))
    for i in tl.static_range(13):
        tl.store(out_ptr + i * n + offs, results[i], mask=mask)


def _trunc_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def test_integer_ops_c_semantics(rng):
    n = int(rng.integers(200, 256)) | 1
    a = rng.integers(-1000, 1000, size=n).astype(np.int32)
    b = rng.integers(-30, 30, size=n).astype(np.int32)
    b[b == 0] = 7
    a[:4], b[:4] = [-7, 7, -7, 7], [2, -2, -2, 2]
    out = npy(int_ops[(1,)](mxa(a), mxa(b), mf.empty((13 * n,), mx.int32), n, BLOCK=256, num_warps=2)).reshape(13, n)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    q = _trunc_div(a64, b64)
    cdiv = (a64 + 3)
    cdiv = _trunc_div(cdiv, 4)  # tl.cdiv is (a + 4 - 1) // 4 with C division
    want = [q, a64 - q * b64, a64 * b64, a64 - b64, a64 + b64, a64 & b64, a64 | b64, a64 ^ b64, ~a64, -a64,
            _trunc_div(a64, 3), a64 - _trunc_div(a64, -5) * -5, cdiv]
    for i, w in enumerate(want):
        equal(out[i], w.astype(np.int32))


@mf.jit
def promote(a_ptr, u_ptr, c_ptr, d_ptr, o_u32, o_i8, o_i8s, o_div, o_f, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)  # int32
    u = tl.load(u_ptr + offs, mask=mask)  # uint32
    c = tl.load(c_ptr + offs, mask=mask)  # int8
    d = tl.load(d_ptr + offs, mask=mask)  # int8
    tl.store(o_u32 + offs, a + u, mask=mask)  # int32 + uint32 -> uint32
    tl.store(o_i8 + offs, (c + d).to(tl.int32), mask=mask)  # int8 + int8 wraps in int8
    tl.store(o_i8s + offs, c * 3, mask=mask)  # a Python int does not widen int8; stored to int32
    tl.store(o_div + offs, (u // 3) + (u % 1000) * 7, mask=mask)
    tl.store(o_f + offs, a * 0.5, mask=mask)  # int32 * float -> float32


def test_integer_promotion(rng):
    n = int(rng.integers(60, 64)) | 1
    a = rng.integers(-2**31, 2**31, size=n, dtype=np.int64).astype(np.int32)
    a[:3] = [-7, -1, 5]
    u = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    u[:3] = [1, 2, 2**32 - 1]
    c = rng.integers(-128, 128, size=n).astype(np.int8)
    d = rng.integers(-128, 128, size=n).astype(np.int8)
    c[:2], d[:2] = [100, -100], [100, -100]
    res = promote[(1,)](mxa(a), mxa(u), mxa(c), mxa(d), mf.empty((n,), mx.uint32), mf.empty((n,), mx.int32),
                        mf.empty((n,), mx.int32), mf.empty((n,), mx.uint32), mf.empty((n,), mx.float32),
                        n, BLOCK=64, num_warps=1)
    o_u32, o_i8, o_i8s, o_div, o_f = (npy(r) for r in res)
    au = a.view(np.uint32).astype(np.uint64)
    equal(o_u32, ((au + u) % 2**32).astype(np.uint32))
    equal(o_i8, (c.astype(np.int32) + d).astype(np.int8).astype(np.int32))
    equal(o_i8s, (c.astype(np.int32) * 3).astype(np.int8).astype(np.int32))
    u64 = u.astype(np.uint64)
    equal(o_div, ((u64 // 3 + (u64 % 1000) * 7) % 2**32).astype(np.uint32))  # unsigned division: no sign
    close(o_f, a.astype(np.float32).astype(np.float64) * 0.5, rtol=1e-7, atol=0)


# --- shifts: arithmetic on signed, logical on unsigned -----------------------------------------------------
@mf.jit
def shifts(a_ptr, u_ptr, s_ptr, o_sr, o_ur, o_sl, o_ul, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    u = tl.load(u_ptr + offs, mask=mask)
    s = tl.load(s_ptr + offs, mask=mask)
    tl.store(o_sr + offs, a >> s, mask=mask)
    tl.store(o_ur + offs, u >> s.to(tl.uint32), mask=mask)
    tl.store(o_sl + offs, a << s, mask=mask)
    tl.store(o_ul + offs, (u << 3) >> 1, mask=mask)


def test_shifts(rng):
    n = int(rng.integers(60, 64)) | 1
    a = rng.integers(-2**31, 2**31, size=n, dtype=np.int64).astype(np.int32)
    a[:2] = [-1, -256]
    u = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    u[:2] = [2**32 - 1, 2**31]
    s = rng.integers(0, 32, size=n).astype(np.int32)
    s[:2] = [4, 31]
    sr, ur, sl, ul = shifts[(1,)](mxa(a), mxa(u), mxa(s), mf.empty((n,), mx.int32), mf.empty((n,), mx.uint32),
                                  mf.empty((n,), mx.int32), mf.empty((n,), mx.uint32), n, BLOCK=64, num_warps=1)
    equal(sr, a >> s)
    equal(ur, u >> s.astype(np.uint32))
    equal(sl, (a.astype(np.int64) << s).astype(np.uint64).astype(np.uint32).view(np.int32))
    equal(ul, ((u.astype(np.uint64) << 3) % 2**32 >> 1).astype(np.uint32))


# --- .to(dtype) and bitcast ------------------------------------------------------------------------------------
@mf.jit
def casts(x_ptr, i_ptr, o_trunc, o_f16, o_i2f, o_bits, o_ubits, o_back, o_bool, o_h, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    i = tl.load(i_ptr + offs, mask=mask)
    tl.store(o_trunc + offs, x.to(tl.int32), mask=mask)
    tl.store(o_f16 + offs, x.to(tl.float16).to(tl.float32), mask=mask)
    tl.store(o_i2f + offs, i.to(tl.float32), mask=mask)
    tl.store(o_bits + offs, x.to(tl.int32, bitcast=True), mask=mask)
    tl.store(o_ubits + offs, i.to(tl.uint32, bitcast=True), mask=mask)
    tl.store(o_back + offs, x.to(tl.uint32, bitcast=True).to(tl.float32, bitcast=True) * 2.0, mask=mask)
    tl.store(o_bool + offs, (x > 0).to(tl.int32) + (i != 0).to(tl.int8).to(tl.int32) * 2, mask=mask)
    tl.store(o_h + offs, x.to(tl.float16) * 2, mask=mask)  # fp16 arithmetic, fp16 output


def test_to_and_bitcast(rng):
    n = int(rng.integers(60, 64)) | 1
    x = randf(rng, n, lo=-100, hi=100)
    x[:3] = [-2.7, 2.7, -0.5]
    i = rng.integers(-2**31, 2**31, size=n, dtype=np.int64).astype(np.int32)
    i[:2] = [-1, 0]
    outs = casts[(1,)](mxa(x), mxa(i), mf.empty((n,), mx.int32), mf.empty((n,), mx.float32), mf.empty((n,), mx.float32),
                       mf.empty((n,), mx.int32), mf.empty((n,), mx.uint32), mf.empty((n,), mx.float32),
                       mf.empty((n,), mx.int32), mf.empty((n,), mx.float16), n, BLOCK=64, num_warps=1)
    trunc, f16, i2f, bits, ubits, back, bools, h = (npy(o) for o in outs)
    equal(trunc, np.trunc(x).astype(np.int32))
    equal(f16, x.astype(np.float16).astype(np.float32))
    equal(i2f, i.astype(np.float32))
    equal(bits, x.view(np.int32))
    equal(ubits, i.view(np.uint32))
    equal(back, x * np.float32(2))
    equal(bools, ((x > 0).astype(np.int32) + (i != 0) * 2).astype(np.int32))
    equal(h, x.astype(np.float16) * np.float16(2))


# --- math functions ---------------------------------------------------------------------------------------------
MATH = ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "abs", "fma", "sigmoid", "erf", "floor", "ceil"]


@mf.jit
def math_fns(x_ptr, p_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)  # any sign
    p = tl.load(p_ptr + offs, mask=mask)  # positive
    res = (tl.exp(x), tl.exp2(x), tl.log(p), tl.log2(p), tl.sqrt(p), tl.rsqrt(p), tl.sin(x), tl.cos(x), tl.abs(x),
           tl.fma(x, p, 0.25), tl.sigmoid(x), tl.erf(x), tl.floor(x), tl.ceil(x))
    for i in tl.static_range(14):
        tl.store(out_ptr + i * n + offs, res[i], mask=mask)


@pytest.fixture(scope="module")
def math_run(mrng):
    rng, _ = mrng
    n = int(rng.integers(200, 256)) | 1
    x = randf(rng, n, lo=-4, hi=4)
    x[:4] = [-1.0, 2.0, -2.5, 0.0]
    p = randf(rng, n, lo=0.01, hi=50)
    out = math_fns[(1,)](mxa(x), mxa(p), mf.empty((14 * n,), mx.float32), n, BLOCK=256, num_warps=2)
    return x.astype(np.float64), p.astype(np.float64), npy(out).reshape(14, n)


@pytest.mark.parametrize("fn", MATH)
def test_math(math_run, fn):
    import math
    x, p, out = math_run
    erf = np.vectorize(math.erf)
    want = {"exp": np.exp(x), "exp2": np.exp2(x), "log": np.log(p), "log2": np.log2(p), "sqrt": np.sqrt(p),
            "rsqrt": 1 / np.sqrt(p), "sin": np.sin(x), "cos": np.cos(x), "abs": np.abs(x), "fma": x * p + 0.25,
            "sigmoid": 1 / (1 + np.exp(-x)), "erf": erf(x), "floor": np.floor(x), "ceil": np.ceil(x)}[fn]
    close(out[MATH.index(fn)], want, rtol=2e-6, atol=2e-6)


# --- reductions sum / max / min along each axis and over all -----------------------------------------------------
@mf.jit
def reductions(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    lo = tl.where(mask, x, float("inf"))
    hi = tl.where(mask, x, float("-inf"))
    # layout of out: [sum0 (BN) | max0 | min0 | sum1 (BM) | max1 | min1 | sum, max, min, sum(keep_dims)]
    tl.store(out_ptr + rn, tl.sum(x, axis=0), mask=rn < N)
    tl.store(out_ptr + BN + rn, tl.max(hi, axis=0), mask=rn < N)
    tl.store(out_ptr + 2 * BN + rn, tl.min(lo, axis=0), mask=rn < N)
    tl.store(out_ptr + 3 * BN + rm, tl.sum(x, axis=1), mask=rm < M)
    tl.store(out_ptr + 3 * BN + BM + rm, tl.max(hi, axis=1), mask=rm < M)
    tl.store(out_ptr + 3 * BN + 2 * BM + rm, tl.min(lo, axis=1), mask=rm < M)
    base = out_ptr + 3 * BN + 3 * BM
    tl.store(base, tl.sum(x))
    tl.store(base + 1, tl.max(hi, axis=None))
    tl.store(base + 2, tl.min(lo))
    kd = tl.sum(x, axis=1, keep_dims=True)  # (BM, 1)
    tl.store(base + 3 + rm[:, None] + rn[None, :] * 0, kd + 0.0 * x, mask=(rm[:, None] < M) & (rn[None, :] == 0))


@pytest.fixture(scope="module")
def reductions_run(mrng):
    rng, _ = mrng
    M, N = int(rng.integers(9, 16)) | 1, int(rng.integers(33, 64)) | 1
    BM, BN = 16, 64
    x = randf(rng, M, N)
    x[:, :5] = -np.abs(x[:, :5]) - 0.1  # columns of negatives: a masked 0.0 must not win tl.max
    x[:, 5:9] = np.abs(x[:, 5:9]) + 0.1  # and of positives for tl.min
    size = 3 * BN + 3 * BM + 3 + BM
    out = npy(reductions[(1,)](mxa(x.reshape(-1)), mf.full((size,), 123.0, mx.float32), M, N, BM=BM, BN=BN,
                               num_warps=4))
    return x.astype(np.float64), out, BM, BN


@pytest.mark.parametrize("axis", [0, 1, None])
def test_reductions(reductions_run, axis):
    x, out, BM, BN = reductions_run
    M, N = x.shape
    if axis == 0:
        got = [out[:N], out[BN:BN + N], out[2 * BN:2 * BN + N]]
    elif axis == 1:
        b = 3 * BN
        got = [out[b:b + M], out[b + BM:b + BM + M], out[b + 2 * BM:b + 2 * BM + M]]
    else:
        got = list(out[3 * BN + 3 * BM:3 * BN + 3 * BM + 3])
    close(got[0], x.sum(axis=axis), rtol=1e-5, atol=1e-5)
    close(got[1], x.max(axis=axis), rtol=0, atol=0)
    close(got[2], x.min(axis=axis), rtol=0, atol=0)


def test_reduction_keep_dims(reductions_run):
    x, out, BM, BN = reductions_run
    M = x.shape[0]
    b = 3 * BN + 3 * BM + 3
    close(out[b:b + M], x.sum(axis=1), rtol=1e-5, atol=1e-5)
    equal(out[b + M:b + BM], np.full(BM - M, 123.0, np.float32))  # masked rows untouched


@pytest.mark.parametrize("num_warps", [1, 2, 4, 8])
def test_num_warps(rng, num_warps):
    """The same 2-D reduction and elementwise kernel with 32..256 threads per program."""
    M, N = int(rng.integers(9, 16)) | 1, int(rng.integers(33, 64)) | 1
    x = randf(rng, M, N)
    out = npy(reductions[(1,)](mxa(x.reshape(-1)), mf.full((3 * 64 + 3 * 16 + 3 + 16,), 123.0, mx.float32), M, N,
                               BM=16, BN=64, num_warps=num_warps))
    x64 = x.astype(np.float64)
    close(out[:N], x64.sum(axis=0), rtol=1e-5, atol=1e-5)
    close(out[3 * 64:3 * 64 + M], x64.sum(axis=1), rtol=1e-5, atol=1e-5)
    close(out[3 * 64 + 16:3 * 64 + 16 + M], x64.max(axis=1), rtol=0, atol=0)
    close(out[3 * 64 + 48:3 * 64 + 51], [x64.sum(), x64.max(), x64.min()], rtol=1e-5, atol=1e-5)


# --- tl.reduce and tl.associative_scan with user @jit combine functions --------------------------------------
@mf.jit
def max_abs(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@mf.jit
def add_int(a, b):
    return a + b


@mf.jit
def mul_f(a, b):
    return a * b


@mf.jit
def user_reduce(x_ptr, i_ptr, o_maxabs, o_isum, o_prod, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    i = tl.load(i_ptr + offs, mask=mask, other=0)
    tl.store(o_maxabs + rm, tl.reduce(x, 1, max_abs), mask=rm < M)
    tl.store(o_isum + rn, tl.reduce(i, axis=0, combine_fn=add_int), mask=rn < N)
    tl.store(o_prod + tl.arange(0, 1), tl.reduce(tl.where(mask, x * 0.01 + 1.0, 1.0), None, mul_f) + tl.zeros((1,), tl.float32))


def test_reduce_user_combine(rng):
    M, N = int(rng.integers(9, 16)) | 1, int(rng.integers(17, 32)) | 1
    x = randf(rng, M, N)
    i = rng.integers(-1000, 1000, size=(M, N)).astype(np.int32)
    mabs, isum, prod = reduce_outs = user_reduce[(1,)](mxa(x.reshape(-1)), mxa(i.reshape(-1)), mf.empty((M,), mx.float32),
                                                      mf.empty((N,), mx.int32), mf.empty((1,), mx.float32), M, N,
                                                      BM=16, BN=32, num_warps=2)
    equal(mabs, np.abs(x).max(axis=1))
    equal(isum, i.sum(axis=0).astype(np.int32))
    close(prod, [np.prod(x.astype(np.float64) * 0.01 + 1.0)], rtol=1e-5, atol=0)


@mf.jit
def scans(x_ptr, i_ptr, o_cummax, o_cumsum_rows, o_rev, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    i = tl.load(i_ptr + offs, mask=mask, other=0)
    tl.store(o_cummax + offs, tl.associative_scan(x, 1, max_abs), mask=mask)
    tl.store(o_cumsum_rows + offs, tl.associative_scan(i, 0, add_int), mask=mask)
    tl.store(o_rev + offs, tl.cumsum(i, axis=1, reverse=True), mask=mask)


def test_associative_scan(rng):
    M, N = int(rng.integers(5, 8)) | 1, int(rng.integers(17, 32)) | 1
    x = randf(rng, M, N)
    i = rng.integers(-1000, 1000, size=(M, N)).astype(np.int32)
    cmax, csum, rev = scans[(1,)](mxa(x.reshape(-1)), mxa(i.reshape(-1)), mf.empty((M * N,), mx.float32),
                                  mf.empty((M * N,), mx.int32), mf.empty((M * N,), mx.int32), M, N, BM=8, BN=32,
                                  num_warps=2)
    want = x.copy()  # an inclusive scan leaves the first element as it is
    for k in range(1, N):
        want[:, k] = np.maximum(np.abs(want[:, k - 1]), np.abs(x[:, k]))
    equal(npy(cmax).reshape(M, N), want)
    equal(npy(csum).reshape(M, N), np.cumsum(i, axis=0).astype(np.int32))
    equal(npy(rev).reshape(M, N), np.cumsum(i[:, ::-1], axis=1)[:, ::-1].astype(np.int32))


# --- xor_sum, reduce_or (dsl/standard.py: tl.reduce with Triton's combine functions) ----------------------------
@mf.jit
def bit_reductions(x_ptr, rows_xor, cols_or, all_xor, keep_or, M: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + i)
    tl.store(rows_xor + tl.arange(0, M), tl.xor_sum(x, axis=1))
    tl.store(cols_or + tl.arange(0, N), tl.reduce_or(x, 0))
    tl.store(all_xor, tl.xor_sum(x))
    tl.store(keep_or + tl.arange(0, M)[:, None], tl.reduce_or(x, axis=1, keep_dims=True))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int16])
def test_xor_sum_and_reduce_or(rng, dtype):
    m, n = 4, 32
    x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, size=(m, n), dtype=np.int64).astype(dtype)
    mdt = {np.int32: mx.int32, np.uint32: mx.uint32, np.int16: mx.int16}[dtype]
    rows, cols, total, keep = bit_reductions[(1,)](mxa(x.reshape(-1)), mf.empty((m,), mdt), mf.empty((n,), mdt),
                                                   mf.empty((1,), mdt), mf.empty((m,), mdt), M=m, N=n)
    equal(rows, np.bitwise_xor.reduce(x, axis=1))
    equal(cols, np.bitwise_or.reduce(x, axis=0))
    equal(total, np.bitwise_xor.reduce(x.reshape(-1)).reshape(1))
    equal(keep, np.bitwise_or.reduce(x, axis=1))


def test_xor_sum_refuses_floats():
    from metalforge.errors import KernelDefinitionError
    with pytest.raises(KernelDefinitionError, match="xor_sum takes integer tiles") as e:
        bit_reductions[(1,)](mx.zeros((64,), mx.float32), *(mf.empty((s,), mx.float32) for s in (2, 32, 1, 2)),
                             M=2, N=32)
    assert "test_language.py" in str(e.value)


# --- atomics: max / min / xchg / cas ---------------------------------------------------------------------------
@mf.jit
def atomic_minmax(x_ptr, bins_ptr, o_max, o_min, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=10000000)  # masked lanes would break bin 0's max and min
    b = tl.load(bins_ptr + offs, mask=mask, other=0)
    tl.atomic_max(o_max + b, x, mask=mask)
    tl.atomic_min(o_min + b, -x, mask=mask)


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_atomic_max_min(rng, dtype):
    n, nb = int(rng.integers(500, 700)) | 1, 11
    x = (rng.integers(-10**6, 10**6, size=n) if dtype == np.int32 else rng.uniform(-100, 100, size=n)).astype(dtype)
    b = rng.integers(0, nb, size=n).astype(np.int32)
    b[:nb] = np.arange(nb)
    mdt = mx.int32 if dtype == np.int32 else mx.float32
    mx_, mn = atomic_minmax[(mf.cdiv(n, 128),)](mxa(x), mxa(b), mf.zeros((nb,), mdt), mf.zeros((nb,), mdt), n,
                                                BLOCK=128, num_warps=4)
    equal(mx_, np.array([max(0, x[b == k].max()) for k in range(nb)], dtype=dtype))
    equal(mn, np.array([min(0, (-x[b == k]).min()) for k in range(nb)], dtype=dtype))


@mf.jit
def atomic_bits(x_ptr, bins_ptr, o_bits, old_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    b = tl.load(bins_ptr + offs, mask=mask, other=0)
    if OP == "and":
        old = tl.atomic_and(o_bits + b, x, mask=mask)
    elif OP == "or":
        old = tl.atomic_or(o_bits + b, x, mask=mask)
    else:
        old = tl.atomic_xor(o_bits + b, x, mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
@pytest.mark.parametrize("op", ["and", "or", "xor"])
def test_atomic_and_or_xor(rng, dtype, op):
    """Programs racing on 11 bins at an odd size: each bin ends as the and / or / xor of its values
    whatever the order, and the old values returned are the states the bin went through, one each:
    with new = old op x per lane, the olds and the final state are the news and the start, as
    multisets (an old value left unwritten, or a lane applied twice, breaks that)."""
    n, nb = int(rng.integers(500, 700)) | 1, 11
    x = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32).view(dtype)
    b = rng.integers(0, nb, size=n).astype(np.int32)
    b[:nb] = np.arange(nb)
    start = -1 if op == "and" else 0  # all bits set: the and's neutral value
    mdt = mx.int32 if dtype == np.int32 else mx.uint32
    bits, old = atomic_bits[(mf.cdiv(n, 128),)](
        mxa(x), mxa(b), mf.full((nb,), start if dtype == np.int32 else start % 2**32, mdt),
        mf.full((n,), start if dtype == np.int32 else start % 2**32, mdt), n, OP=op, BLOCK=128, num_warps=4)
    reduce = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op].reduce
    final = np.array([reduce(x[b == k]) for k in range(nb)], dtype=dtype)
    equal(bits, final)
    old = npy(old)
    new = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op](old, x)
    first = np.array(start, np.int64).astype(dtype)
    for k in range(nb):
        mine = b == k
        assert sorted([*old[mine], final[k]]) == sorted([*new[mine], first]), k


@pytest.mark.parametrize("element,message", [
    (mx.float32, r"tl.atomic_or on tl.float32 is not supported: it takes int32 and uint32"),
    (mx.int16, r"tl.atomic_or on tl.int16 is not supported")])
def test_bitwise_atomics_refuse_other_types(element, message):
    from metalforge.errors import KernelDefinitionError
    x = mx.zeros((8,), element)
    with pytest.raises(KernelDefinitionError, match=message) as e:
        atomic_bits[(1,)](x, mx.zeros((8,), mx.int32), mf.zeros((2,), element), mf.zeros((8,), element), 8, OP="or",
                          BLOCK=8)
    assert "test_language.py" in str(e.value) and "fix:" in str(e.value)


@mf.jit
def atomic_swap(x_ptr, slot_ptr, old_xchg, old_cas, n, NSLOTS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # xchg into a private slot (old value is the initial 0), then read it back by exchanging again
    tl.atomic_xchg(old_xchg + offs, x, mask=mask)
    prev = tl.atomic_xchg(old_xchg + offs, x + 1, mask=mask)
    tl.store(old_xchg + n + offs, prev, mask=mask)
    # every element competes for slot offs % NSLOTS (initially 0): exactly one wins each slot
    xx = tl.where(mask, x, -offs - 1)  # atomic_cas has no mask: lanes past n compete with distinct values
    old = tl.atomic_cas(slot_ptr + offs % NSLOTS, tl.zeros((BLOCK,), tl.int32), xx)
    tl.store(old_cas + offs, old, mask=mask)


def test_atomic_xchg_cas(rng):
    n, ns = 257, 16
    x = rng.permutation(np.arange(1, 2 * n + 1))[:n].astype(np.int32)  # distinct, non-zero
    slots, xchg, cas = atomic_swap[(mf.cdiv(n, 64),)](mxa(x), mf.zeros((ns,), mx.int32),
                                                      mf.zeros((2 * n,), mx.int32), mf.zeros((n + 63,), mx.int32),
                                                      n, NSLOTS=ns, BLOCK=64, num_warps=2)
    xchg, slots, cas = npy(xchg), npy(slots), npy(cas)
    equal(xchg[:n], x + 1)
    equal(xchg[n:], x)
    for s in range(ns):
        lanes = np.arange(s, 5 * 64, ns)  # every lane of the grid competes, masked or not
        values = np.where(lanes < n, x[np.minimum(lanes, n - 1)], -lanes - 1)
        mine = lanes[lanes < n]
        assert slots[s] in values
        winner = lanes[values == slots[s]][0]
        # the winner saw 0, every other competitor saw the winner's value
        if winner < n:
            assert cas[winner] == 0
        equal(cas[mine[mine != winner]], np.full((mine != winner).sum(), slots[s], np.int32))


# --- control flow ------------------------------------------------------------------------------------------------
@mf.jit
def loops(x_ptr, o_static, o_range, o_while, o_trange, n, lo, hi, step, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # static_range: unrolled at compile time; the induction variable is a constexpr
    acc = tl.zeros((BLOCK,), tl.float32)
    for k in tl.static_range(UNROLL):
        acc = acc * 2.0 + x * (k + 1)
    tl.store(o_static + offs, acc, mask=mask)
    # Python range with runtime start/stop/step
    total = tl.zeros((BLOCK,), tl.float32)
    count = 0
    for i in range(lo, hi, step):
        total += x * i
        count += 1
    tl.store(o_range + offs, total + count * 1000.0, mask=mask)
    # while loop with a runtime condition and several carried values (scalar and tile)
    j = lo
    w = x
    while j < hi:
        w = w * 0.5 + j
        j += step
    tl.store(o_while + offs, w, mask=mask)
    # tl.range with a runtime bound
    t = tl.zeros((BLOCK,), tl.float32)
    for i in tl.range(0, n, 16):
        t += tl.where(offs >= i, 1.0, 0.0)
    tl.store(o_trange + offs, t, mask=mask)


LOOP_BOUNDS = [None, (0, 9, 3), (0, 10, 3), (-4, 10, 3), (5, 5, 1), (7, 2, 2)]  # None: random; the last two are empty


@pytest.fixture(scope="module")
def loops_run(mrng):
    rng, _ = mrng
    n = int(rng.integers(40, 64)) | 1
    x = randf(rng, n)
    runs = []
    for bounds in LOOP_BOUNDS:
        lo, hi, step = bounds or (int(rng.integers(-5, 3)), int(rng.integers(5, 20)), int(rng.integers(1, 4)))
        outs = loops[(1,)](mxa(x), *(mf.empty((n,), mx.float32) for _ in range(4)), n, lo, hi, step, BLOCK=64,
                           UNROLL=5, num_warps=1)
        runs.append((lo, hi, step, [npy(o) for o in outs]))
    return x.astype(np.float64), runs


def test_static_range(loops_run):
    x, runs = loops_run
    acc = np.zeros_like(x)
    for k in range(5):
        acc = acc * 2 + x * (k + 1)
    close(runs[0][3][0], acc, rtol=1e-6, atol=1e-6)


def test_for_runtime_bounds(loops_run):
    x, runs = loops_run
    n = len(x)
    for lo, hi, step, outs in runs:
        r = list(range(lo, hi, step))
        close(outs[1], x * sum(r) + 1000.0 * len(r), rtol=1e-6, atol=1e-4)
        close(outs[3], np.array([sum(1 for i in range(0, n, 16) if o >= i) for o in range(n)], np.float64), rtol=0,
              atol=0)


def test_while(loops_run):
    x, runs = loops_run
    for lo, hi, step, outs in runs:
        w = x.copy()
        for j in range(lo, hi, step):
            w = w * 0.5 + j
        close(outs[2], w, rtol=1e-6, atol=1e-6)


@mf.jit
def branches(x_ptr, out_ptr, n, flag, thresh, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if flag > thresh:  # runtime scalar condition; y is merged from both branches
        y = x * 2.0
        z = 1
    else:
        y = x - 1.0
        z = 2
    if tl.program_id(0) == 1:  # runtime condition on the program id, no else
        y = y + 100.0
    if MODE == 0:  # constexpr: only the taken branch exists
        y = y + 0.25
    elif MODE == 1:
        y = -y
    else:
        y = y * y
    tl.store(out_ptr + offs, y + z * 1000.0, mask=mask)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_if_else(rng, mode):
    n = int(rng.integers(150, 192)) | 1
    x = randf(rng, n)
    for flag in (3, -3):
        out = branches[(mf.cdiv(n, 64),)](mxa(x), mf.empty((n,), mx.float32), n, flag, 0.5, MODE=mode, BLOCK=64,
                                          num_warps=2)
        y = (x * np.float32(2) if flag > 0.5 else x - np.float32(1)).astype(np.float32)
        pid = np.arange(n) // 64
        y = np.where(pid == 1, y + np.float32(100), y)
        y = [y + np.float32(0.25), -y, y * y][mode]
        equal(out, (y + np.float32(1000.0 if flag > 0.5 else 2000.0)).astype(np.float32))


@mf.jit
def asserted(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")
    offs = tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.debug_barrier()
    tl.store(out_ptr + offs, x + 1.0, mask=mask)


def test_static_assert(rng):
    n = 37
    x = randf(rng, n)
    equal(asserted[(1,)](mxa(x), mf.empty((n,), mx.float32), n, BLOCK=64, num_warps=1), x + np.float32(1))
    with pytest.raises(MetalforgeError, match="BLOCK must be a multiple of 32"):
        asserted[(1,)](mxa(x), mf.empty((n,), mx.float32), n, BLOCK=16, num_warps=1)


def test_hints_and_debug_barrier(rng):
    n = int(rng.integers(100, 128)) | 1
    x = randf(rng, n)
    out = asserted[(1,)](mxa(x), mf.empty((n,), mx.float32), n, BLOCK=128, num_warps=2)
    equal(out, x + np.float32(1))
    source = asserted.asm.get("msl") or asserted.asm["cuda"]
    assert "threadgroup_barrier" in source or "__syncthreads" in source


@mf.jit
def barrier_exchange(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # a store then a load of another thread's element through the output: needs the barrier
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))
    tl.debug_barrier()
    y = tl.load(out_ptr + (BLOCK - 1 - offs))
    tl.debug_barrier()
    tl.store(out_ptr + BLOCK + offs, y)


def test_debug_barrier_orders_memory(rng):
    x = randf(rng, 256)
    out = barrier_exchange[(1,)](mxa(x), mf.empty((512,), mx.float32), BLOCK=256, num_warps=8)
    equal(npy(out)[256:], x[::-1])


@mf.jit
def printing(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_print("x", x)
    tl.store(out_ptr + offs, x)


def test_device_print(rng, capfd):
    import re
    x = randf(rng, 32)
    equal(printing[(1,)](mxa(x), mf.empty((32,), mx.float32), BLOCK=32, num_warps=1), x)
    lines = [ln for ln in capfd.readouterr().out.splitlines() if "idx" in ln]
    assert len(lines) == 32, lines[:3]
    seen = {}
    for ln in lines:
        m = re.search(r"pid \(0, 0, 0\) idx \(\s*(\d+)\)\s*x:?\s*(\S+)", ln)
        assert m, ln
        seen[int(m.group(1))] = float(m.group(2))
    close(np.array([seen[i] for i in range(32)]), x, rtol=1e-6, atol=0)


# --- half precision -----------------------------------------------------------------------------------------------
@mf.jit
def halves(h_ptr, b_ptr, o_h, o_b, o_sum, o_max, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    h = tl.load(h_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(o_h + offs, h * h - h * 1.1, mask=mask)  # fp16 stays fp16: each op rounds to fp16
    tl.store(o_b + offs, b + b, mask=mask)  # bf16 stays bf16
    s = tl.sum(h, axis=0)  # keeps fp16
    m = tl.max(tl.where(mask, h, -1000.0), axis=0)  # fp32
    tl.static_assert(s.dtype == tl.float16)
    tl.static_assert(m.dtype == tl.float32)
    tl.store(o_sum + tl.arange(0, 1), tl.zeros((1,), tl.float16) + s)
    tl.store(o_max + tl.arange(0, 1), tl.zeros((1,), tl.float32) + m)


def test_half_precision(rng):
    n = int(rng.integers(40, 64)) | 1
    h = randf(rng, n).astype(np.float16)
    b = randf(rng, n)
    bm = mx.array(b).astype(mx.bfloat16)
    oh, ob, osum, omax = halves[(1,)](mxa(h), bm, mf.empty((n,), mx.float16), mf.empty((n,), mx.bfloat16),
                                      mf.empty((1,), mx.float16), mf.empty((1,), mx.float32), n, BLOCK=64, num_warps=1)
    equal(oh, h * h - h * np.float16(1.1))
    equal(npy(ob.astype(mx.float32)), npy((bm + bm).astype(mx.float32)))
    # an fp16 sum rounds at every level of its reduction tree: error <= depth * u * sum|h| (Higham's gamma)
    depth, u = int(np.ceil(np.log2(n))) + 1, 2.0 ** -11
    close(osum, [h.astype(np.float64).sum()], rtol=0, atol=depth * u * np.abs(h.astype(np.float64)).sum())
    equal(omax, np.array([h.max()], np.float32))


# --- every MLX dtype Metal supports, as input and output ---------------------------------------------------------
@mf.jit
def roundtrip(x_ptr, copy_ptr, inc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(copy_ptr + offs, x, mask=mask)
    tl.store(inc_ptr + offs, x.to(tl.float32) + 1.0, mask=mask)


DTYPES = {mx.bool_: np.bool_, mx.int8: np.int8, mx.int16: np.int16, mx.int32: np.int32, mx.int64: np.int64,
          mx.uint8: np.uint8, mx.uint16: np.uint16, mx.uint32: np.uint32, mx.uint64: np.uint64,
          mx.float16: np.float16, mx.bfloat16: None, mx.float32: np.float32}


@pytest.mark.parametrize("dtype", list(DTYPES), ids=str)
def test_dtype_roundtrip(rng, dtype):
    n = int(rng.integers(60, 100)) | 1
    if dtype == mx.bool_:
        x = mx.array(rng.integers(0, 2, size=n).astype(np.bool_))
    elif dtype in (mx.float16, mx.bfloat16, mx.float32):
        x = mx.array(randf(rng, n, lo=-50, hi=50)).astype(dtype)
    else:
        info = np.iinfo(DTYPES[dtype])
        x = mx.array(rng.integers(max(info.min, -2**40), min(info.max, 2**40), size=n, dtype=np.int64)).astype(dtype)
    copy, inc = roundtrip[(mf.cdiv(n, 32),)](x, mf.empty((n,), dtype), mf.empty((n,), mx.float32), n, BLOCK=32,
                                             num_warps=1)
    assert copy.dtype == dtype
    equal(npy(copy.astype(mx.float32)) if dtype == mx.bfloat16 else copy, npy(x.astype(mx.float32)) if dtype == mx.bfloat16 else npy(x))
    equal(inc, npy(x.astype(mx.float32)) + np.float32(1))


def test_outputs_with_different_init_values_are_rejected():
    x = mx.zeros((4,), mx.float32)
    with pytest.raises(MetalforgeError, match="initial values"):
        roundtrip[(1,)](x, mf.zeros((4,), mx.float32), mf.full((4,), 1.0, mx.float32), 4, BLOCK=32, num_warps=1)


# --- scalar (0-D) values carried through loops -------------------------------------------------------------------
@mf.jit
def python_number_carry(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    s = 0.0  # Python numbers become float32 scalars once a loop reassigns them
    m = -1e30
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        s += tl.sum(x, axis=0)
        m = tl.maximum(m, tl.max(tl.where(offs < n, x, -1e30), axis=0))
    tl.store(out_ptr, s)
    tl.store(out_ptr + 1, m)


def test_loop_carried_python_numbers(rng):
    n = int(rng.integers(300, 500)) | 1
    x = randf(rng, n)
    out = python_number_carry[(1,)](mxa(x), mf.empty((2,), mx.float32), n, BLOCK=64, num_warps=2)
    close(out, [x.astype(np.float64).sum(), x.max()], rtol=1e-5, atol=1e-4)


@mf.jit
def scalar_full(x_ptr, out_ptr, n, v, BLOCK: tl.constexpr):
    m = tl.full([], float("-inf"), tl.float32)  # a 0-D tile, as Triton allows
    c = tl.zeros([], tl.int32) + v
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=float("-inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
        c += 1
    tl.store(out_ptr, m)
    tl.store(out_ptr + 1, c.to(tl.float32))


def test_full_zero_dim_scalar(rng):
    n = int(rng.integers(300, 500)) | 1
    x = randf(rng, n)
    v = int(rng.integers(-50, 50))
    out = scalar_full[(1,)](mxa(x), mf.empty((2,), mx.float32), n, v, BLOCK=64, num_warps=2)
    equal(out, np.array([x.max(), v + -(-n // 64)], np.float32))
