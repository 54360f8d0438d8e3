"""Row softmax: one program per row, online max/sum over column blocks (any row length), fp32 math."""
from __future__ import annotations

import mlx.core as mx

from .. import language as tl
from ..dsl.jit import cdiv, empty, jit


@jit
def softmax_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * row_stride
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(out_ptr + base + offs, tl.exp(x - m) / s, mask=mask)


def softmax(x: mx.array, block: int = 1024, num_warps: int = 4, backend=None) -> mx.array:
    """Softmax over the last axis of a 2-D array (any float dtype; output in x's dtype)."""
    rows, cols = x.shape
    return softmax_kernel[(rows,)](x.reshape(-1), empty((rows, cols), x.dtype), cols, cols, BLOCK=block,
                                   num_warps=num_warps, backend=backend)


def reference(x: mx.array) -> mx.array:
    return mx.softmax(x.astype(mx.float32), axis=-1).astype(x.dtype)


__all__ = ["softmax", "softmax_kernel", "reference", "cdiv"]
