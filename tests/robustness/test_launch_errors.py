"""Launch mistakes and runaway tiles end in one clear error naming the kernel, never a raw
TypeError/ValueError from deep inside or minutes of compilation; a fault names the Python line."""
from __future__ import annotations

import mlx.core as mx
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.errors import LaunchConfigError, MetalforgeError, OutOfBoundsError
from metalforge.runtime.emulator.backend import EmulatorBackend


@mf.jit
def shifted_copy(x_ptr, out_ptr, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs + shift))


@mf.jit
def block_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, BLOCK)), axis=0))


def test_num_warps_of_the_wrong_type():
    with pytest.raises(LaunchConfigError, match=r"shifted_copy: num_warps='4'; use a power of two"):
        shifted_copy[(1,)](mx.zeros((64,)), mf.empty((64,)), 0, BLOCK=64, num_warps="4")


def test_negative_output_shapes():
    with pytest.raises(MetalforgeError, match=r"shape must be non-negative ints, got -4"):
        mf.empty(-4)
    with pytest.raises(LaunchConfigError, match=r"shifted_copy: output `out_ptr` has shape \(-4,\)"):
        shifted_copy[(1,)](mx.zeros((64,)), mf.empty((-4,)), 0, BLOCK=64)


def test_a_tile_too_large_for_its_threads_is_refused_at_once():
    """2^22 elements on one warp: 131072 per thread, refused before any code is generated."""
    with pytest.raises(LaunchConfigError, match=r"block_sum: a tile of 4194304 elements over 32 threads gives each "
                                                r"thread 131072 elements, more than 4096.*use more warps"):
        block_sum.compile(mx.zeros((16,)), mf.empty(1), BLOCK=2 ** 22, num_warps=1, target="msl")


def test_an_out_of_bounds_read_names_the_python_line():
    """The checked emulator's report carries the kernel's file and line behind the faulting MSL line."""
    line = shifted_copy.fn.__code__.co_firstlineno + 3  # the tl.store line
    with pytest.raises(OutOfBoundsError) as caught:
        mx.eval(shifted_copy[(1,)](mx.zeros((64,)), mf.empty((64,)), 5000, BLOCK=64,
                                   backend=EmulatorBackend(checked=True)))
    assert f"generated from {__file__}:{line} (`tl.store(out_ptr + offs, tl.load(x_ptr + offs + shift))`)" \
        in str(caught.value)
