"""The view ops (broadcast, expand_dims, reshape, permute, extract, flip): nothing for index arithmetic or
a slice seen with its axis back, else a re-indexed view of the operand converted to threadgroup memory
(`Lowering.to_shared`); and tl.gather, which re-indexes its source by the values of an index tile."""
from __future__ import annotations

from ...dsl import ir
from ...dsl.ir import Operation, element_of, shape_of
from .. import lir
from ..layouts import Blocked, Expand, Remat, Scalar, Slice, flat_index, lit, unravel
from ..lir import Cast, Index, Sym
from .core import BroadcastRepr, Lowering, RegsRepr, RematRepr, ScalarRepr, SharedRepr, SpreadRepr, flipped


def _view(lw: Lowering, op: Operation, source_coords) -> None:
    """A re-indexing of the operand: nothing for index arithmetic, a view of threadgroup memory
    otherwise."""
    x, r = op.operands[0], op.result
    layout = lw.plan.of(r)
    if isinstance(layout, Remat):
        lw.env[r.id] = RematRepr(op)
        return
    sh = lw.to_shared(x)
    lw.env[r.id] = SharedRepr(sh.name, shape_of(r.type), lambda coords: sh.index(source_coords(coords)), sh.base)


def lower_broadcast(lw: Lowering, op: Operation) -> None:
    x, r = op.operands[0], op.result
    layout = lw.plan.of(r)
    src = lw.env[x.id]
    if isinstance(layout, Remat):
        lw.env[r.id] = RematRepr(op)
    elif isinstance(src, RegsRepr) and isinstance(src.layout, Expand):  # converted only for a consumer that needs it
        lw.env[r.id] = BroadcastRepr(src.name, src.layout)
    elif isinstance(layout, Blocked) and type(src) is RegsRepr and isinstance(src.layout, Blocked) \
            and src.layout.reshaped(layout.shape) == layout:  # each thread reads its own registers
        lw.env[r.id] = SpreadRepr(src.name, src.layout, layout)
        shape = shape_of(x.type)
        lw.views[r.id] = (x, lambda coords: [c if n != 1 else lit(0) for c, n in zip(coords, shape)])
    else:
        shape = shape_of(x.type)
        sh = lw.to_shared(x)
        lw.env[r.id] = SharedRepr(sh.name, shape_of(r.type),
                                  lambda coords: sh.index([c if n != 1 else lit(0) for c, n in zip(coords, shape)]),
                                  sh.base)


def lower_expand_dims(lw: Lowering, op: Operation) -> None:
    x, r = op.operands[0], op.result
    layout = lw.plan.of(r)
    src = lw.env[x.id]
    if isinstance(layout, Expand):
        assert isinstance(src, RegsRepr) and isinstance(src.layout, Slice)
        lw.env[r.id] = RegsRepr(src.name, layout)
        return
    axis = op.attrs["axis"]
    if isinstance(layout, Blocked) and type(src) is RegsRepr:  # a size-1 dimension more: the same registers
        lw.env[r.id] = RegsRepr(src.name, layout)
        lw.views[r.id] = (x, lambda coords: coords[:axis] + coords[axis + 1:])
        return
    _view(lw, op, lambda coords: coords[:axis] + coords[axis + 1:])


def lower_reshape(lw: Lowering, op: Operation) -> None:
    src_shape, dst_shape = shape_of(op.operands[0].type), shape_of(op.result.type)
    layout, src = lw.plan.of(op.result), lw.env[op.operands[0].id]
    if isinstance(layout, Blocked) and type(src) is RegsRepr:  # merged axes, the same registers (merged_last_axes)
        lw.env[op.result.id] = RegsRepr(src.name, layout)
        return
    _view(lw, op, lambda coords: unravel(flat_index(coords, dst_shape), src_shape))


def lower_permute(lw: Lowering, op: Operation) -> None:
    dims = op.attrs["dims"]

    def source(coords):
        out = [lit(0)] * len(coords)
        for i, d in enumerate(dims):
            out[d] = coords[i]
        return out
    _view(lw, op, source)


def lower_extract(lw: Lowering, op: Operation) -> None:
    """The elements at `index` along `axis`, which the result drops (tl.split's halves); a scalar
    result (the halves of a 2-element tile) is read once into a variable."""
    x, r = op.operands[0], op.result
    axis, index = op.attrs["axis"], lit(op.attrs["index"])
    if not shape_of(r.type):
        name = lw.name(r, "t")
        lw.emit(lir.Decl(name, element_of(r.type), init=lw.read(x, Scalar(), None, [index])))
        lw.env[r.id] = ScalarRepr(Sym(name))
        return
    _view(lw, op, lambda coords: coords[:axis] + [index] + coords[axis:])


def lower_flip(lw: Lowering, op: Operation) -> None:
    axis, shape = op.attrs["axis"], shape_of(op.operands[0].type)
    _view(lw, op, lambda coords: flipped(coords, axis, shape))


def lower_gather(lw: Lowering, op: Operation) -> None:
    """out[.., i, ..] = src[.., index[.., i, ..], ..] along `axis`: src is read from threadgroup memory
    (or recomputed, for index arithmetic) at coordinates each thread knows only at run time."""
    src, index = op.operands
    layout = lw.plan.of(op.result)
    axis = op.attrs["axis"]
    if not isinstance(lw.env[src.id], RematRepr):
        lw.to_shared(src)
    name = lw.result_array(op, layout)

    def body(k, coords):
        at = coords[:axis] + [Cast(ir.int32, lw.read(index, layout, k, coords))] + coords[axis + 1:]
        lw.emit(lir.Assign(Index(Sym(name), k), lw.read(src, Remat(), None, at)))
    lw.slot_loop(layout, body)
    lw.env[op.result.id] = RegsRepr(name, layout)


HANDLERS = {"broadcast": lower_broadcast, "expand_dims": lower_expand_dims, "reshape": lower_reshape,
            "permute": lower_permute, "extract": lower_extract, "flip": lower_flip, "gather": lower_gather}
