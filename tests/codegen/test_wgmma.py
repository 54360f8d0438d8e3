"""`wgmma=True`: `tl.dot` on Hopper's warpgroup MMA (codegen/lowering/dot.py `lower_warpgroup_dot`).
No GPU here: the CUDA compiles for sm_90a as MLX's NVRTC compiles it and ptxas judges registers and
spills; the swizzled layout the copies write is checked against the 128-byte swizzle the hardware
reads (CUTLASS's Swizzle<3,4,3> on byte addresses); dots the path cannot take keep mma.sync; the
setting is refused where the target lacks it, and an sm_90a module is only built for an sm_90 GPU.
Whether the products are right is the GPU's to say (benchmarks/wgmma_probe.py, docs/dot.md)."""
from __future__ import annotations

import json

import mlx.core as mx
import pytest

import metalforge as mf
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
@pytest.mark.parametrize("bm,bn,warps,stages", [(128, 256, 8, 4), (128, 128, 4, 4), (64, 128, 4, 3)])
def test_matmul_on_wgmma_compiles_for_sm90a_without_spills(bm, bn, warps, stages):
    """Per K step of 64, 4 wgmma a 64-row slice (two slices a warpgroup at 128 rows on 4 warps), in
    both the aligned and the element-wise copy of the kernel; no mma.sync or ldmatrix; the operands
    staged without padding (+1008 bytes to align the ring to 1024); ptxas neither spills nor
    serialises the wgmma."""
    c = compile_matmul(bm, bn, 64, warps, stages, wgmma=True)
    slices = bm // (16 * warps)
    assert c.body.count(f"mf_wgmma_m64n{bn}k16_f16_tb(") == 2 * 4 * slices
    assert "mf_mma_m16n8k16(" not in c.body and "mf_ldmatrix" not in c.body
    assert f"wgmma.mma_async.sync.aligned.m64n{bn}k16.f32.f16.f16" in c.header
    assert c.shared_bytes == stages * (bm * 64 + 64 * bn) * 2 + 1008
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


def test_configs_keep_the_setting():
    config = Config({"BLOCK_M": 128}, num_warps=8, num_stages=4, wgmma=True)
    assert config.all_kwargs()["wgmma"] is True and Config.from_json(config.to_json()) == config
    assert config != Config({"BLOCK_M": 128}, num_warps=8, num_stages=4)
    assert Config.from_point({"BLOCK_M": 128, "wgmma": True}).wgmma
    assert config_problem(json.dumps({"kwargs": {}, "wgmma": "yes"})) == "config wgmma='yes' is not true or false"
    assert config_problem(json.dumps(config.to_json())) is None
