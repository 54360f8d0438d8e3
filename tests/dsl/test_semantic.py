"""Triton's typing rules (dsl/semantic.py) as tables, checked against Triton's semantic.py and the
behaviour measured in Triton's interpreter (issue 4)."""
from __future__ import annotations

import pytest

import metalforge.language as tl
from metalforge.dsl import ir, semantic
from metalforge.dsl.semantic import TypeRuleError


def tile(e, shape=(16,)):
    return ir.make_type(e, shape)


@pytest.mark.parametrize("a, b, expected", [
    (tl.int32, tl.uint32, tl.uint32),      # equal width: unsigned wins
    (tl.uint8, tl.int8, tl.uint8),
    (tl.int8, tl.int16, tl.int16),         # wider wins
    (tl.uint16, tl.int32, tl.int32),
    (tl.int64, tl.uint32, tl.int64),
    (tl.uint64, tl.int64, tl.uint64),
    (tl.int1, tl.int1, tl.int1),
    (tl.int1, tl.int32, tl.int32),
    (tl.int32, tl.float16, tl.float16),    # float with int -> the float
    (tl.uint8, tl.bfloat16, tl.float32),   # bf16 survives only against bf16
    (tl.float16, tl.float32, tl.float32),
    (tl.bfloat16, tl.float32, tl.float32),
    (tl.bfloat16, tl.bfloat16, tl.bfloat16),
    (tl.float16, tl.float16, tl.float16),
    (tl.bfloat16, tl.float16, tl.float16),  # Triton's rule 3 (fp16 checked before bf16)
])
def test_tile_promotion(a, b, expected):
    assert semantic.binary("add", tile(a), tile(b)).result == tile(expected)
    assert semantic.binary("mul", tile(b), tile(a)).result == tile(expected)


@pytest.mark.parametrize("t, const, expected", [
    (tl.int8, 3, tl.int8),          # a Python int never widens an integer tile
    (tl.uint32, 7, tl.uint32),
    (tl.int64, 1, tl.int64),
    (tl.float16, 2.0, tl.float16),  # nor a Python float a float tile
    (tl.bfloat16, 1, tl.bfloat16),
    (tl.int32, 0.5, tl.float32),    # a float constant with an int tile -> float32
    (tl.uint8, 1.5, tl.float32),
    (tl.int1, 1, tl.int32),         # int is a higher kind than bool
])
def test_python_scalar_promotion(t, const, expected):
    assert semantic.binary("add", tile(t), semantic.python_scalar_type(const), b_const=const).result == tile(expected)
    assert semantic.binary("sub", semantic.python_scalar_type(const), tile(t), a_const=const).result == tile(expected)


@pytest.mark.parametrize("op, a, b, opcode, expected", [
    ("floordiv", tl.int32, tl.int32, "sdiv", tl.int32),   # C-style: truncates toward zero
    ("floordiv", tl.uint32, tl.uint8, "udiv", tl.uint32),
    ("mod", tl.int32, tl.int32, "srem", tl.int32),        # sign of the dividend
    ("mod", tl.uint16, tl.uint16, "urem", tl.uint16),
    ("mod", tl.float32, tl.float32, "fmod", tl.float32),  # float % is fmod
    ("mod", tl.float16, tl.float16, "fmod", tl.float32),  # / and % widen half types
    ("truediv", tl.int32, tl.int32, "fdiv", tl.float32),
    ("truediv", tl.float16, tl.float16, "fdiv", tl.float32),
    ("truediv", tl.bfloat16, tl.bfloat16, "fdiv", tl.float32),
    ("truediv", tl.float32, tl.int8, "fdiv", tl.float32),
    ("rshift", tl.int32, tl.int32, "ashr", tl.int32),     # arithmetic on signed
    ("rshift", tl.uint32, tl.uint32, "lshr", tl.uint32),  # logical on unsigned
    ("rshift", tl.int32, tl.uint32, "ashr", tl.uint32),   # the shifted operand's own type picks (Triton)
    ("rshift", tl.uint8, tl.int32, "lshr", tl.int32),
    ("lshift", tl.int8, tl.int16, "shl", tl.int16),
    ("and", tl.int1, tl.int1, "and", tl.int1),
    ("xor", tl.uint8, tl.int32, "xor", tl.int32),
    ("lt", tl.float16, tl.float32, "cmp", tl.int1),       # comparisons give int1
    ("eq", tl.int32, tl.uint32, "cmp", tl.int1),
])
def test_operator_opcodes(op, a, b, opcode, expected):
    rule = semantic.binary(op, tile(a), tile(b))
    assert (rule.opcode, rule.result) == (opcode, tile(expected))


def test_comparison_compares_in_the_promoted_type():
    rule = semantic.binary("lt", tile(tl.int32), tile(tl.uint32))
    assert rule.operand == tl.uint32 and dict(rule.attrs) == {"pred": "lt"}


@pytest.mark.parametrize("op, a, b, message", [
    ("floordiv", tl.int32, tl.uint32, "signedness"),
    ("mod", tl.int8, tl.uint8, "signedness"),
    ("floordiv", tl.float32, tl.float32, "only defined on integer"),
    ("rshift", tl.float32, tl.int32, "integer operands"),
    ("and", tl.float16, tl.float16, "integer operands"),
])
def test_operator_errors(op, a, b, message):
    with pytest.raises(TypeRuleError, match=message) as info:
        semantic.binary(op, tile(a), tile(b))
    assert info.value.hint


def test_python_constant_checks():
    with pytest.raises(TypeRuleError, match="negative constant"):
        semantic.binary("add", tile(tl.uint32), tl.int32, b_const=-1)
    with pytest.raises(TypeRuleError, match="out of range"):
        semantic.binary("add", tile(tl.int8), tl.int32, b_const=1000)
    assert semantic.python_scalar_type(True) == tl.int1
    assert semantic.python_scalar_type(2**31) == tl.uint32
    assert semantic.python_scalar_type(-2**40) == tl.int64
    assert semantic.python_scalar_type(1e-5) == tl.float32
    assert semantic.python_scalar_type(1e300) == tl.float64


@pytest.mark.parametrize("a, b, expected", [
    ((4, 1), (1, 8), (4, 8)), ((16,), (4, 16), (4, 16)), ((), (8,), (8,)), ((2, 1, 4), (3, 1), (2, 3, 4)),
])
def test_broadcast_shapes(a, b, expected):
    assert semantic.broadcast_shapes(a, b) == expected


def test_broadcast_mismatch_names_both_shapes():
    with pytest.raises(TypeRuleError, match=r"\[4, 8\] and \[16\]"):
        semantic.broadcast_shapes((4, 8), (16,))


def test_pointer_arithmetic():
    p = ir.ptr(tl.float16)
    assert semantic.binary("add", p, tile(tl.int32, (4, 8))).result == tile(p, (4, 8))
    assert semantic.binary("add", tile(tl.int64), p).result == tile(p)
    assert semantic.binary("sub", tile(p), tl.int32).opcode == "addptr"
    for bad in (("add", p, tl.float32), ("add", p, p), ("sub", tl.int32, p), ("mul", p, tl.int32)):
        with pytest.raises(TypeRuleError, match="pointer arithmetic"):
            semantic.binary(bad[0], bad[1], bad[2])


@pytest.mark.parametrize("kind, e, compute, result", [
    ("sum", tl.float16, tl.float16, tl.float16),  # measured: tl.sum keeps fp16
    ("max", tl.float16, tl.float32, tl.float32),  # measured: tl.max of fp16 is fp32
    ("min", tl.bfloat16, tl.float32, tl.float32),
    ("sum", tl.int8, tl.int32, tl.int32),
    ("sum", tl.uint16, tl.uint32, tl.uint32),
    ("sum", tl.int1, tl.int32, tl.int32),
    ("max", tl.int16, tl.int32, tl.int32),
    ("max", tl.float32, tl.float32, tl.float32),
    ("argmax", tl.float16, tl.float16, tl.int32),  # measured: argmax returns int32
    ("argmin", tl.int64, tl.int64, tl.int32),
])
def test_reduction_types(kind, e, compute, result):
    assert semantic.reduction(kind, tile(e, (4, 8)), 1, False) == (compute, tile(result, (4,)))


def test_reduction_shapes():
    t = tile(tl.float32, (4, 8))
    assert semantic.reduction("sum", t, None, False)[1] == tl.float32
    assert semantic.reduction("sum", t, None, True)[1] == tile(tl.float32, (1, 1))
    assert semantic.reduction("sum", t, -2, True)[1] == tile(tl.float32, (1, 8))
    with pytest.raises(TypeRuleError, match="out of range"):
        semantic.reduction("sum", t, 2, False)


@pytest.mark.parametrize("name", sorted(semantic.FLOAT32_ONLY))
@pytest.mark.parametrize("e", [tl.float16, tl.bfloat16, tl.int32])
def test_transcendentals_reject_non_float32(name, e):
    with pytest.raises(TypeRuleError, match=f"tl.{name} expects float32") as info:
        semantic.unary_math(name, tile(e))
    assert info.value.hint == "convert with .to(tl.float32) first"
    assert semantic.unary_math(name, tile(tl.float32)) == tile(tl.float32)


def test_abs_keeps_any_number_type():
    assert semantic.unary_math("abs", tile(tl.float16)) == tile(tl.float16)
    assert semantic.unary_math("abs", tl.int8) == tl.int8


def test_casts():
    assert semantic.cast(tile(tl.float32), tl.int32, bitcast=True) == ("bitcast", tile(tl.int32))
    assert semantic.cast(tile(tl.float16), tl.float32, bitcast=False) == ("cast", tile(tl.float32))
    with pytest.raises(TypeRuleError, match=r"cannot bitcast tl.float32 \(32 bits\) to tl.int16"):
        semantic.cast(tile(tl.float32), tl.int16, bitcast=True)
    with pytest.raises(TypeRuleError, match="Metal has no double"):
        semantic.cast(tile(tl.float32), tl.float64, bitcast=False)


def test_store_and_load_shapes():
    p = tile(ir.ptr(tl.float16), (4, 8))
    assert semantic.load(p, tile(tl.int1, (1, 8))) == tile(tl.float16, (4, 8))
    semantic.store(p, tile(tl.float32, (8,)), tile(tl.int1, (4, 1)))  # value and mask broadcast to the pointers
    with pytest.raises(TypeRuleError, match=r"value of shape \[16\] does not fit pointers of shape \[4, 8\]"):
        semantic.store(p, tile(tl.float32, (16,)), None)
    with pytest.raises(TypeRuleError, match="does not fit"):
        semantic.store(ir.ptr(tl.float32), tile(tl.float32, (8,)), None)  # no broadcast of pointers to values


def test_block_shapes_are_powers_of_two():
    assert semantic.check_block_shape((1, 64)) == (1, 64)
    with pytest.raises(TypeRuleError, match="power of two"):
        semantic.check_block_shape((4, 48))
