"""Software pipelining of `tl.dot` operands (`num_stages >= 2`), Triton's pipeliner in its simplest
form: a load in a `for` loop's body whose tile only feeds dots (directly or through `tl.trans`) is
issued one iteration ahead.

    a = load(k = lo)                          # prologue
    for k in range(lo, hi, step) carry(a):
        a_next = load(k + step)               # in flight while this iteration's products run
        acc = dot(a, ...)
        yield a_next

The load's address and mask computations (pure ops of the loop body, on the induction variable and
values from outside the loop) are cloned for the prologue and for the next iteration; both clones
also mask off the elements past the loop's end, so nothing outside the kernel's ranges is read. The
original load becomes dead (dce removes it). With the operand arriving as a loop-carried register
tile, the dot stages it in two alternating threadgroup buffers (lowering/core.py, store_to_shared), so an
iteration needs one barrier and its global loads overlap the previous tile's matrix products.

With `distance` d > 1 (num_stages = d + 1 on a target with asynchronous copies) the prologue loads
the first d tiles, the body loads the tile d iterations ahead, and d block arguments carry the tiles
in between, shifted along by one each iteration (`carry(a0, a1); yield a1, a_next`). The cp.async
lowering (lowering/memory.py) turns the d tiles into buffers of one ring of d + 1.
"""
from __future__ import annotations

from ...dsl import ir
from ...dsl.ir import Block, BlockType, Function, Operation, Value
from .assign_layouts import ELEMENTWISE, PASS_THROUGH, SOURCES, VIEWS

# ops that compute addresses and masks: cloning them changes nothing but where they run
_PURE = ELEMENTWISE | VIEWS | SOURCES | PASS_THROUGH | {"program_id", "num_programs"}


def users_of(fn: Function) -> dict[int, list[Operation]]:
    """The ops that read each value (by value id)."""
    users: dict[int, list[Operation]] = {}
    for op in fn.walk():
        for v in op.operands:
            users.setdefault(v.id, []).append(op)
    return users


def feeds_dots_only(v: Value, users: dict[int, list[Operation]]) -> bool:
    """Whether `v` is read, and only as an A or B operand of dots (directly or through `tl.trans`)."""
    found = users.get(v.id, [])
    return bool(found) and all(
        (u.opcode == "dot" and all(o is not v for o in u.operands[2:]))
        or (u.opcode == "permute" and feeds_dots_only(u.result, users)) for u in found)


def prefetch_dot_operands(fn: Function, distance: int = 1) -> Function:
    """Loads that feed only dots issued `distance` iterations ahead (carried through `distance`
    block arguments, shifted along each iteration)."""
    defined = {r.id: op for op in fn.walk() for r in op.results}
    users = users_of(fn)

    def visit(block: Block) -> None:
        for op in list(block.ops):
            for region in op.regions:
                visit(region)
            if op.opcode == "for":
                _pipeline(block, op, defined, lambda v: feeds_dots_only(v, users), distance)
    visit(fn.body)
    return fn


def _positive_constant(v: Value, defined: dict[int, Operation]) -> bool:
    op = defined.get(v.id)
    return op is not None and op.opcode == "constant" and isinstance(op.attrs["value"], int) and op.attrs["value"] > 0


def _offset(iv: Value, base: Value, amount: int, loc) -> tuple[list[Operation], Value]:
    """Ops computing `base + amount` (an iteration's induction value), and that value."""
    offset, shifted = Value(iv.type), Value(iv.type, f"{iv.name}_next" if iv.name else None)
    return [Operation("constant", [], [offset], {"value": amount}, loc),
            Operation("add", [base, offset], [shifted], loc=loc)], shifted


def _pipeline(parent: Block, loop: Operation, defined: dict[int, Operation], only_dots, distance: int) -> None:
    body = loop.regions[0]
    lo, hi, step = loop.operands[:3]
    if not _positive_constant(step, defined):
        return
    iv, inner = body.args[0], {a.id for a in body.args[1:]}
    local = {r.id: op for op in body.ops for r in op.results}
    for load in [op for op in body.ops if op.opcode == "load" and isinstance(op.result.type, BlockType)]:
        if not only_dots(load.result):
            continue
        chain = _address_ops(load, local, inner)
        if chain is None:
            continue
        step_value = defined[step.id].attrs["value"]
        # the prologue: the first `distance` iterations' tiles, loaded before the loop (masked off
        # past its end: nothing when it never runs)
        firsts = []
        for j in range(distance):
            ahead, iv_j = _offset(iv, lo, j * step_value, loop.loc) if j else ([], lo)
            firsts.append(ahead + _clone_load(chain, load, {iv.id: iv_j}, iv_j, hi, loop.loc))
        parent.ops[parent.ops.index(loop):parent.ops.index(loop)] = [op for ops in firsts for op in ops]
        # the tile `distance` iterations ahead, issued just before this iteration's first use
        advance, nxt_iv = _offset(iv, iv, distance * step_value, load.loc)
        nxt = [*advance, *_clone_load(chain, load, {iv.id: nxt_iv}, nxt_iv, hi, load.loc)]
        pointer = _advancing_pointer(loop, load, chain, local, step_value * distance, step_value)
        if pointer is not None:  # its address from a carried base instead of from the induction variable
            before, offsets, advanced = pointer
            parent.ops[parent.ops.index(loop):parent.ops.index(loop)] = before
            nxt[-1:-1] = offsets
            nxt[-1].operands[0] = offsets[-1].result
            nxt.append(advanced)
        first_use = min(i for i, op in enumerate(body.ops) if _uses(op, load.result))
        body.ops[first_use:first_use] = nxt
        # carried: this iteration's tile and the next distance - 1 arrive as block arguments, shifted
        # along by one each iteration, the newest yielded last
        carried = [Value(load.result.type, load.result.name) for _ in range(distance)]
        _replace_uses(body, load.result, carried[0], skip=nxt)
        loop.operands.extend(ops[-1].result for ops in firsts)
        body.args.extend(carried)
        loop.results.extend(Value(load.result.type) for _ in range(distance))
        body.ops[-1].operands.extend([*carried[1:], (nxt[-2] if pointer is not None else nxt[-1]).result])


def _advancing_pointer(loop: Operation, load: Operation, chain: list[Operation], local: dict[int, Operation],
                       ahead: int, step: int) -> tuple[list[Operation], list[Operation], Operation] | None:
    """Steel's `BlockLoader::next()` for a load `ahead` (a constant) past the induction variable: when
    its pointer is one scalar base pointer (from outside the loop) plus offsets that grow by the same
    scalar amount D per unit of the induction variable on every element, the base becomes a carried
    value, `base + ahead * D` before the loop and advanced by `step * D` each iteration, and the
    offsets are those of the loop's first iteration (loop-invariant: computed once by the target's
    compiler, not again from the induction variable each iteration). Returns the ops before the
    loop (D, the initial base), the body's ops computing the load's pointer from the carried base,
    and the advance (yielded; the loop carries the base); None when the pointer is not of that form."""
    iv, lo = loop.regions[0].args[0], loop.operands[0]
    feeding = _feeding(load.operands[0], local, chain)
    bases = {o.id: o for op in feeding for o in op.operands
             if isinstance(o.type, ir.PointerType) and o.id not in local and o is not iv}
    if len(bases) != 1:
        return None
    (base,) = bases.values()
    before: list[Operation] = []
    slope = _slope(load.operands[0], iv, local, before, load.loc)
    if not isinstance(slope, Value):
        return None
    carried = Value(base.type, f"{base.name}_k" if base.name else None)
    init = _addptr(before, base, _binary(before, "mul", slope, _constant(before, ahead, load.loc), load.loc), load.loc)
    stride = _binary(before, "mul", slope, _constant(before, step, load.loc), load.loc)
    offsets = _clone_ops(feeding, {iv.id: lo, base.id: carried})
    advance: list[Operation] = []
    body = loop.regions[0]
    body.args.append(carried)
    loop.operands.append(init)
    loop.results.append(Value(base.type, carried.name))
    body.ops[-1].operands.append(_addptr(advance, carried, stride, load.loc))
    advance[0].result.name = f"{base.name}_next" if base.name else None
    return before, offsets, advance[0]


def _feeding(v: Value, local: dict[int, Operation], chain: list[Operation]) -> list[Operation]:
    """The ops of `chain` that `v` is computed from, in program order."""
    need, stack = set(), [v]
    while stack:
        op = local.get(stack.pop().id)
        if op is not None and id(op) not in need:
            need.add(id(op))
            stack.extend(op.operands)
    return [op for op in chain if id(op) in need]


def _slope(v: Value, iv: Value, local: dict[int, Operation], out: list[Operation], loc):
    """How much `v` grows per unit of `iv`, the same on every element: 0, or a scalar int Value
    (computed by ops appended to `out`, from values outside the loop); None when it is not such."""
    if v is iv:
        return _constant(out, 1, loc)
    op = local.get(v.id)
    if op is None:
        return 0
    if op.opcode in ("splat", "broadcast", "expand_dims"):
        return _slope(op.operands[0], iv, local, out, loc)
    if op.opcode in ("constant", "arange", "full"):
        return 0
    if op.opcode in ("add", "addptr", "sub"):
        a, b = (_slope(o, iv, local, out, loc) for o in op.operands)
        if a is None or b is None:
            return None
        if b == 0 or a == 0:
            return a if b == 0 else (b if op.opcode != "sub" else None)
        return _binary(out, "sub" if op.opcode == "sub" else "add", a, b, loc)
    if op.opcode == "mul":
        a, b = (_slope(o, iv, local, out, loc) for o in op.operands)
        if a is None or b is None or (a != 0 and b != 0):
            return None
        if a == 0 and b == 0:
            return 0
        factor = _uniform(op.operands[0] if a == 0 else op.operands[1], local)
        return None if factor is None else _binary(out, "mul", a if b == 0 else b, factor, loc)
    return None


def _uniform(v: Value, local: dict[int, Operation]) -> Value | None:
    """The scalar from outside the loop that every element of `v` equals (a splat of it), or None."""
    while isinstance(v.type, BlockType):
        op = local.get(v.id)
        if op is None or op.opcode not in ("splat", "broadcast", "expand_dims"):
            return None
        v = op.operands[0]
    return None if v.id in local else v


def _constant(out: list[Operation], value: int, loc) -> Value:
    result = Value(ir.int32)
    out.append(Operation("constant", [], [result], {"value": value}, loc))
    return result


def _binary(out: list[Operation], opcode: str, a: Value, b: Value, loc) -> Value:
    result = Value(ir.int32)
    out.append(Operation(opcode, [a, b], [result], loc=loc))
    return result


def _addptr(out: list[Operation], pointer: Value, offset: Value, loc) -> Value:
    result = Value(pointer.type, pointer.name)
    out.append(Operation("addptr", [pointer, offset], [result], loc=loc))
    return result


def _clone_ops(ops: list[Operation], mapping: dict[int, Value]) -> list[Operation]:
    """Copies of `ops` reading `mapping`'s values in place of the originals (and each other's results)."""
    ids, out = dict(mapping), []
    for op in ops:
        results = [Value(r.type, r.name) for r in op.results]
        out.append(Operation(op.opcode, [ids.get(v.id, v) for v in op.operands], results, dict(op.attrs), op.loc))
        ids.update({r.id: n for r, n in zip(op.results, results)})
    return out


def _address_ops(load: Operation, local: dict[int, Operation], carried: set[int]) -> list[Operation] | None:
    """The body ops the load's operands are computed by, in program order; None when any is not a
    pure op or reads a loop-carried value (the next iteration's would not be known yet)."""
    seen: dict[int, Operation] = {}

    def need(v: Value) -> bool:
        if v.id in carried:
            return False
        op = local.get(v.id)
        if op is None or id(op) in seen:
            return True
        if op.opcode not in _PURE or op.regions:
            return False
        seen[id(op)] = op
        return all(need(o) for o in op.operands)
    if not all(need(v) for v in load.operands):
        return None
    order = {id(op): i for i, op in enumerate(local.values())}
    return sorted(seen.values(), key=lambda op: order[id(op)])


def _clone_load(chain: list[Operation], load: Operation, mapping: dict[int, Value], iv: Value, hi: Value,
                loc) -> list[Operation]:
    """Copies of `chain` and `load` with values remapped, the load masked to `iv < hi` as well."""
    out = _clone_ops(chain, mapping)
    ids = dict(mapping)
    for old, new in zip(chain, out):
        ids.update({r.id: n for r, n in zip(old.results, new.results)})
    shape = load.result.type.shape
    in_range = Value(ir.int1)
    out.append(Operation("cmp", [iv, hi], [in_range], {"pred": "lt"}, loc))
    guard = Value(BlockType(ir.int1, shape))
    out.append(Operation("splat", [in_range], [guard], loc=loc))
    ptr, *rest = [ids.get(v.id, v) for v in load.operands]
    attrs = dict(load.attrs)
    if attrs.get("masked"):
        mask = Value(BlockType(ir.int1, shape))
        out.append(Operation("and", [rest[0], guard], [mask], loc=loc))
        rest[0] = mask
    else:
        rest = [guard] + rest
        attrs["masked"] = True
    result = Value(load.result.type, load.result.name)
    out.append(Operation("load", [ptr, *rest], [result], attrs, load.loc))
    return out


def _uses(op: Operation, v: Value) -> bool:
    return any(o is v for o in op.operands) or any(_uses(inner, v) for r in op.regions for inner in r.ops)


def _replace_uses(block: Block, old: Value, new: Value, skip: list[Operation]) -> None:
    for op in block.ops:
        if any(op is s for s in skip):
            continue
        op.operands = [new if o is old else o for o in op.operands]
        for region in op.regions:
            _replace_uses(region, old, new, skip)
