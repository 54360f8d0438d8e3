"""Index arithmetic simplified on the per-thread program, with what is known of each integer's
range: a lane is in [0, 32), a simdgroup in [0, num_warps), an unrolled slot loop's variable steps
through known multiples. `lane / 32` becomes 0, `k % 8` in a loop stepping by 8 becomes 0,
`(k / 8) * 8` becomes `k`, sums of literals fold. The downstream compilers would mostly do this too;
the point is source that reads like hand-written kernels (and golden files that show real changes).

Only integer expressions built from literals, hardware indices and integer variables are touched
(never floating point, where `x + 0` is not `x` for -0.0); every rewrite holds for every value the
operands can take, in C's truncating division (tests evaluate random expressions before and after).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import gcd

from ...dsl import ir
from .. import lir
from ..lir import Bin, Expr, Lit, Special, Sym


@dataclass(frozen=True)
class Range:
    """Every value is in [lo, hi] (None: unbounded) and a multiple of `step`."""

    lo: int | None
    hi: int | None
    step: int = 1

    def nonnegative(self) -> bool:
        return self.lo is not None and self.lo >= 0


UNKNOWN = Range(None, None)


def simplify_indices(kernel: lir.Kernel, num_warps: int) -> None:
    """Simplify the integer index arithmetic of `kernel.body` in place."""
    assigned = {s.target.name for s in lir.walk(kernel.body) if isinstance(s, lir.Assign)
                and isinstance(s.target, Sym)}
    ints = {name: UNKNOWN for name, t in kernel.inputs if isinstance(t, ir.ScalarType) and not t.is_float}
    specials = {"lane": Range(0, 31), "warp": Range(0, num_warps - 1), "tid": Range(0, kernel.threads - 1),
                **{f"pid{i}": Range(0, None) for i in range(3)}, **{f"nprog{i}": Range(1, None) for i in range(3)}}
    _Simplifier(ints, specials, assigned).block(kernel.body)


class _Simplifier:
    def __init__(self, ints: dict[str, Range], specials: dict[str, Range], assigned: set[str]) -> None:
        self.ints, self.specials, self.assigned = ints, specials, assigned

    # ---- statements ----------------------------------------------------------------------------
    def block(self, stmts: list[lir.Stmt]) -> None:
        """Simplify a block; what its declarations make known ends with it (names are reused)."""
        outer = dict(self.ints)
        for s in stmts:
            self.stmt(s)
        self.ints = outer

    def stmt(self, s: lir.Stmt) -> None:
        if isinstance(s, lir.For):
            s.start, s.cond, s.step = self.expr(s.start), self.expr(s.cond), self.expr(s.step)
            self.ints[s.var] = _loop_range(s) if s.var not in self.assigned else UNKNOWN
            self.block(s.body)
            return
        for name in lir.node_fields(type(s)):
            value = getattr(s, name)
            if isinstance(value, Expr):
                setattr(s, name, self.expr(value))
            elif isinstance(value, list) and value and isinstance(value[0], lir.Stmt):
                self.block(value)
            elif isinstance(value, list):
                setattr(s, name, [self.expr(v) if isinstance(v, Expr) else v for v in value])
        if isinstance(s, lir.Decl) and isinstance(s.type, ir.ScalarType) and not s.type.is_float \
                and s.size is None and s.space == "thread":
            known = self.range(s.init) if s.init is not None and s.name not in self.assigned else None
            self.ints[s.name] = known or UNKNOWN

    # ---- expressions ---------------------------------------------------------------------------
    def expr(self, e: Expr) -> Expr:
        if isinstance(e, Bin):
            e = Bin(e.op, self.expr(e.a), self.expr(e.b))
            if self.range(e.a) is not None and self.range(e.b) is not None:
                return self.integer(e)
            return e
        if isinstance(e, (Lit, Sym, Special)):
            return e
        changed = {name: self.expr(getattr(e, name)) for name in lir.node_fields(type(e))
                   if isinstance(getattr(e, name), Expr)}
        tuples = {name: tuple(self.expr(x) if isinstance(x, Expr) else x for x in getattr(e, name))
                  for name in lir.node_fields(type(e)) if isinstance(getattr(e, name), tuple)}
        return replace(e, **changed, **tuples) if changed or tuples else e

    def range(self, e: Expr) -> Range | None:
        """What is known of integer expression `e` (None: not an integer index expression)."""
        if isinstance(e, Lit):
            if e.type.is_float or e.type.is_bool:
                return None
            v = int(e.value)
            return Range(v, v, abs(v) if v else 1 << 30)
        if isinstance(e, Special):
            return self.specials.get(e.name, UNKNOWN)
        if isinstance(e, Sym):
            return self.ints.get(e.name)
        if isinstance(e, Bin) and e.op in ("+", "*", "/", "%"):
            a, b = self.range(e.a), self.range(e.b)
            return None if a is None or b is None else _combine(e.op, a, b)
        return None

    def integer(self, e: Bin) -> Expr:
        """`e` (both operands integer index expressions) rewritten where the ranges allow."""
        a, b, op = e.a, e.b, e.op
        ra = self.range(a)
        if isinstance(a, Lit) and isinstance(b, Lit) and op in ("+", "-", "*"):
            return Lit({"+": a.value + b.value, "-": a.value - b.value, "*": a.value * b.value}[op], ir.int32) \
                if a.type == b.type == ir.int32 else e
        if op == "+":
            if _is(b, 0):
                return a
            if _is(a, 0):
                return b
            if isinstance(b, Lit) and isinstance(a, Bin) and a.op == "+" and isinstance(a.b, Lit) \
                    and a.b.type == b.type == ir.int32:
                return self.integer(Bin("+", a.a, Lit(a.b.value + b.value, ir.int32)))
            if b == Special("lane") and a == Bin("*", Special("warp"), Lit(32, ir.int32)):
                return Special("tid")  # simdgroup * 32 + lane
        elif op == "-" and _is(b, 0):
            return a
        elif op == "*":
            if _is(b, 1):
                return a
            if _is(a, 1):
                return b
            if (_is(a, 0) or _is(b, 0)) and _pure(a) and _pure(b):
                return Lit(0, ir.int32)
            if isinstance(b, Lit) and isinstance(a, Bin) and a.op == "/" and isinstance(a.b, Lit) and b.value > 0:
                d, inner = int(a.b.value), self.range(a.a)
                if d > 0 and int(b.value) % d == 0 and inner is not None and inner.nonnegative() \
                        and inner.step % d == 0:  # (k / d) * c with k a multiple of d: k * (c / d)
                    return self.integer(Bin("*", a.a, Lit(int(b.value) // d, ir.int32)))
        elif op in ("/", "%") and isinstance(b, Lit) and int(b.value) > 0 and ra is not None and ra.nonnegative():
            c = int(b.value)
            if isinstance(a, Bin) and a.op == "+" and isinstance(a.b, Lit) and a.b.type == ir.int32 \
                    and int(a.b.value) >= 0:  # (k + j) / c and % c, k a non-negative multiple of its step
                inner, j = self.range(a.a), int(a.b.value)
                if inner is not None and inner.nonnegative() and inner.step % c == 0:  # k / c + j / c, j % c
                    if op == "%":
                        return Lit(j % c, ir.int32)
                    return self.integer(Bin("+", self.integer(Bin("/", a.a, b)), Lit(j // c, ir.int32)))
                if inner is not None and inner.nonnegative() and c % inner.step == 0 and j < inner.step:
                    # k % c is at most c - step, so k + j stays below the next multiple of c
                    if op == "/":
                        return self.integer(Bin("/", a.a, b))
                    return self.integer(Bin("+", self.integer(Bin("%", a.a, b)), a.b))
            if op == "/":
                if c == 1:
                    return a
                if ra.hi is not None and ra.hi < c:
                    return Lit(0, ir.int32)
            else:
                if ra.step % c == 0 or c == 1:
                    return Lit(0, ir.int32)
                if ra.hi is not None and ra.hi < c:
                    return a
        return e


def _is(e: Expr, value: int) -> bool:
    return isinstance(e, Lit) and not e.type.is_float and e.value == value


def _pure(e: Expr) -> bool:
    return isinstance(e, (Lit, Sym, Special)) or isinstance(e, Bin) and _pure(e.a) and _pure(e.b)


def _combine(op: str, a: Range, b: Range) -> Range:
    if op == "+":
        lo = None if a.lo is None or b.lo is None else a.lo + b.lo
        hi = None if a.hi is None or b.hi is None else a.hi + b.hi
        return Range(lo, hi, gcd(a.step, b.step))
    if not (a.nonnegative() and b.nonnegative()):
        return UNKNOWN
    if op == "*":
        hi = None if a.hi is None or b.hi is None else a.hi * b.hi
        return Range(a.lo * b.lo, hi, a.step * b.step)
    if b.lo == b.hi and b.lo:  # a non-negative range over a positive constant
        c = b.lo
        if op == "/":
            return Range(a.lo // c, None if a.hi is None else a.hi // c, max(1, a.step // c) if a.step % c == 0 else 1)
        return Range(0, c - 1 if a.hi is None else min(c - 1, a.hi), gcd(a.step, c) if a.step % c else 1 << 30)
    return Range(0, None) if op == "/" else UNKNOWN


def _loop_range(loop: lir.For) -> Range:
    """`for (v = s; v < e; v += t)` with literal s >= 0, t > 0 (and e): v in [s, e - 1], multiples of gcd(s, t)."""
    bounds = loop.literal_bounds()
    if bounds is not None and bounds[0] >= 0:
        start, end, step = bounds
        hi = None if end is None else start + (end - 1 - start) // step * step
        return Range(start, hi, gcd(start, step) or step)
    if isinstance(loop.start, Lit) and int(loop.start.value) >= 0:
        return Range(int(loop.start.value), None)
    return UNKNOWN
