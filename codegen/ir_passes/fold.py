"""Constant folding: scalar arithmetic on constants becomes a constant (the front end already folds
constexpr Python values; this catches what becomes constant after inlining)."""
from __future__ import annotations

import math
import operator

from ...dsl.ir import Block, Function, ScalarType

_FOLDABLE = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "and": operator.and_, "or": operator.or_,
    "xor": operator.xor, "shl": operator.lshift, "minimum": min, "maximum": max,
    "sdiv": lambda a, b: int(a / b), "udiv": operator.floordiv,
    "srem": lambda a, b: int(math.fmod(a, b)), "urem": operator.mod, "fdiv": operator.truediv,
}


def _wrap(value, t: ScalarType):
    """Wrap an integer result to the type's width, as the GPU would."""
    if t.is_float or t.is_bool:
        return value
    value &= (1 << t.bits) - 1
    return value - (1 << t.bits) if t.signed and value >= 1 << (t.bits - 1) else value


def fold_constants(fn: Function) -> Function:
    """Replace scalar ops whose operands are all constants by a constant."""
    const: dict[int, object] = {}
    replace: dict[int, object] = {}

    def visit(block: Block) -> None:
        for op in block.ops:
            op.operands = [replace.get(v.id, v) for v in op.operands]
            if op.opcode == "constant":
                const[op.result.id] = op.attrs["value"]
            elif (op.opcode in _FOLDABLE and len(op.results) == 1 and isinstance(op.result.type, ScalarType)
                  and all(v.id in const for v in op.operands)):
                a, b = (const[v.id] for v in op.operands)
                if op.opcode in ("sdiv", "udiv", "srem", "urem", "fdiv") and b == 0:
                    continue
                value = _wrap(_FOLDABLE[op.opcode](a, b), op.result.type)
                op.opcode, op.operands, op.attrs = "constant", [], {"value": value}
                const[op.result.id] = value
            for region in op.regions:
                visit(region)

    visit(fn.body)
    return fn
