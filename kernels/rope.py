"""Rotary position embedding, MLX's `mx.fast.rope` over the whole head dimension: traditional=False
rotates the two halves of each head dimension together, traditional=True adjacent pairs. Rows are
(head, position) pairs of a (H, T, D) tensor; row r's position is `offset + r % T`, scaled by
`pos_scale`."""
from __future__ import annotations

import math

import mlx.core as mx

from .. import language as tl
from ..autotune import Config, Space, autotune
from ..launcher import cdiv, empty, jit
from . import register


def _tune_args(shape: tuple, dtype: mx.Dtype):
    heads, t, d = shape
    x = mx.random.normal(shape).astype(dtype)
    grid = lambda meta: (cdiv(heads * t, meta["BLOCK_R"]),)  # noqa: E731
    return grid, (x.reshape(-1), empty(shape, dtype), heads * t, t, math.log(10000.0), d // 2)


def _reference(x, out, n_rows, t, log_base, half, *meta):
    return reference(x.reshape(-1, t, 2 * half), math.exp(log_base))


def _tune_shape(named: dict) -> tuple:
    """The shape `_tune_args` takes for a launch: (heads, T, D)."""
    return named["n_rows"] // named["T"], named["T"], 2 * named["HALF"]


def default_config(named: dict) -> Config:
    """The untuned config and every search's first trial: about 8 rotated pairs per thread of 4
    warps (one row per 32-thread program left most of an H200 idle: 50% of warps active under ncu,
    10% of its bandwidth). A guess, not a measurement."""
    return Config({"BLOCK_R": max(1, min(32, 1024 // named["HALF"]))}, num_warps=4)


@register
@autotune(space=Space({"BLOCK_R": [1, 2, 4, 8, 16, 32], "num_warps": [1, 2, 4, 8]}), key=["n_rows", "HALF"],
          default=default_config, reference=_reference, tune_args=_tune_args, tune_shape=_tune_shape,
          shapes=[(4, 64, 128)],
          dtypes=[mx.float16],
          # angles are fp32 products position * frequency, computed differently by the reference: at
          # position 2238 of 4096 one element of 16.7M came out 1.07e-3 off (H200), past the fp16 default
          rtol=1e-3, atol=4e-3)
@jit(do_not_specialize=["offset"])  # the first position: one compile for every step of a generation
def rope_kernel(x_ptr, out_ptr, n_rows, T, log_base, HALF: tl.constexpr, BLOCK_R: tl.constexpr, offset=0,
                pos_scale=1.0, TRADITIONAL: tl.constexpr = False):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ok = rows < n_rows
    i = tl.arange(0, HALF)
    inv_freq = tl.exp(i.to(tl.float32) * (-log_base / HALF))
    theta = ((rows % T + offset).to(tl.float32) * pos_scale)[:, None] * inv_freq[None, :]
    c = tl.cos(theta)
    s = tl.sin(theta)
    first = rows[:, None] * (2 * HALF) + i[None, :]  # non-traditional: element i pairs with i + HALF
    partner = HALF
    if TRADITIONAL:  # element 2i pairs with 2i + 1
        first = rows[:, None] * (2 * HALF) + 2 * i[None, :]
        partner = 1
    x1 = tl.load(x_ptr + first, mask=ok[:, None], other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + first + partner, mask=ok[:, None], other=0.0).to(tl.float32)
    tl.store(out_ptr + first, x1 * c - x2 * s, mask=ok[:, None])
    tl.store(out_ptr + first + partner, x1 * s + x2 * c, mask=ok[:, None])


def rope(x: mx.array, base: float = 10000.0, offset: int = 0, scale: float = 1.0, traditional: bool = False,
         backend=None) -> mx.array:
    """RoPE over x (..., T, D) (D even; (H, T, D), or mlx-lm's (B, H, T, D), as it comes: no reshape)
    with positions offset..offset+T-1 along the second-to-last axis, each times `scale`."""
    t, d = x.shape[-2], x.shape[-1]
    rows = x.size // d
    grid = lambda meta: (cdiv(rows, meta["BLOCK_R"]),)  # noqa: E731
    return rope_kernel[grid](x, empty(x.shape, x.dtype), rows, t, math.log(base), d // 2, offset=offset,
                             pos_scale=scale, TRADITIONAL=traditional, backend=backend)


def reference(x: mx.array, base: float = 10000.0, offset: int = 0, scale: float = 1.0,
              traditional: bool = False) -> mx.array:
    return mx.fast.rope(x.astype(mx.float32)[None], x.shape[-1], traditional=traditional, base=base, scale=scale,
                        offset=offset)[0].astype(x.dtype)
