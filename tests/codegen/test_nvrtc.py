"""The CUDA of the library's `tl.dot` kernels compiled as MLX compiles it (NVRTC, sm_90), and
ptxas's verdict on the speed path's registers: no spills at 128x128x32 on 8 warps. Skipped where
the NVRTC wheel (`nvidia-cuda-nvrtc-cu12`) or ptxas is not installed."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import metalforge as mf
from metalforge.errors import SharedMemoryLimitError
from metalforge.kernels.matmul import matmul_kernel
from metalforge.kernels.specimens import SPECIMENS

from ..conformance import mixed_expressions as mixed
from ..dsl import test_properties as props
from ..dsl.test_dot import matmul
from .nvrtc import nvrtc_missing, ptxas, resources, to_ptx
from .test_cuda_render import compiled_source

pytestmark = pytest.mark.skipif(nvrtc_missing() is not None, reason=f"{nvrtc_missing()} (the test extra has it)")


@pytest.mark.parametrize("specimen", [s for s in SPECIMENS if s.name.startswith(("matmul", "flash_attention"))],
                         ids=lambda s: s.name)
def test_dot_specimens_compile_with_nvrtc(specimen):
    assert ".entry" in to_ptx(compiled_source(specimen.compile("cuda")))


@pytest.mark.skipif(ptxas() is None, reason="ptxas is not installed")
@pytest.mark.parametrize("num_stages", [1, 2, 4])
def test_matmul_128x128x32_on_8_warps_does_not_spill(num_stages):
    """64 accumulator floats per thread (128 x 128 over 256 threads) in fragments, plus the operand
    fragments (the next tiles travel by cp.async, not registers): within the 255 registers a thread
    may have, for every number of stages (one buffer per stage); the fp16 result goes out through
    shared memory (rows of 128 + 8), in the operands' bytes once the K loop is done."""
    a = mx.zeros((1,), mx.float16)
    c = matmul_kernel.fn.compile(a, a, mf.empty((4096, 4096), mx.float16), 4096, 4096, 4096, BLOCK_M=128,
                                 BLOCK_N=128, BLOCK_K=32, GROUP_M=8, num_warps=8, num_stages=num_stages,
                                 target="cuda")
    used = resources(to_ptx(compiled_source(c)))
    assert (used.spill_stores, used.spill_loads) == (0, 0) and used.registers <= 255, used
    assert used.static_shared == 0 and c.shared_bytes == max(num_stages * 2 * (128 * 40 + 32 * 136), 128 * 136 * 2)


def test_flash_attention_multiplies_p_from_its_registers():
    """64x64 tiles on 4 warps: each warp holds whole rows of the scores (warps 4 x 1), so P @ V takes
    its A fragments from P's registers (two neighbouring 16x8 accumulator tiles are one 16x16 A
    fragment on m16n8k16) instead of staging P in shared memory; the CUDA compiles as MLX's does."""
    from metalforge.kernels import flash_attention
    q, k = mx.zeros((32, 2048, 64), mx.float16), mx.zeros((8, 2048, 64), mx.float16)
    c = flash_attention.flash_attention_kernel.fn.compile(*flash_attention.kernel_args(q, k, k, True), target="cuda",
                                                          BLOCK_M=64, BLOCK_N=64, num_warps=4, num_stages=2)
    source = c.asm["cuda"]
    second = source[source.index("tl.dot(p.to(v.dtype), v)"):]
    second = second[:second.index("mf_mma_m16n8k16(")]
    assert "mf_ldmatrix<4" not in second and "frag_a_1[i_1].e[7] = t_" in second
    assert "_smem" not in second.replace("v_smem", "")  # only V is read from shared memory
    # shared memory: K and V in two buffers, Q once, no P (each row padded by 16 bytes)
    assert c.shared_bytes == 2 * 2 * 64 * 72 * 2 + 64 * 72 * 2
    assert ".entry" in to_ptx(compiled_source(c))


@pytest.mark.parametrize("num_stages", [3, 4])
def test_skinny_matmul_prologue_declares_each_name_once(num_stages):
    """16x64x64 on 4 warps: one 16-byte copy of A per thread, so the prologue's stages share the
    kernel's scope, and each stage's `rm` needs a name of its own (NVRTC refused the redeclaration
    before codegen 22; the emulator runs the same config in tests/dsl/test_dot.py)."""
    a = mx.zeros((1,), mx.float16)
    c = matmul_kernel.fn.compile(a, a, mf.empty((8, 4096), mx.float16), 8, 4096, 4096, BLOCK_M=16, BLOCK_N=64,
                                 BLOCK_K=64, GROUP_M=1, num_warps=4, num_stages=num_stages, target="cuda")
    prologue = c.asm["cuda"].split("for (int k0 = 0;")[0]
    assert prologue.count("mf_cp_async_commit();") == num_stages - 1
    assert ".entry" in to_ptx(compiled_source(c))


# --- random kernels' CUDA, compiled as MLX compiles it ---------------------------------------------------------
# The emulator runs these kernels' Metal (tests/dsl: test_dot.py's random matmuls, test_properties.py's random
# control flow and loops carrying pointers); their CUDA must compile too, for every tile shape, arrangement,
# staging, layout, epilogue and control-flow shape drawn.
@settings(max_examples=8, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(dtype=st.sampled_from(["float32", "float16", "bfloat16"]), sizes=st.tuples(*[st.integers(1, 300)] * 3),
       blocks=st.tuples(st.sampled_from([16, 32, 64, 128]), st.sampled_from([16, 32, 64, 128]),
                        st.sampled_from([16, 32, 64])),
       num_warps=st.sampled_from([1, 2, 4, 8]), num_stages=st.sampled_from([None, 1, 2, 3, 0]),
       transposed=st.tuples(st.booleans(), st.booleans()), epilogue=st.tuples(st.booleans(), st.integers(0, 2),
                                                                              st.booleans()))
def test_random_matmuls_compile_with_nvrtc(dtype, sizes, blocks, num_warps, num_stages, transposed, epilogue):
    M, N, K = sizes
    bm, bn, bk = blocks
    a, d = mx.zeros((1,), getattr(mx, dtype)), mx.zeros((1,), getattr(mx, dtype))
    try:
        c = matmul.compile(a, a, mf.empty((M, N), getattr(mx, dtype)), d, d, M, N, K,
                           *((1, M) if transposed[0] else (K, 1)), *((1, K) if transposed[1] else (N, 1)), N, 1,
                           BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=2, HAS_BIAS=epilogue[0], ACTIVATION=epilogue[1],
                           HAS_RESIDUAL=epilogue[2], num_warps=num_warps, num_stages=num_stages, target="cuda")
    except SharedMemoryLimitError:
        reject()
    assert ".entry" in to_ptx(compiled_source(c))


@settings(max_examples=8, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(loop=st.sampled_from(["for", "while"]), swap=st.booleans(), choose=st.booleans(), after=st.integers(0, 2),
       block=st.sampled_from([8, 32]), data=st.data())
def test_random_control_flow_compiles_with_nvrtc(loop, swap, choose, after, block, data):
    i32 = mx.zeros((64,), mx.int32)
    pointers = props.carried_pointers.compile(i32, i32, mf.empty((8 * block,), mx.int32), 3, 8 * block,
                                              WHILE=loop == "while", SWAP=swap, CHOOSE=choose, AFTER=after,
                                              STEP_X=1, STEP_Y=16, BLOCK=block, target="cuda")
    assert ".entry" in to_ptx(compiled_source(pointers))
    program = data.draw(props._block(props.CONTROL), label="program")
    kernel = props.control_kernel(program)
    flow = kernel.compile(i32, mf.empty((128,), mx.int32), 1, 3, B=8, target="cuda")
    assert ".entry" in to_ptx(compiled_source(flow))


# Random expressions over mixed element types (tests/conformance/test_random_expressions.py): each op in
# its Triton type, the float32 math functions, conversions between every pair of the six types.
@settings(max_examples=8, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=mixed.EXPR, types=mixed.TYPES)
def test_random_mixed_type_expressions_compile_with_nvrtc(expr, types):
    _, env = mixed.leaves(np.random.default_rng(0), types, 1, 1)
    try:
        result = mixed.evaluate(expr, env).t
    except mixed.Refused:
        reject()
    kernel = props.jit_source(mixed.KERNEL.format(expr=mixed.source(expr, env)))
    tiles = [mx.zeros((1,), getattr(mx, t)) for t in types]
    c = kernel.compile(*tiles, mf.empty((1,), getattr(mx, result)), 1.0, 2, 1, 1, BM=4, BN=32, num_warps=1,
                       target="cuda")
    assert ".entry" in to_ptx(compiled_source(c))
