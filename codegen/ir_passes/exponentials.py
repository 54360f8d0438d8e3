"""Softmax's exponential, `exp(x - m)` with `m` a maximum of the scores, as one op, `expdiff(x, m)`,
which lowering computes as `exp2(fma(x, log2 e, -(m * log2 e)))` (`lowering.core.exp_of_difference`):
the subtraction folds into the multiply by log2 e that exp is computed with anyway, and `m`'s product
is made once a row, so each score costs a multiply-add and the exponential where it cost a
subtraction, a multiply and the exponential (attention's inner loop, docs/dot.md).

The exponent is then off by up to half an ulp of `m * log2 e` (relative error of the result about
2^-24 |m|) where the subtraction first was exact for scores near the maximum: the precision of
FlashAttention's and MLX's attention, which scale scores by log2 e before taking the maximum. So only
a shift that is a maximum (a `max` reduction or an element-wise `maximum`, through casts, splats and
views: softmax's maximum and the running maximum of online softmax and attention) is folded; any other
`exp(a - b)` is computed as written."""
from __future__ import annotations

from ...dsl import ir
from ...dsl.ir import Block, Function, Operation, Value
from .assign_layouts import VIEWS


def fold_exp_differences(fn: Function) -> Function:
    """Rewrite each float32 `exp` of a `sub` that nothing else reads and whose subtrahend is a
    maximum (`_a_maximum`); the `sub` is then dead code."""
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
            if (sub is not None and sub.opcode == "sub" and readers[sub.result.id] == 1
                    and _a_maximum(sub.operands[1], defined)):
                op.opcode, op.operands = "expdiff", list(sub.operands)
    visit(fn.body)
    return fn


def _a_maximum(v: Value, defined: dict[int, Operation]) -> bool:
    """Whether `v` is a maximum: a `max` reduction or an element-wise `maximum` (a running maximum),
    or a cast, splat or view (broadcast, expand_dims...) of one."""
    op = defined.get(v.id)
    if op is None:
        return False
    if op.opcode in ("max", "maximum"):
        return True
    return (op.opcode in VIEWS or op.opcode in ("cast", "splat")) and _a_maximum(op.operands[0], defined)
