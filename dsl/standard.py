"""Triton's `tl` functions that are plain arithmetic over other `tl` operations, written as @library_helper
helpers (inlined where a kernel calls them, as Triton's standard library is), so they need no IR
operation or lowering of their own: swizzle2d, and Triton's random.py over `tl.philox` (the one
random builtin), written as Triton writes them so that the numbers are Triton's bit for bit.
Exported through `metalforge.language`."""
from __future__ import annotations

from . import language as tl
from .frontend import library_helper


@library_helper
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


N_ROUNDS_DEFAULT = 10  # Triton's default number of Philox rounds


@library_helper
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for an int seed and a block of integer offsets (Philox's counter is
    the offset's low and high words, then two zeros)."""
    offset_lo = offset.to(tl.uint32)
    _0 = offset_lo * 0
    if tl.constexpr(offset.dtype.primitive_bitwidth) > 32:
        offset_hi = (offset >> 32).to(tl.uint32)
    else:
        offset_hi = _0
    return tl.philox(seed, offset_lo, offset_hi, _0, _0, n_rounds)


@library_helper
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One block of random uint32: the first of randint4x's."""
    ret, _, _, _ = randint4x(seed, offset, n_rounds)
    return ret


@library_helper
def uint_to_uniform_float(x):
    """A random 32- or 64-bit integer to a float32 uniform in [0, 1): x (as signed) folded onto the
    non-negative values, times the largest scale with MAX_INT * scale < 1 in float32."""
    if tl.constexpr(x.dtype == tl.uint32) or tl.constexpr(x.dtype == tl.int32):
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10
    else:
        tl.static_assert(tl.constexpr(x.dtype == tl.uint64) or tl.constexpr(x.dtype == tl.int64),
                         "uint_to_uniform_float takes 32- or 64-bit integers")
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = tl.where(x < 0, ~x, x)  # Triton's -x - 1: the same bits, without a signed overflow at the minimum
    return x * scale


@library_helper
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A block of float32 uniform in [0, 1)."""
    source = randint(seed, offset, n_rounds)
    return uint_to_uniform_float(source)


@library_helper
def rand4x(seed, offsets, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of float32 uniform in [0, 1)."""
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    u1 = uint_to_uniform_float(i1)
    u2 = uint_to_uniform_float(i2)
    u3 = uint_to_uniform_float(i3)
    u4 = uint_to_uniform_float(i4)
    return u1, u2, u3, u4


@library_helper
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniforms to two standard normals."""
    u1 = tl.maximum(1.0e-7, u1)
    th = 6.283185307179586 * u2
    r = tl.sqrt(-2.0 * tl.log(u1))
    return r * tl.cos(th), r * tl.sin(th)


@library_helper
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A block of float32 standard normals (Box-Muller on randint4x's first two words)."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    u1 = uint_to_uniform_float(i1)
    u2 = uint_to_uniform_float(i2)
    n1, _ = pair_uniform_to_normal(u1, u2)
    return n1


@library_helper
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of float32 standard normals."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4


@library_helper
def _xor_combine(a, b):
    return a ^ b


@library_helper
def xor_sum(input, axis=None, keep_dims=False):
    """Triton's xor_sum: the bitwise xor of the elements along `axis` (all of them for None), integers only."""
    tl.static_assert(tl.constexpr(input.dtype.is_int), "xor_sum takes integer tiles")
    return tl.reduce(input, axis, _xor_combine, keep_dims=keep_dims)


@library_helper
def _or_combine(a, b):
    return a | b


@library_helper
def reduce_or(input, axis, keep_dims=False):
    """Triton's reduce_or: the bitwise or of the elements along `axis`, integers only."""
    tl.static_assert(tl.constexpr(input.dtype.is_int), "reduce_or takes integer tiles")
    return tl.reduce(input, axis, _or_combine, keep_dims=keep_dims)
