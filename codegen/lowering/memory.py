"""Loads, stores and atomics: each thread touches the elements of its slots, masked, and only the
owner of a replicated element writes it (replicas would repeat atomics).

A program may store to an output and load it back (Triton's programs run their statements in
order): the element may have been written by another thread (the owner, or thread 0 for a scalar),
so a load from an output after a store or atomic since the last fence waits at a barrier that
orders device memory, and so does a store after a load from an output (another thread may still
have to read the old value). Loads and stores in different iterations of a loop count for the
first case only."""
from __future__ import annotations

from functools import reduce
from math import gcd

from ...dsl import ir
from ...dsl.ir import BlockType, Function, Operation, Value, element_of, shape_of
from .. import lir
from ..layouts import Blocked, Registers, Remat, Scalar, add, lit
from ..lir import Bin, Call, Expr, Index, Lit, Select, Special, Sym, Un
from ..ir_passes.prefetch import feeds_dots_only, users_of
from .core import (SWIZZLE_ALIGN, AsyncTile, Lowering, RegsRepr, RematRepr, ScalarRepr, accumulated_in_place,
                   loop_stage, ring_slot)


def _deref(lw: Lowering, ptr: Expr, pointer: Value) -> Expr:
    if lw.atomic_outputs and lw.base_argument(pointer) in lw.outputs:
        return Call("atomic_load", (_cell(lw, ptr, pointer),), element_of(pointer.type).element)
    return Index(ptr, lit(0))


def _cell(lw: Lowering, ptr: Expr, pointer: Value) -> Expr:
    """What an atomic access through `ptr` (the value `pointer`) takes: the pointer, or for an output
    kept as 32-bit words its element there."""
    if not lw.word_outputs:
        return ptr
    base = lw.base_argument(pointer)
    if base is None:
        raise lw.error("cannot tell which output this pointer points into, and a 16-bit output of a kernel with "
                       "atomics is reached through its 32-bit words", "compute the pointer as output + offsets")
    if base not in lw.word_outputs:
        return ptr
    return lir.WordCell(Sym(lir.words_name(base)), Bin("-", ptr, Sym(base)), element_of(pointer.type).element)


def _all(conds: list[Expr | None]) -> Expr | None:
    conds = [c for c in conds if c is not None]
    return reduce(lambda a, b: Bin("&&", a, b), conds) if conds else None


def _guard(stmts: list[lir.Stmt], cond: Expr | None) -> list[lir.Stmt]:
    return [lir.If(cond, stmts)] if cond is not None else stmts


def writes_device(op: Operation) -> bool:
    """Whether `op` (or an op in its regions) stores to device memory."""
    return (op.opcode == "store" or op.opcode.startswith("atomic_")
            or any(writes_device(inner) for region in op.regions for inner in region.ops))


def _fence_device_memory(lw: Lowering, ptr: Value | None) -> None:
    """Before a load through `ptr` (None: before a store or atomic): a barrier that orders device
    memory if this access may see or overwrite another thread's since the last one."""
    if ptr is not None and lw.base_argument(ptr) not in (None, *lw.outputs):
        return  # an input: read-only
    if lw.device_writes_unfenced if ptr is not None else lw.output_reads_unfenced:
        lw.emit(lir.Barrier(device=True))
        lw.device_writes_unfenced = lw.output_reads_unfenced = False
    if ptr is None:
        lw.device_writes_unfenced = True
    else:
        lw.output_reads_unfenced = True


def lower_load(lw: Lowering, op: Operation) -> None:
    ptr, rest = op.operands[0], op.operands[1:]
    _fence_device_memory(lw, ptr)
    mask = rest[0] if op.attrs.get("masked") else None
    other = rest[1] if op.attrs.get("has_other") else None
    r = op.result
    element = element_of(r.type)
    if not isinstance(r.type, BlockType):
        value = _deref(lw, lw.read(ptr, Scalar(), None, []), ptr)
        if mask is not None:
            fallback = lw.read(other, Scalar(), None, []) if other is not None else Lit(0, element)
            value = Select(lw.read(mask, Scalar(), None, []), value, fallback)
        name = lw.name(r)
        lw.emit(lir.Decl(name, element, init=value))
        lw.env[r.id] = ScalarRepr(Sym(name))
        return
    layout = lw.plan.of(r)
    if isinstance(layout, Remat):  # read by a dot where it needs the elements (dot.py)
        lw.env[r.id] = RematRepr(op)
        return
    if r.id in lw.async_tiles:
        return _copy_async(lw, op, lw.async_tiles[r.id])
    name = lw.result_array(op, layout)
    width = _vector_width(lw, op, layout)
    if width > 1:
        # An edge access (`LayoutPlan.edge_accesses`) moves each whole vector whose first and last
        # elements are in range (then all are): every vector of the thread in one branch-free loop, so
        # all are in flight at once, then element by element where a vector is not wholly in range.
        # (One branch per vector between the loads makes each wait for the one before: the thread's
        # loads go one memory latency at a time, 1.71x the time of the aligned row on the H100.)
        edge = mask is not None and id(op) in lw.plan.edge_accesses

        def targets_others(k):
            targets = [Index(Sym(name), add(k, lit(u))) for u in range(width)]
            others = [lw.read(other, layout, add(k, lit(u)), layout.coords(add(k, lit(u))))
                      if other is not None else Lit(0, element) for u in range(width)] if mask is not None else []
            return targets, others

        def vector_body(k, coords):
            targets, others = targets_others(k)
            stmt = lir.VectorLoad(targets, lw.read(ptr, layout, k, coords), element)
            if mask is not None:
                stmt.mask, stmt.others = _whole_vector(lw, mask, layout, k, width) if edge else \
                    lw.read(mask, layout, k, coords), others
            lw.emit(stmt)

        def edge_elements(k, coords):
            targets, others = targets_others(k)
            masks = _element_masks(lw, mask, layout, k, width)
            elements = [lir.Assign(t, Select(m, _deref(lw, lw.read(ptr, layout, add(k, lit(u)),
                                                                     layout.coords(add(k, lit(u)))), ptr), o))
                        for u, (t, m, o) in enumerate(zip(targets, masks, others))]
            lw.emit(lir.If(Un("!", _whole_vector(lw, mask, layout, k, width)), elements))
        lw.slot_loop(layout, vector_body, step=width, batch=edge)
        if edge:
            lw.slot_loop(layout, edge_elements, step=width)
        lw.env[r.id] = RegsRepr(name, layout)
        return

    run = lw.plan.constant_runs.get(id(op), 1)  # neighbouring slots holding the same element

    def body(k, coords):
        value = _deref(lw, lw.read(ptr, layout, k, coords), ptr)
        if mask is not None:
            fallback = lw.read(other, layout, k, coords) if other is not None else Lit(0, element)
            value = Select(lw.read(mask, layout, k, coords), value, fallback)
        lw.emit(lir.Assign(Index(Sym(name), k), value))
        for u in range(1, run):
            lw.emit(lir.Assign(Index(Sym(name), add(k, lit(u))), Index(Sym(name), k)))
    lw.slot_loop(layout, body, step=run)
    lw.env[r.id] = RegsRepr(name, layout)


def plan_async_tiles(lw: Lowering, fn: Function, spares: bool = True) -> None:
    """Find the `tl.dot` operands a target with asynchronous copies pipelines without registers
    (`AsyncTile`): with `num_stages >= 2`, a loop-carried tile that the prefetch pass made (loaded
    before the loop, loaded again for the next iteration in the body, yielded), read only by dots
    as an operand (directly or through `tl.trans`), each thread's run copied in one access of 4, 8
    or 16 bytes, masked elements zero; with `spares`, the spare buffers of `_spare_buffers`."""
    if not lw.plan.target.async_copy or lw.plan.dot_stages < 2 or lw.plan.matmul2d:
        return
    defined = {r.id: op for op in fn.walk() for r in op.results}
    users = users_of(fn)

    def copyable(load: Operation | None, only_user: Operation) -> bool:
        if load is None or load.opcode != "load" or users.get(load.result.id) != [only_user]:
            return False
        layout, element = lw.plan.of(load.result), element_of(load.result.type)
        if not isinstance(layout, Blocked) or len(shape_of(load.result.type)) != 2 or lw.atomic_outputs:
            return False
        if load.attrs.get("has_other"):
            other = defined.get(load.operands[2].id)
            while other is not None and other.opcode in ("splat", "broadcast"):
                other = defined.get(other.operands[0].id)
            if other is None or other.opcode not in ("constant", "full") or other.attrs["value"] != 0:
                return False
        # an access whose mask changes inside it (an edge) has no one mask for its copy: loaded as usual
        return id(load) not in lw.plan.edge_accesses and _vector_width(lw, load, layout) * element.bits // 8 in (4, 8, 16)

    for loop in (op for op in fn.walk() if op.opcode == "for"):
        body = loop.regions[0]
        args, yielded = body.args[1:], body.ops[-1].operands
        for position, nxt in enumerate(yielded):
            if not copyable(defined.get(nxt.id), body.ops[-1]) or not any(o is defined[nxt.id] for o in body.ops):
                continue
            chain = [position]  # the carried tiles the prefetch pass shifts along, newest last
            while True:
                older = [q for q, v in enumerate(yielded) if v is args[chain[0]]]
                if len(older) != 1:
                    break
                chain.insert(0, older[0])
            carried = [args[q] for q in chain]
            inits = [defined.get(loop.operands[3 + q].id) for q in chain]
            if (feeds_dots_only(carried[0], users) and carried[0].id in lw.plan.shared_pad
                    and all(users.get(a.id) == [body.ops[-1]] for a in carried[1:])
                    and not any(users.get(loop.results[q].id) for q in chain)
                    and all(copyable(init, loop) for init in inits)
                    and all(lw.plan.of(init.result) == lw.plan.of(nxt) for init in inits)):
                tile = AsyncTile(inits, defined[nxt.id], carried, lw.plan.shared_pad[carried[0].id],
                                 carried[0].id in lw.plan.shared_swizzle)
                for v in (*(init.result for init in inits), nxt, *carried):
                    lw.async_tiles[v.id] = tile
        if spares:
            _spare_buffers(lw, loop, defined, users)


def _spare_buffers(lw: Lowering, loop: Operation, defined: dict[int, Operation],
                   users: dict[int, list[Operation]]) -> None:
    """Give a spare buffer to the swizzled tiles of `loop` whose every reader is a wgmma dot that can
    leave its products running into the next iteration (`runs_on`): it accumulates in place in this
    loop, its result read by nothing but the loop's yield (so its registers are read only after the
    loop), and both its operands are such tiles. The copies then write the buffer that the products
    of two iterations before read, which this iteration's barrier (after every warpgroup's
    `wait_group 1`) has seen finish. A kernel with no room for them is lowered again without spares
    (`driver.lower`: 128x256x64 at 4 stages is 193 KB, 241 KB with spares)."""
    body = loop.regions[0]
    tiles = {id(t): t for a in body.args[1:] if (t := lw.async_tiles.get(a.id)) is not None and t.swizzle}
    yielded = body.ops[-1]
    in_place = {id(dot) for q in range(len(body.args) - 1) if tiles and accumulated_in_place(lw, body, q)
                and users.get((dot := defined[yielded.operands[q].id]).result.id) == [yielded]}
    readers = {key: [d for u in users.get(t.carried[0].id, [])  # dots, directly or through tl.trans
                     for d in (users.get(u.result.id, []) if u.opcode == "permute" else [u])]
               for key, t in tiles.items()}
    spared = {key for key, found in readers.items() if all(id(u) in in_place for u in found)}
    while True:  # a dot runs on only if both its operands are spared; a tile only if all its dots run on
        runs_on = {id(u) for key in spared for u in readers[key] if id(u) in lw.plan.warpgroup_dots and all(
            id(lw.async_tiles.get(v.id)) in spared for v in (u.operands[0], lw.plan.warpgroup_dots[id(u)]))}
        kept = {key for key in spared if all(id(u) in runs_on for u in readers[key])}
        if kept == spared:
            break
        spared = kept
    for key in spared:
        tiles[key].spare = 1


def _copy_async(lw: Lowering, op: Operation, tile: AsyncTile) -> None:
    """The load of an `AsyncTile` as asynchronous copies into its ring of buffers. A prologue tile
    (buffer j for the j-th) is kept for the loop, which issues them stage by stage, one group each
    (`issue_prologue`); the tile stages - 1 iterations ahead goes to the buffer after this
    iteration's last carried one, after waiting for this iteration's tile and a barrier (which also
    ends the previous iteration's reads of that buffer). The loop commits each iteration's copies."""
    ptr, rest = op.operands[0], op.operands[1:]
    mask = rest[0] if op.attrs.get("masked") else None
    element, layout = element_of(op.result.type), lw.plan.of(op.result)
    first = next((j for j, f in enumerate(tile.firsts) if f is op), None)
    if first is not None:
        if tile.name is None:
            tile.name = lw.alloc_shared(f"{lw.name(tile.carried[0], 't')}_smem", element, tile.count(),
                                        stages=tile.stages, align=SWIZZLE_ALIGN if tile.swizzle else 16)
        buffer: Expr = lit(first)
    else:
        loop = lw.loops[-1]
        if not loop.copies_landed:
            lw.emit(lir.AsyncWait(tile.ahead - 1))
            if any(t.swizzle for t in lw.async_tiles.values()):  # wgmma reads them through the async proxy
                lw.emit(lir.ProxyFence())
            lw.emit(lir.Barrier())
            loop.copies_landed = True
        buffer = ring_slot(loop_stage(lw, loop, tile.stages), tile.ahead, tile.stages)
    view = tile.view(buffer)
    width = _vector_width(lw, op, layout)

    def copies() -> None:
        # the thread's destination named once (buffer and lane part), each copy a constant from it
        # (Steel's BlockLoader keeps `dst` the same way); a layout whose threads wrap computes each, as
        # does a swizzled tile (the swizzle's xor does not distribute over the sum)
        dst = None
        if not layout.wraps and not tile.swizzle:
            dst = Sym(lw.name(None, f"{view.name.removesuffix('_smem')}_dst"))
            lw.emit(lir.Decl(dst.name, ir.int32, init=view.position(layout.thread_origin())))

        def copy(k, coords):
            src = lw.read(ptr, layout, k, coords)
            masked = lw.read(mask, layout, k, coords) if mask is not None else None
            if dst is None:
                lw.emit(lir.AsyncCopy(Bin("+", Sym(view.name), view.position(coords)), src, element, width, masked))
            else:
                lw.emit(lir.AsyncCopy(Bin("+", Sym(view.name), dst), src, element, width, masked,
                                      offset=view.index(layout.slot_offsets(k))))
        lw.slot_loop(layout, copy, step=width)
    if first is not None:
        tile.prologue.append(lw.nested(copies, same_scope=True))
    else:
        copies()
    lw.env[op.result.id] = view


def issue_prologue(lw: Lowering, tiles: list[AsyncTile]) -> None:
    """A loop's prologue copies, stage by stage (every tile's copy of stage j, then a commit), so that
    waiting for all but the newest stages - 2 groups at the top of an iteration lands its tiles."""
    for j in range(max(t.ahead for t in tiles)):
        for tile in tiles:
            for stmt in tile.prologue[j]:
                lw.emit(stmt)
        lw.emit(lir.AsyncCommit())


def _element_masks(lw: Lowering, mask: Value, layout, k: Expr, width: int) -> list[Expr]:
    """The mask of each of the `width` slots from slot k of an access whose true elements form one
    range (`LayoutPlan.edge_accesses`), which moves the whole vector where `_whole_vector` holds, else
    element by element (the run that straddles an edge, or one wholly outside)."""
    return [lw.read(mask, layout, add(k, lit(u)), layout.coords(add(k, lit(u)))) for u in range(width)]


def _whole_vector(lw: Lowering, mask: Value, layout, k: Expr, width: int) -> Expr:
    """True where the whole vector of `width` slots from slot k of an edge access is in range: its
    first and last elements are (the true elements form one range)."""
    first, last = (lw.read(mask, layout, add(k, lit(u)), layout.coords(add(k, lit(u)))) for u in (0, width - 1))
    return Bin("&&", first, last)


def _vector_width(lw: Lowering, op: Operation, layout) -> int:
    """Elements per access for `op` in `layout`: what the contiguity analysis allows, within each
    thread's runs of neighbouring elements (atomic buffers are read element by element)."""
    width = lw.plan.access_width.get(id(op), 1)
    if width == 1 or not isinstance(layout, Blocked) or lw.atomic_outputs:
        return 1
    return gcd(width, layout.spt[-1])


def _check_output(lw: Lowering, ptr: Value, what: str) -> None:
    base = lw.base_argument(ptr)
    if base is not None and base not in lw.outputs:
        raise lw.error(f"{what} writes to `{base}`, an input: MLX arrays are immutable",
                       f"pass an output placeholder for `{base}` (metalforge.empty/zeros/full) and write there")


def _effect_layout(lw: Lowering, values: list[Value]):
    for v in values:
        layout = lw.plan.values.get(v.id)
        if isinstance(layout, Registers):
            return layout
    return lw.plan.default(values[0])


def lower_store(lw: Lowering, op: Operation) -> None:
    ptr, value = op.operands[:2]
    mask = op.operands[2] if op.attrs.get("masked") else None
    _check_output(lw, ptr, "tl.store")
    _fence_device_memory(lw, None)
    atomic = lw.atomic_outputs
    if not isinstance(ptr.type, BlockType):
        stmt = lir.Store(_cell(lw, lw.read(ptr, Scalar(), None, []), ptr), lw.read(value, Scalar(), None, []), atomic)
        cond = _all([Bin("==", Special("tid"), lit(0)),
                     lw.read(mask, Scalar(), None, []) if mask is not None else None])
        lw.emit(lir.If(cond, [stmt]))
        return
    staged = lw.plan.staged_stores.get(id(op)) if lw.staged_stores else None
    layout = staged or _effect_layout(lw, [value, ptr] + ([mask] if mask is not None else []))
    lw.ready(op.operands, layout)
    width = _vector_width(lw, op, layout)
    if width > 1:
        source = lw.to_shared(value) if staged is not None else None  # a dot's fragments, through shared memory

        def vector_body(k, coords):
            if source is not None and source.aligned_run % width == 0:
                values = lw.read_run(source, element_of(value.type), coords, width)
            else:
                values = [lw.read(value, layout, add(k, lit(u)), layout.coords(add(k, lit(u)))) for u in range(width)]
            stmt = lir.VectorStore(lw.read(ptr, layout, k, coords), values, element_of(value.type))
            if mask is not None and id(op) in lw.plan.edge_accesses:
                masks = _element_masks(lw, mask, layout, k, width)
                elements = [lir.If(m, [lir.Store(_cell(lw, lw.read(ptr, layout, add(k, lit(u)),
                                                                   layout.coords(add(k, lit(u)))), ptr), v, atomic)])
                            for u, (m, v) in enumerate(zip(masks, values))]
                for s in _guard([lir.If(_whole_vector(lw, mask, layout, k, width), [stmt], elements)],
                                layout.owner(k)):
                    lw.emit(s)
                return
            cond = _all([layout.owner(k), lw.read(mask, layout, k, coords) if mask is not None else None])
            for s in _guard([stmt], cond):
                lw.emit(s)
        lw.slot_loop(layout, vector_body, step=width)
        return

    def body(k, coords):
        stmt = lir.Store(_cell(lw, lw.read(ptr, layout, k, coords), ptr), lw.read(value, layout, k, coords), atomic)
        cond = _all([layout.owner(k), lw.read(mask, layout, k, coords) if mask is not None else None])
        for s in _guard([stmt], cond):
            lw.emit(s)
    lw.slot_loop(layout, body)


def lower_atomic(lw: Lowering, op: Operation) -> None:
    kind = op.opcode[len("atomic_"):]
    ptr = op.operands[0]
    n_vals = 2 if kind == "cas" else 1
    vals = op.operands[1:1 + n_vals]
    mask = op.operands[1 + n_vals] if op.attrs.get("masked") else None
    _check_output(lw, ptr, f"tl.atomic_{kind}")
    _fence_device_memory(lw, None)
    r = op.result
    element = element_of(r.type)
    if element.bits < lw.plan.target.atomic_min_bits:
        raise lw.error(f"tl.atomic_{kind} on {element!r} (output `{lw.base_argument(ptr)}`): {lw.plan.target.gpu} "
                       f"has no atomic {element!r}", "accumulate in an int32 output (convert after the kernel)")

    def atomic_expr(layout, k, coords) -> Expr:
        args = [lw.read(v, layout, k, coords) for v in vals]
        p = _cell(lw, lw.read(ptr, layout, k, coords), ptr)
        if kind == "cas":
            return lir.Atomic("cas", p, args[1], element, compare=args[0])
        return lir.Atomic(kind, p, args[0], element)

    if not isinstance(r.type, BlockType):
        # One thread performs it; the old value reaches every thread through threadgroup memory.
        name = lw.name(r)
        cell = lw.alloc_shared(f"{name}_old", element, 1)
        lw.emit(lir.Barrier())
        cond = _all([Bin("==", Special("tid"), lit(0)),
                     lw.read(mask, Scalar(), None, []) if mask is not None else None])
        lw.emit(lir.If(cond, [lir.Assign(Index(Sym(cell), lit(0)), atomic_expr(Scalar(), None, []))]))
        lw.emit(lir.Barrier())
        lw.emit(lir.Decl(name, element, init=Index(Sym(cell), lit(0))))
        lw.env[r.id] = ScalarRepr(Sym(name))
        return
    layout = lw.plan.of(r)
    name = lw.result_array(op, layout)

    def body(k, coords):
        lw.emit(lir.Assign(Index(Sym(name), k), Lit(0, element)))
        cond = _all([layout.owner(k), lw.read(mask, layout, k, coords) if mask is not None else None])
        for s in _guard([lir.Assign(Index(Sym(name), k), atomic_expr(layout, k, coords))], cond):
            lw.emit(s)
    lw.slot_loop(layout, body)
    lw.env[r.id] = RegsRepr(name, layout)


def check_atomic_outputs(lw: Lowering) -> None:
    """Outputs of a kernel with atomics whose type the target has no atomics of (Metal: 16- and 8-bit
    types; MLX would declare them `atomic<half>`, which does not compile): 16-bit ones are kept as
    32-bit words (`lw.word_outputs`: each access updates its half of the word with a compare-and-swap
    loop, as MLX's own kernels do), 8-bit ones refused at the first atomic on such an output (else the
    kernel's first atomic)."""
    allowed = lw.plan.target.atomic_outputs
    if allowed is None or not lw.atomic_outputs:
        return
    outputs = {a.name: a.type.element for a in lw.fn.args if a.name in lw.outputs and a.type.element not in allowed}
    lw.word_outputs = {name for name, e in outputs.items() if e.bits == 16}
    bad = {name: e for name, e in outputs.items() if name not in lw.word_outputs}
    if not bad:
        return
    atomics = [op for op in lw.fn.walk() if op.opcode.startswith("atomic_") or op.opcode in ("print", "assert")]
    on_bad = [op for op in atomics if op.opcode not in ("print", "assert") and lw.base_argument(op.operands[0]) in bad]
    lw.current = (on_bad or atomics)[0]
    name = lw.base_argument(lw.current.operands[0]) if on_bad else next(iter(bad))
    element, on_it = bad[name], bool(on_bad)
    what = "atomics on it" if on_it else "atomics, tl.device_print or a debug tl.device_assert"
    raise lw.error(f"output `{name}` is {element!r} in a kernel with {what}: {lw.plan.target.gpu} has no atomic "
                   f"{element!r}, and MLX makes every output of such a kernel atomic",
                   "accumulate in an int32 output (convert after the kernel), or keep the "
                   f"{element!r} output in a kernel without atomics")


HANDLERS = {"load": lower_load, "store": lower_store,
            **{f"atomic_{k}": lower_atomic for k in ("add", "max", "min", "xchg", "cas", "and", "or", "xor")}}
