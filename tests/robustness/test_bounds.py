"""Checked mode catches every device access outside its own buffer, any distance away (issue #19).

Before, only one guard page sat on each side of a buffer: a store 3072 elements before it wrote
into other memory of the process, and a load 10^6 elements past the end returned zeros.
"""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

from metalforge.errors import OutOfBoundsError
from metalforge.runtime import metal_kernel

from ..runtime.helpers import backend, to_np

N = 64  # elements of float32 in x and out (16 float4)
DISTANCES = [1, 64, 3072, 10**6]
# The offending offset comes in at run time (`at`), so one compiled kernel serves every distance;
# thread 0 alone makes the access.
ACCESSES = {
    ("read", "scalar"): "out[0] = x[at[0]];",
    ("write", "scalar"): "out[at[0]] = x[0];",
    ("read", "vector"): "((device float4*)out)[0] = ((const device float4*)x)[at[0]];",
    ("write", "vector"): "((device float4*)out)[at[0]] = ((const device float4*)x)[0];",
}


def run(kind: str, width: str, index: int, checked: bool = True) -> mx.array:
    src = "if (thread_position_in_grid.x == 0) {\n" + ACCESSES[kind, width] + "\n}"
    k = metal_kernel(f"oob_{kind}_{width}", ["x", "at"], ["out"], src, backend=backend(checked=checked))
    x = mx.arange(N, dtype=mx.float32)
    return k(inputs=[x, mx.array([index], dtype=mx.int32)], grid=(32, 1, 1), threadgroup=(32, 1, 1),
             output_shapes=[(N,)], output_dtypes=[mx.float32], init_value=0)[0]


@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("side", ["before", "after"])
@pytest.mark.parametrize("kind", ["read", "write"])
@pytest.mark.parametrize("width", ["scalar", "vector"])
def test_out_of_bounds_at_any_distance_is_reported(kind, width, side, distance):
    elements = N if width == "scalar" else N // 4  # in units of the accessed type
    index = -distance if side == "before" else elements - 1 + distance
    buffer = "input 'x'" if kind == "read" else "output 'out'"
    with pytest.raises(OutOfBoundsError) as info:
        run(kind, width, index)
    msg = str(info.value)
    scale = 1 if width == "scalar" else 4
    assert f"'oob_{kind}_{width}'" in msg and f"out-of-bounds {kind} of {buffer} ({N} elements)" in msg, msg
    assert f"element {index * scale}," in msg, msg
    assert ("before its start" if side == "before" else "past the end") in msg, msg
    assert "line 2 of the kernel source" in msg and "thread (0, 0, 0) of the grid" in msg, msg


@pytest.mark.parametrize("width", ["scalar", "vector"])
def test_last_element_is_in_bounds(width):
    """The check is exact: the last element (or float4) is fine, and the right value arrives."""
    last = N - 1 if width == "scalar" else N // 4 - 1
    out = to_np(run("read", width, last))
    expected = [N - 1] if width == "scalar" else [N - 4, N - 3, N - 2, N - 1]
    np.testing.assert_array_equal(out[:len(expected)], expected)


def test_misaligned_vector_access_is_an_error():
    src = "if (thread_position_in_grid.x == 0) out[0] = ((const device float4*)(x + at[0]))[0].x;"
    k = metal_kernel("misaligned", ["x", "at"], ["out"], src, backend=backend())
    with pytest.raises(OutOfBoundsError, match=r"misaligned 16-byte read of input 'x'.*element 1 .*16-byte alignment"):
        k(inputs=[mx.zeros((N,)), mx.array([1], dtype=mx.int32)], grid=(1, 1, 1), threadgroup=(1, 1, 1),
          output_shapes=[(1,)], output_dtypes=[mx.float32])


def test_atomic_out_of_bounds_is_reported():
    src = "atomic_fetch_add_explicit(&out[thread_position_in_grid.x + uint(at[0])], 1, memory_order_relaxed);"
    k = metal_kernel("atomic_oob", ["at"], ["out"], src, atomic_outputs=True, backend=backend())
    with pytest.raises(OutOfBoundsError, match=r"out-of-bounds write of output 'out' \(8 elements\): element 8, 1 element "
                                               r"past the end.*line 1 of the kernel source.*thread \(0, 0, 0\)"):
        k(inputs=[mx.array([8], dtype=mx.int32)], grid=(8, 1, 1), threadgroup=(8, 1, 1), output_shapes=[(8,)],
          output_dtypes=[mx.int32], init_value=0)


def test_out_of_bounds_in_fibers_names_the_thread():
    """Threads run as fibers (a barrier) report the same way, with their own position."""
    src = ("threadgroup_barrier(mem_flags::mem_none);\n"
           "uint i = thread_position_in_grid.x;\nout[i] = x[i + uint(at[0])];")
    k = metal_kernel("oob_fibers", ["x", "at"], ["out"], src, backend=backend())
    with pytest.raises(OutOfBoundsError, match=r"input 'x'.*element 64,.*line 3 of the kernel source.*"
                                               r"thread \(61, 0, 0\) of the grid \(thread 29 of threadgroup \(1, 0, 0\)\)"):
        k(inputs=[mx.zeros((N,)), mx.array([3], dtype=mx.int32)], grid=(N, 1, 1), threadgroup=(32, 1, 1),
          output_shapes=[(N,)], output_dtypes=[mx.float32])


def test_unchecked_mode_runs_in_bounds_kernels_the_same():
    for checked in (True, False):
        np.testing.assert_array_equal(to_np(run("read", "vector", 5, checked=checked))[:4], [20, 21, 22, 23])
