"""An attention layer's three quantized projections of a prefill in one launch (`quantized.qmm_qkv`,
`qmm_qkv_kernel`): each output against float64 at odd sizes (every column tile of every projection
masked), with and without biases, every word width; its tuning check; its CUDA on wgmma with the
outputs' staged stores; the checks of its inputs."""
from __future__ import annotations

import functools

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
from metalforge.autotune.bench import as_outputs, max_error
from metalforge.kernels import quantized

from ..codegen.nvrtc import nvrtc_missing, ptxas, resources, to_ptx
from ..codegen.test_cuda_render import compiled_source
from .test_library import f64, normal
from .test_qmm_split import _quantized, assert_qmm_close


def _projections(rng, nq: int, nkv: int, k: int, group: int, bits: int):
    """The three quantized weights (w_q, scales, biases) and their dequantised float64 values."""
    made = [_quantized(rng, n, k, group, bits) for n in (nq, nkv, nkv)]
    return [m[:3] for m in made], [m[3] for m in made]


@pytest.mark.parametrize("bits,group,config", [
    (4, 64, dict(BLOCK_M=32, BLOCK_N=64, BLOCK_K=64, num_warps=4)),
    (8, 128, dict(BLOCK_M=16, BLOCK_N=32, BLOCK_K=32, num_warps=2)),
    (2, 32, dict(BLOCK_M=16, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=2))])
@pytest.mark.parametrize("bias", [False, True])
def test_three_products_against_float64(rng, bits, group, config, bias):
    """M = 19 rows, 100 query and 40 key/value columns (neither a multiple of the tile: each
    projection's last column tile masked, and its first tile starts where the one before ended) into
    NaN-poisoned outputs; with biases, each product plus its bias in fp32, rounded once."""
    m, nq, nkv, k = 19, 100, 40, 256
    weights, dequantised = _projections(rng, nq, nkv, k, group, bits)
    x = normal(rng, (m, k), mx.float16)
    biases = tuple(normal(rng, (n,), mx.float16) for n in (nq, nkv, nkv))
    extra = dict(qb_ptr=biases[0], kb_ptr=biases[1], vb_ptr=biases[2], BIAS=True) if bias else {}
    flat = [a.reshape(-1) for w in weights for a in w]
    outputs = quantized.qmm_qkv_kernel.fn[quantized.qmm_qkv_grid(m, nq, nkv)(config)](
        x, *flat, *(mf.full((m, n), float("nan"), mx.float16) for n in (nq, nkv, nkv)), m, nq, nkv, k, group, bits,
        **extra, **config)
    for got, w, b in zip(outputs, dequantised, biases):
        assert np.isfinite(f64(got)).all()
        if not bias:
            assert_qmm_close(x, w, got, k)
            continue
        # the bias joins the fp32 sum (exactly: fp16 in fp32), then one rounding to fp16; the bound (that
        # of the sum, with its weight flips) is wider than one ulp, so it shows the bias added, not that
        # the result is rounded once
        w_x = f64(mx.array(w.astype(np.float32)).astype(mx.float16))
        want = f64(x) @ w_x.T + f64(b)[None, :]
        scale = np.abs(f64(x)) @ np.abs(w_x).T
        bound = 2.0 ** -11 * np.abs(want) + (k + 2) * 2.0 ** -24 * scale + 2.0 ** -10 * scale + 1e-30
        assert (np.abs(f64(got) - want) <= bound).all(), np.abs(f64(got) - want).max()


@pytest.mark.parametrize("dtype", [mx.float16, mx.float32])
def test_qmm_qkv_equals_three_qmm_on_a_models_batch(rng, dtype):
    """`qmm_qkv` on a layer's (B, T, K) input: the outputs keep the leading axes and equal qmm's,
    projection by projection, bit for bit (the same product in the same order, only launched
    together)."""
    nq, nkv, k = 96, 32, 192
    weights, _ = _projections(rng, nq, nkv, k, 64, 4)
    x = normal(rng, (1, 7, k), dtype)
    got = quantized.qmm_qkv(x, *weights)
    for out, w, n in zip(got, weights, (nq, nkv, nkv)):
        assert out.shape == (1, 7, n) and out.dtype == dtype
        assert mx.array_equal(out, quantized.qmm(x, *w))


@pytest.mark.parametrize("bias", [False, True])
def test_tiny_weights_run_as_three_qmm(rng, bias):
    """Weights of fewer than 8 elements (a key/value projection of one row here: scales and biases of
    one element) reach a Metal kernel in the constant address space, which the kernel's choice of
    weights per column tile cannot mix with device memory: such products run as three qmm."""
    weights, _ = _projections(rng, 64, 1, 64, 64, 4)
    x = normal(rng, (1, 5, 64), mx.float16)
    biases = tuple(normal(rng, (n,), mx.float16) for n in (64, 1, 1)) if bias else None
    got = quantized.qmm_qkv(x, *weights, bias=biases)
    for i, (out, w) in enumerate(zip(got, weights)):
        want = quantized.qmm(x, *w)
        assert out.shape == want.shape and mx.array_equal(out, want if bias is False else want + biases[i])


def test_qmm_qkv_tunes_on_a_miss_for_a_models_batch(rng, monkeypatch, tmp_path):
    """A layer's (B, T, K) input with tuning on a miss: each candidate's outputs are checked against
    the reference in their (B, T, N) shapes, and the one kept is stored."""
    monkeypatch.setenv("METALFORGE_DB", str(tmp_path / "tuning.sqlite"))
    monkeypatch.setenv("METALFORGE_TUNE_ON_MISS", "1")
    tuner = quantized.qmm_qkv_kernel
    monkeypatch.setattr(tuner, "tune", functools.partial(type(tuner).tune, tuner, trials=6))  # a short search
    tuner.clear_cache()  # another test may have run this shape untuned
    weights, dequantised = _projections(rng, 40, 16, 128, 64, 4)
    x = normal(rng, (1, 3, 128), mx.float16)
    got = quantized.qmm_qkv(x, *weights)
    for out, w in zip(got, dequantised):
        assert out.shape == (1, 3, w.shape[0])
        assert_qmm_close(x[0], w, out[0], 128)
    args = (x, *[a for w in weights for a in w], *(mf.empty((1, 3, n), mx.float16) for n in (40, 16, 16)), 3, 40, 16,
            128, 64, 4)
    _, source = quantized.qmm_qkv_kernel.config_for(quantized.qmm_qkv_grid(3, 40, 16), *args)
    quantized.qmm_qkv_kernel.clear_cache()  # the config came from this test's database
    assert source == "exact"


def test_qmm_qkv_refuses_inputs_that_do_not_fit(rng):
    weights, _ = _projections(rng, 64, 32, 128, 64, 4)
    x = mx.zeros((3, 128), mx.float16)
    with pytest.raises(ValueError, match=r"qmm_qkv: x of shape \(3, 96\) does not end in the weights' K of 128"):
        quantized.qmm_qkv(mx.zeros((3, 96), mx.float16), *weights)
    with pytest.raises(ValueError, match="qmm_qkv: weights .* do not share K, or the key and value weights differ"):
        quantized.qmm_qkv(x, weights[0], weights[1], _quantized(rng, 48, 128, 64, 4)[:3])
    with pytest.raises(ValueError, match=r"qmm_qkv: biases of \(64,\), \(32,\), \(31,\) do not match the outputs of "
                                         r"64, 32 and 32 rows"):
        quantized.qmm_qkv(x, *weights, bias=(mx.zeros(64), mx.zeros(32), mx.zeros(31)))


@pytest.mark.parametrize("shape", [(64, 256, 64, 1024), (5, 96, 32, 256, 8, 128)])
def test_qmm_qkv_passes_its_tuning_check(shape):
    """The tuner's check of qmm_qkv at its standard shape and at 8-bit g128 (M odd)."""
    tuner = quantized.qmm_qkv_kernel
    grid, args = tuner.tune_case(shape, mx.float16)
    outputs = as_outputs(tuner.fn[grid](*args, **tuner.default_config(args).all_kwargs()))
    error, wrong = max_error(outputs, as_outputs(tuner.reference(*args)), tuner.rtol, tuner.atol)
    assert wrong is None, (error, wrong)


@pytest.mark.skipif(nvrtc_missing() is not None or ptxas() is None, reason="NVRTC or ptxas is not installed")
def test_qmm_qkv_on_wgmma_compiles_for_sm90a_with_staged_stores():
    """Qwen2-1.5B's prefill projections at the wgmma default: the weights chosen per column tile feed
    the one K loop, and each output still leaves through shared memory in 16-byte stores (its
    pointer is the argument's in its branch), without spills."""
    h = mx.zeros((1,), mx.float16)
    w = mx.zeros((1,), mx.uint32)
    c = quantized.qmm_qkv_kernel.fn.compile(
        h, w, h, h, w, h, h, w, h, h, *(mf.empty((512, n), mx.float16) for n in (1536, 256, 256)), 512, 1536, 256,
        1536, 64, 4, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=2, wgmma=True, target="cuda")
    assert "mf_wgmma_m64n128k16_f16(" in c.body
    for out, n in (("q_ptr", "mf_NQ"), ("k_ptr", "mf_NKV"), ("v_ptr", "mf_NKV")):
        assert f"*reinterpret_cast<mf_vec<8, __half>*>((({out} + (" in c.body and n in c.body
    used = resources(to_ptx(compiled_source(c), arch="sm_90a"), arch="sm_90a")
    assert (used.spill_stores, used.spill_loads) == (0, 0) and used.registers <= 255, used
