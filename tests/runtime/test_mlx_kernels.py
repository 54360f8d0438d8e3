"""MLX's own production Metal kernels (the pinned 0.32.4 sources) run on the emulator and match
mlx.core's CPU ops.

Each case runs MLX's kernel with the launch MLX's host code makes for its shape (shapes chosen to hit
the partial-row, partial-tile and looped paths), on random inputs from the printed seed, with
outputs poisoned (NaN) by the emulator: an element the kernel does not write fails. Tolerances are
error bounds (written at each case); the references are mlx.core CPU ops in float32 on the same,
already rounded, inputs. Cases skip only when the pinned sources are not installed (`.ci/install`
installs them).
"""
from __future__ import annotations

import dataclasses

import mlx.core as mx
import numpy as np
import pytest

from metalforge.errors import LaunchConfigError, OutOfBoundsError
from metalforge.runtime.emulator import mlx_kernels
from metalforge.runtime.emulator.mlx_kernels import MLX_OPS, run_mlx_op

EPS32 = 2.0**-24  # unit roundoff of float32
EPS16 = 2.0**-11  # of half
EPSBF = 2.0**-8   # of bfloat16
HALF_SUBNORMAL = 2.0**-25  # half's rounding error below its smallest normal (2^-14) is absolute


def f64(a: mx.array) -> np.ndarray:
    return np.array(a.astype(mx.float32), dtype=np.float64)


def run(name: str, shape: dict, rng: np.random.Generator):
    missing = mlx_kernels.missing_sources(MLX_OPS[name].sources)
    if missing:
        pytest.skip(f"MLX {mlx_kernels.MLX_VERSION} sources {missing} not installed: {mlx_kernels.FETCH_HINT}")
    result = run_mlx_op(name, shape, seed=int(rng.integers(2**31)))
    out = f64(result.output)
    assert np.isfinite(out).all(), "the kernel left output elements unwritten (poisoned NaN)"
    assert out.shape == tuple(result.reference.shape)
    return out, f64(result.reference), result


@pytest.mark.parametrize("axis, dtype, precise", [(301, mx.float32, False), (4099, mx.float32, False),
                                                  (77, mx.bfloat16, True), (33, mx.bfloat16, False)])
def test_softmax(rng, axis, dtype, precise):
    # 301: one threadgroup per row, last thread partial; 4099 > 4096: softmax_looped; bfloat16 with
    # precise: AccT float, bfloat input and output; without: AccT bfloat16, so simd_max/simd_sum of
    # bfloat (MLX's bf16_math.h overloads, through the shim's __metal_simd_* built-ins).
    out, ref, result = run("softmax", {"rows": 3, "axis": axis, "dtype": dtype, "precise": precise}, rng)
    assert result.launches[0].kernel.function == ("softmax_looped" if axis > 4096 else "softmax_single_row")
    # exp within 4 ulp, a sum of `axis` terms within axis * eps relative, a division: each y <= 1 has
    # |error| <= (axis + 8) eps of the accumulation type, on each side; a bfloat output adds eps_bf * y.
    acc_eps = EPS32 if dtype == mx.float32 or precise else EPSBF
    tol = (axis + 8) * (acc_eps + EPS32) + (EPSBF * np.abs(ref) if dtype == mx.bfloat16 else 0)
    np.testing.assert_array_less(np.abs(out - ref), tol + 1e-30)


@pytest.mark.parametrize("name", ["softmax", "sdpa_vector_2pass", "steel_gemm", "steel_attention"])
def test_reverse_schedule(rng, name):
    """Threads resumed last-to-first at every barrier and simd exchange: a missing barrier in MLX's
    kernel, or in the emulator's handling of it, changes the result; it must equal the forward run."""
    if mlx_kernels.missing_sources(MLX_OPS[name].sources):
        pytest.skip(f"MLX sources not installed: {mlx_kernels.FETCH_HINT}")
    seed = int(rng.integers(2**31))
    forward = run_mlx_op(name, seed=seed).output
    reverse = run_mlx_op(name, seed=seed, backend=mlx_kernels.EmulatorBackend(schedule="reverse")).output
    np.testing.assert_array_equal(f64(reverse), f64(forward))


def test_rms_norm(rng):
    out, ref, result = run("rms_norm", {"rows": 3, "axis": 301, "dtype": mx.float32}, rng)
    n = 301
    # Sum of squares (n terms) within n eps relative, rsqrt and two products within 4 eps: each side's
    # error <= (n + 8) eps |y|; |y| <= max |ref|.
    np.testing.assert_array_less(np.abs(out - ref), 2 * (n + 8) * EPS32 * np.abs(ref).max())


def test_layer_norm(rng):
    # 251: 32 threads of 8 reads, the last one partial (3 elements). MLX's launch rounds the threadgroup
    # up to a simdgroup; for row lengths where a thread lies wholly past the row (301: threads 38-63),
    # layer_norm_single_row writes its private array at negative indices (docs/emulator.md), so this
    # case keeps every thread within the row.
    out, ref, result = run("layer_norm", {"rows": 3, "axis": 251, "dtype": mx.float32}, rng)
    n, x = 251, result.inputs
    # Mean (n terms) and variance (n terms) within n eps relative each, after subtracting the mean an
    # absolute error n eps max|x| per element: each side <= (2n + 16) eps (max|x w r| + max|b|).
    scale = np.abs(ref - f64(x["b"])).max() + np.abs(f64(x["b"])).max()
    np.testing.assert_array_less(np.abs(out - ref), 2 * (2 * n + 16) * EPS32 * scale)


@pytest.mark.parametrize("traditional", [False, True])
def test_rope(rng, traditional):
    shape = {"batch": 2, "heads": 5, "seq": 7, "dims": 32, "offset": 3, "dtype": mx.float32, "traditional": traditional}
    out, ref, result = run("rope", shape, rng)
    theta_max = shape["offset"] + shape["seq"]  # position * inv_freq, inv_freq <= 1
    # theta within 16 eps relative (exp2 of a product, or pow on the CPU), cos/sin within 4 eps: each
    # output (x1 cos - x2 sin) within 2 max|x| (16 theta_max + 8) eps, on each side.
    np.testing.assert_array_less(np.abs(out - ref), 2 * 2 * np.abs(f64(result.inputs["x"])).max()
                                 * (16 * theta_max + 8) * EPS32)


def dot_bound(terms: np.ndarray, k: int, y: np.ndarray, out_eps: float) -> np.ndarray:
    """Error bound of a float32-accumulated dot product of k terms (|terms| = sum of |products|), on the
    kernel's side and the float32 reference's, plus the rounding of the kernel's output to half."""
    return 2 * (k + 4) * EPS32 * terms + out_eps * np.abs(y) + HALF_SUBNORMAL


@pytest.mark.parametrize("n, k", [(24, 512), (20, 320)])
def test_qmv(rng, n, k):
    # (24, 512): affine_qmv_fast (N % 8 == 0, K % 512 == 0); (20, 320): affine_qmv, partial rows and K.
    out, ref, result = run("qmv", {"n": n, "k": k, "dtype": mx.float16}, rng)
    assert result.launches[0].kernel.function == ("affine_qmv_fast" if n % 8 == 0 and k % 512 == 0 else "affine_qmv")
    x = result.inputs
    w = np.abs(f64(mx.dequantize(x["w"], x["scales"], x["biases"], group_size=64, bits=4, stream=mx.cpu)))
    biases = np.repeat(np.abs(f64(x["biases"])), 64, axis=1)
    # The kernel sums x * q and scales per group (scale * sum + bias * sum(x)): terms |x| (|w| + 2 |b|).
    terms = np.abs(f64(x["x"])) @ (w + 2 * biases).T
    np.testing.assert_array_less(np.abs(out - ref), dot_bound(terms, k, ref, EPS16))


def attention_bound(result, ref: np.ndarray, partials_rounded: bool) -> np.ndarray:
    """Softmax(q k^T s) v with float scores, exponentials and sums (D + N + 16 float operations per
    path, scores of size <= max|s| entering exp), the output rounded to half; partial outputs of the
    2-pass kernel and Steel's probability tiles may be rounded to half too (eps16 max|v|)."""
    x = result.inputs
    q, k, v = f64(x["q"]), f64(x["k"]), f64(x["v"])
    d, n = q.shape[-1], k.shape[2]
    s_max = np.abs(q).max() * np.abs(k).max() * d * x["scale"]
    floats = 2 * (d + n + 16) * EPS32 * (1 + 2 * s_max) * np.abs(v).max()
    return floats + EPS16 * np.abs(ref) + HALF_SUBNORMAL + (EPS16 * np.abs(v).max() if partials_rounded else 0)


@pytest.mark.parametrize("name", ["sdpa_vector", "sdpa_vector_2pass"])
def test_sdpa_vector(rng, name):
    # Decode attention, one query, 4 query heads on 2 KV heads, 37 / 77 keys (partial blocks).
    out, ref, result = run(name, {}, rng)
    assert len(result.launches) == (2 if name.endswith("2pass") else 1)
    np.testing.assert_array_less(np.abs(out - ref), attention_bound(result, ref, name.endswith("2pass")))


@pytest.mark.parametrize("m, n, k", [(64, 128, 32), (37, 70, 29)])
def test_steel_gemm(rng, m, n, k):
    # Aligned to the 64 x 64 x 16 tile, and unaligned in M, N and K (align_M/N/K false).
    out, ref, result = run("steel_gemm", {"m": m, "n": n, "k": k, "dtype": mx.float16}, rng)
    x = result.inputs
    terms = np.abs(f64(x["a"])) @ np.abs(f64(x["b"]))
    np.testing.assert_array_less(np.abs(out - ref), dot_bound(terms, k, ref, EPS16))


@pytest.mark.parametrize("causal", [False, True])
def test_steel_attention(rng, causal):
    # Prefill: 37 queries (a partial 32-query block), 45 keys (a partial 32-key block), GQA 2; causal:
    # bottom-right aligned (query i sees keys <= i + 8), masking inside the partial and diagonal blocks.
    out, ref, result = run("steel_attention", {"causal": causal}, rng)
    np.testing.assert_array_less(np.abs(out - ref), attention_bound(result, ref, True))


def test_absent_buffer_read_is_reported(rng):
    """MLX's launch of steel gemm leaves addmm_params (buffer 5) absent; gemm() still reads it in code
    Metal's optimizer drops. Without the harness's binding of it the emulator reports the read."""
    if mlx_kernels.missing_sources(MLX_OPS["steel_gemm"].sources):
        pytest.skip(f"MLX sources not installed: {mlx_kernels.FETCH_HINT}")
    op = MLX_OPS["steel_gemm"]
    launch = op.launches(op.make_inputs(op.shape, rng))[0]
    del launch.buffers[5]
    with pytest.raises(OutOfBoundsError, match=r"unbound buffer 'buffer\(5\)'.*steel_gemm_fused\.h"):
        mlx_kernels.run_launch(mlx_kernels.EmulatorBackend(), launch)


def test_unset_function_constant_is_named(rng):
    if mlx_kernels.missing_sources(MLX_OPS["sdpa_vector"].sources):
        pytest.skip(f"MLX sources not installed: {mlx_kernels.FETCH_HINT}")
    op = MLX_OPS["sdpa_vector"]
    launch = op.launches(op.make_inputs(op.shape, rng))[0]
    launch.kernel = dataclasses.replace(launch.kernel, constants=launch.kernel.constants[:-1])  # has_sinks (25)
    with pytest.raises(LaunchConfigError, match="function constant has_sinks \\(index 25\\)"):
        mlx_kernels.run_launch(mlx_kernels.EmulatorBackend(), launch)


def test_missing_sources_say_how_to_get_them(tmp_path, monkeypatch):
    monkeypatch.setenv(mlx_kernels.SOURCES_ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="ci/install"):
        run_mlx_op("softmax")


def test_block_dims_follow_mlx():
    # get_block_dims_common grows x, y, z in turn up to 2^10 threads, each at most its dimension.
    assert mlx_kernels.block_dims(16, 7, 4) == (16, 4, 4)
    assert mlx_kernels.block_dims(4096, 1, 1) == (1024, 1, 1)
    assert mlx_kernels.block_dims(1, 1, 1) == (1, 1, 1)
