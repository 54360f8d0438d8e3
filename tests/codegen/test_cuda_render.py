"""The CUDA renderer and the cuda back end, without a GPU.

Every kernel below is rendered for the cuda target, wrapped exactly as MLX's `cuda_kernel` wraps a
body (mlx/backend/cuda/custom_kernel.cpp: includes, header, `namespace mlx::core::cu`,
`__global__ void custom_kernel_<name>(const T* in..., T* out...)`) and compiled with nvcc for sm_90
(the H200) when nvcc is installed. The includes of MLX's device utilities are replaced by the
stand-in mlx_cuda_utils.cuh. All kernels go into one translation unit (each in its own namespace:
nvcc spends seconds on the CUDA headers), plus one kernel in exactly MLX's layout on its own.

The cuda back end is checked against a stand-in `mx.fast.cuda_kernel` that records its arguments.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.codegen import lir
from metalforge.codegen.layouts import lit
from metalforge.codegen.lir_passes.aligned_vectors import version_vector_accesses
from metalforge.codegen.pipeline import CompiledKernel, compile_ir
from metalforge.dsl import ir
from metalforge.launcher import MX_DTYPES
from metalforge.kernels import attention, quantized
from metalforge.kernels import matmul as library_matmul
from metalforge.kernels import softmax as library_softmax
from metalforge.runtime.cuda import CudaBackend

from ..dsl.test_dot import batched_dot, flash_attention, matmul, matmul_nt, matmul_out

HERE = Path(__file__).parent
STANDIN = HERE / "mlx_cuda_utils.cuh"
NVCC = shutil.which("nvcc")
NVCC_FLAGS = ["-c", "-arch=sm_90", "-std=c++17", f"-I{HERE}"]

# MLX's cuda_kernel (custom_kernel.cpp: default_header and build_kernel), with the utils include swapped.
MLX_INCLUDES = f'\n#include "{STANDIN.name}"\n\n#include <cooperative_groups.h>\n\n'
CUDA_TYPES = {ir.int1: "bool", ir.int8: "int8_t", ir.int16: "int16_t", ir.int32: "int32_t", ir.int64: "int64_t",
              ir.uint8: "uint8_t", ir.uint16: "uint16_t", ir.uint32: "uint32_t", ir.uint64: "uint64_t",
              ir.float16: "__half", ir.bfloat16: "__nv_bfloat16", ir.float32: "float"}


def mlx_cuda_source(name: str, input_names, input_dtypes, output_names, output_dtypes, source: str, header: str,
                    includes: str = MLX_INCLUDES) -> str:
    """The translation unit MLX's cuda_kernel builds (input dtypes as CUDA type names)."""
    params = []
    for n, t in zip(input_names, input_dtypes):
        params.append(f"    const {t}* {n},\n")
        for word, decl in (("_shape", "const __grid_constant__ Shape"), ("_strides", "const __grid_constant__ Strides"),
                           ("_ndim", "const __grid_constant__ int")):
            if n + word in source:  # MLX adds these for inputs with ndim > 0; ours are
                params.append(f"    {decl} {n}{word},\n")
    outs = [f"    {t}* {n}" for n, t in zip(output_names, output_dtypes)]
    return (includes + header + "namespace mlx::core::cu {\n\nnamespace cg = cooperative_groups;\n\n"
            f"__global__ void custom_kernel_{name}(\n" + "".join(params) + ",\n".join(outs) + ") {\n"
            + source + "\n}\n\n} // namespace mlx::core::cu\n")


def compiled_source(c: CompiledKernel, includes: str = MLX_INCLUDES) -> str:
    element = lambda t: t.element if isinstance(t, ir.PointerType) else t  # noqa: E731 (scalars: 0-d arrays)
    return mlx_cuda_source(c.name, [n for n, _ in c.inputs], [CUDA_TYPES[element(t)] for _, t in c.inputs],
                           [n for n, _ in c.outputs], [CUDA_TYPES[t] for _, t in c.outputs], c.body, c.header,
                           includes)


# ---- kernels ---------------------------------------------------------------------------------------
@mf.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@mf.jit
def softmax(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + offs, num / tl.sum(num, axis=0), mask=mask)


@mf.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, M, N, eps, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    xc = tl.where(mask, x - mean[:, None], 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=1) / N + eps)
    w = tl.load(w_ptr + cols, mask=cmask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=cmask).to(tl.float32)
    y = xc * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], y, mask=mask)
    tl.store(mean_ptr + rows, mean, mask=rmask)
    tl.store(rstd_ptr + rows, rstd, mask=rmask)


@mf.jit
def argminmax(x_ptr, imax_ptr, imin_ptr, vmax_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    rmask = rows < M
    mask = rmask[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=-float("inf"))
    tl.store(imax_ptr + rows, tl.argmax(x, axis=1), mask=rmask)
    tl.store(imin_ptr + rows, tl.argmin(tl.where(mask, x, float("inf")), axis=1), mask=rmask)
    tl.store(vmax_ptr + rows, tl.max(x, axis=1), mask=rmask)


@mf.jit
def cumsum_1d(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=mask)


@mf.jit
def cumsum_2d(x_ptr, out_ptr, M, N, AXIS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], tl.cumsum(x, axis=AXIS), mask=mask)


@mf.jit
def histogram(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bins = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + bins, 1, mask=mask)


@mf.jit
def counts_and_top(x_ptr, hist_ptr, top_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr, K: tl.constexpr):
    """tl.histogram (masked) and tl.topk of one block."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(hist_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))
    tl.store(top_ptr + tl.arange(0, K), tl.topk(x, K))


@mf.jit
def atomics(x_ptr, total_ptr, big_ptr, small_ptr, swap_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))
    tl.atomic_max(big_ptr + offs % 4, x, mask=mask)
    tl.atomic_min(small_ptr + offs % 4, x, mask=mask)
    old = tl.atomic_xchg(swap_ptr + offs, x * 2, mask=mask)
    tl.store(swap_ptr + offs, old + tl.load(total_ptr), mask=mask)


@mf.jit
def atomics_typed(h_ptr, b_ptr, l_ptr, hmax_ptr, lock_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ones = tl.full((BLOCK,), 1.0, tl.float32)
    tl.atomic_add(h_ptr + offs % 8, ones.to(tl.float16), mask=mask)
    tl.atomic_add(b_ptr + offs % 8, ones.to(tl.bfloat16), mask=mask)
    tl.atomic_add(l_ptr + offs % 8, offs.to(tl.int64), mask=mask)
    tl.atomic_max(hmax_ptr + offs % 8, offs.to(tl.float16), mask=mask)
    got = tl.atomic_cas(lock_ptr, 0, 1)
    tl.atomic_max(lock_ptr + 1 + offs * 0, got + offs, mask=mask)


@mf.jit
def row_sum_loop(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    ptrs = x_ptr + row * N + tl.arange(0, BLOCK)
    for start in tl.range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(ptrs, mask=offs < N, other=0.0).to(tl.float32)
        ptrs += BLOCK
    total = tl.sum(acc, axis=0)
    i = 0
    while total > 1.0e6 and i < 4:
        total = total * 0.5
        i += 1
    tl.store(out_ptr + row, total)


@mf.jit
def rand_kernel(out_ptr, normal_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.rand(seed, offs), mask=mask)
    tl.store(normal_ptr + offs, tl.randn(seed, offs, n_rounds=7), mask=mask)


@mf.jit
def random_streams(offsets_ptr, out_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i0, i1, i2, i3 = tl.randint4x(seed, tl.load(offsets_ptr + offs, mask=mask, other=0))
    tl.store(out_ptr + offs, (i0 ^ i1 ^ i2 ^ i3).to(tl.float32) + tl.random.randn(seed, offs), mask=mask)


@mf.jit
def flip_gather_sort(x_ptr, idx_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    offs = tl.arange(0, BM)[:, None] * N + tl.arange(0, BN)[None, :]
    mask = (tl.arange(0, BM)[:, None] < M) & (tl.arange(0, BN)[None, :] < N)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    y = tl.sort(tl.flip(x, 0), descending=True) + tl.gather(x, idx, 1)
    tl.store(out_ptr + offs, y, mask=mask)


@mf.jit
def block_ptr_rows(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM,), tl.float32)
    for _ in range(0, N, BN):
        acc += tl.sum(tl.load(p, boundary_check=(0, 1), padding_option="zero").to(tl.float32), 1)
        p = tl.advance(p, (0, BN))
    tl.store(tl.make_block_ptr(out_ptr, (M,), (1,), (tl.program_id(0) * BM,), (BM,), (0,)), acc, boundary_check=(0,))


@mf.jit
def transpose(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], x, mask=mask)


@mf.jit
def math_casts(x_ptr, i_ptr, f_ptr, h_ptr, b_ptr, k_ptr, q_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)  # half (or bf16)
    xf = x.to(tl.float32)
    y = tl.exp(xf) + tl.sqrt(tl.abs(xf)) + tl.erf(xf) + tl.sigmoid(xf) + tl.floor(xf) - tl.ceil(xf)
    y = tl.fma(y, xf, xf) + tl.log(tl.abs(xf) + 1) + tl.exp2(xf) + tl.rsqrt(tl.abs(xf) + 1) + tl.sin(xf) * tl.cos(xf)
    y = tl.clamp(tl.maximum(tl.minimum(y, xf), -xf), -4.0, 4.0) + tl.log2(tl.abs(xf) + 2)
    h = tl.clamp(tl.fma(tl.abs(x), x, x), x, -x) + tl.maximum(tl.minimum(x, -x), x * 2)  # in the input's type
    y = tl.where(y > 0, y, y * alpha) + h.to(tl.float32)
    i = tl.load(i_ptr + offs, mask=mask, other=0)  # int32
    j = tl.maximum(tl.minimum(i, 7), -7) + tl.abs(i) + i % 3 + (i >> 1) + (i & 5)
    bits = x.to(tl.float32).to(tl.int32, bitcast=True) ^ j
    z = bits.to(tl.float32, bitcast=True) + y.to(tl.float32) + (i > 3).to(tl.float32) + x.to(tl.int8).to(tl.float32)
    tl.store(f_ptr + offs, z + (x != 0).to(tl.float32) + y.to(tl.int1).to(tl.float32), mask=mask)
    tl.store(h_ptr + offs, z.to(tl.float16) + y.to(tl.float16), mask=mask)
    tl.store(b_ptr + offs, (z.to(tl.bfloat16) + x.to(tl.bfloat16)) * 2, mask=mask)
    tl.store(k_ptr + offs, (j.to(tl.int64) * 3_000_000_000 + n).to(tl.uint32), mask=mask)
    tl.store(q_ptr + offs, (i.to(tl.uint8) + 200).to(tl.int16) - 7, mask=mask)


def _f(*shape, dtype=mx.float32):
    return mx.zeros(shape, dtype=dtype)


@dataclass
class Case:
    kernel: Any
    args: Callable[[], tuple]
    meta: dict


CASES = {
    "add_f32": Case(add, lambda: (_f(100), _f(100), mf.empty(100), 100), dict(BLOCK=256)),
    "add_bf16": Case(add, lambda: (_f(100, dtype=mx.bfloat16), _f(100, dtype=mx.bfloat16),
                                   mf.empty(100, mx.bfloat16), 100), dict(BLOCK=128, num_warps=1)),
    "softmax_f16": Case(softmax, lambda: (_f(400, dtype=mx.float16), mf.empty(400, mx.float16), 100, 100),
                        dict(BLOCK=128, num_warps=4)),
    "softmax_wide_bf16": Case(softmax, lambda: (_f(4000, dtype=mx.bfloat16), mf.empty(4000, mx.bfloat16), 4000, 4000),
                              dict(BLOCK=4096, num_warps=8)),
    "layernorm_f16": Case(layernorm, lambda: (_f(6, 50, dtype=mx.float16), _f(50, dtype=mx.float16),
                                              _f(50, dtype=mx.float16), mf.empty((6, 50), mx.float16), mf.empty(6),
                                              mf.empty(6), 6, 50, 1e-5), dict(BM=4, BN=64, num_warps=4)),
    "argminmax": Case(argminmax, lambda: (_f(5, 30), mf.empty(5, mx.int32), mf.empty(5, mx.int32), mf.empty(5), 5, 30),
                      dict(BM=8, BN=32, num_warps=2)),
    "cumsum_1d_i32": Case(cumsum_1d, lambda: (_f(70, dtype=mx.int32), mf.empty(70, mx.int32), 70), dict(BLOCK=128)),
    "cumsum_2d_rows": Case(cumsum_2d, lambda: (_f(6, 20), mf.empty((6, 20)), 6, 20), dict(AXIS=1, BM=8, BN=32)),
    "cumsum_2d_cols": Case(cumsum_2d, lambda: (_f(6, 20), mf.empty((6, 20)), 6, 20), dict(AXIS=0, BM=8, BN=32)),
    "counts_and_top_i8": Case(counts_and_top, lambda: (_f(100, dtype=mx.int8), mf.empty(32, mx.int32),
                                                       mf.empty(8, mx.int8), 100), dict(BLOCK=128, BINS=32, K=8)),
    "histogram": Case(histogram, lambda: (_f(1000, dtype=mx.int32), mf.zeros(16, mx.int32), 1000), dict(BLOCK=256)),
    "atomics_f32": Case(atomics, lambda: (_f(300), mf.zeros(1), mf.zeros(4), mf.zeros(4), mf.zeros(300), 300),
                        dict(BLOCK=128)),
    "atomics_typed": Case(atomics_typed, lambda: (mf.zeros(8, mx.float16), mf.zeros(8, mx.bfloat16),
                                                  mf.zeros(8, mx.int64), mf.zeros(8, mx.float16),
                                                  mf.zeros(2, mx.int32), 300), dict(BLOCK=128)),
    "row_sum_loop_f16": Case(row_sum_loop, lambda: (_f(3, 1000, dtype=mx.float16), mf.empty(3), 1000),
                             dict(BLOCK=256)),
    "rand": Case(rand_kernel, lambda: (mf.empty(300), mf.empty(300), 1234, 300), dict(BLOCK=128)),
    "rand_seed64": Case(rand_kernel, lambda: (mf.empty(300), mf.empty(300), 2**40 + 7, 300), dict(BLOCK=128)),
    "random_streams": Case(random_streams, lambda: (_f(300, dtype=mx.int64), mf.empty(300), 300, 2**40 + 7),
                           dict(BLOCK=128)),
    "flip_gather_sort": Case(flip_gather_sort, lambda: (_f(30, 50), _f(30, 50, dtype=mx.int32), mf.empty((30, 50)),
                                                        30, 50), dict(BM=32, BN=64)),
    "block_ptr_rows_f16": Case(block_ptr_rows, lambda: (_f(30, 50, dtype=mx.float16), mf.empty(30), 30, 50),
                               dict(BM=8, BN=32)),
    "transpose_f16": Case(transpose, lambda: (_f(40, 70, dtype=mx.float16), mf.empty((70, 40), mx.float16), 40, 70),
                          dict(BM=32, BN=32, num_warps=4)),
    "math_casts_f16": Case(math_casts, lambda: (_f(100, dtype=mx.float16), _f(100, dtype=mx.int32), mf.empty(100),
                                                mf.empty(100, mx.float16), mf.empty(100, mx.bfloat16),
                                                mf.empty(100, mx.uint32), mf.empty(100, mx.int16), 0.1, 100),
                           dict(BLOCK=128)),
    "math_casts_bf16": Case(math_casts, lambda: (_f(100, dtype=mx.bfloat16), _f(100, dtype=mx.int32), mf.empty(100),
                                                 mf.empty(100, mx.float16), mf.empty(100, mx.bfloat16),
                                                 mf.empty(100, mx.uint32), mf.empty(100, mx.int16), 0.1, 100),
                            dict(BLOCK=64, num_warps=2)),
    "matmul_f16_epilogue": Case(matmul, lambda: (_f(50, 40, dtype=mx.float16), _f(40, 30, dtype=mx.float16),
                                                 mf.empty((50, 30), mx.float16), _f(30, dtype=mx.float16),
                                                 _f(50, 30, dtype=mx.float16), 50, 30, 40, 40, 1, 30, 1, 30, 1),
                                dict(BLOCK_M=64, BLOCK_N=32, BLOCK_K=16, GROUP_M=4, HAS_BIAS=True, ACTIVATION=2,
                                     HAS_RESIDUAL=True, num_warps=4)),
    "matmul_f16_direct": Case(matmul, lambda: (_f(50, 40, dtype=mx.float16), _f(40, 30, dtype=mx.float16),
                                               mf.empty((50, 30), mx.float16), _f(1, dtype=mx.float16),
                                               _f(1, dtype=mx.float16), 50, 30, 40, 40, 1, 30, 1, 30, 1),
                              dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, GROUP_M=1, HAS_BIAS=False, ACTIVATION=0,
                                   HAS_RESIDUAL=False, num_warps=4, num_stages=0)),
    "matmul_f16_double_buffered": Case(matmul, lambda: (_f(50, 40, dtype=mx.float16), _f(40, 30, dtype=mx.float16),
                                                        mf.empty((50, 30), mx.float16), _f(1, dtype=mx.float16),
                                                        _f(1, dtype=mx.float16), 50, 30, 40, 40, 1, 30, 1, 30, 1),
                                       dict(BLOCK_M=64, BLOCK_N=32, BLOCK_K=16, GROUP_M=1, HAS_BIAS=False,
                                            ACTIVATION=0, HAS_RESIDUAL=False, num_warps=4, num_stages=2)),
    "matmul_f32": Case(matmul, lambda: (_f(50, 40), _f(40, 30), mf.empty((50, 30)), _f(30), _f(50, 30), 50, 30, 40,
                                        40, 1, 30, 1, 30, 1),
                       dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=16, GROUP_M=1, HAS_BIAS=False, ACTIVATION=0,
                            HAS_RESIDUAL=False, num_warps=4)),
    "matmul_nt_bf16": Case(matmul_nt, lambda: (_f(20, 40, dtype=mx.bfloat16), _f(30, 40, dtype=mx.bfloat16),
                                               mf.empty((20, 30)), 20, 30, 40),
                           dict(BLOCK_M=16, BLOCK_N=32, BLOCK_K=16, num_warps=2)),
    "flash_attention_f16": Case(flash_attention, lambda: (_f(4, 50, 64, dtype=mx.float16), _f(2, 50, 64, dtype=mx.float16),
                                                          _f(2, 50, 64, dtype=mx.float16),
                                                          mf.empty((4, 50, 64), mx.float16), 50, 0.125),
                                dict(GROUP=2, D=64, CAUSAL=True, BLOCK_M=32, BLOCK_N=32, num_warps=4)),
    "flash_attention_f16_pipelined": Case(flash_attention, lambda: (_f(4, 50, 64, dtype=mx.float16),
                                                                    _f(2, 50, 64, dtype=mx.float16),
                                                                    _f(2, 50, 64, dtype=mx.float16),
                                                                    mf.empty((4, 50, 64), mx.float16), 50, 0.125),
                                          dict(GROUP=2, D=64, CAUSAL=True, BLOCK_M=16, BLOCK_N=32, num_warps=2,
                                               num_stages=2)),
    # per-thread multiply-add dots (lowering/dot.py, lower_fma_dot): int8 -> int32, float16 accumulated in float16, 3-D
    "matmul_int8": Case(matmul_out, lambda: (_f(50, 40, dtype=mx.int8), _f(40, 30, dtype=mx.int8),
                                             mf.empty((50, 30), mx.int32), 50, 30, 40),
                        dict(OUT=tl.int32, BLOCK_M=32, BLOCK_N=16, BLOCK_K=32, num_warps=4, num_stages=2)),
    "matmul_f16_out_f16": Case(matmul_out, lambda: (_f(50, 40, dtype=mx.float16), _f(40, 30, dtype=mx.float16),
                                                    mf.empty((50, 30), mx.float16), 50, 30, 40),
                               dict(OUT=tl.float16, BLOCK_M=16, BLOCK_N=32, BLOCK_K=16, num_warps=2)),
    "dot_3d_bf16": Case(batched_dot, lambda: (_f(3, 19, 40, dtype=mx.bfloat16), _f(3, 40, 13, dtype=mx.bfloat16),
                                              mf.empty((3, 19, 13)), 3, 19, 13, 40),
                        dict(BLOCK_B=2, BLOCK_M=16, BLOCK_N=8, BLOCK_K=16, num_warps=2)),
    "decode_attention_split": Case(attention.decode_attention_kernel.fn, lambda: (
        _f(64 * 4, dtype=mx.float16), _f(2 * 700 * 64, dtype=mx.float16), _f(2 * 700 * 64, dtype=mx.float16),
        mf.empty((8, 64)), mf.empty(8), mf.empty(8), 700, 350, 0, 0.125), dict(GROUP=2, D=64, FINAL=False, BLOCK_N=64)),
    # the quantized matmul's weight operand is dequantised in registers, not loaded (metalforge.nn's prefill)
    "qmm_4bit_f16": Case(quantized.qmm_kernel.fn, lambda: (
        _f(50, 256, dtype=mx.float16), _f(30 * 32, dtype=mx.uint32), _f(30 * 4, dtype=mx.float16),
        _f(30 * 4, dtype=mx.float16), mf.empty((50, 30), mx.float16), 50, 30, 256, 64, 4),
        dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, num_warps=4)),
    "linear_bf16_bias": Case(library_matmul.linear_kernel.fn, lambda: (
        _f(20, 40, dtype=mx.bfloat16), _f(30, 40, dtype=mx.bfloat16), _f(30, dtype=mx.bfloat16),
        mf.empty((20, 30), mx.bfloat16), 20, 30, 40, True), dict(BLOCK_M=16, BLOCK_N=32, BLOCK_K=16, num_warps=2)),
    "decode_attention_combine": Case(attention.decode_attention_combine_kernel, lambda: (
        _f(8, 64), _f(8), _f(8), mf.empty((4, 64), mx.float16), 2), dict(D=64, SPLITS=2)),
}


def render(case: str) -> CompiledKernel:
    c = CASES[case]
    return c.kernel.compile(*c.args(), target="cuda", **c.meta)


# ---- the rendered text ------------------------------------------------------------------------------
MSL_WORDS = re.compile(r"\b(threadgroup|simd_\w+|metal::\w+|device|thread_index_in_\w+|threadgroup_position_in_grid|"
                       r"threadgroups_per_grid|as_type|atomic_\w+_explicit|uint|half|bfloat|memory_order_\w+)\b")


@pytest.mark.parametrize("case", list(CASES))
def test_renders_cuda_spellings_only(case):
    c = render(case)
    code = re.sub(r"//[^\n]*", "", c.body)  # comments quote the kernel's Python source
    text = c.header + code
    assert not MSL_WORDS.search(text), MSL_WORDS.search(text).group(0)
    assert c.asm["cuda"].endswith(c.body) and "msl" not in c.asm
    # scalars arrive as pointers to 0-d arrays: every use reads element 0
    for name, t in c.inputs:
        if isinstance(t, ir.ScalarType):
            assert re.search(rf"\b{name}\[0\]", code), name
            assert not re.search(rf"\b{name}\b(?!\[0\])", code), f"scalar `{name}` used as a value"


def test_spellings():
    c = render("softmax_f16")
    assert "__shfl_xor_sync(0xffffffffu, " in c.body and "__syncthreads();" in c.body
    assert "float* " in c.body and "= reinterpret_cast<float*>(mf_shared + " in c.body
    assert "int(blockIdx.x)" in c.body and "n_cols[0]" in c.body
    assert "decltype(x_ptr)" in c.body and "mf_cast<__half>(" in c.body and "mf_exp2(fmaf(" in c.body
    c = render("atomics_f32")
    assert "atomicAdd(" in c.body and "atomicExch(" in c.body and "mf_atomic_max(" in c.body
    assert "template <typename T> __device__ __forceinline__ T mf_atomic_max(" in c.header
    assert "mf_atomic_load(" in c.body  # loads of a buffer that atomics update
    c = render("atomics_typed")
    assert "atomicCAS(lock_ptr" in c.body and "mf_atomic_add(" in c.body  # int64 through unsigned long long
    c = render("math_casts_f16")
    assert "__float2half(fmaf(static_cast<float>(" in c.body and "mf_bitcast<int>(" in c.body
    assert "mf_min<int>(" in c.body and "int64_t(3000000000ll)" in c.body
    c = render("matmul_f16_epilogue")  # tensor cores
    assert "mf_frag<float, 4> acc[" in c.body and "mf_frag<__half, 8> frag_a[" in c.body
    assert "mf_mma_m16n8k16(acc[" in c.body and "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in c.header
    # fragments from padded shared memory by ldmatrix: A as stored, B (K x N, N contiguous) transposed
    # (two neighbouring B fragments per .x4)
    assert "mf_ldmatrix<4, false>(frag_a[" in c.body and "mf_ldmatrix_pair<true>(frag_b[j], frag_b[(j + 1)], " in c.body
    assert "__half* a_1_smem = reinterpret_cast<__half*>(mf_shared + " in c.body
    assert "ldmatrix.sync.aligned.m8n8.x4" in c.header
    c = render("matmul_nt_bf16")  # B read through tl.trans of an [N, K] tile: K contiguous, as stored
    assert "mf_ldmatrix_pair<false>(frag_b[" in c.body
    c = render("matmul_f32")  # exact fp32: Metal's 8x8 fragments on warp shuffles
    assert "mf_frag8 acc[" in c.body and "mf_mma8(acc[" in c.body and ".e[1] = " in c.body
    assert "struct mf_frag8 { float e[2]; };" in c.header and "mma.sync" not in c.header


def test_targets_are_cached_apart():
    args, meta = CASES["add_f32"].args(), CASES["add_f32"].meta
    cuda, msl = add.compile(*args, target="cuda", **meta), add.compile(*args, target="msl", **meta)
    assert cuda.name != msl.name and "threadIdx" in cuda.body and "threadgroup_position_in_grid" in msl.body
    assert add.compile(*args, target="cuda", **meta) is cuda
    assert add.compile(*args, backend=CudaBackend(), **meta) is cuda
    fn = add.build_ir({"x_ptr": ir.ptr(ir.float32), "y_ptr": ir.ptr(ir.float32), "out_ptr": ir.ptr(ir.float32),
                       "n": ir.int32}, {"BLOCK": 256})
    assert compile_ir(fn, {"out_ptr"}, 4, target="cuda", divisibility={"n": 4}).body == cuda.body  # n = 100
    with pytest.raises(ValueError, match="unknown code generation target 'ptx'"):
        compile_ir(fn, {"out_ptr"}, 4, target="ptx")


# ---- nvcc ---------------------------------------------------------------------------------------------
def _errors_by_case(log: str, spans: dict[str, tuple[int, int]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for m in re.finditer(r"^.*?\((\d+)\): (error|catastrophic error)[^\n]*(?:\n(?!\S+\(\d+\):).*)*", log, re.M):
        line = int(m.group(1))
        owner = next((k for k, (a, b) in spans.items() if a <= line < b), "<includes>")
        found.setdefault(owner, []).append(m.group(0))
    return found


@pytest.fixture(scope="module")
def nvcc_batch(tmp_path_factory):
    """Every case compiled in one nvcc run: {case: [errors]} plus the sources."""
    if NVCC is None:
        pytest.skip("nvcc is not installed: the CUDA sources are rendered but not compiled")
    head = MLX_INCLUDES
    parts, spans, line = [head], {}, head.count("\n") + 1
    sources = {}
    for case in CASES:
        src = compiled_source(render(case), includes="")
        text = f"namespace case_{case} {{\nusing namespace ::mlx::core::cu;\n{src}}}  // case_{case}\n"
        sources[case] = src
        spans[case] = (line, line + text.count("\n"))
        line += text.count("\n")
        parts.append(text)
    path = tmp_path_factory.mktemp("cuda") / "all_kernels.cu"
    path.write_text("".join(parts))
    r = subprocess.run([NVCC, *NVCC_FLAGS, "-o", str(path.with_suffix(".o")), str(path)], capture_output=True,
                       text=True, timeout=600)
    errors = _errors_by_case(r.stdout + r.stderr, spans)
    if r.returncode != 0 and not errors:
        errors["<unattributed>"] = [r.stdout + r.stderr]
    return errors, sources


@pytest.mark.parametrize("case", list(CASES))
def test_nvcc_compiles(nvcc_batch, case):
    errors, sources = nvcc_batch
    assert not errors.get("<includes>") and not errors.get("<unattributed>"), errors
    assert case not in errors, "\n".join(errors[case]) + "\n--- source ---\n" + sources[case]


def test_nvcc_compiles_mlx_layout_exactly(tmp_path):
    """One kernel with many helpers, as its own translation unit in exactly MLX's layout."""
    if NVCC is None:
        pytest.skip("nvcc is not installed")
    c = render("atomics_typed")
    path = tmp_path / "atomics_typed.cu"
    path.write_text(compiled_source(c))
    r = subprocess.run([NVCC, *NVCC_FLAGS, "-o", str(tmp_path / "k.o"), str(path)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr + "\n--- source ---\n" + path.read_text()


# ---- the cuda back end ----------------------------------------------------------------------------
class AvailableCuda(CudaBackend):
    """Stands in for the H200: the cuda back end, as available, where NVRTC is not (every kernel goes
    to cuda_kernel; tests/runtime/test_cuda_by_value.py has the by-value path)."""

    @staticmethod
    def available() -> bool:
        return True

    def scalars_by_value(self):
        return {}


def test_cuda_backend_hands_mlx_the_rendered_source(monkeypatch):
    made, calls = [], []

    def fake_cuda_kernel(**kernel_args):
        made.append(kernel_args)

        def run(**call):
            calls.append(call)
            return [mx.zeros(s, dtype=d) for s, d in zip(call["output_shapes"], call["output_dtypes"])]
        return run

    monkeypatch.setattr(mx.fast, "cuda_kernel", fake_cuda_kernel)
    backend = AvailableCuda()
    n = 1000
    x, y = mx.ones(n), mx.ones(n)
    out = add[(mf.cdiv(n, 256),)](x, y, mf.empty(n), n, BLOCK=256, num_warps=2, backend=backend)
    assert out.shape == (n,) and out.dtype == mx.float32
    expected = add.compile(x, y, mf.empty(n), n, BLOCK=256, num_warps=2, target="cuda")
    assert made == [dict(name=expected.name, input_names=["x_ptr", "y_ptr", "n"], output_names=["out_ptr"],
                         source=expected.body, header=expected.header, ensure_row_contiguous=True,
                         shared_memory=0)]
    call, = calls
    assert call["grid"] == (4 * 64, 1, 1) and call["threadgroup"] == (64, 1, 1)
    assert call["output_shapes"] == [(n,)] and call["output_dtypes"] == [mx.float32]
    assert set(call) == {"inputs", "output_shapes", "output_dtypes", "grid", "threadgroup"}  # MLX's defaults for the rest
    inputs = call["inputs"]
    assert inputs[0] is x and inputs[1] is y
    assert inputs[2].ndim == 0 and inputs[2].dtype == mx.int32 and inputs[2].item() == n  # `n` arrives as n[0]

    # A second launch reuses the kernel MLX built; the initial value of zeros() outputs reaches MLX.
    add[(1,)](x, y, mf.zeros(n), 8, BLOCK=256, num_warps=2, backend=backend)  # 8: 1000's class
    assert len(made) == 1 and calls[-1]["init_value"] == 0.0 and calls[-1]["inputs"][2].item() == 8

    # Atomic kernels: no atomic_outputs for cuda_kernel, a 2-D grid counts programs in y.
    hist = histogram[(3, 2)](mx.zeros(10, dtype=mx.int32), mf.zeros(16, mx.int32), 10, BLOCK=128, backend=backend)
    assert hist.dtype == mx.int32 and "atomic_outputs" not in made[-1] and "atomicAdd(" in made[-1]["source"]
    assert calls[-1]["grid"] == (3 * 128, 2, 1)


def test_cuda_backend_registered_after_metal():
    from metalforge.runtime import backends
    names = backends.backend_names()
    assert names.index("metal") < names.index("cuda") < names.index("emulator")
    assert CudaBackend.available() == mx.cuda.is_available()


def test_scalar_dtypes_reach_mlx(monkeypatch):
    made, calls = [], []
    monkeypatch.setattr(mx.fast, "cuda_kernel", lambda **k: made.append(k) or (
        lambda **call: calls.append(call) or [mx.zeros(s, dtype=d) for s, d in
                                              zip(call["output_shapes"], call["output_dtypes"])]))
    rand_kernel[(1,)](mf.empty(10), mf.empty(10), 2**40 + 7, 10, BLOCK=128, backend=AvailableCuda())
    seed, n = calls[-1]["inputs"]
    assert seed.dtype == mx.int64 and seed.item() == 2**40 + 7 and n.dtype == mx.int32
    assert "seed[0]" in made[-1]["source"] and "n[0]" in made[-1]["source"]
    assert MX_DTYPES[ir.int64] == mx.int64


@pytest.mark.parametrize("dtype,cuda_width", [(mx.float16, 8), (mx.float32, 4), (mx.int8, 16)])
def test_vector_accesses_are_16_bytes_on_cuda_and_4_elements_on_metal(dtype, cuda_width):
    """n a multiple of 16 lets every access of the tile move a run; the run is as wide as the target
    allows: 16 bytes on CUDA (Triton's 128-bit accesses), Metal's widest packed vector (4)."""
    x = mx.zeros((4096,), dtype)
    args = (x, x, mf.empty((4096,), dtype), 4096)
    cuda = add.compile(*args, BLOCK=4096, target="cuda").body  # 32 elements per thread: room for a run
    msl = add.compile(*args, BLOCK=4096, target="msl").body
    vec = f"mf_vec<{cuda_width}, "
    assert re.search(rf"{vec}\w+> mf_v\{{", cuda) and "mf_load_masked(mf_v, " in cuda  # masked: predicated
    assert f"*reinterpret_cast<{vec}" in cuda
    assert re.search(r"packed_\w+4\b", msl) and not re.search(r"packed_\w+(8|16)\b", msl)


def _branches(body: str) -> tuple[str, str, str]:
    """(before, aligned copy, element-wise copy) of a body versioned on its arguments' alignment."""
    head, condition, rest = re.split(r"^(if \(+mf_is_aligned\(.*)$", body, maxsplit=1, flags=re.M)
    then, _, orelse = rest.partition("\n} else {\n")  # the top level's: nested blocks are indented
    return head, condition + then, orelse


def test_cuda_kernel_is_versioned_on_argument_alignment():
    """MLX views may start at any element and MLX arrays are lazy (no address at launch): one test of
    the vector-accessed arguments' addresses at the start picks an aligned copy of the body (plain
    16-byte accesses) or an element-wise one; no access tests its own address."""
    x = mx.zeros((4096,), mx.float16)
    body = add.compile(x, x, mf.empty((4096,), mx.float16), 4096, BLOCK=4096, target="cuda").body
    head, then, orelse = _branches(body)
    assert then and orelse, body
    condition = then.split("\n")[0]
    assert all(f"mf_is_aligned({p}, 16)" in condition for p in ("x_ptr", "y_ptr", "out_ptr")), condition
    assert then.count("mf_vec<8, __half> mf_v{{") == then.count("mf_load_masked(") == 2  # x, y (unrolled loops)
    assert then.count("*reinterpret_cast<mf_vec<8, __half>*>") == 1
    assert "mf_vec" not in orelse and "mf_store_vec" not in body
    assert orelse.count("] = ") > then.count("] = ")  # element by element
    assert orelse.count("#pragma unroll 1\n") == orelse.count("for (") > 0  # arrays in thread memory


def test_cuda_backend_requests_the_dynamic_shared_memory_a_kernel_declares(monkeypatch):
    """Above the 48 KiB of static shared memory: a 128x128x64 fp16 tile in two stages stages 71680 B
    (128 x (64 + 8) + 64 x (128 + 8) halves, twice), which MLX grants as dynamic shared memory."""
    from metalforge.kernels.matmul import launch_grid, matmul_kernel
    made = []

    def fake_cuda_kernel(**kernel_args):
        made.append(kernel_args)
        return lambda **call: [mx.zeros(s, dtype=d) for s, d in zip(call["output_shapes"], call["output_dtypes"])]

    monkeypatch.setattr(mx.fast, "cuda_kernel", fake_cuda_kernel)
    a = mx.zeros((256, 256), mx.float16)
    meta = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=2)
    matmul_kernel.fn[launch_grid(256, 256)](a, a, mf.empty((256, 256), mx.float16), 256, 256, 256,
                                            backend=AvailableCuda(), **meta)
    expected = matmul_kernel.fn.compile(a, a, mf.empty((256, 256), mx.float16), 256, 256, 256, target="cuda", **meta)
    assert expected.shared_bytes == 2 * 2 * (128 * (64 + 8) + 64 * (128 + 8)) > 48 * 1024
    assert made[-1]["shared_memory"] == expected.shared_bytes and made[-1]["source"] == expected.body


def test_versioned_kernel_declares_threadgroup_arrays_once():
    x = mx.zeros((16,), mx.float16)
    c = library_softmax.softmax_kernel.fn.compile(x, mf.empty((8, 4096), mx.float16), 4096, 4096, BLOCK=1024, target="cuda")
    head, then, orelse = _branches(c.body)
    shared = re.findall(r"\w+\* (\w+) = reinterpret_cast<\w+\*>\(mf_shared \+ \d+\);", c.body)
    assert shared and len(shared) == len(set(shared)), shared
    assert all(f" {name} = " in head for name in shared) and "mf_shared" not in then + orelse
    assert c.body.startswith("extern __shared__ __align__(16) unsigned char mf_shared[];")
    assert all(name in then and name in orelse for name in shared)


@mf.jit
def copy_rows(x_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + row * stride + offs, tl.load(x_ptr + row * stride + offs))


@pytest.mark.parametrize("stride", [75, 64])
def test_rows_at_offsets_of_unknown_divisibility_go_element_by_element(stride, rng):
    """Rows at row * stride are contiguous whatever the stride, but where it is odd an access of two
    halves would start at an odd element: a misaligned address on CUDA, which the test of the
    arguments' alignment cannot see (it was so before). Then every access is element-wise, one copy
    of the body; at a stride of 64, 4-byte accesses in the versioned body. Values on the emulator."""
    x = mx.array(rng.standard_normal(4 * stride).astype("float16"))
    body = copy_rows.compile(x, mf.empty((4 * stride,), mx.float16), stride, BLOCK=64, num_warps=1, target="cuda").body
    vectors = stride % 2 == 0
    assert ("mf_is_aligned" in body) == vectors and ("reinterpret_cast<const mf_vec<2, __half>*>" in body) == vectors
    out = copy_rows[(4,)](x, mf.full((4 * stride,), 7.0, mx.float16), stride, BLOCK=64, num_warps=1)
    got, want = np.array(out).reshape(4, stride), np.array(x).reshape(4, stride)
    assert (got[:, :64] == want[:, :64]).all() and (got[:, 64:] == 7.0).all()


def test_alignment_follows_pointer_copies_and_the_widest_access():
    """The pass finds the argument behind a pointer variable and asks for its widest access's bytes."""
    p = ir.ptr(ir.float32)
    body = [lir.Decl("shared", ir.float32, size=8, space="threadgroup"),
            lir.Decl("q", p, init=lir.Bin("+", lir.Sym("a"), lit(4)), like="a"),
            lir.For("k", lit(0), lir.Bin("<", lir.Sym("k"), lit(2)), lit(1), [
                lir.VectorLoad([lir.Index(lir.Sym("r"), lit(i)) for i in range(4)], lir.Sym("q"), ir.float32),
                lir.VectorLoad([lir.Index(lir.Sym("r"), lit(i)) for i in range(2)], lir.Sym("b"), ir.float32)]),
            lir.VectorStore(lir.Sym("out"), [lir.Lit(0.0, ir.float32)] * 2, ir.float32)]
    kernel = lir.Kernel("k", [("a", p), ("b", p), ("n", ir.int32)], [("out", ir.float32)], body, 32)
    version_vector_accesses(kernel)
    shared, versioned = kernel.body
    assert isinstance(shared, lir.Decl) and shared.space == "threadgroup" and isinstance(versioned, lir.If)
    tests = {c.args[0].name: c.args[1].value for c in _calls(versioned.cond)}
    assert tests == {"a": 16, "b": 8, "out": 8}
    fast = [s for s in lir.walk(versioned.then) if isinstance(s, (lir.VectorLoad, lir.VectorStore))]
    assert len(fast) == 3 and all(s.aligned for s in fast)
    slow = list(lir.walk(versioned.orelse))
    assert not any(isinstance(s, (lir.VectorLoad, lir.VectorStore)) for s in slow)
    assert sum(isinstance(s, lir.Assign) for s in slow) == 4 + 2 + 2


def _calls(e: lir.Expr) -> list[lir.Call]:
    if isinstance(e, lir.Call):
        return [e]
    if isinstance(e, lir.Bin):
        return _calls(e.a) + _calls(e.b)
    return []


def test_dot_operands_are_pipelined_by_asynchronous_copies():
    """num_stages=2 on CUDA: the prologue copies the first A and B tiles straight into shared memory
    (cp.async, 16 bytes per copy, zero-filled where masked); each K step waits for its tiles, passes
    one barrier (which also ends the previous step's reads of the other buffer), copies the next
    tiles into the other buffer and multiplies from this one: no operand goes through registers.
    The element-wise copy of the versioned kernel stores into the same buffers."""
    from metalforge.kernels.matmul import matmul_kernel
    a = mx.zeros((1,), mx.float16)
    c = matmul_kernel.fn.compile(a, a, mf.empty((4096, 4096), mx.float16), 4096, 4096, 4096, BLOCK_M=64, BLOCK_N=64,
                                 BLOCK_K=32, GROUP_M=8, num_warps=4, num_stages=2, target="cuda")
    head, then, orelse = _branches(c.body)
    prologue, loop = then.split("for (int k0 = 0;", 1)
    assert prologue.count("mf_cp_async<16>(") == 2 and prologue.count("mf_cp_async_commit();") == 1
    step = loop[:loop.index("mf_cp_async_wait<0>();\n", loop.index("mf_mma_m16n8k16"))]
    assert step.count("__syncthreads();") == 1 and step.index("mf_cp_async_wait<0>();") < step.index("__syncthreads")
    # the other buffer's destination named once per step, each copy a constant offset from it
    assert step.count("int a_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2560) + ") == 1
    assert step.count("int b_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2304) + ") == 1
    assert step.count("mf_cp_async<16>((a_smem + a_dst_1), ((k * 4) * 40), ") == 1
    assert step.count("mf_cp_async<16>((b_smem + b_dst_1), ((k * 2) * 72), ") == 1
    assert "mf_store_vec" not in step and "mf_load_masked" not in step and "int a_lane = ((stage * 2560)" in step
    assert "mf_cp_async<16>" not in orelse and "(a_smem + a_dst_" in orelse


@mf.jit
def strided_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_a_dot_operand_masked_at_an_edge_is_not_copied_asynchronously(rng):
    """Rows padded to 128 elements with K = 75 and N = 97: the A tile's `rk < K` and the B tile's
    `rn < N` change inside a vector (edges), so no one mask serves a cp.async of it; those tiles are
    loaded as usual (vectors where all of a run is in), not zero-filled or read whole past K or N.
    Values against float64 on the emulator (edge loads feeding a dot on Metal)."""
    m, n, k = 37, 97, 75
    meta = dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, num_warps=4, num_stages=2)
    a = mx.zeros((m, 128), mx.float16)
    args = (a, mx.zeros((k, 128), mx.float16), mf.empty((m, 128), mx.float16), m, n, k, 128, 128, 128)
    body = strided_matmul.compile(*args, target="cuda", **meta).body
    assert "mf_cp_async<" not in body and "mf_mma_m16n8k16" in body
    a64, b64 = rng.standard_normal((m, 128)), rng.standard_normal((k, 128))
    a_in, b_in = mx.array(a64.astype("float16")), mx.array(b64.astype("float16"))
    out = strided_matmul[(2, 4)](a_in, b_in, mf.full((m, 128), 7.0, mx.float16), m, n, k, 128, 128, 128, **meta)
    want = np.array(a_in.astype(mx.float32)).astype(np.float64)[:, :k] @ np.array(b_in.astype(mx.float32))[:, :n]
    got = np.array(out.astype(mx.float32)).astype(np.float64)
    scale = np.abs(np.array(a_in.astype(mx.float32)))[:, :k] @ np.abs(np.array(b_in.astype(mx.float32)))[:, :n]
    assert (np.abs(got[:, :n] - want) <= 2.0 ** -11 * np.abs(want) + (k + 2) * 2.0 ** -24 * scale + 1e-7).all()
    assert (got[:, n:] == 7.0).all()


@pytest.mark.parametrize("num_stages", [3, 4])
def test_more_stages_copy_further_ahead_into_a_ring_of_buffers(num_stages):
    """num_stages=S on CUDA: the prologue copies the first S - 1 K steps' tiles, one commit per step
    (A's and B's together); each K step waits for all but the newest S - 2 groups (its own tiles
    have landed), passes one barrier, copies the tiles S - 1 steps ahead into buffer
    (stage + S - 1) % S and commits them as one group after its products."""
    from metalforge.kernels.matmul import matmul_kernel
    a = mx.zeros((1,), mx.float16)
    c = matmul_kernel.fn.compile(a, a, mf.empty((4096, 4096), mx.float16), 4096, 4096, 4096, BLOCK_M=64, BLOCK_N=64,
                                 BLOCK_K=32, GROUP_M=8, num_warps=4, num_stages=num_stages, target="cuda")
    head, then, orelse = _branches(c.body)
    prologue, loop = then.split("for (int k0 = 0;", 1)
    assert prologue.count("mf_cp_async<16>(") == 2 * (num_stages - 1)
    assert prologue.count("mf_cp_async_commit();") == num_stages - 1
    assert f"= ({(num_stages - 2) * 2560} + " in prologue  # the last prologue step's buffer
    step = loop[:loop.index("mf_cp_async_wait<0>();\n", loop.index("mf_mma_m16n8k16"))]
    # the ring index: a counter from 0 before the loop, wrapped forward at the end of each step
    assert "int stage = 0;\n  for (int k0 = 0;" in then and "/ 32)" not in step
    assert f"stage = ((stage < {num_stages - 1}) ? (stage + 1) : (stage - {num_stages - 1}));\n  }}" in then
    assert re.search(rf"int k0_next\w* = \(k0 \+ {32 * (num_stages - 1)}\);", step)
    assert step.index(f"mf_cp_async_wait<{num_stages - 2}>();") < step.index("__syncthreads();")
    assert step.count("__syncthreads();") == 1 and step.count("mf_cp_async_commit();") == 1
    assert step.index("mf_mma_m16n8k16") < step.index("mf_cp_async_commit();")
    assert f"((((stage < 1) ? (stage + {num_stages - 1}) : (stage - 1)) * 2560) + " in step
    assert c.shared_bytes == num_stages * 2 * (64 * 40 + 32 * 72)


@mf.jit
def byte_atomics(x_ptr, z_ptr):
    tl.atomic_add(z_ptr, tl.load(x_ptr))


def test_cuda_refuses_atomics_on_bytes_at_their_line():
    """CUDA has no compare-and-swap on single bytes: an 8-bit atomic is refused at the user's line (it
    reached NVRTC as a static_assert in the template before, found on an H100); 16-bit ones compile."""
    with pytest.raises(mf.errors.KernelDefinitionError, match=r"(?s)kernel `byte_atomics` at .*test_cuda_render\.py:"
                                                              r"\d+.*tl\.atomic_add on tl\.int8 \(output `z_ptr`\): "
                                                              r"CUDA has no atomic tl\.int8.*fix: accumulate in an "
                                                              r"int32 output"):
        byte_atomics.compile(mx.ones(1, mx.int8), mf.zeros(1, mx.int8), target="cuda")
    assert "mf_atomic_add" in byte_atomics.compile(mx.ones(1, mx.int16), mf.zeros(1, mx.int16), target="cuda").body
