"""Row normalisations: RMS norm, residual add + RMS norm (returns the sum too, as LLM blocks need it)
and layer norm with mean/rstd outputs. One program per row, the row in one tile (BLOCK >= n_cols)."""
from __future__ import annotations

import mlx.core as mx

from .. import language as tl
from ..autotune import Config, Space, autotune
from ..launcher import empty, jit
from . import register

WARPS = Space({"num_warps": [1, 2, 4, 8]})


def default_warps(named: dict) -> Config:
    """The untuned config and every search's first trial: the row is one tile of BLOCK elements, so
    enough warps for about 32 elements per thread (one warp on an 8192-wide row needs 256 registers
    per thread and spills: ncu on the H200 showed 12% of warps active). A guess, not a measurement."""
    return Config({}, num_warps=max(1, min(8, named["BLOCK"] // (32 * 32))))


def next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _rms_args(shape: tuple, dtype: mx.Dtype):
    rows, cols = shape
    x, r, w = mx.random.normal(shape).astype(dtype), mx.random.normal(shape).astype(dtype), \
        mx.random.normal((cols,)).astype(dtype)
    return (rows,), (x.reshape(-1), r.reshape(-1), w, empty(shape, dtype), empty(shape, dtype), cols, 1e-5,
                     next_pow2(cols))


def _rms_reference(x, r, w, out, total, n_cols, eps, *meta):
    return add_rms_norm_reference(x.reshape(-1, n_cols), r.reshape(-1, n_cols), w, eps)


def _rows_cols(named: dict) -> tuple:
    """The (rows, cols) shape the tune_args take, of a launch over flat rows of `n_cols`."""
    return named["x_ptr"].size // named["n_cols"], named["n_cols"]


def _plain_rms_args(shape: tuple, dtype: mx.Dtype):
    rows, cols = shape
    x, w = mx.random.normal(shape).astype(dtype), mx.random.normal((cols,)).astype(dtype)
    return (rows,), (x.reshape(-1), w, empty(shape, dtype), cols, 1e-5, next_pow2(cols))


def _plain_rms_reference(x, w, out, n_cols, eps, *meta):
    return rms_norm_reference(x.reshape(-1, n_cols), w, eps)


def _ln_args(shape: tuple, dtype: mx.Dtype):
    rows, cols = shape
    x, w, b = mx.random.normal(shape).astype(dtype), mx.random.normal((cols,)).astype(dtype), \
        mx.random.normal((cols,)).astype(dtype)
    return (rows,), (x.reshape(-1), w, b, empty(shape, dtype), empty((rows,), mx.float32),
                     empty((rows,), mx.float32), cols, 1e-5, next_pow2(cols))


def _ln_reference(x, w, b, out, mean, rstd, n_cols, eps, *meta):
    return layer_norm_reference(x.reshape(-1, n_cols), w, b, eps)


@jit
def rms_normalised(h, w_ptr, offs, mask, n_cols, eps):
    """A float32 row tile h (zero past n_cols) divided by its root mean square, times the weights."""
    rstd = 1.0 / tl.sqrt(tl.sum(h * h, axis=0) / n_cols + eps)
    return h * rstd * tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)


@register
@autotune(space=WARPS, key=["n_cols"], default=default_warps, reference=_plain_rms_reference, tune_args=_plain_rms_args,
          tune_shape=_rows_cols, shapes=[(8, 2048)], dtypes=[mx.float16])
@jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    y = rms_normalised(x, w_ptr, offs, mask, n_cols, eps)
    tl.store(out_ptr + row * n_cols + offs, y, mask=mask)


@register
@autotune(space=WARPS, key=["n_cols"], default=default_warps, reference=_rms_reference, tune_args=_rms_args,
          tune_shape=_rows_cols, shapes=[(8, 2048)], dtypes=[mx.float16])
@jit
def add_rms_norm_kernel(x_ptr, res_ptr, w_ptr, out_ptr, sum_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    h = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32) \
        + tl.load(res_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(sum_ptr + row * n_cols + offs, h, mask=mask)
    y = rms_normalised(h, w_ptr, offs, mask, n_cols, eps)
    tl.store(out_ptr + row * n_cols + offs, y, mask=mask)


@register
@autotune(space=WARPS, key=["n_cols"], default=default_warps, reference=_ln_reference, tune_args=_ln_args,
          tune_shape=_rows_cols, shapes=[(8, 2048)], dtypes=[mx.float32])
@jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, mean_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * n_cols + offs, xc * rstd * w + b, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


def _rows_of(x: mx.array) -> tuple[int, int]:
    """(rows, columns) of x (..., columns): the kernels read x as the flat buffer MLX hands them, so
    leading axes need no reshape (each would be one more node in MLX's graph per call)."""
    cols = x.shape[-1]
    return (x.size // cols if cols else 0), cols


def rms_norm(x: mx.array, weight: mx.array, eps: float = 1e-5, backend=None) -> mx.array:
    """rms_norm(x) * weight over the last axis of x (`mx.fast.rms_norm`), in x's dtype and shape."""
    rows, cols = _rows_of(x)
    return rms_norm_kernel[(rows,)](x, weight, empty(x.shape, x.dtype), cols, eps, next_pow2(cols), backend=backend)


def add_rms_norm(x: mx.array, residual: mx.array, weight: mx.array, eps: float = 1e-5,
                 backend=None) -> tuple[mx.array, mx.array]:
    """(rms_norm(x + residual) * weight, x + residual) over the last axis, in x's shape."""
    rows, cols = _rows_of(x)
    return add_rms_norm_kernel[(rows,)](x, residual, weight, empty(x.shape, x.dtype), empty(x.shape, x.dtype), cols,
                                        eps, next_pow2(cols), backend=backend)


def layer_norm(x: mx.array, weight: mx.array, bias: mx.array, eps: float = 1e-5,
               backend=None) -> tuple[mx.array, mx.array, mx.array]:
    """(layer_norm(x) * weight + bias, mean, rstd) over the last axis of x; mean and rstd have x's
    leading axes."""
    rows, cols = _rows_of(x)
    return layer_norm_kernel[(rows,)](x, weight, bias, empty(x.shape, x.dtype), empty(x.shape[:-1], mx.float32),
                                      empty(x.shape[:-1], mx.float32), cols, eps, next_pow2(cols), backend=backend)


def rms_norm_reference(x, weight, eps=1e-5):
    return mx.fast.rms_norm(x.astype(mx.float32), weight.astype(mx.float32), eps, stream=mx.cpu).astype(x.dtype)


def add_rms_norm_reference(x, residual, weight, eps=1e-5):
    h = x.astype(mx.float32) + residual.astype(mx.float32)
    return mx.fast.rms_norm(h, weight.astype(mx.float32), eps).astype(x.dtype), h.astype(x.dtype)


def layer_norm_reference(x, weight, bias, eps=1e-5):
    xf = x.astype(mx.float32)
    mean = xf.mean(-1)
    rstd = mx.rsqrt(((xf - mean[:, None]) ** 2).mean(-1) + eps)
    out = mx.fast.layer_norm(xf, weight.astype(mx.float32), bias.astype(mx.float32), eps)
    return out.astype(x.dtype), mean, rstd
