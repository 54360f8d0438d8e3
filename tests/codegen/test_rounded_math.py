"""tl.math.sqrt_rn, div_rn and fdiv(..., ieee_rounding=True) are correctly rounded on every target:
CUDA spells them `__fsqrt_rn` / `__fdiv_rn` (its plain `tl.sqrt` and `/` keep Triton's sqrt.approx
and div.full), Metal `metal::precise::` (MLX compiles with fast math). Found on an H100: the
conformance suite's `sqrt_rn` came out of sqrt.approx on CUDA (docs/benchmarks.md, sixth session)."""
from __future__ import annotations

import re

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.errors import MetalforgeError

from .nvrtc import nvrtc_missing, to_ptx
from .test_cuda_render import compiled_source


@mf.jit
def rounded(x_ptr, y_ptr, sqrt_ptr, div_ptr, fdiv_ptr, plain_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    x = tl.load(x_ptr + o, mask=m, other=1.0)
    y = tl.load(y_ptr + o, mask=m, other=1.0)
    tl.store(sqrt_ptr + o, tl.math.sqrt_rn(x), mask=m)
    tl.store(div_ptr + o, tl.math.div_rn(x, y), mask=m)
    tl.store(fdiv_ptr + o, tl.math.fdiv(x, y, ieee_rounding=True), mask=m)
    tl.store(plain_ptr + o, tl.sqrt(x) + x / y, mask=m)


def _args(x: np.ndarray, y: np.ndarray) -> tuple:
    n = x.size
    return (mx.array(x), mx.array(y), *(mf.full((n,), float("nan"), mx.float32) for _ in range(4)), n)


FUNCTIONS = re.compile(r"__fsqrt_rn|__fdiv_rn|mf_sqrt|mf_fdiv|metal::precise::\w+|metal::sqrt")


@pytest.mark.parametrize("target,rounded_ones,plain_ones", [
    ("cuda", {"__fsqrt_rn", "__fdiv_rn"}, {"mf_sqrt", "mf_fdiv"}),
    ("msl", {"metal::precise::sqrt", "metal::precise::divide"}, {"metal::sqrt"})])
def test_each_target_spells_the_rounded_functions(target, rounded_ones, plain_ones):
    args = _args(np.ones(100, np.float32), np.ones(100, np.float32))
    body = rounded.compile(*args, target=target, BLOCK=128).body
    assert set(FUNCTIONS.findall(body)) == rounded_ones | plain_ones


@pytest.mark.skipif(nvrtc_missing() is not None, reason=f"{nvrtc_missing()} (the test extra has it)")
def test_the_rounded_functions_compile_with_nvrtc():
    args = _args(np.ones(100, np.float32), np.ones(100, np.float32))
    assert ".entry" in to_ptx(compiled_source(rounded.compile(*args, target="cuda", BLOCK=128)))


@pytest.mark.parametrize("n", [1, 100, 1000])
def test_rounded_results_equal_numpy_exactly(rng, n):
    """On the emulator (Metal's rules): numpy's float32 sqrt and division are correctly rounded, so
    the results must be equal bit for bit, on every masked tail; the plain ones within 2 ulp."""
    x = rng.uniform(1e-3, 1e3, n).astype(np.float32)
    y = rng.uniform(1e-3, 1e3, n).astype(np.float32)
    s, d, f, p = rounded[(mf.cdiv(n, 128),)](*_args(x, y), BLOCK=128)
    assert np.array_equal(np.array(s), np.sqrt(x))
    assert np.array_equal(np.array(d), x / y) and np.array_equal(np.array(f), x / y)
    want = np.sqrt(x.astype(np.float64)) + x.astype(np.float64) / y
    assert np.all(np.abs(np.array(p) - want) <= 4 * np.spacing(np.abs(want).astype(np.float32)))


def test_ieee_rounding_must_be_a_constant_bool():
    @mf.jit
    def runtime_flag(x_ptr, out_ptr, flag):
        x = tl.load(x_ptr + tl.arange(0, 4))
        tl.store(out_ptr + tl.arange(0, 4), tl.math.fdiv(x, x, ieee_rounding=flag))

    with pytest.raises(MetalforgeError, match=r"(?s)runtime_flag.*ieee_rounding must be a constexpr"):
        runtime_flag[(1,)](mx.ones((4,)), mf.empty((4,), mx.float32), 1)
