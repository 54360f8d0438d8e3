"""4-bit affine dequantising matrix-vector product in MLX's quantized format (`mx.quantize`):
each uint32 of `w_q` packs 8 weights along K, low nibble first; weight = scale * q + bias per group
of `group_size` along K. Decode-time LLM layers are this product."""
from __future__ import annotations

import mlx.core as mx

from .. import language as tl
from ..autotune import Space, autotune
from ..launcher import cdiv, empty, jit
from . import register


def _tune_args(shape: tuple, dtype: mx.Dtype):
    n, k = shape
    w_q, scales, biases = mx.quantize(mx.random.normal((n, k)), group_size=64, bits=4)
    x = mx.random.normal((k,)).astype(dtype)
    grid = lambda meta: (cdiv(n, meta["BLOCK_N"]),)  # noqa: E731
    return grid, (x, w_q.reshape(-1), scales.astype(dtype).reshape(-1), biases.astype(dtype).reshape(-1),
                  empty((n,), dtype), n, k, 64)


def _reference(x, w_q, scales, biases, out, n, k, group, *meta):
    return reference(x, w_q.reshape(n, -1), scales.reshape(n, -1), biases.reshape(n, -1), group)


@register
@autotune(space=Space({"BLOCK_N": [4, 8, 16], "BLOCK_K": [128, 256, 512], "num_warps": [2, 4]}),
          key=["N", "K"], reference=_reference, tune_args=_tune_args, shapes=[(256, 1024)], dtypes=[mx.float16],
          rtol=1e-2, atol=1e-2)  # fp16 output of a K-long fp32 sum
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
        backend=None) -> mx.array:
    """y = W x for x of shape (K,) and W (N, K) quantized with `mx.quantize(W, group_size, bits=4)`."""
    n, k = w_q.shape[0], w_q.shape[1] * 8
    grid = lambda meta: (cdiv(n, meta["BLOCK_N"]),)  # noqa: E731
    return qmv_kernel[grid](x, w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1), empty((n,), x.dtype), n, k,
                            group_size, backend=backend)


def reference(x, w_q, scales, biases, group_size: int = 64) -> mx.array:
    w = mx.dequantize(w_q, scales.astype(mx.float32), biases.astype(mx.float32), group_size=group_size, bits=4)
    return (w @ x.astype(mx.float32)).astype(x.dtype)
