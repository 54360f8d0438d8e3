"""The kernel library against MLX's own operations (CPU), on fresh random inputs with odd sizes."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
from metalforge.kernels import attention, norms, quantized, registered, rope, softmax


def close(a: mx.array, b: mx.array, tol: float) -> None:
    a32, b32 = np.array(a.astype(mx.float32)), np.array(b.astype(mx.float32))
    assert np.isfinite(a32).all(), "unwritten (poisoned) or non-finite elements"
    np.testing.assert_allclose(a32, b32, rtol=tol, atol=tol)


def normal(rng: np.random.Generator, shape, dtype=mx.float32) -> mx.array:
    return mx.array(rng.standard_normal(shape).astype(np.float32)).astype(dtype)


@pytest.mark.parametrize("rows,cols,block", [(3, 1000, 256), (2, 77, 128), (1, 4097, 1024)])
@pytest.mark.parametrize("dtype", [mx.float32, mx.float16])
def test_softmax(rng, rows, cols, block, dtype):
    x = normal(rng, (rows, cols), dtype) * 4
    tol = 2e-3 if dtype == mx.float16 else 1e-5
    close(softmax.softmax(x), softmax.reference(x), tol)  # the tuned (or default) config
    out = softmax.softmax_kernel.fn[(rows,)](x.reshape(-1), mf.empty((rows, cols), dtype), cols, cols, BLOCK=block,
                                            num_warps=2)
    close(out, softmax.reference(x), tol)


def test_library_is_registered_for_autotuning():
    library = registered()
    assert {"softmax_kernel", "add_rms_norm_kernel", "layer_norm_kernel", "qmv_kernel",
            "decode_attention_kernel", "rope_kernel"} <= set(library)
    for tuner in library.values():
        grid, args = tuner.tune_case(tuner.shapes[0], tuner.dtypes[0])
        tuned = {k for k in tuner.space.default().kwargs}
        assert len(args) == len(tuner.fn.arg_names) - len(tuned), tuner.name


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


@pytest.mark.parametrize("heads,kv_heads,s,d", [(4, 2, 300, 64), (2, 2, 45, 32)])
def test_decode_attention(rng, heads, kv_heads, s, d):
    q, k, v = normal(rng, (heads, d)), normal(rng, (kv_heads, s, d)), normal(rng, (kv_heads, s, d))
    close(attention.decode_attention(q, k, v), attention.reference(q, k, v), 1e-4)


@pytest.mark.parametrize("heads,t,d", [(3, 37, 64), (2, 5, 128)])
def test_rope(rng, heads, t, d):
    x = normal(rng, (heads, t, d), mx.float16)
    close(rope.rope(x), rope.reference(x), 2e-3)
