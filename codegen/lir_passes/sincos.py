"""The sine and the cosine of one value as one `sincos` (targets with `fuse_sincos`).

Lowering writes `c = tl.cos(theta)` and `s = tl.sin(theta)` as two slot loops, `c[k] = cos(theta[k])`
and `s[k] = sin(theta[k])`, each of whose precise functions inlines its own range reduction: most
of RoPE's code. Where the second loop follows the first with the same header and argument, with only
comments and declarations between them (moved before the pair), one loop computes both with one
reduction. Loops are matched whole, so each value is computed where it was before; a tile of one
slot a thread (`c[0] = cos(theta[0])`, no loop) pairs the same way."""
from __future__ import annotations

from .. import lir

_OTHER = {"sin": "cos", "cos": "sin"}


def fuse_sincos(stmts: list[lir.Stmt]) -> list[lir.Stmt]:
    """`stmts` with each such pair of loops fused, nested blocks included."""
    out = list(stmts)
    i = 0
    while i < len(out):
        s = out[i]
        for block in _blocks(s):
            block[:] = fuse_sincos(block)
        first = _one_call(s)
        if first is not None:
            for j in range(i + 1, len(out)):
                second = _one_call(out[j])
                if second is not None and _pair(first, second):
                    between = out[i + 1:j]
                    sin, cos = (first, second) if first[1] == "sin" else (second, first)
                    fused = lir.SinCos(first[2], sin[0], cos[0])
                    if first[3] is not None:
                        s.body = [fused]
                    out[i:j + 1] = between + [s if first[3] is not None else fused]
                    i += len(between)
                    break
                if not isinstance(out[j], (lir.Comment, lir.Decl)) or isinstance(out[j], lir.Decl) and (
                        out[j].init is not None):
                    break
        i += 1
    return out


def _blocks(s: lir.Stmt) -> list[list[lir.Stmt]]:
    if isinstance(s, lir.If):
        return [s.then, s.orelse]
    if isinstance(s, lir.For):
        return [s.body]
    if isinstance(s, lir.Loop):
        return [s.head, s.body]
    return []


def _one_call(s: lir.Stmt) -> tuple[lir.Expr, str, lir.Expr, lir.For | None] | None:
    """(target, "sin" or "cos", argument, loop) of `target = sin(argument)` or cos, alone (loop None)
    or as a loop's whole body."""
    loop = s if isinstance(s, lir.For) and len(s.body) == 1 else None
    assign = loop.body[0] if loop is not None else s
    if not isinstance(assign, lir.Assign):
        return None
    value = assign.value
    if not isinstance(value, lir.Call) or value.fn not in _OTHER or len(value.args) != 1:
        return None
    return assign.target, value.fn, value.args[0], loop


def _pair(first: tuple, second: tuple) -> bool:
    """Both alone or both loops of the same header, the same argument, one sine and one cosine,
    neither writing what the argument reads."""
    a, b = first[3], second[3]
    if (a is None) != (b is None):
        return False
    header = (lambda f: (f.var, f.start, f.cond, f.step, f.unroll, f.rolled, f.type))
    if a is not None and header(a) != header(b):
        return False
    bound = {a.var} if a is not None else set()
    return (second[1] == _OTHER[first[1]] and second[2] == first[2]
            and not (lir.symbols(first[0]) | lir.symbols(second[0])) & (lir.symbols(first[2]) - bound))
