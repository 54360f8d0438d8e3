"""Reduction and scan lowering. A reduction along one axis runs in three steps, as on any SIMT GPU:
combine the thread's own slots, then the lanes of the simdgroup that hold other parts of the row
(xor shuffles), then the simdgroups (through threadgroup memory). Scans are staged in threadgroup
memory and swept row by row; tl.sort runs a bitonic network on the staged rows; tl.histogram counts
each bin's elements."""
from __future__ import annotations

from typing import Callable

from ...dsl import ir
from ...dsl.ir import Operation, ScalarType, Value, element_of, shape_of
from .. import lir
from ..layouts import MMA, Blocked, Remat, Scalar, Slice, add, flat_index, lit, mul_, prod, unravel
from ..lir import Bin, Call, Expr, Index, Select, Shuffle, Special, Sym
from .core import Lowering, RegsRepr, RematRepr, ScalarRepr, SharedRepr

Combine = Callable[[list[Expr], list[Expr]], list[Expr]]


def _combine_for(lw: Lowering, op: Operation, element: ScalarType) -> Combine:
    kind = op.opcode
    if kind == "sum" or kind == "cumsum":
        return lambda a, b: [Bin("+", a[0], b[0])]
    if kind in ("max", "min"):
        return lambda a, b: [Call(kind, (a[0], b[0]), element)]
    if kind in ("argmax", "argmin"):
        better = ">" if kind == "argmax" else "<"

        def pick(a, b):
            name = lw.name(None, "take")
            takes = Bin("||", Bin(better, b[0], a[0]), Bin("&&", Bin("==", b[0], a[0]), Bin("<", b[1], a[1])))
            lw.emit(lir.Decl(name, ir.int1, init=takes))
            return [Select(Sym(name), b[0], a[0]), Select(Sym(name), b[1], a[1])]
        return pick
    region = op.regions[0]

    def user(a, b):
        for arg, e in zip(region.args, [*a, *b]):
            lw.env[arg.id] = ScalarRepr(e)
        lw.lower_block(region.ops[:-1])
        combined = [lw.read(v, Scalar(), None, []) for v in region.ops[-1].operands]
        if len(combined) == 1:
            return combined
        # the callers assign the accumulators one after another: name every combined value first,
        # so that none reads an accumulator already overwritten
        names = [lw.name(None, "combined") for _ in combined]
        for name, e, v in zip(names, combined, region.ops[-1].operands):
            lw.emit(lir.Decl(name, v.type, init=e))
        return [Sym(name) for name in names]
    return user


def lower_reduction(lw: Lowering, op: Operation) -> None:
    """Reduce the operands (one tile, or several of one shape for tl.reduce over a tuple) along an
    axis; the accumulators of all operands travel together through every step."""
    x = op.operands[0]
    parent: Blocked | MMA | Slice = lw.plan.reduce_parent[id(op)]
    flatten = op.attrs.get("axis") is None and len(shape_of(x.type)) > 1
    axis = op.attrs.get("axis") or 0
    x_shape = shape_of(x.type)
    value_type = element_of(x.type)
    with_index = op.opcode in ("argmax", "argmin")
    combine = _combine_for(lw, op, value_type)

    # The operands in registers, and the layout P and dimension along which the reduction runs.
    def in_registers(v: Value) -> str:
        if not flatten:
            return lw.materialize(v, parent)
        lw.ready([v], parent)  # read the tile as 1-D
        flat = lw.name(v, "flat")
        lw.emit(lir.Decl(flat, element_of(v.type), size=parent.slots))
        lw.slot_loop(parent, lambda k, c: lw.emit(lir.Assign(
            Index(Sym(flat), k), lw.read(v, parent, None, unravel(c[0], x_shape)))))
        return flat
    xss = [in_registers(v) for v in op.operands]
    if isinstance(parent, Slice):
        # A 1-D slice of a 2-D tile (e.g. attention scores): reduce along the parent's other
        # dimension, in registers; threads along the sliced dimension hold copies and agree.
        P, pdim, loop, result_shape = parent.parent, 1 - parent.dim, Scalar(), ()

        def items(k) -> list[tuple[Expr, Expr]]:
            return [(lit(j), parent.coords(lit(j))[0]) for j in range(parent.slots)]
    else:
        P, pdim, loop = parent, axis, Slice(parent, axis)
        result_shape = loop.shape

        def items(k) -> list[tuple[Expr, Expr]]:
            slots = [loop.parent_slot(k, lit(j)) for j in range(parent.local[axis])]
            return [(ps, parent.coords(ps)[axis]) for ps in slots]
    types = [element_of(v.type) for v in op.operands] + ([ir.int32] if with_index else [])
    accs = [lw.name(r, "acc") for r in op.results[:len(op.operands)]] + ([lw.name(None, "acc_index")] if with_index
                                                                         else [])
    for name, t in zip(accs, types):
        lw.emit(lir.Decl(name, t, size=prod(result_shape) if isinstance(loop, Scalar) else loop.slots))

    def acc_at(k) -> list[Expr]:
        return [Index(Sym(a), k if k is not None else lit(0)) for a in accs]

    def set_acc(k, values) -> None:
        for a, v in zip(acc_at(k), values):
            lw.emit(lir.Assign(a, v))

    # 1. this thread's slots along the dimension
    def own(k, coords):
        for j, (slot, coord) in enumerate(items(k)):
            item = [Index(Sym(xs), slot) for xs in xss] + ([coord] if with_index else [])
            set_acc(k, item if j == 0 else combine(acc_at(k), item))
    lw.slot_loop(loop, own)

    # 2. lanes of the simdgroup along it (xor butterfly over the distinct ones)
    for off in P.lane_xors(pdim):
        def exchange(k, coords, off=off):
            # every lane shuffles unconditionally: a shuffle inside `?:` would run in diverged lanes
            partner = []
            for a, t in zip(acc_at(k), types):
                name = lw.name(None, "partner")
                lw.emit(lir.Decl(name, t, init=Shuffle("xor", a, lit(off), t)))
                partner.append(Sym(name))
            set_acc(k, combine(acc_at(k), partner))
        lw.slot_loop(loop, exchange)

    # 3. simdgroups along it, through threadgroup memory
    warps = P.distinct_warps(pdim)
    if warps > 1:
        count = prod(result_shape)
        cells = [lw.alloc_shared(f"{a}_smem", t, warps * count) for a, t in zip(accs, types)]
        lw.emit(lir.Barrier())
        writer = Bin("&&", Bin("==", P.lane_coord(pdim), lit(0)), Bin("<", P.warp_coord(pdim), lit(warps)))
        if isinstance(P, MMA) and P.owner(lit(0)) is not None:  # replica simdgroups write nothing
            writer = Bin("&&", writer, P.owner(lit(0)))
        warp = P.warp_coord(pdim)

        def publish(k, coords):
            at = add(mul_(warp, lit(count)), flat_index(coords, result_shape))
            lw.emit(lir.If(writer, [lir.Assign(Index(Sym(c), at), v) for c, v in zip(cells, acc_at(k))]))
        lw.slot_loop(loop, publish)
        lw.emit(lir.Barrier())

        def gather(k, coords):
            f = flat_index(coords, result_shape)
            set_acc(k, [Index(Sym(c), f) for c in cells])
            for w in range(1, warps):
                set_acc(k, combine(acc_at(k), [Index(Sym(c), add(lit(w * count), f)) for c in cells]))
        lw.slot_loop(loop, gather)

    for r, result in zip(op.results, accs[1:] if with_index else accs):
        layout = lw.plan.of(r)
        if isinstance(layout, Scalar):
            name = lw.name(r)
            lw.emit(lir.Decl(name, element_of(r.type), init=Index(Sym(result), lit(0))))
            lw.env[r.id] = ScalarRepr(Sym(name))
        else:
            lw.env[r.id] = RegsRepr(result, layout)


def _stage(lw: Lowering, op: Operation, hint: str) -> list[str]:
    """Row-major copies of `op`'s operand tiles (of one shape) in threadgroup memory that the op may
    overwrite (each element written once, by its owner), between two barriers."""
    shape = shape_of(op.operands[0].type)
    layouts = [lw.plan.storage(x) for x in op.operands]
    for x, layout in zip(op.operands, layouts):
        lw.ready([x], layout)
    outs = [lw.alloc_shared(f"{lw.name(r, hint)}_smem", element_of(r.type), prod(shape)) for r in op.results]
    lw.emit(lir.Barrier())
    for x, layout, out in zip(op.operands, layouts, outs):
        def fill(k, coords, x=x, layout=layout, out=out):
            stmt = lir.Assign(Index(Sym(out), flat_index(coords, shape)), lw.read(x, layout, k, coords))
            owner = layout.owner(k)
            lw.emit(lir.If(owner, [stmt]) if owner is not None else stmt)
        lw.slot_loop(layout, fill)
    lw.emit(lir.Barrier())
    return outs


def lower_sort(lw: Lowering, op: Operation) -> None:
    """Bitonic sort of each row (the last axis, a power of two long) in threadgroup memory: log2(n) *
    (log2(n) + 1) / 2 rounds of compare-and-swap, each thread taking pairs (all rows at once), a barrier
    after each round. Pair q's lower element is lo = (q / j) * 2j + q % j, its partner lo + j; in the
    merges of size k < n, pairs with bit k of lo set run the other way (bitonic halves)."""
    x, r = op.operands[0], op.result
    shape = shape_of(x.type)
    n, element = shape[-1], element_of(x.type)
    (data,) = _stage(lw, op, "sort")
    q, lo, a, b = (lw.name(None, hint) for hint in ("pair", "lo", "a", "b"))
    descending = op.attrs["descending"]
    k = 2
    while k <= n:
        j = k // 2
        while j >= 1:
            def round_(k=k, j=j) -> None:
                lw.emit(lir.Decl(lo, ir.int32, init=add(mul_(Bin("/", Sym(q), lit(j)), lit(2 * j)),
                                                        Bin("%", Sym(q), lit(j)))))
                lw.emit(lir.Decl(a, element, init=Index(Sym(data), Sym(lo))))
                lw.emit(lir.Decl(b, element, init=Index(Sym(data), add(Sym(lo), lit(j)))))
                if k == n:  # the last merge: every pair one way
                    swap = Bin("<" if descending else ">", Sym(a), Sym(b))
                else:
                    upward = Bin("==", Bin("&", Sym(lo), lit(k)), lit(0))
                    swap = Bin("!=" if descending else "==", Bin(">", Sym(a), Sym(b)), upward)
                lw.emit(lir.If(swap, [lir.Assign(Index(Sym(data), Sym(lo)), Sym(b)),
                                      lir.Assign(Index(Sym(data), add(Sym(lo), lit(j))), Sym(a))]))
            lw.emit(lir.For(q, Special("tid"), Bin("<", Sym(q), lit(prod(shape) // 2)), lit(lw.threads),
                            lw.nested(round_), type=ir.int32))
            lw.emit(lir.Barrier())
            j //= 2
        k *= 2
    lw.env[r.id] = SharedRepr(data, shape, lambda coords: flat_index(coords, shape))


def lower_scan(lw: Lowering, op: Operation) -> None:
    """Inclusive scan along `axis` of one tile, or of several of one shape (tl.associative_scan over a
    tuple): stage the tiles in threadgroup memory, one thread per row sweeps all of them together."""
    shape, axis, reverse = shape_of(op.operands[0].type), op.attrs["axis"], op.attrs.get("reverse", False)
    combine = _combine_for(lw, op, element_of(op.operands[0].type))
    outs = _stage(lw, op, "scan")
    n = shape[axis]
    rest = shape[:axis] + shape[axis + 1:]
    row, i = lw.name(None, "row"), lw.name(None, "i")
    accs = [lw.name(None, "running") for _ in outs]

    def at(out: str, position: Expr) -> Expr:
        coords = unravel(Sym(row), rest) if rest else []
        return Index(Sym(out), flat_index(coords[:axis] + [position] + coords[axis:], shape))
    first = lit(n - 1) if reverse else lit(0)
    position = Bin("-", lit(n - 1), Sym(i)) if reverse else Sym(i)

    def step() -> None:
        combined = combine([Sym(a) for a in accs], [at(out, position) for out in outs])
        for acc, out, value in zip(accs, outs, combined):
            lw.emit(lir.Assign(Sym(acc), value))
            lw.emit(lir.Assign(at(out, position), Sym(acc)))

    def sweep() -> None:
        for acc, out, r in zip(accs, outs, op.results):
            lw.emit(lir.Decl(acc, element_of(r.type), init=at(out, first)))
        lw.emit(lir.For(i, lit(1), Bin("<", Sym(i), lit(n)), lit(1), lw.nested(step), type=ir.int32))
    rows = lw.nested(sweep)
    lw.emit(lir.For(row, Special("tid"), Bin("<", Sym(row), lit(max(1, prod(rest)))), lit(lw.threads), rows,
                    type=ir.int32))
    lw.emit(lir.Barrier())
    for r, out in zip(op.results, outs):
        lw.env[r.id] = SharedRepr(out, shape, lambda coords: flat_index(coords, shape))


def lower_histogram(lw: Lowering, op: Operation) -> None:
    """tl.histogram by counting: with the input (and mask) readable at any index (threadgroup memory,
    or recomputed for index arithmetic), each thread counts, for each bin it holds, the elements equal
    to the bin's number and not masked off. n compares per bin and no atomics: deterministic, and
    values outside [0, num_bins) match no bin."""
    x, mask = op.operands[0], op.operands[1] if len(op.operands) > 1 else None
    n = shape_of(x.type)[0]
    for v in op.operands:
        if not isinstance(lw.env[v.id], RematRepr):
            lw.to_shared(v)
    layout = lw.plan.of(op.result)
    name = lw.result_array(op, layout)

    def count(k: Expr, coords: list[Expr]) -> None:
        total, i = lw.name(None, "count"), Sym(lw.name(None, "i"))
        lw.emit(lir.Decl(total, ir.int32, init=lit(0)))

        def compare() -> None:
            hit = Bin("==", lw.read(x, Remat(), None, [i]), coords[0])
            if mask is not None:
                hit = Bin("&&", lw.read(mask, Remat(), None, [i]), hit)
            lw.emit(lir.Assign(Sym(total), Bin("+", Sym(total), Select(hit, lit(1), lit(0)))))
        lw.emit(lir.For(i.name, lit(0), Bin("<", i, lit(n)), lit(1), lw.nested(compare), type=ir.int32))
        lw.emit(lir.Assign(Index(Sym(name), k), Sym(total)))
    lw.slot_loop(layout, count)
    lw.env[op.result.id] = RegsRepr(name, layout)


HANDLERS = {**{k: lower_reduction for k in ("sum", "max", "min", "argmax", "argmin", "reduce")},
            "cumsum": lower_scan, "scan": lower_scan, "sort": lower_sort, "histogram": lower_histogram}
