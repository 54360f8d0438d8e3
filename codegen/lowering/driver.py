"""The lowering driver: the walk over the tile IR that sends each op to its handler, and `lower()`,
which the pipeline calls.

It sits on top of the handler modules (memory, reductions, conversions, control, dot, debug_print),
which import only the core (`core.py`: the `Lowering` state and how values are represented and
read); handlers of ops with regions reach the walk through `Lowering.lower_block`.
"""
from __future__ import annotations

from ...dsl import ir
from ...dsl.ir import Function, Operation
from ...errors import SharedMemoryLimitError
from .. import lir
from ..ir_passes.assign_layouts import ELEMENTWISE, PASS_THROUGH, LayoutPlan
from ..lir import Special
from . import control, conversions, debug_print, dot, memory, reductions
from .core import Lowering, ScalarRepr

HANDLERS = {**control.HANDLERS, **memory.HANDLERS, **reductions.HANDLERS, **conversions.HANDLERS,
            **debug_print.HANDLERS, **dot.HANDLERS}


class LoweringDriver(Lowering):
    """The lowering state with the walk: each op goes to its handler module, or to the core
    (element-wise ops), or is a line here (pass-through views, program ids, barriers, returns)."""

    def lower_block(self, ops: list[Operation]) -> None:
        """Lower `ops` into the current block, in order."""
        for op in ops:
            self.current = op
            for r in op.results:
                self.depth[r.id] = len(self.blocks) - 1
            for region in op.regions:
                for a in region.args:
                    self.depth[a.id] = len(self.blocks)
            if op.loc is not None and op.loc.line != self.line and op.opcode not in ("yield", "condition"):
                self.line = op.loc.line
                self.emit(lir.Comment(f"{op.loc.line}: {op.loc.source}"))
            code = op.opcode
            # a loop's body may store after a load it repeats; a region may have stored or not
            region_writes = bool(op.regions) and memory.writes_device(op)
            self.device_writes_unfenced |= region_writes and code in ("for", "while")
            if code in HANDLERS:
                HANDLERS[code](self, op)
            elif code in ELEMENTWISE or code in ("arange", "splat", "full", "constant"):
                self.lower_elementwise(op)
            elif code in PASS_THROUGH:
                self.env[op.result.id] = self.env[op.operands[0].id]
            elif code in ("program_id", "num_programs"):
                prefix = "pid" if code == "program_id" else "nprog"
                self.env[op.result.id] = ScalarRepr(Special(f"{prefix}{op.attrs['axis']}"))
            elif code == "barrier":
                self.emit(lir.Barrier())
            elif code == "return":
                self.emit(lir.Return())
            else:
                raise self.error(f"tl operation `{code}` is not supported by the Metal code generator yet",
                                 "rewrite the kernel without it")
            self.device_writes_unfenced |= region_writes


def lower(fn: Function, plan: LayoutPlan, outputs: set[str], num_warps: int) -> lir.Kernel:
    """The per-thread program for `fn`; `outputs` names the pointer arguments that are outputs. A
    kernel over the threadgroup memory is lowered again without its stores staged through shared
    memory (`LayoutPlan.staged_stores`: written from the fragments instead), then without its spare
    ring buffers (memory.py `_spare_buffers`: its products are then waited for in each step) but
    with the staged stores, then without both: what costs least is given up first."""
    failed: set[tuple[bool, bool]] = set()  # (spare buffers, staged stores) of the lowerings that did not fit
    for spares, staged in ((True, True), (True, False), (False, True), (False, False)):
        lw = LoweringDriver(fn, plan, outputs, num_warps, staged)
        memory.plan_async_tiles(lw, fn, spares)
        tried = (any(tile.spare for tile in lw.async_tiles.values()), staged and bool(plan.staged_stores))
        if tried in failed:  # the same kernel as one that did not fit
            continue
        memory.check_atomic_outputs(lw)
        try:
            body = lw.run()
            break
        except SharedMemoryLimitError:
            if tried == (False, False):
                raise
            failed.add(tried)
    inputs = [(a.name, a.type) for a in fn.args if a.name not in outputs]
    outs = [(a.name, a.type.element) for a in fn.args if a.name in outputs]
    if lw.prints:
        outs.append((debug_print.PRINT_BUFFER, ir.uint32))
    return lir.Kernel(fn.name, inputs, outs, body, lw.threads, lw.atomic_outputs, prints=lw.prints,
                      word_outputs=sorted(lw.word_outputs))
