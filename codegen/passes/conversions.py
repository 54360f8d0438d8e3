"""Layout conversions through threadgroup memory, and the view ops (broadcast, expand_dims,
reshape, permute) that need them when their operand is stored data rather than index arithmetic."""
from __future__ import annotations

from ...dsl.ir import Operation, Value, element_of, shape_of
from .. import lir
from ...dsl import ir
from ..layouts import Blocked, Expand, Remat, Scalar, Slice, add, div, flat_index, lit, mod, mul_, unravel, prod
from ..lir import Bin, Expr, Index, Lit, Sym
from .assign_layouts import stage_elements
from .lower import BroadcastRepr, LoopFrame, Lowering, RegsRepr, RematRepr, ScalarRepr, SharedRepr


def store_to_shared(lw: Lowering, v: Value) -> SharedRepr:
    """Every element of register tile `v`, written once, row-major, between two barriers; rows of a
    2-D tile padded as the layout plan says (`pad_dot_operands`). A thread's run of neighbouring
    elements is written in one vector access."""
    r = lw.env[v.id]
    if isinstance(r, SharedRepr):
        return r
    shape = shape_of(v.type)
    width = 1
    if isinstance(r, BroadcastRepr):  # `mean[:, None]` broadcast: store the reduced values only
        sl = r.expand.slice
        layout, source, stored, pad = sl, RegsRepr(r.name, sl), sl.shape, 0
        index = lambda coords: flat_index(coords[:sl.dim] + coords[sl.dim + 1:], stored)  # noqa: E731 (readers)
        written = lambda coords: flat_index(coords, stored)  # noqa: E731 (the slice's own coordinates)
    else:
        assert isinstance(r, RegsRepr), f"no registers to convert for {v}"
        layout, source, stored = r.layout, r, shape
        pad = lw.plan.shared_pad.get(v.id, 0) if len(shape) == 2 else 0
        if isinstance(layout, Blocked) and element_of(v.type) in lw.plan.target.vector_types:
            width = layout.spt[-1]  # a run's slots are consecutive, its elements neighbours in a row
        index = written = lambda coords: padded_index(coords, shape, pad)  # noqa: E731
    element = element_of(v.type)
    count = prod(stored[:-1]) * (stored[-1] + pad) if stored else 1
    loop = _rotating_loop(lw, v)
    name = lw.alloc_shared(f"{lw.name(v, 't')}_smem", element, count, stages=2 if loop else 1)
    base = None
    if loop is not None:  # this iteration's buffer: the other one may still be read by the last iteration
        base = mul_(_stage(lw, loop), lit(stage_elements(element, count)))
    else:
        lw.emit(lir.Barrier())  # earlier readers of this memory (an enclosing loop) are done
    view, stores = SharedRepr(name, shape, index, base), SharedRepr(name, stored, written, base)

    def write(k, coords):
        position = stores.position(coords)
        if width > 1:
            values = [source.at(lw, layout, add(k, lit(u)), layout.coords(add(k, lit(u)))) for u in range(width)]
            stmt = lir.VectorStore(Bin("+", Sym(name), position), values, element, space="threadgroup")
        else:
            stmt = lir.Assign(Index(Sym(name), position), source.at(lw, layout, k, coords))
        owner = layout.owner(k) if k is not None else None
        lw.emit(lir.If(owner, [stmt]) if owner is not None else stmt)
    lw.slot_loop(layout, write, step=width)
    lw.emit(lir.Barrier())
    return view


def _rotating_loop(lw: Lowering, v: Value) -> LoopFrame | None:
    """The loop whose iterations alternate between two buffers for `v`: a `tl.dot` operand computed
    in that loop's body, when the kernel asks for two stages (`num_stages >= 2`)."""
    if lw.plan.dot_stages < 2 or v.id not in lw.plan.shared_pad or not lw.loops:
        return None
    loop = lw.loops[-1]
    return loop if lw.depth.get(v.id) == loop.block else None


def _stage(lw: Lowering, loop: LoopFrame) -> Sym:
    """The loop's iteration count mod 2, declared in its body the first time a buffer needs it."""
    if loop.stage is None:
        iteration = loop.iv if isinstance(loop.start, Lit) and loop.start.value == 0 else Bin("-", loop.iv, loop.start)
        iteration = div(iteration, loop.step.value) if isinstance(loop.step, Lit) else Bin("/", iteration, loop.step)
        loop.stage = Sym(lw.name(None, "stage"))
        lw.emit(lir.Decl(loop.stage.name, ir.int32, init=mod(iteration, 2)))
    return loop.stage


def padded_index(coords: list[Expr], shape: tuple[int, ...], pad: int) -> Expr:
    """Row-major position of `coords` when each row of the last dimension holds `pad` more slots."""
    return flat_index(coords, shape[:-1] + (shape[-1] + pad,)) if pad else flat_index(coords, shape)


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
    else:
        shape = shape_of(x.type)
        sh = lw.to_shared(x)
        lw.env[r.id] = SharedRepr(sh.name, shape_of(r.type),
                                  lambda coords: sh.index([c if n != 1 else lit(0) for c, n in zip(coords, shape)]),
                                  sh.base)


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


HANDLERS = {"broadcast": lower_broadcast, "expand_dims": lower_expand_dims, "reshape": lower_reshape,
            "permute": lower_permute, "extract": lower_extract}
