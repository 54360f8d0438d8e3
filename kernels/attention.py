"""Single-query (decode) attention with online softmax over the KV cache, grouped-query heads.
One program per query head; the KV length need not be a multiple of the block."""
from __future__ import annotations

import math

import mlx.core as mx

from .. import language as tl
from ..autotune import Space, autotune
from ..dsl.jit import empty, jit
from . import register


def _tune_args(shape: tuple, dtype: mx.Dtype):
    heads, kv_heads, s, d = shape
    q = mx.random.normal((heads, d)).astype(dtype)
    k, v = (mx.random.normal((kv_heads, s, d)).astype(dtype) for _ in range(2))
    return (heads,), (q.reshape(-1), k.reshape(-1), v.reshape(-1), empty((heads, d), dtype), s,
                      1.0 / math.sqrt(d), heads // kv_heads, d)


def _reference(q, k, v, out, s, scale, group, d, *meta):
    heads = q.size // d
    return reference(q.reshape(heads, d), k.reshape(-1, s, d), v.reshape(-1, s, d))


@register
@autotune(space=Space({"BLOCK_N": [16, 32, 64, 128], "num_warps": [2, 4]}), key=["S", "D"], reference=_reference,
          tune_args=_tune_args, shapes=[(8, 2, 500, 64)], dtypes=[mx.float16])
@jit
def decode_attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, S, scale, GROUP: tl.constexpr, D: tl.constexpr,
                            BLOCK_N: tl.constexpr):
    head = tl.program_id(0)
    kv_head = head // GROUP
    d = tl.arange(0, D)
    q = tl.load(q_ptr + head * D + d).to(tl.float32) * scale
    m_i = -float("inf")
    l_i = 0.0
    acc = tl.zeros((D,), dtype=tl.float32)
    for start in range(0, S, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        valid = n < S
        offs = (kv_head * S + n)[:, None] * D + d[None, :]
        k = tl.load(k_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
        scores = tl.where(valid, tl.sum(k * q[None, :], axis=1), -float("inf"))
        m_new = tl.maximum(m_i, tl.max(scores, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(scores - m_new)
        v = tl.load(v_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new
    tl.store(out_ptr + head * D + d, acc / l_i)


def decode_attention(q: mx.array, k: mx.array, v: mx.array, backend=None) -> mx.array:
    """softmax(q k^T / sqrt(D)) v for q (H, D) and k, v (H_kv, S, D); H a multiple of H_kv."""
    heads, dim = q.shape
    kv_heads, s, _ = k.shape
    return decode_attention_kernel[(heads,)](q.reshape(-1), k.reshape(-1), v.reshape(-1), empty((heads, dim), q.dtype),
                                             s, 1.0 / math.sqrt(dim), heads // kv_heads, dim, backend=backend)


def reference(q, k, v) -> mx.array:
    heads, dim = q.shape
    out = mx.fast.scaled_dot_product_attention(q[None, :, None, :], k[None], v[None], scale=1.0 / math.sqrt(dim))
    return out.reshape(heads, dim)
