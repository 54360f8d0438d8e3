"""The kernel library against MLX's own operations (CPU), on fresh random inputs with odd sizes."""
from __future__ import annotations

import math

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
from metalforge.errors import SharedMemoryLimitError
from metalforge.launcher.generated import UNSET
from metalforge.kernels import attention, flash_attention, matmul, norms, quantized, registered, rope, softmax


def close(a: mx.array, b: mx.array, tol: float) -> None:
    a32, b32 = np.array(a.astype(mx.float32)), np.array(b.astype(mx.float32))
    assert np.isfinite(a32).all(), "unwritten (poisoned) or non-finite elements"
    np.testing.assert_allclose(a32, b32, rtol=tol, atol=tol)


def normal(rng: np.random.Generator, shape, dtype=mx.float32) -> mx.array:
    return mx.array(rng.standard_normal(shape).astype(np.float32)).astype(dtype)


def f64(x: mx.array) -> np.ndarray:
    """The values an array holds, in float64 (the references' precision)."""
    return np.array(x.astype(mx.float32)).astype(np.float64)


def softmax_float64(x: mx.array) -> np.ndarray:
    x64 = f64(x)
    e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_rtol(cols: int, per_thread: int, dtype: mx.Dtype) -> float:
    """Relative error bound per output: a thread sums up to `per_thread` terms in order, the tree
    over threads adds log2(cols) roundings, exp, the subtraction and the division a few more (8 in
    all, fp32 units of 2^-24); then the output's rounding to its dtype."""
    fp32 = (per_thread + math.ceil(math.log2(cols)) + 8) * 2.0 ** -24
    return fp32 + (2.0 ** -11 if dtype == mx.float16 else 2.0 ** -24)


@pytest.mark.parametrize("rows,cols,block", [(3, 1000, 256), (2, 77, 128), (1, 4097, 1024), (2, 32000, 4096)])
@pytest.mark.parametrize("dtype", [mx.float32, mx.float16])
def test_softmax(rng, rows, cols, block, dtype):
    """Against float64, to a bound (fp16's subnormal spacing as the absolute floor); the long row runs
    the default config's one 32768-column block of 1024 threads, then two-pass blocks of 4096."""
    x = normal(rng, (rows, cols), dtype) * 4
    want, atol = softmax_float64(x), 2.0 ** -24
    config, _ = softmax.softmax_kernel.config_for((rows,), x.reshape(-1), None, cols, cols)
    block = config.kwargs["BLOCK"]  # a lane sums ceil(cols / block) terms, a thread block / threads lanes
    per_thread = math.ceil(cols / block) + block // (32 * config.num_warps)
    got = np.array(softmax.softmax(x).astype(mx.float32))  # the tuned (or default) config
    np.testing.assert_allclose(got, want, rtol=softmax_rtol(cols, per_thread, dtype), atol=atol)
    out = softmax.softmax_kernel.fn[(rows,)](x.reshape(-1), mf.empty((rows, cols), dtype), cols, cols, BLOCK=block,
                                            num_warps=2)
    per_thread = math.ceil(cols / block) + block // 64
    got = np.array(out.astype(mx.float32))
    assert np.isfinite(got).all(), "unwritten (poisoned) or non-finite elements"
    np.testing.assert_allclose(got, want, rtol=softmax_rtol(cols, per_thread, dtype), atol=atol)


@pytest.mark.parametrize("cols,block,warps", [(1, 32, 1), (77, 128, 1), (1000, 1024, 2), (4000, 4096, 8),
                                              (32000, 32768, 32), (10 ** 6, 32768, 32)])
def test_softmax_default_is_a_point_of_its_space_that_the_row_allows(cols, block, warps):
    tuner, named = softmax.softmax_kernel, {"n_cols": cols}
    config = tuner.default_config((None, None, cols, cols))
    assert config == mf.Config({"BLOCK": block}, num_warps=warps) == softmax.default_config(named)
    assert tuner.space.violated(tuner.space.point_of(config)) is None and softmax.fits_row(config.all_kwargs(), named)


@pytest.mark.parametrize("tuner,args,warps,kwargs", [
    (norms.add_rms_norm_kernel, (None,) * 7 + (8192,), 8, {}),    # 8192 columns: 32 per thread of 8 warps
    (norms.add_rms_norm_kernel, (None,) * 7 + (256,), 1, {}),
    (norms.layer_norm_kernel, (None,) * 8 + (2048,), 2, {}),
    # rope: (x, out, n_heads, T, log_base, HALF); 8 pairs per thread, heads share angles while 1024 programs remain
    (rope.rope_kernel, (None, None, 32, 4096, None, 64), 4, {"BLOCK_T": 16, "HEADS": 8}),
    (rope.rope_kernel, (None, None, 32, 512, None, 64), 4, {"BLOCK_T": 16, "HEADS": 1}),
    (rope.rope_kernel, (None, None, 32, 1, None, 64), 1, {"BLOCK_T": 1, "HEADS": 1}),   # a decode step
    (rope.rope_kernel, (None, None, 8, 4096, None, 8), 1, {"BLOCK_T": 32, "HEADS": 1}),  # capped at the largest block
])
def test_norm_and_rope_defaults_are_points_of_their_spaces(tuner, args, warps, kwargs):
    """The untuned configs (and each search's first trial) follow the block size, inside the space."""
    config = tuner.default_config(args)
    assert config == mf.Config(kwargs, num_warps=warps)
    assert tuner.space.point_of(config) is not None


def test_softmax_space_keeps_registers_and_threads_in_bounds():
    space = softmax.softmax_kernel.space
    valid = [p for p in space.points() if space.violated(p) is None]
    assert (space.size, len(valid)) == (66, 36)
    assert all(1 <= p["BLOCK"] // (32 * p["num_warps"]) <= softmax.MAX_PER_THREAD for p in valid)
    assert {p["BLOCK"] for p in valid} == set(mf.pow2(32, 32768))
    assert {p["num_warps"] for p in valid} == {1, 2, 4, 8, 16, 32}


def test_library_is_registered_for_autotuning():
    library = registered()
    assert {"softmax_kernel", "add_rms_norm_kernel", "layer_norm_kernel", "qmv_kernel", "qmv_swiglu_kernel", "qmv_qkv_kernel",
            "qmm_kernel", "qmm_qkv_kernel", "qmm_swiglu_kernel",
            "decode_attention_kernel", "rope_kernel", "matmul_kernel", "flash_attention_kernel"} <= set(library)
    for tuner in library.values():
        grid, args = tuner.tune_case(tuner.shapes[0], tuner.dtypes[0])
        tuned = {k for k in tuner.space.default().kwargs}
        required = [n for n, d in zip(tuner.fn.arg_names, tuner.fn.defaults) if d is UNSET]  # rope's have defaults
        assert len(args) == len(required) - len(tuned), tuner.name


@pytest.mark.parametrize("rows,cols", [(3, 300), (4, 1024)])
def test_add_rms_norm(rng, rows, cols):
    x, r = normal(rng, (rows, cols), mx.float16), normal(rng, (rows, cols), mx.float16)
    w = normal(rng, (cols,), mx.float16)
    out, h = norms.add_rms_norm(x, r, w)
    ref_out, ref_h = norms.add_rms_norm_reference(x, r, w)
    close(h, ref_h, 1e-3)
    close(out, ref_out, 1e-2)


@pytest.mark.parametrize("rows,cols", [(5, 300), (2, 64)])
def test_layer_norm(rng, rows, cols):
    x = normal(rng, (rows, cols)) * 3 + 1
    w, b = normal(rng, (cols,)), normal(rng, (cols,))
    out, mean, rstd = norms.layer_norm(x, w, b)
    ref_out, ref_mean, ref_rstd = norms.layer_norm_reference(x, w, b)
    close(out, ref_out, 1e-4)
    close(mean, ref_mean, 1e-5)
    close(rstd, ref_rstd, 1e-4)


@pytest.mark.parametrize("n,k", [(37, 512), (8, 192)])
def test_quantized_matvec(rng, n, k):
    w = normal(rng, (n, k))
    w_q, scales, biases = mx.quantize(w, group_size=64, bits=4)
    x = normal(rng, (k,))
    close(quantized.qmv(x, w_q, scales, biases), quantized.reference(x, w_q, scales, biases), 1e-3)


@pytest.mark.parametrize("n,k,block_k", [(37, 4096, 1024), (37, 4352, 512), (37, 2048, 512), (9000, 4096, 512)])
def test_quantized_matvec_untuned_config(rng, n, k, block_k):
    """The untuned qmv config takes 1024 weights a step only for long rows (K >= 4096, a multiple of
    1024) of programs of few rows; it is a point of the tuning space, and the product at it, on a
    poisoned output, is within the float64 bound of the configs test."""
    w_q, scales, biases = mx.quantize(normal(rng, (n, k)), group_size=64, bits=4)
    x = normal(rng, (k,))
    args = (x, w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1), mf.full((n,), float("nan"), mx.float32), n, k,
            64, 4)
    config = quantized.qmv_kernel.default_config(args)
    assert config.kwargs["BLOCK_K"] == block_k and quantized.qmv_kernel.space.point_of(config) is not None
    swiglu = quantized.qmv_swiglu_default({"N": n, "K": k})
    assert swiglu.kwargs["BLOCK_K"] == (1024 if k % 1024 == 0 and k >= 4096 else 512)
    assert quantized.qmv_swiglu_kernel.space.point_of(swiglu) is not None
    if n > 64:
        return  # the wide layer's default (32 rows a program, 512 a step) is the configs test's first case
    out = quantized.qmv_kernel.fn[(mf.cdiv(n, config.kwargs["BLOCK_N"]),)](*args, **config.all_kwargs())
    w = f64(mx.dequantize(w_q, scales, biases, group_size=64, bits=4))
    want = w @ f64(x)
    bound = (k + 2) * 2.0 ** -24 * (np.abs(w) @ np.abs(f64(x))) + 1e-30  # as test_quantized_matvec_configs
    got = f64(out)
    assert np.isfinite(got).all() and (np.abs(got - want) <= bound).all(), np.abs(got - want).max()


@pytest.mark.parametrize("bits,group,k,config", [
    (4, 64, 704, dict(BLOCK_N=32, BLOCK_K=512, num_warps=4)),  # the default: two steps, the second 3 groups of 8
    (2, 32, 704, dict(BLOCK_N=8, BLOCK_K=256, num_warps=2)),   # 16 nibbles a word, groups of 2 words
    (8, 128, 640, dict(BLOCK_N=16, BLOCK_K=1024, num_warps=2))])  # a step longer than the row
def test_quantized_matvec_configs(rng, bits, group, k, config):
    """Every word, scale and x element read once in the word tile's layout: odd row counts and a
    last step of whole groups masked off, for each word width, against float64 on the same
    dequantised weights."""
    n = 37
    w_q, scales, biases = mx.quantize(normal(rng, (n, k)), group_size=group, bits=bits)
    x = normal(rng, (k,))
    out = quantized.qmv_kernel.fn[(mf.cdiv(n, config["BLOCK_N"]),)](
        x, w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1), mf.full((n,), float("nan"), mx.float32), n, k,
        group, bits, **config)
    w = f64(mx.dequantize(w_q, scales, biases, group_size=group, bits=bits))
    want = w @ f64(x)
    # fp32: each weight's scale * q + bias rounded (2u) and a k-long sum (k u), u = 2^-24
    bound = (k + 2) * 2.0 ** -24 * (np.abs(w) @ np.abs(f64(x))) + 1e-30
    got = f64(out)
    assert np.isfinite(got).all() and (np.abs(got - want) <= bound).all(), np.abs(got - want).max()


@pytest.mark.parametrize("bits,group,k,config", [
    (4, 64, 704, dict(BLOCK_N=8, BLOCK_K=512, num_warps=4)),  # two steps, the second 3 groups of 8
    (8, 32, 320, dict(BLOCK_N=32, BLOCK_K=1024, num_warps=2))])  # 2 query blocks, one each of k and v
def test_quantized_qkv_configs(rng, bits, group, k, config):
    """Three products in one launch: the query rows' programs first, then the keys', then the
    values' (odd row counts that leave each a masked last block), each against float64 within
    qmv's bound; every output poisoned with NaN first."""
    nq, nkv = 45, 19
    weights = [mx.quantize(normal(rng, (n, k)), group_size=group, bits=bits) for n in (nq, nkv, nkv)]
    x = normal(rng, (k,))
    blocks = [mf.cdiv(n, config["BLOCK_N"]) for n in (nq, nkv, nkv)]
    outs = quantized.qmv_qkv_kernel.fn[(sum(blocks),)](
        x, *(a.reshape(-1) for w in weights for a in w), *(mf.full((n,), float("nan"), mx.float32) for n in (nq, nkv, nkv)),
        nq, nkv, k, group, bits, **config)
    for out, w in zip(outs, weights):
        dense = f64(mx.dequantize(*w, group_size=group, bits=bits))
        want = dense @ f64(x)
        bound = (k + 2) * 2.0 ** -24 * (np.abs(dense) @ np.abs(f64(x))) + 1e-30
        got = f64(out)
        assert np.isfinite(got).all() and (np.abs(got - want) <= bound).all(), np.abs(got - want).max()


def rope_float64(v: np.ndarray, head_dim: int, offset: int, scale: float, traditional: bool,
                 base: float = 10000.0) -> np.ndarray:
    """RoPE of heads of `head_dim` along v at position `offset`, in float64 (MLX's definition: the
    pair (i, i + d/2) of a head, or (2i, 2i + 1) where traditional; angle offset * scale *
    base^(-i / (d/2)))."""
    half = head_dim // 2
    heads = v.reshape(-1, half, 2) if traditional else v.reshape(-1, 2, half).transpose(0, 2, 1)
    theta = offset * scale * base ** (-np.arange(half) / half)
    a, b = heads[..., 0], heads[..., 1]
    out = np.stack([a * np.cos(theta) - b * np.sin(theta), a * np.sin(theta) + b * np.cos(theta)], axis=-1)
    return (out if traditional else out.transpose(0, 2, 1)).reshape(-1)


def angle_bound(offset: int, scale: float) -> float:
    """Relative error of a pair rotated in float32 (qmv_rotated_rows): the angle's argument
    -i ln(base) / (d/2) three roundings (3u relative, |argument| <= ln 10000 = 9.2), exp's own 2u,
    the position's two products: 32u of an angle up to offset * scale; then sin, cos and the
    rotation's products and sums, 8u."""
    return (32 * offset * scale + 8) * 2.0 ** -24


@pytest.mark.parametrize("traditional", [False, True])
def test_rope_float64_is_mlxs_rope(rng, traditional):
    """The float64 reference of the rotation tests against MLX's own RoPE (float32, CPU), within
    float32's angle error at these positions."""
    v = rng.standard_normal(4 * 16)
    mine = rope_float64(v, 16, 300, 0.5, traditional)
    theirs = f64(mx.fast.rope(mx.array(v.reshape(1, 4, 1, 16).astype(np.float32)), 16, traditional=traditional,
                              base=10000.0, scale=0.5, offset=300, stream=mx.cpu)).reshape(-1)
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=angle_bound(300, 0.5) * 2 * np.abs(v).max() * 2)


@pytest.mark.parametrize("traditional,head_dim,offset,scale,bits,config", [
    (False, 16, 37, 1.0, 4, dict(BLOCK_N=8, BLOCK_K=256, num_warps=4)),
    (True, 8, 1000, 0.5, 8, dict(BLOCK_N=4, BLOCK_K=512, num_warps=2)),
    (False, 32, 5, 2.0, 2, dict(BLOCK_N=32, BLOCK_K=1024, num_warps=2)),  # 3 query programs, one each of k and v
    (True, 8, 300, 1.0, 4, dict(BLOCK_N=32, BLOCK_K=256, num_warps=2))])  # 12 of k's 16 pairs masked off
def test_quantized_qkv_rotates_queries_and_keys(rng, traditional, head_dim, offset, scale, bits, config):
    """With a rotation, the queries and keys come out as RoPE (in float64) of the float64 products;
    the values unrotated. Bound: qmv's on each product of a pair, carried through the rotation
    (|cos| + |sin| <= sqrt 2), plus the float32 angle's and rotation's error (`angle_bound`) times
    the pair's size."""
    k, group = 256, 64
    nq, nkv = 3 * head_dim, head_dim
    weights = [tuple(a.astype(mx.float32) if a.dtype != mx.uint32 else a
                     for a in mx.quantize(normal(rng, (n, k)), group_size=group, bits=bits)) for n in (nq, nkv, nkv)]
    x = normal(rng, (1, 1, k))
    outs = quantized.qmv_qkv_kernel.fn[(sum(mf.cdiv(n, config["BLOCK_N"]) for n in (nq, nkv, nkv)),)](
        x, *(a.reshape(-1) for w in weights for a in w), *(mf.full((n,), float("nan"), mx.float32) for n in (nq, nkv, nkv)),
        nq, nkv, k, group, bits, offset=offset, pos_scale=scale, log_base=math.log(10000.0), HALF=head_dim // 2,
        ROPE=True, TRADITIONAL=traditional, **config)
    for out, w, rotated in zip(outs, weights, (True, True, False)):
        dense = f64(mx.dequantize(*w, group_size=group, bits=bits))
        product = dense @ f64(x).reshape(-1)
        err = (k + 2) * 2.0 ** -24 * (np.abs(dense) @ np.abs(f64(x).reshape(-1)))
        want, bound = product, err
        if rotated:
            want = rope_float64(product, head_dim, offset, scale, traditional)
            def partner(a):  # each element's partner in its rotated pair
                return (a.reshape(-1, 2)[:, ::-1] if traditional else a.reshape(-1, 2, head_dim // 2)[:, ::-1]).reshape(-1)
            size = np.abs(product) + np.abs(partner(product))
            bound = np.sqrt(2) * (err + partner(err)) + angle_bound(offset, scale) * size
        got = f64(out)
        assert np.isfinite(got).all() and (np.abs(got - want) <= bound + 1e-30).all(), np.abs(got - want).max()


def test_quantized_qkv_matches_the_reference_and_refuses_mismatches(rng):
    """The library call on fp16 (leading axes kept) against each projection's float32 reference
    rounded to fp16, and its refusal of weights that do not fit together."""
    k = 256
    q, kk, v = (tuple(a.astype(mx.float16) if a.dtype == mx.float32 else a
                      for a in mx.quantize(normal(rng, (n, k)), group_size=64, bits=4)) for n in (64, 16, 16))
    x = normal(rng, (1, 1, k), mx.float16)
    outs = quantized.qmv_qkv(x, q, kk, v)
    for out, w in zip(outs, (q, kk, v)):
        assert out.shape == (1, 1, w[0].shape[0]) and out.dtype == mx.float16
        close(out, quantized.reference(x, *w), 2e-3)  # fp16 output: 2^-11 relative, twice
    with pytest.raises(ValueError, match="key and value weights differ"):
        quantized.qmv_qkv(x, q, kk, q)
    with pytest.raises(ValueError, match="not one row of 256"):
        quantized.qmv_qkv(normal(rng, (2, k)), q, kk, v)


@pytest.mark.parametrize("bits,group,k,config", [
    (4, 64, 704, dict(BLOCK_N=16, BLOCK_K=512, num_warps=4)),  # two steps, the second 3 groups of 8
    (2, 32, 704, dict(BLOCK_N=4, BLOCK_K=256, num_warps=2)),
    (8, 128, 640, dict(BLOCK_N=32, BLOCK_K=1024, num_warps=2))])  # a step longer than the row
def test_quantized_swiglu_configs(rng, bits, group, k, config):
    """silu(W_g x) * (W_u x) in one launch, against float64 on the same dequantised weights, rows
    masked at an odd count, every word width."""
    n = 37
    gate, up = (mx.quantize(normal(rng, (n, k)), group_size=group, bits=bits) for _ in range(2))
    x = normal(rng, (k,))
    flat = [a.reshape(-1) for a in (*gate, *up)]
    out = quantized.qmv_swiglu_kernel.fn[(mf.cdiv(n, config["BLOCK_N"]),)](
        x, *flat, mf.full((n,), float("nan"), mx.float32), n, k, group, bits, **config)
    wg, wu = (f64(mx.dequantize(*w, group_size=group, bits=bits)) for w in (gate, up))
    g, u = wg @ f64(x), wu @ f64(x)
    silu = g / (1 + np.exp(-g))
    # each fp32 product as qmv's bound; silu's slope is at most 1.1 in magnitude; then the few
    # roundings of exp, the division and the two products (8 units)
    unit = 2.0 ** -24
    err_g, err_u = ((k + 2) * unit * (np.abs(w) @ np.abs(f64(x))) for w in (wg, wu))
    bound = 1.1 * np.abs(u) * err_g + np.abs(silu) * err_u + 8 * unit * np.abs(silu * u) + 1e-30
    got = f64(out)
    assert np.isfinite(got).all() and (np.abs(got - silu * u) <= bound).all(), np.abs(got - silu * u).max()


def test_quantized_swiglu_fp16_matches_the_reference(rng):
    """The library call on fp16 (leading axes kept) against its float32 reference rounded to fp16."""
    n, k = 45, 256
    gate, up = (tuple(a.astype(mx.float16) if a.dtype == mx.float32 else a
                      for a in mx.quantize(normal(rng, (n, k)), group_size=64, bits=4)) for _ in range(2))
    x = normal(rng, (1, 1, k), mx.float16)
    out = quantized.qmv_swiglu(x, gate, up)
    assert out.shape == (1, 1, n) and out.dtype == mx.float16
    close(out, quantized.swiglu_reference(x, gate, up), 2e-3)  # fp16 output: 2^-11 relative, twice


def test_quantized_swiglu_refuses_mismatched_weights(rng):
    gate = mx.quantize(normal(rng, (16, 128)), group_size=64, bits=4)
    up = mx.quantize(normal(rng, (8, 128)), group_size=64, bits=4)
    with pytest.raises(ValueError, match=r"gate weight \(16, 128\) and up weight"):
        quantized.qmv_swiglu(normal(rng, (128,)), gate, up)
    with pytest.raises(ValueError, match="not one row of 128"):
        quantized.qmv_swiglu(normal(rng, (2, 128)), gate, gate)


def rms_normed(x: mx.array, weight: mx.array, eps: float) -> tuple[np.ndarray, float]:
    """rms_norm(x) * weight in float64, and 1 / rms."""
    x64 = f64(x).reshape(-1)
    inv = 1.0 / np.sqrt((x64 * x64).mean() + eps)
    return x64 * inv * f64(weight), inv


def fused_bound(dense: np.ndarray, x: np.ndarray, weight: np.ndarray, inv: float, k: int) -> np.ndarray:
    """fp32 error of inv_rms * sum_k w_k (x_k g_k): each x_k g_k and weight rounded (3u), the k-long
    sum (k u), then the factor 1 / rms: its k-long sum of squares, division, square root and the
    multiplication (k u + 4u relative, at most) on the whole."""
    unit = 2.0 ** -24
    return (k + 3) * unit * inv * (np.abs(dense) @ np.abs(x * weight)) + (k + 8) * unit * inv * np.abs(dense @ (x * weight))


@pytest.mark.parametrize("bits,group,k,config", [
    (4, 64, 704, dict(BLOCK_N=8, BLOCK_K=512, num_warps=4)),  # two steps, the second 3 groups of 8
    (8, 32, 320, dict(BLOCK_N=32, BLOCK_K=1024, num_warps=2)),  # a step longer than the row
    (2, 128, 640, dict(BLOCK_N=4, BLOCK_K=256, num_warps=2))])
def test_quantized_products_fuse_the_norm_before_and_the_residual_after(rng, bits, group, k, config):
    """A transformer block's RMS norm in the launch of the products after it (q/k/v, gate/up) and its
    residual add in the launch of the projection before it, against float64 (the norm's factor is a
    K-long sum of its own: `fused_bound`); odd row counts, outputs poisoned with NaN."""
    nq, nkv, n, eps = 45, 19, 37, 1e-5
    x, norm = normal(rng, (k,)), normal(rng, (k,))
    normed, inv = rms_normed(x, norm, eps)
    x64, g64 = f64(x), f64(norm)
    nan = lambda rows: mf.full((rows,), float("nan"), mx.float32)  # noqa: E731

    weights = [mx.quantize(normal(rng, (rows, k)), group_size=group, bits=bits) for rows in (nq, nkv, nkv)]
    outs = quantized.qmv_qkv_kernel.fn[(sum(mf.cdiv(rows, config["BLOCK_N"]) for rows in (nq, nkv, nkv)),)](
        x, *(a.reshape(-1) for w in weights for a in w), nan(nq), nan(nkv), nan(nkv), nq, nkv, k, group, bits,
        norm_ptr=norm, eps=eps, NORM=True, **config)
    for out, w in zip(outs, weights):
        dense = f64(mx.dequantize(*w, group_size=group, bits=bits))
        got, want = f64(out), dense @ normed
        assert np.isfinite(got).all() and (np.abs(got - want) <= fused_bound(dense, x64, g64, inv, k)).all()

    gate, up = (mx.quantize(normal(rng, (n, k)), group_size=group, bits=bits) for _ in range(2))
    out = quantized.qmv_swiglu_kernel.fn[(mf.cdiv(n, config["BLOCK_N"]),)](
        x, *(a.reshape(-1) for a in (*gate, *up)), nan(n), n, k, group, bits, norm_ptr=norm, eps=eps, NORM=True,
        **config)
    wg, wu = (f64(mx.dequantize(*w, group_size=group, bits=bits)) for w in (gate, up))
    g, u = wg @ normed, wu @ normed
    silu = g / (1 + np.exp(-g))
    # as test_quantized_swiglu_configs, with the products' fused bound
    bound = 1.1 * np.abs(u) * fused_bound(wg, x64, g64, inv, k) + np.abs(silu) * fused_bound(wu, x64, g64, inv, k) \
        + 8 * 2.0 ** -24 * np.abs(silu * u)
    got = f64(out)
    assert np.isfinite(got).all() and (np.abs(got - silu * u) <= bound).all(), np.abs(got - silu * u).max()

    residual = normal(rng, (n,))
    w_q, scales, biases = gate
    out = quantized.qmv_kernel.fn[(mf.cdiv(n, config["BLOCK_N"]),)](
        x, w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1), nan(n), n, k, group, bits, res_ptr=residual,
        RESIDUAL=True, **config)
    product = wg @ x64
    want = product + f64(residual)
    # qmv's bound, then the addition's rounding
    bound = (k + 2) * 2.0 ** -24 * (np.abs(wg) @ np.abs(x64)) + 2.0 ** -24 * np.abs(want)
    got = f64(out)
    assert np.isfinite(got).all() and (np.abs(got - want) <= bound + 1e-30).all(), np.abs(got - want).max()


@pytest.mark.parametrize("traditional,biased", [(False, False), (True, False), (False, True)])
def test_quantized_qkv_with_norm_and_rotation(rng, traditional, biased):
    """The library call with both a norm and a rotation (a Llama layer's decode step: one launch for
    the norm, three products and two RoPEs; with biases, Qwen2's, added before the rotation),
    float32, against float64 products of the normed x rotated in float64; bound as the rotation
    test's on the fused products, plus the bias addition's rounding."""
    k, head_dim, offset, eps = 320, 16, 77, 1e-6
    nq, nkv = 3 * head_dim, head_dim
    weights = [tuple(a.astype(mx.float32) if a.dtype != mx.uint32 else a
                     for a in mx.quantize(normal(rng, (rows, k)), group_size=64, bits=4)) for rows in (nq, nkv, nkv)]
    x, norm = normal(rng, (1, 1, k)), normal(rng, (k,))
    normed, inv = rms_normed(x, norm, eps)
    biases = tuple(normal(rng, (rows,)) for rows in (nq, nkv, nkv)) if biased else None
    outs = quantized.qmv_qkv(x, *weights, rotation=quantized.Rotation(head_dim, 10000.0, offset, 1.0, traditional),
                             norm=quantized.Norm(norm, eps), bias=biases)
    for i, (out, w, rotated) in enumerate(zip(outs, weights, (True, True, False))):
        assert out.shape == (1, 1, w[0].shape[0])
        dense = f64(mx.dequantize(*w, group_size=64, bits=4))
        product = dense @ normed + (f64(biases[i]) if biased else 0.0)
        err = fused_bound(dense, f64(x).reshape(-1), f64(norm), inv, k) + 2.0 ** -24 * np.abs(product)
        want, bound = product, err
        if rotated:
            want = rope_float64(product, head_dim, offset, 1.0, traditional)
            def partner(a):  # each element's partner in its rotated pair
                return (a.reshape(-1, 2)[:, ::-1] if traditional else a.reshape(-1, 2, head_dim // 2)[:, ::-1]).reshape(-1)
            size = np.abs(product) + np.abs(partner(product))
            bound = np.sqrt(2) * (err + partner(err)) + angle_bound(offset, 1.0) * size
        got = f64(out)
        assert np.isfinite(got).all() and (np.abs(got - want) <= bound + 1e-30).all(), np.abs(got - want).max()
    # in heads (a fused block's decode step): the same launch, the outputs shaped (B, heads, 1, head_dim)
    launch = quantized.qmv_qkv_launch(x, *weights, rotation=quantized.Rotation(head_dim, 10000.0, offset, 1.0,
                                                                                traditional),
                                      norm=quantized.Norm(norm, eps), bias=biases, heads=True)
    for out, in_heads, heads in zip(outs, launch.run(), (3, 1, 1)):
        assert in_heads.shape == (1, heads, 1, head_dim) and mx.array_equal(in_heads.reshape(out.shape), out)


def test_fused_norm_and_residual_refuse_what_does_not_fit(rng):
    w = mx.quantize(normal(rng, (16, 128)), group_size=64, bits=4)
    x = normal(rng, (128,))
    with pytest.raises(ValueError, match=r"residual of shape \(8,\) is not one row of the 16 outputs"):
        quantized.qmv(x, *w, residual=normal(rng, (8,)))
    with pytest.raises(ValueError, match="norm weight"):
        quantized.qmv_swiglu(x, w, w, norm=quantized.Norm(normal(rng, (64,)), 1e-5))
    with pytest.raises(ValueError, match="norm weight"):
        quantized.qmv_qkv(x, w, w, w, norm=quantized.Norm(normal(rng, (128,), mx.float16), 1e-5))
    with pytest.raises(ValueError, match=r"biases of \(16,\), \(16,\), \(8,\) do not match the outputs of 16, 16"):
        quantized.qmv_qkv(x, w, w, w, bias=(normal(rng, (16,)), normal(rng, (16,)), normal(rng, (8,))))
    with pytest.raises(ValueError, match=r"outputs in heads take a rotation .* not x of shape \(128,\)"):
        quantized.qmv_qkv_launch(x, w, w, w, rotation=quantized.Rotation(8, 1e4, 0), heads=True)
    with pytest.raises(ValueError, match=r"outputs in heads take a rotation"):
        quantized.qmv_qkv_launch(x.reshape(1, 1, 128), w, w, w, heads=True)


@pytest.mark.parametrize("bits,group,k,config", [
    (2, 32, 160, dict(BLOCK_M=16, BLOCK_N=32, BLOCK_K=32, num_warps=2)),  # 2 words a row a step
    (8, 64, 320, dict(BLOCK_M=32, BLOCK_N=64, BLOCK_K=64, num_warps=4)),
    (4, 128, 384, dict(BLOCK_M=32, BLOCK_N=64, BLOCK_K=32, num_warps=4)),
    (4, 64, 320, dict(BLOCK_M=32, BLOCK_N=128, BLOCK_K=32, num_warps=4))])  # the untuned default at M = 19, fp32
def test_quantized_matmul_configs(rng, bits, group, k, config):
    """qmm's weight rows dequantised with each word loaded once and seen as W^T's block for tl.dot:
    odd M and N, every word width, against float64 (x in fp32: rounding the weights to x's dtype,
    as qmm and MLX do, changes nothing)."""
    m, n = 19, 37
    w_q, scales, biases = mx.quantize(normal(rng, (n, k)), group_size=group, bits=bits)
    x = normal(rng, (m, k))
    out = quantized.qmm_kernel.fn[quantized.qmm_grid(m, n)(config)](
        x, w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1), mf.full((m, n), float("nan"), mx.float32), m, n,
        k, group, bits, **config)
    w = f64(mx.dequantize(w_q, scales, biases, group_size=group, bits=bits))
    want = f64(x) @ w.T
    # fp32: each weight's scale * q + bias rounded (2u), a k-long sum of products (k u), u = 2^-24
    bound = (k + 2) * 2.0 ** -24 * (np.abs(f64(x)) @ np.abs(w).T) + 1e-30
    got = f64(out)
    assert np.isfinite(got).all() and (np.abs(got - want) <= bound).all(), np.abs(got - want).max()


@pytest.mark.parametrize("dtype", [mx.float16, mx.bfloat16, mx.float32])
@pytest.mark.parametrize("m", [1, 19, 40, 512])
def test_qmm_default_fits_metal_and_its_space(dtype, m, monkeypatch):
    """The untuned config follows M and the input's bytes (quantized.qmm_default), is a point of the
    space and compiles for Metal within its 32 KiB of threadgroup memory (the compiler's count)."""
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")  # Metal's rules, whichever back end runs the suite
    tuner = quantized.qmm_kernel
    w_q, scales, biases = mx.quantize(mx.zeros((256, 512)), group_size=64, bits=4)
    args = (mx.zeros((m, 512), dtype), w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1),
            mf.empty((m, 256), dtype), m, 256, 512, 64, 4)
    config = tuner.default_config(args)
    rows = {1: 16, 19: 32, 40: 64, 512: 64}[m]
    assert config == mf.Config({"BLOCK_M": rows, "BLOCK_N": 128, "BLOCK_K": 32 if dtype == mx.float32 else 64},
                               num_warps=4)
    assert tuner.space.point_of(config) is not None
    assert tuner.fn.compile(*args, target="msl", **config.all_kwargs()).shared_bytes <= 32 * 1024


FLASH_DEFAULTS = [mf.Config({"BLOCK_M": 64, "BLOCK_N": 16}, num_warps=4, num_stages=2),  # largest first
                  mf.Config({"BLOCK_M": 64, "BLOCK_N": 16}, num_warps=4, num_stages=1),
                  mf.Config({"BLOCK_M": 16, "BLOCK_N": 16}, num_warps=2, num_stages=1)]


@pytest.mark.parametrize("dtype,dim,rung", [(mx.float16, 64, 0), (mx.bfloat16, 32, 0), (mx.float16, 128, 1),
                                            (mx.float32, 64, 1), (mx.float16, 256, 2), (mx.float32, 128, 2)])
def test_flash_attention_default_fits_metal_and_its_space(dtype, dim, rung, monkeypatch):
    """The untuned config is the largest of the default's tiles that Metal's 32 KiB holds at the dtype
    and head size: the compiler's own count says it fits, and the next larger one does not."""
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")  # Metal's rules, whichever back end runs the suite
    tuner = flash_attention.flash_attention_kernel
    q, k = mx.zeros((4, 64, dim), dtype), mx.zeros((2, 64, dim), dtype)
    args = flash_attention.kernel_args(q, k, k, True)
    chosen = tuner.default_config(args)
    assert chosen == FLASH_DEFAULTS[rung] and tuner.space.point_of(chosen) is not None
    assert tuner.fn.compile(*args, target="msl", **chosen.all_kwargs()).shared_bytes <= 32 * 1024
    if rung:
        with pytest.raises(SharedMemoryLimitError):
            tuner.fn.compile(*args, target="msl", **FLASH_DEFAULTS[rung - 1].all_kwargs())


@pytest.mark.parametrize("heads,kv_heads,s,d,splits", [(4, 2, 300, 64, 1), (2, 2, 45, 32, 1), (4, 2, 1111, 64, 4),
                                                     (8, 8, 2600, 32, 8), (64, 8, 1024, 32, 1)])
def test_decode_attention(rng, heads, kv_heads, s, d, splits):
    """Whole and split KV ranges (the last range shorter, no multiple of any block)."""
    assert attention.split_count(heads, s) == splits
    q, k, v = normal(rng, (heads, d)), normal(rng, (kv_heads, s, d)), normal(rng, (kv_heads, s, d))
    close(attention.decode_attention(q, k, v), attention.reference(q, k, v), 1e-4)


def test_decode_attention_with_one_range_a_head_is_one_launch(rng, monkeypatch):
    """One range a head (a short context): the partial kernel writes the output itself, in q's dtype
    (FINAL), and the combine kernel is not launched; two ranges launch it. The launches are
    prepared once per shapes and split count: the second call of each length runs them again, and
    a length in the same bucket (S - 1) too."""
    combined = []
    monkeypatch.setattr(attention, "_PREPARED", {})
    monkeypatch.setattr(attention, "decode_attention_combine_kernel",
                        _Recording(attention.decode_attention_combine_kernel, combined))
    for s, splits in ((300, 1), (1111, 4)):
        q = normal(rng, (4, 64), mx.float16)
        k, v = normal(rng, (2, s, 64), mx.float16), normal(rng, (2, s, 64), mx.float16)
        for length in (s, s, s - 1):
            got = attention.decode_attention(q, k, v, length=length)
            assert got.dtype == mx.float16 and got.shape == q.shape and len(combined) == (splits > 1)
            # fp16 output: 2^-11 relative, twice
            close(got, attention.reference(q, k[:, :length], v[:, :length]), 2e-3)
    assert len(attention._PREPARED) == 2


@pytest.mark.parametrize("s", [555, 1500])
def test_decode_attention_tunes_what_its_launch_runs(s):
    """The tuning case at a shape is the launch decode_attention makes there (one range a head: the
    FINAL kernel, whose output is in q's dtype), so the configs tuned for it are found at run time."""
    tuner = attention.decode_attention_kernel
    q, k = mx.zeros((1, 8, 1, 64), mx.float16), mx.zeros((1, 2, s, 64), mx.float16)
    _, launched, _ = attention._launch_args(q, k, k, final_if_whole=True)
    _, tuned = tuner.tune_case((8, 2, s, 64), mx.float16)
    assert tuner.tuning_key(tuned) == tuner.tuning_key(launched)
    assert tuned[12] is (s <= attention.WHOLE_KEYS)  # FINAL


class _Recording:
    """A kernel whose launches made (`kernel[grid](...)`, or prepared: `kernel.prepare(grid, ...)`)
    are recorded, then run."""

    def __init__(self, kernel, launches: list) -> None:
        self.kernel, self.launches = kernel, launches

    def __getitem__(self, grid):
        self.launches.append(grid)
        return self.kernel[grid]

    def prepare(self, grid, *args, **kwargs):
        self.launches.append(grid)
        return self.kernel.prepare(grid, *args, **kwargs)


@pytest.mark.parametrize("heads,kv_heads,length,slots", [(4, 2, 300, 512), (8, 8, 1111, 1280), (2, 1, 1, 256)])
def test_decode_attention_reads_a_cache_buffer_in_place(rng, heads, kv_heads, length, slots):
    """mlx-lm's KV cache holds each head's keys in a buffer of `slots` (grown 256 at a time), of which
    the first `length` are the sequence: read in place, the spare slots (NaN here) never count."""
    q = normal(rng, (1, heads, 1, 64))
    k, v = (mx.concatenate([normal(rng, (1, kv_heads, length, 64)),
                            mx.full((1, kv_heads, slots - length, 64), float("nan"))], axis=2) for _ in range(2))
    want = attention.reference(q.reshape(heads, 64), k[0, :, :length], v[0, :, :length]).reshape(q.shape)
    close(attention.decode_attention(q, k, v, 0.125, length=length), want, 1e-4)
    with pytest.raises(ValueError, match=f"length {slots + 1} of a buffer of {slots} keys"):
        attention.decode_attention(q, k, v, length=slots + 1)


def test_decode_attention_tunes_on_miss_from_a_cache_buffer(rng, tmp_path, monkeypatch):
    """METALFORGE_TUNE_ON_MISS tunes a launch with its own arguments: the buffer's spare slots are
    one of them (positional), so the tuner's reference and trials read the keys where the launch
    does, and the tuned launch is right."""
    from metalforge.tuning_db import TuningDB

    monkeypatch.setenv("METALFORGE_DB", str(tmp_path / "tuning.sqlite"))
    monkeypatch.setenv("METALFORGE_TUNE_ON_MISS", "1")
    attention.decode_attention_kernel.clear_cache()
    q, k, v = normal(rng, (1, 4, 1, 16)), normal(rng, (1, 2, 256, 16)), normal(rng, (1, 2, 256, 16))
    got = attention.decode_attention(q, k, v, 0.25, length=9)
    want = mx.fast.scaled_dot_product_attention(q, k[..., :9, :], v[..., :9, :], scale=0.25, stream=mx.cpu)
    close(got, want, 1e-4)
    assert [w["kernel"] for w in TuningDB(tmp_path / "tuning.sqlite").winners()] == ["decode_attention_kernel"]
    attention.decode_attention_kernel.clear_cache()


def test_decode_attention_partials_match_their_reference(rng):
    """The partial kernel's outputs (what the tuner checks) against `partials_reference`, computed
    independently from the softmax definition; every partial written (poisoned buffers)."""
    heads, kv_heads, s, d = 4, 2, 1400, 32
    q, k, v = normal(rng, (heads, d)), normal(rng, (kv_heads, s, d)), normal(rng, (kv_heads, s, d))
    grid, args, splits = attention._launch_args(q, k, v)
    assert splits == 4
    args = list(args)
    for i in (3, 4, 5):
        args[i] = mf.full(args[i].shape, float("nan"), mx.float32)
    got = attention.decode_attention_kernel.fn[grid](*args, BLOCK_N=64, num_warps=2)
    want = attention.partials_reference(q, k, v, args[7])
    for g, w in zip(got, want):
        close(g, w, 1e-4)
    # and the combine step by hand, in float64: sum_i e^(m_i - m) o_i / sum_i e^(m_i - m) l_i
    o, m, l = (np.array(x, dtype=np.float64) for x in got)
    w = np.exp(m.reshape(heads, splits) - m.reshape(heads, splits).max(1, keepdims=True))
    combined = (o.reshape(heads, splits, d) * w[..., None]).sum(1) / (l.reshape(heads, splits) * w).sum(1)[:, None]
    close(mx.array(combined.astype(np.float32)), attention.reference(q, k, v), 1e-4)


@pytest.mark.parametrize("heads,t,d", [(3, 37, 64), (2, 5, 128)])
def test_rope(rng, heads, t, d):
    x = normal(rng, (heads, t, d), mx.float16)
    close(rope.rope(x), rope.reference(x), 2e-3)


@pytest.mark.parametrize("heads,t,d,traditional,config", [
    (6, 13, 16, False, dict(BLOCK_T=8, HEADS=4, num_warps=1)),    # the second head group half masked off
    (5, 3, 32, True, dict(BLOCK_T=4, HEADS=2, num_warps=2)),      # one position block, 3 head groups
    (3, 9, 8, True, dict(BLOCK_T=1, HEADS=16, num_warps=1)),      # more heads a program than there are
    (2, 33, 64, False, dict(BLOCK_T=32, HEADS=1, num_warps=4))])  # a last position block of one row
def test_rope_kernel_against_float64_at_every_mask(rng, heads, t, d, traditional, config):
    """Every config shape (positions and heads per program that divide the sizes or do not) against
    RoPE in float64, position by position; the output starts as NaN so an unwritten element fails."""
    offset, scale = 100, 0.5
    x = normal(rng, (heads, t, d))
    out = rope.rope_kernel.fn[rope.grid(heads, t)](x, mf.full(x.shape, float("nan"), mx.float32), heads, t,
                                                   math.log(10000.0), d // 2, offset=offset, pos_scale=scale,
                                                   TRADITIONAL=traditional, **config)
    v, got = f64(x), f64(out)
    for p in range(t):
        want = rope_float64(v[:, p].reshape(-1), d, offset + p, scale, traditional)
        pairs = v[:, p].reshape(-1, 2) if traditional else v[:, p].reshape(-1, 2, d // 2)
        size = (np.abs(pairs).sum(-1 if traditional else -2, keepdims=True) * np.ones_like(pairs)).reshape(-1)
        bound = angle_bound(offset + p, scale) * size + 1e-30
        err = np.abs(got[:, p].reshape(-1) - want)
        assert np.isfinite(got[:, p]).all() and (err <= bound).all(), (p, err.max())


DOT_TOL = {mx.float32: 1e-4, mx.float16: 2e-3, mx.bfloat16: 1.6e-2}  # the output's rounding


@pytest.mark.parametrize("m,n,k,dtype", [(33, 47, 29, mx.float16), (70, 9, 100, mx.float32),
                                         (1, 130, 71, mx.bfloat16)])
def test_matmul(rng, m, n, k, dtype):
    a, b = normal(rng, (m, k), dtype), normal(rng, (k, n), dtype)
    out = matmul.matmul(a, b)
    assert out.shape == (m, n) and out.dtype == dtype
    close(out, mx.array(f64(a) @ f64(b)), DOT_TOL[dtype])


def test_matmul_grouped_order_with_a_partial_group(rng):
    """10 tile rows in groups of 8: the second group has 2 rows, and every tile is written once."""
    m, n, k = 155, 50, 37
    a, b = normal(rng, (m, k), mx.float16), normal(rng, (k, n), mx.float16)
    grid = (mf.cdiv(m, 16) * mf.cdiv(n, 32),)
    out = matmul.matmul_kernel.fn[grid](a, b, mf.empty((m, n), mx.float16), m, n, k, BLOCK_M=16, BLOCK_N=32,
                                        BLOCK_K=16, GROUP_M=8, num_warps=2)
    close(out, mx.array(f64(a) @ f64(b)), 2e-3)


def test_matmul_rejects_mismatched_operands():
    with pytest.raises(ValueError, match="inner sizes"):
        matmul.matmul(mx.zeros((4, 5)), mx.zeros((6, 4)))


def attention64(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    heads, length, dim = q.shape
    k, v = (np.repeat(x, heads // x.shape[0], axis=0) for x in (k, v))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(dim)
    if causal:
        s = np.where(np.tril(np.ones((length, length), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True) @ v


# P is rounded to the inputs' dtype before P @ V (as in Triton's kernel): a few output ulps
@pytest.mark.parametrize("heads,kv_heads,length,dim,causal,dtype,tol",
                         [(4, 2, 37, 64, True, mx.float16, 4e-3), (2, 1, 21, 32, False, mx.float32, 1e-5),
                          (3, 3, 50, 64, True, mx.bfloat16, 3e-2)])
def test_flash_attention(rng, heads, kv_heads, length, dim, causal, dtype, tol):
    q = normal(rng, (heads, length, dim), dtype)
    k, v = normal(rng, (kv_heads, length, dim), dtype), normal(rng, (kv_heads, length, dim), dtype)
    out = flash_attention.flash_attention(q, k, v, causal=causal)
    assert out.shape == q.shape and out.dtype == dtype
    close(out, mx.array(attention64(f64(q), f64(k), f64(v), causal)), tol)


def test_flash_attention_tiles_that_do_not_divide_the_length(rng):
    """Query blocks of 32 and key blocks of 16 over L=45: the causal bound stops mid-block."""
    q, k, v = (normal(rng, (2, 45, 32), mx.float16) for _ in range(3))
    grid = (mf.cdiv(45, 32), 2)
    out = flash_attention.flash_attention_kernel.fn[grid](*flash_attention.kernel_args(q, k, v, True), BLOCK_M=32,
                                                          BLOCK_N=16, num_warps=4)
    close(out, mx.array(attention64(f64(q), f64(k), f64(v), True)), 4e-3)


@pytest.mark.parametrize("length,keys,causal,block_m,block_n", [
    (40, 100, True, 16, 16), (64, 64, True, 16, 16), (33, 97, False, 16, 16),
    (40, 86, True, 16, 32)])  # past = 46 = 14 mod 16: an off-by-one in `whole`, or rounding by BLOCK_M, fails
def test_flash_attention_whole_blocks_skip_the_masks(rng, length, keys, causal, block_m, block_n):
    """Key blocks below the diagonal and inside the keys take the unmasked path (`start_n < whole`),
    the rest the masked one: queries that are the last `length` of `keys` positions (a prefill after
    cached tokens), small tiles, so that most blocks of the later query blocks are whole, against
    float64 on a poisoned output."""
    heads, kv_heads, dim, past = 4, 2, 32, keys - length
    q = normal(rng, (heads, length, dim), mx.float16)
    k, v = normal(rng, (kv_heads, keys, dim), mx.float16), normal(rng, (kv_heads, keys, dim), mx.float16)
    args = list(flash_attention.kernel_args(q, k, v, causal))
    args[3] = mf.full((heads, length, dim), float("nan"), mx.float16)
    out = flash_attention.flash_attention_kernel.fn[flash_attention.launch_grid(heads, length)({"BLOCK_M": block_m})](
        *args, past=past, BLOCK_M=block_m, BLOCK_N=block_n, num_warps=2)
    last_whole = (((length - 1) // block_m * block_m + past + 1) // block_n * block_n if causal
                  else keys // block_n * block_n)
    assert last_whole >= 48  # the last query block has whole key blocks to skip masks on
    qf, kf, vf = (np.repeat(f64(t), heads // t.shape[0], axis=0) if t is not q else f64(t) for t in (q, k, v))
    s = qf @ kf.transpose(0, 2, 1) / math.sqrt(dim)
    if causal:
        s = np.where(np.arange(keys)[None, :] <= past + np.arange(length)[:, None], s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    close(out, mx.array(p / p.sum(-1, keepdims=True) @ vf), 4e-3)


def test_configs_over_the_shared_memory_limit_are_invalid_trials(monkeypatch):
    """The compiler's own count of threadgroup memory decides which tiles fit (the library recomputes
    nothing): a config over the target's limit fails to compile with SharedMemoryLimitError, naming
    the kernel and the fix, and the tuner records it as an invalid trial (never launched, never a
    compile failure); on CUDA's 227 KiB the same tile compiles, its `shared_bytes` the padded
    buffers (rows of BLOCK + 16 bytes, one per stage)."""
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")  # the trial runs where Metal's limit holds
    a, b = mx.zeros((40, 24), mx.float32), mx.zeros((24, 40), mx.float32)
    args = (a, b, mf.empty((40, 40), mx.float32), 40, 40, 24)
    config = mf.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 1}, num_warps=4, num_stages=2)
    with pytest.raises(SharedMemoryLimitError, match=r"(?s)matmul_kernel.*more than the 32768.*fewer num_stages"):
        matmul.matmul_kernel.fn.compile(*args, target="msl", **config.all_kwargs())
    result = matmul.matmul_kernel.evaluate(matmul.launch_grid(40, 40), config, [args], None)
    assert result.status == "invalid" and "threadgroup memory" in result.reason, result
    cuda = matmul.matmul_kernel.fn.compile(*args, target="cuda", **config.all_kwargs())
    assert cuda.shared_bytes == 2 * 4 * (128 * (64 + 4) + 64 * (128 + 4))


def test_hopper_defaults_follow_the_back_end_a_launch_names(monkeypatch):
    """On a back end with wgmma (simulated: the active one) the untuned qmm at M >= 128 and flash
    attention at D = 128 take their wgmma configs; a launch naming the emulator gets the Metal-sized
    defaults, and a wgmma config the in-memory cache kept for another back end launches without the
    setting (from a review: the launch raised LaunchConfigError)."""
    from metalforge.launcher import lacking

    def hopper(backend=None):
        return (lambda setting: None) if backend is None else lacking(backend)
    monkeypatch.setattr(quantized, "lacking", hopper)
    monkeypatch.setattr(flash_attention, "lacking", hopper)
    x = mx.zeros((512, 4096), mx.float16)
    qmm_args = (x, None, None, None, None, 512, 14336, 4096, 64, 4)
    tuner = quantized.qmm_kernel
    assert tuner.default_config(qmm_args) == mf.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8,
                                                       num_stages=2, wgmma=True)
    assert tuner.default_config(qmm_args, "emulator") == quantized.qmm_default(512, mx.float16)
    assert not tuner.default_config(qmm_args[:5] + (16,) + qmm_args[6:]).wgmma  # under 128 rows: the tile of before
    q = mx.zeros((32, 512, 128), mx.float16)
    fa_args = (q, q, q, None, 512, 0.1, 4, 128, True)
    assert flash_attention.flash_attention_kernel.default_config(fa_args).wgmma
    assert not flash_attention.flash_attention_kernel.default_config(fa_args, "emulator").wgmma
    assert not flash_attention.flash_attention_kernel.default_config((q, q, q, None, 512, 0.1, 4, 256, True)).wgmma
    kept = tuner._launch_kwargs(tuner.default_config(qmm_args), qmm_args, {"backend": "emulator"})
    assert "wgmma" not in kept and kept["num_warps"] == 8
