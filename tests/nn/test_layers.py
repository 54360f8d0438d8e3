"""metalforge.nn's layers against their mlx.nn counterparts, run in float32 on the CPU with the same
parameters (an independent reference: MLX's own kernels), on random inputs at odd sizes, for every
dtype, bit width and group size the kernels take; and the calls they hand back to MLX.

Bounds: the kernels read the same inputs and accumulate in float32, so they differ from the float32
reference by the rounding of their output to the dtype (half an ulp, u = 2^-11 fp16, 2^-8 bf16,
2^-24 fp32) plus float32 summation-order differences (K * 2^-24 of the sum of |terms|); the
quantized matmul also rounds each dequantised weight to the input's dtype before `tl.dot` (as MLX's
kernels do), u * sum|x||w| more. Each test states the bound it uses."""
from __future__ import annotations

import logging

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest

import metalforge.nn as mfnn
from metalforge.autotune.bench import as_outputs, max_error
from metalforge.kernels import quantized

UNIT_ROUNDOFF = {mx.float32: 2.0 ** -24, mx.float16: 2.0 ** -11, mx.bfloat16: 2.0 ** -8}
DTYPES = list(UNIT_ROUNDOFF)


def normal(rng: np.random.Generator, shape, dtype=mx.float32) -> mx.array:
    return mx.array(rng.standard_normal(shape).astype(np.float32)).astype(dtype)


def f64(x: mx.array) -> np.ndarray:
    return np.array(x.astype(mx.float32)).astype(np.float64)


def mlx_class(module: nn.Module) -> type:
    """The mlx.nn class a metalforge.nn drop-in stands in for."""
    from metalforge.nn import layers

    return {ours: theirs for theirs, ours in layers.DROP_INS.items()}[type(module)]


def reference(module: nn.Module, *inputs: mx.array, **kwargs) -> np.ndarray:
    """The mlx.nn module's output in float32 on the CPU, its parameters cast to float32 too."""
    params = module.parameters()
    module.set_dtype(mx.float32)
    try:
        with mx.stream(mx.cpu):
            return f64(mlx_class(module).__call__(module, *(x.astype(mx.float32) for x in inputs), **kwargs))
    finally:
        module.update(params)


def assert_within(got: mx.array, want: np.ndarray, bound) -> None:
    assert got.shape == want.shape
    got64 = f64(got)
    assert np.isfinite(got64).all()
    excess = np.abs(got64 - want) - bound
    assert excess.max() <= 0, f"worst excess over the bound {excess.max():.3g} at {np.unravel_index(excess.argmax(), excess.shape)}"


@pytest.fixture(autouse=True)
def no_fallbacks():
    """A layer test that is not about fallbacks must run every call on the kernels."""
    mfnn.clear_fallbacks()
    yield
    mfnn.clear_fallbacks()


def _expect_kernels():
    assert mfnn.fallbacks() == {}


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm(rng, dtype):
    layer = mfnn.RMSNorm(77, eps=1e-4)
    layer.weight = normal(rng, (77,), dtype)
    x = normal(rng, (2, 3, 77), dtype)
    # output rounding (u |y|, twice: MLX's kernel rounds x * rstd before the weight), plus rstd's
    # relative error: the fp32 sum of 77 squares (77 u32 relative, halved by the square root) and
    # the few roundings of the mean, the root and the products (4 u32); and for results near zero
    # fp16's subnormal spacing (2^-24, |w| < 6 times, rounded twice): 1e-6 absolute
    want = reference(layer, x)
    assert_within(layer(x), want, (2 * UNIT_ROUNDOFF[dtype] + (77 / 2 + 4) * 2.0 ** -24) * np.abs(want) + 1e-6)
    _expect_kernels()


@pytest.mark.parametrize("affine,bias,dtype", [(True, True, mx.float16), (True, False, mx.float32),
                                               (False, False, mx.bfloat16)])
def test_layer_norm(rng, affine, bias, dtype):
    layer = mfnn.LayerNorm(45, eps=1e-5, affine=affine, bias=bias)
    if affine:
        layer.weight = normal(rng, (45,), dtype)
    if bias:
        layer.bias = normal(rng, (45,), dtype)
    x = normal(rng, (3, 45), dtype) * 3 + 1
    want = reference(layer, x)
    assert_within(layer(x), want, 2 * UNIT_ROUNDOFF[dtype] * np.abs(want) + 1e-5)  # as RMS norm
    assert set(layer.parameters()) == set(nn.LayerNorm(45, affine=affine, bias=bias).parameters())
    _expect_kernels()


@pytest.mark.parametrize("traditional,offset,dtype,shape", [(False, 0, mx.float32, (1, 3, 5, 16)),
                                                            (True, 7, mx.float16, (2, 9, 32)),
                                                            (False, 13, mx.bfloat16, (3, 1, 32)),
                                                            (True, 0, mx.float32, (1, 11, 8))])
def test_rope(rng, traditional, offset, dtype, shape):
    layer = mfnn.RoPE(shape[-1], traditional=traditional, base=5000.0, scale=0.75)
    x = normal(rng, shape, dtype)
    want = reference(layer, x, offset=offset)
    # output rounding, plus the angle (position * frequency, fp32, computed in another order: a few
    # u32 of positions up to 30 rad) moving each product by |x| times that
    assert_within(layer(x, offset=offset), want, UNIT_ROUNDOFF[dtype] * np.abs(want) + 1e-5 * np.abs(f64(x)).max())
    _expect_kernels()


def _quantized_bound(x: mx.array, layer: nn.QuantizedLinear, want: np.ndarray) -> np.ndarray:
    w = np.abs(f64(mx.dequantize(layer.weight, layer.scales.astype(mx.float32), layer.biases.astype(mx.float32),
                                 group_size=layer.group_size, bits=layer.bits)))
    terms = np.abs(f64(x)).reshape(-1, w.shape[1]) @ w.T
    u, k = UNIT_ROUNDOFF[x.dtype], w.shape[1]
    # weights rounded to x's dtype (u each), fp32 sums (k u32), the output rounded (u |y|)
    return ((u + k * 2.0 ** -24) * terms).reshape(want.shape) + u * np.abs(want)


@pytest.mark.parametrize("bits,group,dtype", [(4, 32, mx.float16), (4, 64, mx.float32), (4, 128, mx.bfloat16),
                                              (8, 32, mx.float32), (8, 64, mx.float16), (8, 128, mx.float16),
                                              (2, 64, mx.float32)])
@pytest.mark.parametrize("rows", [1, 5])   # 1: the quantized matvec (decode), 5: the quantized matmul (prefill)
def test_quantized_linear(rng, bits, group, dtype, rows):
    in_dims, out_dims = 2 * group + (128 if group == 32 else 0), 37
    layer = mfnn.QuantizedLinear(in_dims, out_dims, bias=rows == 5, group_size=group, bits=bits)
    layer.update(nn.QuantizedLinear.from_linear(nn.Linear(in_dims, out_dims, bias=False), group, bits).parameters())
    layer.set_dtype(dtype)
    if "bias" in layer:
        layer.bias = normal(rng, (out_dims,), dtype)
    x = normal(rng, (rows, 1, in_dims), dtype)
    want = reference(layer, x)
    assert_within(layer(x), want, _quantized_bound(x, layer, want))
    _expect_kernels()


def test_a_decode_layer_with_new_weights_computes_with_them(rng):
    """A layer keeps its decode launch prepared with its weights fixed: weights replaced (`update`,
    as loading or fine-tuning does) make a new launch, never a stale result; a layer whose weights
    change again and again keeps only the launch of its current ones (the old weights are freed)."""
    from metalforge.nn import layers

    in_dims, out_dims, group = 128, 37, 32
    layer = mfnn.QuantizedLinear(in_dims, out_dims, bias=False, group_size=group, bits=4)
    x = normal(rng, (1, 1, in_dims))
    for _ in range(layers._PREPARED_PER_LAYER + 2):
        linear = nn.Linear(in_dims, out_dims, bias=False)
        linear.weight = normal(rng, (out_dims, in_dims))
        layer.update(nn.QuantizedLinear.from_linear(linear, group, 4).parameters())
        want = reference(layer, x)
        assert_within(layer(x), want, _quantized_bound(x, layer, want))
        assert_within(layer(x), want, _quantized_bound(x, layer, want))  # the prepared launch's second call
    assert len(layer.__dict__["_metalforge_prepared"]) == 1  # the replaced weights' launches are dropped
    assert "_metalforge_prepared" not in layer.parameters() and "_metalforge_prepared" not in dict(layer.children())
    mfnn.forget_prepared(layer)
    assert "_metalforge_prepared" not in layer.__dict__
    _expect_kernels()


@pytest.mark.parametrize("change", ["setattr", "delattr", "setitem", "delitem", "ior", "update", "pop", "popitem",
                                    "clear", "setdefault", "load_weights", "set_dtype"])
def test_every_change_to_a_watched_module_is_counted(change):
    """A fused block's decode step skips its checks while `_GENERATION` stands still, so every way
    of changing a module it reads must move it: Module's own setters and update, and dict's methods,
    which change items without calling `__setitem__`."""
    from metalforge.nn import layers

    norm = mfnn.RMSNorm(8)
    weight = norm.weight
    changes = {"setattr": lambda: setattr(norm, "eps", 0.5), "delattr": lambda: delattr(norm, "weight"),
               "setitem": lambda: norm.__setitem__("weight", weight + 1), "delitem": lambda: norm.__delitem__("weight"),
               "ior": lambda: norm.__ior__({"weight": weight + 1}), "update": lambda: norm.update({"weight": weight + 1}),
               "pop": lambda: norm.pop("weight"), "popitem": norm.popitem, "clear": norm.clear,
               "setdefault": lambda: norm.setdefault("extra", weight),
               "load_weights": lambda: norm.load_weights([("weight", weight + 1)]),
               "set_dtype": lambda: norm.set_dtype(mx.float16)}
    before = layers._GENERATION[0]
    changes[change]()
    assert layers._GENERATION[0] > before
    assert isinstance(norm, layers.Watched) and all(issubclass(c, layers.Watched) for c in (
        mfnn.RoPE, mfnn.QuantizedLinear, layers.FusedBlock, layers.FusedQKV, layers.FusedSwiGLU))


@pytest.mark.parametrize("rows", [1, 3])
def test_quantized_embedding_as_linear(rng, rows):
    """A tied output head: `as_linear` on the quantized kernels; the lookup stays MLX's."""
    layer = mfnn.QuantizedEmbedding(53, 64, group_size=32, bits=4)
    layer.update(nn.QuantizedEmbedding.from_embedding(nn.Embedding(53, 64), 32, 4).parameters())
    layer.set_dtype(mx.float16)
    x = normal(rng, (rows, 64), mx.float16)
    params = layer.parameters()
    layer.set_dtype(mx.float32)
    with mx.stream(mx.cpu):
        want = f64(nn.QuantizedEmbedding.as_linear(layer, x.astype(mx.float32)))
    layer.update(params)
    assert_within(layer.as_linear(x), want, _quantized_bound(x, layer, want))
    tokens = mx.array([3, 52, 0])
    assert mx.array_equal(layer(tokens), nn.QuantizedEmbedding.__call__(layer, tokens))
    _expect_kernels()


def test_quantized_linear_has_mlx_parameters():
    """Same parameter names and shapes as mlx.nn.QuantizedLinear: its weights load unchanged."""
    ours, theirs = mfnn.QuantizedLinear(64, 24, group_size=32, bits=8), nn.QuantizedLinear(64, 24, group_size=32, bits=8)
    assert {k: v.shape for k, v in ours.parameters().items()} == {k: v.shape for k, v in theirs.parameters().items()}
    ours.load_weights(list(theirs.parameters().items()))


@pytest.mark.parametrize("bias,dtype", [(True, mx.float16), (False, mx.float32), (True, mx.bfloat16)])
def test_linear(rng, bias, dtype):
    layer = mfnn.Linear(40, 33, bias=bias)
    layer.set_dtype(dtype)
    x = normal(rng, (3, 5, 40), dtype)
    want = reference(layer, x)
    terms = np.abs(f64(x)) @ np.abs(f64(layer.weight)).T
    # fp32 sums (40 u32) + the output rounded (u |y|)
    assert_within(layer(x), want, 40 * 2.0 ** -24 * terms + UNIT_ROUNDOFF[dtype] * np.abs(want) + 1e-6)
    _expect_kernels()


def test_embedding_as_linear(rng):
    """A tied output head of an unquantized model: `as_linear` on the linear kernel."""
    layer = mfnn.Embedding(45, 24)
    layer.set_dtype(mx.float16)
    x = normal(rng, (2, 3, 24), mx.float16)
    with mx.stream(mx.cpu):
        want = f64(x.astype(mx.float32) @ layer.weight.astype(mx.float32).T)
    terms = np.abs(f64(x)) @ np.abs(f64(layer.weight)).T
    assert_within(layer.as_linear(x), want, 24 * 2.0 ** -24 * terms + UNIT_ROUNDOFF[mx.float16] * np.abs(want))  # as Linear
    _expect_kernels()


def _sdpa_reference(q, k, v, scale, mask) -> np.ndarray:
    with mx.stream(mx.cpu):
        return f64(mx.fast.scaled_dot_product_attention(*(t.astype(mx.float32) for t in (q, k, v)), scale=scale,
                                                        mask=mask))


@pytest.mark.parametrize("batch,heads,kv_heads,length,keys,mask,dtype", [
    (1, 4, 2, 1, 37, None, mx.float16),        # decode step, grouped-query heads
    (2, 2, 2, 1, 300, "causal", mx.float32),   # decode, batch folded into heads; split key ranges
    (1, 4, 1, 19, 19, "causal", mx.float16),   # prefill
    (2, 4, 2, 10, 10, None, mx.bfloat16),      # prefill without a mask
    (1, 4, 2, 7, 20, "causal", mx.float16),    # a prefill after 13 cached tokens (a chunked prompt)
    (1, 2, 2, 5, 9, None, mx.float32),
])
def test_scaled_dot_product_attention(rng, batch, heads, kv_heads, length, keys, mask, dtype):
    q, k, v = (normal(rng, (batch, h, n, 32), dtype) for h, n in ((heads, length), (kv_heads, keys), (kv_heads, keys)))
    want = _sdpa_reference(q, k, v, 0.2, mask)
    out = mfnn.scaled_dot_product_attention(q, k, v, scale=0.2, mask=mask)
    # a convex combination of values (|v| <= max|v|): P rounded to the dtype before P @ V, and the
    # output rounded: 2 u max|v|, plus fp32 exponentials and sums
    assert_within(out, want, 2 * UNIT_ROUNDOFF[dtype] * np.abs(f64(v)).max() + 1e-5)
    _expect_kernels()


def test_fallbacks_are_counted_and_logged_once(rng, caplog):
    q = normal(rng, (1, 2, 5, 32))
    k = normal(rng, (1, 2, 9, 32))
    cases = [
        (lambda: mfnn.scaled_dot_product_attention(q, k, k, scale=0.5, mask=mx.ones((5, 9), mx.bool_)),
         "mask of kind array"),
        (lambda: mfnn.scaled_dot_product_attention(k, q, q, scale=0.5), "more queries than keys"),
        (lambda: mfnn.scaled_dot_product_attention(q[..., :24], k[..., :24], k[..., :24], scale=0.5),
         "head dimension 24"),
        (lambda: mfnn.RoPE(8)(normal(rng, (2, 3, 16))), "rotating part"),
        (lambda: mfnn.RMSNorm(8)(normal(rng, (3, 8), mx.float16)), "mixed dtypes"),
        (lambda: mfnn.QuantizedLinear(64, 8, group_size=64, bits=6)(normal(rng, (64,))), "bits=6"),
    ]
    with caplog.at_level(logging.WARNING, logger="metalforge.nn"):
        for call, reason in cases:
            for _ in range(2):
                mx.eval(call())
    found = mfnn.fallbacks()
    assert len(found) == len(cases) and all(n == 2 for n in found.values())
    for _, reason in cases:
        assert sum(reason in r for r in found) == 1, (reason, found)
    assert len([r for r in caplog.records if r.name == "metalforge.nn"]) == len(cases)  # once per reason


def test_fallback_gives_mlx_result(rng):
    """A call the kernels do not take returns exactly what MLX's layer returns."""
    layer, x = mfnn.RoPE(8, traditional=True), normal(rng, (2, 3, 16))
    assert mx.array_equal(layer(x, offset=3), nn.RoPE(8, traditional=True)(x, offset=3))
    assert "RoPE" in next(iter(mfnn.fallbacks()))


def test_quantized_kernels_refuse_what_they_cannot_take(rng):
    w_q, scales, biases = mx.quantize(normal(rng, (8, 64)), group_size=32, bits=4)
    x = normal(rng, (64,))
    with pytest.raises(ValueError, match="bits=3"):
        quantized.qmv(x, w_q, scales, biases, 32, 3)
    with pytest.raises(ValueError, match="groups of 64"):
        quantized.qmm(x[None], w_q, scales, biases, 64, 4)


def test_quantized_matmul_passes_its_tuning_check():
    """The tuner's check of qmm at its standard shape (K = 1024, fp16): the reference rounds the
    dequantised weights to fp16 as the kernel does, so rtol/atol 1e-2 hold at any K."""
    tuner = quantized.qmm_kernel
    grid, args = tuner.tune_case(tuner.shapes[0], mx.float16)
    outputs = as_outputs(tuner.fn[grid](*args, **tuner.default_config(args).all_kwargs()))
    error, wrong = max_error(outputs, as_outputs(tuner.reference(*args)), tuner.rtol, tuner.atol)
    assert wrong is None, (error, wrong)
