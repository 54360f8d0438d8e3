"""`exp(a - b)` in float32 as one op, `expdiff(a, b)`, which lowering computes as
`exp2(fma(a, log2 e, -(b * log2 e)))` (`lowering.core.exp_of_difference`): the subtraction folds
into the multiply by log2 e that exp is computed with anyway. Softmax and attention exponentiate
scores less their row's maximum; the maximum's product is made once per row, so each score costs a
multiply-add and the exponential where it cost a subtraction, a multiply and the exponential."""
from __future__ import annotations

from ...dsl import ir
from ...dsl.ir import Block, Function


def fold_exp_differences(fn: Function) -> Function:
    """Rewrite each float32 `exp` of a `sub` that nothing else reads (the `sub` is then dead code)."""
    defined = {r.id: op for op in fn.walk() for r in op.results}
    readers: dict[int, int] = {}
    for op in fn.walk():
        for v in op.operands:
            readers[v.id] = readers.get(v.id, 0) + 1

    def visit(block: Block) -> None:
        for op in block.ops:
            for region in op.regions:
                visit(region)
            if op.opcode != "exp" or ir.element_of(op.result.type) != ir.float32:
                continue
            sub = defined.get(op.operands[0].id)
            if sub is not None and sub.opcode == "sub" and readers[sub.result.id] == 1:
                op.opcode, op.operands = "expdiff", list(sub.operands)
    visit(fn.body)
    return fn
