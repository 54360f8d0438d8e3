"""ir_passes/exponentials.py: softmax's `exp(x - m)`, `m` a maximum and the difference read by nothing
else, becomes one `exp2(fma(x, log2 e, -(m * log2 e)))` on both targets; a difference read elsewhere, a
shift that is not a maximum (a user's `exp(t - t0)` keeps its precision) stay as written. On the
emulator against float64: rows of scores up to 100 in magnitude less their maximum, scores masked
to -inf, and a row of nothing but -inf."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl

FOLDED = {"msl": "metal::exp2(metal::fma(", "cuda": "mf_exp2(fmaf("}


@mf.jit
def softmax_numerators(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row * n_cols + cols, tl.exp(x - tl.max(x, axis=0)), mask=cols < n_cols)


@mf.jit
def numerators_and_differences(x_ptr, out_ptr, diff_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    d = x - tl.max(x, axis=0)
    tl.store(out_ptr + row * n_cols + cols, tl.exp(d), mask=cols < n_cols)
    tl.store(diff_ptr + row * n_cols + cols, d, mask=cols < n_cols)


@mf.jit
def shifted_by_an_argument(x_ptr, t0_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, tl.exp(x - tl.load(t0_ptr + row)), mask=cols < n_cols)


@pytest.mark.parametrize("target", ["msl", "cuda"])
def test_softmax_s_exponential_is_one_multiply_add_and_exp2(target):
    x = mx.zeros((3, 50), mx.float32)
    body = softmax_numerators.compile(x, mf.empty((3, 50)), 50, BLOCK=64, target=target).body
    assert FOLDED[target] in body
    assert "metal::exp(" not in body and "mf_exp(" not in body.replace("mf_exp2(", "")
    kept = numerators_and_differences.compile(x, mf.empty((3, 50)), mf.empty((3, 50)), 50, BLOCK=64,
                                              target=target).body
    assert FOLDED[target] not in kept  # the difference is stored too: computed once, exp of it as written
    plain = shifted_by_an_argument.compile(x, mx.zeros((3,)), mf.empty((3, 50)), 50, BLOCK=64, target=target).body
    assert FOLDED[target] not in plain  # not a maximum: its error would grow with the shift's magnitude


def test_the_folded_exponential_against_float64(rng):
    rows, n_cols = 7, 333
    x = rng.uniform(-100, 100, (rows, n_cols)).astype(np.float32)
    x[5, ::3] = -np.inf  # masked scores: exp(-inf - m) = 0
    x[6, :] = -np.inf  # every score masked: the maximum is -inf and exp(-inf + inf) is NaN, as written
    out = np.array(softmax_numerators[(rows,)](mx.array(x), mf.empty((rows, n_cols)), n_cols, BLOCK=512,
                                               num_warps=4))
    assert "metal::exp2(metal::fma(" in softmax_numerators.last.body
    m = x.max(axis=1, keepdims=True).astype(np.float64)
    with np.errstate(invalid="ignore"):
        want = np.exp(x.astype(np.float64) - m)
    finite = np.isfinite(want) & (want > np.finfo(np.float32).tiny)
    # The exponent's error: half an ulp of each product and of the fma, 2^-24 (|x| + |m|) log2 e in
    # all; times ln 2 in the result, plus float32's rounding of it (an ulp).
    scale = (np.abs(x) + np.abs(m)).astype(np.float64)[finite]
    assert np.all(np.abs(out[finite] - want[finite]) <= (2.0 ** -24 * 1.5 * scale + 2.0 ** -23) * want[finite])
    assert np.all(out[5, ::3] == 0) and np.all(np.isnan(out[6]))
