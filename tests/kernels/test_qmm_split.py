"""qmm with K cut into ranges (`quantized.qmm_k_split`, `qmm_partial_kernel`, their sum in `qmm`):
which products split, that the ranges cover K once at group and BLOCK_K boundaries, the partial
products and the whole against float64, and the partial kernel's CUDA on wgmma."""
from __future__ import annotations

import functools

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
from metalforge.autotune.bench import as_outputs, max_error
from metalforge.errors import TuningTargetError
from metalforge.launcher import cdiv
from metalforge.kernels import quantized

from ..codegen.nvrtc import nvrtc_missing, ptxas, resources, to_ptx
from ..codegen.test_cuda_render import compiled_source
from .test_library import f64, normal


@pytest.mark.parametrize("m,n,k,group,want", [
    (512, 1536, 8960, 64, 2240),   # Qwen2-1.5B's down_proj: 48 tiles -> 4 ranges, 192 programs
    (512, 1536, 1536, 64, 1536),   # its q_proj / o_proj: K too short (ranges under MIN_SPLIT_K)
    (512, 256, 1536, 64, 1536),    # its k_proj / v_proj
    (512, 8960, 1536, 64, 1536),   # gate / up: 280 tiles, whole
    (512, 4096, 14336, 64, 14336), (512, 14336, 4096, 64, 4096), (512, 4096, 4096, 64, 4096),  # Llama-3-8B: whole
    (512, 2048, 8192, 64, 4096),   # Llama-3.2-1B's down_proj: 64 tiles -> 2 ranges
    (19, 37, 6400, 128, 3200),     # 2 ranges (4 would be under MIN_SPLIT_K)
    (19, 37, 4480, 128, 2304),     # 2 ranges rounded up to the group of 128, the second shorter
    (19, 37, 4000, 32, 4000)])     # too short to split
def test_which_products_split_and_where(m, n, k, group, want):
    k_split = quantized.qmm_k_split(m, n, k, group)
    assert k_split == want
    if k_split < k:
        assert k_split % group == 0 and k_split % 64 == 0 and k_split >= quantized.MIN_SPLIT_K
        ranges = cdiv(k, k_split)
        assert (ranges - 1) * k_split < k <= ranges * k_split  # every range holds some of K, none is past it


def _quantized(rng, n: int, k: int, group: int, bits: int):
    w_q, scales, biases = mx.quantize(normal(rng, (n, k)), group_size=group, bits=bits)
    return w_q, scales, biases, f64(mx.dequantize(w_q, scales, biases, group_size=group, bits=bits))


@pytest.mark.parametrize("bits,group,k,k_split,config", [
    (4, 64, 1600, 832, dict(BLOCK_M=32, BLOCK_N=64, BLOCK_K=64, num_warps=4)),  # the last range short
    (8, 128, 1024, 256, dict(BLOCK_M=16, BLOCK_N=32, BLOCK_K=32, num_warps=2)),   # four ranges
    (2, 32, 768, 384, dict(BLOCK_M=16, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=2)),  # two-stage ring
    (4, 64, 640, 256, dict(BLOCK_M=16, BLOCK_N=32, BLOCK_K=64, num_warps=2, num_stages=2))])  # ranges 256, 256, 128
def test_partial_products_against_float64(rng, bits, group, k, k_split, config):
    """Each range's product in fp32 (x in fp32: nothing rounded but the sum), odd M and N, every word
    width, into a NaN-poisoned buffer: every element of every range is written."""
    m, n = 19, 37
    w_q, scales, biases, w = _quantized(rng, n, k, group, bits)
    x = normal(rng, (m, k))
    ranges = cdiv(k, k_split)
    parts = quantized.qmm_partial_kernel.fn[quantized.qmm_partial_grid(m, n, k, k_split)(config)](
        x, w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1), mf.full((ranges, m, n), float("nan"), mx.float32),
        m, n, k, k_split, group, bits, **config)
    got = f64(parts)
    for r in range(ranges):
        lo, hi = r * k_split, min((r + 1) * k_split, k)
        xs, ws = f64(x)[:, lo:hi], w[:, lo:hi]
        # fp32: each weight's scale * q + bias rounded (2u), a (hi - lo)-long sum of products, u = 2^-24
        bound = (hi - lo + 2) * 2.0 ** -24 * (np.abs(xs) @ np.abs(ws).T) + 1e-30
        assert np.isfinite(got[r]).all() and (np.abs(got[r] - xs @ ws.T) <= bound).all(), (r, np.abs(got[r] - xs @ ws.T).max())


def assert_qmm_close(x2: mx.array, w: np.ndarray, got: mx.array, k: int) -> None:
    """`got` against x2 (M, K) @ w^T in float64, w the dequantised weights: the weights rounded to x's
    dtype first (as qmm and MLX do), an fp32 sum (its ranges' sums added), one rounding to x's dtype."""
    dtype = x2.dtype
    w_x = f64(mx.array(w.astype(np.float32)).astype(dtype))
    want = f64(x2) @ w_x.T
    scale = np.abs(f64(x2)) @ np.abs(w_x).T
    unit = 2.0 ** -11 if dtype == mx.float16 else 2.0 ** -24
    # where the kernel's fp32 dequantisation and MLX's differ in their last bit, a weight may round to
    # the neighbouring value of x's dtype: one ulp, 2^-10 of it at most (none in fp32)
    flips = 2.0 ** -10 * scale if dtype == mx.float16 else 0.0
    bound = unit * np.abs(want) + (k + 2) * 2.0 ** -24 * scale + flips + 1e-30
    assert (np.abs(f64(got) - want) <= bound).all(), np.abs(f64(got) - want).max()


@pytest.mark.parametrize("dtype", [mx.float16, mx.float32])
def test_split_qmm_against_float64(rng, dtype):
    """`qmm` at a shape it splits (three rows of x in a batch of one, K in two ranges)."""
    m, n, k = 3, 40, 4096
    assert quantized.qmm_k_split(m, n, k, 64) == 2048
    w_q, scales, biases, w = _quantized(rng, n, k, 64, 4)
    x = normal(rng, (1, m, k), dtype)
    got = quantized.qmm(x, w_q, scales, biases, 64, 4)
    assert got.shape == (1, m, n) and got.dtype == dtype
    assert_qmm_close(x[0], w, got[0], k)


def test_unsplit_qmm_keeps_one_launch(monkeypatch):
    """A product that does not split (here K is too short for two ranges of MIN_SPLIT_K) runs
    qmm_kernel alone: no partials, no sum."""
    class Refused:
        def __getitem__(self, grid):
            raise AssertionError("qmm_partial_kernel launched for a product that needs no split")

    monkeypatch.setattr(quantized, "qmm_partial_kernel", Refused())
    x = mx.zeros((2, 960), mx.float16)
    w_q, scales, biases = mx.quantize(mx.zeros((300, 960)), group_size=64, bits=4)
    assert quantized.qmm_k_split(2, 300, 960, 64) == 960
    assert quantized.qmm(x, w_q, scales, biases).shape == (2, 300)


@pytest.mark.skipif(nvrtc_missing() is not None or ptxas() is None, reason="NVRTC or ptxas is not installed")
@pytest.mark.parametrize("bm,warps", [(128, 8), (64, 4)])
def test_partial_kernel_on_wgmma_compiles_for_sm90a_without_spills(bm, warps):
    """Qwen2-1.5B's down_proj ranges at the wgmma tiles the tuner and the default take: the range's
    start from program_id(2) feeds the cp.async ring like a loop from 0; fp32 partials stored."""
    h = mx.zeros((1,), mx.float16)
    c = quantized.qmm_partial_kernel.fn.compile(
        h, mx.zeros((1,), mx.uint32), h, h, mf.empty((4, 512, 1536)), 512, 1536, 8960, 2240, 64, 4, BLOCK_M=bm,
        BLOCK_N=128, BLOCK_K=64, num_warps=warps, num_stages=2, wgmma=True, target="cuda")
    assert "mf_wgmma_m64n128k16_f16(" in c.body and "mf_mma_m16n8k16(" not in c.body
    used = resources(to_ptx(compiled_source(c), arch="sm_90a"), arch="sm_90a")
    assert (used.spill_stores, used.spill_loads) == (0, 0) and used.registers <= 255, used


@pytest.mark.parametrize("shape", [(64, 256, 2048, 1024), (3, 40, 1536, 768, 8, 128)])
def test_partial_kernel_passes_its_tuning_check(shape):
    """The tuner's check of qmm_partial (fp16: the reference dequantises in fp32 and rounds the weights
    to fp16 as the kernel does) at its standard shape and at 8-bit g128."""
    tuner = quantized.qmm_partial_kernel
    grid, args = tuner.tune_case(shape, mx.float16)
    outputs = as_outputs(tuner.fn[grid](*args, **tuner.default_config(args).all_kwargs()))
    error, wrong = max_error(outputs, as_outputs(tuner.reference(*args)), tuner.rtol, tuner.atol)
    assert wrong is None, (error, wrong)


def test_split_qmm_tunes_on_a_miss_for_a_models_batch(rng, monkeypatch, tmp_path):
    """A layer's (B, T, K) input at a shape that splits, with tuning on a miss: the partial kernel's
    candidates are checked against its reference (x flattened to rows), and the one kept is stored."""
    monkeypatch.setenv("METALFORGE_DB", str(tmp_path / "tuning.sqlite"))
    monkeypatch.setenv("METALFORGE_TUNE_ON_MISS", "1")
    tuner = quantized.qmm_partial_kernel
    monkeypatch.setattr(tuner, "tune", functools.partial(type(tuner).tune, tuner, trials=6))  # a short search
    tuner.clear_cache()  # another test may have run this shape untuned
    w_q, scales, biases, w = _quantized(rng, 40, 4096, 64, 4)
    x = normal(rng, (1, 3, 4096), mx.float16)
    got = quantized.qmm(x, w_q, scales, biases)
    assert got.shape == (1, 3, 40)
    assert_qmm_close(x[0], w, got[0], 4096)
    args = (x, w_q, scales, biases, mf.empty((2, 3, 40), mx.float32), 3, 40, 4096, 2048, 64, 4)
    _, source = quantized.qmm_partial_kernel.config_for(quantized.qmm_partial_grid(3, 40, 4096, 2048), *args)
    quantized.qmm_partial_kernel.clear_cache()  # the config came from this test's database
    assert source == "exact"


def test_a_range_that_is_not_a_multiple_of_the_steps_is_refused():
    """`metalforge autotune --shapes M x N x K x K_SPLIT` with a K_SPLIT whose last K step would run into
    the next range (and count its weights twice) is refused, naming the kernel and the fix."""
    with pytest.raises(TuningTargetError, match=r"qmm_partial_kernel: K_SPLIT 96 .* not a multiple of 64"):
        quantized.qmm_partial_kernel.tune_case((16, 32, 192, 96), mx.float16)
