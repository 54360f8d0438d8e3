"""Affine dequantising products in MLX's quantized format (`mx.quantize(W, group_size, bits)`): each
uint32 of `w_q` packs 32 / BITS weights along K, lowest bits first; weight = scale * q + bias per
group of `GROUP` along K. Bits 2, 4 and 8 (those that fill a word exactly). A decode-time LLM layer
is the matrix-vector product (`qmv`); a prefill is the matrix product (`qmm`), which dequantises
each weight tile into the input's dtype and multiplies it with `tl.dot`."""
from __future__ import annotations

import math
from typing import Callable, NamedTuple, Optional

import mlx.core as mx

from .. import language as tl
from ..autotune import Config, Space, autotune
from ..launcher import Launch, cdiv, empty, jit, lacking
from ..runtime.signature import MAX_CONSTANT_ARRAY_SIZE
from . import register
from .matmul import load_tile, output_tile

BITS = (2, 4, 8)


def _weights(n: int, k: int, group: int, bits: int, dtype: mx.Dtype) -> tuple[mx.array, mx.array, mx.array]:
    w_q, scales, biases = mx.quantize(mx.random.normal((n, k)), group_size=group, bits=bits)
    return w_q.reshape(-1), scales.astype(dtype).reshape(-1), biases.astype(dtype).reshape(-1)


def _tune_args(shape: tuple, dtype: mx.Dtype):
    n, k, bits, group = (*shape, 4, 64) if len(shape) == 2 else shape
    x = mx.random.normal((k,)).astype(dtype)
    grid = lambda meta: (cdiv(n, meta["BLOCK_N"]),)  # noqa: E731
    return grid, (x, *_weights(n, k, group, bits, dtype), empty((n,), dtype), n, k, group, bits)


def _tune_shape(named: dict) -> tuple:
    """(N, K) for MLX's default 4-bit g64, else (N, K, bits, group): what `_tune_args` takes."""
    n, k, bits, group = named["N"], named["K"], named["BITS"], named["GROUP"]
    return (n, k) if (bits, group) == (4, 64) else (n, k, bits, group)


def _reference(x, w_q, scales, biases, out, n, k, group, bits, *meta):
    return reference(x, w_q.reshape(n, -1), scales.reshape(n, -1), biases.reshape(n, -1), group, bits, stream=None)


@jit
def dequantized_rows(wq_ptr, scales_ptr, biases_ptr, rows, k0, N, K, GROUP: tl.constexpr, BITS: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    """Weights k0 .. k0 + BLOCK_K of `rows`, dequantised in fp32 as a (rows, BLOCK_K / PER_WORD,
    PER_WORD) tile, with the word indices and which of them are inside the row. Each packed word
    is loaded once (a run of 4 neighbouring words a thread, one 16-byte access) and unpacked in
    registers along the last axis (`words[:, :, None] >> shifts`, a broadcast in the thread's own
    registers); the scale and bias, loaded in that tile's layout, once per thread's run of words."""
    PER_WORD: tl.constexpr = 32 // BITS
    kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    # whole groups in or out, so constant over a thread's words (which stay one vector: a row of
    # K // PER_WORD words starts at a multiple of GROUP // PER_WORD, aligned for it)
    k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    mask = (rows < N)[:, None] & k_ok[None, :]
    words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    return q * scale + bias, kw, k_ok


@jit
def x_words(x_ptr, norm_ptr, kw, k_ok, BITS: tl.constexpr, NORM: tl.constexpr):
    """x at the word indices `kw` of a dequantised tile, in its (1, words, PER_WORD) layout (loaded
    once a thread for all its rows), in fp32; times an RMS norm's weights where NORM (the norm's
    1 / rms, one factor for the whole row, is applied to the sums: `inverse_rms`)."""
    PER_WORD: tl.constexpr = 32 // BITS
    offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
    x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
    if NORM:
        x = x * tl.load(norm_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
    return x


@jit
def inverse_rms(x_ptr, K, eps, BLOCK_K: tl.constexpr):
    """1 / sqrt(mean(x^2) + eps) over x's K elements, as `mx.fast.rms_norm` computes it (fp32): a
    product with an RMS norm before it multiplies its sums by this, so the norm is no launch of its
    own. Each program reads x once more for it (from L2: K elements, against the BLOCK_N * K / 2
    bytes of 4-bit weights it streams)."""
    squares = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + k, mask=k < K, other=0.0).to(tl.float32)
        squares += x * x
    return 1.0 / tl.sqrt(tl.sum(squares, axis=0) / K + eps)


def qmv_default(named: dict) -> Config:
    """The untuned qmv config for N rows. 512 weights of a row a step, 16 lanes a row (a lane: 4
    words, one 16-byte load), 4 simdgroups: where N allows, 4 rows a thread sharing its x (32 rows
    a program: 448 programs at N = 14336, 72 registers a thread on sm_90); below 8192 rows, 1 row a
    thread (8 a program, 512 programs at N = 4096), so that a smaller layer still spreads over
    several programs per multiprocessor, and 1024 weights a step where the rows are long
    (`long_rows`): more bytes in flight per thread. On the H100 at the 8B decode shapes
    (benchmarks/decode_configs.py, docs/models.md) that took the 4096-row products from 14.3 to 13.5 us
    (q/k/v, K = 4096) and 24.3 to 21.9 us (down, K = 14336)."""
    wide = named["N"] >= 8192
    return Config({"BLOCK_N": 32 if wide else 8, "BLOCK_K": 1024 if not wide and long_rows(named["K"]) else 512},
                  num_warps=4)


def long_rows(k: int) -> bool:
    """Rows of K weights that a 1024-wide step divides and crosses at least four times."""
    return k >= 4096 and k % 1024 == 0


@jit
def qmv_rows(x_ptr, norm_ptr, inv_rms, wq_ptr, scales_ptr, biases_ptr, out_ptr, add_ptr, block, N, K,
             GROUP: tl.constexpr, BITS: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
             NORM: tl.constexpr, ADD: tl.constexpr):
    """Rows block * BLOCK_N .. + BLOCK_N of W x into out (of W rms_norm(x) where NORM: `x_words`,
    with `inv_rms` its factor; plus add_ptr's rows where ADD: a residual or a projection's bias,
    added to the fp32 sums so that the output is rounded once). Each step dequantises a (BLOCK_N, BLOCK_K) block of rows in
    registers (`dequantized_rows`) and multiplies it with x loaded in that tile's layout, so nothing
    goes through threadgroup memory. Each thread sums its products across the K loop; one
    simdgroup reduction per row at the end (no barrier: simdgroups own rows)."""
    PER_WORD: tl.constexpr = 32 // BITS
    rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        w, kw, k_ok = dequantized_rows(wq_ptr, scales_ptr, biases_ptr, rows, k0, N, K, GROUP, BITS, BLOCK_K)
        acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
    y = tl.sum(acc, axis=1) * inv_rms
    if ADD:
        y = y + tl.load(add_ptr + rows, mask=rows < N, other=0.0).to(tl.float32)
    tl.store(out_ptr + rows, y, mask=rows < N)


@register
@autotune(space=Space({"BLOCK_N": [4, 8, 16, 32], "BLOCK_K": [256, 512, 1024], "num_warps": [2, 4]}),
          key=["N", "K", "GROUP", "BITS"], reference=_reference, tune_args=_tune_args, tune_shape=_tune_shape,
          default=qmv_default, shapes=[(256, 1024)], shape_ranks=[4], dtypes=[mx.float16],
          rtol=1e-2, atol=1e-2)  # fp16 output of a K-long fp32 sum
@jit
def qmv_kernel(x_ptr, wq_ptr, scales_ptr, biases_ptr, out_ptr, N, K, GROUP: tl.constexpr, BITS: tl.constexpr,
               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, res_ptr=0, RESIDUAL: tl.constexpr = False):
    """W x, BLOCK_N rows a program (`qmv_rows`); with RESIDUAL, W x + residual (a transformer block's
    output projection and its residual add in one launch)."""
    qmv_rows(x_ptr, x_ptr, 1.0, wq_ptr, scales_ptr, biases_ptr, out_ptr, res_ptr, tl.program_id(0), N, K, GROUP, BITS,
             BLOCK_N, BLOCK_K, False, RESIDUAL)


def _qkv_tune_args(shape: tuple, dtype: mx.Dtype):
    nq, nkv, k, bits, group = (*shape, 4, 64) if len(shape) == 3 else shape
    x = mx.random.normal((k,)).astype(dtype)
    weights = [w for n in (nq, nkv, nkv) for w in _weights(n, k, group, bits, dtype)]
    outputs = [empty((n,), dtype) for n in (nq, nkv, nkv)]
    return qkv_grid(nq, nkv), (x, *weights, *outputs, nq, nkv, k, group, bits)


def _qkv_tune_shape(named: dict) -> tuple:
    """(NQ, NKV, K) for 4-bit g64, else (NQ, NKV, K, bits, group): what `_qkv_tune_args` takes."""
    nq, nkv, k, bits, group = named["NQ"], named["NKV"], named["K"], named["BITS"], named["GROUP"]
    return (nq, nkv, k) if (bits, group) == (4, 64) else (nq, nkv, k, bits, group)


def _qkv_reference(x, wq, sq, bq, wk, sk, bk, wv, sv, bv, q, k, v, nq, nkv, kk, group, bits, *meta):
    return tuple(reference(x, w.reshape(n, -1), s.reshape(n, -1), b.reshape(n, -1), group, bits, stream=None)
                 for w, s, b, n in ((wq, sq, bq, nq), (wk, sk, bk, nkv), (wv, sv, bv, nkv)))


def qmv_qkv_default(named: dict) -> Config:
    """The untuned config: qmv's for the query rows (the most of the three)."""
    return qmv_default({"N": named["NQ"], "K": named["K"]})


def qkv_grid(nq: int, nkv: int) -> Callable[[dict], tuple]:
    """The launch grid of qmv_qkv: the query rows' blocks, then the keys', then the values'."""
    return lambda meta: (cdiv(nq, meta["BLOCK_N"]) + 2 * cdiv(nkv, meta["BLOCK_N"]),)


@jit
def qmv_rotated_rows(x_ptr, norm_ptr, inv_rms, wq_ptr, scales_ptr, biases_ptr, out_ptr, block, N, K, offset, pos_scale,
                     log_base, GROUP: tl.constexpr, BITS: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     HALF: tl.constexpr, TRADITIONAL: tl.constexpr, NORM: tl.constexpr, bias_ptr, BIAS: tl.constexpr):
    """As qmv_rows, BLOCK_N // 2 pairs of rows a program, each pair (plus its projection bias where
    BIAS) rotated by RoPE at position `offset` (heads of 2 * HALF rows; the pair (i, i + HALF) of a
    head, or (2i, 2i + 1) where TRADITIONAL; angle offset * pos_scale * base^(-i / HALF), as
    rope_kernel computes it) before it is stored."""
    PER_WORD: tl.constexpr = 32 // BITS
    pair = block * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
    i = pair % HALF
    first = (pair // HALF) * (2 * HALF) + i
    partner = HALF
    if TRADITIONAL:
        first = (pair // HALF) * (2 * HALF) + 2 * i
        partner = 1
    acc1 = tl.zeros((BLOCK_N // 2, BLOCK_K // PER_WORD), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_N // 2, BLOCK_K // PER_WORD), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        w1, kw, k_ok = dequantized_rows(wq_ptr, scales_ptr, biases_ptr, first, k0, N, K, GROUP, BITS, BLOCK_K)
        w2, kw, k_ok = dequantized_rows(wq_ptr, scales_ptr, biases_ptr, first + partner, k0, N, K, GROUP, BITS,
                                        BLOCK_K)
        x = x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM)
        acc1 += tl.sum(w1 * x, axis=2)
        acc2 += tl.sum(w2 * x, axis=2)
    y1 = tl.sum(acc1, axis=1) * inv_rms
    y2 = tl.sum(acc2, axis=1) * inv_rms
    if BIAS:
        y1 = y1 + tl.load(bias_ptr + first, mask=first < N, other=0.0).to(tl.float32)
        y2 = y2 + tl.load(bias_ptr + first + partner, mask=first < N, other=0.0).to(tl.float32)
    theta = (offset.to(tl.float32) * pos_scale) * tl.exp(i.to(tl.float32) * (-log_base / HALF))
    c = tl.cos(theta)
    s = tl.sin(theta)
    ok = first < N
    tl.store(out_ptr + first, y1 * c - y2 * s, mask=ok)
    tl.store(out_ptr + first + partner, y1 * s + y2 * c, mask=ok)


@register
@autotune(space=Space({"BLOCK_N": [4, 8, 16, 32], "BLOCK_K": [256, 512, 1024], "num_warps": [2, 4]}),
          key=["NQ", "NKV", "K", "GROUP", "BITS"], reference=_qkv_reference, tune_args=_qkv_tune_args,
          tune_shape=_qkv_tune_shape, default=qmv_qkv_default, shapes=[(256, 64, 1024)], shape_ranks=[5],
          dtypes=[mx.float16], rtol=1e-2, atol=1e-2)  # as qmv
@jit(do_not_specialize=["offset"])  # a token's position: one compile for every step of a generation
def qmv_qkv_kernel(x_ptr, wq_ptr, sq_ptr, bq_ptr, wk_ptr, sk_ptr, bk_ptr, wv_ptr, sv_ptr, bv_ptr, q_ptr, k_ptr, v_ptr,
                   NQ, NKV, K, GROUP: tl.constexpr, BITS: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, offset=0, pos_scale=1.0, log_base=0.0, HALF: tl.constexpr = 1,
                   ROPE: tl.constexpr = False, TRADITIONAL: tl.constexpr = False, norm_ptr=0, eps=0.0,
                   NORM: tl.constexpr = False, qb_ptr=0, kb_ptr=0, vb_ptr=0, BIAS: tl.constexpr = False):
    """An attention layer's three projections of one row at a decode step in one launch (three
    launches' host time is what a decode step is bound by): the first programs take the query
    rows, the next the keys', the last the values', each as qmv takes its rows. With ROPE, the
    queries and keys come out rotated for the token at position `offset` (`qmv_rotated_rows`): the two
    RoPE launches that follow the projections are saved too (the config is qmv_qkv's, tuned
    without rotation). With NORM, the products are of rms_norm(x) (weights at norm_ptr, `eps`): the
    block's input norm, one launch fewer again. With BIAS, each product plus its projection's bias
    (qb_ptr, kb_ptr, vb_ptr; Qwen2's), before the rotation: three additions fewer, and the rotation
    stays in this launch."""
    block = tl.program_id(0)
    q_blocks = tl.cdiv(NQ, BLOCK_N)
    kv_blocks = tl.cdiv(NKV, BLOCK_N)
    inv_rms = 1.0
    if NORM:
        inv_rms = inverse_rms(x_ptr, K, eps, BLOCK_K)
    if block < q_blocks:
        if ROPE:
            qmv_rotated_rows(x_ptr, norm_ptr, inv_rms, wq_ptr, sq_ptr, bq_ptr, q_ptr, block, NQ, K, offset, pos_scale,
                             log_base, GROUP, BITS, BLOCK_N, BLOCK_K, HALF, TRADITIONAL, NORM, qb_ptr, BIAS)
        else:
            qmv_rows(x_ptr, norm_ptr, inv_rms, wq_ptr, sq_ptr, bq_ptr, q_ptr, qb_ptr, block, NQ, K, GROUP, BITS,
                     BLOCK_N, BLOCK_K, NORM, BIAS)
    elif block < q_blocks + kv_blocks:
        if ROPE:
            qmv_rotated_rows(x_ptr, norm_ptr, inv_rms, wk_ptr, sk_ptr, bk_ptr, k_ptr, block - q_blocks, NKV, K, offset,
                             pos_scale, log_base, GROUP, BITS, BLOCK_N, BLOCK_K, HALF, TRADITIONAL, NORM, kb_ptr, BIAS)
        else:
            qmv_rows(x_ptr, norm_ptr, inv_rms, wk_ptr, sk_ptr, bk_ptr, k_ptr, kb_ptr, block - q_blocks, NKV, K, GROUP,
                     BITS, BLOCK_N, BLOCK_K, NORM, BIAS)
    else:
        qmv_rows(x_ptr, norm_ptr, inv_rms, wv_ptr, sv_ptr, bv_ptr, v_ptr, vb_ptr, block - q_blocks - kv_blocks, NKV, K,
                 GROUP, BITS, BLOCK_N, BLOCK_K, NORM, BIAS)


def _swiglu_tune_args(shape: tuple, dtype: mx.Dtype):
    grid, (x, *gate, out, n, k, group, bits) = _tune_args(shape, dtype)
    return grid, (x, *gate, *_weights(n, k, group, bits, dtype), out, n, k, group, bits)


def _swiglu_reference(x, wg, sg, bg, wu, su, bu, out, n, k, group, bits, *meta):
    return swiglu_reference(x, (wg.reshape(n, -1), sg.reshape(n, -1), bg.reshape(n, -1)),
                            (wu.reshape(n, -1), su.reshape(n, -1), bu.reshape(n, -1)), group, bits, stream=None)


def qmv_swiglu_default(named: dict) -> Config:
    """The untuned config: qmv's, with half its rows a program where it gives a thread 4 (each row is
    two products here), and long rows 1024 weights a step (43.2 -> 37.2 us at 2 x 14336 x 4096 on
    the H100: docs/models.md)."""
    config = qmv_default(named)
    block_k = 1024 if long_rows(named["K"]) else config.kwargs["BLOCK_K"]
    return Config({**config.kwargs, "BLOCK_N": min(config.kwargs["BLOCK_N"], 16), "BLOCK_K": block_k},
                  num_warps=config.num_warps)


@register
@autotune(space=Space({"BLOCK_N": [4, 8, 16, 32], "BLOCK_K": [256, 512, 1024], "num_warps": [2, 4]}),
          key=["N", "K", "GROUP", "BITS"], reference=_swiglu_reference, tune_args=_swiglu_tune_args,
          tune_shape=_tune_shape, default=qmv_swiglu_default, shapes=[(256, 1024)], shape_ranks=[4],
          dtypes=[mx.float16], rtol=1e-2, atol=1e-2)  # as qmv
@jit
def qmv_swiglu_kernel(x_ptr, wg_ptr, sg_ptr, bg_ptr, wu_ptr, su_ptr, bu_ptr, out_ptr, N, K, GROUP: tl.constexpr,
                      BITS: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, norm_ptr=0, eps=0.0,
                      NORM: tl.constexpr = False):
    """silu(W_g x) * (W_u x), a gated MLP's hidden activations at a decode step, in one launch: each
    program takes the same rows of both weights, as qmv takes one's, so x is loaded once for both
    and the activation is applied to the fp32 sums (MLX rounds both products to fp16 first). With
    NORM, of rms_norm(x) (weights at norm_ptr, `eps`): the block's norm before its MLP."""
    PER_WORD: tl.constexpr = 32 // BITS
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    gate = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
    up = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        wg, kw, k_ok = dequantized_rows(wg_ptr, sg_ptr, bg_ptr, rows, k0, N, K, GROUP, BITS, BLOCK_K)
        wu, kw, k_ok = dequantized_rows(wu_ptr, su_ptr, bu_ptr, rows, k0, N, K, GROUP, BITS, BLOCK_K)
        x = x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM)
        gate += tl.sum(wg * x, axis=2)
        up += tl.sum(wu * x, axis=2)
    g = tl.sum(gate, axis=1)
    u = tl.sum(up, axis=1)
    if NORM:
        inv_rms = inverse_rms(x_ptr, K, eps, BLOCK_K)
        g = g * inv_rms
        u = u * inv_rms
    tl.store(out_ptr + rows, g * tl.sigmoid(g) * u, mask=rows < N)


def qmm_default(m: int, dtype: mx.Dtype, wgmma: bool = False) -> Config:
    """The untuned qmm config: 128 weight rows by 64 of K a step on 4 warps for 2-byte inputs, 32 of K
    for fp32 (the staged x and dequantised W tiles within Metal's 32 KiB of threadgroup memory:
    27648 bytes either way, the compiler's `shared_bytes`), 64 rows of x, fewer where M is smaller.
    Every config of the space (and 2 stages) at the Llama-3-8B prefill (M = 512, 4-bit g64 fp16) on
    an H100, 2026-12-06 (benchmarks/decode_configs.py): 512x14336x4096 893.6 us at the default before
    (32 x 64 x 32), 330.1 at this one, 328.8 the fastest (the same tile in two stages), MLX 476.8;
    512x4096x4096 283.8, 99.2, 98.6, MLX 136.5.

    Where the back end has Hopper's wgmma (`wgmma`) and M >= 128 in 2-byte inputs: 128 x 128 x 64 on
    8 warps (two warpgroups) in two stages, on wgmma (H100, 2026-12-06, benchmarks/wgmma_probe.py:
    512x14336x4096 219.1 us against 313.6 at the tile above and 253.7 at this one on mma.sync, MLX
    438.4; 512x8960x1536 65.8 against 75.7, MLX 92.1)."""
    if wgmma and dtype.size == 2 and m >= 128:
        return Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=2, wgmma=True)
    rows = min(64, max(16, 1 << (max(int(m), 1) - 1).bit_length()))
    return Config({"BLOCK_M": rows, "BLOCK_N": 128, "BLOCK_K": 64 if dtype.size <= 2 else 32}, num_warps=4)


def qmm_grid(m: int, n: int) -> Callable[[dict], tuple]:
    """The launch grid of qmm: (row tiles, column tiles), for any tile size the tuner picks."""
    return lambda meta: (cdiv(m, meta["BLOCK_M"]), cdiv(n, meta["BLOCK_N"]))


def _qmm_tune_args(shape: tuple, dtype: mx.Dtype):
    m, n, k, bits, group = (*shape, 4, 64) if len(shape) == 3 else shape
    x = mx.random.normal((m, k)).astype(dtype)
    return qmm_grid(m, n), (x, *_weights(n, k, group, bits, dtype), empty((m, n), dtype), m, n, k, group, bits)


def _qmm_tune_shape(named: dict) -> tuple:
    """(M, N, K) for 4-bit g64, else (M, N, K, bits, group): what `_qmm_tune_args` takes."""
    m, n, k, bits, group = named["M"], named["N"], named["K"], named["BITS"], named["GROUP"]
    return (m, n, k) if (bits, group) == (4, 64) else (m, n, k, bits, group)


def _qmm_reference(x, w_q, scales, biases, out, m, n, k, group, bits, *meta):
    return reference(x, w_q.reshape(n, -1), scales.reshape(n, -1), biases.reshape(n, -1), group, bits, stream=None,
                     weights_in_x_dtype=True)


QMM_SPACE = Space({"BLOCK_M": [16, 32, 64, 128], "BLOCK_N": [32, 64, 128], "BLOCK_K": [32, 64], "num_warps": [2, 4, 8],
                   "num_stages": [1, 2], "wgmma": [False, True]})


def _qmm_config(named: dict) -> Config:
    return qmm_default(named["M"], named["x_ptr"].dtype, not lacking(named.get("backend"))("wgmma"))


@jit
def qmm_product(x_ptr, wq_ptr, scales_ptr, biases_ptr, rm, rn, k_lo, k_hi, M, N, K, GROUP: tl.constexpr,
                BITS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """x[rm, k_lo:k_hi] @ W[rn, k_lo:k_hi]^T in fp32 (k_lo a multiple of BLOCK_K and of GROUP), W^T's
    (BLOCK_K, BLOCK_N) blocks dequantised into x's dtype (`weights_t`)."""
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = load_tile(x_ptr, rm, rk, M, K)
        acc = tl.dot(a, weights_t(a, wq_ptr, scales_ptr, biases_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), acc)
    return acc


@jit
def weights_t(a, wq_ptr, scales_ptr, biases_ptr, rn, k0, N, K, GROUP: tl.constexpr, BITS: tl.constexpr,
              BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """W[rn, k0:k0 + BLOCK_K]^T, the right operand of a `tl.dot` with the x tile `a`: the rows
    dequantised in fp32 (`dequantized_rows`: each packed word loaded once), rounded to a's dtype
    (as MLX's kernels do)."""
    w, _, _ = dequantized_rows(wq_ptr, scales_ptr, biases_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_K)
    return tl.trans(tl.reshape(w, (BLOCK_N, BLOCK_K)).to(a.dtype))


@register
@autotune(space=QMM_SPACE, key=["M", "N", "K", "GROUP", "BITS"], reference=_qmm_reference, default=_qmm_config,
          tune_args=_qmm_tune_args, tune_shape=_qmm_tune_shape, shapes=[(64, 256, 1024)], shape_ranks=[5],
          dtypes=[mx.float16], rtol=1e-2, atol=1e-2)  # fp16 weights and output of a K-long fp32 sum
@jit
def qmm_kernel(x_ptr, wq_ptr, scales_ptr, biases_ptr, out_ptr, M, N, K, GROUP: tl.constexpr, BITS: tl.constexpr,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """out (M, N) = x (M, K) @ W^T (`qmm_product`), in x's dtype."""
    rm, rn = output_tile(BLOCK_M, BLOCK_N)
    acc = qmm_product(x_ptr, wq_ptr, scales_ptr, biases_ptr, rm, rn, 0, K, M, N, K, GROUP, BITS, BLOCK_M, BLOCK_N,
                      BLOCK_K)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


# A product of few output tiles and a long K (Qwen2-1.5B's prefill: 512 x 1536 at 128 x 128 is 48 tiles,
# a third of an H100's 132 SMs, down_proj's K 8960) is cut along K into ranges of at least MIN_SPLIT_K,
# doubling their count until there are MIN_PROGRAMS programs (`qmm_partial_kernel`, then a sum). H100,
# 2026-12-06 (benchmarks/wgmma_probe.py --qmm-only, the untuned wgmma tile): 512x1536x8960 60.8 us whole,
# 57.7 / 55.7 / 62.7 in 2 / 4 / 8 ranges; 512x1536x1536 13.8 whole, 18.1 in 2 (the partials' sum, two
# more launches, costs more than the short K saves); 512x4096x14336 (128 tiles) 185.5 whole, 198.0 in 2.
MIN_PROGRAMS = 128
MIN_SPLIT_K = 2048
NOMINAL_TILE = 128  # the tile side the program count is reckoned at (the wgmma default's; tuned tiles vary)


def _range_step(group: int) -> int:
    """What K_SPLIT must be a multiple of: the group and every BLOCK_K of the space (else a range's
    last K step would run into the next range's)."""
    return max(group, *QMM_SPACE.params["BLOCK_K"])


def qmm_k_split(m: int, n: int, k: int, group: int) -> int:
    """K per program of qmm at (M, N, K): K itself (no split) unless the output has fewer than
    MIN_PROGRAMS tiles of NOMINAL_TILE; else a multiple of the group and of every BLOCK_K of the space."""
    tiles, splits = cdiv(m, NOMINAL_TILE) * cdiv(n, NOMINAL_TILE), 1
    while tiles * splits < MIN_PROGRAMS and k // (splits * 2) >= MIN_SPLIT_K:
        splits *= 2
    step = _range_step(group)
    return k if splits == 1 else cdiv(cdiv(k, splits), step) * step


def qmm_partial_grid(m: int, n: int, k: int, k_split: int) -> Callable[[dict], tuple]:
    """The launch grid of qmm_partial: (row tiles, column tiles, K ranges)."""
    return lambda meta: (cdiv(m, meta["BLOCK_M"]), cdiv(n, meta["BLOCK_N"]), cdiv(k, k_split))


def _partial_tune_args(shape: tuple, dtype: mx.Dtype):
    m, n, k, k_split, bits, group = (*shape, 4, 64) if len(shape) == 4 else shape
    step = _range_step(group)
    if k_split % step:
        raise ValueError(f"qmm_partial_kernel: K_SPLIT {k_split} of shape {shape} is not a multiple of {step} (the "
                         f"group and every BLOCK_K of the space); take one that is, as qmm_k_split does")
    x = mx.random.normal((m, k)).astype(dtype)
    return qmm_partial_grid(m, n, k, k_split), (x, *_weights(n, k, group, bits, dtype),
                                                empty((cdiv(k, k_split), m, n), mx.float32), m, n, k, k_split, group,
                                                bits)


def _partial_tune_shape(named: dict) -> tuple:
    """(M, N, K, K_SPLIT) for 4-bit g64, else (M, N, K, K_SPLIT, bits, group): what `_partial_tune_args` takes."""
    shape, bits, group = (named["M"], named["N"], named["K"], named["K_SPLIT"]), named["BITS"], named["GROUP"]
    return shape if (bits, group) == (4, 64) else (*shape, bits, group)


def _partial_reference(x, w_q, scales, biases, part, m, n, k, k_split, group, bits, *meta):
    x32 = x.reshape(m, k).astype(mx.float32)  # (B, T, K) from a model's layer
    w = _dequantized(w_q.reshape(n, -1), scales.reshape(n, -1), biases.reshape(n, -1), group, bits, None, x.dtype)
    return mx.stack([x32[:, lo:lo + k_split] @ w[:, lo:lo + k_split].T for lo in range(0, k, k_split)])


@register
@autotune(space=QMM_SPACE, key=["M", "N", "K", "K_SPLIT", "GROUP", "BITS"], reference=_partial_reference,
          default=_qmm_config, tune_args=_partial_tune_args, tune_shape=_partial_tune_shape,
          shapes=[(64, 256, 2048, 1024)], shape_ranks=[6], dtypes=[mx.float16], rtol=1e-2, atol=1e-2)  # as qmm
@jit
def qmm_partial_kernel(x_ptr, wq_ptr, scales_ptr, biases_ptr, part_ptr, M, N, K, K_SPLIT, GROUP: tl.constexpr,
                       BITS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """part[s] (M, N) = x[:, s K_SPLIT:(s + 1) K_SPLIT] @ W[:, the same]^T in fp32, s = program_id(2):
    qmm's product over one range of K, summed by `qmm` (K_SPLIT a multiple of BLOCK_K and GROUP)."""
    rm, rn = output_tile(BLOCK_M, BLOCK_N)
    split = tl.program_id(2)
    k_lo = split * K_SPLIT
    acc = qmm_product(x_ptr, wq_ptr, scales_ptr, biases_ptr, rm, rn, k_lo, tl.minimum(k_lo + K_SPLIT, K), M, N, K,
                      GROUP, BITS, BLOCK_M, BLOCK_N, BLOCK_K)
    tl.store(part_ptr + split * M * N + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def qmm_qkv_grid(m: int, nq: int, nkv: int) -> Callable[[dict], tuple]:
    """The launch grid of qmm_qkv: (row tiles, the queries' column tiles, then the keys', then the values')."""
    return lambda meta: (cdiv(m, meta["BLOCK_M"]), cdiv(nq, meta["BLOCK_N"]) + 2 * cdiv(nkv, meta["BLOCK_N"]))


def _qmm_qkv_tune_args(shape: tuple, dtype: mx.Dtype):
    m, nq, nkv, k, bits, group = (*shape, 4, 64) if len(shape) == 4 else shape
    x = mx.random.normal((m, k)).astype(dtype)
    weights = [w for n in (nq, nkv, nkv) for w in _weights(n, k, group, bits, dtype)]
    outputs = [empty((m, n), dtype) for n in (nq, nkv, nkv)]
    return qmm_qkv_grid(m, nq, nkv), (x, *weights, *outputs, m, nq, nkv, k, group, bits)


def _qmm_qkv_tune_shape(named: dict) -> tuple:
    """(M, NQ, NKV, K) for 4-bit g64, else (M, NQ, NKV, K, bits, group): what `_qmm_qkv_tune_args` takes."""
    shape, bits, group = (named["M"], named["NQ"], named["NKV"], named["K"]), named["BITS"], named["GROUP"]
    return shape if (bits, group) == (4, 64) else (*shape, bits, group)


def _qmm_qkv_reference(x, wq, sq, bq, wk, sk, bk, wv, sv, bv, q, k, v, m, nq, nkv, kk, group, bits, *meta):
    """The three products as qmm's reference makes them (the tuner passes no biases: a config serves a
    launch with or without them), in the outputs' shapes ((B, T, N) from a model's layer)."""
    rows = x.reshape(m, kk)
    return tuple(_product(rows, w.reshape(n, -1), s.reshape(n, -1), b.reshape(n, -1), group, bits, None, True)
                 .astype(x.dtype).reshape(out.shape)
                 for w, s, b, n, out in ((wq, sq, bq, nq, q), (wk, sk, bk, nkv, k), (wv, sv, bv, nkv, v)))


@register
@autotune(space=QMM_SPACE, key=["M", "NQ", "NKV", "K", "GROUP", "BITS"], reference=_qmm_qkv_reference,
          default=_qmm_config, tune_args=_qmm_qkv_tune_args, tune_shape=_qmm_qkv_tune_shape,
          shapes=[(64, 256, 64, 1024)], shape_ranks=[6], dtypes=[mx.float16], rtol=1e-2, atol=1e-2)  # as qmm
@jit
def qmm_qkv_kernel(x_ptr, wq_ptr, sq_ptr, bq_ptr, wk_ptr, sk_ptr, bk_ptr, wv_ptr, sv_ptr, bv_ptr, q_ptr, k_ptr, v_ptr,
                   M, NQ, NKV, K, GROUP: tl.constexpr, BITS: tl.constexpr, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, qb_ptr=0, kb_ptr=0, vb_ptr=0,
                   BIAS: tl.constexpr = False):
    """An attention layer's three projections of a prefill's rows in one launch (qmv_qkv's for more
    rows): the first column tiles are the queries', the next the keys', the last the values', each
    program's product as qmm's (`qmm_product`), in x's dtype. With BIAS, each product plus its
    projection's bias (qb_ptr, kb_ptr, vb_ptr; Qwen2's), added to the fp32 sum and rounded once. Two
    launches and three additions fewer than three qmm; the narrow key and value products share the
    GPU with the queries' instead of running as launches of few tiles."""
    q_tiles = tl.cdiv(NQ, BLOCK_N)
    kv_tiles = tl.cdiv(NKV, BLOCK_N)
    tile = tl.program_id(1)
    if tile < q_tiles:  # the weights chosen here; each output written where its pointer is the argument's
        wq, sc, bi, n, col = wq_ptr, sq_ptr, bq_ptr, NQ, tile
    elif tile < q_tiles + kv_tiles:
        wq, sc, bi, n, col = wk_ptr, sk_ptr, bk_ptr, NKV, tile - q_tiles
    else:
        wq, sc, bi, n, col = wv_ptr, sv_ptr, bv_ptr, NKV, tile - q_tiles - kv_tiles
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = qmm_product(x_ptr, wq, sc, bi, rm, col * BLOCK_N + tl.arange(0, BLOCK_N), 0, K, M, n, K, GROUP, BITS,
                      BLOCK_M, BLOCK_N, BLOCK_K)
    if tile < q_tiles:
        projection_out(acc, q_ptr, qb_ptr, rm, tile, M, NQ, BLOCK_N, BIAS)
    elif tile < q_tiles + kv_tiles:
        projection_out(acc, k_ptr, kb_ptr, rm, tile - q_tiles, M, NKV, BLOCK_N, BIAS)
    else:
        projection_out(acc, v_ptr, vb_ptr, rm, tile - q_tiles - kv_tiles, M, NKV, BLOCK_N, BIAS)


@jit
def projection_out(acc, out_ptr, bias_ptr, rm, col, M, N, BLOCK_N: tl.constexpr, BIAS: tl.constexpr):
    """Column tile `col` of an (M, N) product `acc` (fp32), plus the bias at bias_ptr where BIAS, stored in
    out_ptr's dtype."""
    rn = col * BLOCK_N + tl.arange(0, BLOCK_N)
    if BIAS:
        acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _qmm_swiglu_tune_args(shape: tuple, dtype: mx.Dtype):
    grid, (x, *gate, out, m, n, k, group, bits) = _qmm_tune_args(shape, dtype)
    return grid, (x, *gate, *_weights(n, k, group, bits, dtype), out, m, n, k, group, bits)


def _qmm_swiglu_reference(x, wg, sg, bg, wu, su, bu, out, m, n, k, group, bits, *meta):
    return swiglu_reference(x.reshape(m, k), (wg.reshape(n, -1), sg.reshape(n, -1), bg.reshape(n, -1)),
                            (wu.reshape(n, -1), su.reshape(n, -1), bu.reshape(n, -1)), group, bits, stream=None,
                            weights_in_x_dtype=True).reshape(out.shape)


def qmm_swiglu_default(named: dict) -> Config:
    """qmm's untuned config with half its columns: a program's two products are as wide as one of
    qmm's, and its two weight tiles take the threadgroup memory of qmm's one."""
    qmm_json = _qmm_config(named).to_json()
    return Config.from_json({**qmm_json, "kwargs": {**qmm_json["kwargs"], "BLOCK_N": qmm_json["kwargs"]["BLOCK_N"] // 2}})


@register
@autotune(space=QMM_SPACE, key=["M", "N", "K", "GROUP", "BITS"], reference=_qmm_swiglu_reference,
          default=qmm_swiglu_default, tune_args=_qmm_swiglu_tune_args, tune_shape=_qmm_tune_shape,
          shapes=[(64, 256, 1024)], shape_ranks=[5], dtypes=[mx.float16], rtol=1e-2, atol=1e-2)  # as qmm
@jit
def qmm_swiglu_kernel(x_ptr, wg_ptr, sg_ptr, bg_ptr, wu_ptr, su_ptr, bu_ptr, out_ptr, M, N, K, GROUP: tl.constexpr,
                      BITS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """silu(x W_g^T) * (x W_u^T), a gated MLP's hidden activations of a prefill's rows, in one launch
    (qmv_swiglu's for more rows): each program multiplies its x tile with the same columns of both
    weights in one K loop (x loaded once for both) and applies the activation to the fp32 sums
    (MLX rounds both products to x's dtype first). Two launches and the activation's pass over
    memory fewer than two qmm and MLX's SwiGLU."""
    rm, rn = output_tile(BLOCK_M, BLOCK_N)
    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = load_tile(x_ptr, rm, rk, M, K)
        gate = tl.dot(a, weights_t(a, wg_ptr, sg_ptr, bg_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), gate)
        up = tl.dot(a, weights_t(a, wu_ptr, su_ptr, bu_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), up)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], (gate * tl.sigmoid(gate) * up).to(out_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _check(w_q: mx.array, scales: mx.array, group_size: int, bits: int) -> tuple[int, int]:
    """(N, K) of a quantized weight; refuses bits and group sizes the kernels do not take."""
    if bits not in BITS:
        raise ValueError(f"quantized product: bits={bits}; the kernels take {', '.join(map(str, BITS))}")
    n, k = w_q.shape[0], w_q.shape[1] * 32 // bits
    if k % group_size or scales.shape != (n, k // group_size):
        raise ValueError(f"quantized product: scales {scales.shape} do not fit a ({n}, {k}) weight in groups of "
                         f"{group_size}; quantize it with mx.quantize(w, {group_size}, {bits})")
    return n, k


def qmv(x: mx.array, w_q: mx.array, scales: mx.array, biases: mx.array, group_size: int = 64, bits: int = 4,
        residual: Optional[mx.array] = None, backend=None) -> mx.array:
    """y = W x for x of K elements (shape (K,), or (..., K) with one row: a decode step's (1, 1, K))
    and W (N, K) quantized with `mx.quantize(W, group_size, bits)`; y has x's leading axes and N.
    With `residual` (N elements), y = W x + residual, summed in fp32 and rounded once (a block's
    output projection and residual add: one launch). Arrays go to the kernel as they are (it reads
    flat buffers): no reshape nodes per call."""
    return qmv_launch(x, w_q, scales, biases, group_size, bits, residual).run(backend)


def qmv_launch(x: mx.array, w_q: mx.array, scales: mx.array, biases: mx.array, group_size: int = 64, bits: int = 4,
               residual: Optional[mx.array] = None) -> Launch:
    """`qmv`'s launch, checked; prepared (`.prepare()`), it takes `(x)`, or `(x, residual)` where a
    residual was given: a layer's weights fixed, as a decode step calls it token after token."""
    n, k = _check(w_q, scales, group_size, bits)
    if x.size != k:
        raise ValueError(f"qmv: x of shape {x.shape} is not one row of {k} (use qmm for more rows)")
    extra, varying = {}, ("x_ptr",)
    if residual is not None:
        if residual.size != n:
            raise ValueError(f"qmv: residual of shape {residual.shape} is not one row of the {n} outputs")
        extra, varying = dict(res_ptr=residual, RESIDUAL=True), ("x_ptr", "res_ptr")
    grid = lambda meta: (cdiv(n, meta["BLOCK_N"]),)  # noqa: E731
    return Launch(qmv_kernel, grid, (x, w_q, scales, biases, empty((*x.shape[:-1], n), x.dtype), n, k, group_size,
                                     bits), extra, varying)


Quantized = tuple[mx.array, mx.array, mx.array]  # (w_q, scales, biases) as mx.quantize makes them


class Rotation(NamedTuple):
    """RoPE as `rope.rope` takes it, for qmv_qkv to apply to the queries and keys of one token."""
    head_dim: int
    base: float
    offset: int
    scale: float = 1.0
    traditional: bool = False


class Norm(NamedTuple):
    """An RMS norm, `mx.fast.rms_norm(x, weight, eps)`, for a product to apply to its input x first
    (`weight`: x's length, in x's dtype)."""
    weight: mx.array
    eps: float


def _norm_args(what: str, norm: Optional[Norm], x: mx.array, k: int) -> dict:
    """The kernel arguments of an optional input norm, checked against x (k elements)."""
    if norm is None:
        return {}
    if norm.weight.shape != (k,) or norm.weight.dtype != x.dtype:
        raise ValueError(f"{what}: norm weight {norm.weight.shape} {norm.weight.dtype} does not match x ({k} "
                         f"elements, {x.dtype})")
    return dict(norm_ptr=norm.weight, eps=float(norm.eps), NORM=True)


def _bias_args(what: str, bias: Optional[tuple[mx.array, mx.array, mx.array]], nq: int, nkv: int) -> dict:
    """The kernel arguments of qmv_qkv's and qmm_qkv's optional projection biases, checked against
    their outputs."""
    if bias is None:
        return {}
    if tuple(b.size for b in bias) != (nq, nkv, nkv):
        raise ValueError(f"{what}: biases of {', '.join(str(b.shape) for b in bias)} do not match the outputs of "
                         f"{nq}, {nkv} and {nkv} rows")
    return dict(qb_ptr=bias[0], kb_ptr=bias[1], vb_ptr=bias[2], BIAS=True)


def _check_qkv(what: str, q: Quantized, k: Quantized, v: Quantized, group_size: int, bits: int) -> tuple[int, int, int]:
    """(NQ, NKV, K) of an attention layer's three quantized weights: one K, the key and value weights of
    one shape."""
    nq, kq = _check(q[0], q[1], group_size, bits)
    nkv, kk = _check(k[0], k[1], group_size, bits)
    if kk != kq or _check(v[0], v[1], group_size, bits) != (nkv, kk):
        raise ValueError(f"{what}: weights ({nq}, {kq}), ({nkv}, {kk}) and {v[0].shape} (packed) do not share K, or "
                         "the key and value weights differ in shape")
    return nq, nkv, kq


def qmv_qkv(x: mx.array, q: Quantized, k: Quantized, v: Quantized, group_size: int = 64, bits: int = 4,
            rotation: Optional[Rotation] = None, norm: Optional[Norm] = None,
            bias: Optional[tuple[mx.array, mx.array, mx.array]] = None,
            backend=None) -> tuple[mx.array, mx.array, mx.array]:
    """(W_q x, W_k x, W_v x) for one row x (as qmv takes it) and an attention layer's query, key and
    value weights, quantized alike (each its (w_q, scales, biases)); W_k and W_v of one shape (grouped
    heads make them smaller than W_q). Outputs in x's dtype with x's leading axes. With `rotation`,
    the queries and keys come out rotated as `rope.rope` rotates heads of `head_dim` at position
    `offset` (x is then one token). With `norm`, the products are of rms_norm(x) (the layer's input
    norm, in the same launch); with `bias` (the three projections' biases, as nn.Linear's), each
    product plus its bias, before any rotation."""
    return tuple(qmv_qkv_launch(x, q, k, v, group_size, bits, rotation, norm, bias).run(backend))


def qmv_qkv_launch(x: mx.array, q: Quantized, k: Quantized, v: Quantized, group_size: int = 64, bits: int = 4,
                   rotation: Optional[Rotation] = None, norm: Optional[Norm] = None,
                   bias: Optional[tuple[mx.array, mx.array, mx.array]] = None, heads: bool = False) -> Launch:
    """`qmv_qkv`'s launch, checked; prepared (`.prepare()`), it takes `(x)`, or `(x, offset)` with a
    rotation (the position of the token, which changes at every decode step). With `heads` (x one
    token of shape (B, 1, K), a rotation given), the outputs are shaped (B, heads, 1, head_dim), as
    attention and mlx-lm's KV cache take them: for one token the same memory as (B, 1, rows), so a
    decode step needs no reshape or transpose nodes after the launch."""
    nq, nkv, kq = _check_qkv("qmv_qkv", q, k, v, group_size, bits)
    if x.size != kq:
        raise ValueError(f"qmv_qkv: x of shape {x.shape} is not one row of {kq}")
    lead, rope, varying = x.shape[:-1], {}, ("x_ptr",)
    if heads and (rotation is None or x.ndim != 3 or x.shape[1] != 1):
        raise ValueError(f"qmv_qkv: outputs in heads take a rotation (its head_dim) and one token of shape (B, 1, K), "
                         f"not x of shape {x.shape}")
    if rotation is not None:
        d = rotation.head_dim
        if d % 2 or nq % d or nkv % d:
            raise ValueError(f"qmv_qkv: head dimension {d} does not divide the {nq} query and {nkv} key rows into "
                             "heads of pairs")
        rope = dict(offset=rotation.offset, pos_scale=rotation.scale, log_base=math.log(rotation.base), HALF=d // 2,
                    ROPE=True, TRADITIONAL=rotation.traditional)
        varying = ("x_ptr", "offset")
    shapes = [(*lead, rows) for rows in (nq, nkv, nkv)]
    if heads:
        shapes = [(lead[0], rows // rotation.head_dim, 1, rotation.head_dim) for rows in (nq, nkv, nkv)]
    return Launch(qmv_qkv_kernel, qkv_grid(nq, nkv),
                  (x, *q, *k, *v, *(empty(shape, x.dtype) for shape in shapes), nq, nkv, kq, group_size, bits),
                  {**rope, **_norm_args("qmv_qkv", norm, x, kq), **_bias_args("qmv_qkv", bias, nq, nkv)}, varying)


def qmm_qkv(x: mx.array, q: Quantized, k: Quantized, v: Quantized, group_size: int = 64, bits: int = 4,
            bias: Optional[tuple[mx.array, mx.array, mx.array]] = None,
            backend=None) -> tuple[mx.array, mx.array, mx.array]:
    """(x W_q^T, x W_k^T, x W_v^T) for x of shape (..., K) (a prefill's rows) and an attention layer's
    query, key and value weights quantized alike (as `qmv_qkv` takes them), in one launch
    (`qmm_qkv_kernel`); each output (..., N) in x's dtype, as `qmm` makes it. With `bias` (the three
    projections' biases), each product plus its bias, added in fp32 and rounded once. Weights with
    an array of fewer than 8 elements run as three `qmm` (biases added after)."""
    nq, nkv, kq = _check_qkv("qmm_qkv", q, k, v, group_size, bits)
    if x.shape[-1] != kq:
        raise ValueError(f"qmm_qkv: x of shape {x.shape} does not end in the weights' K of {kq}")
    m, biased = x.size // kq, _bias_args("qmm_qkv", bias, nq, nkv)
    # a weight's scales (and biases, as many) are its smallest arrays: its packed words are bits * group / 32
    # for each scale (at least one: 2 bits in groups of 16)
    if min(q[1].size, k[1].size, v[1].size) < MAX_CONSTANT_ARRAY_SIZE:
        # MLX passes arrays this small in Metal's constant address space, and the kernel's choice of
        # weights per column tile cannot mix those with device memory: three qmm (tiny weights)
        products = [qmm(x, *w, group_size, bits, backend) for w in (q, k, v)]
        return tuple(products if bias is None else (p + b for p, b in zip(products, bias)))
    lead = x.shape[:-1]
    return tuple(qmm_qkv_kernel[qmm_qkv_grid(m, nq, nkv)](
        x, *q, *k, *v, empty((*lead, nq), x.dtype), empty((*lead, nkv), x.dtype), empty((*lead, nkv), x.dtype), m, nq,
        nkv, kq, group_size, bits, **biased, backend=backend))


def qmv_swiglu(x: mx.array, gate: Quantized, up: Quantized, group_size: int = 64, bits: int = 4,
               norm: Optional[Norm] = None, backend=None) -> mx.array:
    """silu(W_g x) * (W_u x) for one row x (as qmv takes it) and the gate and up weights of a gated
    MLP, (N, K) each, quantized alike (`gate`, `up`: their (w_q, scales, biases)); output in x's
    dtype, with x's leading axes and N. With `norm`, of rms_norm(x) (in the same launch)."""
    return qmv_swiglu_launch(x, gate, up, group_size, bits, norm).run(backend)


def qmv_swiglu_launch(x: mx.array, gate: Quantized, up: Quantized, group_size: int = 64, bits: int = 4,
                      norm: Optional[Norm] = None) -> Launch:
    """`qmv_swiglu`'s launch, checked; prepared (`.prepare()`), it takes `(x)`."""
    n, k = _check_swiglu("qmv_swiglu", gate, up, group_size, bits)
    if x.size != k:
        raise ValueError(f"qmv_swiglu: x of shape {x.shape} is not one row of {k}")
    grid = lambda meta: (cdiv(n, meta["BLOCK_N"]),)  # noqa: E731
    return Launch(qmv_swiglu_kernel, grid, (x, *gate, *up, empty((*x.shape[:-1], n), x.dtype), n, k, group_size, bits),
                  _norm_args("qmv_swiglu", norm, x, k), ("x_ptr",))


def _check_swiglu(what: str, gate: Quantized, up: Quantized, group_size: int, bits: int) -> tuple[int, int]:
    """(N, K) of a gated MLP's gate and up weights, which must be of one shape."""
    n, k = _check(gate[0], gate[1], group_size, bits)
    if _check(up[0], up[1], group_size, bits) != (n, k):
        raise ValueError(f"{what}: gate weight ({n}, {k}) and up weight {up[0].shape} (packed) differ in shape")
    return n, k


def qmm_swiglu(x: mx.array, gate: Quantized, up: Quantized, group_size: int = 64, bits: int = 4,
               backend=None) -> mx.array:
    """silu(x W_g^T) * (x W_u^T) for x of shape (..., K) (a prefill's rows) and a gated MLP's gate and
    up weights quantized alike (as `qmv_swiglu` takes them), in one launch (`qmm_swiglu_kernel`);
    output (..., N) in x's dtype."""
    n, k = _check_swiglu("qmm_swiglu", gate, up, group_size, bits)
    if x.shape[-1] != k:
        raise ValueError(f"qmm_swiglu: x of shape {x.shape} does not end in the weights' K of {k}")
    m = x.size // k
    return qmm_swiglu_kernel[qmm_grid(m, n)](x, *gate, *up, empty((*x.shape[:-1], n), x.dtype), m, n, k, group_size,
                                             bits, backend=backend)


def qmm(x: mx.array, w_q: mx.array, scales: mx.array, biases: mx.array, group_size: int = 64, bits: int = 4,
        backend=None) -> mx.array:
    """x @ W^T for x of shape (..., K) and W (N, K) quantized with `mx.quantize(W, group_size, bits)`:
    `mx.quantized_matmul(x, w_q, scales, biases, transpose=True)`, output (..., N) in x's dtype. Where
    the output has few tiles and K is long (`qmm_k_split`), each range of K is a program's product in
    fp32 (`qmm_partial_kernel`) and their sum is rounded to x's dtype once, as the whole product's is."""
    n, k = _check(w_q, scales, group_size, bits)
    m = x.size // k
    k_split = qmm_k_split(m, n, k, group_size)
    if k_split >= k:
        return qmm_kernel[qmm_grid(m, n)](x, w_q, scales, biases, empty((*x.shape[:-1], n), x.dtype), m, n, k,
                                          group_size, bits, backend=backend)
    parts = qmm_partial_kernel[qmm_partial_grid(m, n, k, k_split)](
        x, w_q, scales, biases, empty((cdiv(k, k_split), m, n), mx.float32), m, n, k, k_split, group_size, bits,
        backend=backend)
    return parts.sum(axis=0).astype(x.dtype).reshape(*x.shape[:-1], n)


def reference(x, w_q, scales, biases, group_size: int = 64, bits: int = 4, stream=mx.cpu,
              weights_in_x_dtype: bool = False) -> mx.array:
    """x (K,) or (M, K) @ W^T in float32, rounded to x's dtype, with MLX's dequantize and matmul on
    the CPU; the tuner's check runs them on the default device (`stream=None`): a model's prefill
    shapes (512 x 128256 x 4096 for a vocabulary) take seconds on the CPU for each case tuned.
    `weights_in_x_dtype`: the dequantised weights rounded to x's dtype first, as qmm (and MLX) do,
    so that a tolerance need not grow with K (their rounding moves a K-long sum by ~u sqrt(K))."""
    return _product(x, w_q, scales, biases, group_size, bits, stream, weights_in_x_dtype).astype(x.dtype)


def _product(x, w_q, scales, biases, group_size: int, bits: int, stream, weights_in_x_dtype: bool = False) -> mx.array:
    """`reference`'s product, in float32."""
    w = _dequantized(w_q, scales, biases, group_size, bits, stream, x.dtype if weights_in_x_dtype else None)
    return mx.matmul(x.astype(mx.float32), w.T, stream=stream)


def _dequantized(w_q, scales, biases, group_size: int, bits: int, stream, rounded_to: Optional[mx.Dtype] = None):
    """W (N, K) in float32, each weight's scale * q + bias computed in float32 as the kernels do (not
    in the scales' dtype), rounded to `rounded_to` first where given."""
    w = mx.dequantize(w_q, scales.astype(mx.float32), biases.astype(mx.float32), group_size=group_size, bits=bits,
                      stream=stream)
    return w if rounded_to is None else w.astype(rounded_to, stream=stream).astype(mx.float32, stream=stream)


def swiglu_reference(x, gate: Quantized, up: Quantized, group_size: int = 64, bits: int = 4,
                     stream=mx.cpu, weights_in_x_dtype: bool = False) -> mx.array:
    """silu(W_g x) * (W_u x) in float32, rounded to x's dtype (MLX's dequantize and matmul);
    `weights_in_x_dtype` as `reference` takes it."""
    g = _product(x, *gate, group_size, bits, stream, weights_in_x_dtype)
    u = _product(x, *up, group_size, bits, stream, weights_in_x_dtype)
    return (g * mx.sigmoid(g, stream=stream) * u).astype(x.dtype)
