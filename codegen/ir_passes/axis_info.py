"""Contiguity analysis (Triton's AxisInfo, simplified): what is known, per dimension, of an integer
or pointer tile's values, so loads and stores can move several neighbouring elements at once.

For each dimension d of a tile value:
- contiguity[d]: its values run in steps of +1 along d in groups of this many elements;
- divisibility[d]: the first value of each such group is a multiple of this (a power of two);
- constancy[d]: its values repeat along d in groups of this many elements;
- edges[d] (booleans; empty: the constancy): in each group of this many elements along d, the true
  ones form one range (a mask `offs < n`, whatever n's divisibility: all true or all false in each
  group but the one n falls in), so an access of that many elements is all true exactly where its
  first and last are (lowering/memory.py: the whole vector there, element by element elsewhere).
Scalars have a divisibility only. Integer kernel arguments are specialised on their divisibility (a
power of two, 1 to 128, launcher/arguments.py: the launch keys them apart, as Triton does for 16), which
is what makes `offs < n` constant over aligned groups and the masked edge of a row vectorisable.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Mapping

from ...dsl.ir import BlockType, Function, Operation, PointerType, Value, element_of, shape_of

MAX_DIVISIBILITY = 1 << 30


def _pow2_factor(n: int) -> int:
    return MAX_DIVISIBILITY if n == 0 else min(MAX_DIVISIBILITY, abs(n) & -abs(n))


@dataclass(frozen=True)
class AxisInfo:
    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    edges: tuple[int, ...] = ()

    def edge_runs(self) -> tuple[int, ...]:
        """edges[d], or the constancy where no edges are known (a constant group has none)."""
        return tuple(max(e, k) for e, k in zip(self.edges, self.constancy)) if self.edges else self.constancy

    @staticmethod
    def scalar(divisibility: int) -> "AxisInfo":
        return AxisInfo((), (divisibility,), ())

    @staticmethod
    def unknown(shape: tuple[int, ...]) -> "AxisInfo":
        ones = (1,) * len(shape)
        return AxisInfo(ones, ones, ones)

    @staticmethod
    def uniform(shape: tuple[int, ...], divisibility: int) -> "AxisInfo":
        """A scalar broadcast over `shape`."""
        return AxisInfo((1,) * len(shape), (divisibility,) * len(shape), tuple(shape))


def analyse(fn: Function, divisibility: Mapping[str, int]) -> dict[int, AxisInfo]:
    """AxisInfo of every integer, pointer and boolean value of `fn` whose facts are known;
    `divisibility`: what divides each integer argument this specialisation knows of (by name)."""
    info: dict[int, AxisInfo] = {}
    for a in fn.args:
        info[a.id] = AxisInfo.scalar(divisibility.get(a.name, MAX_DIVISIBILITY if hasattr(a.type, "element") else 1))

    def get(v: Value) -> AxisInfo:
        found = info.get(v.id)
        if found is not None:
            return found
        return AxisInfo.unknown(shape_of(v.type)) if isinstance(v.type, BlockType) else AxisInfo.scalar(1)

    constants: dict[int, int] = {}  # integer constants (scalars and splats), by value id

    def visit(ops: list[Operation]) -> None:
        for op in ops:
            if op.opcode in ("constant", "full") and float(op.attrs["value"]).is_integer():
                constants[op.result.id] = int(op.attrs["value"])
            elif op.opcode in ("splat", "broadcast") and op.operands[0].id in constants:
                constants[op.result.id] = constants[op.operands[0].id]
            if op.opcode == "for":
                lb, _, step = (get(v).divisibility[0] if not isinstance(v.type, BlockType) else 1
                               for v in op.operands[:3])
                info[op.regions[0].args[0].id] = AxisInfo.scalar(gcd(lb, step))
                visit_loop(op.regions[0], op.operands[3:])
                continue
            for region in op.regions:
                visit(region.ops)
            if op.opcode == "if" and op.results:  # what holds of the values every branch yields
                for i, r in enumerate(op.results):
                    info[r.id] = merged([get(region.ops[-1].operands[i]) for region in op.regions])
                continue
            if len(op.results) == 1 and op.opcode == "mul" and any(constants.get(v.id) == 1 for v in op.operands):
                # x * 1 is x (a block pointer's unit stride: `cols * 1`): its runs stay contiguous
                a, b = op.operands
                info[op.result.id] = get(b if constants.get(a.id) == 1 else a)
                continue
            if len(op.results) == 1 and op.opcode in ("sdiv", "udiv") and op.operands[1].id in constants:
                found = divided(get(op.operands[0]), constants[op.operands[1].id], shape_of(op.result.type))
                if found is not None:
                    info[op.result.id] = found
            elif len(op.results) == 1:
                found = infer(op, [get(v) for v in op.operands])
                if found is not None:
                    info[op.result.id] = found

    def visit_loop(body, inits: list[Value]) -> None:
        """A `for` body; a carried scalar pointer (the prefetch pass's advancing loader base) is as
        aligned as both its initial value and every value yielded for it: assumed the initial
        value's, then lowered to what the body yields until that holds (divisibilities only drop)."""
        carried = [(position, arg) for position, arg in enumerate(body.args[1:]) if isinstance(arg.type, PointerType)]
        for position, arg in carried:
            info[arg.id] = AxisInfo.scalar(get(inits[position]).divisibility[0])
        while True:
            visit(body.ops)
            yielded = body.ops[-1].operands
            lowered = [(arg, gcd(get(arg).divisibility[0], get(yielded[position]).divisibility[0]))
                       for position, arg in carried]
            lowered = [(arg, d) for arg, d in lowered if d != get(arg).divisibility[0]]
            if not lowered:
                return
            for arg, d in lowered:
                info[arg.id] = AxisInfo.scalar(d)

    visit(fn.body.ops)
    return info


def merged(facts: list[AxisInfo]) -> AxisInfo:
    """What holds of a value that is any one of values with these facts (an `if`'s result: a pointer
    chosen per branch is as aligned as the least aligned of them)."""
    first, *rest = facts
    if any(len(f.divisibility) != len(first.divisibility) for f in rest):
        return AxisInfo.unknown((1,) * len(first.contiguity)) if first.contiguity else AxisInfo.scalar(1)
    fields = [first.contiguity, first.divisibility, first.constancy, first.edge_runs()]
    for f in rest:
        fields = [tuple(map(gcd, mine, theirs))
                  for mine, theirs in zip(fields, (f.contiguity, f.divisibility, f.constancy, f.edge_runs()))]
    return AxisInfo(*fields)


def _element_divisibility(a: AxisInfo) -> tuple[int, ...]:
    """Divisibility of every element, per dimension: a contiguous run's later elements (2^n + 1, ...)
    are not multiples of what its first one is (Triton counts them as 1 too)."""
    return tuple(d if c == 1 else 1 for d, c in zip(a.divisibility, a.contiguity)) if a.contiguity else a.divisibility


def divided(a: AxisInfo, m: int, shape: tuple[int, ...]) -> AxisInfo | None:
    """Index values (non-negative, as Triton's AxisInfo assumes) divided by a positive constant `m`:
    a multiple of d divided by m is a multiple of d / m; an aligned run of contiguous values whose
    length and start divide m has one quotient (a word's index `k // 8` is constant over the 8
    elements it packs, a group's over the group)."""
    if m <= 0 or m & (m - 1):
        return None
    if m == 1:
        return a
    if not shape:
        d = a.divisibility[0]
        return AxisInfo.scalar(d // m if d % m == 0 else 1)
    constancy = tuple(max(k, gcd(gcd(c, d), m)) for c, d, k in zip(a.contiguity, a.divisibility, a.constancy))
    divisibility = tuple(d // m if d % m == 0 and k == n else 1 for d, k, n in zip(a.divisibility, a.constancy, shape))
    return AxisInfo((1,) * len(shape), divisibility, constancy)


def infer(op: Operation, args: list[AxisInfo]) -> AxisInfo | None:
    code, r = op.opcode, op.result
    shape = shape_of(r.type)
    tile = isinstance(r.type, BlockType)
    if code == "constant" or code == "full":
        value = op.attrs["value"]
        d = _pow2_factor(int(value)) if float(value).is_integer() else 1
        return AxisInfo.uniform(shape, d) if tile else AxisInfo.scalar(d)
    if code == "arange":
        return AxisInfo((shape[0],), (_pow2_factor(op.attrs["start"]),), (1,))
    if code == "splat":
        return AxisInfo.uniform(shape, args[0].divisibility[0])
    if code == "program_id" or code == "num_programs":
        return AxisInfo.scalar(1)
    if not tile:
        if code in ("add", "addptr", "sub"):
            return AxisInfo.scalar(gcd(args[0].divisibility[0], args[1].divisibility[0]))
        if code == "mul":
            return AxisInfo.scalar(min(MAX_DIVISIBILITY, args[0].divisibility[0] * args[1].divisibility[0]))
        if code == "cast" and element_of(r.type).is_int and element_of(op.operands[0].type).is_int:
            return args[0]  # widened or truncated, the low bits stay: what powers of two divide them
        if code == "multiple_of":
            values = op.attrs["values"]
            return AxisInfo.scalar(values[0] if isinstance(values, (tuple, list)) else values)
        return None
    if code == "broadcast":
        src = shape_of(op.operands[0].type)
        a = args[0]
        return AxisInfo(tuple(1 if s == 1 else c for s, c in zip(src, a.contiguity)),
                        a.divisibility,
                        tuple(n if s == 1 else k for s, n, k in zip(src, shape, a.constancy)),
                        tuple(n if s == 1 else e for s, n, e in zip(src, shape, a.edges)) if a.edges else ())
    if code == "expand_dims":
        axis, a = op.attrs["axis"], args[0]
        d = min(_element_divisibility(a), default=MAX_DIVISIBILITY)  # one element per group along the new axis
        return AxisInfo(a.contiguity[:axis] + (1,) + a.contiguity[axis:],
                        a.divisibility[:axis] + (d,) + a.divisibility[axis:], a.constancy[:axis] + (1,) + a.constancy[axis:],
                        a.edges[:axis] + (1,) + a.edges[axis:] if a.edges else ())
    if code == "reshape":  # only size-1 axes added or removed (a block pointer's offsets): the others' facts
        src, a = shape_of(op.operands[0].type), args[0]
        kept = [d for d, n in enumerate(src) if n != 1]
        if [src[d] for d in kept] != [n for n in shape if n != 1] or len(a.contiguity) != len(src):
            return None
        d = min(_element_divisibility(a), default=MAX_DIVISIBILITY)  # a size-1 axis: as expand_dims makes it
        facts = [list(f) for f in (a.contiguity, a.divisibility, a.constancy, a.edge_runs())]
        mapped = iter(kept)
        out = [[], [], [], []]
        for n in shape:
            src_dim = next(mapped) if n != 1 else None
            for field, new_axis, made in zip(facts, (1, d, 1, 1), out):
                made.append(new_axis if src_dim is None else field[src_dim])
        return AxisInfo(*map(tuple, out))
    if code == "multiple_of" or code == "max_contiguous":
        a, values = args[0], op.attrs["values"]
        values = tuple(values) if isinstance(values, (tuple, list)) else (values,) * len(shape)
        if code == "multiple_of":
            return AxisInfo(a.contiguity, values, a.constancy)
        return AxisInfo(values, a.divisibility, a.constancy)
    if code in ("add", "addptr", "sub"):
        a, b = args
        contiguity = tuple(max(gcd(ca, kb), 1 if code == "sub" else gcd(cb, ka))
                           for ca, cb, ka, kb in zip(a.contiguity, b.contiguity, a.constancy, b.constancy))
        return AxisInfo(contiguity, tuple(map(gcd, a.divisibility, b.divisibility)),
                        tuple(map(gcd, a.constancy, b.constancy)))
    if code == "mul":  # every product is a group of its own: multiply what each element is known to divide
        a, b = args
        return AxisInfo((1,) * len(shape),
                        tuple(min(MAX_DIVISIBILITY, da * db)
                              for da, db in zip(_element_divisibility(a), _element_divisibility(b))),
                        tuple(map(gcd, a.constancy, b.constancy)))
    if code == "cmp" and op.attrs["pred"] in ("lt", "le", "gt", "ge"):
        a, b = args
        # unsigned values wrap at 0 inside a run (at a multiple of every power of two): a flip there
        # and one at the bound make two ranges, so an unsigned compare has no edges beyond its constancy
        signed = not any(element_of(o.type).is_unsigned for o in op.operands)
        constancy, edges = [], []
        for d in range(len(shape)):
            k = e = gcd(a.constancy[d], b.constancy[d])
            # a contiguous run compared with a constant flips at most once: at a multiple of both
            # divisibilities (then not inside a group of that size), or anywhere (an edge)
            g = gcd(a.divisibility[d], b.divisibility[d])
            if b.constancy[d] > 1:
                k, e = max(k, gcd(gcd(a.contiguity[d], b.constancy[d]), g)), max(e, gcd(a.contiguity[d], b.constancy[d]))
            if a.constancy[d] > 1:
                k, e = max(k, gcd(gcd(b.contiguity[d], a.constancy[d]), g)), max(e, gcd(b.contiguity[d], a.constancy[d]))
            constancy.append(k)
            edges.append(e if signed else k)
        return AxisInfo((1,) * len(shape), (1,) * len(shape), tuple(constancy), tuple(edges))
    if code == "cast" and not element_of(r.type).is_float and not element_of(op.operands[0].type).is_float:
        src, dst = element_of(op.operands[0].type), element_of(r.type)
        if dst.bits >= src.bits and dst.signed == src.signed:
            return args[0]  # integer widening of index values keeps their facts
        # narrowed or of the other sign, a run may wrap (127 -> -128): it no longer rises by one
        # throughout, though every element keeps its low bits
        a = args[0]
        return AxisInfo((1,) * len(shape), _element_divisibility(a), a.constancy, a.edges)
    if code == "and":  # of masks: ranges intersected are one range
        constancy, edges = tuple(shape), tuple(shape)
        for a in args:
            if len(a.constancy) == len(shape):
                constancy, edges = tuple(map(gcd, constancy, a.constancy)), tuple(map(gcd, edges, a.edge_runs()))
        return AxisInfo((1,) * len(shape), (1,) * len(shape), constancy, edges)
    if code in ("or", "cmp", "not", "select", "cast"):
        constancy = tuple(shape)
        for a in args:
            if len(a.constancy) == len(shape):
                constancy = tuple(map(gcd, constancy, a.constancy))
        return AxisInfo((1,) * len(shape), (1,) * len(shape), constancy)
    return None


def _aligned_run(ptr: Value, info: dict[int, AxisInfo], limit: int, aligned: bool) -> int:
    """How many neighbouring elements (along the last dimension, at most `limit`) pointer tile `ptr`
    addresses contiguously; with `aligned` (a target whose vectors need aligned addresses), from
    offsets that are multiples of that many too, so that an access of them is aligned wherever the
    kernel's arguments are (lir_passes/aligned_vectors.py): a row at an offset of unknown
    divisibility (`row * stride` for any stride) is contiguous, yet its vectors would start anywhere
    (Metal's packed vectors may)."""
    if ptr.id not in info:
        return 1
    facts = info[ptr.id]
    run = min(limit, shape_of(ptr.type)[-1], facts.contiguity[-1])
    return gcd(run, facts.divisibility[-1]) if aligned else run


def access_width(op: Operation, info: dict[int, AxisInfo], limit: int, aligned: bool = True) -> int:
    """How many neighbouring elements (along the last dimension) each access of load/store `op` can
    move at once: its pointers contiguous (`_aligned_run`) and its mask and `other` constant over
    them, at most `limit`."""
    ptr = op.operands[0]
    if not isinstance(ptr.type, BlockType):
        return 1
    width = _aligned_run(ptr, info, limit, aligned)
    rest = op.operands[1:] if op.opcode == "load" else op.operands[2:]  # mask and other / mask
    for v in rest:
        if isinstance(v.type, BlockType):
            width = gcd(width, info[v.id].constancy[-1] if v.id in info else 1)
    return width


def edge_width(op: Operation, info: dict[int, AxisInfo], limit: int, aligned: bool = True) -> int:
    """`access_width` where the mask's true elements form one range inside each access (`offs < n`
    for any n: `AxisInfo.edges`): the access then moves that many elements at once where its mask is
    all true and goes element by element where it is not (lowering/memory.py), reading its `other`
    element by element there."""
    ptr = op.operands[0]
    if not isinstance(ptr.type, BlockType):
        return 1
    width = _aligned_run(ptr, info, limit, aligned)
    masked = op.attrs.get("masked")
    mask = (op.operands[1] if op.opcode == "load" else op.operands[2]) if masked else None
    if mask is not None and isinstance(mask.type, BlockType):
        width = gcd(width, info[mask.id].edge_runs()[-1] if mask.id in info else 1)
    return width


def constant_run(op: Operation, info: dict[int, AxisInfo], dim: int, run: int) -> bool:
    """Whether load `op` reads one element over each aligned run of `run` neighbours along `dim`: its
    pointers, mask and `other` constant over them (a group's scale, read for each of its words)."""
    tiles = [v for v in op.operands if isinstance(v.type, BlockType)]
    return all(v.id in info and info[v.id].constancy[dim] % run == 0 for v in tiles)
