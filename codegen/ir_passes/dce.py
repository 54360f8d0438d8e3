"""Dead-code elimination: drop side-effect-free ops whose results nobody uses, so generated code
holds only what the kernel needs."""
from __future__ import annotations

from ...dsl.ir import Block, Function, Operation

_SIDE_EFFECTS = {"store", "print", "assert", "barrier", "return", "yield", "condition", "for", "while", "if"}


def _has_effects(op: Operation) -> bool:
    return op.opcode in _SIDE_EFFECTS or op.opcode.startswith("atomic_")


def eliminate_dead_code(fn: Function) -> Function:
    changed = True
    while changed:
        used: set[int] = set()

        def collect(block: Block) -> None:
            for op in block.ops:
                used.update(v.id for v in op.operands)
                for region in op.regions:
                    collect(region)

        collect(fn.body)
        changed = False

        def sweep(block: Block) -> None:
            nonlocal changed
            kept = []
            for op in block.ops:
                if not _has_effects(op) and op.results and not any(r.id in used for r in op.results):
                    changed = True
                    continue
                for region in op.regions:
                    sweep(region)
                kept.append(op)
            block.ops = kept

        sweep(fn.body)
    return fn
