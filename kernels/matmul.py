"""Tiled matrix product C = A @ B of row-major A (M, K) and B (K, N) on `tl.dot` (simdgroup matrices on
Metal), fp32 accumulation, output in the output array's dtype. Programs walk the output tiles in
groups of GROUP_M tile rows, so the A rows and B columns that neighbouring programs read are still
in cache (Triton's grouped order). Any M, N, K: every edge is masked. `linear` is a layer's
x @ W^T + b with W (N, K) as stored (`mlx.nn.Linear`), the bias added to the accumulator."""
from __future__ import annotations

from typing import Callable

import mlx.core as mx

from .. import language as tl
from ..autotune import Config, Space, autotune
from ..launcher import cdiv, empty, jit
from . import register


# Tile sides up to 256 (the CUDA back end's 227 KiB of shared memory holds 128x256 and 256x128 with
# 64-deep K steps in three stages; Metal's 32 KiB does not: the compiler's count of the kernel's
# threadgroup memory decides, and the tuner records a config over it as invalid, not a failure).
MATMUL_TILES = [16, 32, 64, 128, 256]
# 0: operands straight from device memory into fragments; 1: staged in threadgroup memory; 2 and
# more: staged in that many buffers, the next K steps' tiles loaded ahead (one barrier per step;
# on Metal above 2 acts as 2, on CUDA up to 4 cp.async stages)
MATMUL_STAGES = [1, 2, 3, 4, 0]
# Hopper's warpgroup MMA (CUDA on sm_90, docs/dot.md): a search on a back end without it leaves the
# choice out (`Space.on`); a tile it cannot take compiles to its mma.sync twin, timed once.
MATMUL_WGMMA = [False, True]


def launch_grid(m: int, n: int) -> Callable[[dict], tuple]:
    """The launch grid: one program per output tile, for any tile size the tuner picks."""
    return lambda meta: (cdiv(m, meta["BLOCK_M"]) * cdiv(n, meta["BLOCK_N"]),)


def _tune_args(shape: tuple, dtype: mx.Dtype):
    m, n, k = shape
    a, b = mx.random.normal((m, k)).astype(dtype), mx.random.normal((k, n)).astype(dtype)
    return launch_grid(m, n), (a, b, empty((m, n), dtype), m, n, k)


def _reference(a, b, c, m, n, k, *meta):
    return reference(a, b, c.dtype)


def _tune_shape(named: dict) -> tuple:
    return named["M"], named["N"], named["K"]


@register
@autotune(space=Space({"BLOCK_M": MATMUL_TILES, "BLOCK_N": MATMUL_TILES, "BLOCK_K": [16, 32, 64, 128],
                       "GROUP_M": [1, 8], "num_warps": [2, 4, 8], "num_stages": MATMUL_STAGES,
                       "wgmma": MATMUL_WGMMA}),
          key=["M", "N", "K"], reference=_reference, tune_args=_tune_args,
          tune_shape=_tune_shape,
          # untuned: a mid-size tile that fits threadgroup memory for fp32 too (the space's first point is 16x16)
          default=Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=4),
          shapes=[(64, 96, 80)], dtypes=[mx.float16],
          rtol=2e-3, atol=1e-2)  # fp16 output of a K-long fp32 sum: summation order moves the last bit
@jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may have fewer tile rows
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a: mx.array, b: mx.array, backend=None) -> mx.array:
    """a @ b for 2-D a (M, K) and b (K, N) of one float dtype (fp16, bf16 or fp32; the output's too),
    with the tile sizes tuned for this machine and shape."""
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2 or a.dtype != b.dtype:
        raise ValueError(f"matmul of {a.shape} {a.dtype} and {b.shape} {b.dtype}: inner sizes and dtypes must match")
    return matmul_kernel[launch_grid(m, n)](a, b, empty((m, n), a.dtype), m, n, k, backend=backend)


def reference(a: mx.array, b: mx.array, dtype: mx.Dtype | None = None) -> mx.array:
    """a @ b in float32 on the CPU (not the GPU matmul the benchmark compares against, which may round
    through TF32), rounded to `dtype` (default a's)."""
    out = mx.matmul(a.astype(mx.float32), b.astype(mx.float32), stream=mx.cpu)
    return out.astype(a.dtype if dtype is None else dtype)


def linear_grid(m: int, n: int) -> Callable[[dict], tuple]:
    """The launch grid of `linear_kernel`: (row tiles, column tiles)."""
    return lambda meta: (cdiv(m, meta["BLOCK_M"]), cdiv(n, meta["BLOCK_N"]))


def _linear_tune_args(shape: tuple, dtype: mx.Dtype):
    m, n, k = shape
    x, w, b = (mx.random.normal(s).astype(dtype) for s in ((m, k), (n, k), (n,)))
    return linear_grid(m, n), (x, w, b, empty((m, n), dtype), m, n, k, True)


def _linear_reference(x, w, b, out, m, n, k, has_bias, *meta):
    return linear_reference(x, w, b if has_bias else None)


@jit
def output_tile(BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """The rows and columns of the output tile of a program of a (row tiles, column tiles) grid."""
    return (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N))


@jit
def load_tile(ptr, rows, cols, n_rows, n_cols):
    """The (rows, cols) tile of a row-major (n_rows, n_cols) matrix, zero outside it."""
    return tl.load(ptr + rows[:, None] * n_cols + cols[None, :], mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols),
                   other=0.0)


@register
@autotune(space=Space({"BLOCK_M": MATMUL_TILES, "BLOCK_N": MATMUL_TILES, "BLOCK_K": [16, 32, 64, 128],
                       "num_warps": [2, 4, 8], "num_stages": MATMUL_STAGES, "wgmma": MATMUL_WGMMA}),
          key=["M", "N", "K"], reference=_linear_reference, tune_args=_linear_tune_args,
          tune_shape=_tune_shape, default=Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4),
          shapes=[(64, 96, 80)], dtypes=[mx.float16], rtol=2e-3, atol=1e-2)  # as matmul_kernel
@jit
def linear_kernel(x_ptr, w_ptr, bias_ptr, out_ptr, M, N, K, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """out (M, N) = x (M, K) @ W^T [+ bias]: W's (BLOCK_K, BLOCK_N) block read transposed from its rows."""
    rm, rn = output_tile(BLOCK_M, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = load_tile(x_ptr, rm, rk, M, K)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, w, acc)
    if HAS_BIAS:
        acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def linear(x: mx.array, weight: mx.array, bias: mx.array | None = None, backend=None) -> mx.array:
    """x @ weight^T + bias for x (M, K), weight (N, K), bias (N,) or None, of one float dtype."""
    (m, k), (n, k2) = x.shape, weight.shape
    if k != k2 or x.dtype != weight.dtype or (bias is not None and (bias.shape != (n,) or bias.dtype != x.dtype)):
        raise ValueError(f"linear of x {x.shape} {x.dtype}, weight {weight.shape} {weight.dtype}, bias "
                         f"{None if bias is None else (bias.shape, bias.dtype)}: expected weight (N, K) and bias (N,) "
                         "of x's dtype")
    return linear_kernel[linear_grid(m, n)](x, weight, weight if bias is None else bias, empty((m, n), x.dtype), m, n,
                                            k, bias is not None, backend=backend)


def linear_reference(x: mx.array, weight: mx.array, bias: mx.array | None = None) -> mx.array:
    """x @ weight^T (+ bias) in float32 on the CPU, rounded to x's dtype."""
    out = mx.matmul(x.astype(mx.float32), weight.astype(mx.float32).T, stream=mx.cpu)
    return (out if bias is None else out + bias.astype(mx.float32)).astype(x.dtype)
