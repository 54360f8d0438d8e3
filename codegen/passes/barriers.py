"""Barrier merging on the per-thread program: a threadgroup barrier with no memory access since the
previous one in the same block (only comments and declarations between) synchronises nothing new.

Conversions through threadgroup memory each fence their writes on both sides, so two in a row (the
A and B operands of a `tl.dot`) leave two barriers back to back; one is enough.
"""
from __future__ import annotations

from .. import lir


def _inert(s: lir.Stmt) -> bool:
    return isinstance(s, lir.Comment) or (isinstance(s, lir.Decl) and (s.init is None or s.space == "threadgroup"))


def merge_barriers(stmts: list[lir.Stmt]) -> list[lir.Stmt]:
    out: list[lir.Stmt] = []
    fenced = False  # nothing but inert statements since the last barrier of this block
    for s in stmts:
        if isinstance(s, lir.Barrier):
            if fenced:
                continue
            fenced = True
        elif not _inert(s):
            fenced = False
        if isinstance(s, lir.If):
            s.then, s.orelse = merge_barriers(s.then), merge_barriers(s.orelse)
        elif isinstance(s, lir.For):
            s.body = merge_barriers(s.body)
        elif isinstance(s, lir.Loop):
            s.head, s.body = merge_barriers(s.head), merge_barriers(s.body)
        out.append(s)
    return out
