"""The CUDA of the library's `tl.dot` kernels compiled as MLX compiles it (NVRTC, sm_90), and
ptxas's verdict on the speed path's registers: no spills at 128x128x32 on 8 warps. Skipped where
the NVRTC wheel (`nvidia-cuda-nvrtc-cu12`) or ptxas is not installed."""
from __future__ import annotations

import mlx.core as mx
import pytest

import metalforge as mf
from metalforge.kernels.matmul import matmul_kernel
from metalforge.kernels.specimens import SPECIMENS

from .nvrtc import nvrtc, ptxas, resources, to_ptx
from .test_cuda_render import compiled_source

pytestmark = pytest.mark.skipif(nvrtc() is None, reason="NVRTC (nvidia-cuda-nvrtc-cu12) is not installed")


@pytest.mark.parametrize("specimen", [s for s in SPECIMENS if s.name.startswith(("matmul", "flash_attention"))],
                         ids=lambda s: s.name)
def test_dot_specimens_compile_with_nvrtc(specimen):
    assert ".entry" in to_ptx(compiled_source(specimen.compile("cuda")))


@pytest.mark.skipif(ptxas() is None, reason="ptxas is not installed")
@pytest.mark.parametrize("num_stages", [1, 2])
def test_matmul_128x128x32_on_8_warps_does_not_spill(num_stages):
    """64 accumulator floats per thread (128 x 128 over 256 threads) in fragments, plus the operand
    fragments and, with two stages, the next tiles: within the 255 registers a thread may have."""
    a = mx.zeros((1,), mx.float16)
    c = matmul_kernel.fn.compile(a, a, mf.empty((4096, 4096), mx.float16), 4096, 4096, 4096, BLOCK_M=128,
                                 BLOCK_N=128, BLOCK_K=32, GROUP_M=8, num_warps=8, num_stages=num_stages,
                                 target="cuda")
    used = resources(to_ptx(compiled_source(c)))
    assert (used.spill_stores, used.spill_loads) == (0, 0) and used.registers <= 255, used
    assert used.static_shared == 0 and c.shared_bytes == (1 + (num_stages > 1)) * 2 * (128 * 40 + 32 * 136)
