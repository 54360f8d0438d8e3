"""Masks a specialisation proves true (issue #17's unmasked tiles): a conjunct `x + c < n` of a load's
or store's mask, with x a scalar and c a constant or a `tl.arange`, is dropped where the enclosing
loop's condition or another conjunct of the same mask says `x + k < n`, and the divisibilities
(axis_info, fed by the launch's specialisation on 16 to 128, launcher/arguments.py) give it:

    x + k and n multiples of d, x + k < n   =>   x + k <= n - d   =>   x + c < n for every c < k + d

So in `for k0 in range(0, K, BLOCK_K)` with K a multiple of BLOCK_K the tile's `k0 + tl.arange(0,
BLOCK_K) < K` is all true (the loop's own `k0 < K` implies it) and the load loses it, and the
prefetch pass's next tile, masked by `k0_next + tl.arange(0, BLOCK_K) < K` and its guard
`k0_next < K`, keeps only the guard (one comparison of scalars per step). A mask left with no
conjunct is dropped with the load's `other`. What is not a bound of this form (`rm < M` with rm
from `tl.program_id`, whose range the compiler does not know) is kept. Triton's compiler does not
do this: its kernels write `if EVEN_K:` variants chosen by `triton.heuristics` instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Mapping

from ...dsl import ir
from ...dsl.ir import Block, BlockType, Function, Operation, Value, element_of, make_type, shape_of
from .axis_info import MAX_DIVISIBILITY, AxisInfo, analyse
from .prefetch import _positive_constant


@dataclass(frozen=True)
class Affine:
    """Every element of an integer value is `base + c` for some lo <= c <= hi (base a scalar, or
    None for 0)."""

    base: Value | None
    lo: int
    hi: int


Bound = tuple[Affine, Affine]  # (x, n): x < n on every element


def drop_implied_masks(fn: Function, divisibility: Mapping[str, int]) -> Function:
    """Drop the conjuncts of load and store masks that the enclosing loops' conditions, the mask's
    other conjuncts and the divisibilities imply (`divisibility` as axis_info.analyse takes it)."""
    info = analyse(fn, divisibility)
    defined = {r.id: op for op in fn.walk() for r in op.results}
    facts = _Facts(info, defined)

    def visit(block: Block, known: list[Bound]) -> None:
        for op in list(block.ops):
            inner = known
            if op.opcode == "for" and _positive_constant(op.operands[2], defined):
                inner = known + [(Affine(op.regions[0].args[0], 0, 0), facts.affine(op.operands[1]))]
            for region in op.regions:
                visit(region, inner)
            if op.opcode in ("load", "store") and op.attrs.get("masked"):
                _simplify(block, op, known, facts)
    visit(fn.body, [])
    return fn


class _Facts:
    """Affine forms and divisibilities of the kernel's integer values."""

    def __init__(self, info: dict[int, AxisInfo], defined: dict[int, Operation]) -> None:
        self.info, self.defined = info, defined

    def affine(self, v: Value) -> Affine | None:
        """`v` as a scalar plus constant offsets, through splats, broadcasts, adds and subtractions
        of constants and `tl.arange`s; a scalar integer is at least itself plus 0; None otherwise."""
        op = self.defined.get(v.id)
        if op is not None and op.opcode in ("splat", "broadcast", "expand_dims"):
            return self.affine(op.operands[0])
        if op is not None and op.opcode in ("constant", "full") and isinstance(op.attrs["value"], int):
            return Affine(None, op.attrs["value"], op.attrs["value"])
        if op is not None and op.opcode == "arange":
            return Affine(None, op.attrs["start"], op.attrs["end"] - 1)
        if op is not None and op.opcode in ("add", "sub"):
            a, b = (self.affine(o) for o in op.operands)
            if a is not None and b is not None and b.base is None:
                return (Affine(a.base, a.lo - b.hi, a.hi - b.lo) if op.opcode == "sub"
                        else Affine(a.base, a.lo + b.lo, a.hi + b.hi))
            if a is not None and b is not None and a.base is None and op.opcode == "add":
                return Affine(b.base, a.lo + b.lo, a.hi + b.hi)
        scalar = not isinstance(v.type, BlockType) and element_of(v.type).is_int
        return Affine(v, 0, 0) if scalar else None

    def divisibility(self, a: Affine) -> int:
        """What divides `a` where it is one value (lo == hi)."""
        base = MAX_DIVISIBILITY if a.base is None else (
            self.info[a.base.id].divisibility[0] if a.base.id in self.info else 1)
        return gcd(base, a.lo & -a.lo if a.lo else MAX_DIVISIBILITY)

    def bound(self, mask: Value) -> Bound | None:
        """(x, n) where `mask` is `x < n` (or `n > x`, through splats and broadcasts) on signed integers."""
        op = self.defined.get(mask.id)
        while op is not None and op.opcode in ("splat", "broadcast", "expand_dims"):
            op = self.defined.get(op.operands[0].id)
        if op is None or op.opcode != "cmp" or op.attrs["pred"] not in ("lt", "gt"):
            return None
        if not all(element_of(o.type).is_int and element_of(o.type).signed for o in op.operands):
            return None
        x, n = op.operands if op.attrs["pred"] == "lt" else reversed(op.operands)
        found = self.affine(x), self.affine(n)
        return None if None in found else found

    def implies(self, known: Bound, wanted: Bound) -> bool:
        """Whether `known` (x + k < n, x + k one value) gives `wanted` (x + c < n for c up to hi)."""
        (x, n), (y, m) = known, wanted
        if n != m or n.lo != n.hi or x.lo != x.hi or x.base != y.base:
            return False
        return y.hi - x.hi < gcd(self.divisibility(x), self.divisibility(n)) or y.hi <= x.hi


def _conjuncts(mask: Value, defined: dict[int, Operation]) -> list[Value]:
    op = defined.get(mask.id)
    if op is None or op.opcode != "and" or element_of(mask.type) is not ir.int1:
        return [mask]
    return [c for o in op.operands for c in _conjuncts(o, defined)]


def _simplify(block: Block, op: Operation, known: list[Bound], facts: _Facts) -> None:
    """Rebuild `op`'s mask from the conjuncts that are not implied (none: no mask)."""
    at = 1 if op.opcode == "load" else 2
    conjuncts = _conjuncts(op.operands[at], facts.defined)
    kept = list(conjuncts)
    for c in conjuncts:
        wanted = facts.bound(c)
        if wanted is None:
            continue
        others = [b for b in (facts.bound(o) for o in kept if o is not c) if b is not None]
        if any(facts.implies(k, wanted) for k in known + others):
            kept.remove(c)
    if len(kept) == len(conjuncts):
        return
    if not kept:
        del op.operands[at:]
        op.attrs = {**op.attrs, "masked": False, **({"has_other": False} if op.opcode == "load" else {})}
        return
    mask, new = kept[0], []
    for c in kept[1:]:
        result = Value(make_type(ir.int1, shape_of(mask.type)))
        new.append(Operation("and", [mask, c], [result], loc=op.loc))
        mask = result
    op.operands[at] = mask
    block.ops[block.ops.index(op):block.ops.index(op)] = new
