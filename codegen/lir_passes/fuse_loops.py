"""One loop per chain of element-wise work, and scalars where an array is not needed (issue 15, item 1).

Lowering gives each tile op its own loop over the thread's slots and its own register array
(`t_3[k] = float(t_2[k])`, then `h[k] = t_3[k] + t_7[k]`, ...). Here neighbouring slot loops of one
trip count become one loop: a loop stepping by a vector's width takes in the element-wise loops
beside it, each repeated over the vector's slots, so a load, the arithmetic on it and its store read
as one chain per slot, as in MLX's hand-written `N_READS` loops. Then a register array whose every
use is in one loop, each slot written there before it is read, becomes scalars of that loop's body:
arrays remain only for values read in another layout, by a reduction, or across iterations of an
outer loop. On CUDA this also keeps those values out of the local memory in which the element-wise
copy's rolled loops put indexed arrays (lir_passes/aligned_vectors.py).

Two loops fuse only where that cannot change what runs:
- the same slot range, one step a multiple of the other;
- between them only comments and declarations that do not read what the first loop writes (moved
  before it; the comments, which name the kernel's source lines, go into the fused body);
- an array that either loop writes is read and written by both only at the current iteration's
  slots (so a slot's value is final before the other loop's work on that slot);
- neither writes memory that the other reads or writes (addresses traced to the kernel's pointer
  arguments; MLX gives a kernel's outputs buffers of their own; an untraced address conflicts
  with every access);
- neither writes a variable declared outside it, nor holds a barrier, shuffle, atomic, fragment
  or nested loop (collectives keep their order across lanes);
- no later loop reads a name an earlier one declares before declaring it itself (fused, the read
  would see the earlier loop's variable instead of the one outside).
A loop marked `batch` (an edge's vector loads, issued together before their element-wise fix-ups:
lowering/memory.py) fuses with none. An array read inside a nested loop, or written on one path
only, stays an array.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from .. import lir
from ..layouts import add, lit
from ..lir import Expr, Stmt, Sym

_ANY = frozenset({"*"})  # an address not traced to any argument: conflicts with every access
_BODY_STMTS = (lir.Assign, lir.Decl, lir.Store, lir.VectorLoad, lir.VectorStore, lir.If, lir.SinCos, lir.Comment)
_COLLECTIVE_EXPRS = (lir.Shuffle, lir.Atomic, lir.FragmentElement, lir.Tensor, lir.WordCell)


def fuse_slot_loops(kernel: lir.Kernel) -> None:
    """Fuse `kernel.body`'s neighbouring slot loops, then turn arrays used in one loop into scalars."""
    arrays = {s.name: s for s in lir.walk(kernel.body) if _is_register_array(s)}
    names = _Names(kernel)
    shared = {s.name for s in lir.walk(kernel.body) if isinstance(s, lir.Decl) and s.space == "threadgroup"}
    kernel.body = _Fuser(arrays, shared, lir.pointer_origins(kernel), names).block(kernel.body)
    _scalarize(kernel, arrays, names)


def _is_register_array(s: Stmt) -> bool:
    return isinstance(s, lir.Decl) and s.space == "thread" and s.size is not None


class _Names:
    """Fresh names, unlike any the kernel uses."""

    def __init__(self, kernel: lir.Kernel) -> None:
        self.taken = lir.symbols(kernel.body) | {s.name for s in lir.walk(kernel.body) if isinstance(s, lir.Decl)}
        self.taken |= {name for name, _ in kernel.inputs} | {name for name, _ in kernel.outputs}

    def fresh(self, base: str) -> str:
        n, name = 1, base
        while name in self.taken:
            name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        return name


# ---- fusion ----------------------------------------------------------------------------------------
class _Fuser:
    def __init__(self, arrays: dict[str, lir.Decl], shared: set[str], origins: Callable[[Expr], set[str]],
                 names: _Names) -> None:
        self.arrays, self.shared, self.origins, self.names = arrays, shared, origins, names

    def block(self, stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        loop: lir.For | None = None  # the last slot loop, which later ones may join
        between: list[Stmt] = []     # what came after it, all movable before it
        for s in stmts:
            self.nested(s)
            if loop is not None and self.fusable(s) and self.join(loop, between, s):
                position = next(i for i, x in enumerate(out) if x is loop)
                out[position:] = [x for x in between if not isinstance(x, lir.Comment)] + [loop]
                between = []
                continue
            out.append(s)
            if loop is not None and self.movable(s, loop):
                between.append(s)
            else:
                loop, between = (s, []) if self.fusable(s) else (None, [])
        return out

    def nested(self, s: Stmt) -> None:
        if isinstance(s, lir.If):
            s.then, s.orelse = self.block(s.then), self.block(s.orelse)
        elif isinstance(s, lir.Loop):
            s.head, s.body = self.block(s.head), self.block(s.body)
        elif isinstance(s, lir.For) and not self.fusable(s):
            s.body = self.block(s.body)

    def fusable(self, s: Stmt) -> bool:
        """A slot loop (unrolled, literal range) whose body only computes, loads and stores per slot."""
        if not (isinstance(s, lir.For) and s.unroll and not s.rolled and not s.batch):
            return False
        bounds = s.literal_bounds()
        return bounds is not None and bounds[1] is not None and _plain(s.body)

    def movable(self, s: Stmt, loop: lir.For) -> bool:
        """A comment, or a declaration that may go before `loop` (it reads nothing the loop writes)."""
        if isinstance(s, lir.Comment):
            return True
        return (isinstance(s, lir.Decl) and s.name not in lir.symbols(loop)
                and (s.init is None or not (lir.symbols(s.init) & _written_arrays(loop.body)
                                            or _meet(self.memory(loop.body)[1], self.memory([s])[0]))))

    def join(self, first: lir.For, between: list[Stmt], second: lir.For) -> bool:
        """Fuse `second` into `first` (in place) where that is safe; False where it is not."""
        (start, end, a), (start2, end2, b) = first.literal_bounds(), second.literal_bounds()
        step = max(a, b)
        if ((start, end, first.var, first.type) != (start2, end2, second.var, second.type)
                or step % min(a, b) or (end - start) % step):
            return False
        ones, twos = _repeated(first, step), _repeated(second, step)
        if not self.independent(ones, twos, first.var, step):
            return False
        body = _merged(ones + [[x for x in between if isinstance(x, lir.Comment)]] + twos, self.names)
        if body is None:
            return False
        first.body, first.step = body, lit(step)
        return True

    def independent(self, ones: list[list[Stmt]], twos: list[list[Stmt]], var: str, step: int) -> bool:
        """Whether the slots' work of the two loops may interleave: arrays either writes are touched by
        both only at this iteration's slots, and neither writes memory the other touches."""
        one, two = [s for p in ones for s in p], [s for p in twos for s in p]
        written = _written_arrays(one) | _written_arrays(two)
        for index in _array_indices(one + two):
            offset = _slot_offset(index.index, var)
            if index.base.name in written and (offset is None or not 0 <= offset < step):
                return False
        loads1, stores1 = self.memory(one)
        loads2, stores2 = self.memory(two)
        return not (_meet(stores1, loads2 | stores2) or _meet(stores2, loads1))

    def memory(self, stmts: list[Stmt]) -> tuple[frozenset[str], frozenset[str]]:
        """(what it reads, what it writes) of memory: the pointer arguments or threadgroup arrays."""
        loads: set[str] = set()
        stores: set[str] = set()

        def where(address: Expr) -> set[str]:
            return (lir.symbols(address) & self.shared) | self.origins(address) or set(_ANY)

        for s in lir.walk(stmts):
            target = s.target if isinstance(s, lir.Assign) else None
            if isinstance(s, (lir.Store, lir.VectorStore)):
                stores.update(where(s.ptr))
            elif isinstance(s, lir.VectorLoad):
                loads.update(where(s.ptr))
            elif isinstance(target, lir.Index) and not self.is_array(target.base):
                stores.update(where(target.base))
            for e in _exprs(s):
                for index in _indices(e):
                    if index is not target and not self.is_array(index.base):
                        loads.update(where(index.base))
                if any(isinstance(x, lir.Call) and x.fn.startswith("atomic") for x in _nodes(e)):
                    loads.update(_ANY)
        return frozenset(loads), frozenset(stores)

    def is_array(self, e: Expr) -> bool:
        return isinstance(e, Sym) and e.name in self.arrays


def _meet(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a and b and ("*" in a or "*" in b or a & b))


def _plain(stmts: list[Stmt]) -> bool:
    """Statements a slot loop may hold and still fuse: no collectives, no nested loops, scalar declarations."""
    for s in stmts:
        if not isinstance(s, _BODY_STMTS) or isinstance(s, lir.Decl) and (s.size is not None or s.space != "thread"):
            return False
        if isinstance(s, lir.If) and not (_plain(s.then) and _plain(s.orelse)):
            return False
        if any(isinstance(x, _COLLECTIVE_EXPRS) for e in _exprs(s) for x in _nodes(e)):
            return False
    declared = {s.name for s in lir.walk(stmts) if isinstance(s, lir.Decl)}
    return _written_scalars(stmts) <= declared


def _written_scalars(stmts: list[Stmt]) -> set[str]:
    """Variables (not array elements) the statements write, nested blocks included."""
    return {t.name for s in lir.walk(stmts) for t in _write_targets(s) if isinstance(t, Sym)}


def _written_arrays(stmts: list[Stmt]) -> set[str]:
    """Arrays an element of which the statements write."""
    return {t.base.name for s in lir.walk(stmts) for t in _write_targets(s)
            if isinstance(t, lir.Index) and isinstance(t.base, Sym)}


def _repeated(loop: lir.For, step: int) -> list[list[Stmt]]:
    """The loop's body as the parts one iteration of a loop stepping by `step` runs (the body with its
    variable at each of its own steps in between)."""
    own = loop.literal_bounds()[2]
    var = Sym(loop.var)

    def slot(e: Expr) -> Expr | None:  # array[k + 4 + 1] as array[k + 5]
        c = _slot_offset(e.index, loop.var) if isinstance(e, lir.Index) else None
        return None if c is None else lir.Index(_transformed(e.base, slot), add(var, lit(c)))
    return [_transformed(_substituted(loop.body, {loop.var: add(var, lit(j))}), slot) if j else list(loop.body)
            for j in range(0, step, own)]


def _merged(parts: list[list[Stmt]], names: _Names) -> list[Stmt] | None:
    """The parts as one body: a declaration repeating an earlier one (the same pure index arithmetic)
    is dropped, another of a name already declared is renamed. None where a renamed name is also
    declared in a nested block (not worth telling the scopes apart), or where a part reads a name
    an earlier part declares before declaring it itself (fused, the read would see the earlier
    part's variable instead of the one outside the loop)."""
    body: list[Stmt] = []
    declared: dict[str, lir.Decl] = {}
    assigned = {name for p in parts for name in _written_scalars(p)}
    for part in parts:
        renames: dict[str, Expr] = {}
        nested = {s.name for s in lir.walk(part) if isinstance(s, lir.Decl)} - {s.name for s in part
                                                                               if isinstance(s, lir.Decl)}
        own: set[str] = set()  # names this part has declared so far (or shares with an earlier part)
        for s in part:
            if (lir.symbols(s) - {s.name if isinstance(s, lir.Decl) else ""}) & (declared.keys() - own):
                return None
            s = _substituted([s], renames)[0] if renames else s
            if isinstance(s, lir.Decl):
                own.add(s.name)
            if isinstance(s, lir.Decl) and s.name in declared:
                earlier = declared[s.name]
                if (s.init is not None and earlier.init == s.init and earlier.type == s.type and earlier.like == s.like
                        and s.name not in assigned and not _indices(s.init)):
                    continue
                if s.name in nested:
                    return None
                new = names.fresh(s.name)
                renames[s.name] = Sym(new)
                s = dataclasses.replace(s, name=new)
            if isinstance(s, lir.Decl):
                declared[s.name] = s
            body.append(s)
    return body


# ---- scalars in place of arrays ---------------------------------------------------------------------
def _scalarize(kernel: lir.Kernel, arrays: dict[str, lir.Decl], names: _Names) -> None:
    """Each register array used only in one slot loop, each of its slots written there (at the top
    level of the body, or in both branches of an `if`) before being read: scalars of the body."""
    # innermost first: scalarizing a loop rewrites its body, which would leave a nested loop found
    # before it detached from the kernel
    loops = [s for s in lir.walk(kernel.body) if isinstance(s, lir.For) and s.unroll and s.literal_bounds()][::-1]
    everywhere = _mentions(kernel.body)
    dropped: set[str] = set()
    for loop in loops:
        step = loop.literal_bounds()[2]
        inside = _mentions(loop.body)
        for name in sorted(inside):
            decl = arrays.get(name)
            if decl is None or inside[name] != everywhere.get(name):
                continue
            slots = _slots_used(loop.body, name, loop.var, step)
            if slots is None or not all(_defined_first(loop.body, name, loop.var, c) for c in slots):
                continue
            scalars = {0: name} if step == 1 else {c: names.fresh(f"{name}_{c}") for c in slots}
            loop.body = _declare_scalars(_replaced(loop.body, name, loop.var, scalars), decl, scalars)
            dropped.add(name)
    if dropped:
        kernel.body = lir.rewrite(kernel.body, lambda s: [] if _is_register_array(s) and s.name in dropped else None)


def _mentions(stmts: list[Stmt]) -> dict[str, int]:
    """How many times each name is mentioned."""
    counts: dict[str, int] = {}
    for s in lir.walk(stmts):
        for e in _exprs(s):
            for x in _nodes(e):
                if isinstance(x, Sym):
                    counts[x.name] = counts.get(x.name, 0) + 1
    return counts


def _slots_used(stmts: list[Stmt], name: str, var: str, step: int) -> list[int] | None:
    """The slots (offsets from the loop variable) at which `name` is indexed; None where it is used
    otherwise (whole, or at another index)."""
    uses = [x for s in lir.walk(stmts) for e in _exprs(s) for x in _nodes(e) if x == Sym(name)]
    indices = [i for i in _array_indices(stmts) if i.base == Sym(name)]
    if len(indices) != len(uses):
        return None
    offsets = {_slot_offset(i.index, var) for i in indices}
    if None in offsets or not all(0 <= c < step for c in offsets):
        return None
    return sorted(offsets)


def _defined_first(stmts: list[Stmt], name: str, var: str, slot: int) -> bool:
    """Whether the body writes slot `slot` of `name` before any read of it, on every path."""
    return _first_access(stmts, name, var, slot) == "write"


def _first_access(stmts: list[Stmt], name: str, var: str, slot: int) -> str | None:
    """"write", "read", or None (neither on every path) for the first access to that slot."""
    def here(i: lir.Index) -> bool:
        return i.base == Sym(name) and _slot_offset(i.index, var) == slot

    for s in stmts:
        if isinstance(s, (lir.For, lir.Loop)) and name in lir.symbols(s):
            return "read"  # inside a nested loop: taken as read first (its iterations are not followed)
        if isinstance(s, lir.If):
            if any(here(i) for i in _indices(s.cond)):
                return "read"
            branches = [_first_access(s.then, name, var, slot), _first_access(s.orelse, name, var, slot)]
            if "read" in branches:
                return "read"
            if branches == ["write", "write"]:
                return "write"
            if "write" in branches:
                return "read"  # written on one path only: a later read could see the array's old value
            continue
        reads = [x for e in _read_exprs(s) for x in _indices(e)]
        if any(here(i) for i in reads):
            return "read"
        if any(isinstance(t, lir.Index) and here(t) for t in _write_targets(s)):
            return "write"
    return None


def _declare_scalars(stmts: list[Stmt], decl: lir.Decl, scalars: dict[int, str]) -> list[Stmt]:
    """Declare each scalar where it is first written: that assignment becomes its declaration, or
    a declaration goes just before the statement that first writes it."""
    out = list(stmts)
    for name in scalars.values():
        position = next(i for i, s in enumerate(out) if name in lir.symbols(s))
        s = out[position]
        if isinstance(s, lir.Assign) and s.target == Sym(name):
            out[position] = lir.Decl(name, decl.type, init=s.value, like=decl.like)
        else:
            out.insert(position, lir.Decl(name, decl.type, like=decl.like))
    return out


def _replaced(stmts: list[Stmt], name: str, var: str, scalars: dict[int, str]) -> list[Stmt]:
    def swap(e: Expr) -> Expr | None:
        if isinstance(e, lir.Index) and e.base == Sym(name):
            return Sym(scalars[_slot_offset(e.index, var)])
        return None
    return [_transformed(s, swap) for s in stmts]


# ---- helpers on expressions ---------------------------------------------------------------------------
def _slot_offset(index: Expr, var: str) -> int | None:
    """c where `index` is `var + c` (c a literal), else None."""
    if index == Sym(var):
        return 0
    if isinstance(index, lir.Bin) and index.op == "+":
        for x, y in ((index.a, index.b), (index.b, index.a)):
            if isinstance(y, lir.Lit):
                inner = _slot_offset(x, var)
                return None if inner is None else inner + int(y.value)
    return None


def _exprs(s: Stmt) -> list[Expr]:
    """The expressions of one statement, not those of its nested blocks."""
    out: list[Expr] = []
    for f in lir.node_fields(type(s)):
        v = getattr(s, f)
        if isinstance(v, Expr):
            out.append(v)
        elif isinstance(v, list) and v and isinstance(v[0], Expr):
            out.extend(v)
    return out


def _write_targets(s: Stmt) -> list[Expr]:
    if isinstance(s, lir.Assign):
        return [s.target]
    if isinstance(s, lir.VectorLoad):
        return list(s.targets)
    if isinstance(s, lir.SinCos):
        return [s.sin, s.cos]
    return []


def _read_exprs(s: Stmt) -> list[Expr]:
    """What a statement reads: its expressions, less the targets it writes (but their indices)."""
    targets = _write_targets(s)
    reads = [e for e in _exprs(s) if not any(e is t for t in targets)]
    return reads + [t.index for t in targets if isinstance(t, lir.Index)]


def _nodes(e: object):
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, Expr):
            yield n
            stack.extend(getattr(n, f) for f in lir.node_fields(type(n)))
        elif isinstance(n, (list, tuple)):
            stack.extend(n)


def _indices(e: Expr) -> list[lir.Index]:
    return [x for x in _nodes(e) if isinstance(x, lir.Index)]


def _array_indices(stmts: list[Stmt]) -> list[lir.Index]:
    """Every `array[index]` with a plain name as its array, nested blocks included."""
    return [i for s in lir.walk(stmts) for e in _exprs(s) for i in _indices(e) if isinstance(i.base, Sym)]


def _transformed(node, swap: Callable[[Expr], Expr | None]):
    """A copy of an expression or statement (or a list) with every expression for which `swap`
    returns one replaced by it, bottom up otherwise."""
    if isinstance(node, list):
        return [_transformed(x, swap) for x in node]
    if isinstance(node, tuple):
        return tuple(_transformed(x, swap) for x in node)
    if isinstance(node, Expr):
        replaced = swap(node)
        if replaced is not None:
            return replaced
    if isinstance(node, (Expr, Stmt)) and dataclasses.is_dataclass(node):
        changes = {f: _transformed(getattr(node, f), swap) for f in lir.node_fields(type(node))}
        return dataclasses.replace(node, **changes)
    return node


def _substituted(stmts: list[Stmt], values: dict[str, Expr]) -> list[Stmt]:
    """`stmts` with each name in `values` replaced by its expression."""
    return _transformed(stmts, lambda e: values.get(e.name) if isinstance(e, Sym) else None)
