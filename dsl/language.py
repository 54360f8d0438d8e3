"""The `tl` surface: Triton's names, so kernel bodies written for Triton run after swapping imports.

The builtins here are markers, not implementations. The front end reads a kernel's AST and
recognises each builtin by identity (`Builtin` instances), taking its parameter names and defaults
from the stub's signature; calling one directly from Python is a mistake and says so.
"""
from __future__ import annotations

import enum
import inspect
import types
from typing import Any, Callable, Generic, TypeVar

from ..errors import MetalforgeError
from .ir import (BlockType as block_type, PointerType as pointer_type, ScalarType as dtype, Value as tensor,
                 bfloat16, float16, float32, float64, int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64)

T = TypeVar("T")


class constexpr(Generic[T]):
    """Marks a compile-time value: as an annotation (`BLOCK: tl.constexpr`) it makes the parameter a
    specialisation key; as a wrapper (`tl.constexpr(4)`) it is folded like any Python constant."""

    def __init__(self, value: T) -> None:
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr({self.value!r})"


class Builtin:
    """A `tl` function the front end lowers itself; `signature` binds the user's arguments."""

    def __init__(self, stub: Callable[..., Any]) -> None:
        self.name = stub.__name__
        self.signature = inspect.signature(stub)
        self.__doc__ = stub.__doc__
        self.__name__ = self.name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise MetalforgeError(f"tl.{self.name} can only be used inside a @metalforge.jit kernel body; "
                              "launch the kernel with kernel[grid](...) instead of calling tl functions directly")

    def __repr__(self) -> str:
        return f"<tl.{self.name}>"


builtin = Builtin


# --- programming model -----------------------------------------------------------------------
@builtin
def program_id(axis): """Index of this program (threadgroup) along grid axis 0, 1 or 2."""
@builtin
def num_programs(axis): """Number of programs along grid axis 0, 1 or 2."""
@builtin
def cdiv(x, div): """Ceiling division, (x + div - 1) // div."""
# --- tile creation and shape -----------------------------------------------------------------
@builtin
def arange(start, end): """int32 tile [start, end); bounds constexpr, size a power of two."""
@builtin
def zeros(shape, dtype): """Tile of zeros."""
@builtin
def full(shape, value, dtype): """Tile filled with value."""
@builtin
def reshape(input, *shape, can_reorder=False): """Same elements, new shape."""
@builtin
def trans(input, *dims): """Transpose (reverse axes, or permute with dims)."""
@builtin
def permute(input, *dims): """Permute axes."""
@builtin
def expand_dims(input, axis): """Insert a size-1 axis."""
@builtin
def broadcast_to(input, *shape): """Broadcast to a shape."""
@builtin
def broadcast(input, other): """Both operands broadcast to their common shape (a pair)."""
@builtin
def view(input, *shape): """reshape(input, shape, can_reorder=True) (deprecated in Triton)."""
@builtin
def join(a, b): """Stack a and b (broadcast together) along a new minor axis of size 2."""
@builtin
def split(a): """The two halves of a's last axis, which must have size 2 (join's inverse)."""
@builtin
def interleave(a, b): """a and b interleaved along their last axis: join(a, b) with its last two axes merged."""
@builtin
def cat(input, other, can_reorder=False): """Concatenate two 1-D tiles (Triton requires can_reorder=True)."""
@builtin
def flip(x, dim=None): """x reversed along dim (the last axis when None)."""
@builtin
def gather(src, index, axis): """out[i][j] = src[index[i][j]][j] along axis 0 (likewise for other axes); index's shape."""
# --- memory ----------------------------------------------------------------------------------
@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False): """Load a tile through pointers; masked-off lanes get other."""
@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    """Store a tile through pointers, converting to the pointee type."""
@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """A block pointer: the block_shape tile at offsets of a tensor of shape and strides at base; tl.load and
    tl.store take it with boundary_check (the axes to mask at the tensor's bounds) and padding_option."""
@builtin
def advance(base, offsets): """The block pointer base moved by offsets (elements along each axis)."""
@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    """A tensor descriptor: loads and stores of block_shape blocks at element offsets (desc.load(offsets),
    desc.store(offsets, value)) of the tensor at base; outside it, loads give padding_option's value
    ('zero' or 'nan') and stores do nothing. The last stride must be 1."""
@builtin
def load_tensor_descriptor(desc, offsets): """desc.load(offsets)."""
@builtin
def store_tensor_descriptor(desc, offsets, value): """desc.store(offsets, value)."""
@builtin
def atomic_add(pointer, val, mask=None, sem=None, scope=None): """Atomic add; returns the old values."""
@builtin
def atomic_max(pointer, val, mask=None, sem=None, scope=None): """Atomic max; returns the old values."""
@builtin
def atomic_min(pointer, val, mask=None, sem=None, scope=None): """Atomic min; returns the old values."""
@builtin
def atomic_xchg(pointer, val, mask=None, sem=None, scope=None): """Atomic exchange; returns the old values."""
@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None): """Atomic compare-and-swap; returns the old values."""
@builtin
def atomic_and(pointer, val, mask=None, sem=None, scope=None): """Atomic bitwise and (32-bit integers); returns the old values."""
@builtin
def atomic_or(pointer, val, mask=None, sem=None, scope=None): """Atomic bitwise or (32-bit integers); returns the old values."""
@builtin
def atomic_xor(pointer, val, mask=None, sem=None, scope=None): """Atomic bitwise xor (32-bit integers); returns the old values."""
# --- elementwise -----------------------------------------------------------------------------
@builtin
def where(condition, x, y): """Select x where condition, else y."""
@builtin
def minimum(x, y, propagate_nan=None): """Elementwise minimum."""
@builtin
def maximum(x, y, propagate_nan=None): """Elementwise maximum."""
@builtin
def clamp(x, min, max, propagate_nan=None): """Clamp floats to [min, max]."""
@builtin
def fma(x, y, z): """x * y + z, fused."""
@builtin
def exp(x): """e**x (float32 only)."""
@builtin
def exp2(x): """2**x (float32 only)."""
@builtin
def log(x): """Natural log (float32 only)."""
@builtin
def log2(x): """Base-2 log (float32 only)."""
@builtin
def sqrt(x): """Square root (float32 only)."""
@builtin
def rsqrt(x): """1/sqrt(x) (float32 only)."""
@builtin
def sin(x): """Sine (float32 only)."""
@builtin
def cos(x): """Cosine (float32 only)."""
@builtin
def erf(x): """Error function (float32 only)."""
@builtin
def floor(x): """Round down (float32 only)."""
@builtin
def ceil(x): """Round up (float32 only)."""
@builtin
def sigmoid(x): """1 / (1 + exp(-x)) (float32 only)."""
@builtin
def abs(x): """Absolute value."""
@builtin
def umulhi(x, y): """High half of the product of two integers of up to 32 bits (signed or not, as x and y)."""
@builtin
def div_rn(x, y): """x / y rounded to nearest (float32 only)."""
@builtin
def fdiv(x, y, ieee_rounding=False): """x / y (float32 only)."""
@builtin
def sqrt_rn(x): """Square root rounded to nearest (float32 only)."""
@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False): """input.to(dtype, ...)."""
@builtin
def zeros_like(input): """Zeros of input's shape and type."""
# --- reductions and scans --------------------------------------------------------------------
@builtin
def sum(input, axis=None, keep_dims=False, dtype=None): """Sum along axis (all axes when None)."""
@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """Maximum along axis."""
@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """Minimum along axis."""
@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False): """int32 index of the maximum, first on ties."""
@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False): """int32 index of the minimum, first on ties."""
@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    """Reduce a tile, or a tuple of tiles of one shape, with a @jit combine function."""
@builtin
def cumsum(input, axis=0, reverse=False, dtype=None): """Inclusive prefix sum."""
@builtin
def cumprod(input, axis=0, reverse=False): """Inclusive prefix product."""
@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    """Inclusive scan of a tile, or a tuple of tiles of one shape, with a @jit combine function."""
@builtin
def sort(x, dim=None, descending=False): """x sorted along its last axis (dim None or the last), ascending unless descending."""
@builtin
def topk(x, k, dim=None): """The k largest elements of x's last axis (k a power of two), in descending order."""
@builtin
def histogram(input, num_bins, mask=None):
    """int32 counts of a 1-D integer tile's values in bins of width 1 from 0: [num_bins]; values outside
    [0, num_bins) and elements where mask is False count nowhere."""
@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=float32):
    """Matrix product of [M, K] and [K, N] tiles, or of [B, M, K] and [B, K, N] ones: float32 for float
    operands (float16 with out_dtype=float16 for float16 ones), int32 for int8 ones."""
# --- control flow and compile-time helpers ----------------------------------------------------
@builtin
def static_range(arg1, arg2=None, step=None): """Range unrolled at compile time (constexpr bounds)."""
@builtin
def range(arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None, disallow_acc_multi_buffer=False,
          flatten=False, warp_specialize=False): """Runtime loop range (like Python's range in a kernel)."""
@builtin
def static_assert(cond, msg=""): """Assert a constexpr condition at compile time."""
@builtin
def device_print(prefix, *args, hex=False): """Print values from the device."""
@builtin
def device_assert(cond, msg="", mask=None):
    """Fail the launch where `cond` is false (where `mask` is true), naming `msg`, the program and the
    element: checked only in kernels built with debug on (`@jit(debug=True)`, or METALFORGE_DEBUG=1
    when the kernel is defined), as Triton checks it only with TRITON_DEBUG; otherwise nothing."""
@builtin
def assume(cond):
    """A fact the compiler may rely on (Triton's hint); with debug on it is checked as device_assert."""
@builtin
def multiple_of(input, values): """Hint: every value is a multiple of values."""
@builtin
def max_contiguous(input, values): """Hint: runs of values contiguous elements."""
@builtin
def debug_barrier(): """Threadgroup barrier."""
@builtin
def philox(seed, c0, c1, c2, c3, n_rounds=10):
    """Triton's Philox-4x32: n_rounds rounds on the counter (c0, c1, c2, c3) (32-bit integer tiles) with the
    key (seed's low word, seed's high word); the four uint32 words. tl.rand and the rest build on it."""


BUILTINS: dict[str, Builtin] = {name: obj for name, obj in globals().items() if isinstance(obj, Builtin)}


class PropagateNan(enum.Enum):
    """`propagate_nan=` of minimum/maximum/clamp: ALL returns NaN when an operand is NaN, NONE the other operand."""
    NONE = 0
    ALL = 0xFFFF


# Triton 3.6's `tl` names that metalforge does not have yet (issue 18): a kernel reaching for one is
# told so by name, with what to do instead, rather than seeing an AttributeError
NOT_YET_SUPPORTED: dict[str, str] = {
    **dict.fromkeys(("inline_asm_elementwise", "dot_scaled", "item", "unsplat", "extra"),
                    "remove it from the kernel"),
}

# `tl.math`: Triton 3.6's math namespace (the same builtins as their `tl` names)
math = types.SimpleNamespace(**{name: BUILTINS[name] for name in (
    "abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2", "rsqrt", "sin",
    "sqrt", "sqrt_rn", "umulhi")})

__all__ = ["Builtin", "BUILTINS", "block_type", "constexpr", "dtype", "pointer_type", "tensor", "bfloat16", "float16",
           "float32", "float64", "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "PropagateNan", "NOT_YET_SUPPORTED", "math", *BUILTINS]
