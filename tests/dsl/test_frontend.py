"""The front end builds the issue's example kernels into typed IR (types, shapes, opcodes, control flow)."""
from __future__ import annotations

import pytest

import metalforge.language as tl
from metalforge.dsl import ir
from metalforge.dsl.frontend import jit
from metalforge.errors import MetalforgeError

from .helpers import line_of, opcodes, ops

F32, F16, I32 = ir.ptr(tl.float32), ir.ptr(tl.float16), tl.int32


@jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_vector_add():
    fn = add.build_ir({"x_ptr": F32, "y_ptr": F32, "out_ptr": F32, "n": I32}, {"BLOCK": 1024})
    assert [a.name for a in fn.args] == ["x_ptr", "y_ptr", "out_ptr", "n"] and fn.constexprs == {"BLOCK": 1024}
    (arange,) = ops(fn, "arange")
    assert arange.result.type == ir.BlockType(tl.int32, (1024,)) and arange.attrs == {"start": 0, "end": 1024}
    loads = ops(fn, "load")
    assert [op.result.type for op in loads] == [ir.BlockType(tl.float32, (1024,))] * 2
    (store,) = ops(fn, "store")
    assert store.operands[0].type == ir.BlockType(F32, (1024,)) and store.attrs["masked"]
    assert store.operands[2].name == "mask" and store.operands[2].type == ir.BlockType(tl.int1, (1024,))
    (program_id,) = ops(fn, "program_id")
    assert program_id.result.name == "pid" and program_id.loc.line == line_of(add, "pid = tl.program_id(0)")
    assert store.loc.source.startswith("tl.store(out_ptr + offs")
    text = str(fn)
    assert "kernel add(%x_ptr: ptr<f32>" in text and "[BLOCK=1024]" in text
    assert "%offs: i32[1024] = add" in text and "# " + str(program_id.loc.line) + ": pid = tl.program_id(0)" in text


def test_specialisation_changes_types():
    fn = add.build_ir({"x_ptr": F16, "y_ptr": F16, "out_ptr": F32, "n": I32}, {"BLOCK": 256})
    (store,) = ops(fn, "store")
    value = store.operands[1]
    assert value.type == ir.BlockType(tl.float32, (256,))  # f16 + f16 stays f16, the store converts
    assert ops(fn, "add")[-1].result.type == ir.BlockType(tl.float16, (256,))
    assert ops(fn, "cast")[-1].result is value


@jit
def softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=cols < n_cols, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=cols < n_cols)


def test_row_softmax():
    fn = softmax.build_ir({"out_ptr": F32, "in_ptr": F32, "in_row_stride": I32, "out_row_stride": I32,
                           "n_cols": I32}, {"BLOCK": 128})
    (mx,) = ops(fn, "max")
    assert mx.result.type == tl.float32 and mx.attrs["axis"] == 0
    (ld,) = ops(fn, "load")
    other = ld.operands[2]
    assert ld.attrs["has_other"] and other.type == ir.BlockType(tl.float32, (128,))
    (const,) = [op for op in fn.walk() if op.opcode == "constant" and op.attrs["value"] == float("-inf")]
    assert const.result.type == tl.float32
    assert ops(fn, "exp")[0].result.type == ir.BlockType(tl.float32, (128,))
    (div,) = ops(fn, "fdiv")
    assert div.operands[1].type == ir.BlockType(tl.float32, (128,))  # den splat to the tile
    assert ops(fn, "sum")[0].result.name == "den"


@jit
def layer_norm(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    y = xc * rstd * w + b
    tl.store(Y + row * stride + cols, y, mask=mask)


def test_layer_norm_with_mean_and_rstd():
    fn = layer_norm.build_ir({"X": F16, "Y": F16, "W": F32, "B": F32, "Mean": F32, "Rstd": F32, "stride": I32,
                              "N": I32, "eps": tl.float32}, {"BLOCK_N": 512})
    t = ir.BlockType(tl.float32, (512,))
    stores = ops(fn, "store")
    assert [s.operands[0].type for s in stores] == [F32, F32, ir.BlockType(F16, (512,))]
    assert [s.operands[1].name for s in stores[:2]] == ["mean", "rstd"]
    assert stores[0].operands[1].type == tl.float32  # scalar stores of the statistics
    y_store = stores[2].operands[1]
    assert y_store.type == ir.BlockType(tl.float16, (512,)) and ops(fn, "cast")[-1].operands[0].name == "y"
    (sel,) = ops(fn, "select")
    assert sel.result.name == "xc" and sel.result.type == t and sel.operands[0].name == "mask"
    mean_div = ops(fn, "fdiv")[0]
    assert mean_div.result.name == "mean" and mean_div.operands[1].type == tl.float32  # N converted to f32
    assert ops(fn, "sqrt")[0].result.type == tl.float32


@jit
def copy2d(src, dst, M, N, s_m, s_n, d_m, d_n, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(src + rm[:, None] * s_m + rn[None, :] * s_n, mask=mask)
    tl.store(dst + rm[:, None] * d_m + rn[None, :] * d_n, x.T.T, mask=mask)


def test_2d_strided_with_masks_on_both_axes():
    fn = copy2d.build_ir({"src": F32, "dst": F32, **{k: I32 for k in ("M", "N", "s_m", "s_n", "d_m", "d_n")}},
                         {"BM": 16, "BN": 32})
    expands = ops(fn, "expand_dims")
    assert {(op.attrs["axis"], op.result.type.shape) for op in expands} == {(1, (16, 1)), (0, (1, 32))}
    (andop,) = ops(fn, "and")
    assert andop.result.name == "mask" and andop.result.type == ir.BlockType(tl.int1, (16, 32))
    (ld,) = ops(fn, "load")
    assert ld.operands[0].type == ir.BlockType(F32, (16, 32)) and ld.result.type == ir.BlockType(tl.float32, (16, 32))
    assert [op.attrs["dims"] for op in ops(fn, "permute")] == [(1, 0), (1, 0)]
    assert ops(fn, "permute")[0].result.type.shape == (32, 16)
    assert "broadcast" in opcodes(fn)


@jit
def row_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    total = 0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        total += 1
    tl.store(out_ptr, tl.sum(acc, axis=0) / total)


def test_loop_with_runtime_bounds_and_carried_accumulator():
    fn = row_sum.build_ir({"x_ptr": F16, "out_ptr": F32, "n": I32}, {"BLOCK": 64})
    (loop,) = ops(fn, "for")
    lo, hi, step = loop.operands[:3]
    assert hi.name == "n" and step.type == tl.int32
    body = loop.regions[0]
    assert [a.name for a in body.args] == ["start", "acc", "total"]
    assert [a.type for a in body.args] == [tl.int32, ir.BlockType(tl.float32, (64,)), tl.int32]
    assert body.ops[-1].opcode == "yield" and [v.type for v in body.ops[-1].operands] == [a.type for a in body.args[1:]]
    assert [r.name for r in loop.results] == ["acc", "total"]
    (s,) = ops(fn, "sum")
    assert s.operands[0] is loop.results[0]  # after the loop, `acc` is the loop's result
    assert "offs" not in {r.name for r in loop.results}  # defined inside the loop only: not carried


@jit
def runtime_if(x_ptr, out_ptr, flag):
    x = tl.load(x_ptr)
    if flag > 0:
        y = x * 2
        only_then = y
    else:
        y = x - 1.0
    tl.store(out_ptr, y)


def test_if_on_runtime_scalar_yields_assigned_values():
    fn = runtime_if.build_ir({"x_ptr": F32, "out_ptr": F32, "flag": I32})
    (branch,) = ops(fn, "if")
    assert branch.operands[0].type == tl.int1 and branch.loc.line == line_of(runtime_if, "if flag > 0")
    assert [r.name for r in branch.results] == ["y"] and branch.result.type == tl.float32
    then, orelse = branch.regions
    assert [op.opcode for op in then.ops][-2:] == ["mul", "yield"]
    assert [op.opcode for op in orelse.ops][-2:] == ["sub", "yield"]
    (store,) = ops(fn, "store")
    assert store.operands[1] is branch.result


@jit
def constexpr_if(x_ptr, b_ptr, out_ptr, HAS_BIAS: tl.constexpr, ACT: tl.constexpr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    if HAS_BIAS:
        x += tl.load(b_ptr + offs)
    if ACT == "relu":
        x = tl.maximum(x, 0.0)
    elif ACT is not None:
        tl.static_assert(False, "unknown activation")
    tl.store(out_ptr + offs, x)


def test_constexpr_if_builds_only_the_taken_branch():
    types = {"x_ptr": F32, "b_ptr": F32, "out_ptr": F32}
    plain = constexpr_if.build_ir(types, {"HAS_BIAS": False, "ACT": None})
    assert len(ops(plain, "load")) == 1 and not ops(plain, "if") and not ops(plain, "maximum")
    full = constexpr_if.build_ir(types, {"HAS_BIAS": True, "ACT": "relu"})
    assert len(ops(full, "load")) == 2 and len(ops(full, "maximum")) == 1 and not ops(full, "if")


@jit
def unrolled(x_ptr, out_ptr, N: tl.constexpr):
    acc = tl.zeros([8], tl.float32)
    for k in tl.static_range(N):
        acc += tl.load(x_ptr + k * 8 + tl.arange(0, 8))
    tl.store(out_ptr + tl.arange(0, 8), acc)


def test_static_range_unrolls():
    fn = unrolled.build_ir({"x_ptr": F32, "out_ptr": F32}, {"N": 3})
    assert not ops(fn, "for") and len(ops(fn, "load")) == 3
    offsets = [op.attrs["value"] for op in ops(fn, "constant")]
    assert [0, 8, 16] == [v for v in offsets if v in (0, 8, 16)][:3]  # k * 8 folded per iteration


@jit
def scale_shift(x, scale, SHIFT: tl.constexpr):
    y = x * scale
    return y + SHIFT, y


@jit
def uses_helper(x_ptr, out_ptr, s):
    offs = tl.arange(0, 32)
    a, b = scale_shift(tl.load(x_ptr + offs), s, SHIFT=3)
    tl.store(out_ptr + offs, a - b)


def test_jit_helper_is_inlined():
    fn = uses_helper.build_ir({"x_ptr": F32, "out_ptr": F32, "s": tl.float32})
    assert opcodes(fn).count("mul") == 1 and "call" not in opcodes(fn)
    (mul,) = ops(fn, "mul")
    assert mul.result.name == "y" and mul.loc.line == line_of(scale_shift, "y = x * scale")
    (sub,) = ops(fn, "sub")
    assert sub.operands[1] is mul.result


@jit
def max_combine(a, b):
    return tl.maximum(a, b)


@jit
def reductions(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 8 + tl.arange(0, 8)[None, :])
    m = tl.reduce(x, 1, max_combine)
    c = tl.associative_scan(m, 0, max_combine)
    i = tl.argmax(x, axis=0)
    v, j = tl.max(x, axis=1, return_indices=True)
    s = tl.cumsum(x.to(tl.int8), axis=1)
    tl.store(out_ptr + tl.arange(0, 16), c + v + j + tl.sum(i, axis=0) + tl.sum(s, axis=1))


def test_reductions_and_scans():
    fn = reductions.build_ir({"x_ptr": F16, "out_ptr": F32})
    (red,) = ops(fn, "reduce")
    assert red.result.type == ir.BlockType(tl.float16, (16,)) and red.attrs["axis"] == 1
    region = red.regions[0]
    assert [a.type for a in region.args] == [tl.float16, tl.float16]
    assert [op.opcode for op in region.ops] == ["maximum", "yield"]
    (scan,) = ops(fn, "scan")
    assert scan.result.type == ir.BlockType(tl.float16, (16,)) and scan.regions[0].ops[-1].opcode == "yield"
    assert [op.result.type for op in ops(fn, "argmax")] == [ir.BlockType(tl.int32, (8,)), ir.BlockType(tl.int32, (16,))]
    (mx,) = ops(fn, "max")
    assert mx.result.type == ir.BlockType(tl.float32, (16,))  # fp16 max -> fp32
    (cs,) = ops(fn, "cumsum")
    assert cs.result.type == ir.BlockType(tl.int32, (16, 8))  # int8 accumulates in int32


@jit
def bits(x_ptr, u_ptr, out_ptr):
    offs = tl.arange(0, 4)
    x = tl.load(x_ptr + offs)
    u = tl.load(u_ptr + offs)
    f = x.to(tl.float32, bitcast=True)
    tl.store(out_ptr + offs, (x >> 1) + (u >> 1) + (x // 3) + (x % 3) + (u // 2) + f.to(tl.int32) + (x + u))


def test_shift_division_and_bitcast_opcodes():
    fn = bits.build_ir({"x_ptr": ir.ptr(tl.int32), "u_ptr": ir.ptr(tl.uint32), "out_ptr": ir.ptr(tl.int64)})
    assert [op.result.type for op in ops(fn, "ashr")] == [ir.BlockType(tl.int32, (4,))]
    assert [op.result.type for op in ops(fn, "lshr")] == [ir.BlockType(tl.uint32, (4,))]
    assert len(ops(fn, "sdiv")) == 1 and len(ops(fn, "srem")) == 1 and len(ops(fn, "udiv")) == 1
    assert ops(fn, "bitcast")[0].result.type == ir.BlockType(tl.float32, (4,))
    assert ops(fn, "add")[-2].result.type == ir.BlockType(tl.uint32, (4,))  # int32 + uint32 -> uint32


@jit
def halving(x_ptr, out_ptr, n):
    i = 0
    v = tl.load(x_ptr)
    while v > 1.0:
        v = v / 2
        i += 1
    tl.store(out_ptr + i, v)


def test_while_on_runtime_scalar():
    fn = halving.build_ir({"x_ptr": F32, "out_ptr": F32, "n": I32})
    (loop,) = ops(fn, "while")
    before, after = loop.regions
    assert [a.name for a in before.args] == ["v", "i"]  # order of assignment in the body and before.ops[-1].opcode == "condition"
    assert before.ops[-1].operands[0].type == tl.int1
    assert [r.name for r in loop.results] == ["v", "i"] and after.ops[-1].opcode == "yield"


BLOCK_GLOBAL = tl.constexpr(32)
SCALE = 0.5


@jit
def folding(x_ptr, out_ptr, N: tl.constexpr):
    HALF: tl.constexpr = N // 2 + BLOCK_GLOBAL - 32
    tl.static_assert(HALF * 2 == N, f"N={N} must be even")
    offs = tl.arange(0, HALF)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * SCALE)


def test_constexpr_folding_and_globals():
    fn = folding.build_ir({"x_ptr": F32, "out_ptr": F32}, {"N": 64})
    assert ops(fn, "arange")[0].attrs == {"start": 0, "end": 32}
    consts = ops(fn, "constant")
    assert [op.attrs["value"] for op in consts] == [0.5] and consts[0].result.type == tl.float32


@jit
def misc(x_ptr, out_ptr, seed, n):
    offs = tl.multiple_of(tl.arange(0, 64), 16)
    r = tl.rand(seed, offs)
    z = tl.randn(seed, offs)
    x = tl.load(x_ptr + offs)
    y = tl.clamp(tl.fma(x, r, z), -1.0, 1.0) + tl.sigmoid(x) + tl.abs(x) + tl.minimum(x, 0.0)
    y = tl.reshape(y, (8, 8))
    y = tl.broadcast_to(tl.expand_dims(tl.sum(y, axis=1), 1), (8, 8))
    tl.debug_barrier()
    tl.device_print("y", y)
    old = tl.atomic_add(out_ptr + offs, tl.reshape(y, [64]), mask=offs < n)
    tl.atomic_cas(out_ptr, 0.0, 1.0)
    tl.store(out_ptr + tl.cdiv(n, 64), tl.sum(old, axis=0))


def test_misc_builtins():
    fn = misc.build_ir({"x_ptr": F32, "out_ptr": F32, "seed": I32, "n": I32})
    t64 = ir.BlockType(tl.float32, (64,))
    # tl.rand and tl.randn inline Triton's random.py: Philox words (rand's first, randn's first two)
    philox = ops(fn, "philox")
    assert [op.attrs["word"] for op in philox] == [0, 1, 2, 3] * 2
    assert all(op.result.type == ir.BlockType(tl.uint32, (64,)) and op.attrs["n_rounds"] == 10 for op in philox)
    assert ops(fn, "multiple_of")[0].attrs["values"] == 16
    assert ops(fn, "clamp")[0].result.type == t64 and ops(fn, "fma")[0].result.type == t64
    assert [op.result.type.shape for op in ops(fn, "reshape")] == [(8, 8), (64,)]
    assert ops(fn, "broadcast")[-1].result.type == ir.BlockType(tl.float32, (8, 8))
    (atomic,) = ops(fn, "atomic_add")
    assert atomic.result.type == t64 and atomic.attrs["masked"]
    assert ops(fn, "atomic_cas")[0].result.type == tl.float32
    assert {"barrier", "print", "sdiv"} <= set(opcodes(fn))


def test_language_surface():
    assert tl.float32 is ir.float32 and tl.pointer_type(tl.float16) == ir.ptr(tl.float16)
    assert tl.block_type(tl.int8, (4,)).numel == 4 and tl.constexpr(3).value == 3
    for name in ("int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "bfloat16", "float32", "float64"):
        assert getattr(tl, name).name == name
    with pytest.raises(MetalforgeError, match="tl.load can only be used inside a @metalforge.jit kernel"):
        tl.load(None)
