"""ir_passes/exponentials.py: a float32 `exp(a - b)` whose difference nothing else reads becomes one
`exp2(fma(a, log2 e, -(b * log2 e)))` on both targets; a difference read elsewhere, and other
dtypes' exp, stay as they were. On the emulator against float64: scores less their row maximum
(the softmax case) at offsets up to 100, and the infinities masked scores bring."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl

FOLDED = {"msl": "metal::exp2(metal::fma(", "cuda": "mf_exp2(fmaf("}


@mf.jit
def shifted_exp(x_ptr, m_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    m = tl.load(m_ptr + row)
    tl.store(out_ptr + row * n_cols + cols, tl.exp(x - m), mask=cols < n_cols)


@mf.jit
def shifted_exp_and_difference(x_ptr, m_ptr, out_ptr, diff_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    d = x - tl.load(m_ptr + row)
    tl.store(out_ptr + row * n_cols + cols, tl.exp(d), mask=cols < n_cols)
    tl.store(diff_ptr + row * n_cols + cols, d, mask=cols < n_cols)


@pytest.mark.parametrize("target", ["msl", "cuda"])
def test_the_exponential_of_a_difference_is_one_multiply_add_and_exp2(target):
    x = mx.zeros((3, 50), mx.float32)
    body = shifted_exp.compile(x, mx.zeros((3,)), mf.empty((3, 50)), 50, BLOCK=64, target=target).body
    assert FOLDED[target] in body
    assert "metal::exp(" not in body and "mf_exp(" not in body.split("mf_exp2(")[-1]
    kept = shifted_exp_and_difference.compile(x, mx.zeros((3,)), mf.empty((3, 50)), mf.empty((3, 50)), 50,
                                                 BLOCK=64, target=target).body
    assert FOLDED[target] not in kept  # the difference is stored too: computed once, exp of it as before


def test_the_folded_exponential_against_float64(rng):
    rows, n_cols = 7, 333
    x = rng.uniform(-100, 100, (rows, n_cols)).astype(np.float32)
    m = x.max(axis=1)
    m[3] = -100.0  # every score above its shift: results up to e^200 overflow to inf, as exp's would
    x[5, ::3] = -np.inf  # masked scores: exp(-inf - m) = 0
    m[6] = -np.inf
    x[6, :] = -np.inf  # a row with every score masked: exp(-inf + inf) is NaN, as the subtraction gives
    out = np.array(shifted_exp[(rows,)](mx.array(x), mx.array(m), mf.empty((rows, n_cols)), n_cols, BLOCK=512,
                                        num_warps=4))
    assert "metal::exp2(metal::fma(" in shifted_exp.last.body
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.exp(x.astype(np.float64) - m[:, None].astype(np.float64))
        want32 = want.astype(np.float32)
    finite = np.isfinite(want32) & (want32 > np.finfo(np.float32).tiny)
    # The exponent's error: half an ulp of each product and of the fma, 2^-24 (|a| + |b|) log2 e in
    # all; times ln 2 in the result, plus float32's rounding of it (an ulp).
    scale = (np.abs(x) + np.abs(m[:, None])).astype(np.float64)[finite]
    assert np.all(np.abs(out[finite] - want[finite]) <= (2.0 ** -24 * 1.5 * scale + 2.0 ** -23) * want[finite])
    assert np.array_equal(np.isposinf(out), np.isposinf(want32))
    assert np.all(out[5, ::3] == 0) and np.all(np.isnan(out[6]))
