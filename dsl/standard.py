"""Triton's `tl` functions that are plain index arithmetic over other `tl` operations, written as
@jit helpers (inlined where a kernel calls them, as Triton's standard library is), so they need
no IR operation or lowering of their own. Exported through `metalforge.language`."""
from __future__ import annotations

from . import language as tl
from .frontend import jit


@jit
def swizzle2d(i, j, size_i, size_j, size_g):
    """Triton's swizzle2d: the row-major index (i, j) of a size_i x size_j grid, renumbered column-major
    within each group of size_g rows (the last group may have fewer), for grouped program orderings
    that keep tiles of one operand in cache."""
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    size_g = tl.minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    new_i = off_i + ij % size_g
    new_j = ij // size_g
    return new_i, new_j
