"""Constants a type cannot hold and huge unrolls are KernelDefinitionErrors naming the line (issue #19:
`other=-inf` on an integer load, `tl.full(nan, int32)` and a 2^70 constant raised OverflowError or
ValueError, `static_range(20000)` a RecursionError after five minutes)."""
from __future__ import annotations

import metalforge.language as tl
from metalforge.dsl import ir
from metalforge.dsl.frontend import jit

from ..dsl.helpers import expect_error

P = ir.ptr(tl.int32)


@jit
def k_inf_other(x_ptr, y_ptr):
    o = tl.arange(0, 16)
    tl.store(y_ptr + o, tl.load(x_ptr + o, mask=o < 8, other=float("-inf")))


@jit
def k_nan_full(y_ptr):
    tl.store(y_ptr + tl.arange(0, 16), tl.full((16,), float("nan"), tl.int32))


@jit
def k_huge_constant(y_ptr):
    tl.store(y_ptr, 2**70)


@jit
def k_huge_unroll(y_ptr):
    acc = 0
    for i in tl.static_range(20000):
        acc += i
    tl.store(y_ptr, acc)


def test_infinity_as_an_integer_loads_other():
    expect_error(k_inf_other, {"x_ptr": P, "y_ptr": P}, {}, "other=", "-inf has no value in the integer type tl.int32",
                 "-2147483648 (the type's minimum)")


def test_nan_filling_an_integer_tile():
    expect_error(k_nan_full, {"y_ptr": P}, {}, "tl.full", "nan has no value in the integer type tl.int32", "float type")


def test_a_constant_beyond_64_bits():
    expect_error(k_huge_constant, {"y_ptr": P}, {}, "2**70", "does not fit in 64 bits", "smaller constant")


def test_a_huge_static_range_is_refused_before_unrolling():
    expect_error(k_huge_unroll, {"y_ptr": P}, {}, "static_range", "unrolls 20000 iterations, more than 4096",
                 "tl.range")
