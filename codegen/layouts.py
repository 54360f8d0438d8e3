"""How a tile's elements are spread over the threads of a threadgroup (Triton's layouts, simplified).

`Blocked` splits each dimension into elements per thread (`spt`), threads per simdgroup (`tpw`) and
simdgroups per threadgroup (`wpc`), the last dimension fastest; a tile larger than that coverage
wraps (each thread holds several slots), a smaller one is replicated. `Slice(parent, dim)` is a
reduction result: every thread that held a row of the parent holds its reduced value, so
`mean[:, None]` broadcast back over the parent needs no data movement (`Expand`). Values whose
producers are pure index arithmetic are `Remat`: recomputed wherever they are needed. Anything
else that changes shape goes through threadgroup memory (`Shared`).

Coordinates are LIR expressions of the slot index `k` (a loop variable of the per-thread loop),
the lane and the simdgroup index, so renderers never see layout arithmetic.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import mul
from typing import TYPE_CHECKING, Union

from .lir import Bin, Expr, Lit, Special
from ..dsl import ir

if TYPE_CHECKING:
    from .fragments import Fragment

WARP = 32


def prod(xs) -> int:
    return reduce(mul, xs, 1)


def lit(n: int) -> Lit:
    return Lit(int(n), ir.int32)


# Folding constructors keep the generated index arithmetic readable.
def add(a: Expr, b: Expr) -> Expr:
    if isinstance(a, Lit) and a.value == 0:
        return b
    if isinstance(b, Lit) and b.value == 0:
        return a
    if isinstance(a, Lit) and isinstance(b, Lit):
        return lit(a.value + b.value)
    return Bin("+", a, b)


def mul_(a: Expr, b: Expr) -> Expr:
    if isinstance(a, Lit) and isinstance(b, Lit):
        return lit(a.value * b.value)
    for x, y in ((a, b), (b, a)):
        if isinstance(x, Lit) and x.value == 1:
            return y
        if isinstance(x, Lit) and x.value == 0:
            return lit(0)
    return Bin("*", a, b)


def div(a: Expr, n: int) -> Expr:
    if n == 1:
        return a
    if isinstance(a, Lit):
        return lit(a.value // n)
    return Bin("/", a, lit(n))


def mod(a: Expr, n: int) -> Expr:
    if n == 1:
        return lit(0)
    if isinstance(a, Lit):
        return lit(a.value % n)
    return Bin("%", a, lit(n))


def flat_index(coords: list[Expr], shape: tuple[int, ...]) -> Expr:
    """Row-major linear index of `coords` in `shape`."""
    out: Expr = lit(0)
    for d, c in enumerate(coords):
        out = add(out, mul_(c, lit(prod(shape[d + 1:]))))
    return out


def unravel(index: Expr, shape: tuple[int, ...]) -> list[Expr]:
    return [mod(div(index, prod(shape[d + 1:])), shape[d]) for d in range(len(shape))]


@dataclass(frozen=True)
class Blocked:
    shape: tuple[int, ...]
    spt: tuple[int, ...]
    tpw: tuple[int, ...]
    wpc: tuple[int, ...]

    @property
    def cover(self) -> tuple[int, ...]:
        return tuple(s * t * w for s, t, w in zip(self.spt, self.tpw, self.wpc))

    @property
    def local(self) -> tuple[int, ...]:
        """Slots per thread along each dimension."""
        return tuple(s * max(1, n // c) for s, n, c in zip(self.spt, self.shape, self.cover))

    @property
    def row_run(self) -> int:
        """Neighbouring elements of a row a thread holds in consecutive slots, each run starting at
        a column that is a multiple of it (one vector access moves a run)."""
        return self.spt[-1]

    @property
    def slots(self) -> int:
        return prod(self.local)

    def local_index(self, k: Expr, d: int) -> Expr:
        # k < slots, so the slowest dimension with several slots needs no modulo
        j = div(k, prod(self.local[d + 1:]))
        return j if prod(self.local[:d]) == 1 else mod(j, self.local[d])

    def slot_of(self, local: list[Expr]) -> Expr:
        """The slot at these local indices (the inverse of local_index): row-major."""
        out: Expr = lit(0)
        for d, j in enumerate(local):
            out = add(out, mul_(j, lit(prod(self.local[d + 1:]))))
        return out

    def lane_coord(self, d: int) -> Expr:
        j = div(Special("lane"), prod(self.tpw[d + 1:]))
        return j if prod(self.tpw[:d]) == 1 else mod(j, self.tpw[d])

    def warp_coord(self, d: int) -> Expr:
        j = div(Special("warp"), prod(self.wpc[d + 1:]))
        return j if prod(self.wpc[:d]) == 1 else mod(j, self.wpc[d])

    def raw_coord(self, k: Expr, d: int) -> Expr:
        j = self.local_index(k, d)
        thread = add(mul_(self.warp_coord(d), lit(self.tpw[d])), self.lane_coord(d))
        if self.local[d] == self.spt[d]:  # j < spt: no repetition along d
            return add(mul_(thread, lit(self.spt[d])), j)
        return add(add(mul_(div(j, self.spt[d]), lit(self.cover[d])), mul_(thread, lit(self.spt[d]))),
                   mod(j, self.spt[d]))

    def thread_origin(self) -> list[Expr]:
        """This thread's coordinates of slot 0; with `slot_offsets`, coords(k) = their sum when no
        dimension wraps (`wraps`)."""
        return [mul_(add(mul_(self.warp_coord(d), lit(self.tpw[d])), self.lane_coord(d)), lit(self.spt[d]))
                for d in range(len(self.shape))]

    def slot_offsets(self, k: Expr) -> list[Expr]:
        """Slot k's coordinates relative to the thread's slot 0: the same on every thread (constants
        once an unrolled slot loop fixes k)."""
        out = []
        for d in range(len(self.shape)):
            j = self.local_index(k, d)
            out.append(j if self.local[d] == self.spt[d] else
                       add(mul_(div(j, self.spt[d]), lit(self.cover[d])), mod(j, self.spt[d])))
        return out

    @property
    def wraps(self) -> bool:
        """Whether the threads cover more than the tile along some dimension (coordinates taken mod
        its size, replicas), so that coordinates are not thread origin + slot offset."""
        return any(c > n for c, n in zip(self.cover, self.shape))

    def coords(self, k: Expr) -> list[Expr]:
        out = []
        for d in range(len(self.shape)):
            c = self.raw_coord(k, d)
            out.append(mod(c, self.shape[d]) if self.cover[d] > self.shape[d] else c)
        return out

    def owner(self, k: Expr) -> Expr | None:
        """True on exactly one of the threads holding slot k's element (replicas excluded)."""
        conds = [Bin("<", self.raw_coord(k, d), lit(n)) for d, n in enumerate(self.shape) if self.cover[d] > n]
        return reduce(lambda a, b: Bin("&&", a, b), conds) if conds else None

    def distinct_lanes(self, d: int) -> int:
        return max(1, min(self.tpw[d], self.shape[d] // self.spt[d]))

    def lane_xors(self, d: int) -> list[int]:
        """xor offsets from a lane to the lanes holding other elements along d (of its rows when d
        is 1): a reduction along d shuffles across them."""
        stride = prod(self.tpw[d + 1:])
        return [stride << i for i in range(self.distinct_lanes(d).bit_length() - 1)]

    def distinct_warps(self, d: int) -> int:
        return max(1, min(self.wpc[d], self.shape[d] // (self.spt[d] * self.tpw[d])))

    def thread_local(self, d: int) -> bool:
        """Whether each thread holds dimension d whole (no lanes or simdgroups along it)."""
        return self.tpw[d] == 1 and self.wpc[d] == 1

    def with_axis(self, axis: int) -> "Blocked":
        """The same registers seen with a size-1 dimension inserted at `axis` (`x[:, None]`)."""
        ins = lambda t, v: t[:axis] + (v,) + t[axis:]  # noqa: E731
        return Blocked(ins(self.shape, 1), ins(self.spt, 1), ins(self.tpw, 1), ins(self.wpc, 1))

    def without_axis(self, axis: int) -> "Blocked":
        """The layout with dimension `axis` dropped (a thread-local one: the same registers)."""
        drop = lambda t: t[:axis] + t[axis + 1:]  # noqa: E731
        return Blocked(drop(self.shape), drop(self.spt), drop(self.tpw), drop(self.wpc))

    def reshaped(self, shape: tuple[int, ...]) -> "Blocked":
        """The same spread of threads over a tile of `shape` that differs in size-1 dimensions: a
        broadcast of this tile (each thread holds, along a broadcast dimension, the elements its
        coordinates cover) or, from a broadcast result, the source that broadcast reads in place.
        A thread-local dimension stays one run of the thread's (so loads along it stay vectors)."""
        spt = tuple(n if self.thread_local(d) and n != m else s
                    for d, (s, n, m) in enumerate(zip(self.spt, shape, self.shape)))
        return Blocked(tuple(shape), spt, self.tpw, self.wpc)


def merged_last_axes(layout: "Blocked", shape: tuple[int, ...]) -> "Blocked | None":
    """`layout` seen as a tile of `shape`, its last two axes merged (a row-major reshape), when
    each thread holds the last axis whole: the same registers in the same order (nibbles unpacked
    along a third axis, seen as the weight row they are). None when that is not the case."""
    if (len(layout.shape) < 2 or tuple(shape) != layout.shape[:-2] + (layout.shape[-2] * layout.shape[-1],)
            or not layout.thread_local(len(layout.shape) - 1) or layout.spt[-1] != layout.shape[-1]):
        return None
    n = layout.shape[-1]
    return Blocked(tuple(shape), layout.spt[:-2] + (layout.spt[-2] * n,), layout.tpw[:-1], layout.wpc[:-1])


def same_registers(a: object, b: object) -> bool:
    """Whether two register layouts put every element in the same thread and slot: equal, or a
    reduction's slice along a dimension each thread held whole against the parent without it."""
    return a == b or canonical(a) == canonical(b)


def canonical(layout: object) -> object:
    """A Slice of a Blocked along a thread-local dimension as the Blocked tile it is."""
    if isinstance(layout, Slice) and isinstance(layout.parent, Blocked) and layout.parent.thread_local(layout.dim):
        return layout.parent.without_axis(layout.dim)
    return layout


@dataclass(frozen=True)
class Slice:
    """The parent's layout with dimension `dim` reduced away (replicated along it). The parent is
    a Blocked or an MMA layout (both give their slots' local indices and the inverse)."""

    parent: "Blocked | MMA"
    dim: int

    @property
    def shape(self) -> tuple[int, ...]:
        return self.parent.shape[:self.dim] + self.parent.shape[self.dim + 1:]

    @property
    def local(self) -> tuple[int, ...]:
        return self.parent.local[:self.dim] + self.parent.local[self.dim + 1:]

    @property
    def slots(self) -> int:
        return prod(self.local)

    def _kept_dims(self):
        """(parent dimension, this layout's dimension) for every dimension but the reduced one."""
        return [(d, d if d < self.dim else d - 1) for d in range(len(self.parent.shape)) if d != self.dim]

    def parent_slot(self, k: Expr, along: Expr | None = None) -> Expr:
        """The parent slot with the same coordinates and local index `along` (default 0) along `dim`."""
        local = [along if along is not None else lit(0)] * len(self.parent.shape)
        for d, sd in self._kept_dims():
            local[d] = mod(div(k, prod(self.local[sd + 1:])), self.local[sd])
        return self.parent.slot_of(local)

    def slot_of_parent(self, k: Expr, layout: "Blocked | MMA | None" = None) -> Expr:
        """This layout's slot holding the reduction of the line through slot k of the parent (or
        of `layout`, one that `reads_onto` accepts)."""
        layout = layout or self.parent
        out: Expr = lit(0)
        for d, sd in self._kept_dims():
            out = add(out, mul_(layout.local_index(k, d), lit(prod(self.local[sd + 1:]))))
        return out

    def reads_onto(self, layout: object) -> bool:
        """Whether each slot of a `layout` tile finds this slice's value for its line among the
        thread's own slots: the parent, or another tl.dot result whose simdgroups and fragments
        place the kept dimension's lines on the same threads (flash attention's row statistics
        of the scores, applied to the output accumulator)."""
        p = self.parent
        if layout == p:
            return True
        return (isinstance(p, MMA) and isinstance(layout, MMA)
                and (layout.fragment, layout.num_warps, layout.warps) == (p.fragment, p.num_warps, p.warps)
                and all(layout.shape[d] == p.shape[d] for d, _ in self._kept_dims()))

    def coords(self, k: Expr) -> list[Expr]:
        c = self.parent.coords(self.parent_slot(k))
        return c[:self.dim] + c[self.dim + 1:]

    def owner(self, k: Expr) -> Expr | None:
        p = self.parent
        conds = [Bin("==", p.lane_coord(self.dim), lit(0)), Bin("==", p.warp_coord(self.dim), lit(0))]
        conds = [c for c in conds if not (isinstance(c.a, Lit))]
        base = p.owner(self.parent_slot(k))
        if base is not None:
            conds.append(base)
        return reduce(lambda a, b: Bin("&&", a, b), conds) if conds else None


@dataclass(frozen=True)
class Expand:
    """A Slice seen with its reduced dimension back as size 1 (`mean[:, None]`): same registers."""

    slice: Slice

    @property
    def shape(self) -> tuple[int, ...]:
        s = self.slice
        return s.shape[:s.dim] + (1,) + s.shape[s.dim:]

    @property
    def slots(self) -> int:
        return self.slice.slots

    def coords(self, k: Expr) -> list[Expr]:
        c = self.slice.coords(k)
        return c[:self.slice.dim] + [lit(0)] + c[self.slice.dim:]

    def owner(self, k: Expr) -> Expr | None:
        return self.slice.owner(k)


@dataclass(frozen=True)
class MMA:
    """A `tl.dot` result, spread as the target's matrix instruction spreads its accumulator
    (`fragment`, codegen/fragments.py: Metal's 8x8 simdgroup matrices, NVIDIA's m16n8k16 tiles).
    The simdgroups form a `warps` = (wm, wn) grid; simdgroup (wi, wj) owns fragments
    (i * wm + wi, j * wn + wj), interleaved as in MLX's Steel kernels, so neighbouring simdgroups
    read neighbouring operand rows. Simdgroups beyond wm * wn hold replicas. Slot k is accumulator
    element k % c of fragment k // c (c elements per lane), fragments row-major over (i, j)."""

    shape: tuple[int, int]
    warps: tuple[int, int]
    num_warps: int
    fragment: Fragment

    @property
    def fragments(self) -> tuple[int, int]:
        """Fragments per simdgroup along M and N."""
        return (self.shape[0] // (self.fragment.rows * self.warps[0]),
                self.shape[1] // (self.fragment.cols * self.warps[1]))

    @property
    def per_lane(self) -> int:
        return self.fragment.per_lane[2]

    @property
    def slots(self) -> int:
        return prod(self.fragments) * self.per_lane

    def warp_coord(self, d: int) -> Expr:
        wm, wn = self.warps
        warp = Special("warp")
        return mod(div(warp, wn), wm) if d == 0 else mod(warp, wn)

    def fragment_origin(self, i: Expr, d: int) -> Expr:
        """First row (d=0) or column (d=1) of this simdgroup's fragment number `i` along d."""
        size = self.fragment.rows if d == 0 else self.fragment.cols
        return mul_(add(mul_(i, lit(self.warps[d])), self.warp_coord(d)), lit(size))

    def coords(self, k: Expr) -> list[Expr]:
        fn, c = self.fragments[1], self.per_lane
        f = div(k, c)
        i, j = div(f, fn), mod(f, fn)
        row, col = self.fragment.coord("c", mod(k, c))
        return [add(self.fragment_origin(i, 0), row), add(self.fragment_origin(j, 1), col)]

    def owner(self, k: Expr) -> Expr | None:
        used = self.warps[0] * self.warps[1]
        return Bin("<", Special("warp"), lit(used)) if used < self.num_warps else None

    # What a reduction of this layout along one dimension needs (a Slice of it). A lane holds an
    # R x C grid of elements of each fragment (fragment.c_grid), so along the rows it holds R
    # elements of each of its fm fragment rows, along the columns C of each of its fn.
    @property
    def local(self) -> tuple[int, int]:
        """This thread's slots along each dimension."""
        (fm, fn), (rows, cols) = self.fragments, self.fragment.c_grid
        return (fm * rows, fn * cols)

    @property
    def row_run(self) -> int:
        """As `Blocked.row_run`: a lane's elements of one fragment row are neighbours (c_grid)."""
        return self.fragment.c_grid[1]

    def local_index(self, k: Expr, d: int) -> Expr:
        """Slot k's index among this thread's slots along d (slot k: element k % c of fragment
        k // c, fragments row-major)."""
        (_, fn), (rows, cols), c = self.fragments, self.fragment.c_grid, self.per_lane
        fragment, element = div(k, c), mod(k, c)
        if d == 0:
            return add(mul_(div(fragment, fn), lit(rows)), div(element, cols))
        return add(mul_(mod(fragment, fn), lit(cols)), mod(element, cols))

    def slot_of(self, local: list[Expr]) -> Expr:
        """The slot at these local indices (the inverse of local_index)."""
        (_, fn), (rows, cols), c = self.fragments, self.fragment.c_grid, self.per_lane
        fragment = add(mul_(div(local[0], rows), lit(fn)), div(local[1], cols))
        return add(add(mul_(fragment, lit(c)), mul_(mod(local[0], rows), lit(cols))), mod(local[1], cols))

    def lane_xors(self, d: int) -> tuple[int, ...]:
        return self.fragment.row_lanes if d == 1 else self.fragment.column_lanes

    def lane_coord(self, d: int) -> Expr:
        """This lane's place among the lanes holding other elements along d (0 for one of them)."""
        lane, out = Special("lane"), lit(0)
        for i, offset in enumerate(self.lane_xors(d)):
            out = add(out, mul_(mod(div(lane, offset), 2), lit(1 << i)))
        return out

    def distinct_warps(self, d: int) -> int:
        return self.warps[d]


def mma_layout(shape: tuple[int, ...], num_warps: int, fragment: Fragment, warps_m: int | None = None,
               rows_first: bool = False) -> MMA:
    """Spread the simdgroups over a dot result's fragments: `warps_m` along the rows and the rest
    along the columns when given (a tuned choice; simdgroups beyond the fragments hold replicas),
    else, with `rows_first` (a kernel that reduces dot results along their rows, as attention's
    softmax does), as many along the rows as there are fragment rows, so each simdgroup holds whole
    rows and no partial crosses simdgroups (Triton's attention layout), else splitting the longer
    side first."""
    fm, fn = shape[0] // fragment.rows, shape[1] // fragment.cols
    if warps_m is None and rows_first:
        warps_m = 1 << (min(num_warps, fm).bit_length() - 1)
    if warps_m is not None:
        wm = min(warps_m, fm)
        return MMA((shape[0], shape[1]), (wm, min(num_warps // warps_m, fn)), num_warps, fragment)
    wm = wn = 1
    while wm * wn < num_warps:
        if fm // wm >= fn // wn and wm < fm:
            wm *= 2
        elif wn < fn:
            wn *= 2
        elif wm < fm:
            wm *= 2
        else:
            break
    return MMA((shape[0], shape[1]), (wm, wn), num_warps, fragment)


@dataclass(frozen=True)
class Scalar:
    """A rank-0 value: the same in every thread."""


@dataclass(frozen=True)
class Remat:
    """A pure function of program ids, scalars and coordinates: computed wherever it is read."""


@dataclass(frozen=True)
class Shared:
    """Stored row-major in threadgroup memory; readable at any coordinates."""

    shape: tuple[int, ...]


Layout = Union[Blocked, Slice, Expand, MMA, Scalar, Remat, Shared]
Registers = (Blocked, Slice, Expand, MMA)  # layouts held in per-thread register arrays


def default_blocked(shape: tuple[int, ...], num_warps: int, vec: int = 1) -> Blocked:
    """Triton-style default, lanes filling dimensions from the last, simdgroups from the first,
    leftovers replicating; `vec` neighbouring elements per thread along the last dimension where
    every load and store of such tiles can move that many at once (ir_passes/axis_info.py), else one,
    so that consecutive lanes touch consecutive addresses: coalesced either way."""
    rank = len(shape)
    vec = max(1, min(vec, prod(shape) // (WARP * num_warps)))  # every thread busy before any holds a run
    spt = [1] * (rank - 1) + [vec]
    tpw, rem = [1] * rank, WARP
    for d in reversed(range(rank)):
        tpw[d] = min(rem, max(1, shape[d] // spt[d]))
        rem //= tpw[d]
    tpw[-1] *= rem
    wpc, rem = [1] * rank, num_warps
    for d in range(rank):
        wpc[d] = min(rem, max(1, shape[d] // (spt[d] * tpw[d])))
        rem //= wpc[d]
    wpc[0] *= rem
    return Blocked(tuple(shape), tuple(spt), tuple(tpw), tuple(wpc))


def slot_count(layout: Layout) -> int:
    return layout.slots if isinstance(layout, Registers) else 1
