"""Unit tests of the code-generation passes: layouts' coordinate arithmetic, constant folding,
dead-code elimination, layout assignment, and the errors lowering raises."""
from __future__ import annotations

import itertools
import re

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.codegen import lir
from metalforge.codegen.fragments import SIMDGROUP_MATRIX, TENSOR_CORE, fragment_for
from metalforge.codegen.target import CUDA, METAL
from metalforge.codegen.layouts import Expand, Remat, Scalar, Shared, Slice, default_blocked, mma_layout
from metalforge.codegen.ir_passes.assign_layouts import assign_layouts
from metalforge.codegen.ir_passes.axis_info import access_width, analyse, edge_width
from metalforge.codegen.ir_passes.dce import eliminate_dead_code
from metalforge.codegen.ir_passes.fold import fold_constants
from metalforge.codegen.lir_passes.barriers import merge_barriers
from metalforge.codegen.lir_passes.unused import drop_unused_scalars
from metalforge.codegen.pipeline import compile_ir, dot_stages_for
from metalforge.dsl import ir
from metalforge.errors import KernelDefinitionError, LaunchConfigError


def evaluate(e: lir.Expr, env: dict) -> int:
    """The value of an index expression for one thread (C semantics on non-negative ints)."""
    if isinstance(e, lir.Lit):
        return int(e.value)
    if isinstance(e, lir.Special):
        return env[e.name]
    if isinstance(e, lir.Sym):
        return env[e.name]
    if isinstance(e, lir.Bin):
        a, b = evaluate(e.a, env), evaluate(e.b, env)
        ops = {"+": lambda: a + b, "*": lambda: a * b, "/": lambda: a // b, "%": lambda: a % b,
               "<": lambda: int(a < b), "==": lambda: int(a == b), "&&": lambda: int(bool(a) and bool(b))}
        return ops[e.op]()
    raise TypeError(e)


def elements(layout, warps: int, owned_only: bool):
    """(thread, slot) -> element coordinates over every thread of the threadgroup."""
    out = {}
    for warp, lane, k in itertools.product(range(warps), range(32), range(layout.slots)):
        env = {"lane": lane, "warp": warp, "k": k}
        owner = layout.owner(lir.Sym("k"))
        if owned_only and owner is not None and not evaluate(owner, env):
            continue
        out[(warp, lane, k)] = tuple(evaluate(c, env) for c in layout.coords(lir.Sym("k")))
    return out


@pytest.mark.parametrize("shape", [(128,), (1024,), (4,), (4, 64), (16, 32), (1, 128), (64, 1), (2, 8, 16)])
@pytest.mark.parametrize("warps", [1, 4])
def test_blocked_layout_owns_every_element_exactly_once(shape, warps):
    layout = default_blocked(shape, warps)
    owned = elements(layout, warps, owned_only=True)
    assert sorted(owned.values()) == sorted(itertools.product(*(range(n) for n in shape)))
    for coords in elements(layout, warps, owned_only=False).values():  # replicas hold valid elements
        assert all(0 <= c < n for c, n in zip(coords, shape))


@pytest.mark.parametrize("fragment", [SIMDGROUP_MATRIX, TENSOR_CORE], ids=lambda f: f.name)
@pytest.mark.parametrize("shape", [(16, 8), (16, 64), (64, 32), (128, 128)])
@pytest.mark.parametrize("warps", [1, 2, 4, 8])
def test_mma_layout_owns_every_element_exactly_once(fragment, shape, warps):
    layout = mma_layout(shape, warps, fragment)
    assert layout.warps[0] * layout.warps[1] <= warps
    owned = elements(layout, warps, owned_only=True)
    assert sorted(owned.values()) == sorted(itertools.product(range(shape[0]), range(shape[1])))
    assert set(elements(layout, warps, owned_only=False).values()) == set(owned.values())  # replicas


@pytest.mark.parametrize("fragment", [SIMDGROUP_MATRIX, TENSOR_CORE], ids=lambda f: f.name)
def test_fragment_operands_cover_their_tiles(fragment):
    """Each lane's elements of A (rows x depth), B (depth x cols) and C (rows x cols) tile them once."""
    sizes = {"a": (fragment.rows, fragment.depth), "b": (fragment.depth, fragment.cols),
             "c": (fragment.rows, fragment.cols)}
    for role, count in zip("abc", fragment.per_lane):
        seen = [tuple(evaluate(x, {"lane": lane}) for x in fragment.coord(role, lir.Lit(e, ir.int32)))
                for lane in range(32) for e in range(count)]
        assert sorted(seen) == sorted(itertools.product(*(range(n) for n in sizes[role]))), role
    # the accumulator's slots in the MMA layout are the same elements as the fragment's
    layout = mma_layout((fragment.rows, fragment.cols), 1, fragment)
    for lane in range(32):
        for e in range(fragment.per_lane[2]):
            want = [evaluate(x, {"lane": lane}) for x in fragment.coord("c", lir.Lit(e, ir.int32))]
            assert [evaluate(x, {"lane": lane, "warp": 0, "k": e}) for x in layout.coords(lir.Sym("k"))] == want


def ldmatrix(addresses: list[int], memory: dict[int, int], count: int, transpose: bool) -> list[list[int]]:
    """PTX ldmatrix.m8n8 on a model of shared memory: matrix q's row r starts at the address lane
    8q + r gives; without .trans lane l receives row l/4, columns 2(l%4) and 2(l%4)+1 of each
    matrix, with .trans row 2(l%4) and 2(l%4)+1 of column l/4. Per lane, 2 elements per matrix."""
    out = []
    for lane in range(32):
        got = []
        for q in range(count):
            for half in range(2):
                row, col = (lane // 4, 2 * (lane % 4) + half) if not transpose else (2 * (lane % 4) + half, lane // 4)
                got.append(memory[addresses[8 * q + row] + col])
        out.append(got)
    return out


@pytest.mark.parametrize("role,pair", [("a", False), ("b", False), ("b", True)])
@pytest.mark.parametrize("contiguous", [0, 1])
def test_tensor_core_matrix_loads_give_each_lane_its_fragment_elements(role, pair, contiguous):
    """The lane addresses fragments.py gives for ldmatrix, run through ldmatrix's documented
    semantics, deliver exactly the elements `coord` assigns each lane, in register order; a pair of
    B fragments (the second `apart` columns to the right, as an interleaved warp grid places them)
    fills the first fragment's registers, then the second's."""
    apart = 24
    rows, cols = (16, 16) if role == "a" else (16, 8 + apart * pair)
    stride = (cols + 8, 1) if contiguous == 1 else (1, rows + 8)  # padded rows, either axis contiguous
    memory = {r * stride[0] + c * stride[1]: 1000 * r + c for r in range(rows) for c in range(cols)}
    load = TENSOR_CORE.matrix_load(role, contiguous, pair)
    assert (load.neighbour is not None) == pair and load.count == (4 if role == "a" or pair else 2)

    def address(lane: int) -> int:
        col = evaluate(load.col, {"lane": lane}) + (apart * evaluate(load.neighbour, {"lane": lane}) if pair else 0)
        return evaluate(load.row, {"lane": lane}) * stride[0] + col * stride[1]
    got = ldmatrix([address(lane) for lane in range(32)], memory, load.count, load.transpose)
    per = TENSOR_CORE.per_lane["ab".index(role)]
    for lane in range(32):
        want = [1000 * evaluate(r, {"lane": lane}) + evaluate(c, {"lane": lane}) + apart * f
                for f in range(1 + pair) for r, c in (TENSOR_CORE.coord(role, lir.Lit(e, ir.int32)) for e in range(per))]
        assert got[lane] == want, (lane, got[lane], want)
    assert SIMDGROUP_MATRIX.matrix_load(role, contiguous, pair) is None  # Metal: read element by element


def test_fragment_choice():
    assert fragment_for(METAL, ir.float16, (64, 64, 32)) is SIMDGROUP_MATRIX
    assert fragment_for(CUDA, ir.float16, (64, 64, 32)) is TENSOR_CORE
    assert fragment_for(CUDA, ir.bfloat16, (16, 8, 16)) is TENSOR_CORE
    assert fragment_for(CUDA, ir.float32, (64, 64, 32)) is SIMDGROUP_MATRIX  # exact fp32: no tf32 by default
    assert fragment_for(CUDA, ir.float16, (8, 64, 32)) is SIMDGROUP_MATRIX  # M below the tensor-core tile
    assert fragment_for(CUDA, ir.float16, (64, 64, 8)) is SIMDGROUP_MATRIX


@pytest.mark.parametrize("shape,dim", [((4, 64), 1), ((4, 64), 0), ((16, 32), 1), ((32, 8), 0)])
def test_slice_layout_matches_its_parent(shape, dim):
    parent = default_blocked(shape, 4)
    sl = Slice(parent, dim)
    for warp, lane, k in itertools.product(range(4), range(32), range(parent.slots)):
        env = {"lane": lane, "warp": warp, "k": k}
        pc = [evaluate(c, env) for c in parent.coords(lir.Sym("k"))]
        env["k"] = evaluate(sl.slot_of_parent(lir.Lit(k, ir.int32)), env)
        sc = [evaluate(c, env) for c in sl.coords(lir.Sym("k"))]
        assert sc == pc[:dim] + pc[dim + 1:]  # the slice slot holding this parent slot's row


@mf.jit
def folded(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    unused = offs * 3  # noqa: F841  (dead)
    tl.store(out_ptr + offs, offs * (BLOCK // 4), mask=offs < n)


def build(kernel, types, consts):
    return kernel.build_ir(types, consts)


def test_fold_and_dce():
    fn = build(folded, {"out_ptr": ir.ptr(ir.int32), "n": ir.int32}, {"BLOCK": 64})
    before = [op.opcode for op in fn.walk()]
    fn = eliminate_dead_code(fold_constants(fn))
    after = [op.opcode for op in fn.walk()]
    assert after.count("mul") == before.count("mul") - 1  # `unused` is gone
    assert "store" in after


@mf.jit
def normalise(X, W, Y, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    x = tl.load(X + rows[:, None] * N + cols[None, :])
    mean = tl.sum(x, axis=1) / N
    w = tl.load(W + cols)
    tl.store(Y + rows[:, None] * N + cols[None, :], (x - mean[:, None]) * w[None, :])


def test_layout_assignment():
    fn = build(normalise, {"X": ir.ptr(ir.float32), "W": ir.ptr(ir.float32), "Y": ir.ptr(ir.float32), "N": ir.int32},
               {"BM": 4, "BN": 64})
    plan = assign_layouts(fn, 4, divisibility={"N": 16})  # as a launch at N = 64 specialises it
    by_code = {}
    for op in fn.walk():
        for r in op.results:
            by_code.setdefault(op.opcode, []).append(plan.values[r.id])
    assert all(isinstance(l, Remat) for l in by_code["arange"])  # index arithmetic is recomputed
    x_layout = by_code["load"][0]
    # every access of [4, 64] tiles is contiguous along rows: runs of 2 per thread (256 elements, 128 threads)
    assert x_layout == default_blocked((4, 64), 4, vec=2) and x_layout.spt == (1, 2)
    assert by_code["sum"] == [Slice(x_layout, 1)]
    expands = by_code["expand_dims"]
    assert Expand(Slice(x_layout, 1)) in expands  # mean[:, None]: same registers
    # w[None, :] of a 1-D load: the same registers with a size-1 axis; its broadcast, read in x's
    # layout (warps along rows, not columns), goes through threadgroup memory
    w_layout = default_blocked((64,), 4)
    assert w_layout.with_axis(0) in expands and not any(isinstance(l, Shared) for l in expands)
    # mean's broadcast back in place, w's converted
    assert [l for l in by_code["broadcast"] if not isinstance(l, Remat)] == [x_layout, x_layout]
    assert isinstance(plan.values[fn.args[0].id], Scalar)


@mf.jit
def offsets(X, Y, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rows = tl.arange(0, 8)
    x = tl.load(X + offs, mask=offs < n, other=0.0)  # contiguous; mask constant in groups when 16 | n
    t = tl.load(X + rows[:, None] * stride + tl.arange(0, BLOCK)[None, :])  # contiguous along rows
    g = tl.load(X + offs * 2)  # strided: no vector
    tl.store(Y + offs, x + g + tl.sum(t, axis=0), mask=offs < n)


@pytest.mark.parametrize("n_divisible", [True, False])
def test_axis_info_and_access_widths(n_divisible):
    fn = build(offsets, {"X": ir.ptr(ir.float32), "Y": ir.ptr(ir.float32), "n": ir.int32, "stride": ir.int32},
               {"BLOCK": 128})
    info = analyse(fn, {"n": 16, "stride": 16} if n_divisible else {"stride": 16})
    loads = [op for op in fn.walk() if op.opcode == "load"]
    store = next(op for op in fn.walk() if op.opcode == "store")
    offs_ptr = info[loads[0].operands[0].id]
    assert offs_ptr.contiguity == (128,) and offs_ptr.divisibility[0] >= 128
    mask = info[loads[0].operands[1].id]
    assert mask.constancy == ((16,) if n_divisible else (1,))
    widths = [access_width(op, info, 4) for op in loads + [store]]
    assert widths == ([4, 4, 1, 4] if n_divisible else [1, 4, 1, 1])
    # whatever n, `offs < n` is true over one range in each run of 4 (all of it but where n falls): the
    # masked load and store move 4 elements where all 4 are in, element by element at the edge
    assert mask.edge_runs() == (128,)
    assert [edge_width(op, info, 4) for op in loads + [store]] == [4, 4, 1, 4]
    # a row at an offset of unknown divisibility (stride not specialised) is contiguous, yet its vectors
    # would start anywhere: element by element (16-byte accesses there would be misaligned on CUDA)
    assert access_width(loads[1], analyse(fn, {}), 4) == edge_width(loads[1], analyse(fn, {}), 4) == 1
    plan = assign_layouts(fn, 4, divisibility={"n": 16, "stride": 16} if n_divisible else {"stride": 16})
    assert plan.vector[(128,)] == 1  # the strided load keeps [128] tiles one element per thread
    assert plan.vector[(8, 128)] == 4
    # the masked load and store are edge accesses where n is not a multiple of 4 (they still go element
    # by element here: their tiles' layout has one element a thread for the strided load)
    assert plan.edge_accesses == (set() if n_divisible else {id(loads[0]), id(store)})


@mf.jit
def row_window(X, Y, stride, total, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * 8 + tl.arange(0, 8)  # its first element is a multiple of 8, the others are not
    flat = rows[:, None] * stride + tl.arange(0, BLOCK)[None, :]
    mask = flat < total
    tl.store(Y + flat, tl.load(X + flat, mask=mask, other=-1.0), mask=mask)


@pytest.mark.parametrize("stride_divisible", [True, False])
def test_axis_info_products_of_runs_claim_nothing_for_later_elements(stride_divisible):
    """rows * stride is a multiple of 16 only when stride is: rows' own divisibility (8) holds for
    its first element alone, so it must not make `flat < total` look constant over groups."""
    fn = build(row_window, {"X": ir.ptr(ir.float32), "Y": ir.ptr(ir.float32), "stride": ir.int32,
                            "total": ir.int32}, {"BLOCK": 16})
    info = analyse(fn, {"stride": 16, "total": 16} if stride_divisible else {"total": 16})
    load = next(op for op in fn.walk() if op.opcode == "load")
    assert info[load.operands[1].id].constancy[1] == (16 if stride_divisible else 1)
    assert access_width(load, info, 4) == (4 if stride_divisible else 1)


def test_row_window_with_an_odd_stride_masks_each_element(rng):
    stride, total = 37, 192  # rows of 16, 37 apart; 16 | total, yet row 5 (at 185) ends inside a group of 4
    x = mx.array(rng.standard_normal(stride * 8 + 16).astype("float32"))
    out = row_window[(1,)](x, mf.full((stride * 8 + 16,), 7.0, mx.float32), stride, total, BLOCK=16,
                           num_warps=1)  # 4 elements per thread: room for a (wrong) vector access
    flat = (np.arange(8)[:, None] * stride + np.arange(16)[None, :]).reshape(-1)
    want = np.full(stride * 8 + 16, 7.0, np.float32)
    keep = flat[flat < total]
    want[keep] = np.array(x)[keep]
    np.testing.assert_array_equal(np.array(out), want)


@mf.jit
def too_big(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.trans(tl.reshape(x, (128, BLOCK // 128))).reshape(BLOCK))


@mf.jit
def writes_input(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


def test_lowering_errors_name_the_kernel_and_line():
    with pytest.raises(KernelDefinitionError, match=r"(?s)too_big.*threadgroup memory.*32768"):
        too_big.compile(mx.zeros(16384), mf.empty(16384), BLOCK=16384)
    with pytest.raises(KernelDefinitionError, match=r"(?s)writes_input.*test_passes.py:\d+.*writes to `x_ptr`, an input"):
        writes_input.compile(mx.zeros(64), mf.empty(64), BLOCK=64)
    with pytest.raises(LaunchConfigError, match="num_warps=64"):
        writes_input.compile(mx.zeros(64), mf.empty(64), BLOCK=64, num_warps=64)


def test_barrier_merging_keeps_one_of_adjacent_barriers():
    read = lir.Decl("x", ir.float32, init=lir.Index(lir.Sym("smem"), lir.Lit(0, ir.int32)))
    body = [lir.Barrier(), lir.Comment("c"), lir.Decl("b_smem", ir.float32, size=4, space="threadgroup"),
            lir.Barrier(), read, lir.Barrier(),
            lir.For("k", lir.Lit(0, ir.int32), lir.Lit(True, ir.int1), lir.Lit(1, ir.int32),
                    [lir.Barrier(), lir.Barrier(), read])]
    out = merge_barriers(body)
    assert [type(s).__name__ for s in out] == ["Barrier", "Comment", "Decl", "Decl", "Barrier", "For"]
    assert [type(s).__name__ for s in out[-1].body] == ["Barrier", "Decl"]  # blocks are merged separately


def _write(array: str) -> lir.Stmt:
    return lir.Assign(lir.Index(lir.Sym(array), lir.Special("lane")), lir.Lit(1.0, ir.float32))


def _read(array: str) -> lir.Stmt:
    return lir.Decl("x", ir.float32, init=lir.Index(lir.Sym(array), lir.Lit(0, ir.int32)))


@pytest.mark.parametrize("between, kept", [
    ([_write("a"), lir.Barrier(), _write("b")], 2),           # A then B staged: the middle barrier goes
    ([_write("a"), lir.Barrier(), _write("a")], 3),           # the same array twice: ordered
    ([_write("a"), _read("b"), lir.Barrier(), _write("b")], 3),  # a read before it: kept
    ([_write("a"), lir.Barrier(), _write("b"), _read("a")], 3),  # a read after it: kept
])
def test_barrier_between_write_only_stretches_to_different_arrays_goes(between, kept):
    decls = [lir.Decl(n, ir.float32, size=32, space="threadgroup") for n in ("a", "b")]
    out = merge_barriers(decls + [lir.Barrier(), *between, lir.Barrier(), _read("a")])
    assert sum(isinstance(s, lir.Barrier) for s in out) == kept
    # without a barrier of the block before them, the stretches' earlier readers are unknown: kept
    out = merge_barriers(decls + [_write("a"), lir.Barrier(), _write("b"), lir.Barrier()])
    assert sum(isinstance(s, lir.Barrier) for s in out) == 2


def test_barrier_before_writes_to_double_buffered_arrays_goes():
    """A loop body staging two double-buffered tiles: their earlier readers finished before the
    previous iteration's last barrier, so only the barrier before the reads stays."""
    decls = [lir.Decl(n, ir.float32, size=64, space="threadgroup", stages=2) for n in ("a", "b")]
    body = [_write("a"), lir.Barrier(), _write("b"), lir.Barrier(), _read("a"), _read("b")]
    out = merge_barriers(decls + [lir.For("k", lir.Lit(0, ir.int32), lir.Lit(True, ir.int1), lir.Lit(1, ir.int32),
                                          body)])
    assert [type(s).__name__ for s in out[-1].body] == ["Assign", "Assign", "Barrier", "Decl", "Decl"]
    single = [lir.Decl(n, ir.float32, size=64, space="threadgroup") for n in ("a", "b")]
    out = merge_barriers(single + [lir.For("k", lir.Lit(0, ir.int32), lir.Lit(True, ir.int1), lir.Lit(1, ir.int32),
                                           list(body))])
    assert sum(isinstance(s, lir.Barrier) for s in out[-1].body) == 2


@mf.jit
def dot_loop(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, POINTERS: tl.constexpr):
    """A K loop with its addresses from the induction variable, or (POINTERS) carried and advanced."""
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    a_ptrs = a_ptr + r[:, None] * K + r[None, :]
    for k0 in range(0, K, BLOCK):
        if POINTERS:
            a = tl.load(a_ptrs)
            a_ptrs += BLOCK
        else:
            a = tl.load(a_ptr + r[:, None] * K + (k0 + r)[None, :], mask=(k0 + r)[None, :] < K, other=0.0)
        bt = tl.load(b_ptr + r[:, None] * K + (k0 + r)[None, :], mask=(k0 + r)[None, :] < K, other=0.0)
        acc = tl.dot(a, tl.trans(bt), acc)  # B stored as [N, K]
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


def test_prefetch_loads_dot_operands_one_iteration_ahead():
    """num_stages=2: each operand load is cloned before the loop (guarded by lo < hi) and at k0 + step
    (guarded by k0 + step < K), its tile carried; a load whose address is carried state stays put."""
    x = mx.zeros((1,), mx.float16)
    ir_text = dot_loop.compile(x, x, mf.empty((16, 16)), 40, BLOCK=16, POINTERS=False, num_stages=2,
                               target="msl").asm["prefetch"]
    before, loop = ir_text.split("= for ", 1)
    assert before.count(" = load ") == 2 and loop.count(" = load ") == 2  # prologue, and the next tiles
    assert loop.count("add %k0, ") == 2 and "%a.1 = %a, %b_ptr_k.1 = %b_ptr.1, %bt.1 = %bt) {" in loop
    assert "dot %a.1, " in loop
    # the next tiles' addresses: a carried base (Steel's loader `next()`), advanced by BLOCK elements
    # along K each iteration, plus the first iteration's offsets (no k0 in them)
    assert "%a_ptr_k.1 = %a_ptr.1, " in loop and "yield %a_ptrs.2, %acc.3, %a_ptr_next, %a.2, %b_ptr_next, %bt.2" in loop
    assert "splat %a_ptr_k.1 " in loop and "splat %b_ptr_k.1 " in loop
    assert re.search(r"%a_ptr_next: ptr<f16> = addptr %a_ptr_k\.1, %\d+", loop)
    single = dot_loop.compile(x, x, mf.empty((16, 16)), 40, BLOCK=16, POINTERS=False, target="msl").asm
    assert "prefetch" not in single  # num_stages=1: loads stay where the kernel wrote them
    carried = dot_loop.compile(x, x, mf.empty((16, 16)), 40, BLOCK=16, POINTERS=True, num_stages=2,
                               target="msl").asm["prefetch"]
    before, loop = carried.split("= for ", 1)
    assert before.count(" = load ") == 1  # only bt: a's address is loop-carried state


@pytest.mark.parametrize("pointers", [False, True])
@pytest.mark.parametrize("k", [40, 16, 7])
def test_prefetched_dot_loop_matches_numpy(rng, pointers, k):
    """K = 7 runs one partial step: the prologue's tile is the only one, the prefetch past K masked."""
    bk = 16
    steps = -(-k // bk)
    width = steps * bk if pointers else k  # the row stride the kernel is given
    a = rng.standard_normal((16, width)).astype(np.float16)
    a[:, k:] = 0  # the pointer kernel reads whole steps: zeros past K
    bt = rng.standard_normal((16, width)).astype(np.float16)  # B as [N, K]
    out = dot_loop[(1,)](mx.array(a), mx.array(bt), mf.full((16, 16), float("nan")), width, BLOCK=bk,
                         POINTERS=pointers, num_stages=2)
    b = bt.T
    np.testing.assert_allclose(np.array(out), a.astype(np.float64) @ b.astype(np.float64), rtol=2e-3, atol=2e-3)


def test_unused_scalar_declarations_are_dropped():
    one, i32 = lir.Lit(1, ir.int32), ir.int32
    body = [lir.Decl("a", i32, init=one),                                  # read by b only: goes with it
            lir.Decl("b", i32, init=lir.Bin("+", lir.Sym("a"), one)),      # never read
            lir.Decl("c", i32, init=one),                                  # read inside a call's arguments
            lir.Decl("old", i32, init=lir.Atomic("add", lir.Sym("p"), one, i32)),  # an effect: kept
            lir.Decl("arr", i32, size=4),                                  # arrays: kept
            lir.Store(lir.Sym("p"), lir.Call("max", (lir.Sym("c"), one), i32))]
    out = drop_unused_scalars(body)
    assert [s.name for s in out if isinstance(s, lir.Decl)] == ["c", "old", "arr"]


def test_barrier_kept_when_a_call_reads_threadgroup_memory():
    """Reads inside a call's (tuple) arguments count as reads of the array."""
    decls = [lir.Decl(n, ir.float32, size=32, space="threadgroup") for n in ("a", "b")]
    read_in_call = lir.Decl("x", ir.float32, init=lir.Call("max", (lir.Index(lir.Sym("a"), lir.Lit(0, ir.int32)),
                                                                   lir.Lit(0.0, ir.float32)), ir.float32))
    out = merge_barriers(decls + [lir.Barrier(), _write("a"), read_in_call, lir.Barrier(), _write("b"), lir.Barrier()])
    assert sum(isinstance(s, lir.Barrier) for s in out) == 3


@mf.jit
def rotate(X, Y, T, BLOCK_R: tl.constexpr, HALF: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    i = tl.arange(0, HALF)
    inv_freq = tl.exp(i.to(tl.float32) * -0.1)
    theta = (rows % T).to(tl.float32)[:, None] * inv_freq[None, :]
    c = tl.cos(theta)
    s = tl.sin(theta)
    first = rows[:, None] * (2 * HALF) + i[None, :]
    x1 = tl.load(X + first)
    x2 = tl.load(X + first + HALF)
    tl.store(Y + first, x1 * c - x2 * s)
    tl.store(Y + first + HALF, x1 * s + x2 * c)


def test_functions_of_index_arithmetic_read_twice_are_evaluated_once():
    """cos and sin of one angle, each read by two products: kept in registers rather than
    recomputed at each read; the angle's exp, read once through a broadcast, stays recomputed."""
    fn = build(rotate, {"X": ir.ptr(ir.float32), "Y": ir.ptr(ir.float32), "T": ir.int32}, {"BLOCK_R": 4, "HALF": 32})
    plan = assign_layouts(fn, 4)
    layout = {op.opcode: plan.values[op.result.id] for op in fn.walk() if op.opcode in ("exp", "cos", "sin")}
    assert isinstance(layout["exp"], Remat)
    assert not isinstance(layout["cos"], Remat) and layout["cos"] == layout["sin"]
    x = mx.array(np.random.default_rng(0).standard_normal(4 * 64).astype(np.float32))
    source = rotate.compile(x, mf.empty((4 * 64,), mx.float32), 8, BLOCK_R=4, HALF=32, target="msl").asm["msl"]
    assert source.count("metal::cos(") == source.count("metal::sin(") == 1


@mf.jit
def function_reads(X, Y, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    f = tl.exp(i.to(tl.float32) * -0.1)  # 1-D, read by two element-wise ops, then broadcast
    a = f * 2.0
    b = f + 1.0
    rows = tl.arange(0, 4)
    x = tl.load(X + rows[:, None] * BLOCK + i[None, :])
    g = tl.exp((rows[:, None] * BLOCK + i[None, :]).to(tl.float32) * -0.01)  # read by a loop of two results
    s = g
    t = g
    for _ in range(n):
        s = s + g
        t = t * 0.5
    tl.store(Y + rows[:, None] * BLOCK + i[None, :], x * a[None, :] + b[None, :] + s + t)


def test_function_values_read_through_broadcasts_or_loops_stay_recomputed(rng):
    """A function value that is no load/store tile shape (f, 1-D, broadcast into a 2-D tile) stays
    recomputed: keeping it in registers would convert through threadgroup memory; a reader with
    several results (a loop) neither crashes the rule nor changes the result."""
    x = rng.standard_normal((4, 32)).astype(np.float32)
    out = function_reads[(1,)](mx.array(x.reshape(-1)), mf.empty((4 * 32,), mx.float32), 3, BLOCK=32)
    f = np.exp(np.arange(32) * -0.1)
    g = np.exp(np.arange(4 * 32).reshape(4, 32) * -0.01)
    want = x * (2 * f)[None, :] + (f + 1)[None, :] + 4 * g + g * 0.5 ** 3
    np.testing.assert_allclose(np.array(out).reshape(4, 32), want, rtol=1e-5, atol=1e-5)
    assert "threadgroup_barrier" not in function_reads.asm["msl"]


@pytest.mark.parametrize("fragment", [SIMDGROUP_MATRIX, TENSOR_CORE], ids=lambda f: f.name)
def test_fragment_lane_groups_share_rows_and_columns(fragment):
    """`row_lanes`: xor offsets reaching every lane that holds accumulator elements of the same
    rows (and no other lane); `column_lanes`: the same for columns. Reductions of a dot result
    shuffle across exactly these."""
    def cells(lane, which):
        return {evaluate(fragment.coord("c", lir.Lit(e, ir.int32))[which], {"lane": lane})
                for e in range(fragment.per_lane[2])}

    for offsets, which in ((fragment.row_lanes, 0), (fragment.column_lanes, 1)):
        for lane in range(32):
            group = {lane}
            for off in offsets:
                group |= {g ^ off for g in group}
            same = {other for other in range(32) if cells(other, which) == cells(lane, which)}
            assert group == same, (fragment.name, which, lane, sorted(group), sorted(same))
    rows, cols = fragment.c_grid  # a lane's elements: element e at (e // cols, e % cols) of its grid
    for lane in range(32):
        at = [tuple(evaluate(x, {"lane": lane}) for x in fragment.coord("c", lir.Lit(e, ir.int32)))
              for e in range(fragment.per_lane[2])]
        grid_rows, grid_cols = sorted({r for r, _ in at}), sorted({c for _, c in at})
        assert (len(grid_rows), len(grid_cols)) == (rows, cols)
        assert at == [(grid_rows[e // cols], grid_cols[e % cols]) for e in range(len(at))]


@pytest.mark.parametrize("fragment", [SIMDGROUP_MATRIX, TENSOR_CORE], ids=lambda f: f.name)
@pytest.mark.parametrize("shape,warps,warps_m", [((32, 32), 4, None), ((64, 16), 4, 4), ((16, 64), 2, 1),
                                                 ((32, 64), 8, None)])
def test_mma_local_indices_address_rows_and_columns(fragment, shape, warps, warps_m):
    """What a reduction of a dot result relies on (a Slice of the MMA layout): slot_of inverts
    local_index, and slots of one thread with the same local index along a dimension hold the same
    coordinate along it, for every lane and simdgroup."""
    layout = mma_layout(shape, warps, fragment, warps_m)
    k = lir.Sym("k")
    for warp, lane in itertools.product(range(warps), range(32)):
        env = {"lane": lane, "warp": warp}
        row_of, col_of = {}, {}
        for slot in range(layout.slots):
            env["k"] = slot
            local = [evaluate(layout.local_index(k, d), env) for d in (0, 1)]
            assert 0 <= local[0] < layout.local[0] and 0 <= local[1] < layout.local[1]
            assert evaluate(layout.slot_of([lir.Lit(local[0], ir.int32), lir.Lit(local[1], ir.int32)]), env) == slot
            row, col = (evaluate(c, env) for c in layout.coords(k))
            assert row_of.setdefault(local[0], row) == row and col_of.setdefault(local[1], col) == col
        assert len(row_of) * len(col_of) == layout.slots


@pytest.mark.parametrize("fragment", [SIMDGROUP_MATRIX, TENSOR_CORE], ids=lambda f: f.name)
@pytest.mark.parametrize("shape,warps,warps_m", [((32, 32), 4, None), ((32, 64), 8, 2)])
@pytest.mark.parametrize("dim", [0, 1])
def test_reduction_of_a_dot_result_covers_each_line_once(fragment, shape, warps, warps_m, dim):
    """The three steps of a reduction of an MMA tile along `dim` (reductions.py): a thread's slots
    of one Slice slot, then the lanes reached by lane_xors, then the simdgroups along dim, cover
    exactly the elements of the line (row or column) the Slice slot's coordinates name, each once."""
    layout = mma_layout(shape, warps, fragment, warps_m)
    sl = Slice(layout, dim)
    k = lir.Sym("k")
    used = layout.warps[0] * layout.warps[1]
    for warp, lane in itertools.product(range(used), range(32)):
        for slot in range(sl.slots):
            env = {"lane": lane, "warp": warp, "k": slot}
            (line,) = (evaluate(c, env) for c in sl.coords(k))
            lanes = {lane}
            for off in layout.lane_xors(dim):
                lanes |= {x ^ off for x in lanes}
            same_group = [w for w in range(used)
                          if all(evaluate(layout.warp_coord(d), {"warp": w}) == evaluate(layout.warp_coord(d),
                                                                                           {"warp": warp})
                                 for d in (0, 1) if d != dim)]
            seen = []
            for w, l in itertools.product(same_group, sorted(lanes)):
                for j in range(layout.local[dim]):
                    e = {"lane": l, "warp": w, "k": slot}
                    ps = evaluate(sl.parent_slot(k, lir.Lit(j, ir.int32)), e)
                    e["k"] = ps
                    c = [evaluate(x, e) for x in layout.coords(k)]
                    assert c[1 - dim] == line
                    seen.append(c[dim])
            assert sorted(seen) == list(range(shape[dim])), (warp, lane, slot, sorted(seen))


@pytest.mark.parametrize("fragment,shape,warps,warps_m,expected", [
    (SIMDGROUP_MATRIX, (32, 32), 4, None, (4, 1)), (SIMDGROUP_MATRIX, (16, 32), 4, None, (2, 2)),
    (TENSOR_CORE, (32, 32), 4, None, (2, 2)), (TENSOR_CORE, (64, 64), 4, None, (4, 1)),
    (SIMDGROUP_MATRIX, (32, 32), 4, 1, (1, 4))])
def test_rows_first_mma_layout_puts_simdgroups_along_the_rows(fragment, shape, warps, warps_m, expected):
    """For kernels that reduce dot results along their rows: as many simdgroups along the rows as
    there are fragment rows (a power of two), the rest along the columns; warps_m still decides."""
    assert mma_layout(shape, warps, fragment, warps_m, rows_first=True).warps == expected


@mf.jit
def column_max_onto_taller_tile(X, Y, O, M: tl.constexpr, N: tl.constexpr):
    rm, rm2, rn = tl.arange(0, M), tl.arange(0, 2 * M), tl.arange(0, N)
    x = tl.load(X + rm[:, None] * N + rn[None, :])
    y = tl.load(Y + rm2[:, None] * N + rn[None, :])  # another shape: another layout
    tl.store(O + rm2[:, None] * N + rn[None, :], y - tl.max(x, axis=0)[None, :])


def test_a_column_vector_broadcast_onto_another_layout_goes_through_memory_whole(rng):
    """A reduced column vector read by a tile of another layout is copied to threadgroup memory at
    its own coordinates (every element, not all at 0), then read at the consumer's."""
    M, N = 8, 64
    x, y = rng.standard_normal((M, N)).astype(np.float32), rng.standard_normal((2 * M, N)).astype(np.float32)
    out = column_max_onto_taller_tile[(1,)](mx.array(x.reshape(-1)), mx.array(y.reshape(-1)),
                                            mf.empty((2 * M * N,), mx.float32), M=M, N=N, num_warps=4)
    np.testing.assert_array_equal(np.array(out).reshape(2 * M, N), y - x.max(0)[None, :])


@mf.jit
def dot_and_row_sums(A, B, C, S, D_ROWS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a = tl.load(A + rm[:, None] * BK + rk[None, :])
    c = tl.dot(a, tl.load(B + rk[:, None] * BN + rn[None, :]))
    tl.store(S + rm, tl.sum(a, axis=1))  # a row reduction of an input tile: the dot keeps its grid
    if D_ROWS:
        tl.store(S + rm, tl.max(c * 2.0, axis=1))  # of a function of the dot result: rows first
    tl.store(C + rm[:, None] * BN + rn[None, :], c)


@pytest.mark.parametrize("reduces_the_dot", [False, True])
def test_rows_first_only_when_a_dot_result_is_reduced_along_rows(reduces_the_dot):
    types = {"A": ir.ptr(ir.float32), "B": ir.ptr(ir.float32), "C": ir.ptr(ir.float32), "S": ir.ptr(ir.float32)}
    fn = build(dot_and_row_sums, types, {"D_ROWS": reduces_the_dot, "BM": 64, "BN": 64, "BK": 16})
    plan = assign_layouts(fn, 4)
    (layout,) = {plan.values[op.result.id] for op in fn.walk() if op.opcode == "dot"}
    assert layout.warps == ((4, 1) if reduces_the_dot else (2, 2))


def test_compile_ir_refuses_matmul2d_without_staged_operands():
    """matmul2d multiplies tensors in memory: a direct compile_ir call with unstaged dot operands is
    refused (launches normalise num_stages first: dot_stages_for)."""
    fn = build(dot_and_row_sums, {"A": ir.ptr(ir.float16), "B": ir.ptr(ir.float16), "C": ir.ptr(ir.float32),
                                  "S": ir.ptr(ir.float32)}, {"D_ROWS": False, "BM": 16, "BN": 16, "BK": 16})
    with pytest.raises(ValueError, match="matmul2d multiplies staged tiles"):
        compile_ir(fn, {"C", "S"}, 4, "msl", dot_stages=0, matmul2d=True)
    assert [dot_stages_for(s, m) for s, m in ((None, False), (0, False), (3, False), (0, True), (None, True))] == \
        [1, 0, 2, 1, 1]
    # CUDA copies dot operands asynchronously into up to 4 buffers
    assert [dot_stages_for(s, False, "cuda") for s in (None, 2, 3, 4, 6)] == [1, 2, 3, 4, 4]


@mf.jit
def unpack_words(W, X, S, Y, BN: tl.constexpr, BW: tl.constexpr):
    """A quantized matvec's step: packed 4-bit words unpacked along a third axis, one scale per
    group of 8 words, x per word."""
    rows = tl.arange(0, BN)
    w = tl.arange(0, BW)
    j = tl.arange(0, 8)
    words = tl.load(W + rows[:, None] * BW + w[None, :])
    q = ((words[:, :, None] >> (j * 4)[None, None, :]) & 15).to(tl.float32)
    s = tl.load(S + rows[:, None, None] * (BW // 8) + (w // 8)[None, :, None])
    x = tl.load(X + (w * 8)[None, :, None] + j[None, None, :])
    tl.store(Y + rows, tl.sum(tl.sum(q * s * x, axis=2), axis=1))


@pytest.mark.parametrize("target", ["msl", "cuda"])
def test_register_broadcasts_and_loads_in_their_readers_layout(target):
    """words[:, :, None] broadcast over the nibbles stays in each thread's registers; x and the scales,
    broadcast onto that tile, are loaded in its layout (x as vectors along the nibbles, a scale once
    per thread's run of words: `w // 8` is constant over 8 words); nothing goes through threadgroup
    memory and the sum over the nibbles stays in the thread."""
    types = {"W": ir.ptr(ir.uint32), "X": ir.ptr(ir.float32), "S": ir.ptr(ir.float32), "Y": ir.ptr(ir.float32)}
    fn = build(unpack_words, types, {"BN": 8, "BW": 32})
    plan = assign_layouts(fn, 2, CUDA if target == "cuda" else METAL)
    words_load, s_load, x_load = [op for op in fn.walk() if op.opcode == "load"]
    words = plan.of(words_load.result)
    assert words == default_blocked((8, 32), 2, vec=4)  # 4 words, 16 bytes, a thread
    tile = words.with_axis(2).reshaped((8, 32, 8))
    assert tile.spt == (1, 4, 8)
    assert plan.of(x_load.result) == tile.reshaped((1, 32, 8)) and plan.of(s_load.result) == tile.reshaped((8, 32, 1))
    assert not any(isinstance(l, Shared) for l in plan.values.values())
    assert plan.constant_runs == {id(s_load): 4}
    info = analyse(fn, {})
    quotient = next(op for op in fn.walk() if op.opcode == "sdiv" and op.result.type.shape).result
    assert info[quotient.id].constancy == (8,)
    kernel = compile_ir(fn, {"Y"}, 2, target)
    assert kernel.shared_bytes == 0 and kernel.facts.barriers == 0
    # a thread: its row's 4 words in one 16-byte load, their 32 float x in 8, one 4-byte scale
    assert kernel.facts.loads == {16: 9, 4: 1}
