"""Layout assignment: decide, for every tile value, how its elements live in the threadgroup.

Index arithmetic (arange, splat, broadcasts and elementwise ops on those) is rematerialised where
it is used; loads and other memory results get the default blocked layout; dot results the MMA
layout of matrix fragments; reductions produce a slice of their operand's layout, which
`expand_dims` and `broadcast` turn back into the parent layout without moving data; shape changes
of stored data go through threadgroup memory. Loop-
carried and branch-yielded tiles take a register layout fixed before their region is lowered.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from ...dsl.ir import BlockType, Function, Operation, Value, shape_of
from ...dsl import ir
from ..fragments import fragment_for, on_fragments
from ..target import METAL, Target
from .axis_info import access_width, analyse, constant_run, edge_width
from ..layouts import (MMA, Blocked, Expand, Layout, Registers, Remat, Scalar, Shared, Slice, canonical,
                       default_blocked, merged_last_axes, mma_layout, same_registers)

# Ops computing each element from the same element of their operands.
ELEMENTWISE = frozenset({
    "add", "sub", "mul", "fdiv", "sdiv", "udiv", "srem", "urem", "fmod", "and", "or", "xor", "shl", "ashr", "lshr",
    "cmp", "neg", "not", "cast", "bitcast", "select", "addptr", "minimum", "maximum", "clamp", "fma", "exp", "exp2",
    "expdiff", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf", "floor", "ceil", "sigmoid", "abs", "philox",
})
# Ops that evaluate a function: index arithmetic computed with one is kept in registers when several
# ops read it, instead of being recomputed at every read (RoPE's cos and sin of one angle, each
# read twice, were four evaluations per element on top of four of the angle's exp).
FUNCTIONS = frozenset({"exp", "exp2", "expdiff", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf", "sigmoid", "philox",
                       "fdiv", "fmod"})
# Ops that only re-index their operand.
VIEWS = frozenset({"broadcast", "expand_dims", "reshape", "permute", "extract", "flip"})
PASS_THROUGH = frozenset({"multiple_of", "max_contiguous"})
SOURCES = frozenset({"arange", "splat", "full", "constant"})
REDUCTIONS = frozenset({"sum", "max", "min", "argmax", "argmin", "reduce"})
SCANS = frozenset({"cumsum", "scan", "sort"})  # staged along an axis in threadgroup memory


@dataclass
class LayoutPlan:
    values: dict[int, Layout] = field(default_factory=dict)
    reduce_parent: dict[int, Blocked] = field(default_factory=dict)  # id(op) -> layout of the reduced operand
    num_warps: int = 4
    access_width: dict[int, int] = field(default_factory=dict)  # id(load/store op) -> elements per access
    # id(load/store op) of those whose mask may change inside an access at an edge (`axis_info.edge_width`)
    edge_accesses: set[int] = field(default_factory=set)
    # id(load op) -> slots of a thread's run that one access fills (the same element for all of them)
    constant_runs: dict[int, int] = field(default_factory=dict)
    vector: dict[tuple[int, ...], int] = field(default_factory=dict)  # tile shape -> elements per thread run
    shared_pad: dict[int, int] = field(default_factory=dict)  # value id -> elements added to each stored row
    shared_swizzle: set[int] = field(default_factory=set)  # staged in wgmma's swizzle instead (pad 0)
    dot_stages: int = 1  # buffers of a dot operand staged inside a loop (0: read from device memory)
    matmul2d: bool = False  # dots on Metal 4's cooperative matmul (codegen/lowering/dot.py)
    wgmma: bool = False  # dots on Hopper's warpgroup MMA where they can (`warpgroup_dot`)
    # id(dot op) of those that do -> the tile B's descriptor reads: B, or the (N, K) tile of `tl.trans`
    warpgroup_dots: dict[int, Value] = field(default_factory=dict)
    # id(store op) -> the layout a store of a dot's fragments is written in, through shared memory
    # (`stage_fragment_stores`), and the values so staged -> elements added to each row
    staged_stores: dict[int, Blocked] = field(default_factory=dict)
    staged_pad: dict[int, int] = field(default_factory=dict)
    target: Target = METAL

    def of(self, v: Value) -> Layout:
        return self.values[v.id]

    def default(self, v: Value) -> Blocked:
        shape = shape_of(v.type)
        return default_blocked(shape, self.num_warps, self.vector.get(shape, 1))

    def storage(self, v: Value) -> Layout:
        """A register layout to hold `v` (its own when it has one)."""
        layout = self.values.get(v.id)
        return layout if isinstance(layout, Registers) else self.default(v)


def stage_elements(element: ir.ScalarType, count: int) -> int:
    """Elements of one buffer of a multi-buffered threadgroup array: `count`, padded to 16 bytes."""
    size = max(1, element.bits // 8)
    return _whole_16_bytes(count * size) // size


def _whole_16_bytes(size: int) -> int:
    return -(-size // 16) * 16


def dot_operand_pad(element_bytes: int) -> int:
    """Elements added to each staged row of a `tl.dot` operand: 16 bytes, as MLX's Steel loaders pad."""
    return 16 // max(1, element_bytes)


def warpgroup_dot(op: Operation, plan: LayoutPlan, defined: Mapping[int, Operation]) -> Value | None:
    """The tile B's descriptor reads where dot `op` can run on Hopper's wgmma (launch setting
    `wgmma=True`, codegen/lowering/dot.py), else None: fp16 or bf16 operands of one type, staged in
    shared memory, a float32 result; whole warpgroups (4 warps) along the rows, each warp 16 of every
    16 * num_warps rows; N a multiple of 64 up to 256 and K of 64 (both operands' rows are whole
    128-byte swizzle rows). A is a tile of its own (not a view: a reshape, a broadcast or a `tl.trans`
    is not the swizzled tile a descriptor reads); so is B, or B is `tl.trans` of an (N, K) tile of its
    own, which wgmma reads K-major (as A: `x @ w.T`, attention's `q @ k.T`)."""
    a, b = op.operands[:2]
    if not (plan.wgmma and plan.target.warpgroup_mma and plan.dot_stages >= 1) or len(op.result.type.shape) != 2:
        return None
    (m, k), n, warps = a.type.shape, op.result.type.shape[1], plan.num_warps
    if not (a.type.element in (ir.float16, ir.bfloat16) and b.type.element == a.type.element
            and op.result.type.element == ir.float32 and warps % 4 == 0 and m % (16 * warps) == 0
            and n % 64 == 0 and n <= 256 and k % 64 == 0):
        return None
    tile = b
    if b.id in defined and defined[b.id].opcode == "permute" and list(defined[b.id].attrs["dims"]) == [1, 0]:
        tile = defined[b.id].operands[0]
    return None if any(v.id in defined and defined[v.id].opcode in VIEWS for v in (a, tile)) else tile


def stage_dot_operands(fn: Function, plan: LayoutPlan) -> None:
    """Tiles a `tl.dot` reads (directly or through `tl.trans`) are staged with 16 bytes more per row,
    as MLX's Steel loaders pad them: the rows a fragment load reads at once then start in different
    memory banks (and stay 16-byte aligned for CUDA's ldmatrix). A wgmma dot's operands are staged
    in its 128-byte swizzle instead, which spreads the banks the same way without padding."""
    defined = {r.id: op for op in fn.walk() for r in op.results}
    dots = [op for op in fn.walk() if op.opcode == "dot" and on_fragments(
        op.operands[0].type.element, op.result.type.element, len(op.result.type.shape))]  # per-thread dots read
    b_tiles = {id(op): tile for op in dots if (tile := warpgroup_dot(op, plan, defined)) is not None}
    wgmma = set(b_tiles)  # their operands where they are

    def stored(v: Value) -> Value:
        while v.id in defined and defined[v.id].opcode == "permute":
            v = defined[v.id].operands[0]
        return v
    while True:  # a tile one dot reads swizzled and another padded: neither dot on wgmma (one layout a tile)
        padded = {stored(v).id for op in dots if id(op) not in wgmma for v in op.operands[:2]}
        clash = {id(op) for op in dots if id(op) in wgmma and any(stored(v).id in padded for v in op.operands[:2])}
        if not clash:
            break
        wgmma -= clash
    for op in dots:
        for v in op.operands[:2]:
            if id(op) in wgmma:
                plan.shared_pad[stored(v).id] = 0
                plan.shared_swizzle.add(stored(v).id)
            else:
                plan.shared_pad[stored(v).id] = dot_operand_pad(v.type.element.bits // 8)
    plan.warpgroup_dots = {key: tile for key, tile in b_tiles.items() if key in wgmma}


def writes_atomically(fn: Function) -> bool:
    """Whether the kernel has atomics (or prints and asserts, which count through them): MLX then
    declares its outputs atomic, accessed element by element (no vectors)."""
    return any(op.opcode.startswith("atomic_") or op.opcode in ("print", "assert") for op in fn.walk())


def stage_fragment_stores(fn: Function, plan: LayoutPlan) -> None:
    """Stores of a dot's fragments (an epilogue: the accumulator, cast, scaled) that the default
    layout of their shape would write in vectors go through shared memory on targets that ask for it
    (`Target.staged_fragment_stores`), rows padded 16 bytes so the fragments' writes of 8 rows at once
    start in different banks (`staged_pad`; a dot operand keeps its own staging). Only where the
    pointer and mask are index arithmetic, which the blocked layout recomputes."""
    if not plan.target.staged_fragment_stores or writes_atomically(fn):
        return
    for op in fn.walk():
        if op.opcode != "store" or not isinstance(op.operands[0].type, BlockType):
            continue
        value, others = op.operands[1], [op.operands[0]] + op.operands[2:]
        layout = plan.default(value)
        if (isinstance(plan.values.get(value.id), MMA) and value.id not in plan.shared_pad
                and all(isinstance(plan.values.get(v.id), (Remat, Scalar)) for v in others)
                and math.gcd(plan.access_width.get(id(op), 1), layout.spt[-1]) > 1):
            plan.staged_stores[id(op)] = layout
            plan.staged_pad[value.id] = dot_operand_pad(value.type.element.bits // 8)


def reduces_dot_rows(fn: Function) -> bool:
    """Whether the kernel reduces dot results (or element-wise functions of them, or what a runtime
    `if` yields of them: attention's masks applied to some key blocks only) along their rows, as
    attention's softmax does: then its dot results are laid out rows first."""
    from_dot: set[int] = set()
    ifs = [op for op in fn.walk() if op.opcode == "if"]
    while True:  # until the values an `if` yields (walked after it) have reached its results
        known = len(from_dot)
        for op in fn.walk():
            if op.opcode == "dot" or op.opcode in ELEMENTWISE and any(o.id in from_dot for o in op.operands):
                from_dot.update(r.id for r in op.results)
        for op in ifs:
            yields = [region.ops[-1].operands for region in op.regions if region.ops and region.ops[-1].opcode == "yield"]
            from_dot.update(r.id for i, r in enumerate(op.results) if any(y[i].id in from_dot for y in yields))
        if len(from_dot) == known:
            break
    return any(op.opcode in REDUCTIONS and op.operands and op.operands[0].id in from_dot
               and len(op.operands[0].type.shape) == 2 and op.attrs.get("axis") in (1, -1) for op in fn.walk())


def assign_layouts(fn: Function, num_warps: int, target: Target = METAL,
                   divisibility: Mapping[str, int] = {}, dot_stages: int = 1,
                   warps_m: int | None = None, matmul2d: bool = False, wgmma: bool = False) -> LayoutPlan:
    plan = LayoutPlan(num_warps=num_warps, dot_stages=dot_stages, matmul2d=matmul2d, wgmma=wgmma, target=target)
    users: dict[int, list[Operation]] = {}
    evaluates: set[int] = set()  # rematerialised values whose expression evaluates a FUNCTIONS op
    rows_reduced = reduces_dot_rows(fn)
    for op in fn.walk():
        for v in op.operands:
            users.setdefault(v.id, []).append(op)
    # Vector accesses: a shape's default layout gives each thread runs of as many neighbouring
    # elements as all loads and stores of that shape can move at once (one where any cannot, so
    # tiles of one shape keep one layout and never convert between them).
    info = analyse(fn, divisibility)
    for op in fn.walk():
        if op.opcode in ("load", "store") and isinstance(op.operands[0].type, BlockType):
            element = op.operands[0].type.element.element
            limit = target.vector_limit(element)
            width = access_width(op, info, limit, target.vectors_need_alignment)
            edged = edge_width(op, info, limit, target.vectors_need_alignment)
            if edged > width:
                width = edged
                plan.edge_accesses.add(id(op))
            plan.access_width[id(op)] = width
            shape = shape_of(op.operands[0].type)
            plan.vector[shape] = min(plan.vector.get(shape, width), width)
    for a in fn.args:
        plan.values[a.id] = Scalar()
    stage_dot_operands(fn, plan)

    defined = {r.id: op for op in fn.walk() for r in op.results}
    # Broadcasts of register tiles: each thread keeps its own elements (`Blocked.reshaped`) unless a
    # reader needs another layout (`spilled`: then through threadgroup memory, as before); a load
    # whose only use is such a broadcast (through casts) is loaded in the layout the broadcast's
    # reader needs (`hints`: x and the scales in a quantized matvec), as Triton's loads take their
    # users' layouts.
    hints: dict[int, Blocked] = {}
    spilled: set[int] = set()
    waited: set[int] = set()  # broadcasts given one more pass for their loads' hints to take effect
    changed = [False]

    # a `for` loop's carried tiles: block argument -> (its initial value, the value yielded for it)
    carried = {arg.id: (init, op.regions[0].ops[-1].operands[i])
               for op in fn.walk() if op.opcode == "for" and op.regions[0].ops
               for i, (arg, init) in enumerate(zip(op.regions[0].args[1:], op.operands[3:]))}

    def source_loads(v: Value) -> list[Value] | None:
        """The loads a tile is read from: its load (through casts, each link read only by the next),
        or, for a loop-carried tile, the loads of its initial value and of the value the body yields
        for it (a tile loaded one iteration ahead); None where it is anything else. Their operands
        must be index arithmetic."""
        while v.id in defined and defined[v.id].opcode == "cast" and \
                len(users.get(defined[v.id].operands[0].id, [])) == 1:
            v = defined[v.id].operands[0]
        if v.id in carried:
            found = [source_loads(w) if len(users.get(w.id, [])) == 1 else None for w in carried[v.id]]
            return None if None in found else [load for f in found for load in f]
        load = defined.get(v.id)
        if load is None or load.opcode != "load" or \
                not all(isinstance(plan.values.get(o.id), (Remat, Scalar)) for o in load.operands):
            return None
        return [v]

    def broadcast_source_load(v: Value) -> list[Value] | None:
        """The loads to hint (`source_loads`) when v is a broadcast, through casts, of a loaded tile
        (or a loop-carried one), every link read only by the next."""
        src = v
        while src.id in defined and defined[src.id].opcode in ("broadcast", "cast"):
            src = defined[src.id].operands[0]
            if len(users.get(src.id, [])) != 1:
                return None
        if src is v or defined.get(v.id) is None or defined[v.id].opcode != "broadcast":
            return None
        return source_loads(src)

    def settle(r: Value, layout: Blocked, operands: list[Value]) -> None:
        """Make every broadcast operand of an element-wise op readable in its layout: hint the load
        it broadcasts, or spill it to threadgroup memory."""
        for v in operands:
            held = plan.values.get(v.id)
            if not isinstance(held, Blocked) or same_registers(held, layout) or v.id not in defined \
                    or defined[v.id].opcode != "broadcast" or v.id in spilled:
                continue
            loads = broadcast_source_load(v)
            wanted = {load.id: layout.reshaped(shape_of(load.type)) for load in loads or ()}
            if loads and shape_of(v.type) == layout.shape and not any(load.id in hints for load in loads):
                hints.update(wanted)
            elif loads and v.id not in waited and all(hints.get(i) == want for i, want in wanted.items()):
                # hinted, but read before a pass gave all of them the hint (a carried tile's initial
                # load comes before the loop whose body asked for it): one more pass
                waited.add(v.id)
            else:
                spilled.add(v.id)
            changed[0] = True

    def concrete(v: Value) -> Layout:
        """Layout for a value that must be held in registers across a region boundary."""
        return Scalar() if not isinstance(v.type, BlockType) else plan.storage(v)

    def visit(ops: list[Operation]) -> None:
        for op in ops:
            assign(op)

    def assign(op: Operation) -> None:
        code = op.opcode
        operand_layouts = [plan.values.get(v.id) for v in op.operands]
        tiles = [(v, l) for v, l in zip(op.operands, operand_layouts) if isinstance(v.type, BlockType)]
        if code == "for":
            body = op.regions[0]
            plan.values[body.args[0].id] = Scalar()
            for arg, init, res in zip(body.args[1:], op.operands[3:], op.results):
                plan.values[arg.id] = plan.values[res.id] = concrete(init)
            visit(body.ops)
            # A carried tile initialised with index arithmetic (tl.zeros) takes the layout its
            # update has, so the loop does not convert it on every iteration.
            retry = False
            for arg, init, res, y in zip(body.args[1:], op.operands[3:], op.results, body.ops[-1].operands):
                update = plan.values.get(y.id)
                if (isinstance(plan.values.get(init.id), Remat) and isinstance(update, Registers)
                        and update != plan.values[arg.id]):
                    plan.values[arg.id] = plan.values[res.id] = update
                    retry = True
            if retry:
                visit(body.ops)
            return
        if code == "while":
            before, after = op.regions
            for arg, init in zip(before.args, op.operands):
                plan.values[arg.id] = concrete(init)
            visit(before.ops)
            for arg, res, arg0 in zip(after.args, op.results, before.args):
                plan.values[arg.id] = plan.values[res.id] = plan.values[arg0.id]
            visit(after.ops)
            return
        if code == "if":
            then, orelse = op.regions
            visit(then.ops)
            visit(orelse.ops)
            yielded = then.ops[-1].operands if then.ops else []
            for res, y in zip(op.results, yielded):
                plan.values[res.id] = concrete(y)
            return
        if code in ("reduce", "scan"):
            for arg in op.regions[0].args:
                plan.values[arg.id] = Scalar()
            visit(op.regions[0].ops)
        for r in op.results:
            plan.values[r.id] = result_layout(op, r, tiles)

    def only_dot_operand(v: Value) -> bool:
        found = users.get(v.id, [])
        return bool(found) and all(u.opcode == "dot" and all(o is not v for o in u.operands[2:]) for u in found)

    def cheap_to_recompute(op: Operation, r: Value) -> bool:
        """Whether index arithmetic `r` may be recomputed where it is read: unless it evaluates a
        function, has the shape of a tile the kernel loads or stores (whose default layout its
        readers share), and several element-wise ops of that shape read it. Anything else would
        reach its readers through threadgroup memory, which costs more than the recomputation."""
        if op.opcode not in FUNCTIONS and not any(o.id in evaluates for o in op.operands):
            return True
        shape = shape_of(r.type)
        readers = users.get(r.id, [])
        if shape in plan.vector and len(readers) > 1 and all(
                u.opcode in ELEMENTWISE and len(u.results) == 1 and shape_of(u.result.type) == shape
                for u in readers):
            return False
        evaluates.add(r.id)
        return True

    def result_layout(op: Operation, r: Value, tiles: list) -> Layout:
        code = op.opcode
        if code in REDUCTIONS:
            x = op.operands[0]
            axis = op.attrs.get("axis")
            if axis is None and len(x.type.shape) > 1:  # over everything: reduce the flattened tile
                plan.reduce_parent[id(op)] = default_blocked((x.type.numel,), num_warps)
                return Scalar()
            axis = axis or 0
            held = plan.values.get(x.id)
            if (isinstance(held, Slice) and len(x.type.shape) == 1 and len(held.parent.shape) == 2
                    and not op.attrs.get("keep_dims")):
                plan.reduce_parent[id(op)] = held  # reduced in registers (reductions.py)
                return Scalar()
            parent = canonical(plan.storage(x))
            if not isinstance(parent, (Blocked, MMA)):
                parent = plan.default(x)
            plan.reduce_parent[id(op)] = parent
            s = Slice(parent, axis)
            if op.attrs.get("keep_dims"):
                return Expand(s)
            return s if s.shape else Scalar()
        if not isinstance(r.type, BlockType):
            return Scalar()
        if code in SOURCES:
            return Remat()
        if code in PASS_THROUGH:
            return plan.values[op.operands[0].id]
        if code in ELEMENTWISE or code in VIEWS:
            held = [l for _, l in tiles if not isinstance(l, (Remat, Scalar))]
            if not held:
                return Remat() if cheap_to_recompute(op, r) else plan.default(r)
        if code in ELEMENTWISE:
            registers = [l for l in held if isinstance(l, Registers)]
            # A reduction's slice layout or a dot's fragments win over a blocked layout: the blocked
            # operand is often a loop-carried tile, which then takes that layout too (see `for`), and
            # nothing moves.
            # a broadcast of a load that could take any layout yields to the other operands
            fixed = [l for v, l in tiles if isinstance(l, Registers) and broadcast_source_load(v) is None]
            preferred = ([l for l in registers if isinstance(l, (Slice, Expand))]
                         or [l for l in registers if isinstance(l, MMA)] or fixed or registers)
            if not registers:
                return plan.default(r)
            if isinstance(preferred[0], Blocked):
                settle(r, preferred[0], [v for v, _ in tiles])
            return preferred[0]
        if code == "broadcast":
            (src,) = held
            if isinstance(src, Expand) and src.slice.parent.shape == r.type.shape:
                return src.slice.parent
            if isinstance(src, Blocked) and r.id not in spilled and all(
                    n == m or src.local[d] == 1 for d, (n, m) in enumerate(zip(src.shape, r.type.shape))):
                return src.reshaped(r.type.shape)
            return plan.default(r)
        if code == "expand_dims":
            (src,) = held
            axis = op.attrs["axis"]
            if isinstance(src, Slice) and src.dim == axis:
                return Expand(src)
            if isinstance(src, Blocked):
                return src.with_axis(axis)
            return Shared(r.type.shape)
        if code == "reshape" and isinstance(held[0], Blocked):
            merged = merged_last_axes(held[0], r.type.shape)
            if merged is not None:
                return merged
        if code in VIEWS:  # reshape, permute of stored data
            return Shared(r.type.shape)
        if code in SCANS:
            return Shared(r.type.shape)
        if code == "dot" and (plan.matmul2d or not on_fragments(op.operands[0].type.element, r.type.element,
                                                                 len(r.type.shape))):
            return plan.default(r)  # matmul2d's product comes back through threadgroup memory, rows whole
        if code == "dot":
            a = op.operands[0]
            m, k = a.type.shape
            warpgroups = id(op) in plan.warpgroup_dots  # every warp along the rows: wgmma's 16 rows a warp
            return mma_layout(r.type.shape, num_warps, fragment_for(target, a.type.element, (m, r.type.shape[1], k)),
                              num_warps if warpgroups else warps_m, rows_reduced)
        if code == "load" and dot_stages == 0 and only_dot_operand(r) and \
                all(isinstance(l, (Remat, Scalar)) for _, l in tiles):
            return Remat()  # loaded where the dot reads it, straight into matrix fragments
        if code == "load" and r.id in hints:
            return hints[r.id]
        if code == "load" or code.startswith("atomic_"):
            held = [l for _, l in tiles if isinstance(l, Registers)]
            return held[0] if held and code.startswith("atomic_") else plan.default(r)
        return plan.default(r)

    for _ in range(8):  # until no broadcast needs a hint or a spill (each one changes once)
        changed[0] = False
        plan.values = {a.id: Scalar() for a in fn.args}
        plan.reduce_parent.clear()
        evaluates.clear()
        visit(fn.body.ops)
        if not changed[0]:
            break
    for op in fn.walk():  # loads repeating one element over a thread's run of slots read it once
        layout = plan.values.get(op.result.id) if op.opcode == "load" else None
        if isinstance(layout, Blocked) and plan.access_width.get(id(op), 1) == 1:
            dims = [d for d, n in enumerate(layout.local) if n > 1]
            if dims and layout.spt[dims[-1]] > 1 and constant_run(op, info, dims[-1], layout.spt[dims[-1]]):
                plan.constant_runs[id(op)] = layout.spt[dims[-1]]
    stage_fragment_stores(fn, plan)
    return plan
