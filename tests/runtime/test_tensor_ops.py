"""Metal 4 tensor ops on the emulator: <metal_tensor> and MetalPerformancePrimitives' matmul2d,
from hand-written MSL (threadgroup and device operands, fp16/bf16/fp32, transposes, multiply and
multiply_accumulate, edge tiles, both execution scopes) against numpy in float64, and the errors
Metal leaves undefined or rejects."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

from metalforge.errors import KernelCompileError, LaunchConfigError, SimdDivergenceError

from .helpers import SCHEDULES, assert_close, backend, cdiv, kernel, random_array, round_to, to_np

HEADER = "#include <metal_tensor>\n#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>\n"
MSL_TYPE = {mx.float16: "half", mx.bfloat16: "bfloat", mx.float32: "float"}

# ---- the block our compiler emits, in a whole GEMM: C = A * Bt^T, tiles staged in threadgroup memory
# A is M x 16 (row-major), Bt is N x 16; tiles of 64 x 32 with 16 in K, 4 simdgroups.
BLOCK = """
constexpr auto mf_desc = mpp::tensor_ops::matmul2d_descriptor(64, 32, 16, false, true, false, mpp::tensor_ops::matmul2d_descriptor::mode::multiply);
mpp::tensor_ops::matmul2d<mf_desc, metal::execution_simdgroups<4>> mf_op;
auto mf_a = metal::tensor<threadgroup half, metal::dextents<int32_t, 2>, metal::tensor_inline>(a_tile + 8, metal::dextents<int32_t, 2>(16, 64), metal::array<int32_t, 2>({1, 24}));
auto mf_b = metal::tensor<threadgroup half, metal::dextents<int32_t, 2>, metal::tensor_inline>(b_tile, metal::dextents<int32_t, 2>(16, 32), metal::array<int32_t, 2>({1, 24}));
auto mf_c = metal::tensor<threadgroup float, metal::dextents<int32_t, 2>, metal::tensor_inline>(c_tile, metal::dextents<int32_t, 2>(32, 64), metal::array<int32_t, 2>({1, 36}));
auto mf_acc = mf_op.get_destination_cooperative_tensor<decltype(mf_a), decltype(mf_b), float>();
mf_op.run(mf_a, mf_b, mf_acc);
mf_acc.store(mf_c);
"""
STAGED_GEMM = """
    threadgroup half a_tile[64 * 24];
    threadgroup half b_tile[32 * 24];
    threadgroup float c_tile[64 * 36];
    uint lid = thread_index_in_threadgroup;
    uint tm = threadgroup_position_in_grid.y * 64, tn = threadgroup_position_in_grid.x * 32;
    for (uint i = lid; i < 64 * 16; i += 128) {
        uint r = i / 16, c = i % 16;
        a_tile[r * 24 + 8 + c] = tm + r < M ? A[(tm + r) * 16 + c] : half(0);
    }
    for (uint i = lid; i < 32 * 16; i += 128) {
        uint r = i / 16, c = i % 16;
        b_tile[r * 24 + c] = tn + r < N ? Bt[(tn + r) * 16 + c] : half(0);
    }
    BARRIER_BEFORE
    {BLOCK}
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint i = lid; i < 64 * 32; i += 128) {
        uint r = i / 32, c = i % 32;
        if (tm + r < M && tn + c < N) out[(tm + r) * N + tn + c] = c_tile[r * 36 + c];
    }
""".replace("{BLOCK}", "{" + BLOCK + "}")
BARRIER = "threadgroup_barrier(mem_flags::mem_threadgroup);"


def staged_gemm(be, rng, m, n, barrier=True, threads=128):
    a = random_array(rng, (m, 16), mx.float16)
    bt = random_array(rng, (n, 16), mx.float16)
    src = STAGED_GEMM.replace("BARRIER_BEFORE", BARRIER if barrier else "")
    k = kernel("mm_staged" if barrier else "mm_staged_racy", ["A", "Bt"], ["out"], src, be, header=HEADER)
    out = k(inputs=[a, bt], template=[("M", m), ("N", n)], grid=(cdiv(n, 32) * threads, cdiv(m, 64), 1),
            threadgroup=(threads, 1, 1), output_shapes=[(m, n)], output_dtypes=[mx.float32])[0]
    return out, to_np(a) @ to_np(bt).T


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_compiler_block_threadgroup_tiles(rng, schedule):
    """The exact MSL our compiler emits (fp16, transpose_right, cooperative store into threadgroup
    memory), over edge tiles: M and N are not multiples of the 64 x 32 tile."""
    out, expected = staged_gemm(backend(schedule), rng, 100, 70)
    assert_close(out, expected, rtol=1e-5, atol=1e-5, what=schedule)


def test_missing_barrier_before_run_is_exposed(rng):
    """run() orders nothing between threads: without the barrier after staging the tiles, the op
    reads poisoned threadgroup memory under both schedules."""
    for schedule in SCHEDULES:
        out, expected = staged_gemm(backend(schedule), rng, 64, 32, barrier=False)
        assert not np.allclose(to_np(out), expected, rtol=1e-3, atol=1e-3), schedule


# ---- device operands: whole-matrix tensors, sliced per tile ---------------------------------------
# A holds M x K (K x M with transpose_left), B holds K x N (N x K with transpose_right), C0 and out
# are M x N. Each scope (the threadgroup, or each simdgroup with execution_simdgroup) computes one
# TM x TN tile of out.
DEVICE_GEMM = """
    constexpr auto desc = mpp::tensor_ops::matmul2d_descriptor(TM, TN, KDESC, TL, TR, false, mpp::tensor_ops::matmul2d_descriptor::mode::MODE);
    mpp::tensor_ops::matmul2d<desc, SCOPE> op;
    auto tA = metal::tensor<const device TA, metal::dextents<int32_t, 2>, metal::tensor_inline>(A, metal::dextents<int32_t, 2>(TL ? M : K, TL ? K : M));
    auto tB = metal::tensor<const device TB, metal::dextents<int32_t, 2>, metal::tensor_inline>(B, metal::dextents<int32_t, 2>(TR ? K : N, TR ? N : K));
    auto tC0 = metal::tensor<const device TC, metal::dextents<int32_t, 2>, metal::tensor_inline>(C0, metal::dextents<int32_t, 2>(N, M));
    auto tOut = metal::tensor<device TC, metal::dextents<int32_t, 2>, metal::tensor_inline>(out, metal::dextents<int32_t, 2>(N, M), metal::array<int32_t, 2>({1, N}));
    uint tile = threadgroup_position_in_grid.x * TILES_PER_GROUP + (TILES_PER_GROUP > 1 ? simdgroup_index_in_threadgroup : 0);
    int tm = int(tile / TILES_N) * TM, tn = int(tile % TILES_N) * TN;
    auto mA = TL ? tA.slice(tm, 0) : tA.slice(0, tm);
    auto mB = TR ? tB.slice(0, tn) : tB.slice(tn, 0);
    auto mC0 = tC0.slice(tn, tm);
    auto mOut = tOut.slice(tn, tm);
    DESTINATION
"""
DESTINATIONS = {
    # run straight into the output tensor (multiply_accumulate adds to its init_value)
    "tensor": "op.run(mA, mB, mOut);",
    # C0 loaded into a cooperative tensor, run, stored
    "coop_load": """
    auto acc = op.get_destination_cooperative_tensor<decltype(mA), decltype(mB), TC>();
    acc.load(mC0);
    op.run(mA, mB, acc);
    acc.store(mOut);""",
    # the caller's K loop: static k, zeroed cooperative accumulator, the last chunk shorter than k
    "coop_kloop": """
    auto acc = op.get_destination_cooperative_tensor<decltype(mA), decltype(mB), TC>();
    for (uint16_t i = 0; i < acc.get_capacity(); ++i)
        if (acc.is_valid_element(i)) acc[i] = 0;
    for (int k0 = 0; k0 < K; k0 += KDESC) {
        auto kA = TL ? mA.slice(0, k0) : mA.slice(k0, 0);
        auto kB = TR ? mB.slice(k0, 0) : mB.slice(0, k0);
        op.run(kA, kB, acc);
    }
    acc.store(mOut);""",
    # the first K chunk by a mode::multiply op (overwrites the poisoned accumulator), the rest by
    # the multiply_accumulate op, on the same cooperative tensor
    "coop_two_ops": """
    constexpr auto first_desc = mpp::tensor_ops::matmul2d_descriptor(TM, TN, KDESC, TL, TR);
    mpp::tensor_ops::matmul2d<first_desc, SCOPE> first_op;
    auto acc = op.get_destination_cooperative_tensor<decltype(mA), decltype(mB), TC>();
    first_op.run(mA, mB, acc);
    for (int k0 = KDESC; k0 < K; k0 += KDESC) {
        auto kA = TL ? mA.slice(0, k0) : mA.slice(k0, 0);
        auto kB = TR ? mB.slice(k0, 0) : mB.slice(0, k0);
        op.run(kA, kB, acc);
    }
    acc.store(mOut);""",
}
DYNAMIC_K = "static_cast<int>(metal::dynamic_extent)"
CASES = {
    # name: types (A, B, C), transposes, mode, scope simdgroups, simdgroups per threadgroup,
    #       tile, k in the descriptor, destination, (M, N, K)
    "f32_nn_sg4_tensor": ((mx.float32, mx.float32, mx.float32), (0, 0), "multiply", 4, 4, (32, 32), DYNAMIC_K,
                          "tensor", (70, 45, 37)),
    "bf16_tn_sg1x2_coop_acc": ((mx.bfloat16, mx.bfloat16, mx.float32), (1, 0), "multiply_accumulate", 1, 2, (16, 16),
                               "mpp::tensor_ops::dynamic_length_v<int>", "coop_load", (40, 50, 23)),
    "f16_tt_sg1_half_out": ((mx.float16, mx.float16, mx.float16), (1, 1), "multiply", 1, 1, (16, 8), DYNAMIC_K,
                            "tensor", (33, 20, 19)),
    "f16xf32_nt_sg4_kloop": ((mx.float16, mx.float32, mx.float32), (0, 1), "multiply_accumulate", 4, 4, (64, 16), "8",
                             "coop_kloop", (70, 30, 29)),
    "bf16xf16_nn_sg2_tensor_acc": ((mx.bfloat16, mx.float16, mx.bfloat16), (0, 0), "multiply_accumulate", 2, 2, (16, 32),
                                   DYNAMIC_K, "tensor", (24, 40, 16)),
    "f32xbf16_tt_sg1x4_two_ops": ((mx.float32, mx.bfloat16, mx.float32), (1, 1), "multiply_accumulate", 1, 4, (8, 16),
                                  "4", "coop_two_ops", (37, 29, 13)),
}


def device_gemm_source(case):
    (ta, tb, tc), (tl, tr), mode, scope_sg, sg_per_group, (tm, tn), kdesc, dest, _ = case
    scope = "metal::execution_simdgroup" if scope_sg == 1 else f"metal::execution_simdgroups<{scope_sg}>"
    src = DEVICE_GEMM.replace("DESTINATION", DESTINATIONS[dest])
    for key, value in [("TILES_PER_GROUP", str(sg_per_group // scope_sg)), ("KDESC", kdesc), ("MODE", mode),
                       ("SCOPE", scope), ("TL", str(tl)), ("TR", str(tr)), ("TM", str(tm)), ("TN", str(tn)),
                       ("TA", MSL_TYPE[ta]), ("TB", MSL_TYPE[tb]), ("TC", MSL_TYPE[tc])]:
        src = src.replace(key, value)
    return src


@pytest.mark.parametrize("name", list(CASES))
def test_device_operands(emu, rng, name):
    case = CASES[name]
    (ta, tb, tc), (tl, tr), mode, scope_sg, sg_per_group, (tm, tn), _, dest, (m, n, kk) = case
    a = random_array(rng, (kk, m) if tl else (m, kk), ta)
    b = random_array(rng, (n, kk) if tr else (kk, n), tb)
    c0 = random_array(rng, (m, n), tc)
    tiles_n = cdiv(n, tn)
    groups = cdiv(cdiv(m, tm) * tiles_n, sg_per_group // scope_sg)
    init = 0.25 if (dest == "tensor" and mode == "multiply_accumulate") else None
    k = kernel(f"mm_{name}", ["A", "B", "C0"], ["out"], device_gemm_source(case), emu, header=HEADER)
    out = k(inputs=[a, b, c0], template=[("M", m), ("N", n), ("K", kk), ("TILES_N", tiles_n)],
            grid=(groups * 32 * sg_per_group, 1, 1), threadgroup=(32 * sg_per_group, 1, 1),
            output_shapes=[(m, n)], output_dtypes=[tc], init_value=init)[0]
    am, bm = to_np(a), to_np(b)
    expected = (am.T if tl else am) @ (bm.T if tr else bm)
    if dest == "coop_load":
        expected = expected + to_np(c0)
    elif dest in ("coop_kloop", "coop_two_ops"):
        pass  # zeroed, or first overwritten, accumulator
    elif mode == "multiply_accumulate":
        expected = expected + init
    if tc == mx.float32:
        assert_close(out, expected, rtol=1e-5, atol=1e-5, what=name)
    else:  # one rounding of the float sum to the destination type
        assert_close(out, round_to(expected, tc), rtol=1e-2, atol=1e-2, what=name)
        err = np.abs(to_np(out) - expected)
        ulp = np.abs(expected) * (2.0 ** -10 if tc == mx.float16 else 2.0 ** -7) + 1e-6
        assert np.all(err <= ulp), f"{name}: more than one rounding ({err.max()})"


# ---- the cooperative tensor's layout and accessors ---------------------------------------------------
LAYOUT = """
    constexpr auto desc = mpp::tensor_ops::matmul2d_descriptor(20, 30, 8);
    mpp::tensor_ops::matmul2d<desc, metal::execution_simdgroups<4>> op;
    auto tA = metal::tensor<const device float, metal::dextents<int32_t, 2>, metal::tensor_inline>(x, metal::dextents<int32_t, 2>(8, 20));
    auto ct = op.get_destination_cooperative_tensor<decltype(tA), decltype(tA), float>();
    uint t = thread_index_in_threadgroup;
    int valid = 0, iterated = 0;
    for (uint16_t i = 0; i < ct.get_capacity(); ++i) {
        auto ix = ct.get_multidimensional_index(i);
        index[t * 8 + i] = ct.is_valid_element(i) ? ix[1] * 30 + ix[0] : -1;
        if (ct.is_valid_element(i)) { ct[i] = float(t * 16 + i); valid++; }
    }
    for (auto it = ct.begin(); it != ct.end(); ++it) iterated++;
    counts[t * 3] = ct.get_capacity();
    counts[t * 3 + 1] = valid;
    counts[t * 3 + 2] = iterated;
    ct.store(metal::tensor<device float, metal::dextents<int32_t, 2>, metal::tensor_inline>(full, metal::dextents<int32_t, 2>(30, 20)));
    ct.store(metal::tensor<device float, metal::dextents<int32_t, 2>, metal::tensor_inline>(edge, metal::dextents<int32_t, 2>(25, 17)));
"""


def test_cooperative_tensor_layout(emu):
    """The documented mapping: thread t, slot i holds element e = i * 128 + t of the 20 x 30 tile
    (row e / 30, column e % 30); stores write valid elements inside the tensor's extents only."""
    k = kernel("coop_layout", ["x"], ["index", "counts", "full", "edge"], LAYOUT, emu, header=HEADER)
    index, counts, full, edge = k(
        inputs=[mx.zeros((160,))], grid=(128, 1, 1), threadgroup=(128, 1, 1),
        output_shapes=[(128 * 8,), (128 * 3,), (20, 30), (17, 25)],
        output_dtypes=[mx.int32, mx.int32, mx.float32, mx.float32])
    index, counts = to_np(index, np.int64).reshape(128, 8), to_np(counts, np.int64).reshape(128, 3)
    t = np.arange(128)
    np.testing.assert_array_equal(counts[:, 0], 5)                       # ceil(600 / 128)
    np.testing.assert_array_equal(counts[:, 1], np.where(t < 600 - 4 * 128, 5, 4))
    np.testing.assert_array_equal(counts[:, 2], 5)
    for i in range(5):
        e = i * 128 + t
        np.testing.assert_array_equal(index[:, i], np.where(e < 600, e, -1))
    e = np.arange(600)
    expected = ((e % 128) * 16 + e // 128).astype(np.float64).reshape(20, 30)
    np.testing.assert_array_equal(to_np(full), expected)
    np.testing.assert_array_equal(to_np(edge), expected[:17, :25])


# ---- errors --------------------------------------------------------------------------------------------
def test_wrong_threadgroup_size_is_reported(emu, rng):
    with pytest.raises(LaunchConfigError, match=r"execution_simdgroups<4>.*exactly 128 threads.*has 64"):
        staged_gemm(emu, rng, 64, 32, threads=64)


def test_lane_skipping_run_is_reported(emu, rng):
    src = device_gemm_source(CASES["f16_tt_sg1_half_out"]).replace(
        "op.run(", "if (thread_index_in_simdgroup == 5) return;\n    op.run(")
    k = kernel("mm_diverged", ["A", "B", "C0"], ["out"], src, emu, header=HEADER)
    m, n, kk = 16, 8, 8
    args = [random_array(rng, s, mx.float16) for s in ((kk, m), (n, kk), (m, n))]
    with pytest.raises(SimdDivergenceError, match=r"matmul2d::run.*all 32 lanes.*0xffffffdf"):
        k(inputs=args, template=[("M", m), ("N", n), ("K", kk), ("TILES_N", 1)], grid=(32, 1, 1),
          threadgroup=(32, 1, 1), output_shapes=[(m, n)], output_dtypes=[mx.float16])


COMPILE_ERRORS = {
    "threadgroup_tensor_from_device_pointer": (
        "auto t = metal::tensor<threadgroup half, metal::dextents<int32_t, 2>, metal::tensor_inline>("
        "(device half*)out, metal::dextents<int32_t, 2>(4, 4));",
        "no matching constructor"),
    "float_operands_half_destination": (
        """constexpr auto desc = mpp::tensor_ops::matmul2d_descriptor(8, 8, 8);
        mpp::tensor_ops::matmul2d<desc, metal::execution_simdgroup> op;
        auto a = metal::tensor<const device float, metal::dextents<int32_t, 2>, metal::tensor_inline>(x, metal::dextents<int32_t, 2>(8, 8));
        auto c = metal::tensor<device half, metal::dextents<int32_t, 2>, metal::tensor_inline>((device half*)out, metal::dextents<int32_t, 2>(8, 8));
        op.run(a, a, c);""",
        "unsupported element types"),
    "rank_3_operand": (
        """constexpr auto desc = mpp::tensor_ops::matmul2d_descriptor(8, 8, 8);
        mpp::tensor_ops::matmul2d<desc, metal::execution_simdgroup> op;
        auto a = metal::tensor<const device float, metal::dextents<int32_t, 3>, metal::tensor_inline>(x, metal::dextents<int32_t, 3>(8, 8, 1));
        auto c = metal::tensor<device float, metal::dextents<int32_t, 2>, metal::tensor_inline>(out, metal::dextents<int32_t, 2>(8, 8));
        op.run(a, a, c);""",
        "rank-2 tensors"),
}


@pytest.mark.parametrize("name", list(COMPILE_ERRORS))
def test_rejected_at_compile_time(emu, name):
    body, message = COMPILE_ERRORS[name]
    k = kernel(f"tensor_{name}", ["x"], ["out"], body, emu, header=HEADER)
    with pytest.raises(KernelCompileError, match="does not compile") as info:
        k(inputs=[mx.zeros((64,))], grid=(32, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(64,)],
          output_dtypes=[mx.float32])
    assert message in str(info.value), str(info.value)
