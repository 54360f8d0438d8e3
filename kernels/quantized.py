"""4-bit affine dequantising matrix-vector product in MLX's quantized format (`mx.quantize`):
each uint32 of `w_q` packs 8 weights along K, low nibble first; weight = scale * q + bias per group
of `group_size` along K. Decode-time LLM layers are this product."""
from __future__ import annotations

import mlx.core as mx

from .. import language as tl
from ..dsl.jit import cdiv, empty, jit


@jit
def qmv_kernel(x_ptr, wq_ptr, scales_ptr, biases_ptr, out_ptr, N, K, GROUP: tl.constexpr,
               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        k_ok = ks < K
        mask = row_ok[:, None] & k_ok[None, :]
        words = tl.load(wq_ptr + rows[:, None] * (K // 8) + (ks // 8)[None, :], mask=mask, other=0)
        q = ((words >> ((ks % 8) * 4)[None, :]) & 0xF).to(tl.float32)
        groups = rows[:, None] * (K // GROUP) + (ks // GROUP)[None, :]
        scale = tl.load(scales_ptr + groups, mask=mask, other=0.0).to(tl.float32)
        bias = tl.load(biases_ptr + groups, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + ks, mask=k_ok, other=0.0).to(tl.float32)
        acc += tl.sum((scale * q + bias) * x[None, :], axis=1)
    tl.store(out_ptr + rows, acc, mask=row_ok)


def qmv(x: mx.array, w_q: mx.array, scales: mx.array, biases: mx.array, group_size: int = 64,
        block_n: int = 8, block_k: int = 256, num_warps: int = 4, backend=None) -> mx.array:
    """y = W x for x of shape (K,) and W (N, K) quantized with `mx.quantize(W, group_size, bits=4)`."""
    n, k = w_q.shape[0], w_q.shape[1] * 8
    return qmv_kernel[(cdiv(n, block_n),)](x, w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1),
                                           empty((n,), x.dtype), n, k, GROUP=group_size, BLOCK_N=block_n,
                                           BLOCK_K=block_k, num_warps=num_warps, backend=backend)


def reference(x, w_q, scales, biases, group_size: int = 64) -> mx.array:
    w = mx.dequantize(w_q, scales, biases, group_size=group_size, bits=4)
    return (w.astype(mx.float32) @ x.astype(mx.float32)).astype(x.dtype)
