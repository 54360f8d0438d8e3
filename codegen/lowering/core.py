"""The lowering core: tile IR + layout plan -> per-thread statements (LIR), as the state every handler
module works on.

Each tile value becomes either nothing (rematerialised index arithmetic, computed where read), a
per-thread register array in its layout (filled by a loop over the thread's slots), a scalar, or a
threadgroup array (the `Repr` classes). `read` is the one place that turns "value v at these
coordinates, for a consumer in layout L at slot k" into an expression, converting through threadgroup
memory (`store_to_shared`) when the layouts differ; element-wise ops are lowered here because
rematerialised values are computed where read. Memory operations, reductions and scans, views,
control flow, `tl.dot` and `device_print` live in their own modules, which import this one; the walk
that sends each op to its module is `driver.py`, on top of them.
"""
from __future__ import annotations

import re
from math import gcd
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from ...dsl.ir import Block, BlockType, Function, Operation, PointerType, ScalarType, Value, element_of, shape_of, walk_block
from ...dsl import ir
from ...errors import KernelDefinitionError, SharedMemoryLimitError
from .. import lir
from ..layouts import (MMA, Blocked, Expand, Layout, Remat, Scalar, add, div, flat_index, lit, mod, mul_, prod,
                       same_registers, slot_count, unravel)
from ..lir import Bin, Call, Cast, Expr, FragmentElement, Index, Lit, Select, Sym, Un
from ..ir_passes.assign_layouts import PASS_THROUGH, LayoutPlan, stage_elements, writes_atomically

# what a walk to a pointer's argument gives for a value it met before (`Lowering._pointer_base`)
_REVISITED = object()
_CMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_BINARY = {"add": "+", "sub": "-", "mul": "*", "sdiv": "/", "udiv": "/", "srem": "%", "urem": "%",
           "and": "&", "or": "|", "xor": "^", "shl": "<<", "ashr": ">>", "lshr": ">>"}
# the binary ops whose result on 8- or 16-bit operands, computed in C's int, can leave their type's
# range (-128 / -1 included); and, or, xor, shifts right, unsigned division and remainders cannot
_WIDENING = {"add", "sub", "mul", "shl", "sdiv"}
_MATH = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf", "floor", "ceil", "sigmoid", "abs",
         "fma", "clamp"}
# names no value of the generated code takes: the keywords, the slot loops' index and functions called unqualified
_RESERVED = ir.GENERATED_NAMES | {"if", "else", "for", "while", "return", "break", "continue", "k", "min", "max",
                                     "exp", "log", "sqrt", "abs", "select"}


def _narrowed(t: ScalarType, e: Expr) -> Expr:
    """`e` (integer arithmetic of type t) wrapped at t's width: C computes 8- and 16-bit operands in
    int, which an expression recomputed where it is read (no variable of type t between) would
    otherwise keep (`u8 - 3` at 0: -3, not 253)."""
    return Cast(t, e) if t.is_int and not t.is_bool and t.bits < 32 else e


# ---- how a value is represented during lowering --------------------------------------------------
@dataclass
class Repr:
    def at(self, lw: "Lowering", layout: Layout, k: Expr | None, coords: list[Expr]) -> Expr | None:
        raise NotImplementedError


@dataclass
class ScalarRepr(Repr):
    expr: Expr

    def at(self, lw, layout, k, coords):
        return self.expr


@dataclass
class RegsRepr(Repr):
    name: str
    layout: Layout

    def slot(self, k: Expr) -> Expr:
        """The register holding this thread's slot `k` (read or assigned)."""
        return Index(Sym(self.name), k)

    def at(self, lw, layout, k, coords):
        return self.slot(k) if k is not None and same_registers(layout, self.layout) else None


@dataclass
class SpreadRepr(Repr):
    """A register tile broadcast along its size-1 dimensions in its own threads (`Blocked.reshaped`):
    slot k of the result reads the source's slot at k's local indices, 0 along the broadcast ones;
    a consumer in another layout converts the source through threadgroup memory (`Lowering.views`)."""

    name: str
    source: Blocked
    layout: Blocked

    def source_slot(self, k: Expr) -> Expr:
        return self.source.slot_of([lit(0) if n == 1 != m else self.layout.local_index(k, d)
                                    for d, (n, m) in enumerate(zip(self.source.shape, self.layout.shape))])

    def at(self, lw, layout, k, coords):
        return Index(Sym(self.name), self.source_slot(k)) if k is not None and layout == self.layout else None


@dataclass
class FragmentRepr(RegsRepr):
    """A `tl.dot` result kept in the matrix instruction's accumulator fragments (an array of them,
    `name`), in its `MMA` layout: slot k is element k % c of fragment k // c. Consumers read the
    fragments' elements in place, so an accumulator never goes through a register array."""

    def slot(self, k):
        per = self.layout.per_lane
        return FragmentElement(Index(Sym(self.name), div(k, per)), mod(k, per))


@dataclass
class BroadcastRepr(Repr):
    """An Expand tile broadcast along its size-1 dimension: a consumer in a layout the slice reads
    onto (its parent, see Slice.reads_onto) reads slot k from the slice's slot for k's line; any
    other consumer converts it through threadgroup memory."""

    name: str
    expand: Expand

    def at(self, lw, layout, k, coords):
        if k is not None and self.expand.slice.reads_onto(layout):
            return Index(Sym(self.name), self.expand.slice.slot_of_parent(k, layout))
        return None


@dataclass
class SharedRepr(Repr):
    name: str
    shape: tuple[int, ...]
    index: Callable[[list[Expr]], Expr]  # coordinates -> position in the array (after `base`)
    base: Expr | None = None  # where this iteration's buffer starts, when double-buffered
    swizzled: bool = False  # stored in wgmma's 128-byte swizzle (`swizzled_index`), not row-major
    # a run of this many elements along the last axis that starts at a column multiple of it is
    # aligned to its size: read in one vector access (`store_to_shared`)
    aligned_run: int = 1

    def at(self, lw, layout, k, coords):
        return Index(Sym(self.name), self.position(coords))

    def position(self, coords: list[Expr]) -> Expr:
        return self.index(coords) if self.base is None else add(self.base, self.index(coords))


@dataclass(eq=False)
class ReleaseFence:
    """A barrier owed right after `anchor` (None: at the start of `block`), where arrays were
    released (`Lowering.release_shared`): placed once, when a later array takes their bytes."""
    block: list[lir.Stmt]
    anchor: lir.Stmt | None
    placed: bool = False

    def place(self) -> None:
        if not self.placed:
            at = 0 if self.anchor is None else next(i for i, s in enumerate(self.block) if s is self.anchor) + 1
            self.block.insert(at, lir.Barrier())
            self.placed = True


@dataclass
class LoopFrame:
    """A `for` loop being lowered: its induction variable, start and step, its body's block, the
    block the loop statement goes to (`outer`), and the counters of its rings of buffers (declared
    once, when a multi-buffered tile first needs one, and advanced at the end of each iteration)."""
    iv: Expr
    start: Expr
    step: Expr
    block: int
    outer: int
    stages: dict[int, Sym] = field(default_factory=dict)  # iteration count mod n, by n
    advance: list[lir.Stmt] = field(default_factory=list)  # the counters' updates, at the end of the body
    copies_landed: bool = False  # this iteration waited for its asynchronous copies (AsyncTile)
    after: list[lir.Stmt] = field(default_factory=list)  # owed after the loop: waits for products left running


@dataclass
class AsyncTile:
    """A `tl.dot` operand pipelined by asynchronous copies (CUDA's cp.async) instead of through
    registers, in a ring of `stages` threadgroup buffers: the prefetch pass's prologue loads
    (`firsts`, the first `ahead` tiles) and its load of the tile `ahead` iterations ahead (`next`)
    copy straight into their buffers, and the loop-carried tiles (`carried`, this iteration's
    first) are views of the buffers they are in (memory.py plans and issues them, control.py binds
    the views each iteration). A `spare` buffer keeps the copies off the tile that the previous
    iteration's products may still read: the dots reading the tile leave them running (wgmma's
    `wait_group 1`), as Triton's Hopper pipeliner adds a buffer for its asynchronous dots."""
    firsts: list[Operation]
    next: Operation
    carried: list[Value]
    pad: int
    swizzle: bool = False  # in wgmma's swizzled layout (`swizzled_index`) instead of padded rows
    spare: int = 0  # 1 where the products reading the tile run on into the next iteration
    name: str | None = None  # the threadgroup array, allocated with the prologue's copies
    prologue: list[list[lir.Stmt]] = field(default_factory=list)  # the copies of each prologue tile

    @property
    def ahead(self) -> int:
        """Tiles copied ahead of the one an iteration reads (the prefetch distance)."""
        return len(self.carried)

    @property
    def stages(self) -> int:
        """Buffers in the ring."""
        return self.ahead + 1 + self.spare

    @property
    def shape(self) -> tuple[int, ...]:
        return shape_of(self.carried[0].type)

    def count(self) -> int:
        rows, cols = self.shape
        return rows * (cols + self.pad)

    def view(self, buffer: Expr) -> SharedRepr:
        """Buffer `buffer` (0 or 1, an expression) of the array, as the dot reads it."""
        element = element_of(self.carried[0].type)
        return SharedRepr(self.name, self.shape, staged_index(self.shape, self.pad, self.swizzle),
                          mul_(buffer, lit(stage_elements(element, self.count()))), self.swizzle)


@dataclass
class RematRepr(Repr):
    op: Operation

    def at(self, lw, layout, k, coords):
        return lw.remat(self.op, coords)


def _function_name(code: str, op: Operation) -> str:
    """The target function an op calls: tl.math.sqrt_rn / div_rn (`rounding="rn"`) have their own
    (`sqrt_rn`, `fdiv_rn`), which each target spells correctly rounded."""
    return code + "_rn" if op.attrs.get("rounding") == "rn" else code


def joined_values(fn: Function) -> dict[int, list[Value]]:
    """Where control flow joins values: each `if` result -> what its branches yield; each loop-carried
    block argument -> its initial value and what each iteration yields into it; a for loop's results
    likewise; a while loop's body arguments and results -> what its condition forwards."""
    joins: dict[int, list[Value]] = {}
    for op in fn.walk():
        if op.opcode == "if":
            yields = [r.ops[-1].operands for r in op.regions if r.ops and r.ops[-1].opcode == "yield"]
            for i, res in enumerate(op.results):
                joins[res.id] = [y[i] for y in yields]
        elif op.opcode == "for":
            body = op.regions[0]
            for i, (arg, res) in enumerate(zip(body.args[1:], op.results)):
                joins[arg.id] = joins[res.id] = [op.operands[3 + i], body.ops[-1].operands[i]]
        elif op.opcode == "while":
            before, after = op.regions
            for i, arg in enumerate(before.args):
                joins[arg.id] = [op.operands[i], after.ops[-1].operands[i]]
            for i, (arg, res) in enumerate(zip(after.args, op.results)):
                joins[arg.id] = joins[res.id] = [before.ops[-1].operands[1 + i]]
    return joins


class Lowering(ABC):
    """One kernel's lowering: walks the tile IR once, emitting LIR into the innermost open block
    (the walk is the driver's: see `lower_block`)."""

    def __init__(self, fn: Function, plan: LayoutPlan, outputs: set[str], num_warps: int,
                 staged_stores: bool = True) -> None:
        self.fn, self.plan, self.outputs, self.num_warps = fn, plan, outputs, num_warps
        self.staged_stores = staged_stores  # honour the plan's stores through shared memory (memory.py)
        self.threads = 32 * num_warps
        self.env: dict[int, Repr] = {}
        self.blocks: list[list[lir.Stmt]] = [[]]
        self.shared_cache: list[dict[int, SharedRepr]] = [{}]
        self.loops: list[LoopFrame] = []  # enclosing `for` loops, innermost last
        self.whiles = 0  # enclosing `while` loops
        self.named: list[dict[tuple, Sym]] = [{}]  # named index values computed in the current block
        self.scope_names: list[set[str]] = [set()]  # names declared by named_remat in the current C scope
        self.local_names: dict[int, str] = {}
        self.depth: dict[int, int] = {}  # value id -> index of the block it was defined in
        self.hoist_to: int | None = None
        self.taken: set[str] = set(_RESERVED)
        self.shared_bytes = 0
        self.shared_align = 16  # the largest alignment an array asked for (alloc_shared)
        # threadgroup arrays, in the order allocated -> their bytes [start, end) and the block declaring them
        self.shared_arrays: dict[str, tuple[int, int, int]] = {}
        # spans nothing reads any more (`release_shared`): bytes [start, end), the barriers owed before reuse
        self.shared_free: list[tuple[int, int, tuple[ReleaseFence, ...]]] = []
        self.atomic_outputs = writes_atomically(fn)
        self.word_outputs: set[str] = set()  # 16-bit outputs accessed through 32-bit words (memory.py)
        self.prints: list[tuple] = []  # device_print sites: (prefix, element types, hex)
        # each value's op, the whole function's from the start: a pointer's argument may be found through
        # a value a loop computes after the access that asks (what an iteration leaves in a carried pointer)
        self.producer: dict[int, Operation] = {r.id: op for op in fn.walk() for r in op.results}
        # the values a control-flow result or block argument takes (`joined_values`)
        self.joins: dict[int, list[Value]] = joined_values(fn)
        # loop-carried tiles a `tl.dot` in the loop accumulates into in place (control.py)
        self.fragment_accumulators: set[int] = set()
        # dot operands pipelined by asynchronous copies, by the value ids of their loads and carried tile
        self.async_tiles: dict[int, AsyncTile] = {}
        # register tiles that re-index another one's registers (an expand_dims or broadcast in place):
        # value id -> (source, its coordinates for the view's); converted through their source
        self.views: dict[int, tuple[Value, Callable[[list[Expr]], list[Expr]]]] = {}
        self.current: Operation | None = None
        self.line: int | None = None
        # since the last device-memory barrier: a store or atomic; a load from an output (memory.py)
        self.device_writes_unfenced = self.output_reads_unfenced = False
        for a in fn.args:
            self.taken.add(a.name)
            self.env[a.id] = ScalarRepr(Sym(a.name))
        # the slot loops' index: `k` (reserved, so no value takes it), unless an argument is named `k`,
        # which the loops would shadow
        self.slot_index = "k" if "k" not in (a.name for a in fn.args) else self.name(None, "slot")

    # ---- output helpers --------------------------------------------------------------------------
    def emit(self, stmt: lir.Stmt) -> None:
        self.blocks[self.target].append(stmt)

    @property
    def target(self) -> int:
        """Index of the block statements go to: the innermost, unless a conversion is being hoisted."""
        return self.hoist_to if self.hoist_to is not None else len(self.blocks) - 1

    def nested(self, fill: Callable[[], None], same_scope: bool = False) -> list[lir.Stmt]:
        """Statements emitted by `fill`, as a separate block (with its own conversion cache). With
        `same_scope`, the caller splices them into the current block later (a cp.async prologue), so
        the names they declare share the current C scope and must not repeat one declared there."""
        outer = self.target
        self.blocks.append([])
        self.shared_cache.append(dict(self.shared_cache[outer]))
        self.named.append(dict(self.named[outer]))
        self.scope_names.append(self.scope_names[outer] if same_scope else set())
        hoisting, self.hoist_to = self.hoist_to, None
        try:
            fill()
        finally:
            self.hoist_to = hoisting
            self.shared_cache.pop()
            self.named.pop()
            self.scope_names.pop()
        return self.blocks.pop()

    def name(self, v: Value | None, hint: str = "t") -> str:
        base = re.sub(r"\W", "_", (v.name if v is not None and v.name else hint)) or hint
        if base[0].isdigit() or base.startswith(ir.GENERATED_PREFIX):  # mf_: metalforge's helpers and locals
            base = "v" + base
        candidate, n = base, 0
        while candidate in self.taken:
            n += 1
            candidate = f"{base}_{n}"
        self.taken.add(candidate)
        return candidate

    def error(self, message: str, hint: str, kind: type[KernelDefinitionError] = KernelDefinitionError
              ) -> KernelDefinitionError:
        loc = self.current.loc if self.current is not None else None
        return kind(message, kernel=self.fn.name, file=loc.file if loc else self.fn.file,
                                     line=loc.line if loc else 0, source=loc.source if loc else "", hint=hint)

    def slot_loop(self, layout: Layout, body: Callable[[Expr | None, list[Expr]], None], step: int = 1,
                  batch: bool = False) -> None:
        """Run `body(k, coords)` for each of this thread's slots of `layout` (a loop in the output),
        or for every `step`-th slot (vector accesses handle the slots in between); a `batch` loop
        (`lir.For.batch`) stays a loop of its own."""
        if isinstance(layout, Scalar):
            body(None, [])
        elif layout.slots == step:
            body(lit(0), layout.coords(lit(0)))
        else:
            k = Sym(self.slot_index)
            stmts = self.nested(lambda: body(k, layout.coords(k)))
            self.emit(lir.For(k.name, lit(0), Bin("<", k, lit(layout.slots)), lit(step), stmts, unroll=True,
                              batch=batch, type=ir.int32))

    def ready(self, values: list[Value], layout: Layout) -> None:
        """Convert, before a consumer's slot loop, every operand it cannot read in `layout`."""
        for v in values:
            if not isinstance(v.type, BlockType):
                continue
            probe = self.env[v.id].at(self, layout, Sym(self.slot_index), [lit(0)] * len(v.type.shape))
            if probe is None and not isinstance(element_of(v.type), ir.PointerType):  # addresses: `read`
                self.to_shared(v)

    # ---- reading values ---------------------------------------------------------------------------
    def read(self, v: Value, layout: Layout, k: Expr | None, coords: list[Expr]) -> Expr:
        """`v` at `coords` (of v's shape), for a consumer iterating `layout` at slot `k`."""
        r = self.env[v.id]
        if isinstance(r, RematRepr) and v.name and self.target > 0:
            return self.named_remat(v, r, coords)
        e = r.at(self, layout, k, coords)
        if e is None and isinstance(element_of(v.type), ir.PointerType):
            # addresses do not go through threadgroup memory: the pointer tile is computed again
            # where it is read, from its parts (an index tile carried across loop iterations, held
            # in another layout, converts as integers)
            op = self.producer.get(v.id)
            if op is None or op.opcode in ("for", "while", "if", "load"):
                raise self.error("a tile of pointers is read in another layout than the one it was computed in, "
                                 "and only its offsets can move between layouts",
                                 "compute the pointers where they are used, as `base + offsets`, from offsets "
                                 "rather than carrying the pointer tile")
            return self.remat(op, coords)
        if e is None:
            e = self.to_shared(v).at(self, layout, k, coords)
        return e

    def read_run(self, sh: SharedRepr, element: ScalarType, coords: list[Expr], width: int) -> list[Expr]:
        """The `width` neighbours along the last axis from `coords` of a threadgroup tile whose runs
        of `width` are aligned (`SharedRepr.aligned_run`), read in one access into registers."""
        name = self.name(None, "run")
        self.emit(lir.Decl(name, element, size=width))
        targets: list[Expr] = [Index(Sym(name), lit(u)) for u in range(width)]
        self.emit(lir.VectorLoad(targets, Bin("+", Sym(sh.name), sh.position(coords)), element, aligned=True,
                                 space="threadgroup"))
        return targets

    def named_remat(self, v: Value, r: "RematRepr", coords: list[Expr]) -> Expr:
        """A user-named index value (`offs`, `mask`), declared under its name where first read in a
        block, so the generated code reads like the kernel."""
        key = (v.id, repr(coords))
        sym = self.named[self.target].get(key)
        if sym is None:
            if v.id not in self.local_names:
                self.local_names[v.id] = self.name(v)
            expr = r.at(self, Remat(), None, coords)
            sym = Sym(self.local_names[v.id])
            if (any(s == sym for s in self.named[self.target].values())  # the same value, other coordinates
                    or sym.name in self.scope_names[self.target]):  # declared by a block spliced in here
                sym = Sym(self.name(v))
            self.scope_names[self.target].add(sym.name)
            self.emit(self.declare(sym.name, v, init=expr))
            self.named[self.target][key] = sym
        return sym

    def to_shared(self, v: Value) -> SharedRepr:
        """Write a register tile to threadgroup memory (a layout conversion) and return its view.

        The conversion is placed in the block that defines `v`, so a tile loaded before a loop is
        converted once, not on every iteration (the loop statement is emitted after its body)."""
        for cache in reversed(self.shared_cache):
            if v.id in cache:
                return cache[v.id]
        if v.id in self.views:  # a view of registers: convert its source, where the source is defined
            source, source_coords = self.views[v.id]
            sh = self.to_shared(source)
            return SharedRepr(sh.name, shape_of(v.type), lambda coords: sh.index(source_coords(coords)), sh.base)
        with self.at_definition(v) as level:
            converted = store_to_shared(self, v)
        self.shared_cache[level][v.id] = converted
        return converted

    @contextmanager
    def at_definition(self, v: Value) -> Iterator[int]:
        """Emit into the block that defines `v` (its index, yielded) while inside: what is made of a
        value defined before a loop is made once, and declared where all its readers see it."""
        level = min(self.depth.get(v.id, 0), len(self.blocks) - 1)
        outer, self.hoist_to = self.hoist_to, level if level < len(self.blocks) - 1 else None
        try:
            yield level
        finally:
            self.hoist_to = outer

    def alloc_shared(self, hint: str, element: ScalarType, count: int, stages: int = 1, align: int = 16) -> str:
        """A threadgroup array of `count` elements, or of `stages` buffers of `count` that a loop
        alternates between (each padded to 16 bytes), starting at a multiple of `align` bytes (16:
        vector and matrix loads; 1024: wgmma's swizzled tiles, whose alignment the renderer gives
        the whole threadgroup memory, at up to 1008 bytes more)."""
        name = self.name(None, hint)
        if stages > 1:
            count = stage_elements(element, count) * stages
        size = max(1, element.bits // 8) * count
        offset = self._reuse_shared(size, align)
        if offset is None:
            offset = -(-self.shared_bytes // align) * align
            self.shared_bytes = offset + size
        self.shared_arrays[name] = (offset, offset + size, self.target)
        self.shared_align = max(self.shared_align, align)
        target = self.plan.target
        if self.shared_bytes + self.shared_align - 16 > target.threadgroup_memory:
            raise self.error(f"the kernel needs {self.shared_bytes + self.shared_align - 16} bytes of threadgroup "
                             f"memory, more than the "
                             f"{target.threadgroup_memory} a {target.gpu} threadgroup has",
                             "use smaller tiles (BLOCK sizes) or fewer num_stages", SharedMemoryLimitError)
        self.emit(lir.Decl(name, element, size=count, space="threadgroup", stages=stages, offset=offset, align=align))
        return name

    def release_shared(self, names: list[str]) -> None:
        """Let later arrays reuse the memory of arrays `names`, on targets that place arrays at
        offsets: nothing reads them after this point of the kernel (control.py: the arrays of a
        finished loop that no enclosing loop runs again). Where a later array takes their bytes, a
        barrier goes here (`ReleaseFence`), so every warp's last reads come before its writes."""
        if not self.plan.target.shared_at_offsets or not names:
            return
        block = self.blocks[self.target]
        fence = ReleaseFence(block, block[-1] if block else None)
        spans = sorted(self.shared_free + [(*self.shared_arrays[name][:2], (fence,)) for name in names],
                       key=lambda span: span[:2])
        self.shared_free = []
        for lo, hi, fences in spans:  # neighbouring spans merged
            if self.shared_free and self.shared_free[-1][1] >= lo:
                last = self.shared_free[-1]
                self.shared_free[-1] = (last[0], max(hi, last[1]), tuple(dict.fromkeys(last[2] + fences)))
            else:
                self.shared_free.append((lo, hi, fences))

    def _reuse_shared(self, size: int, align: int) -> int | None:
        """The start of `size` bytes at a multiple of `align` within a released span (the first
        that holds them, or the one at the top of the memory, which grows), taken out of the free
        spans and its barriers placed; None where none does. A conversion hoisted to an outer block
        takes only spans released in that block or one around it: its code goes to the end of that
        block, so before a statement still being lowered (an `if` holding a released loop, say)."""
        open_blocks = self.blocks[:self.target + 1]
        for i, (lo, hi, fences) in enumerate(self.shared_free):
            if self.hoist_to is not None and not all(any(f.block is b for b in open_blocks) for f in fences):
                continue
            start = -(-lo // align) * align
            if start + size <= hi or hi == self.shared_bytes:
                self.shared_bytes = max(self.shared_bytes, start + size)
                for fence in fences:
                    fence.place()
                self.shared_free[i:i + 1] = [(a, b, fences) for a, b in ((lo, start), (start + size, hi)) if a < b]
                return start
        return None

    def materialize(self, v: Value, layout: Layout, copy: bool = False, name: str | None = None) -> str:
        """A register array holding `v` in `layout` (v's own when it already is one, unless `copy`)."""
        r = self.env[v.id]
        if type(r) is RegsRepr and same_registers(r.layout, layout) and not copy:  # a plain array, not fragments
            return r.name
        self.ready([v], layout)
        name = name or self.name(v)
        self.emit(self.declare(name, v, slot_count(layout)))
        self.assign(RegsRepr(name, layout), v)
        return name

    def declare(self, name: str, v: Value, size: int | None = None, init: Expr | None = None) -> lir.Decl:
        like = self.pointer_like(v) if isinstance(element_of(v.type), PointerType) else None
        return lir.Decl(name, element_of(v.type), size=size, init=init, like=like)

    def assign(self, target: Repr, v: Value) -> None:
        """Store value `v` into the variable `target` (a scalar or a register array)."""
        if isinstance(target, ScalarRepr):
            self.emit(lir.Assign(target.expr, self.read(v, Scalar(), None, [])))
            return
        assert isinstance(target, RegsRepr)
        self.ready([v], target.layout)
        self.slot_loop(target.layout, lambda k, c: self.emit(
            lir.Assign(target.slot(k), self.read(v, target.layout, k, c))))

    def result_array(self, op: Operation, layout: Layout) -> str:
        """The register array for `op`'s result in `layout`, declared after its operands are made
        readable in that layout (conversions go before the consumer's loop)."""
        self.ready(op.operands, layout)
        name = self.name(op.result)
        self.emit(self.declare(name, op.result, slot_count(layout)))
        return name

    def fragments(self, layout: MMA, hint: str = "frag_c") -> FragmentRepr:
        """A fresh array of float accumulator fragments for a `tl.dot` result in `layout`."""
        name = self.name(None, hint)
        c = lir.FragmentType(ir.float32, layout.fragment.name, "c")
        self.emit(lir.Decl(name, c, size=prod(layout.fragments)))
        return FragmentRepr(name, layout)

    def variable(self, v: Value, layout: Layout, hint: Value | None = None) -> Repr:
        """A fresh, uninitialised variable able to hold `v` in `layout`."""
        name = self.name(hint or v)
        if isinstance(layout, Scalar):
            self.emit(self.declare(name, v))
            return ScalarRepr(Sym(name))
        self.emit(self.declare(name, v, slot_count(layout)))
        return RegsRepr(name, layout)

    def base_argument(self, v: Value) -> str | None:
        """The kernel argument a pointer value was computed from (None when it cannot be told: also a
        pointer an `if` chooses between different arguments, which fences and atomics must then
        treat as possibly any of them)."""
        return self._pointer_base(v, lambda bases: bases[0] if len(set(bases)) == 1 else None)

    def pointer_like(self, v: Value) -> str | None:
        """The kernel argument whose type a variable holding pointer `v` is declared with: its base
        argument, or for a pointer an `if` chooses between arguments, an input's where one is (MLX
        declares inputs const, and an output's pointer converts to it), else the first output's."""
        def prefer_input(bases: list[str | None]) -> str | None:
            known = [b for b in bases if b is not None]
            return next((b for b in known if b not in self.outputs), known[0] if known else None)
        return self._pointer_base(v, prefer_input)

    def _pointer_base(self, v: Value, choose: Callable[[list[str | None]], str | None]) -> str | None:
        """The kernel argument pointer v was computed from, following offsets and, where control flow
        joins values (`joins`: an `if`'s branches, a loop's initial value and what each iteration
        leaves, which may be another pointer the loop carries), each of them (`choose` picks among
        their arguments)."""
        base = self._pointer_base_in(v, choose, set())
        return None if base is _REVISITED else base

    def _pointer_base_in(self, v: Value, choose: Callable[[list[str | None]], str | None], seen: set[int]) -> Any:
        while v.id not in seen:
            seen.add(v.id)
            for a in self.fn.args:
                if a.id == v.id:
                    return a.name
            sources = self.joins.get(v.id)
            if sources is not None:
                bases = [b for b in (self._pointer_base_in(s, choose, seen) for s in sources) if b is not _REVISITED]
                return choose(bases) if bases else _REVISITED
            op = self.producer.get(v.id)
            if op is None:
                return None
            pointers = [o for o in op.operands if isinstance(element_of(o.type), PointerType)]
            if op.opcode == "load" or not pointers:
                return None
            v = pointers[0]
        return _REVISITED  # a value met again on this walk (a pointer a loop advances): its others decide

    # ---- elementwise -------------------------------------------------------------------------------

    def remat(self, op: Operation, coords: list[Expr]) -> Expr:
        """The value of rematerialised `op` at `coords`."""
        code, x = op.opcode, op.operands[0] if op.operands else None
        if code == "arange":
            return Bin("+", coords[0], lit(op.attrs["start"])) if op.attrs["start"] else coords[0]
        if code in ("full", "constant"):
            return Lit(op.attrs["value"], element_of(op.result.type))
        if code == "splat":
            return self.read(x, Scalar(), None, [])
        if code in PASS_THROUGH:
            return self.read(x, Remat(), None, coords)
        if code == "load":  # a dot operand read from device memory where the dot needs it
            value = Index(self.read(x, Remat(), None, coords), lit(0))
            if op.attrs.get("masked"):
                other = (self.read(op.operands[2], Remat(), None, self.operand_coords(op.operands[2], coords))
                         if op.attrs.get("has_other") else Lit(0, element_of(op.result.type)))
                value = Select(self.read(op.operands[1], Remat(), None, coords), value, other)
            return value
        if code == "broadcast":
            src = shape_of(x.type)
            return self.read(x, Remat(), None, [c if n != 1 else lit(0) for c, n in zip(coords, src)])
        if code == "expand_dims":
            a = op.attrs["axis"]
            return self.read(x, Remat(), None, coords[:a] + coords[a + 1:])
        if code == "reshape":
            return self.read(x, Remat(), None, unravel(flat_index(coords, shape_of(op.result.type)), shape_of(x.type)))
        if code == "extract":
            a = op.attrs["axis"]
            return self.read(x, Remat(), None, coords[:a] + [lit(op.attrs["index"])] + coords[a:])
        if code == "flip":
            return self.read(x, Remat(), None, flipped(coords, op.attrs["axis"], shape_of(x.type)))
        if code == "permute":
            src = [lit(0)] * len(coords)
            for i, d in enumerate(op.attrs["dims"]):
                src[d] = coords[i]
            return self.read(x, Remat(), None, src)
        return self.elementwise_expr(op, [self.read(o, Remat(), None, self.operand_coords(o, coords))
                                          for o in op.operands], coords)

    @staticmethod
    def operand_coords(o: Value, coords: list[Expr]) -> list[Expr]:
        return coords if isinstance(o.type, BlockType) else []

    def elementwise_expr(self, op: Operation, args: list[Expr], coords: list[Expr]) -> Expr:
        code = op.opcode
        rt = element_of(op.result.type)
        if code in ("ashr", "lshr") and rt.signed != (code == "ashr"):
            # Triton's shift kind follows the shifted tile's type before promotion (int32 >> uint32 is
            # arithmetic): shift in the same-width type of the other signedness and convert back
            other = ir.SCALAR_TYPES[f"{'' if code == 'ashr' else 'u'}int{rt.bits}"]
            return Cast(rt, Bin(">>", Cast(other, args[0]), args[1]))
        if code in _BINARY:
            e = Bin(_BINARY[code], *args)
            return _narrowed(rt, e) if code in _WIDENING else e
        if code == "cmp":
            return Bin(_CMP[op.attrs["pred"]], *args)
        if code in ("fmod", "fdiv"):  # float division: the target spells Triton's precision (2 ulp on CUDA)
            return Call(_function_name(code, op), tuple(args), rt)
        if code == "neg":
            return _narrowed(rt, Un("-", args[0]))
        if code == "not":
            return Un("!", args[0]) if rt.is_bool else _narrowed(rt, Un("~", args[0]))
        if code == "cast":
            if op.attrs.get("rounding") == "rtz":  # toward zero: a helper per target
                return Call(f"rtz_{rt.name}", (args[0],), rt)
            return Cast(rt, args[0])
        if code == "bitcast":
            return lir.Bitcast(rt, args[0])
        if code == "select":
            return Select(*args)
        if code == "addptr":
            return Bin("+", *args)
        if code in ("minimum", "maximum"):  # operands of rt itself: C's int of `a & b` (int16) matches no overload
            return Call("min" if code == "minimum" else "max", tuple(_narrowed(rt, a) for a in args), rt)
        if code == "expdiff":  # exp(a - b), ir_passes/exponentials.py
            return exp_of_difference(*args)
        if code in _MATH:
            return Call(_function_name(code, op), tuple(args), rt)
        if code == "philox":  # one word of Philox-4x32 (the target's helper computes all four)
            return Call("philox", (*args, lit(op.attrs["n_rounds"]), lit(op.attrs["word"])), rt)
        raise self.error(f"operation {code} is not supported by the code generator yet", "rewrite the kernel "
                         "without it")

    def lower_elementwise(self, op: Operation) -> None:
        r = op.result
        layout = self.plan.of(r)
        if isinstance(layout, Remat):
            self.env[r.id] = RematRepr(op)
            return
        if isinstance(layout, Scalar) and op.opcode in ("constant", "full"):
            self.env[r.id] = ScalarRepr(self.remat(op, []))
            return
        if isinstance(layout, Scalar):
            value = self.elementwise_expr(op, [self.read(o, layout, None, []) for o in op.operands], [])
            name = self.name(r)
            self.emit(self.declare(name, r, init=value))
            self.env[r.id] = ScalarRepr(Sym(name))
            return
        name = self.result_array(op, layout)

        def body(k, coords):
            args = [self.read(o, layout, k, self.operand_coords(o, coords)) for o in op.operands]
            self.emit(lir.Assign(Index(Sym(name), k), self.elementwise_expr(op, args, coords)))
        self.slot_loop(layout, body)
        self.env[r.id] = RegsRepr(name, layout)

    # ---- the walk -----------------------------------------------------------------------------------
    @abstractmethod
    def lower_block(self, ops: list[Operation]) -> None:
        """Lower `ops` into the current block. Handlers of ops with regions (loops, branches, combine
        functions) call it; the walk itself knows every op's handler, so it is the driver's
        (`driver.LoweringDriver`), which the handler modules do not import."""

    def run(self) -> list[lir.Stmt]:
        self.lower_block(self.fn.body.ops)
        return self.blocks[0]


# ---- layout conversions through threadgroup memory ----------------------------------------------
def store_to_shared(lw: Lowering, v: Value) -> SharedRepr:
    """Every element of register tile `v`, written once, row-major, between two barriers; rows of a
    2-D tile padded, or swizzled for wgmma, as the layout plan says (`stage_dot_operands`). A thread's
    run of neighbouring elements is written in one vector access."""
    r = lw.env[v.id]
    if isinstance(r, SharedRepr):
        return r
    shape = shape_of(v.type)
    width = 1
    if isinstance(r, BroadcastRepr):  # `mean[:, None]` broadcast: store the reduced values only
        sl = r.expand.slice
        layout, source, stored, pad, swizzle = sl, RegsRepr(r.name, sl), sl.shape, 0, False
        index = lambda coords: flat_index(coords[:sl.dim] + coords[sl.dim + 1:], stored)  # noqa: E731 (readers)
        written = lambda coords: flat_index(coords, stored)  # noqa: E731 (the slice's own coordinates)
    else:
        assert isinstance(r, RegsRepr), f"no registers to convert for {v}"
        layout, source, stored = r.layout, r, shape
        pad = lw.plan.shared_pad.get(v.id, lw.plan.staged_pad.get(v.id, 0) if lw.staged_stores else 0) \
            if len(shape) == 2 else 0
        swizzle = v.id in lw.plan.shared_swizzle and len(shape) == 2
        if isinstance(layout, (Blocked, MMA)) and element_of(v.type) in lw.plan.target.vector_types:
            # a run's slots are consecutive, its elements neighbours in a row (a broadcast in registers
            # may hold more of them than one access moves; a swizzled row moves 16-byte chunks whole)
            width = gcd(layout.row_run, lw.plan.target.vector_limit(element_of(v.type)))
        index = written = staged_index(shape, pad, swizzle)
    element = element_of(v.type)
    count = prod(stored[:-1]) * (stored[-1] + pad) if stored else 1
    # each row (and each buffer: stage_elements) starts 16-byte aligned where its length in elements
    # is a multiple of the run; a swizzled row keeps its 16-byte chunks whole
    run = 16 // max(1, element.bits // 8)
    while run > 1 and not swizzle and stored and (stored[-1] + pad) % run:
        run //= 2
    aligned_run = run if isinstance(r, RegsRepr) else 1
    loop = _rotating_loop(lw, v)
    name = lw.alloc_shared(f"{lw.name(v, 't')}_smem", element, count, stages=2 if loop else 1,
                           align=SWIZZLE_ALIGN if swizzle else 16)
    base = None
    if loop is not None:  # this iteration's buffer: the other one may still be read by the last iteration
        base = mul_(loop_stage(lw, loop), lit(stage_elements(element, count)))
    else:
        lw.emit(lir.Barrier())  # earlier readers of this memory (an enclosing loop) are done
    view = SharedRepr(name, shape, index, base, swizzle, aligned_run)
    stores = SharedRepr(name, stored, written, base, swizzle)

    def write(k, coords):
        position = stores.position(coords)
        if width > 1:
            values = [source.at(lw, layout, add(k, lit(u)), layout.coords(add(k, lit(u)))) for u in range(width)]
            stmt = lir.VectorStore(Bin("+", Sym(name), position), values, element, space="threadgroup",
                                   aligned=aligned_run % width == 0)
        else:
            stmt = lir.Assign(Index(Sym(name), position), source.at(lw, layout, k, coords))
        owner = layout.owner(k) if k is not None else None
        lw.emit(lir.If(owner, [stmt]) if owner is not None else stmt)
    lw.slot_loop(layout, write, step=width)
    if swizzle:  # read by wgmma, through the asynchronous proxy
        lw.emit(lir.ProxyFence())
    lw.emit(lir.Barrier())
    return view


def _rotating_loop(lw: Lowering, v: Value) -> LoopFrame | None:
    """The loop whose iterations alternate between two buffers for `v`: a `tl.dot` operand computed
    in that loop's body, when the kernel asks for two stages (`num_stages >= 2`)."""
    if lw.plan.dot_stages < 2 or v.id not in lw.plan.shared_pad or not lw.loops:
        return None
    loop = lw.loops[-1]
    return loop if lw.depth.get(v.id) == loop.block else None


def accumulated_in_place(lw: Lowering, body: Block, position: int) -> bool:
    """Whether carried tile `position` of a `for` body is only the accumulator of a `tl.dot` in the
    body whose result is yielded back in its place (`acc = tl.dot(a, b, acc)`): that dot adds into
    the carried fragments, which then live across the whole loop (Steel's `Ctile`), with no copy
    into or out of them per iteration."""
    arg = body.args[1 + position]
    layout = lw.plan.of(arg)
    if not isinstance(layout, MMA) or lw.plan.matmul2d or element_of(arg.type) != ir.float32:
        return False
    uses = [op for op in walk_block(body) if any(o is arg for o in op.operands)]
    if len(uses) != 1:
        return False
    dot = uses[0]
    return (dot.opcode == "dot" and any(o is dot for o in body.ops) and len(dot.operands) > 2 and dot.operands[2] is arg
            and not any(o is arg for o in dot.operands[:2]) and body.ops[-1].operands[position] is dot.result
            and lw.plan.of(dot.result) == layout)


def loop_stage(lw: Lowering, loop: LoopFrame, buffers: int = 2) -> Sym:
    """The loop's iteration count mod `buffers`: a counter declared before the loop the first time a
    buffer needs it and wrapped forward at the end of each iteration (Steel's loaders advance the
    same way), so no iteration divides its induction variable by the step and the ring size."""
    if buffers not in loop.stages:
        stage = loop.stages[buffers] = Sym(lw.name(None, "stage"))
        lw.blocks[loop.outer].append(lir.Decl(stage.name, ir.int32, init=lit(0)))
        loop.advance.append(lir.Assign(stage, ring_slot(stage, 1, buffers)))
    return loop.stages[buffers]


def ring_slot(stage: Expr, ahead: int, buffers: int) -> Expr:
    """`(stage + ahead) % buffers` for a ring index `stage` in [0, buffers) and 0 <= ahead < buffers,
    as a select instead of a division."""
    if ahead == 0:
        return stage
    return Select(Bin("<", stage, lit(buffers - ahead)), add(stage, lit(ahead)), Bin("-", stage, lit(buffers - ahead)))


def flipped(coords: list[Expr], axis: int, shape: tuple[int, ...]) -> list[Expr]:
    """The coordinates tl.flip reads for `coords`: `axis` counted from its end."""
    return coords[:axis] + [Bin("-", lit(shape[axis] - 1), coords[axis])] + coords[axis + 1:]


LOG2E = 1.4426950408889634


def exp_of_difference(a: Expr, b: Expr) -> Expr:
    """`exp(a - b)` in float32 as `exp2(fma(a, log2 e, -(b * log2 e)))` (ir_passes/exponentials.py,
    which says when). Infinities give what the subtraction gives; the exponent is off by up to half
    an ulp of b * log2 e (relative error of the result about 2^-24 |b|: 6e-6 at |b| = 100), and
    |b| > 2^127 / log2 e, where b * log2 e overflows, gives 0 or NaN."""
    log2e = Lit(LOG2E, ir.float32)
    return Call("exp2", (Call("fma", (a, log2e, Un("-", Bin("*", b, log2e))), ir.float32),), ir.float32)


SWIZZLE_ALIGN = 1024  # bytes: wgmma's 128-byte swizzle repeats every 8 rows of 128 bytes


def staged_index(shape: tuple[int, ...], pad: int, swizzle: bool) -> Callable[[list[Expr]], Expr]:
    """Where a staged tile keeps element `coords`: rows padded by `pad`, or wgmma's swizzle."""
    if swizzle:
        return lambda coords: swizzled_index(coords, shape)
    return lambda coords: padded_index(coords, shape, pad)


def swizzled_index(coords: list[Expr], shape: tuple[int, ...]) -> Expr:
    """Position of (row, col) in a 2-byte tile stored as wgmma's 128-byte swizzle reads it: the
    columns in blocks of 64 (one 128-byte row each), a block's rows one after another, and in each
    row the 16-byte chunk c (8 elements) stored at chunk c ^ (row % 8), so the 8 rows of a chunk
    column sit in 8 different bank groups without padding (CUTLASS's Swizzle<3,4,3>)."""
    (row, col), rows = coords, shape[0]
    block = mul_(div(col, 64), lit(rows * 64))
    chunk = Bin("^", div(mod(col, 64), 8), mod(row, 8))
    return add(add(add(block, mul_(row, lit(64))), mul_(chunk, lit(8))), mod(col, 8))


def padded_index(coords: list[Expr], shape: tuple[int, ...], pad: int) -> Expr:
    """Row-major position of `coords` when each row of the last dimension holds `pad` more slots."""
    return flat_index(coords, shape[:-1] + (shape[-1] + pad,)) if pad else flat_index(coords, shape)
