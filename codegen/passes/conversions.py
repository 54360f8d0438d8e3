"""Layout conversions through threadgroup memory, and the view ops (broadcast, expand_dims,
reshape, permute) that need them when their operand is stored data rather than index arithmetic."""
from __future__ import annotations

from ...dsl.ir import Operation, Value, element_of, shape_of
from .. import lir
from ..layouts import Expand, Remat, Slice, flat_index, lit, unravel, prod
from ..lir import Index, Sym
from .lower import BroadcastRepr, Lowering, RegsRepr, RematRepr, SharedRepr


def store_to_shared(lw: Lowering, v: Value) -> SharedRepr:
    """Every element of register tile `v`, written once, row-major, between two barriers."""
    r = lw.env[v.id]
    if isinstance(r, SharedRepr):
        return r
    shape = shape_of(v.type)
    if isinstance(r, BroadcastRepr):  # `mean[:, None]` broadcast: store the reduced values only
        sl = r.expand.slice
        layout, source, stored = sl, RegsRepr(r.name, sl), sl.shape
        index = lambda coords: flat_index(coords[:sl.dim] + coords[sl.dim + 1:], stored)  # noqa: E731
    else:
        assert isinstance(r, RegsRepr), f"no registers to convert for {v}"
        layout, source, stored = r.layout, r, shape
        index = lambda coords: flat_index(coords, shape)  # noqa: E731
    name = lw.alloc_shared(f"{lw.name(v, 't')}_smem", element_of(v.type), prod(stored))
    lw.emit(lir.Barrier())  # earlier readers of this memory (an enclosing loop) are done

    def write(k, coords):
        value = source.at(lw, layout, k, coords)
        stmt = lir.Assign(Index(Sym(name), flat_index(coords, stored)), value)
        owner = layout.owner(k) if k is not None else None
        lw.emit(lir.If(owner, [stmt]) if owner is not None else stmt)
    lw.slot_loop(layout, write)
    lw.emit(lir.Barrier())
    return SharedRepr(name, shape, index)


def _view(lw: Lowering, op: Operation, source_coords) -> None:
    """A re-indexing of the operand: nothing for index arithmetic, a view of threadgroup memory
    otherwise."""
    x, r = op.operands[0], op.result
    layout = lw.plan.of(r)
    if isinstance(layout, Remat):
        lw.env[r.id] = RematRepr(op)
        return
    sh = lw.to_shared(x)
    lw.env[r.id] = SharedRepr(sh.name, shape_of(r.type), lambda coords: sh.index(source_coords(coords)))


def lower_broadcast(lw: Lowering, op: Operation) -> None:
    x, r = op.operands[0], op.result
    layout = lw.plan.of(r)
    src = lw.env[x.id]
    if isinstance(layout, Remat):
        lw.env[r.id] = RematRepr(op)
    elif isinstance(src, RegsRepr) and isinstance(src.layout, Expand) and src.layout.slice.parent == layout:
        lw.env[r.id] = BroadcastRepr(src.name, src.layout)
    else:
        shape = shape_of(x.type)
        sh = lw.to_shared(x)
        lw.env[r.id] = SharedRepr(sh.name, shape_of(r.type),
                                  lambda coords: sh.index([c if n != 1 else lit(0) for c, n in zip(coords, shape)]))


def lower_expand_dims(lw: Lowering, op: Operation) -> None:
    x, r = op.operands[0], op.result
    layout = lw.plan.of(r)
    if isinstance(layout, Expand):
        src = lw.env[x.id]
        assert isinstance(src, RegsRepr) and isinstance(src.layout, Slice)
        lw.env[r.id] = RegsRepr(src.name, layout)
        return
    axis = op.attrs["axis"]
    _view(lw, op, lambda coords: coords[:axis] + coords[axis + 1:])


def lower_reshape(lw: Lowering, op: Operation) -> None:
    src_shape, dst_shape = shape_of(op.operands[0].type), shape_of(op.result.type)
    _view(lw, op, lambda coords: unravel(flat_index(coords, dst_shape), src_shape))


def lower_permute(lw: Lowering, op: Operation) -> None:
    dims = op.attrs["dims"]

    def source(coords):
        out = [lit(0)] * len(coords)
        for i, d in enumerate(dims):
            out[d] = coords[i]
        return out
    _view(lw, op, source)


HANDLERS = {"broadcast": lower_broadcast, "expand_dims": lower_expand_dims, "reshape": lower_reshape,
            "permute": lower_permute}
