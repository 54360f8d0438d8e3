"""End-to-end DSL kernels on the emulator, checked against float64 numpy references.

Fresh random inputs every run (the `rng` fixture prints its seed on failure), odd sizes so that
every mask matters, and outputs the emulator poisons (NaN / -1) so unwritten elements show up.
"""
from __future__ import annotations

import math

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl

from .kutil import close, equal, generated, loop_body, mxa, npy, randf


# --- vector add ------------------------------------------------------------------------------
@mf.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_vector_add(rng):
    n = int(rng.integers(900, 1200)) | 1
    x, y = randf(rng, n), randf(rng, n)
    out = add[(mf.cdiv(n, 256),)](mxa(x), mxa(y), mf.empty((n,), mx.float32), n, BLOCK=256, num_warps=4)
    close(out, x.astype(np.float64) + y, rtol=1e-6, atol=0)


def test_vector_add_grid_callable(rng):
    n = int(rng.integers(300, 600)) | 1
    x, y = randf(rng, n), randf(rng, n)
    out = add[lambda meta: (mf.cdiv(n, meta["BLOCK"]),)](mxa(x), mxa(y), mf.empty((n,), mx.float32), n,
                                                           BLOCK=256, num_warps=4)
    close(out, x.astype(np.float64) + y, rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", [mx.float32, mx.float16, mx.int8])
def test_vector_accesses_at_any_alignment(rng, dtype):
    """n a multiple of 16 makes `offs < n` constant over groups of 4: packed vector loads and stores,
    here from views that start one element into their buffers (no 16-byte alignment). Any other n:
    the same vectors where the whole run is below n, element by element in the run that straddles it."""
    n = 16 * int(rng.integers(40, 70))
    base = mx.array(rng.integers(-50, 50, size=(2, n + 1))).astype(dtype)
    x, y = base[0, 1:], base[1, 1:]
    out = add[(mf.cdiv(n, 256),)](x, y, mf.empty((n,), dtype), n, BLOCK=256, num_warps=2)
    # MSL; CUDA (the kernel versioned on alignment: these views take its element-wise copy)
    vector = ("mf_v = *((const device packed_", "mf_load_masked(mf_v, ", "mf_v = *reinterpret_cast<const mf_vec<")
    assert any(v in generated(add) for v in vector)
    want = npy(x).astype(np.float64) + npy(y)
    close(out, want.astype(npy(x).dtype), rtol=0, atol=0)
    for odd in (n + 1, n + 3, n + 5):  # the edge at each element of a run of 4
        base = mx.array(rng.integers(-50, 50, size=(2, odd))).astype(dtype)
        out = add[(mf.cdiv(odd, 256),)](base[0], base[1], mf.full((odd,), 99, dtype), odd, BLOCK=256, num_warps=2)
        assert any(v in generated(add) for v in vector) and "[0] : " in generated(add)  # and the edge's elements
        close(out, (npy(base[0]).astype(np.float64) + npy(base[1])).astype(npy(base[0]).dtype), rtol=0, atol=0)


@mf.jit
def masked_double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=-3.0) * 2)


def test_an_edge_loads_all_its_vectors_before_the_elements(rng):
    """Several vectors a thread (16 floats: 4 of 4), n anywhere in a run: the thread's vectors are
    read in one loop with no branch in it (so all are in flight at once), the vector that straddles
    n, or lies past it, then element by element; every element is x * 2 below n and `other` * 2 past
    it, in a buffer that starts at element 1 too."""
    block = 512
    for n in (0, 1, 3, 64 * int(rng.integers(1, 7)) + int(rng.integers(1, 4)), block - 1, block):
        base = mx.array(rng.integers(-50, 50, size=block + 1)).astype(mx.float32)
        for x in (base[:block], base[1:]):
            out = masked_double[(1,)](x, mf.full((block,), 99.0, mx.float32), n, BLOCK=block, num_warps=1)
            want = np.where(np.arange(block) < n, npy(x).astype(np.float64) * 2, -6.0)
            equal(out, want.astype(np.float32))
        if n % 16:  # not specialised as a multiple of 16: an edge
            source = generated(masked_double)
            vectors = loop_body(source, "for (int k")  # the first loop
            assert any(v in vectors for v in ("packed_float4*)", "mf_load_masked(mf_v, ")), vectors
            assert "[0] : " not in vectors and "[0] : " in source[source.index(vectors) + len(vectors):]


@pytest.mark.parametrize("n,width", [(1000, 4), (1002, 4), (1001, 4)])
@pytest.mark.parametrize("dtype", [mx.float16, mx.float32])
def test_vector_accesses_below_sixteen(rng, n, width, dtype):
    """Sizes that are multiples of 8 or 2, or odd, not of 16 (Triton's smallest class): accesses still
    move `width` elements at a time (4 a thread here) where the whole run is below n (`offs < n` is
    true over one range of each run: `AxisInfo.edges`), from views at element 1 too; the results are
    exact."""
    base = mx.array(rng.integers(-50, 50, size=(2, n + 1))).astype(dtype)
    element = "half" if dtype == mx.float16 else "float"
    spelled = (f"packed_{element}{width}", f"mf_vec<{width}, {'__half' if dtype == mx.float16 else 'float'}>")
    for x, y in ((base[0, :n], base[1, :n]), (base[0, 1:], base[1, 1:])):
        out = add[(mf.cdiv(n, 256),)](x, y, mf.empty((n,), dtype), n, BLOCK=256, num_warps=2)
        assert any(v in generated(add) for v in spelled)
        equal(out, (npy(x).astype(np.float64) + npy(y)).astype(npy(x).dtype))


@mf.jit
def wrapped_masks(x_ptr, out_ptr, lo, c, KIND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if KIND == 0:
        mask = (offs - lo).to(tl.uint32) >= c  # wraps at 0: "offs >= lo + c or offs < lo" in one test
    else:
        mask = (offs + lo).to(tl.int8) < c  # wraps at 128
    if KIND == 2:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs), mask=(offs - lo).to(tl.uint32) >= c)
    else:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=-7.0))


@pytest.mark.parametrize("kind,lo,c", [(0, 1, 2), (1, 125, 126), (2, 1, 2)], ids=["unsigned", "narrowed", "store"])
def test_masks_of_wrapping_indices_are_not_taken_for_one_range(kind, lo, c):
    """An index run cast to unsigned, or narrowed, wraps inside a run of 4 (found by an independent
    review of codegen 36): its compare can be true at both ends of a run and false between, so such
    a mask is never an edge: the masked-off elements stay `other` (loads) or untouched (stores)."""
    x = np.arange(128, dtype=np.float32)
    out = np.array(wrapped_masks[(1,)](mx.array(x), mf.full((128,), -1.0, mx.float32), lo, c, KIND=kind, BLOCK=128,
                                       num_warps=1))
    index = np.arange(128)
    keep = (index - lo) % 2 ** 32 >= c if kind != 1 else ((index + lo + 128) % 256) - 128 < c
    assert (out == np.where(keep, x, -1.0 if kind == 2 else -7.0)).all(), np.nonzero(out != np.where(keep, x, -7.0))


@mf.jit
def rows_by_program(x_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # int64 row offsets, as production Triton kernels write them
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + row * tl.multiple_of(stride, 16) + offs, tl.load(x_ptr + row * stride + offs))


def test_scalar_casts_and_multiple_of_keep_divisibility(rng):
    """`program_id(0).to(tl.int64) * stride` and `tl.multiple_of(stride, 16)`: scalar facts that an
    aligned vector needs on CUDA (16-byte accesses of 8 halves); values on the active back end."""
    x = mx.array(rng.standard_normal(3 * 1024).astype(np.float16))
    body = rows_by_program.compile(x, mf.empty((3 * 1024,), mx.float16), 1024, BLOCK=1024, num_warps=4,
                                   target="cuda").body
    assert body.count("reinterpret_cast<const mf_vec<8, __half>*>") == 1 and "mf_vec<8, __half>*>((" in body
    out = rows_by_program[(3,)](x, mf.empty((3 * 1024,), mx.float16), 1024, BLOCK=1024, num_warps=4)
    equal(out, npy(x))


@mf.jit
def block_copy(x_ptr, out_ptr, M, N, om, on, stride, BM: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride, 1), offsets=(om, on), block_shape=(BM, BN), order=(1, 0))
    v = tl.load(p, boundary_check=(0, 1), padding_option="zero")
    q = tl.make_block_ptr(out_ptr, shape=(M, N), strides=(stride, 1), offsets=(om, on), block_shape=(BM, BN),
                          order=(1, 0))
    tl.store(q, v + 1.0, boundary_check=(0, 1))


@pytest.mark.parametrize("m,n,om,on", [(19, 37, -3, -16), (19, 37, 5, 0), (20, 41, -1, 16), (19, 35, 0, -4)])
def test_block_pointer_tiles_move_in_vectors(rng, m, n, om, on):
    """A block pointer's unit stride (`cols * 1`) and its offsets' reshape keep the columns' runs
    contiguous (an independent review found them element by element), and its boundary checks are
    ranges (`0 <= col < N`): vectors where a run is inside, element by element at the edges, at
    negative offsets too; every element of the tile inside the shape written, none outside."""
    stride, bm, bn = 40, 16, 32
    x = rng.standard_normal(m * stride).astype(np.float32)
    out = np.array(block_copy[(1,)](mx.array(x), mf.full((m * stride,), 99.0, mx.float32), m, n, om, on, stride,
                                    BM=bm, BN=bn, num_warps=2))
    want = np.full(m * stride, 99.0, np.float32)
    rows, cols = np.arange(om, om + bm), np.arange(on, on + bn)
    inside = (rows[:, None] >= 0) & (rows[:, None] < m) & (cols[None, :] >= 0) & (cols[None, :] < n)
    at = (rows[:, None] * stride + cols[None, :])[inside]
    want[at] = x[at] + 1.0
    assert (out == want).all(), np.nonzero(out != want)[0][:8]
    assert any(v in generated(block_copy) for v in ("packed_float4", "mf_vec<4, float>"))


# --- row softmax ------------------------------------------------------------------------------
@mf.jit
def softmax(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride + offs, num / den, mask=mask)


def test_softmax(rng):
    rows, cols = int(rng.integers(3, 9)), int(rng.integers(40, 64)) | 1
    x = randf(rng, rows, cols, lo=-5, hi=5)
    out = softmax[(rows,)](mxa(x.reshape(-1)), mf.empty((rows * cols,), mx.float32), cols, cols, BLOCK=64, num_warps=2)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    close(npy(out).reshape(rows, cols), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


# --- layer norm forward (2-D tile: BM rows x BN cols per program) ----------------------------
@mf.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, M, N, eps, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    mean = tl.sum(x, axis=1) / N
    xc = tl.where(mask, x - mean[:, None], 0.0)
    var = tl.sum(xc * xc, axis=1) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=cmask)
    b = tl.load(b_ptr + cols, mask=cmask)
    y = xc * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], y, mask=mask)
    tl.store(mean_ptr + rows, mean, mask=rmask)
    tl.store(rstd_ptr + rows, rstd, mask=rmask)


def test_layernorm(rng):
    M, N = int(rng.integers(9, 30)) | 1, int(rng.integers(33, 64)) | 1
    x, w, b = randf(rng, M, N, lo=-3, hi=3) + 1.0, randf(rng, N), randf(rng, N)
    eps = 1e-5
    y, mean, rstd = layernorm[(mf.cdiv(M, 4),)](
        mxa(x.reshape(-1)), mxa(w), mxa(b), mf.empty((M * N,), mx.float32), mf.empty((M,), mx.float32),
        mf.empty((M,), mx.float32), M, N, eps, BM=4, BN=64, num_warps=4)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1)
    rs = 1 / np.sqrt(x64.var(axis=1) + eps)
    close(mean, mu, rtol=1e-5, atol=1e-6)
    close(rstd, rs, rtol=1e-5, atol=1e-6)
    close(npy(y).reshape(M, N), (x64 - mu[:, None]) * rs[:, None] * w + b, rtol=1e-4, atol=1e-5)


# --- RMS norm (chunked over columns with a runtime-bound loop) --------------------------------
@mf.jit
def rmsnorm(x_ptr, w_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        acc += x * x
    rstd = tl.rsqrt(tl.sum(acc, axis=0) / N + eps)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * N + cols, x * rstd * w, mask=mask)


def test_rmsnorm(rng):
    M, N = int(rng.integers(3, 8)), int(rng.integers(100, 200)) | 1
    x, w = randf(rng, M, N), randf(rng, N)
    eps = 1e-6
    y = rmsnorm[(M,)](mxa(x.reshape(-1)), mxa(w), mf.empty((M * N,), mx.float32), N, eps, BLOCK=64, num_warps=2)
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps) * w
    close(npy(y).reshape(M, N), want, rtol=1e-4, atol=1e-5)


# --- 2-D strided scale with masks on both axes -------------------------------------------------
@mf.jit
def scale2d(x_ptr, out_ptr, M, N, sxm, sxn, som, son, alpha, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask)
    tl.store(out_ptr + rm[:, None] * som + rn[None, :] * son, x * alpha + 1.0, mask=mask)


def test_strided_2d(rng):
    M, N = int(rng.integers(20, 40)) | 1, int(rng.integers(20, 40)) | 1
    base = randf(rng, 2 * M + 1, 3 * N + 2)  # x = base[1::2, 2::3] (shape M x N) through explicit strides
    x_view = base[1::2, 2::3][:M, :N]
    flat = base.reshape(-1)[base.shape[1] + 2:]  # the view starts at base[1, 2]
    alpha = float(rng.uniform(-3, 3))
    # output is transposed in memory: out[i, j] lives at j * M + i
    out = scale2d[(mf.cdiv(M, 16), mf.cdiv(N, 8))](
        mxa(flat), mf.empty((N * M,), mx.float32), M, N, 2 * base.shape[1], 3, 1, M, alpha, BM=16, BN=8, num_warps=2)
    want = x_view.astype(np.float64) * np.float32(alpha) + 1.0
    close(npy(out).reshape(N, M).T, want, rtol=1e-6, atol=1e-6)


# --- 4-bit affine dequantising matvec (MLX's quantized format) --------------------------------
@mf.jit
def qmv(x_ptr, wq_ptr, s_ptr, b_ptr, out_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
        GROUP: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        kmask = ks < K
        mask = rmask[:, None] & kmask[None, :]
        x = tl.load(x_ptr + ks, mask=kmask, other=0.0)
        words = tl.load(wq_ptr + rows[:, None] * (K // 8) + (ks // 8)[None, :], mask=mask, other=0)
        q = (words >> ((ks % 8) * 4)[None, :]) & 0xF
        g = rows[:, None] * (K // GROUP) + (ks // GROUP)[None, :]
        s = tl.load(s_ptr + g, mask=mask, other=0.0)
        b = tl.load(b_ptr + g, mask=mask, other=0.0)
        w = s * q.to(tl.float32) + b
        acc += tl.sum(w * x[None, :], axis=1)
    tl.store(out_ptr + rows, acc, mask=rmask)


def test_quantized_matvec(rng):
    N, K = int(rng.integers(20, 40)) | 1, 64 * 5  # K is not a multiple of BLOCK_K=128: the K mask matters
    w = rng.standard_normal((N, K)).astype(np.float32)
    x = randf(rng, K)
    w_q, scales, biases = mx.quantize(mxa(w), group_size=64, bits=4)
    assert w_q.dtype == mx.uint32 and w_q.shape == (N, K // 8)
    out = qmv[(mf.cdiv(N, 8),)](mxa(x), w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1),
                                mf.empty((N,), mx.float32), N, K, BLOCK_N=8, BLOCK_K=128, GROUP=64, num_warps=4)
    w_deq = npy(mx.dequantize(w_q, scales, biases, group_size=64, bits=4)).astype(np.float64)
    close(out, w_deq @ x.astype(np.float64), rtol=1e-4, atol=1e-4)


# --- single-query decode attention with online softmax ----------------------------------------
@mf.jit
def decode_attention(q_ptr, k_ptr, v_ptr, o_ptr, S, sm_scale, D: tl.constexpr, BLOCK_N: tl.constexpr):
    h = tl.program_id(0)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + h * D + d)
    m_i = tl.full((1,), float("-inf"), tl.float32)
    l_i = tl.zeros((1,), tl.float32)
    acc = tl.zeros((D,), tl.float32)
    for start in range(0, S, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        nmask = n < S
        kv = h * S * D + n[:, None] * D + d[None, :]
        k = tl.load(k_ptr + kv, mask=nmask[:, None], other=0.0)
        s = tl.sum(k * q[None, :], axis=1) * sm_scale
        s = tl.where(nmask, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        v = tl.load(v_ptr + kv, mask=nmask[:, None], other=0.0)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        m_i = m_new
    tl.store(o_ptr + h * D + d, acc / l_i)


def test_decode_attention(rng):
    H, D = 6, 32
    S = int(rng.integers(40, 90)) | 1  # not a multiple of BLOCK_N
    q, k, v = randf(rng, H, D), randf(rng, H, S, D), randf(rng, H, S, D)
    k[0, -1] = q[0] * 0.5  # the maximum score in the last, partial block: earlier blocks must be rescaled
    k[1, 0] = q[1] * 0.5  # ... and in the first block
    sm_scale = 1 / math.sqrt(D)
    out = decode_attention[(H,)](mxa(q.reshape(-1)), mxa(k.reshape(-1)), mxa(v.reshape(-1)),
                                 mf.empty((H * D,), mx.float32), S, sm_scale, D=D, BLOCK_N=16, num_warps=2)
    s = np.einsum("hd,hsd->hs", q.astype(np.float64), k.astype(np.float64)) * sm_scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    close(npy(out).reshape(H, D), np.einsum("hs,hsd->hd", p, v.astype(np.float64)), rtol=1e-4, atol=1e-5)


# --- atomics histogram ------------------------------------------------------------------------
@mf.jit
def histogram(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bins = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + bins, 1, mask=mask)


def test_histogram(rng):
    n, nbins = int(rng.integers(700, 1000)) | 1, 13
    x = rng.integers(0, nbins, size=n).astype(np.int32)
    hist = histogram[(mf.cdiv(n, 128),)](mxa(x), mf.zeros((nbins,), mx.int32), n, BLOCK=128, num_warps=4)
    equal(hist, np.bincount(x, minlength=nbins).astype(np.int32))


# --- cumsum -----------------------------------------------------------------------------------
@mf.jit
def cumsum_1d(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=mask)


def test_cumsum_1d(rng):
    n = int(rng.integers(100, 128)) | 1
    x = randf(rng, n)
    out = cumsum_1d[(1,)](mxa(x), mf.empty((n,), mx.float32), n, BLOCK=128, num_warps=2)
    close(out, np.cumsum(x.astype(np.float64)), rtol=1e-5, atol=1e-4)


@mf.jit
def cumsum_2d(x_ptr, out_ptr, M, N, AXIS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], tl.cumsum(x, axis=AXIS), mask=mask)


@pytest.mark.parametrize("axis", [0, 1])
def test_cumsum_2d(rng, axis):
    M, N = int(rng.integers(9, 16)) | 1, int(rng.integers(17, 32)) | 1
    x = rng.integers(-100, 100, size=(M, N)).astype(np.int32)
    out = cumsum_2d[(1,)](mxa(x.reshape(-1)), mf.empty((M * N,), mx.int32), M, N, AXIS=axis, BM=16, BN=32,
                          num_warps=2)
    equal(npy(out).reshape(M, N), np.cumsum(x, axis=axis).astype(np.int32))


# --- argmax / argmin (first index on ties) -----------------------------------------------------
@mf.jit
def argminmax(x_ptr, imax_ptr, imin_ptr, vmax_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    rmask = rows < M
    mask = rmask[:, None] & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=float("-inf"))
    tl.store(imax_ptr + rows, tl.argmax(x, axis=1), mask=rmask)
    xm = tl.where(mask, x, float("inf"))
    tl.store(imin_ptr + rows, tl.argmin(xm, axis=1), mask=rmask)
    v, i = tl.max(x, axis=1, return_indices=True)
    tl.store(vmax_ptr + rows, v + i.to(tl.float32) * 1000.0, mask=rmask)


def test_argmax_argmin_ties(rng):
    M, N = int(rng.integers(9, 20)) | 1, int(rng.integers(33, 64)) | 1
    x = rng.integers(-4, 5, size=(M, N)).astype(np.float32)  # many ties
    imax, imin, vmax = argminmax[(mf.cdiv(M, 4),)](mxa(x.reshape(-1)), mf.empty((M,), mx.int32),
                                                     mf.empty((M,), mx.int32), mf.empty((M,), mx.float32), M, N,
                                                     BM=4, BN=64, num_warps=2)
    equal(imax, x.argmax(axis=1).astype(np.int32))
    equal(imin, x.argmin(axis=1).astype(np.int32))
    close(vmax, x.max(axis=1) + 1000.0 * x.argmax(axis=1), rtol=0, atol=0)


@mf.jit
def argmax_1d(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=-1e30)
    y = tl.where(mask, x, 1e30)
    tl.store(out_ptr + tl.arange(0, 2), tl.where(tl.arange(0, 2) == 0, tl.argmax(x, axis=0), tl.argmin(y, axis=0)))


def test_argmax_1d(rng):
    n = int(rng.integers(200, 256)) | 1
    x = randf(rng, n)
    x[rng.integers(0, n, size=3)] = 5.0  # tie for the maximum, first index wins
    x[-1] = 5.0
    x[rng.integers(0, n, size=2)] = -5.0  # and for the minimum
    out = argmax_1d[(1,)](mxa(x), mf.empty((2,), mx.int32), n, BLOCK=256, num_warps=4)
    equal(out, np.array([x.argmax(), x.argmin()], dtype=np.int32))


# --- transpose copy ----------------------------------------------------------------------------
@mf.jit
def transpose(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    tile = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N))
    t = tl.trans(tile)  # (BN, BM)
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], t, mask=(rn[:, None] < N) & (rm[None, :] < M))


def test_transpose(rng):
    M, N = int(rng.integers(20, 50)) | 1, int(rng.integers(20, 50)) | 1
    x = randf(rng, M, N)
    out = transpose[(mf.cdiv(M, 16), mf.cdiv(N, 32))](mxa(x.reshape(-1)), mf.empty((N * M,), mx.float32), M, N,
                                                       BM=16, BN=32, num_warps=4)
    equal(npy(out).reshape(N, M), x.T.copy())


# --- a pointer chosen at run time ------------------------------------------------------------------
@mf.jit
def pick_rows(a_ptr, b_ptr, oa_ptr, ob_ptr, n, BLOCK: tl.constexpr):
    """Program 0 doubles a into oa, program 1 doubles b into ob: pointers picked by a runtime `if`."""
    pid = tl.program_id(0)
    src = a_ptr
    dst = oa_ptr
    if pid == 1:
        src = b_ptr
        dst = ob_ptr
    i = tl.arange(0, BLOCK)
    tl.store(dst + i, tl.load(src + i, mask=i < n) * 2.0, mask=i < n)


def test_pointers_chosen_by_a_runtime_if(rng):
    """The chosen input keeps its inputs' const type (MSL won't bind a const input to a non-const
    pointer) and the chosen output stays writable; each program writes its own output."""
    n = int(rng.integers(40, 100)) | 1
    a, b = randf(rng, n), randf(rng, n)
    oa, ob = pick_rows[(2,)](mxa(a), mxa(b), mf.empty((n,), mx.float32), mf.empty((n,), mx.float32), n,
                             BLOCK=128, num_warps=4)
    equal(oa, a * np.float32(2))
    equal(ob, b * np.float32(2))


@mf.jit
def reread_chosen(a_ptr, out_ptr, res_ptr, n, BLOCK: tl.constexpr):
    """Each program doubles a into its part of out, then reads reversed through a pointer a runtime
    `if` chose: program 0 its part of out (other threads' stores: a device fence first), program 1 a."""
    pid = tl.program_id(0)
    i = tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out_ptr + pid * BLOCK + i, tl.load(a_ptr + i, mask=mask) * 2.0, mask=mask)
    src = a_ptr
    if pid == 0:
        src = out_ptr
    tl.store(res_ptr + pid * BLOCK + i, tl.load(src + (n - 1 - i), mask=mask), mask=mask)


def test_a_pointer_that_may_be_an_output_is_fenced(rng):
    """A pointer chosen between an input and an output may read other threads' stores: the load is
    fenced as a load of the output would be."""
    n, block = int(rng.integers(40, 64)) | 1, 64
    a = randf(rng, n)
    out, res = reread_chosen[(2,)](mxa(a), mf.full((2 * block,), float("nan"), mx.float32),
                                   mf.full((2 * block,), float("nan"), mx.float32), n, BLOCK=block, num_warps=2)
    assert any(f in generated(reread_chosen) for f in ("mem_flags::mem_device", "__syncthreads"))
    equal(npy(res)[:n], (a * np.float32(2))[::-1].copy())
    equal(npy(res)[block:block + n], a[::-1].copy())


# --- Philox tl.rand / tl.randn ------------------------------------------------------------------
M32 = 0xFFFFFFFF


def philox_ref(seed: int, offsets: np.ndarray, n_rounds: int = 10) -> tuple[np.ndarray, ...]:
    """Triton's randint4x: Philox4x32 with counter (offset, 0, 0, 0) and key (seed_lo, seed_hi)."""
    A, B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    c0 = offsets.astype(np.int64).astype(np.uint64) & np.uint64(M32)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    s = seed & 0xFFFFFFFFFFFFFFFF
    k0, k1 = np.uint64(s & M32), np.uint64(s >> 32)
    mask = np.uint64(M32)
    for _ in range(n_rounds):
        p_b = B * c2  # < 2**64: exact in uint64
        p_a = A * c0
        c0, c1, c2, c3 = ((p_b >> np.uint64(32)) ^ c1 ^ k0, p_b & mask,
                          (p_a >> np.uint64(32)) ^ c3 ^ k1, p_a & mask)
        k0 = (k0 + np.uint64(0x9E3779B9)) & mask
        k1 = (k1 + np.uint64(0xBB67AE85)) & mask
    return tuple(c.astype(np.uint32) for c in (c0, c1, c2, c3))


def uint_to_uniform_float_ref(x: np.ndarray) -> np.ndarray:
    """Triton's uint_to_uniform_float for 32-bit: bitcast to int32, fold negatives, times a scale (fp32)."""
    i = x.view(np.int32).astype(np.int64)
    i = np.where(i < 0, -i - 1, i)
    return i.astype(np.float32) * np.float32(4.6566127342e-10)


@mf.jit
def rand_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs), mask=offs < n)


@mf.jit
def randn_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.randn(seed, offs), mask=offs < n)


def _rand(kernel, seed: int, n: int) -> np.ndarray:
    return npy(kernel[(mf.cdiv(n, 256),)](mf.empty((n,), mx.float32), seed, n, BLOCK=256, num_warps=4))


def test_rand_matches_triton_philox(rng):
    n = 4099
    seed = int(rng.integers(0, 2**31))
    got = _rand(rand_kernel, seed, n)
    want = uint_to_uniform_float_ref(philox_ref(seed, np.arange(n))[0])
    equal(got, want)


def test_rand_64bit_seed(rng):
    n = 1001
    seed = int(rng.integers(2**32, 2**62))  # an int64 seed: its high word is the second key
    got = _rand(rand_kernel, seed, n)
    equal(got, uint_to_uniform_float_ref(philox_ref(seed, np.arange(n))[0]))


def test_rand_statistics_and_determinism(rng):
    n = 20001
    seed = int(rng.integers(0, 2**31))
    a = _rand(rand_kernel, seed, n)
    assert ((a >= 0) & (a < 1)).all()
    assert abs(a.mean() - 0.5) < 0.02 and abs(a.var() - 1 / 12) < 0.01
    equal(_rand(rand_kernel, seed, n), a)  # same seed and offsets: same numbers
    b = _rand(rand_kernel, seed + 1, n)
    assert (a != b).mean() > 0.99
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.05


def test_randn(rng):
    n = 20001
    seed = int(rng.integers(0, 2**31))
    a = _rand(randn_kernel, seed, n)
    assert np.isfinite(a).all()
    assert abs(a.mean()) < 0.05 and abs(a.var() - 1) < 0.05
    assert abs(((a - a.mean()) ** 3).mean()) < 0.15  # symmetric (6 standard errors)
    equal(_rand(randn_kernel, seed, n), a)
    assert (a != _rand(randn_kernel, seed + 7, n)).mean() > 0.99
    # Box-Muller on the first two Philox words, as Triton's randn
    c = philox_ref(seed, np.arange(n))
    u1 = np.maximum(1e-7, uint_to_uniform_float_ref(c[0]).astype(np.float64))
    u2 = uint_to_uniform_float_ref(c[1]).astype(np.float64)
    close(a, np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * u2), rtol=1e-4, atol=1e-4)


# --- small integers to float -------------------------------------------------------------------------
@mf.jit
def small_ints_to_float(words_ptr, bytes_ptr, signed_ptr, big_ptr, nibbles_ptr, out_ptr, MASK: tl.constexpr,
                        BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    words = tl.load(words_ptr + offs)
    nibbles = (words[:, None] >> (tl.arange(0, 8) * 4)[None, :]) & 15  # a 4-bit weight's bits
    tl.store(nibbles_ptr + offs[:, None] * 8 + tl.arange(0, 8)[None, :], nibbles.to(tl.float32))
    low = (tl.load(big_ptr + offs) & MASK).to(tl.float32)
    unsigned = tl.load(bytes_ptr + offs).to(tl.float32)
    signed = tl.load(signed_ptr + offs).to(tl.float32)
    tl.store(out_ptr + offs, low)
    tl.store(out_ptr + BLOCK + offs, unsigned)
    tl.store(out_ptr + 2 * BLOCK + offs, signed)


def test_small_integers_become_floats_exactly(rng):
    """A quantized weight's unpacked bits, masked int32s, uint8 and int8 become float32 exactly, the
    extremes of each range included (on the GPU: the conversions the 4-bit products dequantise with;
    a bit trick in their place was measured slower on Hopper and removed, docs/benchmarks.md)."""
    block = 64
    words = rng.integers(0, 1 << 32, size=block, dtype=np.uint64).astype(np.uint32)
    words[:2] = (0, 0xFFFFFFFF)
    big = rng.integers(-(1 << 31), 1 << 31, size=block, dtype=np.int64).astype(np.int32)
    big[:2] = (-1, (1 << 23) - 1)
    raw = rng.integers(0, 256, size=block).astype(np.uint8)
    raw[:2] = (0, 255)
    for mask in ((1 << 23) - 1, 1 << 23, -1):
        out = small_ints_to_float[(1,)](mx.array(words), mx.array(raw), mx.array(raw.view(np.int8)), mx.array(big),
                                        mf.full((block, 8), -1.0, mx.float32), mf.full((3 * block,), -1.0, mx.float32),
                                        MASK=mask, BLOCK=block, num_warps=2)
        nibbles = (words[:, None].astype(np.int64) >> (4 * np.arange(8))[None, :]) & 15
        equal(out[0], nibbles.astype(np.float32))
        want = np.concatenate([(big.astype(np.int64) & mask), raw, raw.view(np.int8)]).astype(np.float32)
        equal(out[1], want)


# --- tiles carried across loop iterations ---------------------------------------------------------------
@mf.jit
def prefetched_matvec(x_ptr, w_ptr, s_ptr, out_ptr, N, KW, BLOCK_N: tl.constexpr, W: tl.constexpr):
    """A 4-bit matvec (a scale a word) whose words and scales are loaded one K step ahead: tiles carried
    to the next iteration, then unpacked and broadcast there."""
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    kw = tl.arange(0, W)
    m = (rows < N)[:, None] & (kw < KW)[None, :]
    words = tl.load(w_ptr + rows[:, None] * KW + kw[None, :], mask=m, other=0)
    scale = tl.load(s_ptr + rows[:, None, None] * KW + kw[None, :, None], mask=m[:, :, None], other=0.0).to(tl.float32)
    acc = tl.zeros((BLOCK_N, W), dtype=tl.float32)
    for k0 in range(0, KW, W):
        ahead = k0 + W + kw
        m = (rows < N)[:, None] & (ahead < KW)[None, :]
        words_next = tl.load(w_ptr + rows[:, None] * KW + ahead[None, :], mask=m, other=0)
        scale_next = tl.load(s_ptr + rows[:, None, None] * KW + ahead[None, :, None], mask=m[:, :, None],
                             other=0.0).to(tl.float32)
        c = k0 + kw
        x = tl.load(x_ptr + c[None, :, None] * 8 + tl.arange(0, 8)[None, None, :], mask=(c < KW)[None, :, None],
                    other=0.0)
        q = ((words[:, :, None] >> (tl.arange(0, 8) * 4)[None, None, :]) & 15).to(tl.float32)
        acc += tl.sum(q * scale * x, axis=2)
        words, scale = words_next, scale_next
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < N)


@mf.jit
def carried_word_index(x_ptr, w_ptr, out_ptr, KW, R: tl.constexpr, W: tl.constexpr):
    """Word indices carried across iterations (`kw += W`) and read in two layouts: the words'
    (R, W) and x's (1, W, 8), whose pointers are built from them."""
    rows = tl.arange(0, R)
    kw = tl.arange(0, W)
    acc = tl.zeros((R, W, 8), dtype=tl.float32)
    for k0 in range(0, KW, W):
        words = tl.load(w_ptr + rows[:, None] * KW + kw[None, :], mask=(kw < KW)[None, :], other=0)
        q = ((words[:, :, None] >> (tl.arange(0, 8) * 4)[None, None, :]) & 15).to(tl.float32)
        x = tl.load(x_ptr + kw[None, :, None] * 8 + tl.arange(0, 8)[None, None, :], mask=(kw < KW)[None, :, None],
                    other=0.0)
        acc += q * x
        kw = kw + W
    tl.store(out_ptr + rows, tl.sum(tl.sum(acc, axis=2), axis=1))


def _nibbles(words: np.ndarray) -> np.ndarray:
    return ((words[..., None].astype(np.int64) >> (4 * np.arange(8))) & 15).astype(np.float64)


def test_tiles_loaded_a_step_ahead_keep_their_readers_layout(rng):
    """Words and scales loaded one iteration ahead and carried: each is loaded in the layout its
    broadcast's reader needs (as a tile loaded in the same iteration is), so nothing goes through
    threadgroup memory on either target; the products against float64, rows and words past the
    edges masked (the step past the last one wholly masked: the emulator reports any stray access)."""
    n, kw, w_step = 37, 80, 32
    words = rng.integers(0, 1 << 32, size=(n, kw), dtype=np.uint64).astype(np.uint32)
    scales = rng.uniform(0.5, 1.5, size=(n, kw)).astype(np.float16)
    x = rng.uniform(-1, 1, size=kw * 8).astype(np.float32)
    terms = _nibbles(words) * scales.astype(np.float64)[:, :, None] * x.reshape(kw, 8)[None]
    out = prefetched_matvec[(mf.cdiv(n, 16),)](mx.array(x), mx.array(words.reshape(-1)), mx.array(scales.reshape(-1)),
                                               mf.full((n,), float("nan"), mx.float32), n, kw, BLOCK_N=16, W=w_step,
                                               num_warps=2)
    # q * scale exact in fp32 (4 + 11 bits); times x and kw * 8 additions: (kw * 8 + 2) roundings of 2^-24
    bound = (kw * 8 + 2) * 2.0 ** -24 * np.abs(terms).sum(axis=(1, 2))
    assert (np.abs(npy(out) - terms.sum(axis=(1, 2))) <= bound).all()
    for target in ("msl", "cuda"):
        compiled = prefetched_matvec.compile(mx.zeros((1,)), mx.zeros((1,), mx.uint32), mx.zeros((1,), mx.float16),
                                             mf.empty((n,), mx.float32), n, kw, BLOCK_N=16, W=w_step, num_warps=2,
                                             target=target)
        assert compiled.shared_bytes == 0, target


def test_pointers_built_from_a_carried_index_tile_in_another_layout(rng):
    """x's pointers come from word indices carried across iterations in the words' layout: the
    pointers are computed again where x is loaded, the indices converted as integers (before, the
    compiler failed inside: it tried to move the pointers themselves through threadgroup memory)."""
    rows, kw, w_step = 8, 40, 16
    words = rng.integers(0, 1 << 32, size=(rows, kw), dtype=np.uint64).astype(np.uint32)
    x = rng.uniform(-1, 1, size=kw * 8).astype(np.float32)
    out = carried_word_index[(1,)](mx.array(x), mx.array(words.reshape(-1)), mf.full((rows,), float("nan"), mx.float32),
                                   kw, R=rows, W=w_step, num_warps=1)
    # the words past the row's end are masked; the kernel reads each row's first kw words (row * KW + kw)
    terms = _nibbles(words) * x.reshape(kw, 8)[None]
    bound = (kw * 8 + 2) * 2.0 ** -24 * np.abs(terms).sum(axis=(1, 2))
    assert (np.abs(npy(out) - terms.sum(axis=(1, 2))) <= bound).all()


@mf.jit
def narrow_index_arithmetic(out_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    u8, u16, i8 = o.to(tl.uint8), o.to(tl.uint16), o.to(tl.int8)
    tl.store(out_ptr + o, (u8 - 3).to(tl.float32))
    tl.store(out_ptr + BLOCK + o, (u16 - 3).to(tl.float32))
    tl.store(out_ptr + 2 * BLOCK + o, (~u8).to(tl.float32))
    tl.store(out_ptr + 3 * BLOCK + o, (i8 + 100).to(tl.float32))
    tl.store(out_ptr + 4 * BLOCK + o, (u8 * 8).to(tl.float32))
    tl.store(out_ptr + 5 * BLOCK + o, ((i8 - 64 - 64) // -1).to(tl.float32))  # -128 / -1 wraps to -128


def test_narrow_integer_index_arithmetic_wraps():
    """uint8, uint16 and int8 arithmetic on index tiles (recomputed where read, as one C expression,
    in which C promotes them to int) wraps at the type's width, as Triton's does: `u8 - 3` at 0 is
    253, not -3 (found by an independent review of codegen 40, whose bits-to-float rewrite would have
    turned the -3 into a NaN)."""
    block = 64
    out = narrow_index_arithmetic[(1,)](mf.full((6 * block,), -1.0, mx.float32), BLOCK=block, num_warps=1)
    o = np.arange(block)
    below = (o - 128).astype(np.int8).astype(np.int64)  # -128 .. -65
    want = np.concatenate([o.astype(np.uint8) - np.uint8(3), o.astype(np.uint16) - np.uint16(3), ~o.astype(np.uint8),
                           (o + 100).astype(np.int64).astype(np.int8), (o * 8).astype(np.uint8),
                           (-below).astype(np.int8)]).astype(np.float32)
    equal(out, want)


@mf.jit
def narrow_min_max(y_ptr, out_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    y = tl.load(y_ptr + o)
    x = o.to(y.dtype)  # an index tile: recomputed where it is read, so `x & 45` is one C expression there
    tl.store(out_ptr + o, tl.minimum(y, x & 45))
    tl.store(out_ptr + BLOCK + o, tl.maximum(x ^ 7, y))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16"])
def test_narrow_min_max_of_bitwise_results(rng, dtype):
    """tl.minimum / tl.maximum of a narrow tile and a bitwise result recomputed where it is read (one
    C expression, computed in int) compile and match numpy: Metal has no min(short, int), so the MSL
    failed to compile (found by test_properties.py's random integer expressions)."""
    t = getattr(np, dtype)
    info = np.iinfo(t)
    block = 64
    y = rng.integers(info.min, info.max, size=block, endpoint=True, dtype=np.int64).astype(t)
    y[:2] = (info.min, info.max)
    x = np.arange(block).astype(t)
    out = narrow_min_max[(1,)](mx.array(y), mf.full((2 * block,), info.max // 3, getattr(mx, dtype)), BLOCK=block,
                               num_warps=1)
    equal(out, np.concatenate([np.minimum(y, x & t(45)), np.maximum(x ^ t(7), y)]))


def test_the_cuda_of_narrow_arithmetic_compiles():
    """What codegen 42 spells on CUDA (casts back to 8 and 16 bits inside recomputed expressions)
    compiles with NVRTC as MLX compiles a kernel (no GPU here to run it)."""
    from ..codegen.nvrtc import nvrtc_missing, to_ptx
    from ..codegen.test_cuda_render import compiled_source
    if nvrtc_missing() is not None:
        pytest.skip(nvrtc_missing())
    narrow = narrow_index_arithmetic.compile(mf.full((320,), -1.0, mx.float32), BLOCK=64, num_warps=1, target="cuda")
    assert "static_cast<uint8_t>(" in narrow.body
    assert ".entry" in to_ptx(compiled_source(narrow))


@mf.jit
def advance_then_store(x_ptr, o_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    xs = x_ptr + offs
    os = o_ptr + offs
    for i in range(STEPS):
        acc += tl.load(xs, mask=offs + i * BLOCK < n, other=0.0)
        xs += BLOCK
        os += BLOCK
    tl.store(os - BLOCK, acc, mask=offs < n - (STEPS - 1) * BLOCK)


def test_pointers_a_loop_advances_keep_their_arguments(rng):
    """A pointer a loop carries, used after the loop, points into its own argument: the loop's
    result was taken for the first pointer the loop carries (here x_ptr), so this store was refused
    as a write to an input, and fences and atomics could treat an output as an input."""
    n, block, steps = 50, 16, 4
    x = randf(rng, n)
    out = advance_then_store[(1,)](mxa(x), mf.full((steps * block,), -1.0), n, STEPS=steps, BLOCK=block)
    want = np.full(steps * block, -1.0, np.float32)
    sums = np.zeros(block, np.float32)
    for i in range(steps):
        chunk = x[i * block:(i + 1) * block]
        sums[:len(chunk)] += chunk
    want[(steps - 1) * block:(steps - 1) * block + n - (steps - 1) * block] = sums[:n - (steps - 1) * block]
    close(npy(out), want, rtol=0, atol=1.5e-6)  # 3 float32 additions of |x| <= 2, any order: 3 * 2^-24 * 8


@mf.jit
def advance_in_a_while_loop(x_ptr, o_ptr, trips, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = x_ptr + offs
    acc = tl.zeros((BLOCK,), tl.float32)
    i = 0
    while i < trips:
        acc += tl.load(p)
        p += BLOCK
        i += 1
    tl.store(o_ptr + offs, acc + tl.load(p))


def test_a_pointer_a_while_loop_advances_keeps_its_type(rng):
    """The pointer a while loop's body advances is declared with its argument's type (const, in its
    address space): it was declared `device float*` from no argument, which Metal refuses for a
    pointer into an input (found by test_properties.py's random loops carrying pointers)."""
    block, trips = 8, 3
    x = randf(rng, block * (trips + 1))
    out = advance_in_a_while_loop[(1,)](mxa(x), mf.full((block,), -1.0), trips, BLOCK=block)
    want = x.reshape(trips + 1, block).sum(axis=0, dtype=np.float32)  # the same order: acc then the last row
    close(npy(out), want, rtol=0, atol=4 * 2.0 ** -24 * 8)  # 3 additions of |x| <= 2 each, any order


@mf.jit
def clipped_ratio(a_ptr, out_ptr, k, slot, N, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + i, mask=i < N, other=1)
    tl.store(out_ptr + i, tl.minimum(a, k) / a + slot, mask=i < N)


@pytest.mark.parametrize("num_warps", [1, 2])
def test_parameters_named_like_the_slot_index_are_not_shadowed(rng, num_warps):
    """A parameter named `k` (the slot loops' index) read inside a slot loop: the loop's index took its
    place (`metal::min(t, k)` with k the loop counter), a silent wrong result; `slot` (the index's next
    name) too."""
    n, block = 157, 128  # 2-4 slots a thread
    a = rng.integers(1, 9, size=n).astype(np.int8) * rng.choice([-1, 1], size=n).astype(np.int8)
    for k in (2, 3):
        out = clipped_ratio[(mf.cdiv(n, block),)](mxa(a), mf.empty((n,), mx.float32), k, 0.5, n, BLOCK=block,
                                                  num_warps=num_warps)
        want = (np.minimum(a.astype(np.int32), k) / a.astype(np.float64) + 0.5).astype(np.float32)
        close(out, want, rtol=0, atol=2.0 ** -21)  # in (0.5, 1.5]: a 2-ulp division, one rounding of the sum


@mf.jit
def copy_up_to(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mf_v = n - 1  # a user's name in metalforge's prefix: the vector load's own local is also `mf_v`
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs <= mf_v, other=0.0) * 2, mask=offs <= mf_v)


def test_a_variable_in_metalforge_s_prefix_is_not_shadowed(rng):
    n = 157
    x = randf(rng, n)
    out = copy_up_to[(mf.cdiv(n, 64),)](mxa(x), mf.full((n,), 7.0, mx.float32), n, BLOCK=64, num_warps=1)
    equal(out, x * 2)
