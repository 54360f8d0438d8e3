"""A gated MLP's hidden activations of a prefill in one launch (`quantized.qmm_swiglu`,
`qmm_swiglu_kernel`): against float64 at odd sizes (every tile's rows and columns masked) into
poisoned outputs, every word width, fp16 and fp32; its untuned config on Metal and in its space; its
tuning check and tuning on a miss; its CUDA on wgmma; the checks of its inputs."""
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
from .test_qmm_split import _quantized


def _gate_up(rng, n: int, k: int, group: int, bits: int):
    """The gate and up weights (w_q, scales, biases)."""
    return [_quantized(rng, n, k, group, bits)[:3] for _ in range(2)]


UNIT = {mx.float16: 2.0 ** -11, mx.bfloat16: 2.0 ** -8, mx.float32: 2.0 ** -24}  # half an ulp, relative


def _kernel_weights(weight, group: int, bits: int, dtype: mx.Dtype) -> tuple[np.ndarray, np.ndarray]:
    """The weights as a kernel may dequantise them, rounded to x's dtype: scale * q + bias in float32
    with the product rounded first, or fused (one rounding, as an FMA makes it); float64."""
    w_q, scales, biases = weight
    words = np.array(w_q).astype(np.uint64)
    shifts = np.arange(32 // bits, dtype=np.uint64) * np.uint64(bits)
    q = ((words[:, :, None] >> shifts) & np.uint64((1 << bits) - 1)).reshape(words.shape[0], -1).astype(np.float64)
    s, b = (np.repeat(f64(a), group, axis=1) for a in (scales, biases))
    products = (q.astype(np.float32) * s.astype(np.float32)).astype(np.float32)
    rounded = [(products + b.astype(np.float32)).astype(np.float32), (q * s + b).astype(np.float32)]
    return tuple(f64(mx.array(w).astype(dtype)) for w in rounded)


def assert_swiglu_close(x2: mx.array, gate, up, got: mx.array, group: int, bits: int) -> None:
    """`got` against silu(x2 g^T) * (x2 u^T) in float64, g and u the weights dequantised in float32
    and rounded to x's dtype (as the kernel does). Each product's fp32 sum is off by e <= (k + 2)
    2^-24 |x| |w|, plus |x| |w' - w| where the kernel's fused dequantisation rounds a weight to the
    neighbouring value of x's dtype (w'). silu's slope is at most 1.1, so silu(g) moves by 1.1 e_g;
    the activation's own fp32 arithmetic (sigmoid, two products) adds 2^-19 of the result's size;
    then one rounding to x's dtype (half an ulp, 2^-25 absolute among fp16's subnormals). Tight
    enough to tell this from MLX's arithmetic, which rounds g and u to x's dtype first."""
    dtype, k = x2.dtype, x2.shape[-1]
    x = f64(x2)
    (g_w, g_fused), (u_w, u_fused) = (_kernel_weights(w, group, bits, dtype) for w in (gate, up))
    g, u = x @ g_w.T, x @ u_w.T
    e_g, e_u = ((k + 2) * 2.0 ** -24 * (np.abs(x) @ np.abs(w).T) + np.abs(x) @ np.abs(fused - w).T
                for w, fused in ((g_w, g_fused), (u_w, u_fused)))
    silu = g / (1.0 + np.exp(-g))
    want = silu * u
    size = (np.abs(silu) + 1.1 * e_g) * (np.abs(u) + e_u)
    error = np.abs(silu) * e_u + 1.1 * e_g * (np.abs(u) + e_u) + 2.0 ** -19 * size
    bound = UNIT[dtype] * (np.abs(want) + error) + error + 2.0 ** -25
    diff = np.abs(f64(got) - want)
    assert np.isfinite(f64(got)).all() and (diff <= bound).all(), (diff.max(), (diff / bound).max())


@pytest.mark.parametrize("bits,group,config", [
    (4, 64, dict(BLOCK_M=32, BLOCK_N=64, BLOCK_K=64, num_warps=4)),
    (8, 128, dict(BLOCK_M=16, BLOCK_N=32, BLOCK_K=32, num_warps=2)),
    (2, 32, dict(BLOCK_M=16, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=2))])
def test_activations_against_float64(rng, bits, group, config):
    """M = 19 rows and N = 100 columns (neither a multiple of the tile: the last row and column tiles
    masked) into a NaN-poisoned output."""
    m, n, k = 19, 100, 256
    weights = _gate_up(rng, n, k, group, bits)
    x = normal(rng, (m, k), mx.float16)
    flat = [a.reshape(-1) for w in weights for a in w]
    got = quantized.qmm_swiglu_kernel.fn[quantized.qmm_grid(m, n)(config)](
        x, *flat, mf.full((m, n), float("nan"), mx.float16), m, n, k, group, bits, **config)
    assert_swiglu_close(x, *weights, got, group, bits)


@pytest.mark.parametrize("rows,dtype", [(7, mx.float16), (7, mx.float32), (7, mx.bfloat16), (130, mx.float16)])
def test_qmm_swiglu_on_a_models_batch(rng, rows, dtype):
    """`qmm_swiglu` on a layer's (B, T, K) input at its untuned config (at 130 rows, the default for
    more than 128 rows: wgmma's where the back end has it; the last row tile masked): the output
    keeps the leading axes and x's dtype."""
    n, k = 72, 320
    weights = _gate_up(rng, n, k, 64, 4)
    x = normal(rng, (1, rows, k), dtype)
    got = quantized.qmm_swiglu(x, *weights)
    assert got.shape == (1, rows, n) and got.dtype == dtype
    assert_swiglu_close(x[0], *weights, got[0], 64, 4)


@pytest.mark.parametrize("m,dtype", [(1, mx.float16), (40, mx.float16), (512, mx.float16), (19, mx.float32)])
def test_qmm_swiglu_default_is_half_of_qmms_and_fits_metal(m, dtype, monkeypatch):
    """The untuned config is qmm's with half its columns (two products a program), a point of the
    space, and compiles for Metal within its 32 KiB of threadgroup memory (the compiler's count)."""
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")  # Metal's rules, whichever back end runs the suite
    tuner = quantized.qmm_swiglu_kernel
    w_q, scales, biases = (a.reshape(-1) for a in mx.quantize(mx.zeros((256, 512)), group_size=64, bits=4))
    args = (mx.zeros((m, 512), dtype), w_q, scales, biases, w_q, scales, biases, mf.empty((m, 256), dtype), m, 256,
            512, 64, 4)
    config = tuner.default_config(args)
    qmm = quantized.qmm_default(m, dtype)
    assert config == mf.Config({**qmm.kwargs, "BLOCK_N": 64}, num_warps=qmm.num_warps)
    assert tuner.space.point_of(config) is not None
    assert tuner.fn.compile(*args, target="msl", **config.all_kwargs()).shared_bytes <= 32 * 1024


@pytest.mark.parametrize("shape", [(64, 256, 1024), (5, 96, 256, 8, 128)])
def test_qmm_swiglu_passes_its_tuning_check(shape):
    """The tuner's check of qmm_swiglu at its standard shape and at 8-bit g128 (M odd)."""
    tuner = quantized.qmm_swiglu_kernel
    grid, args = tuner.tune_case(shape, mx.float16)
    outputs = as_outputs(tuner.fn[grid](*args, **tuner.default_config(args).all_kwargs()))
    error, wrong = max_error(outputs, as_outputs(tuner.reference(*args)), tuner.rtol, tuner.atol)
    assert wrong is None, (error, wrong)


def test_qmm_swiglu_tunes_on_a_miss_for_a_models_batch(rng, monkeypatch, tmp_path):
    """A layer's (B, T, K) input with tuning on a miss: each candidate's output is checked against the
    reference in its (B, T, N) shape, and the one kept is stored."""
    monkeypatch.setenv("METALFORGE_DB", str(tmp_path / "tuning.sqlite"))
    monkeypatch.setenv("METALFORGE_TUNE_ON_MISS", "1")
    tuner = quantized.qmm_swiglu_kernel
    monkeypatch.setattr(tuner, "tune", functools.partial(type(tuner).tune, tuner, trials=6))  # a short search
    tuner.clear_cache()  # another test may have run this shape untuned
    weights = _gate_up(rng, 40, 128, 64, 4)
    x = normal(rng, (1, 3, 128), mx.float16)
    got = quantized.qmm_swiglu(x, *weights)
    assert got.shape == (1, 3, 40)
    assert_swiglu_close(x[0], *weights, got[0], 64, 4)
    args = (x, *[a for w in weights for a in w], mf.empty((1, 3, 40), mx.float16), 3, 40, 128, 64, 4)
    _, source = tuner.config_for(quantized.qmm_grid(3, 40), *args)
    tuner.clear_cache()  # the config came from this test's database
    assert source == "exact"


def test_qmm_swiglu_refuses_inputs_that_do_not_fit(rng):
    weights = _gate_up(rng, 64, 128, 64, 4)
    with pytest.raises(ValueError, match=r"qmm_swiglu: x of shape \(3, 96\) does not end in the weights' K of 128"):
        quantized.qmm_swiglu(mx.zeros((3, 96), mx.float16), *weights)
    with pytest.raises(ValueError, match=r"qmm_swiglu: gate weight \(64, 128\) and up weight \(48, 16\) \(packed\) "
                                         "differ in shape"):
        quantized.qmm_swiglu(mx.zeros((3, 128), mx.float16), weights[0], _quantized(rng, 48, 128, 64, 4)[:3])
    with pytest.raises(ValueError, match="quantized product: bits=3"):
        quantized.qmm_swiglu(mx.zeros((3, 128), mx.float16), *weights, bits=3)


@pytest.mark.skipif(nvrtc_missing() is not None or ptxas() is None, reason="NVRTC or ptxas is not installed")
def test_qmm_swiglu_on_wgmma_compiles_for_sm90a(monkeypatch):
    """Qwen2-1.5B's prefill MLP at the default where the back end has wgmma (128 x 64 x 64, two
    products of 64 columns): both products on wgmma in the one K loop, the activation stored through
    shared memory in 16-byte stores, without spills."""
    monkeypatch.setattr(quantized, "lacking", lambda backend=None: lambda setting: None)  # a Hopper GPU's back end
    h = mx.zeros((1,), mx.float16)
    w = mx.zeros((1,), mx.uint32)
    args = (h, w, h, h, w, h, h, mf.empty((512, 8960), mx.float16), 512, 8960, 1536, 64, 4)
    config = quantized.qmm_swiglu_kernel.default_config(args)
    assert config == mf.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64}, num_warps=8, num_stages=2, wgmma=True)
    c = quantized.qmm_swiglu_kernel.fn.compile(*args, **config.all_kwargs(), target="cuda")
    assert c.body.count("mf_wgmma_m64n64k16_f16(") >= 2
    assert "*reinterpret_cast<mf_vec<8, __half>*>(((out_ptr + (" in c.body
    used = resources(to_ptx(compiled_source(c), arch="sm_90a"), arch="sm_90a")
    assert (used.spill_stores, used.spill_loads) == (0, 0) and used.registers <= 255, used
