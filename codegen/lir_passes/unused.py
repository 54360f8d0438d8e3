"""Dead declarations on the per-thread program: a scalar declared with a value nobody reads (an
index the lowering named while probing a layout, then computed another way) is dropped, so the
generated source holds only what runs."""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from .. import lir


def drop_unused_scalars(stmts: list[lir.Stmt]) -> list[lir.Stmt]:
    while True:
        used = lir.symbols(stmts)
        unused = {s.name for s in lir.walk(stmts) if _droppable(s) and s.name not in used}
        if not unused:
            return stmts
        stmts = _without(stmts, unused)


def _droppable(s: lir.Stmt) -> bool:
    """A thread-local scalar whose initial value has no effect besides its value."""
    return (isinstance(s, lir.Decl) and s.space == "thread" and s.size is None and s.init is not None
            and not _has_atomic(s.init))


def _has_atomic(e: object) -> bool:
    if isinstance(e, lir.Atomic):
        return True
    if isinstance(e, (list, tuple)):
        return any(_has_atomic(x) for x in e)
    return is_dataclass(e) and any(_has_atomic(getattr(e, f.name)) for f in fields(e))


def _without(stmts: list[lir.Stmt], names: set[str]) -> list[lir.Stmt]:
    return lir.rewrite(stmts, lambda s: [] if isinstance(s, lir.Decl) and s.name in names and _droppable(s) else None)
