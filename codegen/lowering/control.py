"""Structured control flow: `for`, `while` and `if` on uniform scalars become C loops and branches;
loop-carried and yielded values live in variables declared before the construct."""
from __future__ import annotations

from ...dsl.ir import Block, Operation, Value
from .. import lir
from ..layouts import Scalar, lit
from ..lir import Bin, Lit, Select, Sym
from .core import LoopFrame, Lowering, Repr, ScalarRepr, accumulated_in_place, loop_stage, ring_slot
from .memory import issue_prologue


def _yield_into(lw: Lowering, targets: list[Repr], values: list[Value]) -> None:
    """Assign yielded values to the carried variables, through temporaries (yields may swap them);
    a value already in its variable (a dot accumulating in place) needs no assignment."""
    moved = [(t, v) for t, v in zip(targets, values) if lw.env[v.id] is not t]
    targets, values = [t for t, _ in moved], [v for _, v in moved]
    temps = []
    for target, v in zip(targets, values):
        layout = target.layout if hasattr(target, "layout") else Scalar()
        tmp = lw.variable(v, layout)
        lw.assign(tmp, v)
        temps.append(tmp)
    for target, tmp, v in zip(targets, temps, values):
        proxy = Value(v.type)  # the temporary, read back as a value
        lw.env[proxy.id] = tmp
        lw.assign(target, proxy)


def _carried(lw: Lowering, args: list[Value], inits: list[Value], results: list[Value],
             body: Block | None = None) -> list[Repr | None]:
    """The variables holding a loop's carried values, initialised; None for a tile pipelined by
    asynchronous copies (its buffers are the variable: `AsyncTile`)."""
    out: list[Repr | None] = []
    for position, (arg, init, res) in enumerate(zip(args, inits, results)):
        if arg.id in lw.async_tiles:
            out.append(None)
            continue
        if body is not None and accumulated_in_place(lw, body, position):
            var = lw.fragments(lw.plan.of(arg), hint=res.name or "acc")
            lw.fragment_accumulators.add(arg.id)
        else:
            var = lw.variable(res, lw.plan.of(arg), hint=res)
        lw.assign(var, init)
        lw.env[arg.id] = lw.env[res.id] = var
        out.append(var)
    return out


def lower_for(lw: Lowering, op: Operation) -> None:
    body = op.regions[0]
    iv, args = body.args[0], body.args[1:]
    lo, hi, step = (lw.read(v, Scalar(), None, []) for v in op.operands[:3])
    carried = _carried(lw, args, op.operands[3:], op.results, body)
    tiles = list({id(t): t for t in (lw.async_tiles.get(a.id) for a in args) if t is not None}.values())
    if tiles:
        issue_prologue(lw, tiles)
    iv_name = lw.name(iv, "i")
    lw.env[iv.id] = ScalarRepr(Sym(iv_name))
    outer = lw.target
    frame = LoopFrame(Sym(iv_name), lo, step, len(lw.blocks), outer)  # its body: the block `nested` opens

    def fill() -> None:
        lw.loops.append(frame)
        try:
            for tile in tiles:  # the buffers this iteration's carried tiles are in
                stage = loop_stage(lw, frame, tile.stages)
                for j, arg in enumerate(tile.carried):
                    lw.env[arg.id] = tile.view(ring_slot(stage, j, tile.stages))
            moved = [(c, v) for c, v in zip(carried, body.ops[-1].operands) if c is not None]
            lw.lower_block(body.ops[:-1])
            _yield_into(lw, [c for c, _ in moved], [v for _, v in moved])
            if tiles:
                lw.emit(lir.AsyncCommit())  # this iteration's copies, one group
            for stmt in frame.advance:
                lw.emit(stmt)
        finally:
            lw.loops.pop()
    allocated = len(lw.shared_arrays)
    stmts = lw.nested(fill)
    i = Sym(iv_name)
    if isinstance(step, Lit):
        cond = Bin("<" if step.value > 0 else ">", i, hi)
    else:
        cond = Select(Bin(">", step, lit(0)), Bin("<", i, hi), Bin(">", i, hi))
    lw.emit(lir.For(iv_name, lo, cond, step, stmts, type=iv.type))
    for stmt in frame.after:
        lw.emit(stmt)
    if tiles:
        lw.emit(lir.AsyncWait(0))  # the last iteration's copies (masked off) land before the memory is reused
        if lw.loops or lw.whiles:  # an outer loop's next iteration fills the ring again: every warp's last reads first
            lw.emit(lir.Barrier())
    if not (lw.loops or lw.whiles):  # later arrays (a staged epilogue) may take the place of the loop's own
        inside = [name for name, (_, _, block) in list(lw.shared_arrays.items())[allocated:] if block >= frame.block]
        lw.release_shared([t.name for t in tiles] + inside)


def lower_while(lw: Lowering, op: Operation) -> None:
    before, after = op.regions
    carried = _carried(lw, before.args, op.operands, before.args)
    forwarded = []
    for arg, res in zip(after.args, op.results):
        var = lw.variable(res, lw.plan.of(arg), hint=res)
        lw.env[arg.id] = lw.env[res.id] = var
        forwarded.append(var)
    cond_holder = {}

    def head() -> None:
        lw.lower_block(before.ops[:-1])
        condition = before.ops[-1]
        cond_holder["cond"] = lw.read(condition.operands[0], Scalar(), None, [])
        _yield_into(lw, forwarded, condition.operands[1:])

    def body() -> None:
        lw.lower_block(after.ops[:-1])
        _yield_into(lw, carried, after.ops[-1].operands)
    lw.whiles += 1
    try:
        head_stmts, body_stmts = lw.nested(head), lw.nested(body)
    finally:
        lw.whiles -= 1
    lw.emit(lir.Loop(head_stmts, cond_holder["cond"], body_stmts))


def lower_if(lw: Lowering, op: Operation) -> None:
    results = [lw.variable(r, lw.plan.of(r)) for r in op.results]
    for r, var in zip(op.results, results):
        lw.env[r.id] = var
    cond = lw.read(op.operands[0], Scalar(), None, [])
    before = lw.device_writes_unfenced, lw.output_reads_unfenced  # each branch starts from here
    after: list[tuple[bool, bool]] = []

    def branch(region) -> list[lir.Stmt]:
        lw.device_writes_unfenced, lw.output_reads_unfenced = before

        def fill() -> None:
            lw.lower_block(region.ops[:-1] if region.ops and region.ops[-1].opcode == "yield" else region.ops)
            if region.ops and region.ops[-1].opcode == "yield":
                _yield_into(lw, results, region.ops[-1].operands)
        stmts = lw.nested(fill)
        after.append((lw.device_writes_unfenced, lw.output_reads_unfenced))
        return stmts
    lw.emit(lir.If(cond, branch(op.regions[0]), branch(op.regions[1])))
    lw.device_writes_unfenced, lw.output_reads_unfenced = (any(a) for a in zip(*after))


HANDLERS = {"for": lower_for, "while": lower_while, "if": lower_if}
