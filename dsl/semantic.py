"""Triton's typing rules as pure functions on IR types.

Kernels must compute what they compute under Triton, so these follow Triton's semantic.py and what
was measured in Triton's interpreter (see issue 4): C-style integer promotion, Python scalars that
do not widen a tile unless they are of a higher kind, fp16/bf16 arithmetic that widens for `/` and
`%`, transcendental functions that accept float32 only, and `tl.max` of fp16 returning fp32 while
`tl.sum` keeps fp16. The front end calls these and turns `TypeRuleError` into a located
`KernelDefinitionError`; later passes rely on the types being final.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import ir
from .ir import BlockType, PointerType, ScalarType, Type, element_of, make_type, shape_of


class TypeRuleError(Exception):
    """A typing rule rejected the operands; `hint` says how the user can fix the kernel."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


def check_metal_type(t: ScalarType) -> ScalarType:
    """Reject element types Metal has no hardware for."""
    if t == ir.float64:
        raise TypeRuleError("Metal has no double-precision type (float64)", "use tl.float32 instead of tl.float64")
    return t


def constant_value(value: bool | int | float, t: ScalarType) -> int | float:
    """`value` as a constant of `t`, refused where it has no value of `t` (an infinity or NaN in an
    integer type, an integer beyond 64 bits) instead of a raw OverflowError or ValueError."""
    if t.is_float:
        try:
            return float(value)
        except OverflowError:
            raise TypeRuleError(f"constant {value} is too large for {t!r}", "use a smaller constant") from None
    if isinstance(value, float) and not math.isfinite(value):
        lo, hi = t.int_range()
        raise TypeRuleError(f"{value} has no value in the integer type {t!r}",
                            f"use a finite value such as {lo if value < 0 else hi} (the type's "
                            f"{'minimum' if value < 0 else 'maximum'}), or a float type")
    if not -2**63 <= value < 2**64:
        raise TypeRuleError(f"integer constant {value} does not fit in 64 bits", "use a smaller constant")
    return int(value)


def python_scalar_type(value: bool | int | float) -> ScalarType:
    """The type Triton gives a Python constant: bool -> int1, int by range, float -> float32 if it fits."""
    if isinstance(value, bool):
        return ir.int1
    if isinstance(value, int):
        for t, lo, hi in ((ir.int32, -2**31, 2**31), (ir.uint32, 2**31, 2**32),
                          (ir.int64, -2**63, 2**63), (ir.uint64, 2**63, 2**64)):
            if lo <= value < hi:
                return t
        raise TypeRuleError(f"integer constant {value} does not fit in 64 bits", "use a smaller constant")
    a = abs(value)
    if a in (0.0, float("inf")) or value != value or 2.0**-126 <= a <= (2 - 2**-23) * 2.0**127:
        return ir.float32
    return ir.float64


def integer_promote(a: ScalarType, b: ScalarType) -> ScalarType:
    """C's usual arithmetic conversions: wider wins; at equal width unsigned wins (int32 op uint32 -> uint32)."""
    if a.signed == b.signed:
        return a if a.bits > b.bits else b
    if a.is_unsigned:
        return a if a.bits >= b.bits else b
    return b if b.bits >= a.bits else a


def computation_type(a: ScalarType, a_python: bool, b: ScalarType, b_python: bool, div_or_mod: bool) -> ScalarType:
    """The element type both operands of an arithmetic op are converted to.

    A Python scalar of lower or equal kind (bool < int < float) than the tile it meets does not take
    part: `x_i8 + 1` stays int8, `x_f16 * 2.0` stays fp16, but `x_i32 * 0.5` becomes float32.
    """
    if a_python != b_python:
        scalar, tile = (a, b) if a_python else (b, a)
        if scalar.kind <= tile.kind:
            if div_or_mod and tile in (ir.float16, ir.bfloat16):
                return ir.float32
            return tile
    if ir.float64 in (a, b):
        return ir.float64
    if ir.float32 in (a, b):
        return ir.float32
    if ir.float16 in (a, b):
        # fp16 op bf16 lands here too and gives fp16, as in Triton; `/` and `%` widen to fp32
        return ir.float32 if div_or_mod else ir.float16
    if a == b == ir.bfloat16:
        return ir.float32 if div_or_mod else ir.bfloat16
    if ir.bfloat16 in (a, b):
        return ir.float32
    if div_or_mod and a.signed != b.signed:
        raise TypeRuleError(f"cannot use /, // or % with {a!r} and {b!r}: they differ in signedness",
                            "cast one operand with .to(...) so both have the same signedness")
    return integer_promote(a, b)


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """numpy broadcasting: align from the right; each pair of sizes must be equal or contain a 1."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            raise TypeRuleError(f"cannot broadcast shapes {list(a)} and {list(b)}",
                                "make the shapes agree, e.g. add an axis with x[:, None] or x[None, :]")
        out.append(max(x, y))
    return tuple(reversed(out))


@dataclass(frozen=True)
class BinaryRule:
    """How to build one binary op: convert each operand's element to `operand` (None: keep it, for
    pointers), broadcast both to the result shape, then apply `opcode` (with `attrs`)."""

    opcode: str
    operand: ScalarType | None
    result: Type
    attrs: tuple[tuple[str, str], ...] = ()


_CMP = {"lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "eq": "eq", "ne": "ne"}
_BITWISE = {"and": "and", "or": "or", "xor": "xor", "lshift": "shl"}


def check_python_operand(value: bool | int | float | None, t: ScalarType) -> None:
    """A Python constant an op gives type `t` must fit it, as Triton checks (a compile-time error, not a wrap)."""
    if value is None or not t.is_int:
        return
    if value < 0 and t.is_unsigned:
        raise TypeRuleError(f"cannot combine an unsigned tile ({t!r}) with the negative constant {value}",
                            "cast explicitly, e.g. x.to(tl.int32), before using a negative constant")
    check_fits(value, t)


def check_fits(value: bool | int, t: ScalarType) -> None:
    """An integer constant given type `t` must be in its range: Triton refuses one that is not (C would wrap it)."""
    lo, hi = t.int_range()
    if not lo <= value <= hi:
        raise TypeRuleError(f"constant {value} is out of range for {t!r} ({lo} to {hi})",
                            "use a wider type with .to(...), or a value in its range")


def binary(op: str, a: Type, b: Type, a_const: bool | int | float | None = None,
           b_const: bool | int | float | None = None) -> BinaryRule:
    """Type a Python binary operator `op` (operator-module names: add, sub, mul, truediv, floordiv,
    mod, lshift, rshift, and, or, xor, lt, le, gt, ge, eq, ne). `a_const`/`b_const` are the Python
    values when an operand is a Python constant (they take part in promotion only by kind)."""
    ea, eb = element_of(a), element_of(b)
    shape = broadcast_shapes(shape_of(a), shape_of(b))
    a_py, b_py = a_const is not None, b_const is not None
    if isinstance(ea, PointerType) or isinstance(eb, PointerType):
        return _pointer_binary(op, ea, eb, shape)
    div_or_mod = op in ("truediv", "floordiv", "mod")
    ct = computation_type(ea, a_py, eb, b_py, div_or_mod)
    check_python_operand(a_const, ct)
    check_python_operand(b_const, ct)
    if op in _CMP:
        return BinaryRule("cmp", ct, make_type(ir.int1, shape), (("pred", _CMP[op]),))
    if op == "truediv":
        if ct.is_int:
            ct = ir.float32
        return BinaryRule("fdiv", ct, make_type(ct, shape))
    if op == "floordiv":
        if ct.is_float:
            raise TypeRuleError(f"// is only defined on integer tiles, got {ct!r}",
                                "use tl.floor(a / b) for floating-point floor division")
        return BinaryRule("sdiv" if ct.signed else "udiv", ct, make_type(ct, shape))
    if op == "mod":
        code = "fmod" if ct.is_float else ("srem" if ct.signed else "urem")
        return BinaryRule(code, ct, make_type(ct, shape))
    if op in _BITWISE or op == "rshift":
        if not (ea.is_int and eb.is_int):
            raise TypeRuleError(f"bitwise and shift operators need integer operands, got {ea!r} and {eb!r}",
                                "bitcast floats with x.to(tl.int32, bitcast=True) first")
        ct = integer_promote(ea, eb) if not (a_py or b_py) else ct
        # Triton picks ashr/lshr from the shifted tile's own type, before promotion: int32 >> uint32
        # is an arithmetic shift with a uint32 result (`1 >> x` takes x's signedness: x is that tile).
        shifted = eb if a_py and not b_py else ea
        code = _BITWISE.get(op) or ("ashr" if shifted.signed else "lshr")
        return BinaryRule(code, ct, make_type(ct, shape))
    if op in ("add", "sub", "mul"):
        return BinaryRule(op, ct, make_type(ct, shape))
    raise TypeRuleError(f"operator {op} is not supported on tiles", "rewrite with supported operators")


def _pointer_binary(op: str, ea: ir.Element, eb: ir.Element, shape: tuple[int, ...]) -> BinaryRule:
    """pointer + int, int + pointer, pointer - int: a pointer (tile) of the broadcast shape."""
    ptr_el, other = (ea, eb) if isinstance(ea, PointerType) else (eb, ea)
    ok = isinstance(other, ScalarType) and other.is_int and (op == "add" or (op == "sub" and ptr_el is ea))
    if not ok:
        raise TypeRuleError(f"invalid pointer arithmetic: {ea} {op} {eb}",
                            "only pointer + integer offsets and pointer - integer offsets are allowed")
    return BinaryRule("addptr", None, make_type(ptr_el, shape))


# Triton's interpreter accepts only fp32/fp64 for these (measured); Metal has no fp64, so fp32 only.
FLOAT32_ONLY = frozenset({"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf", "floor", "ceil",
                          "sigmoid", "sqrt_rn", "div_rn", "fdiv"})


def unary_math(name: str, t: Type) -> Type:
    """Result type of an elementwise math builtin; the fp32-only ones reject other types as Triton does."""
    e = element_of(t)
    if isinstance(e, PointerType):
        raise TypeRuleError(f"tl.{name} does not take pointers", "load the values with tl.load first")
    if name in FLOAT32_ONLY and e != ir.float32:
        raise TypeRuleError(f"tl.{name} expects float32 input but got {e!r}", "convert with .to(tl.float32) first")
    return t


def unary(op: str, t: Type) -> str:
    """Opcode of a unary operator: `neg`, `not` (bitwise ~ on ints) or `lnot` (Python `not`)."""
    e = element_of(t)
    if isinstance(e, PointerType):
        raise TypeRuleError(f"unary {op} is not defined on pointers", "apply it to the offsets instead")
    if op == "invert" and e.is_float:
        raise TypeRuleError(f"~ needs an integer operand, got {e!r}", "bitcast with .to(tl.int32, bitcast=True)")
    return {"neg": "neg", "invert": "not", "not": "lnot"}[op]


def cast(src: Type, dst: ir.Element, bitcast: bool) -> tuple[str, Type]:
    """`x.to(dst)`: the opcode (`cast` converts values, `bitcast` reinterprets bits) and result type."""
    if isinstance(dst, ScalarType):
        check_metal_type(dst)
    s = element_of(src)
    if bitcast:
        sb = 64 if isinstance(s, PointerType) else s.bits
        db = 64 if isinstance(dst, PointerType) else dst.bits
        if sb != db:
            raise TypeRuleError(f"cannot bitcast {s!r} ({sb} bits) to {dst!r} ({db} bits)",
                                "bitcast only between types of the same width; use .to(dtype) to convert values")
    elif isinstance(s, PointerType) != isinstance(dst, PointerType):
        raise TypeRuleError(f"cannot convert {s} to {dst}", "pointers convert only to other pointer types")
    return ("bitcast" if bitcast else "cast"), make_type(dst, shape_of(src))


def normalize_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise TypeRuleError(f"axis {axis} is out of range for a tile of rank {rank}",
                            f"use an axis in [-{rank}, {rank - 1}]")
    return axis % rank


def reduced_shape(shape: tuple[int, ...], axis: int | None, keep_dims: bool) -> tuple[int, ...]:
    if axis is None:
        return (1,) * len(shape) if keep_dims else ()
    axis = normalize_axis(axis, len(shape))
    return shape[:axis] + ((1,) if keep_dims else ()) + shape[axis + 1:]


def sum_type(e: ScalarType) -> ScalarType:
    """tl.sum/tl.cumsum accumulate narrow integers in 32 bits; floats (fp16 included) keep their type."""
    if e.is_int and e.bits < 32:
        return ir.int32 if e.signed else ir.uint32
    return e


def minmax_type(e: ScalarType) -> ScalarType:
    """tl.max/tl.min widen types under 32 bits (measured: tl.max of fp16 returns fp32)."""
    if e.bits < 32:
        return ir.float32 if e.is_float else ir.int32
    return e


def reduction(kind: str, t: Type, axis: int | None, keep_dims: bool, dtype: ScalarType | None = None
              ) -> tuple[ScalarType, Type]:
    """For sum/max/min/argmax/argmin: the element to convert the input to first, and the result type;
    a sum's `dtype`, where given, is both (Triton's _pick_sum_dtype: no widening then)."""
    e = element_of(t)
    if not isinstance(t, BlockType) or isinstance(e, PointerType):
        raise TypeRuleError(f"tl.{kind} needs a tile of numbers, got {t}", "reduce a tile, e.g. one from tl.load")
    shape = reduced_shape(t.shape, axis, keep_dims)
    if kind == "sum":
        e = dtype or sum_type(e)
        return e, make_type(e, shape)
    if kind in ("max", "min"):
        return minmax_type(e), make_type(minmax_type(e), shape)
    return e, make_type(ir.int32, shape)  # argmax/argmin: int32 index, first on ties


def load(ptr_t: Type, mask_t: Type | None) -> Type:
    """Result type of tl.load: the pointee type, shaped like pointers and mask broadcast together."""
    e = element_of(ptr_t)
    if not isinstance(e, PointerType):
        raise TypeRuleError(f"tl.load needs pointers, got {ptr_t}", "pass a pointer argument plus offsets")
    shape = shape_of(ptr_t) if mask_t is None else broadcast_shapes(shape_of(ptr_t), shape_of(mask_t))
    return make_type(e.element, shape)


def store(ptr_t: Type, value_t: Type, mask_t: Type | None) -> None:
    """tl.store broadcasts value and mask to the pointers' shape, never the other way round."""
    e = element_of(ptr_t)
    if not isinstance(e, PointerType):
        raise TypeRuleError(f"tl.store needs pointers, got {ptr_t}", "pass a pointer argument plus offsets")
    for what, t in (("value", value_t), ("mask", mask_t)):
        if t is None:
            continue
        try:
            fits = broadcast_shapes(shape_of(ptr_t), shape_of(t)) == shape_of(ptr_t)
        except TypeRuleError:
            fits = False
        if not fits:
            raise TypeRuleError(f"cannot store: {what} of shape {list(shape_of(t))} does not fit pointers of "
                                f"shape {list(shape_of(ptr_t))}",
                                "make the pointer tile as large as the value, e.g. with 2-D offsets")


def check_block_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Tile dimensions must be powers of two (Triton's rule; layouts rely on it)."""
    for s in shape:
        if not isinstance(s, int) or s <= 0 or s & (s - 1):
            raise TypeRuleError(f"tile shape {list(shape)} has a dimension that is not a power of two",
                                "use power-of-two block sizes and mask the remainder")
    return shape
