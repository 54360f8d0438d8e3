"""lir_passes/sincos.py: a cosine loop and a sine loop of one argument become one `sincos` loop on
CUDA (RoPE's decode cubin 36.8 -> 24.5 KB, NVRTC for sm_90); loops that differ, or whose argument is
written in between, stay apart; Metal's code is unchanged (its spelling, turned on, runs right on
the emulator)."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.codegen import lir
from metalforge.codegen.layouts import lit
from metalforge.codegen.lir_passes.sincos import fuse_sincos
from metalforge.dsl import ir
from metalforge.kernels import rope


def slot_loop(target: str, fn: str, arg: lir.Expr, var: str = "k", trips: int = 8) -> lir.For:
    k = lir.Sym(var)
    return lir.For(var, lit(0), lir.Bin("<", k, lit(trips)), lit(1),
                   [lir.Assign(lir.Index(lir.Sym(target), k), lir.Call(fn, (arg,)))],
                   unroll=True)


def test_a_cosine_and_a_sine_loop_become_one_sincos_loop():
    theta = lir.Index(lir.Sym("theta"), lir.Sym("k"))
    body = [lir.Comment("c = tl.cos(theta)"), lir.Decl("c", ir.float32, size=8), slot_loop("c", "cos", theta),
            lir.Comment("s = tl.sin(theta)"), lir.Decl("s", ir.float32, size=8), slot_loop("s", "sin", theta),
            lir.Assign(lir.Sym("y"), lir.Index(lir.Sym("s"), lit(0)))]
    fused = fuse_sincos(body)
    assert [type(s).__name__ for s in fused] == ["Comment", "Decl", "Comment", "Decl", "For", "Assign"]
    (sincos,) = fused[4].body
    assert sincos == lir.SinCos(theta, lir.Index(lir.Sym("s"), lir.Sym("k")), lir.Index(lir.Sym("c"), lir.Sym("k")))


def test_one_slot_cosine_and_sine_become_one_sincos():
    """A tile of one element a thread has no slot loop: the two assignments pair the same way, and
    one of them inside a loop does not pair with one outside."""
    theta = lir.Index(lir.Sym("theta"), lit(0))
    c, s = lir.Index(lir.Sym("c"), lit(0)), lir.Index(lir.Sym("s"), lit(0))
    body = [lir.Decl("c", ir.float32, size=1), lir.Assign(c, lir.Call("cos", (theta,))),
            lir.Decl("s", ir.float32, size=1), lir.Assign(s, lir.Call("sin", (theta,)))]
    assert fuse_sincos(body) == [body[0], body[2], lir.SinCos(theta, s, c)]
    mixed = [lir.Assign(c, lir.Call("cos", (theta,))), slot_loop("s", "sin", theta)]
    assert not any(isinstance(x, lir.SinCos) for x in lir.walk(fuse_sincos(mixed)))


def test_loops_that_differ_or_are_separated_by_a_write_stay_apart():
    theta = lir.Index(lir.Sym("theta"), lir.Sym("k"))
    other = lir.Index(lir.Sym("phi"), lir.Sym("k"))
    cases = [
        [slot_loop("c", "cos", theta), slot_loop("s", "sin", other)],            # another argument
        [slot_loop("c", "cos", theta), slot_loop("s", "sin", theta, trips=4)],   # another loop
        [slot_loop("c", "cos", theta), slot_loop("s", "cos", theta)],            # two cosines
        [slot_loop("c", "cos", theta), lir.Assign(lir.Index(lir.Sym("theta"), lit(0)), lir.Lit(1.0, ir.float32)),
         slot_loop("s", "sin", theta)],                                          # theta written between
        [slot_loop("theta", "cos", theta), slot_loop("s", "sin", theta)],       # the cosine overwrites theta
    ]
    for body in cases:
        assert not any(isinstance(s, lir.SinCos) for s in lir.walk(fuse_sincos(body)))


@pytest.mark.parametrize("shape,block_t,warps,fused", [
    ((1, 32, 1, 64), 1, 1, "sincosf(theta[0], &s[0], &c[0]);"),    # a decode step: one slot a thread
    ((32, 4096, 128), 16, 4, "sincosf(theta, &s[k], &c[k]);")])  # prefill: 8 slots a thread (theta a
    # scalar of the slot loop: lir_passes/fuse_loops.py)
def test_rope_on_cuda_computes_each_angle_once_and_metal_is_unchanged(shape, block_t, warps, fused):
    x = mx.zeros(shape, mx.float16)
    args = (x, mf.empty(x.shape, mx.float16), x.size // (shape[-2] * shape[-1]), shape[-2], 13.1, shape[-1] // 2,
            block_t, 8)
    cuda = rope.rope_kernel.fn.compile(*args, offset=17, target="cuda", num_warps=warps).body
    msl = rope.rope_kernel.fn.compile(*args, offset=17, target="msl", num_warps=warps).body
    assert cuda.count(fused) == (2 if block_t > 1 else 1)  # the aligned copy and the element-wise one, if versioned
    assert "cosf(" not in cuda.replace("sincosf(", "") and "sinf(" not in cuda.replace("sincosf(", "")
    assert "metal::cos(" in msl and "metal::sin(" in msl and "sincos" not in msl


@mf.jit
def angles(theta_ptr, c_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    theta = tl.load(theta_ptr + offs, mask=offs < n, other=0.0)
    c = tl.cos(theta)
    s = tl.sin(theta)
    tl.store(c_ptr + offs, c, mask=offs < n)
    tl.store(s_ptr + offs, s, mask=offs < n)


def test_the_fused_statement_gives_each_target_its_function(rng, monkeypatch):
    """The pass with Metal's sincos turned on, run on the emulator: the sine lands in `s` and the
    cosine in `c` (a swapped statement would show), at an odd size, against float64."""
    from dataclasses import replace

    from metalforge.codegen import target

    monkeypatch.setitem(target.TARGETS, "msl", replace(target.METAL, fuse_sincos=True))
    n = 333
    theta = rng.uniform(-3000, 3000, n).astype(np.float32)
    c, s = angles[(mf.cdiv(n, 128),)](mx.array(theta), mf.empty((n,)), mf.empty((n,)), n, BLOCK=128, num_warps=2)
    assert "metal::sincos(" in angles.last.body
    t = theta.astype(np.float64)
    np.testing.assert_allclose(np.array(c), np.cos(t), rtol=0, atol=4e-6)  # float32 sin/cos: a few ulp of 1
    np.testing.assert_allclose(np.array(s), np.sin(t), rtol=0, atol=4e-6)
