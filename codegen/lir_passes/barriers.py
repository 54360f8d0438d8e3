"""Barrier removal on the per-thread program, two rules within one block:

- a threadgroup barrier with no memory access since the previous one (only comments and
  declarations between) synchronises nothing new: conversions through threadgroup memory each fence
  their writes on both sides, so two in a row leave two barriers back to back;
- a barrier between two stretches that only write threadgroup memory, to different arrays, and read
  none (staging a dot's A tile, then its B tile) orders nothing: the barrier before the first stretch
  already waits for earlier readers of both arrays (or, for a double-buffered array, the previous
  iteration's last barrier did), and the one after the second fences both for the readers that follow.

Barriers that order device memory (`device=True`, a store read back by other threads) are kept.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import lir


def _inert(s: lir.Stmt) -> bool:
    return isinstance(s, lir.Comment) or (isinstance(s, lir.Decl) and (s.init is None or s.space == "threadgroup"))


@dataclass
class Stretch:
    """What the statements since the last barrier did to threadgroup memory."""
    writes: set[str] = field(default_factory=set)
    reads: bool = False
    opaque: bool = False  # a nested barrier, or something not analysed

    def add(self, s: lir.Stmt, shared: set[str]) -> None:
        if isinstance(s, lir.Decl):
            self.reads |= bool(lir.symbols(s.init) & shared)
        elif isinstance(s, lir.Assign) and isinstance(s.target, lir.Index) and isinstance(s.target.base, lir.Sym) \
                and s.target.base.name in shared:
            self.writes.add(s.target.base.name)
            self.reads |= bool(lir.symbols([s.target.index, s.value]) & shared)
        elif isinstance(s, lir.VectorStore) and s.space == "threadgroup" and isinstance(s.ptr, lir.Bin) \
                and isinstance(s.ptr.a, lir.Sym):
            self.writes.add(s.ptr.a.name)
            self.reads |= bool(lir.symbols([s.ptr.b, s.values]) & shared)
        elif isinstance(s, lir.ProxyFence):
            self.opaque = True  # it fences the writes before it for the barrier right after it
        elif isinstance(s, (lir.For, lir.If)):
            for inner in (s.body if isinstance(s, lir.For) else s.then + s.orelse):
                if isinstance(inner, lir.Barrier):
                    self.opaque = True
                else:
                    self.add(inner, shared)
            self.reads |= bool(lir.symbols(s.cond) & shared)
        elif isinstance(s, (lir.Loop, lir.MultiplyAccumulate, lir.MatrixLoad, lir.Store, lir.VectorLoad)) or \
                lir.symbols(s) & shared:
            self.opaque = self.opaque or isinstance(s, lir.Loop)
            self.reads |= bool(lir.symbols(s) & shared) or isinstance(s, lir.MatrixLoad)

    @property
    def write_only(self) -> bool:
        return not self.reads and not self.opaque


def merge_barriers(stmts: list[lir.Stmt], shared: set[str] | None = None,
                   rotating: set[str] | None = None) -> list[lir.Stmt]:
    """`stmts` without the barriers the rules above show to be redundant; `shared` names the
    threadgroup arrays, `rotating` those a loop alternates buffers of (earlier readers of the buffer
    being written finished before the previous iteration's last barrier)."""
    if shared is None or rotating is None:
        decls = [s for s in lir.walk(stmts) if isinstance(s, lir.Decl) and s.space == "threadgroup"]
        shared, rotating = {d.name for d in decls}, {d.name for d in decls if d.stages > 1}
    for s in stmts:
        if isinstance(s, lir.If):
            s.then, s.orelse = merge_barriers(s.then, shared, rotating), merge_barriers(s.orelse, shared, rotating)
        elif isinstance(s, lir.For):
            s.body = merge_barriers(s.body, shared, rotating)
        elif isinstance(s, lir.Loop):
            s.head, s.body = merge_barriers(s.head, shared, rotating), merge_barriers(s.body, shared, rotating)
    # split the block at its barriers: stretches[i] runs from barrier i-1 (or the block's start) to barrier i
    stretches: list[list[lir.Stmt]] = [[]]
    barriers: list[lir.Barrier] = []
    for s in stmts:
        if isinstance(s, lir.Barrier):
            barriers.append(s)
            stretches.append([])
        else:
            stretches[-1].append(s)
    out, kept, fenced, since = list(stretches[0]), Stretch(), False, list(stretches[0])
    for s in stretches[0]:
        kept.add(s, shared)
    for i, stretch in enumerate(stretches[1:], start=1):
        here = Stretch()
        for s in stretch:
            here.add(s, shared)
        closed = i + 1 < len(stretches)  # a barrier of this block ends this stretch
        if barriers[i - 1].device:
            out.append(barriers[i - 1])  # orders device memory, which the rules above do not track
            kept, fenced, since = Stretch(), True, []
        elif fenced and all(_inert(s) for s in since):
            pass  # nothing since the previous barrier: this one adds nothing
        elif (fenced or here.writes and here.writes <= rotating) and closed and kept.write_only and here.write_only \
                and not kept.writes & here.writes:
            pass  # two write-only stretches to different arrays: one barrier each side fences both
        else:
            out.append(barriers[i - 1])
            kept, fenced, since = Stretch(), True, []
        for s in stretch:
            kept.add(s, shared)
        out.extend(stretch)
        since.extend(stretch)
    return out
