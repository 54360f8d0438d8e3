"""`tl.dot` lowering: operands staged in threadgroup memory, products on the target's matrix
fragments (codegen/fragments.py: Metal's simdgroup_matrix, NVIDIA's mma.sync), the result in the
`MMA` register layout.

Each simdgroup keeps its accumulator fragments for the whole K extent: per step of the fragment's
depth it loads one A fragment per fragment row and one B fragment per fragment column (on Metal
converted to float, as MLX's Steel kernels do, so fp16/bf16 inputs accumulate in fp32) and issues
one multiply-accumulate per (row, column) pair. Operands are read from threadgroup memory through their strides, so a transposed
operand (`tl.trans`) is read in place rather than copied.

Dots the fragments cannot do (`fragments.on_fragments`: int8 -> int32, float16 accumulated in float16,
batched 3-D tiles) run as per-thread multiply-adds over operands in threadgroup memory
(`lower_fma_dot`): correct on every target, not fast.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...dsl import ir
from ...dsl.ir import Operation, Value, shape_of
from .. import lir
from ..fragments import TENSOR_CORE, Fragment, LaneAddress, on_fragments
from ..layouts import MMA, Remat, add, div, lit, mul_
from ..lir import Bin, Call, Cast, Expr, FragmentElement, Index, Lit, Special, Sym
from .core import FragmentRepr, Lowering, RegsRepr, RematRepr, SharedRepr, store_to_shared

def _convert(t: ir.ScalarType, e: Expr, source: ir.ScalarType) -> Expr:
    return e if t == source else Cast(t, e)


def _strides(sh: SharedRepr) -> tuple[Expr, int, int] | None:
    """(offset, row stride, column stride) of a 2-D threadgroup view, when its indexing is affine."""
    rows, cols = sh.shape
    probe = {(r, c): sh.index([lit(r), lit(c)]) for r, c in ((0, 0), (1, 0), (0, 1), (rows - 1, cols - 1))}
    if not all(isinstance(e, Lit) for e in probe.values()):
        return None
    base = probe[0, 0].value
    sr, sc = probe[1, 0].value - base, probe[0, 1].value - base
    if rows > 1 and cols > 1 and probe[rows - 1, cols - 1].value != base + (rows - 1) * sr + (cols - 1) * sc:
        return None
    return lit(base), sr, sc


@dataclass(frozen=True)
class Staged:
    """An operand in threadgroup memory: element (row, col) at
    name[base + offset + row*row_stride + col*col_stride] (`base`: this iteration's buffer, or none)."""
    name: str
    offset: int
    row_stride: int
    col_stride: int
    base: Expr | None

    def at(self, row: Expr, col: Expr) -> Expr:
        position = add(add(lit(self.offset), mul_(row, lit(self.row_stride))), mul_(col, lit(self.col_stride)))
        return Index(Sym(self.name), position if self.base is None else add(self.base, position))


def _in_shared(lw: Lowering, v: Value) -> SharedRepr:
    """Operand `v` in threadgroup memory: where it already is (its copies, a view of a staged tile),
    else stored from its registers as the layout plan stages it (padded, or swizzled for wgmma)."""
    r = lw.env[v.id]
    if isinstance(r, SharedRepr):
        return r
    if not isinstance(r, RegsRepr):  # index arithmetic or constants: registers first, where v is defined
        layout = lw.plan.default(v)
        with lw.at_definition(v):
            lw.env[v.id] = RegsRepr(lw.materialize(v, layout), layout)
    return lw.to_shared(v)


def _operand(lw: Lowering, v: Value) -> Callable[[Expr, Expr], Expr] | Staged:
    """Operand `v`: in threadgroup memory through its strides, or, for a load deferred to this dot
    (`num_stages=0`), a reader of its element at (row, column) from device memory."""
    r = lw.env[v.id]
    if isinstance(r, RematRepr) and r.op.opcode == "load":
        return lambda row, col: lw.read(v, Remat(), None, [row, col])
    sh = _in_shared(lw, v)
    if _strides(sh) is None:  # a non-affine view (reshape)
        return _row_major(lw, v)
    offset, sr, sc = _strides(sh)
    return Staged(sh.name, offset.value, sr, sc, sh.base)


def _row_major(lw: Lowering, v: Value) -> Staged:
    """`v` copied out to threadgroup memory row-major."""
    layout = lw.plan.default(v)
    lw.env[v.id] = RegsRepr(lw.materialize(v, layout, copy=True), layout)
    sh = store_to_shared(lw, v)
    offset, sr, sc = _strides(sh)
    return Staged(sh.name, offset.value, sr, sc, sh.base)


def _result_as_a(lw: Lowering, a: Value, layout: MMA) -> RegsRepr | None:
    """Operand `a` straight from the registers of another dot's result, where they already are its A
    fragments (flash attention's P, as FlashAttention-2 does): on m16n8k16 the accumulators of two
    neighbouring 16x8 result tiles hold exactly the A fragment of a 16x16 block, when one warp holds
    whole rows of `a` (warps (wm, 1)) and the same rows of this product (the same wm, and a single
    warp column or row). None otherwise (the operand is staged)."""
    r = lw.env[a.id]
    source = r.layout if isinstance(r, RegsRepr) else None
    if (not isinstance(source, MMA) or source.fragment is not TENSOR_CORE or layout.fragment is not TENSOR_CORE
            or source.warps != (layout.warps[0], 1) or 1 not in layout.warps
            or source.num_warps != layout.num_warps or source.shape[1] % TENSOR_CORE.depth):
        return None
    return r


def _matrix_load(fragment: Fragment, role: str, operand: Callable | Staged, in_type: ir.ScalarType,
                 kept: ir.ScalarType, pair: bool = False) -> LaneAddress | None:
    """The target's one-instruction fragment load for a staged operand, where its layout allows it:
    16-bit elements kept as they are, one axis contiguous, rows 16-byte aligned (`pair`: of two
    fragments at once, where the target can)."""
    if not isinstance(operand, Staged) or in_type != kept or in_type.bits != 16:
        return None
    strides = (operand.row_stride, operand.col_stride)
    if 1 not in strides:
        return None
    contiguous = strides.index(1)
    if (operand.offset * 2) % 16 or (strides[1 - contiguous] * 2) % 16:
        return None
    return fragment.matrix_load(role, contiguous, pair)


def _tensor(lw: Lowering, v: Value) -> tuple[lir.Tensor, bool]:
    """Operand `v` staged in threadgroup memory as a Metal tensor, and whether the tensor holds its
    transpose (a `tl.trans` view read in place); a view with neither axis contiguous is copied
    row-major first."""
    sh = _operand(lw, v)  # staged: matmul2d launches stage dot operands (jit)
    if 1 not in (sh.row_stride, sh.col_stride):
        sh = _row_major(lw, v)
    rows, cols = shape_of(v.type)
    offset = lit(sh.offset) if sh.base is None else add(sh.base, lit(sh.offset))
    data = add(Sym(sh.name), offset)
    element = ir.element_of(v.type)
    if sh.col_stride == 1:
        return lir.Tensor(data, element, "threadgroup", (cols, rows), (1, sh.row_stride)), False
    return lir.Tensor(data, element, "threadgroup", (rows, cols), (1, sh.col_stride)), True


def lower_tensor_matmul(lw: Lowering, op: Operation) -> None:
    """`tl.dot` on Metal 4's cooperative matmul (`matmul2d`, launch setting `matmul2d=True`): the
    product of the staged operand tiles goes to a float tile in threadgroup memory, which each
    thread adds into its accumulator registers (the blocked layout: rows read whole). The
    cooperative tensor's register layout is opaque, so the product is read back through memory
    rather than kept in it."""
    a, b = op.operands[:2]
    acc = op.operands[2] if len(op.operands) > 2 else None
    r = op.result
    (m, k), n = shape_of(a.type), shape_of(r.type)[1]
    (ta, a_transposed), (tb, b_transposed) = _tensor(lw, a), _tensor(lw, b)
    product = lw.alloc_shared("product_smem", ir.float32, m * n)
    dest = lir.Tensor(Sym(product), ir.float32, "threadgroup", (n, m), (1, n))
    lw.emit(lir.Barrier())  # the operands are written and earlier readers of the product tile are done
    lw.emit(lir.TensorMatmul(dest, ta, tb, m, n, k, a_transposed, b_transposed, lw.num_warps))
    lw.emit(lir.Barrier())
    out = ir.element_of(r.type)
    layout = lw.plan.of(r)
    name = lw.result_array(op, layout)

    def accumulate(slot: Expr, coords: list[Expr]) -> None:
        value = _convert(out, Index(Sym(product), add(mul_(coords[0], lit(n)), coords[1])), ir.float32)
        if acc is not None:
            value = Bin("+", lw.read(acc, layout, slot, coords), value)
        lw.emit(lir.Assign(Index(Sym(name), slot), value))
    lw.slot_loop(layout, accumulate)
    lw.env[r.id] = RegsRepr(name, layout)


def lower_dot(lw: Lowering, op: Operation) -> None:
    a, b = op.operands[:2]
    acc = op.operands[2] if len(op.operands) > 2 else None
    r = op.result
    in_type = ir.element_of(a.type)
    if not on_fragments(in_type, ir.element_of(r.type), len(shape_of(r.type))):
        return lower_fma_dot(lw, op)
    if lw.plan.matmul2d:
        return lower_tensor_matmul(lw, op)
    if id(op) in lw.plan.warpgroup_dots:
        return lower_warpgroup_dot(lw, op)
    layout = lw.plan.of(r)
    assert isinstance(layout, MMA), layout
    k_extent = shape_of(a.type)[1]
    out = ir.element_of(r.type)
    a_regs = _result_as_a(lw, a, layout)
    a_op, b_op = a_regs or _operand(lw, a), _operand(lw, b)
    a_at = a_op.at if isinstance(a_op, Staged) else a_op
    b_at = b_op.at if isinstance(b_op, Staged) else b_op

    fragment = layout.fragment
    a_load = None if a_regs else _matrix_load(fragment, "a", a_op, in_type, fragment.operand_type(in_type))
    fm, fn = layout.fragments
    b_load = _matrix_load(fragment, "b", b_op, in_type, fragment.operand_type(in_type), pair=fn % 2 == 0)
    per_a, per_b, _ = fragment.per_lane
    operand = fragment.operand_type(in_type)
    a_frag, b_frag = lir.FragmentType(operand, fragment.name, "a"), lir.FragmentType(operand, fragment.name, "b")
    fa, fb = lw.name(None, "frag_a"), lw.name(None, "frag_b")
    i, j, kk = (Sym(lw.name(None, n)) for n in ("i", "j", "kk"))

    # this lane's place in a fragment and this simdgroup's first fragment, named once
    lane = [Sym(lw.name(None, n)) for n, _ in fragment.lane_values()]
    row0, col0 = Sym(lw.name(None, "warp_row")), Sym(lw.name(None, "warp_col"))
    for var, (_, value) in zip(lane, fragment.lane_values()):
        lw.emit(lir.Decl(var.name, ir.int32, init=value))
    lw.emit(lir.Decl(row0.name, ir.int32, init=layout.fragment_origin(lit(0), 0)))
    lw.emit(lir.Decl(col0.name, ir.int32, init=layout.fragment_origin(lit(0), 1)))
    accumulator = _accumulator(lw, layout, acc, out)
    fc = accumulator.name

    def each_fragment(var: Sym, count: int, body: list[lir.Stmt], step: int = 1) -> lir.Stmt:
        return lir.For(var.name, lit(0), Bin("<", var, lit(count)), lit(step), body, unroll=True, type=ir.int32)

    def element(array: str, index: Expr, e: int) -> Expr:
        return FragmentElement(Index(Sym(array), index), e)

    def a_element(e: int) -> Expr:
        if a_regs is not None:  # A element e is C element e % 4 of the result tile 2 * (kk / 16) + e / 4
            pair = mul_(div(kk, fragment.depth), lit(2))
            tile = add(add(mul_(i, lit(a_regs.layout.fragments[1])), pair), lit(e // 4))
            return a_regs.slot(add(mul_(tile, lit(a_regs.layout.per_lane)), lit(e % 4)))
        r_, c_ = fragment.coord("a", lit(e), lane)
        row, col = a_origin(i)
        return _convert(operand, a_at(add(row, r_), add(col, c_)), in_type)

    def b_element(e: int) -> Expr:
        r_, c_ = fragment.coord("b", lit(e), lane)
        row, col = b_origin(j)
        return _convert(operand, b_at(add(row, r_), add(col, c_)), in_type)

    def a_origin(index: Expr, depth: Expr = kk, first: Expr = row0) -> tuple[Expr, Expr]:
        """The first element of A fragment `index` (`first`: this simdgroup's first row)."""
        return add(first, mul_(index, lit(fragment.rows * layout.warps[0]))), depth

    def b_origin(index: Expr, depth: Expr = kk, first: Expr = col0) -> tuple[Expr, Expr]:
        return depth, add(first, mul_(index, lit(fragment.cols * layout.warps[1])))

    def lane_address(operand: Staged, load: LaneAddress | None, origin, role: str) -> Sym | None:
        """This lane's element of the first fragment (or pair) at depth 0, named once before the
        depth loop (Steel's `As_offset`, folded once in `BlockMMA`): each matrix load then adds a
        constant after unrolling, which the compiler folds into the instruction's offset."""
        if load is None:
            return None
        row, col = origin(load.neighbour if load.neighbour is not None else lit(0), lit(0))
        name = lw.name(None, f"{role}_lane")
        lw.emit(lir.Decl(name, ir.int32, init=operand.at(add(row, load.row), add(col, load.col)).index))
        return Sym(name)

    def fill(array: str, var: Sym, count: int, per: int, value: Callable[[int], Expr],
             operand: Callable | Staged, load: LaneAddress | None, lane_at: Sym | None, origin) -> lir.Stmt:
        """Load this lane's elements of fragments array[0..count): in one matrix load each (of a
        pair: `neighbour`) where the target has one, else element by element (reads may declare
        values: nested)."""
        if load is not None:
            row, col = origin(var, kk, lit(0))  # from the lane's element of the first fragment
            step = add(mul_(row, lit(operand.row_stride)), mul_(col, lit(operand.col_stride)))
            pair = Index(Sym(array), add(var, lit(1))) if load.neighbour is not None else None
            return each_fragment(var, count, [lir.MatrixLoad(Index(Sym(array), var), Bin("+", Sym(operand.name), lane_at),
                                                             step, load.count, load.transpose, pair)],
                                 step=1 + (pair is not None))
        return each_fragment(var, count, lw.nested(lambda: [lw.emit(lir.Assign(element(array, var, e), value(e)))
                                                             for e in range(per)]))

    a_lane, b_lane = lane_address(a_op, a_load, a_origin, "a"), lane_address(b_op, b_load, b_origin, "b")

    def step() -> None:
        lw.emit(lir.Decl(fa, a_frag, size=fm))
        lw.emit(lir.Decl(fb, b_frag, size=fn))
        lw.emit(fill(fa, i, fm, per_a, a_element, a_op, a_load, a_lane, a_origin))
        lw.emit(fill(fb, j, fn, per_b, b_element, b_op, b_load, b_lane, b_origin))
        lw.emit(each_fragment(i, fm, [each_fragment(j, fn, [lir.MultiplyAccumulate(
            Index(Sym(fc), add(mul_(i, lit(fn)), j)), Index(Sym(fa), i), Index(Sym(fb), j), fragment.name)])]))

    lw.emit(lir.For(kk.name, lit(0), Bin("<", kk, lit(k_extent)), lit(fragment.depth), lw.nested(step),
                    unroll=k_extent // fragment.depth <= 8, type=ir.int32))
    if out == ir.float32:  # consumers read the fragments in place
        lw.env[r.id] = accumulator
        return
    name = lw.result_array(op, layout)  # a result of another type: converted once, after the products
    lw.slot_loop(layout, lambda k, coords: lw.emit(lir.Assign(Index(Sym(name), k),
                                                              _convert(out, accumulator.slot(k), ir.float32))))
    lw.env[r.id] = RegsRepr(name, layout)


def _swizzled(lw: Lowering, v: Value) -> SharedRepr:
    """Operand `v` in threadgroup memory in wgmma's swizzle: the view of its copies (an `AsyncTile`)
    or its registers stored there (`stage_dot_operands` marked it for both)."""
    sh = _in_shared(lw, v)
    if not sh.swizzled:  # warpgroup_dot admits no operand that could arrive otherwise: a compiler defect
        raise lw.error(f"internal error: the wgmma operand {v} is not staged in the swizzled layout",
                       "launch without wgmma=True and report the kernel")
    return sh


def _descriptor(sh: SharedRepr, offset: Expr, leading: int, stride: int) -> Expr:
    """The shared-memory matrix descriptor of `sh` from element `offset` of its buffer: `leading` and
    `stride` byte offsets as wgmma's 128-byte-swizzled canonical layouts define them."""
    start = offset if sh.base is None else add(sh.base, offset)
    return Call("wgmma_desc", (Bin("+", Sym(sh.name), start), lit(leading), lit(stride)))


def lower_warpgroup_dot(lw: Lowering, op: Operation) -> None:
    """`tl.dot` on Hopper's wgmma (`warpgroup_dot` chose it): per K step of 16 and per 64-row slice
    of a warpgroup, one asynchronous m64n{N}k16 reading A (K-major: its rows, 128 bytes of K each,
    8-row groups 1024 bytes apart; a step moves 32 bytes along the row, inside the swizzle atom) and B
    from their swizzled tiles through descriptors, adding into the accumulator fragments, whose m16n8
    layout is each warp's share of wgmma's. B is stored K x N, N contiguous (`transpose_b`, 64-column
    blocks K * 128 bytes apart), or, for `tl.trans` of an (N, K) tile, K-major as A is. The products
    are fenced from the accumulators' earlier writes and committed as one group. They are waited for before the result is read, or, where both operands'
    rings have a spare buffer (memory.py `_spare_buffers`: the dot accumulates in place in a loop),
    left running while the next iteration waits for its copies (`wait_group 1`; the loop waits for
    all after its last iteration)."""
    a, b = op.operands[:2]
    acc = op.operands[2] if len(op.operands) > 2 else None
    r = op.result
    layout = lw.plan.of(r)
    (m, k_extent), n = shape_of(a.type), shape_of(r.type)[1]
    b_tile = lw.plan.warpgroup_dots[id(op)]
    k_major = b_tile is not b
    sa, sb = _swizzled(lw, a), _swizzled(lw, b_tile)
    accumulator = _accumulator(lw, layout, acc, ir.element_of(r.type))
    fm, fn = layout.fragments
    group_row = Sym(lw.name(None, "group_row"))  # this warpgroup's first row: 64 per 4 warps
    lw.emit(lir.Decl(group_row.name, ir.int32, init=mul_(div(Special("warp"), 4), lit(64))))
    lw.emit(lir.WarpgroupFence())
    for kk in range(0, k_extent, 16):
        if k_major:  # N rows of 64-column blocks, as A's M rows
            b_desc = _descriptor(sb, lit((kk // 64) * n * 64 + kk % 64), 16, 1024)
        else:
            b_desc = _descriptor(sb, lit(kk * 64), k_extent * 128, 1024)
        for i in range(fm):  # warp w's row fragment i is rows 16 * (i * num_warps + w): slice i of its group
            row = add(lit(16 * i * layout.num_warps), group_row)
            a_start = add(lit((kk // 64) * m * 64 + kk % 64), mul_(row, lit(64)))
            lw.emit(lir.WarpgroupMMA(Sym(accumulator.name), i * fn, n, _descriptor(sa, a_start, 16, 1024), b_desc,
                                     ir.element_of(a.type), transpose_b=not k_major))
    lw.emit(lir.WarpgroupCommit())
    held = lir.WarpgroupWait(0, Sym(accumulator.name), fm * fn)
    if all(v.id in lw.async_tiles and lw.async_tiles[v.id].spare for v in (a, b_tile)):  # runs on
        lw.emit(lir.WarpgroupWait(1))
        lw.loops[-1].after.append(held)
    else:
        lw.emit(held)
    lw.env[r.id] = accumulator


def lower_fma_dot(lw: Lowering, op: Operation) -> None:
    """`tl.dot` as per-thread multiply-adds: each thread sums, for each element of the result it holds
    (its layout: the default blocked one), the K products of its row of A and column of B, read from
    threadgroup memory (or recomputed, for index arithmetic), in the result's type: int32 for int8
    operands (exact: |127 * 128| * K < 2**31 for K < 131072), float16 for float16 operands with
    `out_dtype=tl.float16` (rounded at every step, as Triton's float16 accumulators are). A batched
    product reads A[b, m, k] and B[b, k, n]."""
    a, b = op.operands[:2]
    acc = op.operands[2] if len(op.operands) > 2 else None
    r = op.result
    out, k_extent = ir.element_of(r.type), shape_of(a.type)[-1]
    for v in (a, b):
        if not isinstance(lw.env[v.id], RematRepr):
            lw.to_shared(v)
    layout = lw.plan.of(r)
    name = lw.result_array(op, layout)

    def element(k: Expr, coords: list[Expr]) -> None:
        total, kk = lw.name(None, "sum"), Sym(lw.name(None, "kk"))
        batch, (row, col) = coords[:-2], coords[-2:]
        init = _convert(out, lw.read(acc, layout, k, coords), out) if acc is not None else Lit(0, out)
        lw.emit(lir.Decl(total, out, init=init))

        def product() -> None:
            x = _convert(out, lw.read(a, Remat(), None, [*batch, row, kk]), ir.element_of(a.type))
            y = _convert(out, lw.read(b, Remat(), None, [*batch, kk, col]), ir.element_of(b.type))
            lw.emit(lir.Assign(Sym(total), Bin("+", Sym(total), Bin("*", x, y))))
        lw.emit(lir.For(kk.name, lit(0), Bin("<", kk, lit(k_extent)), lit(1), lw.nested(product), type=ir.int32))
        lw.emit(lir.Assign(Index(Sym(name), k), Sym(total)))
    lw.slot_loop(layout, element)
    lw.env[r.id] = RegsRepr(name, layout)


def _accumulator(lw: Lowering, layout: MMA, acc: Value | None, out: ir.ScalarType) -> FragmentRepr:
    """The fragments a dot adds its products into: a loop-carried accumulator's own, added into in
    place (`Lowering.fragment_accumulators`), or fresh ones holding `acc` (or zero)."""
    if acc is not None and acc.id in lw.fragment_accumulators:
        return lw.env[acc.id]
    if acc is not None:
        lw.ready([acc], layout)
    fragments = lw.fragments(layout)
    lw.slot_loop(layout, lambda k, coords: lw.emit(lir.Assign(fragments.slot(k), _convert(
        ir.float32, lw.read(acc, layout, k, coords), out) if acc is not None else Lit(0.0, ir.float32))))
    return fragments


HANDLERS = {"dot": lower_dot}
