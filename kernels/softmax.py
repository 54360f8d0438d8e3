"""Row softmax: one program per row, fp32 math; a row that fits the block is read once, a longer one
twice (online max/sum over column blocks, then the normalising pass)."""
from __future__ import annotations

import mlx.core as mx

from .. import language as tl
from ..autotune import Config, Space, autotune, pow2
from ..launcher import empty, jit
from . import register

MIN_BLOCK = 32          # one SIMD group's width: the smallest useful block
MAX_PER_THREAD = 32     # columns per thread in a block: each keeps a running max and sum (fp32) and its x,
                        # so 32 already takes ~128 registers; beyond that CUDA and Metal spill
MAX_BLOCK = 32768       # a 32000-token vocabulary row in one block: read once (two reads above it)
MAX_WARPS = 32          # 1024 threads: Metal's and CUDA's threadgroup limit


def _next_pow2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def _fills_threads(c: dict) -> bool:
    """At least one column per thread: a smaller block leaves threads repeating others' loads."""
    return c["BLOCK"] >= 32 * c["num_warps"]


def _fits_registers(c: dict) -> bool:
    """At most MAX_PER_THREAD columns per thread (see there)."""
    return c["BLOCK"] <= MAX_PER_THREAD * 32 * c["num_warps"]


def fits_row(meta: dict, named: dict) -> bool:
    """Prune blocks wider than the row rounded up to a power of two: they only add masked lanes.
    A prune, not a Space constraint: the row length is an argument."""
    return meta["BLOCK"] <= max(MIN_BLOCK, _next_pow2(named["n_cols"]))


def default_config(named: dict) -> Config:
    """The untuned config and every search's first trial, from the row length: a block of the row's
    next power of two (one step over rows up to MAX_BLOCK, MAX_BLOCK-column steps over longer ones) with
    16 columns per thread, up to MAX_WARPS (then up to 32 columns). A guess aimed at GPUs, not a
    measurement (on the emulator one warp is fastest: its threads are a CPU's loop iterations); on
    the H200 4096 rows of 32000 fp16 columns in one block of 1024 threads ran 178 us against 215 us
    at best for two reads of smaller blocks, and MLX's 181 us (docs/benchmarks.md)."""
    block = min(MAX_BLOCK, max(MIN_BLOCK, _next_pow2(named["n_cols"])))
    return Config({"BLOCK": block}, num_warps=max(1, min(MAX_WARPS, block // (32 * 16))))


def _reference(x_flat, out, n_cols, row_stride, *meta):
    return reference(x_flat.reshape(-1, n_cols))


def _tune_args(shape: tuple, dtype: mx.Dtype):
    rows, cols = shape
    x = mx.random.normal(shape).astype(dtype)
    return (rows,), (x.reshape(-1), empty(shape, dtype), cols, cols)


@register
# BLOCK up to MAX_BLOCK (a 32000-column vocabulary row in one step); 1-32 warps (<= 1024 threads, valid on
# Metal and CUDA).
@autotune(space=Space({"BLOCK": pow2(MIN_BLOCK, MAX_BLOCK), "num_warps": [1, 2, 4, 8, 16, MAX_WARPS]},
                      constraints=[_fills_threads, _fits_registers]),
          key=["n_cols"], prune=fits_row, default=default_config, reference=_reference, tune_args=_tune_args,
          tune_shape=lambda named: (named["x_ptr"].size // named["n_cols"], named["n_cols"]), shapes=[(8, 4000)], dtypes=[mx.float16])
@jit
def softmax_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * row_stride
    if n_cols <= BLOCK:  # the row fits one block: read it once and keep it (the loops below read it twice)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + base + offs, e / tl.sum(e, axis=0), mask=mask)
        return
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
