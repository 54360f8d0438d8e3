"""`tl.dot` kernels on the emulator (simdgroup matrices), checked against float64 numpy.

Odd M, N, K so every edge mask matters, poisoned outputs, fp32/fp16/bf16 inputs with fp32
accumulation, transposed operands (by strides and by `tl.trans`), fused epilogues, a dequantised
4-bit operand, batched products on a third program axis and causal GQA flash attention (the
library's kernel), in which one dot feeds another.
"""
from __future__ import annotations

import math
import re

import mlx.core as mx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import metalforge as mf
import metalforge.language as tl
from metalforge.errors import KernelDefinitionError, LaunchConfigError, SharedMemoryLimitError
from metalforge.kernels import flash_attention as library_flash_attention

from .kutil import close, generated, loop_body, mxa, npy

DTYPES = {"float32": (mx.float32, 2e-5), "float16": (mx.float16, 2e-3), "bfloat16": (mx.bfloat16, 1.6e-2)}


def inputs(rng, dtype, *shape):
    """A random MLX array of `dtype` and the float64 values it holds (the reference's inputs)."""
    x = mx.array(rng.uniform(-1, 1, size=shape).astype(np.float32)).astype(dtype)
    return x, npy(x.astype(mx.float32)).astype(np.float64)


def to64(x: mx.array) -> np.ndarray:
    return npy(x.astype(mx.float32)).astype(np.float64)


def check(got: mx.array, want: np.ndarray, tol: float) -> None:
    """Within `tol` of the largest reference value (the output's rounding and fp32 accumulation)."""
    close(to64(got), want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max())))


# --- tiled matmul: 2-D strides, K loop, grouped program order, fused epilogue ---------------------
@mf.jit
def matmul(a_ptr, b_ptr, c_ptr, bias_ptr, res_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
           stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
           GROUP_M: tl.constexpr, HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr, HAS_RESIDUAL: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
    if HAS_BIAS:
        acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    if ACTIVATION == 1:  # relu
        acc = tl.maximum(acc, 0.0)
    if ACTIVATION == 2:  # silu
        acc = acc * tl.sigmoid(acc)
    if HAS_RESIDUAL:
        acc += tl.load(res_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, mask=cmask,
                       other=0.0).to(tl.float32)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty), mask=cmask)


def run_matmul(a, b, M, N, K, a_strides, b_strides, dtype, blocks=(32, 32, 16), num_warps=4, group_m=2,
               bias=None, activation=0, residual=None, num_stages=None, matmul2d=False):
    bm, bn, bk = blocks
    grid = (mf.cdiv(M, bm) * mf.cdiv(N, bn),)
    dummy = mx.zeros((1,), dtype)
    return matmul[grid](a, b, mf.empty((M, N), dtype), bias if bias is not None else dummy,
                        residual if residual is not None else dummy, M, N, K, *a_strides, *b_strides, N, 1,
                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group_m, HAS_BIAS=bias is not None,
                        ACTIVATION=activation, HAS_RESIDUAL=residual is not None, num_warps=num_warps,
                        num_stages=num_stages, matmul2d=matmul2d)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("num_stages", [None, 2, 0], ids=["staged", "double_buffered", "from_device"])
def test_matmul_masks_every_edge(rng, dtype, num_stages):
    """Operands staged in threadgroup memory (one buffer, or two alternating per K step), or
    (num_stages=0) read straight from device memory."""
    mxt, tol = DTYPES[dtype]
    M, N, K = (int(rng.integers(20, 70)) | 1 for _ in range(3))  # no multiple of any tile size
    a, a64 = inputs(rng, mxt, M, K)
    b, b64 = inputs(rng, mxt, K, N)
    out = run_matmul(a, b, M, N, K, (K, 1), (N, 1), mxt, num_stages=num_stages)
    assert out.dtype == mxt
    msl = generated(matmul)
    staging = re.findall(r"(?:threadgroup|__shared__ __align__\(16\)) \w+ \w+_smem\[(\d+)\]", msl)
    assert len(staging) == (0 if num_stages == 0 else 2), staging
    if num_stages == 2:  # two buffers of the padded tiles, and one barrier per K step
        assert staging == [str(2 * 32 * (16 + 16 // a.itemsize)), str(2 * 16 * (32 + 16 // a.itemsize))], staging
        k_loop = msl[msl.index("for (int k0"):]
        assert k_loop.count("threadgroup_barrier") + k_loop.count("__syncthreads") == 1 and "stage" in k_loop
    check(out, a64 @ b64, tol)


@pytest.mark.parametrize("num_warps,blocks", [(1, (16, 8, 8)), (2, (8, 64, 32)), (8, (64, 32, 8))])
def test_matmul_tiles_and_simdgroups(rng, num_warps, blocks):
    """Simdgroup grids of every shape: one simdgroup, more simdgroups than fragments (replicas)."""
    M, N, K = 33, 71, 29
    a, a64 = inputs(rng, mx.float32, M, K)
    b, b64 = inputs(rng, mx.float32, K, N)
    check(run_matmul(a, b, M, N, K, (K, 1), (N, 1), mx.float32, blocks, num_warps), a64 @ b64, 2e-5)


@pytest.mark.parametrize("num_warps,warps_m,grid", [(4, 1, (1, 4)), (4, 4, (4, 1)), (4, 2, (2, 2)), (8, 8, (4, 1))])
def test_matmul_simdgroup_arrangement_is_a_launch_setting(rng, num_warps, warps_m, grid):
    """`warps_m` puts that many simdgroups along M (at most one per fragment row: 32 rows hold 4, so
    8 along M leaves 4 replicas) and num_warps / warps_m along N; every arrangement computes the
    same product."""
    M, N, K = 37, 45, 29
    a, a64 = inputs(rng, mx.float32, M, K)
    b, b64 = inputs(rng, mx.float32, K, N)
    bm, bn, bk = 32, 32, 16
    out = matmul[(mf.cdiv(M, bm) * mf.cdiv(N, bn),)](
        a, b, mf.full((M, N), float("nan")), mx.zeros((1,)), mx.zeros((1,)), M, N, K, K, 1, N, 1, N, 1,
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=2, HAS_BIAS=False, ACTIVATION=0, HAS_RESIDUAL=False,
        num_warps=num_warps, warps_m=warps_m)
    layouts = matmul.asm["layouts"]
    assert f"warps={grid}, num_warps={num_warps}" in layouts, layouts
    check(out, a64 @ b64, 2e-5)


def test_simdgroup_arrangement_errors_name_the_kernel():
    d = mx.zeros((1,), mx.float16)
    args = (d, d, mf.empty((64, 64), mx.float16), d, d, 64, 64, 32, 32, 1, 64, 1, 64, 1)
    meta = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=1, HAS_BIAS=False, ACTIVATION=0, HAS_RESIDUAL=False)
    for bad in (3, 8, 0):
        with pytest.raises(LaunchConfigError, match=rf"matmul: warps_m={bad} with num_warps=4; use a power of two"):
            matmul.compile(*args, num_warps=4, warps_m=bad, target="msl", **meta)


def test_matmul_transposed_operands_by_strides(rng):
    M, N, K = 41, 23, 37
    at, at64 = inputs(rng, mx.float16, K, M)  # A stored transposed: A[m, k] = at[k, m]
    bt, bt64 = inputs(rng, mx.float16, N, K)  # B stored as [N, K], as linear layers keep weights
    check(run_matmul(at, bt, M, N, K, (1, M), (1, K), mx.float16), at64.T @ bt64.T, 2e-3)


@pytest.mark.parametrize("activation", [1, 2])
def test_matmul_fused_epilogue(rng, activation):
    M, N, K = 45, 39, 50
    a, a64 = inputs(rng, mx.float16, M, K)
    b, b64 = inputs(rng, mx.float16, K, N)
    bias, bias64 = inputs(rng, mx.float16, N)
    res, res64 = inputs(rng, mx.float16, M, N)
    out = run_matmul(a, b, M, N, K, (K, 1), (N, 1), mx.float16, bias=bias, activation=activation, residual=res)
    y = a64 @ b64 + bias64[None, :]
    y = np.maximum(y, 0) if activation == 1 else y / (1 + np.exp(-y))
    check(out, y + res64, 2e-3)


@mf.jit
def load_rows(ptr, rows, cols, n_rows, n_cols):
    """Tile [rows, cols] of a row-major [n_rows, n_cols] matrix, zero outside (an inlined helper)."""
    return tl.load(ptr + rows[:, None] * n_cols + cols[None, :],
                   mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols), other=0.0)


# --- transposed tile: A @ B^T with B loaded as [N, K] and tl.trans ---------------------------------
@mf.jit
def matmul_nt(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = load_rows(a_ptr, rm, ks, M, K)
        b = tl.load(b_ptr + rn[:, None] * K + ks[None, :], mask=(rn[:, None] < N) & (ks[None, :] < K), other=0.0)
        acc += tl.dot(a, tl.trans(b))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_matmul_trans_tile(rng):
    M, N, K = 27, 35, 43
    a, a64 = inputs(rng, mx.bfloat16, M, K)
    b, b64 = inputs(rng, mx.bfloat16, N, K)
    out = matmul_nt[(mf.cdiv(M, 16), mf.cdiv(N, 32))](a, b, mf.empty((M, N), mx.float32), M, N, K,
                                                       BLOCK_M=16, BLOCK_N=32, BLOCK_K=16, num_warps=2)
    check(out, a64 @ b64.T, 2e-5)  # bf16 inputs are exact in fp32; fp32 output


# --- matmul with a dequantised 4-bit operand (MLX's format, group size 64) ------------------------
@mf.jit
def quantized_matmul(x_ptr, wq_ptr, s_ptr, b_ptr, out_ptr, M, N, K, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        x = load_rows(x_ptr, rm, ks, M, K)
        wmask = (ks[:, None] < K) & (rn[None, :] < N)
        words = tl.load(wq_ptr + rn[None, :] * (K // 8) + (ks // 8)[:, None], mask=wmask, other=0)
        q = (words >> ((ks % 8) * 4)[:, None]) & 0xF
        g = rn[None, :] * (K // GROUP) + (ks // GROUP)[:, None]
        scale = tl.load(s_ptr + g, mask=wmask, other=0.0)
        bias = tl.load(b_ptr + g, mask=wmask, other=0.0)
        w = (scale.to(tl.float32) * q.to(tl.float32) + bias.to(tl.float32)).to(tl.float16)  # [BLOCK_K, BLOCK_N]
        acc += tl.dot(x, w)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_quantized_matmul(rng):
    M, N, K = 13, 40, 64 * 3  # K is not a multiple of BLOCK_K=128
    w = mx.array(rng.standard_normal((N, K)).astype(np.float32)).astype(mx.float16)
    x, x64 = inputs(rng, mx.float16, M, K)
    wq, scales, biases = mx.quantize(w, group_size=64, bits=4)
    out = quantized_matmul[(mf.cdiv(M, 16), mf.cdiv(N, 32))](
        x, wq.reshape(-1), scales.reshape(-1), biases.reshape(-1), mf.empty((M, N), mx.float16), M, N, K,
        BLOCK_M=16, BLOCK_N=32, BLOCK_K=128, GROUP=64, num_warps=4)
    w_deq = to64(mx.dequantize(wq, scales, biases, group_size=64, bits=4))
    check(out, x64 @ w_deq.T, 2e-3)


# --- batched matmul on a third program axis --------------------------------------------------------
@mf.jit
def batched_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr):
    batch = tl.program_id(2)
    a_ptr += batch * M * K
    b_ptr += batch * K * N
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = load_rows(a_ptr, rm, ks, M, K)
        b = tl.load(b_ptr + ks[:, None] * N + rn[None, :], mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + batch * M * N + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_batched_matmul(rng):
    B, M, N, K = 3, 19, 21, 40
    a, a64 = inputs(rng, mx.float16, B, M, K)
    b, b64 = inputs(rng, mx.float16, B, K, N)
    out = batched_matmul[(mf.cdiv(M, 16), mf.cdiv(N, 16), B)](a, b, mf.empty((B, M, N), mx.float16), M, N, K,
                                                              BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, num_warps=2)
    check(out, a64 @ b64, 2e-3)


# --- dots on per-thread multiply-adds: int8 -> int32, float16 accumulated in float16, 3-D -----------
@mf.jit
def matmul_out(a_ptr, b_ptr, c_ptr, M, N, K, OUT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr):
    """C = A @ B accumulated in OUT over a K loop (tl.dot's out_dtype; int32 for int8 operands)."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=OUT)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + ks[None, :], mask=(rm[:, None] < M) & (ks[None, :] < K), other=0)
        b = tl.load(b_ptr + ks[:, None] * N + rn[None, :], mask=(ks[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, out_dtype=OUT)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@mf.jit
def batched_dot(a_ptr, b_ptr, c_ptr, B, M, N, K, BLOCK_B: tl.constexpr, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C[b] = A[b] @ B[b] as one 3-D tl.dot per K step, BLOCK_B batches per program; the result in
    float32 (int32 for int8 operands) plus 1, so the epilogue reads the dot's registers."""
    rb = tl.program_id(2) * BLOCK_B + tl.arange(0, BLOCK_B)[:, None, None]
    rm = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M))[None, :, None]
    rn = (tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N))[None, None, :]
    acc = tl.zeros((BLOCK_B, BLOCK_M, BLOCK_N), dtype=c_ptr.dtype.element_ty)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rb * M * K + rm * K + ks[None, None, :],
                    mask=(rb < B) & (rm < M) & (ks[None, None, :] < K), other=0)
        b = tl.load(b_ptr + rb * K * N + ks[None, :, None] * N + rn,
                    mask=(rb < B) & (ks[None, :, None] < K) & (rn < N), other=0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rb * M * N + rm * N + rn, acc + 1, mask=(rb < B) & (rm < M) & (rn < N))


def int8_inputs(rng, *shape) -> tuple[mx.array, np.ndarray]:
    x = rng.integers(-128, 128, size=shape).astype(np.int8)
    return mxa(x), x.astype(np.int64)


@pytest.mark.parametrize("num_stages", [None, 2, 0], ids=["staged", "double_buffered", "from_device"])
@pytest.mark.parametrize("blocks,num_warps", [((32, 16, 32), 4), ((16, 32, 16), 2)])
def test_int8_dot_accumulates_exactly_in_int32(rng, num_stages, blocks, num_warps):
    """Triton's rule: int8 operands give an int32 result; the sums of up to 130 products of +-128
    are exact in int32, so the result equals numpy's int64 product."""
    M, N, K = 37, 29, 130
    (a, a64), (b, b64) = int8_inputs(rng, M, K), int8_inputs(rng, K, N)
    bm, bn, bk = blocks
    out = matmul_out[(mf.cdiv(M, bm), mf.cdiv(N, bn))](a, b, mf.empty((M, N), mx.int32), M, N, K, OUT=tl.int32,
                                                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=num_warps,
                                                        num_stages=num_stages)
    np.testing.assert_array_equal(npy(out), (a64 @ b64).astype(np.int32))


def fp16_accumulation_bound(a64: np.ndarray, b64: np.ndarray, K: int) -> np.ndarray:
    """Error bound of a float16 sum of K float16 products (Higham, Accuracy and Stability, 3.1):
    |fl(sum) - sum| <= gamma_{K+1} * sum |a_k b_k| with u = 2**-11, gamma_n = n u / (1 - n u) (K
    additions and one product rounding per term), plus 2**-25 per operation for results in float16's
    subnormal range, where the relative bound does not hold."""
    u = 2.0 ** -11
    gamma = (K + 1) * u / (1 - (K + 1) * u)
    return gamma * (np.abs(a64) @ np.abs(b64)) + 2 * K * 2.0 ** -25


@pytest.mark.parametrize("num_stages", [None, 2])
def test_float16_dot_with_float16_out_dtype(rng, num_stages):
    M, N, K = 21, 35, 72
    (a, a64), (b, b64) = inputs(rng, mx.float16, M, K), inputs(rng, mx.float16, K, N)
    out = matmul_out[(mf.cdiv(M, 16), mf.cdiv(N, 32))](a, b, mf.empty((M, N), mx.float16), M, N, K, OUT=tl.float16,
                                                        BLOCK_M=16, BLOCK_N=32, BLOCK_K=16, num_stages=num_stages)
    got = to64(out)
    assert not np.isnan(got).any()
    assert (np.abs(got - a64 @ b64) <= fp16_accumulation_bound(a64, b64, K)).all()


def test_float16_out_dtype_accumulates_in_float16():
    """What sets float16 accumulation apart: 4096 products of 1 saturate a float16 sum at 2048
    (2048 + 1 rounds to even, 2048), where a float32 accumulator reaches 4096 (exact in float16)."""
    M, N, K = 8, 8, 4096
    ones = mx.ones((M, K), mx.float16), mx.ones((K, N), mx.float16)
    out = matmul_out[(1, 1)](*ones, mf.empty((M, N), mx.float16), M, N, K, OUT=tl.float16, BLOCK_M=8, BLOCK_N=8,
                             BLOCK_K=64, num_warps=1)
    np.testing.assert_array_equal(to64(out), np.full((M, N), 2048.0))
    out = matmul_out[(1, 1)](*ones, mf.empty((M, N), mx.float32), M, N, K, OUT=tl.float32, BLOCK_M=8, BLOCK_N=8,
                             BLOCK_K=64, num_warps=1)
    np.testing.assert_array_equal(to64(out), np.full((M, N), 4096.0))


@pytest.mark.parametrize("dtype", ["int8", "float32", "float16", "bfloat16"])
def test_batched_3d_dot(rng, dtype):
    """[B, M, K] @ [B, K, N] in one tl.dot, two batches per program, odd sizes so every mask (batch
    included) matters. Float operands accumulate in float32: |error| <= gamma_K * sum |a_k b_k| with
    u = 2**-24 (Higham 3.1; the operands' values are exact in float64), well under 1e-5 of it."""
    B, M, N, K = 3, 19, 13, 40
    if dtype == "int8":
        (a, a64), (b, b64) = int8_inputs(rng, B, M, K), int8_inputs(rng, B, K, N)
        out_type = mx.int32
    else:
        (a, a64), (b, b64) = inputs(rng, DTYPES[dtype][0], B, M, K), inputs(rng, DTYPES[dtype][0], B, K, N)
        out_type = mx.float32
    out = batched_dot[(mf.cdiv(M, 16), mf.cdiv(N, 8), mf.cdiv(B, 2))](
        a, b, mf.empty((B, M, N), out_type), B, M, N, K, BLOCK_B=2, BLOCK_M=16, BLOCK_N=8, BLOCK_K=16, num_warps=2)
    want = a64 @ b64 + 1
    if dtype == "int8":
        np.testing.assert_array_equal(npy(out), want.astype(np.int32))
    else:
        u = 2.0 ** -24
        bound = K * u / (1 - K * u) * (np.abs(a64) @ np.abs(b64)) + u * np.abs(want)  # and the + 1's rounding
        got = to64(out)
        assert not np.isnan(got).any() and (np.abs(got - want) <= bound).all()


# --- causal flash attention forward, GQA: dot(Q, K^T) feeds dot(P, V) ----------------------------
# The library's kernel (kernels/flash_attention.py), launched here with explicit tiles: the test
# covers the DSL, the library tests cover the tuned wrapper.
flash_attention = library_flash_attention.flash_attention_kernel.fn


def attention_reference(q, k, v, group):
    H, L, D = q.shape
    k, v = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)
    s = q @ k.transpose(0, 2, 1) / math.sqrt(D)
    s = np.where(np.tril(np.ones((L, L), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("D,blocks,num_stages", [(64, (16, 16), None), (128, (16, 8), None), (64, (16, 32), 0),
                                                 (64, (16, 16), 2)])
def test_flash_attention_causal_gqa(rng, D, blocks, num_stages):
    H, H_KV, L = 4, 2, int(rng.integers(20, 40)) | 1  # L is no multiple of the blocks
    q, q64 = inputs(rng, mx.float16, H, L, D)
    k, k64 = inputs(rng, mx.float16, H_KV, L, D)
    v, v64 = inputs(rng, mx.float16, H_KV, L, D)
    bm, bn = blocks
    out = flash_attention[(mf.cdiv(L, bm), H)](q, k, v, mf.empty((H, L, D), mx.float16), L, 1.0 / math.sqrt(D),
                                               GROUP=H // H_KV, D=D, CAUSAL=True, BLOCK_M=bm, BLOCK_N=bn,
                                               num_warps=2, num_stages=num_stages)
    # P is rounded to fp16 before the second product, as in Triton's kernel: ~1e-3 relative
    check(out, attention_reference(q64, k64, v64, H // H_KV), 4e-3)


# --- Metal 4 cooperative matmul (launch setting matmul2d=True) -------------------------------------
def metal_only() -> None:
    """matmul2d is Metal's: the cuda corpus run (gpu_bench.py --check) has no back end for it."""
    from metalforge.runtime import backends
    if backends.resolve().language != "msl":
        pytest.skip("matmul2d is a Metal 4 instruction; this run's back end renders CUDA")


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("num_stages", [None, 2], ids=["staged", "double_buffered"])
def test_matmul2d_masks_every_edge(rng, dtype, num_stages):
    """The same kernel with its tiles multiplied by matmul2d (emulated: docs/emulator.md), with a
    fused bias + SiLU epilogue; the product comes back through threadgroup memory each K step."""
    metal_only()
    mxt, tol = DTYPES[dtype]
    M, N, K = (int(rng.integers(20, 70)) | 1 for _ in range(3))
    a, a64 = inputs(rng, mxt, M, K)
    b, b64 = inputs(rng, mxt, K, N)
    bias, bias64 = inputs(rng, mxt, N)
    out = run_matmul(a, b, M, N, K, (K, 1), (N, 1), mxt, bias=bias, activation=2, num_stages=num_stages,
                     matmul2d=True)
    msl = generated(matmul)
    assert "mpp::tensor_ops::matmul2d<mf_desc, metal::execution_simdgroups<4>>" in msl
    assert "#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>" in msl
    assert "simdgroup_multiply_accumulate" not in msl
    k_loop = msl[msl.index("for (int k0"):msl.index("cmask = ")]  # staging, product, reading it back
    assert k_loop.count("threadgroup_barrier") == (2 if num_stages == 2 else 3), k_loop
    z = a64 @ b64 + bias64[None, :]
    check(out, z / (1 + np.exp(-z)), tol)


def test_matmul2d_reads_a_transposed_tile_in_place(rng):
    """`tl.trans(b)` of a staged [N, K] tile is passed as that tile with transpose_right set."""
    metal_only()
    M, N, K = 27, 35, 43
    a, a64 = inputs(rng, mx.bfloat16, M, K)
    b, b64 = inputs(rng, mx.bfloat16, N, K)
    out = matmul_nt[(mf.cdiv(M, 16), mf.cdiv(N, 32))](a, b, mf.empty((M, N), mx.float32), M, N, K,
                                                       BLOCK_M=16, BLOCK_N=32, BLOCK_K=16, num_warps=2,
                                                       matmul2d=True)
    assert "matmul2d_descriptor(16, 32, 16, false, true, false" in generated(matmul_nt)
    check(out, a64 @ b64.T, 2e-5)


def test_matmul2d_flash_attention(rng):
    """One cooperative matmul feeds another (S = Q K^T, then P V), two simdgroups, causal GQA."""
    metal_only()
    H, H_KV, L, D = 4, 2, int(rng.integers(20, 40)) | 1, 64
    q, q64 = inputs(rng, mx.float16, H, L, D)
    k, k64 = inputs(rng, mx.float16, H_KV, L, D)
    v, v64 = inputs(rng, mx.float16, H_KV, L, D)
    out = flash_attention[(mf.cdiv(L, 16), H)](q, k, v, mf.empty((H, L, D), mx.float16), L, 1.0 / math.sqrt(D),
                                               GROUP=H // H_KV, D=D, CAUSAL=True, BLOCK_M=16, BLOCK_N=16,
                                               num_warps=2, matmul2d=True)
    assert generated(flash_attention).count("mf_op.run(") == 2
    check(out, attention_reference(q64, k64, v64, H // H_KV), 4e-3)


def test_matmul2d_is_refused_off_metal():
    d = mx.zeros((1,), mx.float16)
    with pytest.raises(LaunchConfigError, match=r"matmul: matmul2d=True is Metal 4's cooperative matmul, which the "
                                                r"cuda target does not have"):
        matmul.compile(d, d, mf.empty((64, 64), mx.float16), d, d, 64, 64, 32, 32, 1, 64, 1, 64, 1,
                       BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=1, HAS_BIAS=False, ACTIVATION=0,
                       HAS_RESIDUAL=False, target="cuda", matmul2d=True)


# --- generated code and errors -----------------------------------------------------------------
def test_dot_lowers_to_simdgroup_matrices():
    d = mx.zeros((1,), mx.float16)
    msl = matmul.compile(d, d, mf.empty((64, 64), mx.float16), d, d, 64, 64, 32, 32, 1, 64, 1, 64, 1,
                         BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=1, HAS_BIAS=False, ACTIVATION=0,
                         HAS_RESIDUAL=False, num_warps=4, target="msl").asm["msl"]
    assert "simdgroup_matrix<float, 8, 8> acc[16];" in msl  # 4 simdgroups as 2x2, 4x4 fragments each
    assert "simdgroup_multiply_accumulate(acc[((i * 4) + j)], frag_a[i], frag_b[j], acc[((i * 4) + j)]);" in msl
    assert re.search(r"// \d+: acc = tl.dot\(a, b, acc\)", msl)  # the Python line it came from


@pytest.mark.parametrize("target,fragment,element", [("msl", "simdgroup_matrix<float, 8, 8>", "thread_elements()"),
                                                     ("cuda", "mf_frag<float, 4>", "e")])
@pytest.mark.parametrize("num_stages", [1, 2])
def test_accumulator_stays_in_fragments_across_the_k_loop(target, fragment, element, num_stages):
    """Steel's `Ctile`: the library matmul's accumulator is an array of fragments declared before the
    K loop; inside it only multiply-accumulates touch it (no copy into or out of registers), and the
    epilogue reads its elements once, after the loop."""
    from metalforge.kernels.matmul import matmul_kernel
    d = mx.zeros((1,), mx.float16)
    source = matmul_kernel.fn.compile(d, d, mf.empty((64, 64), mx.float16), 4096, 4096, 4096, BLOCK_M=64,
                                      BLOCK_N=64, BLOCK_K=32, GROUP_M=8, num_warps=4, num_stages=num_stages,
                                      target=target).asm[target]
    loop = loop_body(source, "for (int k0 = 0;")
    assert f"{fragment} acc[" in source.split("for (int k0 = 0;")[0]
    uses = [line for line in loop.split("\n") if re.search(r"\bacc\[", line)]
    assert uses and all("mma" in u or "multiply_accumulate" in u for u in uses), uses
    assert not re.search(r"float acc_\d*\[", loop)  # no register copy of the accumulator
    after = source[source.index(loop) + len(loop):]
    assert re.search(rf"acc\[\(k / \d\)\]\.{re.escape(element)}\[\(k % \d\)\]", after)


@mf.jit
def small_dot(a_ptr, o_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
    tl.store(o_ptr + r[:, None] * BLOCK + r[None, :], tl.dot(a, a))


@mf.jit
def dot_error(a_ptr, o_ptr, WHICH: tl.constexpr):
    r = tl.arange(0, 8)
    a = tl.load(a_ptr + r[:, None] * 8 + r[None, :])
    a3 = tl.reshape(tl.join(a, a), (2, 8, 8), can_reorder=True) if WHICH != "int16" else a
    if WHICH == "int16":
        c = tl.dot(a, a)
    elif WHICH == "rank":
        c = tl.sum(tl.dot(a3, a), axis=0)
    elif WHICH == "batch":
        c = tl.sum(tl.dot(a3, tl.reshape(tl.join(a3, a3), (4, 8, 8), can_reorder=True)), axis=0)
    elif WHICH == "bf16_out":
        c = tl.dot(a, a, out_dtype=tl.bfloat16)
    elif WHICH == "int32_out":
        c = tl.dot(a.to(tl.float16), a.to(tl.float16), out_dtype=tl.int32)
    elif WHICH == "int8_out_f16":
        c = tl.dot(a.to(tl.int8), a.to(tl.int8), out_dtype=tl.float16)
    else:  # an int8 product into a float32 accumulator
        c = tl.dot(a.to(tl.int8), a.to(tl.int8), tl.zeros((8, 8), tl.float32))
    tl.store(o_ptr + r[:, None] * 8 + r[None, :], c)


def test_dot_errors():
    with pytest.raises(KernelDefinitionError, match=r"at least 8 in every dimension.*\n(.|\n)*use BLOCK sizes"):
        small_dot[(1,)](mx.zeros((16,)), mf.empty((16,), mx.float32), BLOCK=4)


@pytest.mark.parametrize("which,dtype,message,fix", [
    ("int16", mx.int16, "tl.dot on tl.int16 tiles is not supported: integer products take int8", ".to(tl.int8)"),
    ("rank", mx.float32, "tl.dot needs [M, K] and [K, N] tiles, or [B, M, K] and [B, K, N], got [2, 8, 8] and [8, 8]",
     "transpose or reshape"),
    ("batch", mx.float32, "got [2, 8, 8] and [4, 8, 8]", "transpose or reshape"),
    ("bf16_out", mx.float16, "tl.dot(out_dtype=tl.bfloat16) on tl.float16 tiles is not supported", "convert the result"),
    ("int32_out", mx.float32, "tl.dot(out_dtype=tl.int32) on tl.float16 tiles is not supported", "out_dtype=tl.float32"),
    ("int8_out_f16", mx.float32, "tl.dot(out_dtype=tl.float16) on tl.int8 tiles is not supported", "tl.int32 for int8"),
    ("int8_float_acc", mx.float32, "tl.dot accumulator is f32[8,8], expected i32[8,8]", "int32 for int8 operands"),
])
def test_dot_argument_errors_name_the_kernel(which, dtype, message, fix):
    """Triton's tl.dot rules (semantic.dot), refused at the user's line with the fix."""
    with pytest.raises(KernelDefinitionError) as e:
        dot_error[(1,)](mx.zeros((64,), dtype), mf.empty((64,), mx.float32), WHICH=which)
    text = str(e.value)
    assert message in text and fix in text, text
    assert "dot_error" in text and "test_dot.py" in text and "tl.dot(" in text, text


# --- reductions of a dot result in its own registers (Metal's 8x8 fragments) -----------------------
@mf.jit
def dot_then_reduce(a_ptr, b_ptr, o_ptr, r_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    s = tl.dot(tl.load(a_ptr + rm[:, None] * K + rk[None, :]), tl.load(b_ptr + rk[:, None] * N + rn[None, :]))
    m = tl.max(s, axis=1)                      # per row: lanes of a fragment row, then simdgroups
    p = tl.exp(s - m[:, None])                 # broadcast back onto the fragments: no data movement
    l = tl.sum(p, axis=1)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], p / l[:, None])
    tl.store(r_ptr + rm, l)
    tl.store(c_ptr + rn, tl.sum(s, axis=0))    # per column


@pytest.mark.parametrize("num_warps,warps_m", [(1, None), (4, None), (4, 1), (4, 4), (8, 8)])
def test_dot_result_reduced_in_its_registers(rng, num_warps, warps_m):
    """Row and column reductions of a `tl.dot` result on simdgroup-matrix fragments run on the
    fragments themselves (shuffles among the lanes sharing a row or column, then threadgroup memory
    across simdgroups), every arrangement of simdgroups, replicas included (8 along M of 32 rows)."""
    metal_only()
    M, N, K = 32, 16, 8
    a, a64 = inputs(rng, mx.float32, M, K)
    b, b64 = inputs(rng, mx.float32, K, N)
    o, r, c = dot_then_reduce[(1,)](a, b, mf.full((M, N), float("nan")), mf.full((M,), float("nan")),
                                    mf.full((N,), float("nan")), M=M, N=N, K=K, num_warps=num_warps,
                                    warps_m=warps_m)
    s = a64 @ b64
    p = np.exp(s - s.max(1, keepdims=True))
    close(to64(o), p / p.sum(1, keepdims=True), 1e-5, 1e-5)
    close(to64(r), p.sum(1), 1e-5, 1e-5)
    close(to64(c), s.sum(0), 1e-5, 1e-5)
    layouts = dot_then_reduce.asm["layouts"]
    assert re.search(r"%m: f32\[32\] -> Slice\(parent=MMA", layouts), layouts
    assert not re.search(r"threadgroup float \w+\[512\]", generated(dot_then_reduce))  # s never staged whole


@mf.jit
def row_max_onto_another_dot(a_ptr, b_ptr, v_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                             D: tl.constexpr):
    rm, rn, rk, rd = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K), tl.arange(0, D)
    s = tl.dot(tl.load(a_ptr + rm[:, None] * K + rk[None, :]), tl.load(b_ptr + rk[:, None] * N + rn[None, :]))
    m = tl.max(s, axis=1)
    o = tl.dot(s, tl.load(v_ptr + rn[:, None] * D + rd[None, :]))  # [M, D]: the same simdgroup grid as s
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], o / m[:, None])


def test_row_statistics_of_one_dot_apply_to_another_in_registers(rng):
    """A row vector reduced from one dot result, broadcast onto another whose simdgroups hold the
    same rows (flash attention's alpha and row sum on its output), is read from the thread's own
    registers: no threadgroup copy of the vector."""
    metal_only()
    M, N, K, D = 32, 32, 8, 64
    a, a64 = inputs(rng, mx.float32, M, K)
    b, b64 = inputs(rng, mx.float32, K, N)
    v, v64 = inputs(rng, mx.float32, N, D)
    out = row_max_onto_another_dot[(1,)](a, b, v, mf.full((M, D), float("nan")), M=M, N=N, K=K, D=D,
                                          num_warps=4)
    s = a64 @ b64
    check(out, (s @ v64) / s.max(1, keepdims=True), 2e-5)
    layouts = row_max_onto_another_dot.asm["layouts"]
    # the kernel reduces rows, so both results put their 4 simdgroups along the rows
    assert "shape=(32, 32), warps=(4, 1)" in layouts and "shape=(32, 64), warps=(4, 1)" in layouts, layouts
    assert not re.search(r"threadgroup float \w+\[32\]", generated(row_max_onto_another_dot))


@pytest.mark.parametrize("num_stages", [2, 4])
def test_skinny_matmul_with_one_copy_per_thread(rng, num_stages):
    """The library matmul at 16x64x64 on 4 warps (M = 8): each thread copies one run of its A tile,
    so a stage's copy is not a loop and the prologue's stages land in one scope; each must declare
    the kernel's `rm` under its own name (before codegen 22, CUDA redeclared it and NVRTC refused;
    tests/codegen/test_nvrtc.py). On Metal stages above 2 act as 2: the same answer either way."""
    from metalforge.kernels.matmul import matmul_kernel
    M, N, K = 8, 77, 200  # N, K: no multiple of the tile, every edge masked
    a, a64 = inputs(rng, mx.float16, M, K)
    b, b64 = inputs(rng, mx.float16, K, N)
    out = matmul_kernel.fn[(mf.cdiv(N, 64),)](a, b, mf.empty((M, N), mx.float16), M, N, K, BLOCK_M=16, BLOCK_N=64,
                                               BLOCK_K=64, GROUP_M=1, num_warps=4, num_stages=num_stages)
    check(out, a64 @ b64, DTYPES["float16"][1])


@pytest.mark.parametrize("M,N,K", [(96, 64, 128), (37, 53, 75)], ids=["divides_the_tiles", "masks_every_edge"])
def test_matmul_loader_pointers_advance(rng, M, N, K):
    """num_stages=2: the next K step's tiles are read through one base pointer per operand carried
    across the K loop and advanced by BLOCK_K * stride (Steel's loader `next()`), plus the first
    step's offsets, instead of addresses recomputed from k0 (codegen/ir_passes/prefetch.py); the
    masks that remain still come from k0. The loads stay packed_half4 (the carried pointer keeps the
    arguments' alignment; where K = 75, the rows' vectors start anywhere, which Metal's packed vectors
    may, and the edge of K goes element by element). Results against float64 on both shapes."""
    from metalforge.kernels.matmul import matmul_kernel
    a, a64 = inputs(rng, mx.float16, M, K)
    b, b64 = inputs(rng, mx.float16, K, N)
    meta = dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=16, GROUP_M=2, num_warps=4, num_stages=2)
    out = matmul_kernel.fn[(mf.cdiv(M, 32) * mf.cdiv(N, 32),)](a, b, mf.empty((M, N), mx.float16), M, N, K, **meta)
    check(out, a64 @ b64, DTYPES["float16"][1])
    msl = matmul_kernel.fn.compile(a, b, mf.empty((M, N), mx.float16), M, N, K, target="msl", **meta).asm["msl"]
    k_loop = msl[msl.index("for (int k0"):]
    assert "a_ptr_next = (a_ptr_k + " in k_loop and "b_ptr_next = (b_ptr_k + " in k_loop
    assert "(a_ptr_k + (rm_1 * K))" in k_loop and "k0" not in k_loop.split("a_ptr_k + ")[1].split(";")[0]
    assert "packed_half4*)(((a_ptr_k + " in k_loop


@pytest.mark.parametrize("num_stages", [1, 2])
@pytest.mark.parametrize("M,N,K,BLOCK_K", [(96, 64, 128, 32), (64, 96, 192, 64), (48, 64, 80, 32), (37, 53, 75, 32)],
                         ids=["k_divides_32", "k_divides_64", "k_multiple_of_16_only", "masks_every_edge"])
def test_matmul_k_mask_dropped_where_k_divides_the_step(rng, M, N, K, BLOCK_K, num_stages):
    """K specialised as a multiple of BLOCK_K (launcher/arguments.py: divisibility up to 128) makes
    the loop's `k0 + tl.arange(0, BLOCK_K) < K` all true, and the loads in the K loop lose it
    (codegen/ir_passes/masks.py); with num_stages=2 the next tile keeps the one scalar guard
    `k0_next < K`. K = 80 is a multiple of 16 but not of 32, K = 75 of nothing: their masks stay.
    The row and column masks (`rm < M`, `rn < N`) stay in every case. Results against float64."""
    from metalforge.kernels.matmul import matmul_kernel
    a, a64 = inputs(rng, mx.float16, M, K)
    b, b64 = inputs(rng, mx.float16, K, N)
    meta = dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=BLOCK_K, GROUP_M=2, num_warps=4, num_stages=num_stages)
    out = matmul_kernel.fn[(mf.cdiv(M, 32) * mf.cdiv(N, 32),)](a, b, mf.empty((M, N), mx.float16), M, N, K, **meta)
    check(out, a64 @ b64, DTYPES["float16"][1])
    msl = matmul_kernel.fn.compile(a, b, mf.empty((M, N), mx.float16), M, N, K, target="msl", **meta).asm["msl"]
    k_loop = [line for line in msl[msl.index("for (int k0"):msl.index("tl.store(")].splitlines()
              if "//" not in line and (") mf_v = " in line or ": half(0.0f)" in line)]  # the tile loads
    assert k_loop and all(re.search(r"\b(rm|rn)_\d+ < [MN]\b", line) for line in k_loop), k_loop
    assert any(re.search(r"\brk_\d+ < K\b", line) for line in k_loop) == (K % BLOCK_K != 0), k_loop


@mf.jit
def fixed_a_product(b_ptr, o_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    """A, index arithmetic made before the K loop, times each K block of B."""
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, BK)
    a = (rm[:, None] - rk[None, :]).to(tl.float16)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for k0 in range(0, K, BK):
        acc = tl.dot(a, tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :]), acc)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], acc)


@pytest.mark.parametrize("num_stages", [1, 2])
def test_an_operand_made_before_the_loop_is_given_registers_there(rng, num_stages):
    """A dot operand that is index arithmetic defined before the K loop gets its registers where it
    is defined, beside its conversion to threadgroup memory (from a review: they were declared in
    the loop body and the conversion, placed before the loop, read an undeclared array)."""
    M, N, BK, K = 32, 32, 16, 48
    b, b64 = inputs(rng, mx.float16, K, N)
    out = fixed_a_product[(1,)](b, mf.full((M, N), float("nan"), mx.float32), K, M=M, N=N, BK=BK,
                                num_stages=num_stages)
    a64 = np.arange(M)[:, None] - np.arange(BK)[None, :]  # small integers: exact in float16
    check(out, sum(a64 @ b64[k0:k0 + BK] for k0 in range(0, K, BK)), DTYPES["float32"][1])


@pytest.mark.parametrize("num_stages", [None, 2, 0], ids=["staged", "double_buffered", "from_device"])
def test_operands_in_different_address_spaces(rng, num_stages):
    """MLX passes an input of fewer than 8 elements in `constant` memory and larger ones in `device`
    memory: a loop-carried pointer is declared with its own operand's type, not another's (found by
    test_random_matmuls: `decltype(a_ptr) b_ptr_k`, which Metal refuses when A is 1 x 4)."""
    M, N, K = 1, 2, 4
    a, a64 = inputs(rng, mx.float32, M, K)
    b, b64 = inputs(rng, mx.float32, K, N)
    check(run_matmul(a, b, M, N, K, (K, 1), (N, 1), mx.float32, blocks=(8, 8, 8), num_warps=1,
                     num_stages=num_stages), a64 @ b64, 2e-5)
    assert "decltype(a_ptr) b_ptr" not in generated(matmul)


# --- random products: every tile shape, simdgroup arrangement, staging, layout and epilogue ----------------------
def product_bound(k: int, magnitudes: np.ndarray, reference: np.ndarray, out_dtype: mx.Dtype) -> np.ndarray:
    """|kernel - reference| for a float32 K-loop accumulation of k exact-or-rounded products plus an
    epilogue of two additions (bias, residual) and a ReLU (1-Lipschitz), then the output's rounding:
    gamma_(k+3) * sum of |terms| (Higham's bound for any summation order; `magnitudes` = |a| @ |b| +
    |bias| + |residual|), then half an ulp of the output type."""
    u32, out = 2.0 ** -24, {mx.float32: 2.0 ** -24, mx.float16: 2.0 ** -11, mx.bfloat16: 2.0 ** -8}[out_dtype]
    gamma = (k + 3) * u32 / (1 - (k + 3) * u32)
    accumulated = gamma * magnitudes
    return accumulated + out * (np.abs(reference) + accumulated)


@settings(max_examples=15, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(dtype=st.sampled_from(list(DTYPES)), sizes=st.tuples(*[st.integers(1, 80)] * 3),
       blocks=st.tuples(st.sampled_from([8, 16, 32, 64]), st.sampled_from([8, 16, 32, 64]),
                        st.sampled_from([8, 16, 32])),
       num_warps=st.sampled_from([1, 2, 4, 8]), warps_m=st.sampled_from([None, 1, 2, 4, 8]),
       num_stages=st.sampled_from([None, 2, 0]), transposed=st.tuples(st.booleans(), st.booleans()),
       group_m=st.integers(1, 3), epilogue=st.tuples(st.booleans(), st.booleans(), st.booleans()),
       seed=st.integers(0, 2**32 - 1))
def test_random_matmuls(dtype, sizes, blocks, num_warps, warps_m, num_stages, transposed, group_m, epilogue, seed):
    """Random sizes (every edge mask), tiles, simdgroup arrangements, staging, operand layouts (either
    transposed by strides) and epilogues, against float64 numpy within `product_bound`; the output
    starts as NaN, so an element left unwritten fails."""
    mxt = DTYPES[dtype][0]
    M, N, K = sizes
    bm, bn, bk = blocks
    if warps_m is not None and warps_m > num_warps:
        warps_m = num_warps
    rng = np.random.default_rng(seed)
    a, a64 = inputs(rng, mxt, *((K, M) if transposed[0] else (M, K)))
    b, b64 = inputs(rng, mxt, *((N, K) if transposed[1] else (K, N)))
    a64, b64 = (a64.T if transposed[0] else a64), (b64.T if transposed[1] else b64)
    has_bias, relu, has_residual = epilogue
    bias, bias64 = inputs(rng, mxt, N) if has_bias else (mx.zeros((1,), mxt), np.zeros(N))
    res, res64 = inputs(rng, mxt, M, N) if has_residual else (mx.zeros((1,), mxt), np.zeros((M, N)))
    try:
        out = matmul[(mf.cdiv(M, bm) * mf.cdiv(N, bn),)](
            a, b, mf.full((M, N), float("nan"), mxt), bias, res, M, N, K,
            *((1, M) if transposed[0] else (K, 1)), *((1, K) if transposed[1] else (N, 1)), N, 1,
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group_m, HAS_BIAS=has_bias, ACTIVATION=int(relu),
            HAS_RESIDUAL=has_residual, num_warps=num_warps, warps_m=warps_m, num_stages=num_stages)
    except SharedMemoryLimitError as e:  # tiles too large for a threadgroup: refused, naming the fix
        assert "matmul" in str(e) and "fix: use smaller tiles" in str(e)
        reject()
    acc = a64 @ b64 + bias64[None, :]
    want = (np.maximum(acc, 0.0) if relu else acc) + res64
    bound = product_bound(K, np.abs(a64) @ np.abs(b64) + np.abs(bias64)[None, :] + np.abs(res64), want, mxt)
    got = to64(out)
    excess = np.abs(got - want) - bound
    assert np.isfinite(got).all() and excess.max() <= 0, (
        f"worst excess {np.nanmax(excess):.3g} at {np.unravel_index(np.nanargmax(excess), excess.shape)}; "
        f"{int(np.isnan(got).sum())} NaN")


@settings(max_examples=15, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(batched=st.booleans(), dtype=st.sampled_from(["int8", "float16", "float32"]),
       sizes=st.tuples(st.integers(1, 5), st.integers(1, 40), st.integers(1, 40), st.integers(1, 130)),
       blocks=st.tuples(st.sampled_from([1, 2, 4]), st.sampled_from([8, 16, 32]), st.sampled_from([8, 16, 32]),
                        st.sampled_from([8, 16, 32])),
       num_warps=st.sampled_from([1, 2, 4]), num_stages=st.sampled_from([None, 2, 0]), seed=st.integers(0, 2**32 - 1))
def test_random_integer_and_batched_dots(batched, dtype, sizes, blocks, num_warps, num_stages, seed):
    """int8 products (int32 results, exact: up to 130 products of +-128) and 3-D batched products
    (int8, float16, float32 operands, float32 results within `product_bound`) at random sizes, tiles,
    warps and staging; the outputs start poisoned."""
    if not batched:
        dtype = "int8"  # float 2-D products: test_random_matmuls
    (B, M, N, K), (bb, bm, bn, bk) = sizes, blocks
    rng = np.random.default_rng(seed)
    shape_a, shape_b = ((B, M, K), (B, K, N)) if batched else ((M, K), (K, N))
    if dtype == "int8":
        (a, a64), (b, b64) = int8_inputs(rng, *shape_a), int8_inputs(rng, *shape_b)
        out_dtype = mx.int32
    else:
        (a, a64), (b, b64) = inputs(rng, getattr(mx, dtype), *shape_a), inputs(rng, getattr(mx, dtype), *shape_b)
        out_dtype = mx.float32
    try:
        if batched:
            out = batched_dot[(mf.cdiv(M, bm), mf.cdiv(N, bn), mf.cdiv(B, bb))](
                a, b, mf.full((B, M, N), 12345, out_dtype), B, M, N, K, BLOCK_B=bb, BLOCK_M=bm, BLOCK_N=bn,
                BLOCK_K=bk, num_warps=num_warps)
        else:
            out = matmul_out[(mf.cdiv(M, bm), mf.cdiv(N, bn))](
                a, b, mf.full((M, N), 12345, mx.int32), M, N, K, OUT=tl.int32, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                num_warps=num_warps, num_stages=num_stages)
    except SharedMemoryLimitError as e:
        assert "fix: use smaller tiles" in str(e)
        reject()
    want = a64 @ b64 + (1 if batched else 0)
    if dtype == "int8":
        np.testing.assert_array_equal(npy(out), want.astype(np.int32))
    else:
        excess = np.abs(npy(out).astype(np.float64) - want) - product_bound(
            K, np.abs(a64) @ np.abs(b64) + 1, want, mx.float32)
        worst = np.unravel_index(excess.argmax(), excess.shape)
        assert excess.max() <= 0, f"worst excess {excess.max():.3g} at {worst}"
