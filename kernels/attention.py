"""Single-query (decode) attention with online softmax over the KV cache, grouped-query heads,
split along the KV length (flash-decoding): a decode step has only as many query heads as programs
would be (32 on an 8B model: a quarter of an H200's SMs, under half of an M4 Max's cores), so
each head's keys are cut into `splits` ranges, one program each, and a second small kernel combines
their partial results. The KV length need not be a multiple of the block or of the split."""
from __future__ import annotations

import math
from typing import Callable

import mlx.core as mx

from .. import language as tl
from ..autotune import Config, Space, autotune, power_of_two_bucket
from ..launcher import Launch, cdiv, empty, jit
from . import register

# enough programs to fill the GPUs this targets (H200: 132 SMs; M-series: up to 80 cores); at 256
# programs of 4 warps ncu saw 12% of the H200's warp slots busy and 4% of its DRAM bandwidth
MIN_PROGRAMS = 1024
MIN_SPLIT = 256     # keys per program below which splitting further costs more (combine) than it hides
# a head of at most this many keys is one program, whatever the head count: one launch (the partial
# kernel writes the output) where splitting would add the combine's, and a decode step's pace is its
# launches' host time while its attention reads little (docs/models.md)
WHOLE_KEYS = 1024


def split_count(heads: int, s: int) -> int:
    """How many ranges each head's S keys are cut into: one up to WHOLE_KEYS keys, else a power of
    two, enough for MIN_PROGRAMS programs in all, each range at least MIN_SPLIT keys."""
    if s <= WHOLE_KEYS:
        return 1
    splits = 1
    while heads * splits < MIN_PROGRAMS and cdiv(s, splits * 2) >= MIN_SPLIT:
        splits *= 2
    return splits


def _launch_args(q: mx.array, k: mx.array, v: mx.array, scale: float | None = None,
                 length: int | None = None, final_if_whole: bool = False) -> tuple[tuple, tuple, int]:
    """(grid, arguments, splits) of the partial kernel for q (..., D) of H heads
    and k, v (..., S, D) of H_kv heads (mlx-lm's (B, H, 1, D) and (B, H_kv, S, D) as they come: the
    kernel reads flat buffers), of which the first `length` keys count (all by default); scale
    default 1 / sqrt(D). With `final_if_whole` and one range a head, the kernel writes the attention's
    output itself (FINAL, in q's shape and dtype): no combine launch."""
    d, slots = q.shape[-1], k.shape[-2]
    s = slots if length is None else length
    heads, kv_heads = q.size // d, k.size // (slots * d)
    splits = split_count(heads, s)
    parts = heads * splits
    final = final_if_whole and splits == 1
    o = empty(q.shape, q.dtype) if final else empty((parts, d), mx.float32)
    return (heads, splits), (q, k, v, o, empty((parts,), mx.float32), empty((parts,), mx.float32), s,
                             cdiv(s, splits), slots - s, 1.0 / math.sqrt(d) if scale is None else scale,
                             heads // kv_heads, d, final), splits


def _tune_args(shape: tuple, dtype: mx.Dtype):
    heads, kv_heads, s, d = shape
    q = mx.random.normal((heads, d)).astype(dtype)
    k, v = (mx.random.normal((kv_heads, s, d)).astype(dtype) for _ in range(2))
    grid, args, _ = _launch_args(q, k, v, final_if_whole=True)  # what the launch at this shape runs
    return grid, args


def _tune_shape(named: dict) -> tuple:
    """(heads, kv_heads, S, D), what `_tune_args` takes, with S rounded up to a power of two: a decode
    grows S by one per token, and a winner tuned there serves its whole bucket (the run-time lookup
    takes the nearest tuned bucket), so a recorded generation tunes a few lengths, not every one."""
    d, s, heads = named["D"], named["S"], named["q_ptr"].size // named["D"]
    return heads, heads // named["GROUP"], power_of_two_bucket(s), d


def _reference(q, k, v, o, m, l, s, split, spare, scale, group, d, final, *meta):
    keys, values = (a.reshape(-1, s + spare, d)[:, :s] for a in (k, v))
    o_ref, m_ref, l_ref = partials_reference(q.reshape(-1, d), keys, values, split, scale)
    if final:  # one range a head: the output itself
        o_ref = (o_ref / l_ref[:, None]).reshape(q.shape).astype(q.dtype)
    return o_ref, m_ref, l_ref


@register
@autotune(space=Space({"BLOCK_N": [16, 32, 64, 128], "num_warps": [2, 4]}), key=["S", "D"], reference=_reference,
          # untuned: the widest key block, so a whole head (one program, S up to WHOLE_KEYS) takes the
          # fewest serial steps: 12.0 us at S = 640 of d128 on the H100 against 25.8 for 16 keys of 2
          # warps and MLX's sdpa's 22.1 (benchmarks/decode_configs.py, docs/models.md)
          default=Config({"BLOCK_N": 128}, num_warps=4),
          buckets={"S": power_of_two_bucket},  # a decode's S grows by one per token: one config per bucket
          tune_args=_tune_args, tune_shape=_tune_shape, shapes=[(8, 2, 555, 64)], dtypes=[mx.float16], rtol=1e-3, atol=1e-3)
@jit(do_not_specialize=["S", "SPLIT", "KV_SPARE"])  # the key length grows by one a step: one compile for a generation
def decode_attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, m_ptr, l_ptr, S, SPLIT, KV_SPARE, scale, GROUP: tl.constexpr,
                            D: tl.constexpr, FINAL: tl.constexpr, BLOCK_N: tl.constexpr):
    """One head's keys [split * SPLIT, (split + 1) * SPLIT): the unnormalised output, the running
    maximum and the sum of exponentials, for the combine kernel; FINAL (one range a head, the whole
    S): the output itself, normalised, in o's dtype, and no combine launch (a decode step's host
    time is a launch's: docs/models.md). Each head's S keys are followed by
    KV_SPARE unused slots (a KV cache's buffer, read in place: no copy of the S keys a step).

    Each of the BLOCK_N key slots keeps its own online softmax (maximum, sum, weighted values) over
    the keys that land in it, block after block, and the slots are combined once after the loop: the
    loop then reduces only over D (a key's score), never across the key slots, which on Metal would
    cross simdgroups through threadgroup memory and barriers in every block."""
    head = tl.program_id(0)
    split = tl.program_id(1)
    part = head * tl.num_programs(1) + split
    kv_head = head // GROUP
    d = tl.arange(0, D)
    q = tl.load(q_ptr + head * D + d).to(tl.float32) * scale
    m_i = tl.full((BLOCK_N,), -float("inf"), tl.float32)
    l_i = tl.zeros((BLOCK_N,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_N, D), dtype=tl.float32)
    lo = split * SPLIT
    hi = tl.minimum(lo + SPLIT, S)
    first_key = kv_head * (S + KV_SPARE)  # the head's first key slot
    for start in range(lo, hi, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        valid = n < hi
        offs = (first_key + n)[:, None] * D + d[None, :]
        k = tl.load(k_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
        scores = tl.where(valid, tl.sum(k * q[None, :], axis=1), -float("inf"))
        m_new = tl.maximum(m_i, scores)
        # a slot that has seen no key yet (m_i and m_new -inf) keeps its zeros
        alpha = tl.where(m_new == m_i, 1.0, tl.exp(m_i - m_new))
        p = tl.where(valid, tl.exp(scores - m_new), 0.0)
        v = tl.load(v_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha[:, None] + p[:, None] * v
        l_i = l_i * alpha + p
        m_i = m_new
    m = tl.max(m_i, axis=0)
    w = tl.where(m_i == m, 1.0, tl.exp(m_i - m))  # slots without keys (-inf) weigh 0
    acc = tl.sum(acc * w[:, None], axis=0)
    l_i = tl.sum(l_i * w, axis=0)
    m_i = m
    if FINAL:
        tl.store(o_ptr + part * D + d, (acc / l_i).to(o_ptr.dtype.element_ty))
    else:
        tl.store(o_ptr + part * D + d, acc)
    tl.store(m_ptr + part, m_i)
    tl.store(l_ptr + part, l_i)


@jit
def decode_attention_combine_kernel(o_ptr, m_ptr, l_ptr, out_ptr, splits, D: tl.constexpr, SPLITS: tl.constexpr):
    """out = sum_i exp(m_i - m) o_i / sum_i exp(m_i - m) l_i over one head's `splits` partials."""
    head = tl.program_id(0)
    i = tl.arange(0, SPLITS)
    ok = i < splits
    m = tl.load(m_ptr + head * splits + i, mask=ok, other=-float("inf"))
    w = tl.exp(m - tl.max(m, axis=0))
    l_sum = tl.sum(tl.load(l_ptr + head * splits + i, mask=ok, other=0.0) * w, axis=0)
    d = tl.arange(0, D)
    o = tl.load(o_ptr + (head * splits + i)[:, None] * D + d[None, :], mask=ok[:, None], other=0.0)
    tl.store(out_ptr + head * D + d, (tl.sum(o * w[:, None], axis=0) / l_sum).to(out_ptr.dtype.element_ty))


# decode_attention's prepared launches (the partial kernel's, and the combine's where a head's keys
# are split), by shapes, dtypes, scale, key-length bucket, split count and back end; a model's decode
# meets a few (its KV cache grows in steps)
_PREPARED: dict[tuple, tuple[Callable[..., tuple], Callable[..., mx.array] | None]] = {}
_PREPARED_KEPT = 64


def decode_attention(q: mx.array, k: mx.array, v: mx.array, scale: float | None = None, length: int | None = None,
                     backend=None) -> mx.array:
    """softmax(scale q k^T) v for one query per head: q (H, D) and k, v (H_kv, S, D), or with leading
    axes as mlx-lm's cache holds them (q (B, H, 1, D), k and v (B, H_kv, S, D)); H a multiple of
    H_kv; output in q's shape; scale default 1 / sqrt(D). With `length`, only the first `length` of
    the S keys count: k and v are then a KV cache's buffers, read where they lie (a slice of them
    would be copied to a contiguous array first). The launches are prepared once per shapes,
    key-length bucket and split count (S changes every step; a decode step's pace is its host's)."""
    dim, slots = q.shape[-1], k.shape[-2]
    if length is not None and not 0 < length <= slots:
        raise ValueError(f"decode_attention: length {length} of a buffer of {slots} keys")
    s = slots if length is None else length
    splits = split_count(q.size // dim, s)
    key = (q.shape, k.shape, v.shape, q.dtype, k.dtype, v.dtype, scale, type(scale), power_of_two_bucket(s), splits,
           backend)
    launches = _PREPARED.get(key)
    if launches is None:
        if len(_PREPARED) >= _PREPARED_KEPT:
            _PREPARED.clear()
        launches = _PREPARED[key] = _prepared_launches(q, k, v, scale, length, backend)
    partial, combine = launches
    outputs = partial(q, k, v, s, cdiv(s, splits), slots - s)
    return outputs[0] if combine is None else combine(*outputs)


def _prepared_launches(q: mx.array, k: mx.array, v: mx.array, scale: float | None, length: int | None,
                       backend) -> tuple[Callable[..., tuple], Callable[..., mx.array] | None]:
    """The partial kernel's launch prepared for calls that change q, k, v and the key counts, and
    where a head's keys are split, the combine's for calls that change the partials (prepared on
    arrays of their shapes: only their facts are read)."""
    grid, args, splits = _launch_args(q, k, v, scale, length, final_if_whole=True)
    partial = Launch(decode_attention_kernel, grid, args, {}, ("q_ptr", "k_ptr", "v_ptr", "S", "SPLIT", "KV_SPARE"))
    if splits == 1:
        return partial.prepare(backend), None
    o, m, l = (mx.zeros(a.shape, a.dtype) for a in args[3:6])
    combine = Launch(decode_attention_combine_kernel, (grid[0],),
                     (o, m, l, empty(q.shape, q.dtype), splits, q.shape[-1], 1 << (splits - 1).bit_length()), {},
                     ("o_ptr", "m_ptr", "l_ptr"))
    return partial.prepare(backend), combine.prepare(backend)


def partials_reference(q: mx.array, k: mx.array, v: mx.array, split: int,
                       scale: float | None = None) -> tuple[mx.array, mx.array, mx.array]:
    """What each program of the partial kernel computes, in float32 on the CPU: per (head, split),
    the unnormalised softmax-weighted sum of values, the maximum score and the sum of exponentials
    (scores scaled by `scale`, default 1 / sqrt(D))."""
    heads, d = q.shape
    kv_heads, s, _ = k.shape
    splits = -(-s // split)
    group = heads // kv_heads
    with mx.stream(mx.cpu):
        kf = mx.repeat(k.astype(mx.float32), group, axis=0)
        vf = mx.repeat(v.astype(mx.float32), group, axis=0)
        scale = 1.0 / math.sqrt(d) if scale is None else scale
        scores = (kf @ (q.astype(mx.float32) * scale)[:, :, None])[..., 0]  # (heads, s)
        pad = splits * split - s
        scores = mx.pad(scores, [(0, 0), (0, pad)], constant_values=-float("inf")).reshape(heads, splits, split)
        vf = mx.pad(vf, [(0, 0), (0, pad), (0, 0)]).reshape(heads, splits, split, d)
        m = scores.max(axis=-1)
        p = mx.exp(scores - m[..., None])
        o = (p[..., None] * vf).sum(axis=-2)
        return o.reshape(-1, d), m.reshape(-1), p.sum(axis=-1).reshape(-1)


def reference(q, k, v) -> mx.array:
    heads, dim = q.shape
    out = mx.fast.scaled_dot_product_attention(q[None, :, None, :], k[None], v[None], scale=1.0 / math.sqrt(dim))
    return out.reshape(heads, dim)
