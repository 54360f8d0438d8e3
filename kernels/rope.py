"""Rotary position embedding, MLX's `mx.fast.rope` over the whole head dimension: traditional=False
rotates the two halves of each head dimension together, traditional=True adjacent pairs. x is
(heads, T, D) as it lies in memory (mlx-lm's (B, H, T, D): B * H heads); position t's angle is
`(offset + t) * pos_scale` times each pair's frequency. A program takes BLOCK_T positions and
computes their sines and cosines once for HEADS heads: the angles are the same for every head, and
their sine and cosine cost more than moving the elements (RoPE moved 58-71% of the H200's copy
bandwidth computing them for every (head, position) row)."""
from __future__ import annotations

import math
from typing import Callable

import mlx.core as mx

from .. import language as tl
from ..autotune import Config, Space, autotune
from ..launcher import cdiv, empty, jit
from . import register

PROGRAMS = 1024  # the default config shares angles between heads only while this many programs remain


def grid(heads: int, t: int) -> Callable[[dict], tuple]:
    """The launch grid of `heads` heads of t positions: (position blocks, head groups)."""
    return lambda meta: (cdiv(t, meta["BLOCK_T"]), cdiv(heads, meta["HEADS"]))


def _tune_args(shape: tuple, dtype: mx.Dtype):
    heads, t, d = shape
    x = mx.random.normal(shape).astype(dtype)
    return grid(heads, t), (x, empty(shape, dtype), heads, t, math.log(10000.0), d // 2)


def _reference(x, out, n_heads, t, log_base, half, *meta):
    return reference(x.reshape(-1, t, 2 * half), math.exp(log_base))


def _tune_shape(named: dict) -> tuple:
    """The shape `_tune_args` takes for a launch: (heads, T, D)."""
    return named["n_heads"], named["T"], 2 * named["HALF"]


def default_config(named: dict) -> Config:
    """The untuned config and every search's first trial: about 8 rotated pairs per thread of up to 4
    warps (one row per 32-thread program left most of an H200 idle: 50% of warps active under ncu,
    10% of its bandwidth), positions first, then heads sharing the angles while at least PROGRAMS
    programs are left (a decode step's few rows stay one head a program, side by side). A guess, not
    a measurement."""
    half, t, heads = named["HALF"], named.get("T") or 1, named.get("n_heads") or 1
    block_t = max(1, min(32, 1024 // half, 1 << max(0, (t - 1).bit_length())))
    share = 1
    while share < 8 and cdiv(t, block_t) * cdiv(heads, 2 * share) >= PROGRAMS:
        share *= 2
    return Config({"BLOCK_T": block_t, "HEADS": share}, num_warps=max(1, min(4, block_t * half // 256)))


@register
@autotune(space=Space({"BLOCK_T": [1, 2, 4, 8, 16, 32], "HEADS": [1, 2, 4, 8, 16], "num_warps": [1, 2, 4, 8]}),
          key=["n_heads", "T", "HALF"], default=default_config, reference=_reference, tune_args=_tune_args,
          tune_shape=_tune_shape, shapes=[(4, 64, 128)], dtypes=[mx.float16],
          # angles are fp32 products position * frequency, computed differently by the reference: at
          # position 2238 of 4096 one element of 16.7M came out 1.07e-3 off (H200), past the fp16 default
          rtol=1e-3, atol=4e-3)
@jit(do_not_specialize=["offset"])  # the first position: one compile for every step of a generation
def rope_kernel(x_ptr, out_ptr, n_heads, T, log_base, HALF: tl.constexpr, BLOCK_T: tl.constexpr,
                HEADS: tl.constexpr, offset=0, pos_scale=1.0, TRADITIONAL: tl.constexpr = False):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    i = tl.arange(0, HALF)
    inv_freq = tl.exp(i.to(tl.float32) * (-log_base / HALF))
    theta = ((t + offset).to(tl.float32) * pos_scale)[:, None] * inv_freq[None, :]
    c = tl.cos(theta)
    s = tl.sin(theta)
    first = t[:, None] * (2 * HALF) + i[None, :]  # non-traditional: element i pairs with i + HALF
    partner = HALF
    if TRADITIONAL:  # element 2i pairs with 2i + 1
        first = t[:, None] * (2 * HALF) + 2 * i[None, :]
        partner = 1
    for j in range(HEADS):  # the heads of this program: the same angles
        head = tl.program_id(1) * HEADS + j
        ok = (t < T)[:, None] & (head < n_heads)
        x_head = x_ptr + head * T * (2 * HALF)
        out_head = out_ptr + head * T * (2 * HALF)
        x1 = tl.load(x_head + first, mask=ok, other=0.0).to(tl.float32)
        x2 = tl.load(x_head + first + partner, mask=ok, other=0.0).to(tl.float32)
        tl.store(out_head + first, x1 * c - x2 * s, mask=ok)
        tl.store(out_head + first + partner, x1 * s + x2 * c, mask=ok)


def rope(x: mx.array, base: float = 10000.0, offset: int = 0, scale: float = 1.0, traditional: bool = False,
         backend=None) -> mx.array:
    """RoPE over x (..., T, D) (D even; (H, T, D), or mlx-lm's (B, H, T, D), as it comes: no reshape)
    with positions offset..offset+T-1 along the second-to-last axis, each times `scale`."""
    t, d = x.shape[-2], x.shape[-1]
    heads = x.size // (t * d)
    return rope_kernel[grid(heads, t)](x, empty(x.shape, x.dtype), heads, t, math.log(base), d // 2, offset=offset,
                             pos_scale=scale, TRADITIONAL=traditional, backend=backend)


def reference(x: mx.array, base: float = 10000.0, offset: int = 0, scale: float = 1.0,
              traditional: bool = False) -> mx.array:
    return mx.fast.rope(x.astype(mx.float32)[None], x.shape[-1], traditional=traditional, base=base, scale=scale,
                        offset=offset)[0].astype(x.dtype)
