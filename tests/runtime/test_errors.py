"""Errors: out-of-bounds accesses, code Metal rejects, bad launch configurations."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

from metalforge.errors import (KernelCompileError, LaunchConfigError, OutOfBoundsError,
                               ThreadgroupMemoryError)
from metalforge.runtime import metal_kernel

from .helpers import backend, kernel, random_array, round_to, to_np

COPY = """
    uint i = thread_position_in_grid.x;
    out[i] = x[i] * 2.0f;
"""


def launch(k, x, n_out, tg=64, grid=None, **kw):
    return k(inputs=[x], grid=(grid or n_out, 1, 1), threadgroup=(tg, 1, 1), output_shapes=[(n_out,)],
             output_dtypes=[mx.float32], **kw)[0]


# ---- 10. out-of-bounds accesses -------------------------------------------------------------------------
# With a barrier in the body the threads run as fibers; without, in a plain loop: both are checked.
SYNC = "threadgroup_barrier(mem_flags::mem_none);\n"


@pytest.mark.parametrize("sync", [False, True])
@pytest.mark.parametrize("n", [100, 1024])
def test_out_of_bounds_write_names_output(emulator, rng, sync, n):
    src = (SYNC if sync else "") + "uint i = thread_position_in_grid.x;\nresult[i + 1] = x[i];"
    k = kernel("oob_write", ["x"], ["result"], src, emulator)
    with pytest.raises(OutOfBoundsError) as info:
        k(inputs=[random_array(rng, (n,), mx.float32)], grid=(n, 1, 1), threadgroup=(64, 1, 1),
          output_shapes=[(n,)], output_dtypes=[mx.float32])
    msg = str(info.value)
    assert "'oob_write'" in msg and "output 'result'" in msg and "past the end" in msg, msg


@pytest.mark.parametrize("sync", [False, True])
def test_out_of_bounds_read_names_input(emulator, rng, sync):
    n = 77
    src = (SYNC if sync else "") + "uint i = thread_position_in_grid.x;\nout[i] = inp_a[i] + inp_b[i + 1];"
    k = metal_kernel("oob_read", ["inp_a", "inp_b"], ["out"], src, backend=emulator)
    a, b = random_array(rng, (n,), mx.float32), random_array(rng, (n,), mx.float32)
    with pytest.raises(OutOfBoundsError) as info:
        k(inputs=[a, b], grid=(n, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(n,)],
          output_dtypes=[mx.float32])
    msg = str(info.value)
    assert "'oob_read'" in msg and "input 'inp_b'" in msg and "inp_a" not in msg.split("(")[0], msg


def test_read_before_start_names_input(emu, rng):
    n = 1024  # a whole page of floats: the guard page is right before element 0
    src = "int i = int(thread_position_in_grid.x);\nout[i] = x[i - 1];"
    k = kernel("oob_before", ["x"], ["out"], src, emu)
    with pytest.raises(OutOfBoundsError, match=r"'oob_before'.*input 'x'.*before its start"):
        launch(k, random_array(rng, (n,), mx.float32), n)


def test_write_to_input_is_caught(emu, rng):
    src = "uint i = thread_position_in_grid.x;\n((device float*)x)[i] = 0.0f;\nout[i] = 1.0f;"
    k = kernel("write_input", ["x"], ["out"], src, emu)
    with pytest.raises(OutOfBoundsError, match=r"'write_input'.*input 'x'.*read-only"):
        launch(k, random_array(rng, (50,), mx.float32), 50)


def test_out_of_bounds_in_2d_output_and_recovery(emu, rng):
    src = """
        uint2 p = thread_position_in_grid.xy;
        grid_out[p.y * 9 + p.x] = 1.0f;   // row stride 9, but the output has 8 columns
    """
    k = kernel("oob_2d", ["x"], ["grid_out"], src, emu)
    with pytest.raises(OutOfBoundsError, match="output 'grid_out'"):
        k(inputs=[mx.zeros((1,))], grid=(8, 5, 1), threadgroup=(4, 4, 1), output_shapes=[(5, 8)],
          output_dtypes=[mx.float32])
    # A correct kernel right after the fault still runs and gives right results.
    x = random_array(rng, (300,), mx.float32)
    out = launch(kernel("copy", ["x"], ["out"], COPY, emu), x, 300)
    np.testing.assert_array_equal(to_np(out), 2 * to_np(x))


@pytest.mark.parametrize("n", [1, 300, 4097])
def test_unchecked_matches_checked(rng, n):
    x = random_array(rng, (n,), mx.float32, -5, 5)
    results = []
    for checked in (True, False):
        k = kernel("copy", ["x"], ["out"], COPY, backend("forward", checked=checked))
        results.append(to_np(launch(k, x, n)))
    np.testing.assert_array_equal(results[0], 2 * to_np(x))
    np.testing.assert_array_equal(results[1], results[0])


def test_unchecked_noncontiguous_input(rng):
    base = random_array(rng, (9, 31), mx.float32)
    x = base.T[3:, ::2]
    src = """
        uint e = thread_position_in_grid.x;
        out[e] = x[elem_to_loc(e, x_shape, x_strides, x_ndim)] + 1.0f;
    """
    for checked in (True, False):
        k = kernel("nc_unchecked", ["x"], ["out"], src, backend("forward", checked=checked),
                   ensure_row_contiguous=False)
        out = k(inputs=[x], grid=(x.size, 1, 1), threadgroup=(32, 1, 1), output_shapes=[x.shape],
                output_dtypes=[mx.float32])[0]
        np.testing.assert_array_equal(to_np(out), round_to(to_np(x) + 1, mx.float32), err_msg=f"checked={checked}")


# ---- 11. code that Metal rejects --------------------------------------------------------------------------
REJECTED = {
    "double": ("", "uint i = thread_position_in_grid.x;\ndouble d = x[i];\nout[i] = d;", "double"),
    "recursion": ("float fact(int n) { return n <= 1 ? 1.0f : n * fact(n - 1); }\n",
                  "uint i = thread_position_in_grid.x;\nout[i] = fact(int(x[i]));", "recursion"),
    "address_space": ("void fill(threadgroup float* p, float v) { p[0] = v; }\n",
                      "uint i = thread_position_in_grid.x;\nfill(out, x[i]);", "fill"),
    "new": ("", "uint i = thread_position_in_grid.x;\nfloat* p = new float[4];\nout[i] = x[i];", "new"),
    "std": ("", "uint i = thread_position_in_grid.x;\nout[i] = std::exp(x[i]);", "std"),
    "malloc": ("", "uint i = thread_position_in_grid.x;\nout[i] = *(float*)malloc(4);", "malloc"),
    "undeclared": ("", "uint i = thread_position_in_grid.x;\nout[i] = y[i];", "y"),
    "mutual_recursion": ("float odd(int n);\nfloat even(int n) { return n == 0 ? 1.0f : odd(n - 1); }\n"
                         "float odd(int n) { return n == 0 ? 0.0f : even(n - 1); }\n",
                         "uint i = thread_position_in_grid.x;\nout[i] = even(int(x[i]));", "recursion"),
}


@pytest.mark.parametrize("case", list(REJECTED))
def test_rejected_code_fails_to_compile(emu, case):
    header, body, mention = REJECTED[case]
    name = f"rejected_{case}"
    k = metal_kernel(name, ["x"], ["out"], body, header=header, backend=emu)
    with pytest.raises(KernelCompileError) as info:
        launch(k, mx.zeros((4,)), 4)
    msg = str(info.value)
    assert f"metal_kernel '{name}'" in msg
    assert mention in msg, msg


def test_compile_error_points_at_kernel_source_line(emu):
    body = "uint i = thread_position_in_grid.x;\nfloat a = x[i];\nout[i] = a + undefined_name;"
    k = metal_kernel("bad_line", ["x"], ["out"], body, backend=emu)
    with pytest.raises(KernelCompileError, match=r"line 3 of the kernel source") as info:
        launch(k, mx.zeros((4,)), 4)
    assert "undefined_name" in str(info.value)


# ---- 13. launch configuration ------------------------------------------------------------------------------
@pytest.mark.parametrize("tg", [(1025, 1, 1), (32, 32, 2), (1, 1, 2048)])
def test_threadgroup_over_1024_threads(emu, tg):
    k = metal_kernel("too_big", ["x"], ["out"], COPY, backend=emu)
    with pytest.raises(LaunchConfigError, match="too_big"):
        k(inputs=[mx.zeros((1,))], grid=(2048, 64, 2048), threadgroup=tg, output_shapes=[(1,)],
          output_dtypes=[mx.float32])


def test_threadgroup_of_1024_threads_is_allowed(emu, rng):
    n = 3000
    x = random_array(rng, (n,), mx.float32)
    src = "threadgroup_barrier(mem_flags::mem_none);\n" + COPY
    out = launch(kernel("copy_sync", ["x"], ["out"], src, emu), x, n, tg=1024)
    np.testing.assert_array_equal(to_np(out), 2 * to_np(x))


def test_threadgroup_limit_checked_before_clamping_to_grid(emu):
    # MLX (custom_kernel.cpp) rejects tx*ty*tz > maxTotalThreadsPerThreadgroup before min(tg, grid).
    k = metal_kernel("too_big_small_grid", ["x"], ["out"], COPY, backend=emu)
    with pytest.raises(LaunchConfigError):
        launch(k, mx.zeros((10,)), 10, tg=2048)


def test_wrong_number_of_inputs(emu):
    k = metal_kernel("two_in", ["a", "b"], ["out"], COPY, backend=emu)
    with pytest.raises(ValueError, match="Expected `inputs` to have size 2 but got size 1"):
        launch(k, mx.zeros((4,)), 4)
    with pytest.raises(ValueError):
        k(inputs=[mx.zeros((4,))] * 3, grid=(4, 1, 1), threadgroup=(4, 1, 1), output_shapes=[(4,)],
          output_dtypes=[mx.float32])


@pytest.mark.parametrize("grid, tg", [((4, 1), (4, 1, 1)), ((4, 1, 1), (4.0, 1, 1))])
def test_grid_and_threadgroup_must_be_int_triples(emu, grid, tg):
    k = metal_kernel("triples", ["x"], ["out"], COPY, backend=emu)
    with pytest.raises(TypeError):
        k(inputs=[mx.zeros((4,))], grid=grid, threadgroup=tg, output_shapes=[(4,)], output_dtypes=[mx.float32])


@pytest.mark.parametrize("decl", ["threadgroup float big[8193];", "threadgroup float a[4096], b[4096];\n"
                                  "threadgroup int c[4];"])
def test_threadgroup_memory_over_32k(emu, decl):
    src = decl + """
        uint lid = thread_position_in_threadgroup.x;
        big_use(lid);
    """
    src = src.replace("big_use(lid);", "threadgroup_barrier(mem_flags::mem_threadgroup);\nout[lid] = 0.0f;")
    k = metal_kernel("tg_too_much", ["x"], ["out"], src, backend=emu)
    with pytest.raises(ThreadgroupMemoryError, match="tg_too_much"):
        launch(k, mx.zeros((4,)), 32, tg=32)


def test_threadgroup_memory_of_exactly_32k_is_allowed(emulator, rng):
    src = """
        threadgroup float big[8192];
        uint lid = thread_position_in_threadgroup.x;
        for (uint k = lid; k < 8192; k += threads_per_threadgroup.x) big[k] = float(k);
        threadgroup_barrier(mem_flags::mem_threadgroup);
        float s = 0.0f;
        for (uint k = 0; k < 8192; k += 64) s += big[(k + lid + 1) % 8192];
        out[thread_position_in_grid.x] = s;
    """
    k = metal_kernel("tg_32k", ["x"], ["out"], src, backend=emulator)
    out = to_np(launch(k, mx.zeros((4,)), 100, tg=64))
    lid = np.arange(100) % 64
    expected = [sum(float((k + l + 1) % 8192) for k in range(0, 8192, 64)) for l in lid]
    np.testing.assert_array_equal(out, expected)
