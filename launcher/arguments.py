"""What a launch takes besides arrays: output placeholders, scalars as MLX arrays, and the facts of
each argument that select a kernel's specialisation.

Every launch touches these, so each is as cheap as Python allows: a placeholder is a tuple, a scalar's
array is made once per value, and an argument of a known type has its facts in one inline expression.
"""
from __future__ import annotations

import collections
import operator
from typing import Any, Sequence, Union

import mlx.core as mx

from ..dsl import ir
from ..errors import MetalforgeError

DTYPES = {mx.bool_: ir.int1, mx.int8: ir.int8, mx.int16: ir.int16, mx.int32: ir.int32, mx.int64: ir.int64,
          mx.uint8: ir.uint8, mx.uint16: ir.uint16, mx.uint32: ir.uint32, mx.uint64: ir.uint64,
          mx.float16: ir.float16, mx.bfloat16: ir.bfloat16, mx.float32: ir.float32}
MX_DTYPES = {v: k for k, v in DTYPES.items()}

_NAN = float("nan")  # the one NaN initial value: equal keys need the same NaN object
_new_tuple = tuple.__new__


class Placeholder(collections.namedtuple("Placeholder", "shape dtype init")):
    """An output of a launch: its shape, dtype and initial contents (None: uninitialised).

    A tuple, which `empty`, `zeros` and `full` make without a Python-level constructor: a launch makes
    its placeholders each time, so they must cost little more than tuples."""

    __slots__ = ()

    def __new__(cls, shape: Union[int, Sequence[int]], dtype: mx.Dtype = mx.float32,
                init: float | None = None) -> "Placeholder":
        return _new_tuple(cls, (_shape(shape), dtype, None if init is None else _initial(init)))


def empty(shape: Union[int, Sequence[int]], dtype: mx.Dtype = mx.float32) -> Placeholder:
    """An output whose initial contents are undefined (every element must be written)."""
    return _new_tuple(Placeholder, (shape if type(shape) is tuple else _shape(shape), dtype, None))


def zeros(shape: Union[int, Sequence[int]], dtype: mx.Dtype = mx.float32) -> Placeholder:
    """An output initialised to zero (for atomics and partial writes)."""
    return _new_tuple(Placeholder, (shape if type(shape) is tuple else _shape(shape), dtype, 0.0))


def full(shape: Union[int, Sequence[int]], value: float, dtype: mx.Dtype = mx.float32) -> Placeholder:
    """An output initialised to `value` (MLX initialises every output of a launch alike)."""
    return _new_tuple(Placeholder, (shape if type(shape) is tuple else _shape(shape), dtype, _initial(value)))


def cdiv(x: int, div: int) -> int:
    return -(-x // div)


def sizes(shape: Any) -> tuple[int, ...] | None:
    """`shape` (an integer or a sequence of them) as a tuple of non-negative ints, or None if it is
    not one: the one check of output shapes (here when a placeholder is made from a list or an int,
    in launcher/generated.py when MLX refuses a launch whose tuple was trusted)."""
    try:
        found = (operator.index(shape),) if not hasattr(shape, "__iter__") else tuple(map(operator.index, shape))
    except TypeError:
        return None
    return found if all(n >= 0 for n in found) else None


def _shape(shape: Union[int, Sequence[int]]) -> tuple[int, ...]:
    found = sizes(shape)
    if found is None:
        raise MetalforgeError(f"an output's shape must be non-negative ints, got {shape!r}")
    return found


def _initial(value: float) -> float:
    value = float(value)
    return _NAN if value != value else value


# An integer argument's divisibility as its kernel is specialised on it, by its remainder modulo 128:
# the largest power of two up to 128 that divides it. Eight classes (1, 2, 4, ..., 128): 2 to 8 so
# that a row of 1000 halves (or 1004 floats) still moves in vectors of 8 (4), where Triton, whose
# smallest class is 16, goes element by element; 16 as in Triton; up to 128 so that a loop's
# `k + tl.arange(0, BLOCK_K) < K` is known all-true when K is a multiple of BLOCK_K
# (codegen/ir_passes/masks.py); one tuple index per argument and launch.
MAX_DIVISIBILITY_FACT = 128
DIVISIBILITY = tuple(MAX_DIVISIBILITY_FACT if r == 0 else r & -r for r in range(MAX_DIVISIBILITY_FACT))
_FITS_32_BITS = 256  # in `fact`, beside the class (at most 128)


def divisibility(value: int) -> int:
    """What an integer argument's specialisation knows divides it (DIVISIBILITY)."""
    return DIVISIBILITY[value & (MAX_DIVISIBILITY_FACT - 1)]


def fact(value: Any) -> Any:
    """The facts of a runtime argument that select its kernel's specialisation: an array's dtype; a
    placeholder's dtype and initial value; an int's divisibility class (a power of two up to 128, see
    DIVISIBILITY) plus 256 when it fits 32 bits; a float's or bool's
    kind; anything else its type (the launch then says what to pass instead)."""
    kind = type(value)
    if kind is mx.array:
        return value.dtype
    if kind is Placeholder:
        return value[1:]
    if kind is int:
        return DIVISIBILITY[value & 127] | (_FITS_32_BITS if -2**31 <= value < 2**31 else 0)
    if kind is float:
        return "f32"
    return "i1" if kind is bool else kind


def unspecialized_fact(value: Any) -> Any:
    """`fact` of an argument named in `@jit(do_not_specialize=...)`: an int's divisibility class is
    always 1 (the kernel is not specialised on it), whether it fits 32 bits still counts."""
    if type(value) is int:
        return 1 | (_FITS_32_BITS if -2**31 <= value < 2**31 else 0)
    return fact(value)


# The same facts for an argument whose type is known (a dispatcher checks the types first), as the
# expressions of `{v}` a dispatcher inlines: what the type leaves open. An array's dtype is its hash
# where MLX hashes each dtype to a number of its own (its enum value): a small int in a key hashes and
# compares for free, where a Dtype object (a new one per `.dtype`) costs ~50 ns to hash and as much
# to compare. An int's divisibility reads `_mf_divisibility`, DIVISIBILITY in the dispatcher's namespace.
_DTYPE_HASHES_UNIQUE = len({hash(d) for d in DTYPES}) == len(DTYPES)
TYPED_FACTS: dict[type, tuple[str, ...]] = {
    mx.array: ("hash({v}.dtype)" if _DTYPE_HASHES_UNIQUE else "{v}.dtype",), Placeholder: ("{v}[1]", "{v}[2]"),
    int: ("_mf_divisibility[{v} & 127]", "-2147483648 <= {v} <= 2147483647"), float: (), bool: ()}
UNSPECIALIZED_INT_FACTS = ("-2147483648 <= {v} <= 2147483647",)  # an int in do_not_specialize


def scalar_type(value: Any) -> ir.ScalarType:
    """The kernel parameter type of a Python number argument."""
    if isinstance(value, bool):
        return ir.int1
    if isinstance(value, int):
        return ir.int32 if -2**31 <= value < 2**31 else ir.int64
    return ir.float32


class ScalarArrays(dict):
    """Python numbers of one type as the arrays of one dtype that MLX takes for scalar parameters,
    made once per value: launches pass the same sizes and strides again and again. `cache[value]`."""

    LIMIT = 512

    def __init__(self, dtype: mx.Dtype) -> None:
        super().__init__()
        self.dtype = dtype

    def __missing__(self, value: Any) -> mx.array:
        array = mx.array(value, dtype=self.dtype)
        if value == 0 and isinstance(value, float):
            return array  # 0.0 and -0.0 are one dict key; neither is kept, so each keeps its sign
        if len(self) >= self.LIMIT:
            self.clear()
        self[value] = array
        return array


_SCALAR_ARRAYS: dict[tuple[type, mx.Dtype], ScalarArrays] = {}


def scalar_arrays(kind: type, dtype: mx.Dtype) -> ScalarArrays:
    """The shared cache of `kind` numbers (int, float, bool: one dict each, since 1 == 1.0 == True)
    passed as `dtype`."""
    key = (kind, dtype)
    found = _SCALAR_ARRAYS.get(key)
    if found is None:
        found = _SCALAR_ARRAYS[key] = ScalarArrays(dtype)
    return found


def check_element(dtype: mx.Dtype, what: str) -> ir.ScalarType:
    """The IR element type of an array or output dtype, or an error naming the argument."""
    if dtype not in DTYPES:
        raise MetalforgeError(f"{what} has dtype {dtype}, which Metal kernels cannot take "
                              f"(supported: {', '.join(str(d) for d in DTYPES)})")
    return DTYPES[dtype]
