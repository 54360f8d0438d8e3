"""Row softmax: one program per row, online max/sum over column blocks (any row length), fp32 math."""
from __future__ import annotations

import mlx.core as mx

from .. import language as tl
from ..autotune import Space, autotune, pow2
from ..dsl.jit import empty, jit
from . import register


def _reference(x_flat, out, n_cols, row_stride, *meta):
    return reference(x_flat.reshape(-1, n_cols))


def _tune_args(shape: tuple, dtype: mx.Dtype):
    rows, cols = shape
    x = mx.random.normal(shape).astype(dtype)
    return (rows,), (x.reshape(-1), empty(shape, dtype), cols, cols)


@register
@autotune(space=Space({"BLOCK": pow2(256, 4096), "num_warps": [2, 4, 8]}), key=["n_cols"], reference=_reference,
          tune_args=_tune_args, shapes=[(8, 4000)], dtypes=[mx.float16])
@jit
def softmax_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * row_stride
    # Online softmax per element: each lane keeps its own running max and sum over the column
    # blocks, so the row is reduced once, not once per block.
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(tl.where(m_new == m, 0.0, m - m_new)) + tl.exp(tl.where(x == m_new, 0.0, x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(s * tl.exp(tl.where(m == row_max, 0.0, m - row_max)), axis=0)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(out_ptr + base + offs, tl.exp(x - row_max) / row_sum, mask=mask)


def softmax(x: mx.array, backend=None) -> mx.array:
    """Softmax over the last axis of a 2-D array (any float dtype; output in x's dtype), with the
    block size and warps tuned for this machine and row length."""
    rows, cols = x.shape
    return softmax_kernel[(rows,)](x.reshape(-1), empty((rows, cols), x.dtype), cols, cols, backend=backend)


def reference(x: mx.array) -> mx.array:
    return mx.softmax(x.astype(mx.float32), axis=-1).astype(x.dtype)
