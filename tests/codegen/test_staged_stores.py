"""A `tl.store` of a dot's fragments through shared memory (`Target.staged_fragment_stores`, CUDA):
each thread then writes whole rows' vectors (16 bytes) instead of a fragment's pairs, and a finished
K loop's buffers give the staged tile their bytes (`Lowering.release_shared`).

The CUDA code is checked here by its facts and by NVRTC; its results by the GPU run
(benchmarks/wgmma_probe.py, dot_bench.py). The lowering is the same on every target, so the emulator
proves it on Metal with the target fact switched on (Metal itself keeps Steel's direct stores)."""
from __future__ import annotations

import dataclasses
import re

import mlx.core as mx
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.codegen import target as targets
from metalforge.errors import SharedMemoryLimitError
from metalforge.kernels.matmul import matmul_kernel

from ..kernels.test_library import DOT_TOL, close, f64, normal
from .nvrtc import nvrtc_missing, to_ptx
from .test_cuda_render import compiled_source


@mf.jit
def k_product(a_ptr, b_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    """A (M x K) @ B (K x N), row-major, BK of K a step, whole tiles: the accumulator."""
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    return acc


@mf.jit
def biased_product(a_ptr, b_ptr, bias_ptr, o_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """o = (a @ b + bias) rounded to o's type, tiles that need every mask at odd sizes."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :]
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], acc.to(o_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_a_fragment_store_goes_out_in_16_byte_row_vectors_on_cuda():
    """The library matmul (64x64x32, 4 warps, mma.sync): the result's device stores are 16-byte
    vectors (8 of them a thread), written from shared memory read 16 bytes at a time after the
    fragments' 4-byte pair writes; the tile takes the operands' bytes (no more shared memory)."""
    a = mx.zeros((1,), mx.float16)
    c = matmul_kernel.fn.compile(a, a, mf.empty((4096, 4096), mx.float16), 4096, 4096, 4096, BLOCK_M=64,
                                 BLOCK_N=64, BLOCK_K=32, GROUP_M=8, num_warps=4, num_stages=2, target="cuda")
    assert c.facts.stores == {16: 4}
    assert c.shared_bytes == 2 * (64 * 40 + 32 * 72) * 2
    assert "const mf_vec<8, __half> mf_v = *reinterpret_cast<const mf_vec<8, __half>*>((t_" in c.body
    assert "*reinterpret_cast<mf_vec<2, __half>*>((t_" in c.body
    if nvrtc_missing() is None:
        assert ".entry" in to_ptx(compiled_source(c))


def test_metal_keeps_the_fragments_direct_stores():
    a = mx.zeros((1,), mx.float16)
    c = matmul_kernel.fn.compile(a, a, mf.empty((4096, 4096), mx.float16), 4096, 4096, 4096, BLOCK_M=64,
                                 BLOCK_N=64, BLOCK_K=32, GROUP_M=8, num_warps=4, num_stages=2, target="msl")
    assert "const threadgroup" not in c.body and set(c.facts.stores) == {2}


@pytest.mark.parametrize("m,n,k,dtype,out", [(70, 200, 72, mx.float16, mx.float16),
                                             (33, 136, 40, mx.bfloat16, mx.float32),
                                             (64, 64, 32, mx.float16, mx.float16)])
def test_staged_stores_are_right_on_the_emulator(rng, monkeypatch, m, n, k, dtype, out):
    """The lowering with the target fact on Metal, run: partial row, column and K tiles (n a multiple
    of the 4-element vector, so the staged path is taken), a bias added in the fragments' layout,
    every element written once (the output is poisoned)."""
    monkeypatch.setitem(targets.TARGETS, "msl", dataclasses.replace(targets.METAL, staged_fragment_stores=True))
    a, b, bias = normal(rng, (m, k), dtype), normal(rng, (k, n), dtype), normal(rng, (n,), mx.float32)
    settings = dict(BM=32, BN=64, BK=16, num_warps=4, num_stages=2)
    staged = biased_product.compile(a, b, bias, mf.empty((m, n), out), m, n, k, **settings, target="msl")
    assert "const threadgroup packed_" in staged.body and set(staged.facts.stores) == {4 * out.size}
    poisoned = mf.full((m, n), float("nan"), out)
    got = biased_product[(mf.cdiv(m, 32), mf.cdiv(n, 64))](a, b, bias, poisoned, m, n, k, **settings)
    close(got, mx.array(f64(a) @ f64(b) + f64(bias)[None, :]), DOT_TOL[out])  # the inputs are exact: its rounding


# ---- from the review: where the staging or the reuse must step aside ------------------------------
@mf.jit
def product_if(a_ptr, b_ptr, bias_ptr, o_ptr, K, flag, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    bias = tl.load(bias_ptr + rn)  # converted where it is defined, before the `if`
    acc = tl.zeros((M, N), dtype=tl.float32)
    if flag > 0:
        acc = k_product(a_ptr, b_ptr, K, M, N, BK) + bias[None, :]
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], acc)


def test_a_conversion_hoisted_before_the_loop_keeps_bytes_of_its_own():
    """`bias[None, :]` read after a K loop inside an `if`: its conversion is emitted before the `if`
    (where bias is defined), so before the loop runs, and must not take the loop's released bytes
    (from the review: the rings' copies overwrote it). It sits after the rings (64 x 40 and 32 x 72
    halves, two buffers each); the result, stored after the `if`, may take their place."""
    z = mx.zeros((1,), mx.float16)
    c = product_if.compile(z, z, mx.zeros((1,), mx.float32), mf.empty((64, 64), mx.float32), 256, 1, M=64, N=64,
                           BK=32, num_warps=4, num_stages=2, target="cuda")
    offsets = dict(re.findall(r"(\w+)_smem = reinterpret_cast<[^>]*>\(mf_shared \+ (\d+)\)", c.body))
    assert int(offsets["bias_1"]) == 2 * (64 * 40 + 32 * 72) * 2 and set(c.facts.stores) == {16}


@mf.jit
def product_stored_if(a_ptr, b_ptr, o_ptr, K, flag, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    h = k_product(a_ptr, b_ptr, K, M, N, BK).to(tl.float16)
    if flag > 0:  # h is converted where it is defined: after the loop, in the loop's block
        tl.store(o_ptr + rm[:, None] * N + rn[None, :], h)


def test_a_conversion_hoisted_after_the_loop_takes_its_bytes():
    """The result stored under an `if` is staged where it is defined, after the K loop in the same
    block, so it may take the rings' bytes as an unconditional store does (from the second review:
    it took new bytes, 142336 in all, one 8-warp program an SM instead of two)."""
    z = mx.zeros((1,), mx.float16)
    c = product_stored_if.compile(z, z, mf.empty((128, 128), mx.float16), 256, 1, M=128, N=128, BK=64,
                                  num_warps=8, num_stages=3, target="cuda")
    offsets = dict(re.findall(r"(\w+)_smem = reinterpret_cast<[^>]*>\(mf_shared \+ (\d+)\)", c.body))
    assert offsets["h_1"] == "0" and c.shared_bytes == 3 * (128 * 72 + 64 * 136) * 2
    assert set(c.facts.stores) == {16}


@mf.jit
def products_per_row(a_ptr, b_ptr, o_ptr, K, R, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    for r in range(0, R):
        acc = k_product(a_ptr + r * M * K, b_ptr, K, M, N, BK)
        tl.store(o_ptr + r * M * N + rm[:, None] * N + rn[None, :], acc.to(o_ptr.dtype.element_ty))


def test_spare_buffers_come_before_a_staged_store():
    """A K loop inside another loop keeps its ring (no bytes are released) and has no room for both
    its spare buffer and a staged result: it keeps the spares (products left running), as before
    staged stores, and writes the fragments directly (from the review: it had lost both)."""
    z = mx.zeros((1,), mx.float16)
    c = products_per_row.compile(z, z, mf.empty((128, 256), mx.float16), 256, 2, M=128, N=256, BK=64, num_warps=8,
                                 num_stages=3, target="cuda", wgmma=True)
    assert '"n"(1)' in c.body and set(c.facts.stores) == {2}
    assert c.shared_bytes == 4 * (128 * 64 + 64 * 256) * 2 + 1008


@mf.jit
def product_stores(a_ptr, b_ptr, o_ptr, o2_ptr, cnt_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr,
                   COUNT: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    h = k_product(a_ptr, b_ptr, K, M, N, BK).to(tl.float16)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], h)
    tl.store(o2_ptr + rm[:, None] * N + rn[None, :], h)
    if COUNT:
        tl.atomic_add(cnt_ptr, 1)


@pytest.mark.parametrize("count", [False, True])
def test_a_value_stored_twice_is_staged_once_and_atomics_write_elements(count):
    """Both stores of one result read the one staged tile (from the review: the second wrote the
    fragments); a kernel with atomics, whose outputs MLX makes atomic (element by element), stores
    the fragments directly: staging would buy nothing but two barriers."""
    z = mx.zeros((1,), mx.float16)
    c = product_stores.compile(z, z, mf.empty((128, 128), mx.float16), mf.empty((128, 128), mx.float16),
                               mf.empty((1,), mx.int32), 256, M=128, N=128, BK=64, COUNT=count, num_warps=8,
                               num_stages=3, target="cuda")
    assert c.facts.stores == ({2: 128} if count else {16: 16})
    # each store's rows read from h's one tile (`h_1`), in each copy of the body (aligned_vectors.py)
    assert c.body.count("*reinterpret_cast<const mf_vec<8, __half>*>((h_1_smem") == (0 if count else 2 * 2)
    assert c.body.count("h_1_smem = ") == (0 if count else 1)


@mf.jit
def two_products(a_ptr, b_ptr, c_ptr, d_ptr, o1_ptr, o2_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    acc1 = k_product(a_ptr, b_ptr, K, M, N, BK)
    acc2 = k_product(c_ptr, d_ptr, K, M, N, BK)  # its tiles in the first loop's bytes
    tl.store(o1_ptr + rm[:, None] * N + rn[None, :], acc1.to(tl.float16))
    tl.store(o2_ptr + rm[:, None] * N + rn[None, :], acc2.to(tl.float16))


@pytest.mark.parametrize("kernel", ["two products", "bias before an if"])
def test_reused_bytes_hold_the_right_values_on_the_emulator(rng, monkeypatch, kernel):
    """The reuse run, on Metal with its arrays placed at offsets of one threadgroup buffer (the MSL
    renderer's spelling of `Target.shared_at_offsets`; Metal itself keeps separate arrays, this
    spelling unverified on Apple's compiler) and staged stores: two K loops one after the other (the
    second's tiles and both results take the first's bytes), and a bias converted before an `if`
    holding the loop (kept out of the loop's bytes: with them, the loop's tiles overwrite it). What
    this checks is that no two arrays in use share bytes; the barriers are the review's and the GPU
    runs' to check (the emulator does not look for races in threadgroup memory)."""
    monkeypatch.setitem(targets.TARGETS, "msl", dataclasses.replace(targets.METAL, staged_fragment_stores=True,
                                                                    shared_at_offsets=True))
    M, N, K, BK = 32, 64, 48, 16
    a, b, c, d = (normal(rng, shape, mx.float16) for shape in ((M, K), (K, N), (M, K), (K, N)))
    poisoned = lambda dtype: mf.full((M, N), float("nan"), dtype)  # noqa: E731
    if kernel == "two products":
        fn, args, want = two_products, (a, b, c, d, poisoned(mx.float16), poisoned(mx.float16), K), \
            [f64(a) @ f64(b), f64(c) @ f64(d)]
    else:
        bias = normal(rng, (N,), mx.float32)
        fn, args, want = product_if, (a, b, bias, poisoned(mx.float32), K, 1), [f64(a) @ f64(b) + f64(bias)[None, :]]
    settings = dict(M=M, N=N, BK=BK, num_warps=4, num_stages=2)
    source = fn.compile(*args, **settings, target="msl").body
    offsets = re.findall(r"\(threadgroup \w+\*\)\(mf_shared \+ (\d+)\)", source)
    assert len(offsets) > len(set(offsets)) or kernel != "two products"  # arrays took others' bytes
    got = fn[(1,)](*args, **settings)
    for g, w in zip(got if isinstance(got, (list, tuple)) else [got], want):
        close(g, mx.array(w), DOT_TOL[g.dtype])


def test_a_kernel_that_fits_no_way_still_names_itself_and_the_fix():
    """Every fallback (no staged stores, no spares, neither) over CUDA's 227 KiB: the last lowering's
    error goes out, naming the kernel, its line and the fix."""
    z = mx.zeros((1,), mx.float16)
    expected = r"(?s)products_per_row.*more than the 232448 a CUDA.*fewer num_stages"
    with pytest.raises(SharedMemoryLimitError, match=expected):
        products_per_row.compile(z, z, mf.empty((256, 256), mx.float16), 1024, 2, M=256, N=256, BK=128, num_warps=8,
                                 num_stages=4, target="cuda", wgmma=True)
