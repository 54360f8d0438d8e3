"""Launches larger than the GPU takes are refused with a clear error, never wrapped (issue #19:
a grid of 2^32 threads ran 0 threads, a 32-bit field wrapped)."""
from __future__ import annotations

import mlx.core as mx
import pytest

from metalforge.errors import LaunchConfigError
from metalforge.runtime import metal_kernel
from metalforge.runtime.kernel import check_launch_limits

from ..runtime.helpers import backend


@pytest.mark.parametrize("grid", [(2**32, 1, 1), (1, 2**32 + 5, 1), (1, 1, 2**40)])
def test_grid_of_2_to_the_32_threads_along_a_dimension_is_refused(grid):
    k = metal_kernel("huge_grid", ["x"], ["out"], "out[0] = x[0];", backend=backend())
    with pytest.raises(LaunchConfigError, match=r"'huge_grid': grid .* threads along [xyz]; Metal allows at most "
                                                r"4294967295 \(2\^32 - 1\) per dimension"):
        k(inputs=[mx.zeros((1,))], grid=grid, threadgroup=(256, 1, 1), output_shapes=[(1,)],
          output_dtypes=[mx.float32])


@pytest.mark.parametrize("grid, threadgroup, what", [
    ((2**32 - 1, 1, 1), (1, 1, 1), "threadgroups along x"),  # 2^32 - 1 blocks > 2^31 - 1
    ((1, 65536 * 4, 1), (1, 2, 1), "threadgroups along y"),
    ((64, 1, 128), (1, 1, 128), "threads along z; CUDA allows at most 64"),
])
def test_cuda_limits_are_its_own(grid, threadgroup, what):
    check_launch_limits("k", grid, threadgroup, "msl")  # fine on Metal
    with pytest.raises(LaunchConfigError, match=what):
        check_launch_limits("k", grid, threadgroup, "cuda")
