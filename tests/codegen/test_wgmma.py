"""`wgmma=True`: `tl.dot` on Hopper's warpgroup MMA (codegen/lowering/dot.py `lower_warpgroup_dot`).
No GPU here: the CUDA compiles for sm_90a as MLX's NVRTC compiles it and ptxas judges registers and
spills; the swizzled layout the copies write is checked against the 128-byte swizzle the hardware
reads (CUTLASS's Swizzle<3,4,3> on byte addresses); dots the path cannot take keep mma.sync; the
setting is refused where the target lacks it, and an sm_90a module is only built for an sm_90 GPU.
Whether the products are right is the GPU's to say (benchmarks/wgmma_probe.py, docs/dot.md)."""
from __future__ import annotations

import json
import re

import mlx.core as mx
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.autotune import Config
from metalforge.codegen.layouts import lit
from metalforge.codegen.lir import Bin, Lit
from metalforge.codegen.lowering.core import swizzled_index
from metalforge.errors import LaunchConfigError
from metalforge.kernels.matmul import matmul_kernel
from metalforge.runtime import cuda, nvrtc
from metalforge.runtime.kernel import MetalKernel
from metalforge.tuning_db.rows import config_problem

from .nvrtc import nvrtc_missing, ptxas, resources, to_ptx
from .test_cuda_render import compiled_source
from .test_staged_stores import k_product


def compile_matmul(bm: int, bn: int, bk: int, warps: int, stages: int, target: str = "cuda", **settings):
    a = mx.zeros((1,), mx.float16)
    return matmul_kernel.fn.compile(a, a, mf.empty((4096, 4096), mx.float16), 4096, 4096, 4096, BLOCK_M=bm,
                                    BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=stages,
                                    target=target, **settings)


def evaluate(e) -> int:
    if isinstance(e, Lit):
        return e.value
    ops = {"+": int.__add__, "*": int.__mul__, "/": int.__floordiv__, "%": int.__mod__, "^": int.__xor__}
    assert isinstance(e, Bin), e
    return ops[e.op](evaluate(e.a), evaluate(e.b))


@pytest.mark.parametrize("rows,cols", [(64, 64), (128, 64), (64, 256)])
def test_the_swizzled_tile_is_the_layout_wgmma_reads(rows, cols):
    """Element (r, c) of a 2-byte tile: columns in blocks of 64 (`rows` x 128 bytes each), inside a
    block the row-major byte address with bits 4-6 xor bits 7-9, as the 128-byte swizzle mode of a
    wgmma descriptor reads a 1024-byte aligned tile; every element a place of its own."""
    seen = set()
    for r in range(rows):
        for c in range(cols):
            place = evaluate(swizzled_index([lit(r), lit(c)], (rows, cols)))
            linear = r * 128 + (c % 64) * 2
            want = (c // 64) * rows * 128 + (linear ^ (((linear >> 7) & 7) << 4))
            assert place * 2 == want, (r, c)
            seen.add(place)
    assert seen == set(range(rows * cols))


@pytest.mark.skipif(nvrtc_missing() is not None or ptxas() is None, reason="NVRTC or ptxas is not installed")
@pytest.mark.parametrize("bm,bn,warps,stages", [(128, 256, 8, 3), (128, 128, 4, 4), (64, 128, 4, 3), (64, 128, 4, 2)])
def test_matmul_on_wgmma_compiles_for_sm90a_without_spills(bm, bn, warps, stages):
    """Per K step of 64, 4 wgmma a 64-row slice (two slices a warpgroup at 128 rows on 4 warps), in
    both the aligned and the element-wise copy of the kernel; no mma.sync or ldmatrix; the operands
    staged without padding (+1008 bytes to align the ring to 1024) in a ring of one buffer more than
    the stages, whose products run on into the next K step (`wait_group 1`) and are all waited for
    after the loop; ptxas neither spills nor serialises the wgmma (as it does where a read of the
    accumulators comes before their wait)."""
    c = compile_matmul(bm, bn, 64, warps, stages, wgmma=True)
    slices = bm // (16 * warps)
    assert c.body.count(f"mf_wgmma_m64n{bn}k16_f16_tb(") == 2 * 4 * slices
    assert "mf_mma_m16n8k16(" not in c.body and "mf_ldmatrix" not in c.body
    assert f"wgmma.mma_async.sync.aligned.m64n{bn}k16.f32.f16.f16" in c.header
    assert c.shared_bytes == (stages + 1) * (bm * 64 + 64 * bn) * 2 + 1008
    # in the loop and after it: the aligned copy leaves each step's products running, the element-wise
    # copy (its accumulators in local memory) waits for them in the step; the waits after the loops hold them
    waits = [line.strip() for line in c.body.splitlines() if "wgmma.wait_group" in line]
    assert [w.count('"n"(1)') for w in waits] == [1, 0, 0, 0], waits
    assert c.body.count("mf_wgmma_hold(") == 2
    copies_waited = [int(n) for n in re.findall(r"mf_cp_async_wait<(\d+)>", c.body)]
    assert copies_waited == [stages - 2, 0] * 2, copies_waited  # stages - 1 tiles ahead: all but the newest
    assert c.body.count("fence.proxy.async.shared::cta") == 2  # before the barrier after each iteration's wait
    ptx = to_ptx(compiled_source(c), arch="sm_90a")
    used = resources(ptx, arch="sm_90a")
    assert (used.spill_stores, used.spill_loads) == (0, 0) and used.registers <= 255, used
    assert "serializ" not in used.log.lower(), used.log


@pytest.mark.parametrize("settings,why", [
    (dict(bm=128, bn=128, bk=32, warps=8, stages=3), "K step 32: half a swizzle row"),
    (dict(bm=64, bn=128, bk=64, warps=8, stages=3), "64 rows on 8 warps: not 16 rows a warp"),
    (dict(bm=64, bn=32, bk=64, warps=4, stages=3), "N 32: not a whole 64-column block"),
    (dict(bm=64, bn=64, bk=64, warps=2, stages=3), "2 warps: no warpgroup")])
def test_dots_wgmma_cannot_take_keep_mma_sync(settings, why):
    c = compile_matmul(settings["bm"], settings["bn"], settings["bk"], settings["warps"], settings["stages"],
                       wgmma=True)
    assert "mf_wgmma" not in c.body and "mf_mma_m16n8k16(" in c.body, why
    assert c.body == compile_matmul(settings["bm"], settings["bn"], settings["bk"], settings["warps"],
                                    settings["stages"]).body


@mf.jit
def two_dots(a_ptr, b_ptr, c_ptr, o1_ptr, o2_ptr, K: tl.constexpr, N1: tl.constexpr, N2: tl.constexpr,
             M: tl.constexpr):
    rm, rk, r1, r2 = tl.arange(0, M), tl.arange(0, K), tl.arange(0, N1), tl.arange(0, N2)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    tl.store(o1_ptr + rm[:, None] * N1 + r1[None, :], tl.dot(a, tl.load(b_ptr + rk[:, None] * N1 + r1[None, :])))
    tl.store(o2_ptr + rm[:, None] * N2 + r2[None, :], tl.dot(a, tl.load(c_ptr + rk[:, None] * N2 + r2[None, :])))


@mf.jit
def viewed_operands(a_ptr, b_ptr, o_ptr, K: tl.constexpr, N: tl.constexpr, M: tl.constexpr, BROADCAST: tl.constexpr):
    rm, rk, rn = tl.arange(0, M), tl.arange(0, K), tl.arange(0, N)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    if BROADCAST:
        b = tl.broadcast_to((tl.load(b_ptr + rk) * 2.0)[:, None], (K, N))
    else:
        b = tl.reshape(tl.load(b_ptr + tl.arange(0, K * N)), (K, N))
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("stages", [1, 3])
def test_a_tile_two_dots_read_differently_keeps_one_layout(stages):
    """`a` feeds a dot wgmma can take (N 64) and one it cannot (N 32): one tile has one layout in
    shared memory, so both keep mma.sync (from an independent review: the compile failed)."""
    z = mx.zeros((1,), mx.float16)
    args = (z, z, z, mf.empty((64, 64), mx.float32), mf.empty((64, 32), mx.float32))
    settings = dict(K=64, N1=64, N2=32, M=64, num_warps=4, num_stages=stages, target="cuda")
    body = two_dots.compile(*args, **settings, wgmma=True).body
    assert "mf_wgmma" not in body and body == two_dots.compile(*args, **settings).body


@mf.jit
def times_transposed(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    rm, rn, rk = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N), tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K),
                    other=0.0)
        b = tl.load(b_ptr + rn[:, None] * K + (k0 + rk)[None, :], mask=(rn[:, None] < N) & ((k0 + rk)[None, :] < K),
                    other=0.0)
        acc = tl.dot(a, tl.trans(b), acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_a_transposed_b_is_read_k_major():
    """`a @ tl.trans(b)` with b an (N, K) tile: wgmma reads b's swizzled tile K-major (no
    `imm-trans-b`), as A: per K step of 16 the descriptor starts 32 bytes further along the row, and
    the second 64-column block N * 64 elements on (leading offset 16, stride 1024); its products run on
    (both operands arrive by cp.async); sm_90a compiles it without serialising."""
    z = mx.zeros((1,), mx.float16)
    c = times_transposed.compile(z, z, mf.empty((128, 64), mx.float32), 128, 64, 256, BLOCK_M=128, BLOCK_N=64,
                                 BLOCK_K=128, num_warps=8, num_stages=2, target="cuda", wgmma=True)
    calls = [line.strip() for line in c.body.splitlines() if "mf_wgmma_m64n" in line]
    assert len(calls) == 2 * 8 and all(call.startswith("mf_wgmma_m64n64k16_f16(") for call in calls)
    b_starts = []
    for call in calls[:8]:  # the aligned copy's K step
        b_desc = call.split("mf_wgmma_desc(")[2]
        assert b_desc.endswith(", 16, 1024));"), b_desc
        found = re.search(r"\+ (\d+)\)\), 16, 1024\)\);$", b_desc)
        b_starts.append(int(found.group(1)) if found else 0)
    assert b_starts == [0, 16, 32, 48, 64 * 64, 64 * 64 + 16, 64 * 64 + 32, 64 * 64 + 48]
    assert c.body.count('"n"(1)') == 1 and c.shared_bytes == 3 * (128 * 128 + 64 * 128) * 2 + 1008
    if nvrtc_missing() is None and ptxas() is not None:
        used = resources(to_ptx(compiled_source(c), arch="sm_90a"), arch="sm_90a")
        assert "serializ" not in used.log.lower() and (used.spill_stores, used.spill_loads) == (0, 0), used.log


@mf.jit
def read_in_loop(a_ptr, b_ptr, o_ptr, m_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr,
                 DECAY: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    top = tl.zeros((M,), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        if DECAY:
            acc = acc * 0.5 + tl.dot(a, b)
        else:
            acc = tl.dot(a, b, acc)
            top = tl.maximum(top, tl.max(acc, 1))
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], acc)
    tl.store(m_ptr + rm, top)


@pytest.mark.parametrize("decay", [True, False])
def test_a_product_read_in_its_loop_is_waited_for_in_its_step(decay):
    """The accumulator is read in the loop (`acc * 0.5`, or the running maximum of the in-place
    product, from the review): the products cannot run on into the next step, so each step waits
    for them and the ring has no spare buffer."""
    z = mx.zeros((1,), mx.float16)
    c = read_in_loop.compile(z, z, mf.empty((64, 64), mx.float32), mf.empty((64,), mx.float32), 256, M=64, N=64,
                             BK=64, DECAY=decay, num_warps=4, num_stages=3, target="cuda", wgmma=True)
    assert c.body.count("mf_wgmma_m64n64k16_f16_tb(") == 2 * 4
    waits = [line.strip() for line in c.body.splitlines() if "wgmma.wait_group" in line]
    assert waits and all('"n"(0)' in w for w in waits) and c.body.count("mf_wgmma_hold(") == len(waits)
    assert c.shared_bytes == 3 * (64 * 64 + 64 * 64) * 2 + 1008


def test_a_ring_without_room_for_its_spare_waits_in_each_step():
    """128x256x64 at 4 stages is 193 KB; a spare buffer would make it 241 KB, over Hopper's 227 KB:
    it compiles as before, its products waited for in each step (from the review: it failed)."""
    c = compile_matmul(128, 256, 64, 8, 4, wgmma=True)
    assert c.shared_bytes == 4 * (128 * 64 + 64 * 256) * 2 + 1008
    assert all('"n"(0)' in line for line in c.body.splitlines() if "wgmma.wait_group" in line)
    assert set(c.facts.stores) == {16}  # the result still goes out through the ring's bytes, 16 a thread


@mf.jit
def two_products(a_ptr, b_ptr, c_ptr, d_ptr, o1_ptr, o2_ptr, K, M1: tl.constexpr, N1: tl.constexpr,
                 M2: tl.constexpr, N2: tl.constexpr, BK: tl.constexpr):
    k_loop_product(a_ptr, b_ptr, o1_ptr, K, M1, N1, BK)
    k_loop_product(c_ptr, d_ptr, o2_ptr, K, M2, N2, BK)


@mf.jit
def two_products_per_row(a_ptr, b_ptr, c_ptr, d_ptr, o1_ptr, o2_ptr, K, R, M1: tl.constexpr, N1: tl.constexpr,
                         M2: tl.constexpr, N2: tl.constexpr, BK: tl.constexpr):
    for r in range(0, R):
        two_products(a_ptr, b_ptr, c_ptr, d_ptr, o1_ptr, o2_ptr, K, M1, N1, M2, N2, BK)


PRODUCTS = dict(M1=128, N1=128, M2=64, N2=256, BK=64, num_warps=4, num_stages=3, target="cuda", wgmma=True)


def test_a_finished_loops_bytes_are_taken_by_the_next():
    """Two K loops, one after the other: the first's result (128 x 132 floats, staged through shared
    memory) takes the first's rings' bytes (128 KB with spares), the second's rings (160 KB with
    spares) follow it over the rest, and its result takes theirs: both loops keep their spare
    buffers (products left running: the aligned copy of the body) and 16-byte stores in 227 KB
    (441 KB without reuse)."""
    z = mx.zeros((1,), mx.float16)
    c = two_products.compile(z, z, z, z, mf.empty((128, 128), mx.float32), mf.empty((64, 256), mx.float32), 1024,
                             **PRODUCTS)
    assert c.shared_bytes == 128 * 132 * 4 + 4 * (64 * 64 + 64 * 256) * 2 + 1008
    assert sum('"n"(1)' in line for line in c.body.splitlines()) == 2 and set(c.facts.stores) == {16}


def test_spares_and_staged_stores_that_do_not_fit_the_whole_kernel_are_dropped():
    """The same two K loops inside another loop, so neither's bytes are free for the other: their
    rings fit (222192 bytes), not with spare buffers, nor with the results staged through shared
    memory (from the second review: spares failed): lowered again without spares, then without
    staged stores (written from the fragments, 4 bytes an access)."""
    z = mx.zeros((1,), mx.float16)
    c = two_products_per_row.compile(z, z, z, z, mf.empty((128, 128), mx.float32), mf.empty((64, 256), mx.float32),
                                     1024, 2, **PRODUCTS)
    assert c.shared_bytes == 222192 and '"n"(1)' not in c.body and set(c.facts.stores) == {4}


@mf.jit
def k_loop_product(a_ptr, b_ptr, o_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], k_product(a_ptr, b_ptr, K, M, N, BK))


@mf.jit
def nested_products(a_ptr, b_ptr, o_ptr, K, R, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    for r in range(0, R):
        k_loop_product(a_ptr + r * M * K, b_ptr, o_ptr + r * M * N, K, M, N, BK)


@mf.jit
def products_in_a_while(a_ptr, b_ptr, o_ptr, K, R, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    r = 0
    while r < R:
        k_loop_product(a_ptr + r * M * K, b_ptr, o_ptr + r * M * N, K, M, N, BK)
        r += 1


@pytest.mark.parametrize("kernel", [nested_products, products_in_a_while], ids=["for", "while"])
@pytest.mark.parametrize("wgmma", [False, True])
def test_an_inner_ring_is_refilled_only_after_every_warp_is_done_with_it(kernel, wgmma):
    """A K loop inside another loop (`for` or `while`): its ring's prologue copies for the next outer
    iteration wait for a barrier after the inner loop, so no warp (group) still reading the last
    buffers has them overwritten (from the reviews: a race on 8 warps, mma.sync and wgmma alike)."""
    z = mx.zeros((1,), mx.float16)
    c = kernel.compile(z, z, mf.empty((128, 64), mx.float32), 256, 2, M=128, N=64, BK=64, num_warps=8,
                       num_stages=3, target="cuda", wgmma=wgmma)
    # after the inner loop (in both copies of the body), before the outer loop goes round to its prologue
    assert len(re.findall(r"mf_cp_async_wait<0>\(\);\s*__syncthreads\(\);", c.body)) == 2
    # a K loop in no other loop: the barriers of its step and of the result staged through the
    # ring's bytes (before the fragments' writes, before the rows' reads), none more
    assert compile_matmul(128, 128, 64, 8, 3).facts.barriers == 3


@pytest.mark.parametrize("broadcast", [False, True])
def test_an_operand_that_is_a_view_keeps_mma_sync(broadcast):
    """A reshaped or broadcast operand is not the swizzled tile a descriptor reads (from the review:
    the compile failed an assertion, and under `python -O` would have read a row-major tile)."""
    z = mx.zeros((1,), mx.float16)
    settings = dict(K=64, N=64, M=64, BROADCAST=broadcast, num_warps=4, num_stages=1, target="cuda")
    body = viewed_operands.compile(z, z, mf.empty((64, 64), mx.float32), **settings, wgmma=True).body
    assert "mf_wgmma" not in body
    assert body == viewed_operands.compile(z, z, mf.empty((64, 64), mx.float32), **settings).body


def test_wgmma_is_refused_where_the_target_lacks_it():
    with pytest.raises(LaunchConfigError, match=r"matmul_kernel: wgmma=True is Hopper's warpgroup MMA \(CUDA\), "
                                                r"which the msl target does not have; drop wgmma"):
        compile_matmul(128, 128, 64, 8, 3, target="msl", wgmma=True)


def test_an_sm90a_module_is_built_for_sm90_only(monkeypatch):
    wgmma = MetalKernel("k", ["a"], ["b"], "b[0] = a[0];", header="// wgmma.mma_async.sync.aligned.m64n64k16")
    plain = MetalKernel("k", ["a"], ["b"], "b[0] = a[0];")
    monkeypatch.setattr(nvrtc, "device_architecture", lambda device=0: "sm_90")
    assert cuda._architecture(wgmma) == "sm_90a" and cuda._architecture(plain) is None
    monkeypatch.setattr(nvrtc, "device_architecture", lambda device=0: "sm_80")
    assert cuda._architecture(plain) is None
    with pytest.raises(LaunchConfigError, match=r"k: wgmma=True needs a Hopper GPU \(sm_90\); this one is sm_80"):
        cuda._architecture(wgmma)
    with pytest.raises(LaunchConfigError, match="needs a Hopper GPU"):  # no scalars by value: MLX's own build
        cuda._cuda_kernel(wgmma)


def test_configs_keep_the_setting():
    config = Config({"BLOCK_M": 128}, num_warps=8, num_stages=4, wgmma=True)
    assert config.all_kwargs()["wgmma"] is True and Config.from_json(config.to_json()) == config
    assert config != Config({"BLOCK_M": 128}, num_warps=8, num_stages=4)
    assert Config.from_point({"BLOCK_M": 128, "wgmma": True}).wgmma
    assert config_problem(json.dumps({"kwargs": {}, "wgmma": "yes"})) == "config wgmma='yes' is not true or false"
    assert config_problem(json.dumps(config.to_json())) is None
