"""Integer division traps never kill Python (issue #19: SIGFPE, exit 136, before).

Checked mode stops the kernel with a KernelRuntimeError naming the line and the thread; unchecked
mode gives the values docs/emulator.md documents: x / 0 = -1 (all bits set), x % 0 = x,
INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
"""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.errors import KernelRuntimeError
from metalforge.runtime import metal_kernel

from ..runtime.helpers import backend

INT_MIN = -(2**31)
# Each thread divides a[i] by b[i]; the operation and the operand type vary.
OPERATIONS = {
    "int /": "out[i] = a[i] / b[i];",
    "int %": "out[i] = a[i] % b[i];",
    "uint /": "out[i] = int(uint(a[i]) / uint(b[i]));",
    "uint %": "out[i] = int(uint(a[i]) % uint(b[i]));",
    "int4 /": "out[i] = (int4(a[i]) / int4(1, b[i], 1, 1)).y;",
    "int4 %": "out[i] = (int4(a[i]) % int4(1, b[i], 1, 1)).y;",
}


def divide(operation: str, a: list[int], b: list[int], checked: bool) -> np.ndarray:
    src = "uint i = thread_position_in_grid.x;\n" + OPERATIONS[operation]
    k = metal_kernel("divide", ["a", "b"], ["out"], src, backend=backend(checked=checked))
    out = k(inputs=[mx.array(a, dtype=mx.int32), mx.array(b, dtype=mx.int32)], grid=(len(a), 1, 1),
            threadgroup=(len(a), 1, 1), output_shapes=[(len(a),)], output_dtypes=[mx.int32])[0]
    return np.array(out)


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_division_by_zero_is_reported_in_checked_mode(operation):
    with pytest.raises(KernelRuntimeError, match=r"'divide': integer division or remainder by zero at line 2 of the "
                                                 r"kernel source .*by thread \(2, 0, 0\) of the grid"):
        divide(operation, [7, 8, 9, 10], [1, 2, 0, 3], checked=True)


@pytest.mark.parametrize("operation", ["int /", "int %", "int4 /", "int4 %"])
def test_int_min_divided_by_minus_one_is_reported_in_checked_mode(operation):
    with pytest.raises(KernelRuntimeError, match=r"integer overflow: the most negative integer divided by -1 .*"
                                                 r"thread \(1, 0, 0\)"):
        divide(operation, [7, INT_MIN], [1, -1], checked=True)


def test_unchecked_mode_gives_the_documented_values():
    a, b = [7, -7, INT_MIN, INT_MIN, 9], [0, 0, -1, 0, 2]
    expected = {
        "int /": [-1, -1, INT_MIN, -1, 4], "int %": [7, -7, 0, INT_MIN, 1],
        "uint /": [-1, -1, 0, -1, 4], "uint %": [7, -7, INT_MIN, INT_MIN, 1],
        "int4 /": [-1, -1, INT_MIN, -1, 4], "int4 %": [7, -7, 0, INT_MIN, 1],
    }
    for operation, values in expected.items():
        np.testing.assert_array_equal(divide(operation, a, b, checked=False), values, err_msg=operation)


@mf.jit
def floor_divide(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) // tl.load(b_ptr + offs, mask=mask), mask=mask)


def test_dsl_kernel_division_by_zero_is_reported():
    a, b = mx.array([5, 6, 7], dtype=mx.int32), mx.array([1, 0, 2], dtype=mx.int32)
    with pytest.raises(KernelRuntimeError, match="floor_divide.*division or remainder by zero"):
        floor_divide[(1,)](a, b, mf.empty((3,), mx.int32), 3, BLOCK=32, num_warps=1, backend=backend())
