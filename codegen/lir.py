"""Thread-level IR: what one GPU thread executes, independent of the target language.

The lowering pass turns the tile IR (whole tiles, structured control flow) into these statements
and expressions over per-thread registers, threadgroup arrays and device pointers. Renderers only
spell them (MSL, CUDA); they make no decisions.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Callable, Iterator, Union

from ..dsl.ir import PointerType, ScalarType, int32



@dataclass(frozen=True)
class FragmentType:
    """This lane's share of one operand (`role` a, b or c) of a matrix instruction (`fragment`, a
    name from codegen/fragments.py), of `element`s."""

    element: ScalarType
    fragment: str
    role: str


CType = Union[ScalarType, PointerType, FragmentType]


# ---- expressions ---------------------------------------------------------------------------------
class Expr:
    __slots__ = ()


@dataclass(frozen=True)
class Sym(Expr):
    name: str


@dataclass(frozen=True)
class Lit(Expr):
    value: Any
    type: ScalarType


@dataclass(frozen=True)
class Special(Expr):
    """A hardware index: tid (thread in threadgroup), lane, warp, pid0..2, nprog0..2."""

    name: str


@dataclass(frozen=True)
class Bin(Expr):
    op: str  # C operator: + - * / % & | ^ << >> < <= > >= == != && ||
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Un(Expr):
    op: str  # - ! ~
    a: Expr


@dataclass(frozen=True)
class Call(Expr):
    """A math or helper function by its generic name (exp, sqrt, min, fma...); the renderer spells it."""

    fn: str
    args: tuple[Expr, ...]
    type: ScalarType | None = None  # the element type it computes in, where the spelling depends on it


@dataclass(frozen=True)
class Cast(Expr):
    type: CType
    a: Expr


@dataclass(frozen=True)
class Bitcast(Expr):
    type: ScalarType
    a: Expr


@dataclass(frozen=True)
class Select(Expr):
    cond: Expr
    a: Expr  # when true
    b: Expr


@dataclass(frozen=True)
class Index(Expr):
    base: Expr
    index: Expr


@dataclass(frozen=True)
class Shuffle(Expr):
    """The value `a` of the lane `lane ^ offset` (xor) or `lane + offset` (down) of this simdgroup."""

    kind: str  # xor | down | up | broadcast
    a: Expr
    offset: Expr
    type: CType


@dataclass(frozen=True)
class Atomic(Expr):
    """Atomic read-modify-write at `ptr`; yields the old value."""

    kind: str  # add max min xchg cas
    ptr: Expr
    value: Expr
    type: ScalarType
    compare: Expr | None = None


def words_name(output: str) -> str:
    """The name a 16-bit output of a kernel with atomics is declared under as 32-bit words (WordCell)."""
    return f"{output}_words"


@dataclass(frozen=True)
class WordCell(Expr):
    """Where a 16-bit element of an output declared as 32-bit words lives (Metal has no 16-bit
    atomics, so a kernel with atomics gets such outputs as `atomic<uint>`): element `index` of the
    output's `words`. Atomics, loads and stores take it in place of a pointer."""

    words: Expr
    index: Expr
    type: ScalarType


@dataclass(frozen=True)
class Tensor(Expr):
    """A 2-D tensor object over memory (Metal 4's `tensor`): `data` points at its element (0, 0);
    `extents` and `strides` are listed innermost first, as Metal does."""

    data: Expr
    element: ScalarType
    space: str  # device | threadgroup
    extents: tuple[int, int]
    strides: tuple[int, int]


@dataclass(frozen=True)
class FragmentElement(Expr):
    """This lane's element `index` (a literal, or an expression an unrolled loop makes constant)
    of a fragment variable."""

    fragment: Expr
    index: int | Expr


# ---- statements ----------------------------------------------------------------------------------
class Stmt:
    __slots__ = ()


@dataclass
class Comment(Stmt):
    text: str


@dataclass
class Decl(Stmt):
    """A variable: a scalar, a per-thread register array (`size`), or a threadgroup array."""

    name: str
    type: CType
    size: int | None = None
    init: Expr | None = None
    space: str = "thread"  # thread | threadgroup
    stages: int = 1  # threadgroup arrays: buffers a loop alternates between (its writes need no barrier before)
    like: str | None = None  # pointers: the kernel argument whose pointer type (address space) it has
    offset: int = 0  # threadgroup arrays: the byte where it starts in the kernel's threadgroup memory
    align: int = 16  # threadgroup arrays: ... a multiple of this (1024: wgmma's swizzled operand tiles)

    @property
    def end(self) -> int:
        """Threadgroup arrays: the byte after its last, in the kernel's threadgroup memory."""
        return self.offset + max(1, self.type.bits // 8) * (self.size or 1)


@dataclass
class Assign(Stmt):
    target: Expr
    value: Expr


@dataclass
class Store(Stmt):
    """`*ptr = value` on device memory (atomically when the buffer is atomic)."""

    ptr: Expr
    value: Expr
    atomic: bool = False


@dataclass
class VectorLoad(Stmt):
    """`targets[i] = ptr[i]`: neighbouring elements of device (or threadgroup) memory in one access;
    with a `mask`, `targets[i] = mask ? ptr[i] : others[i]` (the whole vector is either read or not,
    so the merge happens on whole registers, as a predicated load does, not element by element)."""

    targets: list[Expr]
    ptr: Expr
    type: ScalarType
    aligned: bool = False  # known aligned to the vector's size (lir_passes/aligned_vectors.py)
    mask: Expr | None = None
    others: list[Expr] | None = None
    space: str = "device"


@dataclass
class VectorStore(Stmt):
    """`ptr[i] = values[i]`: neighbouring elements of device (or threadgroup) memory in one access."""

    ptr: Expr
    values: list[Expr]
    type: ScalarType
    space: str = "device"
    aligned: bool = False


@dataclass
class AsyncCopy(Stmt):
    """`dst[i] = src[i]` for `count` neighbouring elements, from device to threadgroup memory without
    passing through registers (CUDA's cp.async); with a `mask`, zeros where it is false (nothing is
    read). The copy lands at a later `AsyncWait`; a barrier after that makes it visible to all.
    The destination is `dst + offset` elements: a base shared by a tile's copies and a constant after
    unrolling, which the compiler folds into the instruction (as `MatrixLoad` does)."""

    dst: Expr
    src: Expr
    type: ScalarType
    count: int
    mask: Expr | None = None
    aligned: bool = False  # known aligned to the copy's size (lir_passes/aligned_vectors.py)
    offset: Expr = field(default_factory=lambda: Lit(0, int32))


@dataclass
class AsyncCommit(Stmt):
    """The copies this thread issued since the last commit form a group (waited for together)."""


@dataclass
class AsyncWait(Stmt):
    """Wait until at most `pending` of this thread's committed groups of copies are in flight."""

    pending: int = 0


@dataclass
class MatrixLoad(Stmt):
    """Fill `fragment` from threadgroup memory in one instruction (fragments.LaneAddress): each lane
    passes `address + offset` (elements), its row of `count` 8x8 matrices, read `transpose`d or not;
    with `pair`, the second half of the matrices fills that fragment (two neighbouring fragments in
    one load). `address` is the same for every load of a K step, and `offset` a constant after
    unrolling: the shared-memory address is converted once and the offset folds into the instruction."""

    fragment: Expr
    address: Expr
    offset: Expr
    count: int
    transpose: bool
    pair: Expr | None = None


@dataclass
class If(Stmt):
    cond: Expr
    then: list[Stmt] = field(default_factory=list)
    orelse: list[Stmt] = field(default_factory=list)


@dataclass
class For(Stmt):
    """`for (type var = start; cond; var += step)`."""

    var: str
    start: Expr
    cond: Expr
    step: Expr
    body: list[Stmt] = field(default_factory=list)
    unroll: bool = False  # per-thread slot loops: constant trip count, unrolled
    rolled: bool = False  # never unrolled: the register arrays it indexes live in thread memory
    batch: bool = False  # its loads issue together, before any use: fused with no other loop (fuse_loops.py)
    type: ScalarType | None = None

    def literal_bounds(self) -> tuple[int, int | None, int] | None:
        """(start, end, step) of `for (v = start; v < end; v += step)` with a literal start and a
        positive literal step (end None where it is known only at run time), else None."""
        c = self.cond
        if (isinstance(self.start, Lit) and isinstance(self.step, Lit) and int(self.step.value) > 0
                and isinstance(c, Bin) and c.op == "<" and c.a == Sym(self.var)):
            return int(self.start.value), int(c.b.value) if isinstance(c.b, Lit) else None, int(self.step.value)
        return None


@dataclass
class Loop(Stmt):
    """`while (true) { head; if (!cond) break; body }`: the tile IR's while, with its before-region."""

    head: list[Stmt]
    cond: Expr
    body: list[Stmt] = field(default_factory=list)


@dataclass
class SinCos(Stmt):
    """`sin = sin(value); cos = cos(value)` with one range reduction (float32)."""

    value: Expr
    sin: Expr
    cos: Expr


@dataclass
class MultiplyAccumulate(Stmt):
    """`c = a @ b + c` on fragments, a collective of the simdgroup (all 32 lanes take part)."""

    c: Expr
    a: Expr
    b: Expr
    fragment: str


@dataclass
class TensorMatmul(Stmt):
    """`dest = a @ b` ([m, k] @ [k, n], products accumulated in float) by Metal 4's cooperative
    `matmul2d`, a collective of all `simdgroups` simdgroups; `transpose_a`/`transpose_b`: the tensor
    holds that operand's transpose."""

    dest: Tensor
    a: Tensor
    b: Tensor
    m: int
    n: int
    k: int
    transpose_a: bool
    transpose_b: bool
    simdgroups: int


@dataclass
class Return(Stmt):
    """The thread leaves the kernel (an early `return`; uniform across the threadgroup)."""


@dataclass
class Barrier(Stmt):
    """A threadgroup barrier; `device` also orders device-memory accesses (a store by one thread,
    then a load of that location by another)."""
    device: bool = False


@dataclass
class ProxyFence(Stmt):
    """Orders this thread's writes to threadgroup memory before reads by the asynchronous proxy
    (Hopper's wgmma reads its operands there); a barrier after it publishes them to all threads."""


@dataclass
class WarpgroupFence(Stmt):
    """Orders earlier register writes (the accumulators) before the warpgroup products that follow."""


@dataclass
class WarpgroupMMA(Stmt):
    """`acc[first .. first + n/8) += A @ B` on one 64-row slice: Hopper's asynchronous
    wgmma.m64n{n}k16, a collective of the four warps of a warpgroup. `a` and `b` are shared-memory
    matrix descriptors (`Call("wgmma_desc", ...)`); `acc` the accumulator fragments (m16n8 C layout,
    which is wgmma's per warp); `transpose_b`: B's rows are its N axis (stored K x N)."""
    acc: Expr
    first: int
    n: int
    a: Expr
    b: Expr
    element: ScalarType
    transpose_b: bool


@dataclass
class WarpgroupCommit(Stmt):
    """Closes the group of warpgroup products issued since the last commit."""


@dataclass
class WarpgroupWait(Stmt):
    """Waits until at most `pending` groups of warpgroup products are still running; then, where
    given, holds accumulator fragments `fragments[0..count)` as rewritten by the wait, so that no
    read of them moves above it (CUTLASS's `warpgroup_fence_operand`: else NVVM may read a running
    product's registers, and ptxas then serialises every wgmma of the kernel)."""
    pending: int
    fragments: Expr | None = None
    count: int = 0


@dataclass
class Kernel:
    """A lowered kernel: buffers in MLX's order, the body, and launch facts."""

    name: str
    inputs: list[tuple[str, CType]]      # pointer or scalar arguments, in order
    outputs: list[tuple[str, ScalarType]]
    body: list[Stmt]
    threads: int
    atomic_outputs: bool = False
    prints: list[tuple] = field(default_factory=list)  # device_print sites, decoded by the launcher
    word_outputs: list[str] = field(default_factory=list)  # 16-bit outputs declared as 32-bit words


def symbols(node: object) -> set[str]:
    """Every symbol an expression or statement (or a list of them) mentions, nested blocks included."""
    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Sym):
            found.add(n.name)
        elif isinstance(n, (list, tuple)):
            stack.extend(n)
        elif isinstance(n, (Expr, Stmt)):
            stack.extend(getattr(n, name) for name in node_fields(type(n)))
    return found


_FIELDS: dict[type, tuple[str, ...]] = {}


def node_fields(cls: type) -> tuple[str, ...]:
    """The field names of an LIR node class (cached: the walk is hot)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls)) if is_dataclass(cls) else ()
    return names


def rewrite(stmts: list[Stmt], replace: Callable[[Stmt], list[Stmt] | None]) -> list[Stmt]:
    """`stmts` with each statement for which `replace` returns a list swapped for that list; the
    others are kept, with their nested blocks rewritten the same way (in place)."""
    out: list[Stmt] = []
    for s in stmts:
        replacement = replace(s)
        if replacement is not None:
            out.extend(replacement)
            continue
        if isinstance(s, If):
            s.then, s.orelse = rewrite(s.then, replace), rewrite(s.orelse, replace)
        elif isinstance(s, For):
            s.body = rewrite(s.body, replace)
        elif isinstance(s, Loop):
            s.head, s.body = rewrite(s.head, replace), rewrite(s.body, replace)
        out.append(s)
    return out


def pointer_origins(kernel: Kernel) -> Callable[[Expr], set[str]]:
    """For an address expression, the kernel's pointer arguments it is computed from (through the
    variables that hold pointers into them)."""
    pointers = {name for name, t in kernel.inputs if isinstance(t, PointerType)} | {n for n, _ in kernel.outputs}
    sources: dict[str, set[str]] = {}  # variable -> the symbols its values are computed from
    for s in walk(kernel.body):
        if isinstance(s, Decl) and s.init is not None:
            sources.setdefault(s.name, set()).update(symbols(s.init))
        elif isinstance(s, Assign) and isinstance(s.target, Sym):
            sources.setdefault(s.target.name, set()).update(symbols(s.value))

    def origins(address: Expr) -> set[str]:
        seen, todo = set(), list(symbols(address))
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(sources.get(name, ()))
        return seen & pointers
    return origins


def walk(stmts: list[Stmt]) -> Iterator[Stmt]:
    """Every statement, nested blocks included, in program order."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from walk(s.then + s.orelse)
        elif isinstance(s, For):
            yield from walk(s.body)
        elif isinstance(s, Loop):
            yield from walk(s.head + s.body)
