"""Triton's interpreter as the semantics oracle (issue 4).

Every kernel of kernels.py runs on Triton's interpreter (TRITON_INTERPRET=1, torch CPU tensors) and
on metalforge (emulator): Triton's outputs must match a numpy reference (which checks this file's
reading of Triton), and metalforge's must match Triton's. Where metalforge disagrees the test is
`xfail(strict=True)` with the difference as its reason. Inputs are fresh each run (`rng`).
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="conformance suite needs torch and triton: pip install -e '.[conformance]'")
pytest.importorskip("triton", reason="conformance suite needs torch and triton: pip install -e '.[conformance]'")

from .harness import BF16, DT, NP, Out, bf16_round, compare  # noqa: E402

BLOCK = 64
N = 157  # odd: the last program's mask cuts a partial block


def grid1(n: int = N, block: int = BLOCK) -> tuple[int]:
    return (-(-n // block),)


def ints(rng, dtype, n=N, lo=None, hi=None, nonzero=False):
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    a = rng.integers(lo, hi, size=n, endpoint=True, dtype=np.int64)
    if nonzero:
        a[a == 0] = 1
    return a.astype(dtype)


def c_div(a, b):
    """C / LLVM sdiv: quotient truncated toward zero."""
    q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
    return (np.sign(a.astype(np.int64)) * np.sign(b.astype(np.int64)) * q)


# --- integer // and % ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int32", "int8", "int16", "int64", "uint32", "uint8"])
def test_integer_divmod_truncates(both, rng, dtype):
    t = NP[dtype]
    a = ints(rng, t)
    b = ints(rng, t, lo=None if np.iinfo(t).min == 0 else -50, hi=50, nonzero=True)
    if np.iinfo(t).min < 0:
        a[a == np.iinfo(t).min] += 1  # MIN // -1 overflows (UB in C and LLVM)
        a[:4], b[:4] = [-7, 7, -7, 7], [2, -2, -2, 2]  # the textbook cases
    q = c_div(a, b).astype(t)
    r = (a.astype(np.int64) - q.astype(np.int64) * b.astype(np.int64)).astype(t)
    both.check("divmod_kernel", grid1(), (a, b, Out(N, dtype), Out(N, dtype), N), [q, r], consts={"BLOCK": BLOCK})


@pytest.mark.parametrize("d", [3, -3, 7])
def test_integer_divmod_by_constexpr(both, rng, d):
    a = ints(rng, np.int32, lo=-1000, hi=1000)
    q = c_div(a, np.full_like(a, d)).astype(np.int32)
    both.check("divmod_const_kernel", grid1(), (a, Out(N, "int32"), Out(N, "int32"), N),
               [q, (a - q * d).astype(np.int32)], consts={"D": d, "BLOCK": BLOCK})


def test_float_mod_is_fmod(both, rng):
    x = rng.uniform(-10, 10, N).astype(np.float32)
    y = rng.uniform(0.5, 3, N).astype(np.float32) * rng.choice([-1, 1], N).astype(np.float32)
    both.check("float_mod_kernel", grid1(), (x, y, Out(N, "float32"), N), [np.fmod(x, y)],
               consts={"BLOCK": BLOCK})


def test_float_floordiv_rejected(both, rng):
    x = rng.uniform(-10, 10, N).astype(np.float32)
    both.raises("float_floordiv_kernel", grid1(), (x, x, Out(N, "float32"), N), consts={"BLOCK": BLOCK})


@pytest.mark.parametrize("dtype,out", [("int32", "float32"), ("int8", "float32"), ("float16", "float32")])
def test_true_division_dtype(both, rng, dtype, out):
    """int / int is fp32; fp16 / fp16 is fp32 too (Triton computes / and % of halves in fp32)."""
    if dtype == "float16":
        a = rng.uniform(-4, 4, N).astype(np.float16)
        b = rng.uniform(0.5, 4, N).astype(np.float16)
        want = a.astype(np.float32) / b.astype(np.float32)
    else:
        a = ints(rng, NP[dtype], lo=-100, hi=100)
        b = ints(rng, NP[dtype], lo=-100, hi=100, nonzero=True)
        want = a.astype(np.float32) / b.astype(np.float32)
    both.check("true_div_kernel", grid1(), (a, b, Out(N, out), N), [want],
               consts={"OUT": DT(out), "BLOCK": BLOCK}, rtol=1e-6 if out == "float32" else 1e-3)


# --- int32 op uint32 ------------------------------------------------------------------------------------
def test_int32_op_uint32_is_uint32(both, rng):
    a = ints(rng, np.int32)
    b = ints(rng, np.uint32, lo=1)
    a[:3] = [-1, -2**31, 5]
    b[:3] = [1, 2**31 + 7, 2**32 - 1]
    au = a.astype(np.uint32)
    want = [au + b, au - b, au * b, (au < b).astype(np.int32), np.maximum(au, b)]
    outs = [Out(N, "uint32")] * 3 + [Out(N, "int32"), Out(N, "uint32")]
    both.check("mixed_sign_kernel", grid1(), (a, b, *outs, N), want, consts={"OUT": DT("uint32"), "BLOCK": BLOCK})


@pytest.mark.parametrize("op", ["//", "%", "/"])
def test_int_divmod_mixed_signedness_rejected(both, rng, op):
    """int32 //, % or / uint32 is a compile-time TypeError in Triton ("different signedness")."""
    a = ints(rng, np.int32)
    b = ints(rng, np.uint32, lo=1)
    both.raises("mixed_sign_div_kernel", grid1(), (a, b, Out(N, "float32" if op == "/" else "uint32"), N),
                consts={"OP": op, "BLOCK": BLOCK})


# --- shifts, bitwise, wrap-around --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int32", "uint32", "int8", "uint8", "int64"])
def test_shifts_arithmetic_signed_logical_unsigned(both, rng, dtype):
    t = NP[dtype]
    bits = np.iinfo(t).bits
    a = ints(rng, t)
    s = rng.integers(0, bits, N).astype(t)
    with np.errstate(over="ignore"):
        want = [a >> s, a << s, a >> t(3)]
    both.check("shift_kernel", grid1(), (a, s, Out(N, dtype), Out(N, dtype), Out(N, dtype), N), want,
               consts={"BLOCK": BLOCK})


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int16", "uint8"])
def test_bitwise(both, rng, dtype):
    t = NP[dtype]
    a, b = ints(rng, t), ints(rng, t)
    want = [a & b, a | b, a ^ b]
    both.check("bitwise_kernel", grid1(), (a, b, *[Out(N, dtype)] * 3, N), want, consts={"BLOCK": BLOCK})


@pytest.mark.parametrize("dtype", ["int32", "int8", "int64"])
def test_invert(both, rng, dtype):
    """`~` (signed only: Triton's interpreter cannot invert unsigned tensors, it xors with -1)."""
    a = ints(rng, NP[dtype])
    both.check("invert_kernel", grid1(), (a, Out(N, dtype), N), [~a], consts={"BLOCK": BLOCK})


@pytest.mark.parametrize("dtype", ["int32", "int8", "float16"])
def test_negate(both, rng, dtype):
    """Unary minus (signed and float only: Triton's interpreter cannot negate unsigned tensors)."""
    x = _values(rng, dtype) if dtype == "float16" else ints(rng, NP[dtype], lo=np.iinfo(NP[dtype]).min + 1)
    both.check("negate_kernel", grid1(), (x, Out(N, dtype), N), [-x], consts={"BLOCK": BLOCK})


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint16"])
def test_integer_overflow_wraps(both, rng, dtype):
    t = NP[dtype]
    a, b = ints(rng, t), ints(rng, t)
    with np.errstate(over="ignore"):
        want = [a + b, a * b]
    both.check("wrap_kernel", grid1(), (a, b, Out(N, dtype), Out(N, dtype), N), want, consts={"BLOCK": BLOCK})


# --- math functions -------------------------------------------------------------------------------------------
MATH = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
        "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos, "floor": np.floor, "ceil": np.ceil,
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "abs": np.abs,
        "erf": np.vectorize(__import__("math").erf)}


@pytest.mark.parametrize("fn", sorted(MATH))
def test_math_float32(both, rng, fn):
    positive = fn in ("log", "log2", "sqrt", "rsqrt")
    x = rng.uniform(0.05 if positive else -4, 4, N).astype(np.float32)
    want = MATH[fn](x.astype(np.float64)).astype(np.float32)
    both.check("unary_math_kernel", grid1(), (x, Out(N, "float32"), N), [want],
               consts={"FN": fn, "BLOCK": BLOCK}, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["exp", "log", "sqrt", "sin", "floor"])
def test_math_rejects_half(both, rng, fn, dtype):
    """tl.exp/log/sqrt/... take fp32/fp64 only: a half input is a compile-time error on both sides."""
    x = rng.uniform(0.5, 2, N).astype(np.float32)
    arg = BF16(x) if dtype == "bfloat16" else x.astype(np.float16)
    both.raises("unary_math_kernel", grid1(), (arg, Out(N, "float32"), N), consts={"FN": fn, "BLOCK": BLOCK})


def test_abs_accepts_half(both, rng):
    x = rng.uniform(-2, 2, N).astype(np.float16)
    both.check("unary_math_kernel", grid1(), (x, Out(N, "float16"), N), [np.abs(x)],
               consts={"FN": "abs", "BLOCK": BLOCK})


def test_fma_and_clamp(both, rng):
    x, y, z = (rng.uniform(-2, 2, N).astype(np.float32) for _ in range(3))
    want = [(x.astype(np.float64) * y + z).astype(np.float32), np.clip(x, -0.5, 0.75)]
    both.check("ternary_math_kernel", grid1(), (x, y, z, Out(N, "float32"), Out(N, "float32"), N), want,
               consts={"BLOCK": BLOCK}, rtol=1e-6, atol=1e-6)


# --- type promotion --------------------------------------------------------------------------------------------
def _values(rng, dtype, n=N):
    if dtype in ("float32", "float16"):
        return rng.uniform(-4, 4, n).astype(NP[dtype])
    if dtype == "bfloat16":
        return BF16(bf16_round(rng.uniform(-4, 4, n).astype(np.float32)))
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(np.bool_)
    info = np.iinfo(NP[dtype])
    return ints(rng, NP[dtype], n, lo=max(info.min, -100), hi=min(info.max, 100))


def _f64(v):
    return (v.values if isinstance(v, BF16) else v).astype(np.float64)


def _round(v: np.ndarray, dtype: str) -> np.ndarray:
    """A float64 result rounded to `dtype` as a kernel would produce it (one rounding)."""
    if dtype == "bfloat16":
        return bf16_round(v.astype(np.float32))  # float64 -> f32 -> bf16: exact here (small products)
    return v.astype(NP[dtype])


@pytest.mark.parametrize("xt,yt,out", [
    ("float16", "float32", "float32"),
    ("bfloat16", "float16", "float16"),
    # (a half operand wins over bf16: Triton's rule 3 comes before rule 4)
    ("bfloat16", "float32", "float32"),
    ("float16", "float16", "float16"),
    ("int8", "int16", "int16"),
    ("int8", "uint8", "uint8"),
    ("uint16", "int32", "int32"),
    ("int32", "float16", "float16"),
    ("int64", "float32", "float32"),
    ("bool", "int8", "int8"),
])
def test_binary_promotion(both, rng, xt, yt, out):
    x, y = _values(rng, xt), _values(rng, yt)
    if out.startswith(("float", "bfloat")):
        want = [_round(_f64(x) + _f64(y), out), _round(_f64(x) * _f64(y), out)]
    else:
        t = NP[out]
        with np.errstate(over="ignore"):
            want = [x.astype(t) + y.astype(t), x.astype(t) * y.astype(t)]
    both.check("binop_promote_kernel", grid1(), (x, y, Out(N, out), Out(N, out), N), want,
               consts={"OUT": DT(out), "BLOCK": BLOCK})


@pytest.mark.parametrize("xt,s,out", [
    ("int32", 2.5, "float32"),   # python float * int tensor -> fp32
    ("int8", 3, "int8"),         # python int keeps the tensor's integer type
    ("float16", 2.5, "float16"),  # python float keeps the tensor's float type
    ("uint8", 2, "uint8"),
])
def test_constexpr_scalar_promotion(both, rng, xt, s, out):
    x = _values(rng, xt)
    if out.startswith(("float", "bfloat")):
        want = _round(_f64(x) * s, out)
    else:
        with np.errstate(over="ignore"):
            want = x * NP[out](s)
    both.check("const_promote_kernel", grid1(), (x, Out(N, out), N), [want],
               consts={"S": s, "OUT": DT(out), "BLOCK": BLOCK})


@pytest.mark.parametrize("xt,s", [("int16", 2**20), ("uint8", -1), ("int8", 300)])
def test_constexpr_scalar_out_of_range_rejected(both, rng, xt, s):
    """A Python int that does not fit the integer tile's type (or a negative one with an unsigned tile)
    is a compile-time ValueError in Triton, not a silent wrap or widening."""
    x = _values(rng, xt)
    both.raises("const_mul_kernel", grid1(), (x, Out(N, "int32"), N), consts={"S": s, "BLOCK": BLOCK})
    # and in tl.where, whose constants Triton checks the same way (metalforge wrapped 300 to 44 there)
    both.raises("const_where_kernel", grid1(), (x, Out(N, "int32"), N), consts={"S": s, "BLOCK": BLOCK})


# Not compared: fp16 tile * runtime float argument. Compiled Triton passes the argument as an fp32
# scalar (result fp32, as metalforge does); Triton's interpreter keeps it a Python float (result fp16).
@pytest.mark.parametrize("xt,s,out", [
    ("int8", 3, "int32"),         # a runtime int argument is an int32 scalar: int8 * int32 -> int32
    ("uint8", 3, "int32"),
    ("int32", 1.5, "float32"),
])
def test_runtime_scalar_promotion(both, rng, xt, s, out):
    x = _values(rng, xt)
    want = (_f64(x) * s).astype(NP[out])
    both.check("scalar_arg_promote_kernel", grid1(), (x, Out(N, out), s, N), [want],
               consts={"OUT": DT(out), "BLOCK": BLOCK})


@pytest.mark.parametrize("xt,out", [
    ("float16", "float16"), ("int8", "int8"), ("uint32", "uint32"),
    ("bfloat16", "float32"),
])
def test_minimum_maximum_dtype(both, rng, xt, out):
    x, y = _values(rng, xt), _values(rng, xt)
    fx, fy = _f64(x), _f64(y)
    want = [np.minimum(fx, fy).astype(NP[out]), np.maximum(fx, fy).astype(NP[out])]
    both.check("minmax_promote_kernel", grid1(), (x, y, Out(N, out), Out(N, out), N), want,
               consts={"OUT": DT(out), "BLOCK": BLOCK})


@pytest.mark.parametrize("xt,s,bounds,out", [
    ("int8", 0, None, "int32"),  # int32: x * 3 does not wrap at int8
    ("uint8", 3, None, "int32"),
    ("float16", 0.0, (-0.5, 0.75), "float32"),
    ("float16", 0, (-1, 1), "float16"),  # an int constant is an int32 tile: float16 wins
    ("bfloat16", 1.0, (-0.5, 0.75), "float32"),
])
def test_minimum_maximum_and_clamp_make_python_constants_tiles(both, rng, xt, s, bounds, out):
    """tl.maximum, tl.minimum, tl.clamp (and tl.fma) make a Python constant a tile of its own type
    before promoting (Triton's core.py), unlike the arithmetic operators, where a constant takes the
    tile's type: `tl.maximum(x_f16, 0.0)` is float32 and `tl.maximum(x_i8, 0)` int32."""
    x = _values(rng, xt)
    fx = _f64(x)
    lo, hi = bounds or (0, 0)
    want = [(np.maximum(fx, s) * 3).astype(NP[out]), np.clip(fx, lo, hi).astype(NP[out]) if bounds else None]
    both.check("const_minmax_clamp_kernel", grid1(), (x, Out(N, out), Out(N, out, init=0), N), want,
               consts={"S": s, "LO": lo, "HI": hi, "OUT": DT(out), "CLAMPED": bounds is not None, "BLOCK": BLOCK})


@pytest.mark.parametrize("xt,s,out", [("float16", 0, "float16"), ("int32", 0.5, "float32"), ("int8", -1, "int8")])
def test_where_promotion(both, rng, xt, s, out):
    x = _values(rng, xt)
    want = np.where(_f64(x) > 0, _f64(x), s).astype(NP[out])
    both.check("where_promote_kernel", grid1(), (x, Out(N, out), N), [want],
               consts={"S": s, "OUT": DT(out), "BLOCK": BLOCK})


# --- stores convert, casts, bitcasts --------------------------------------------------------------------------
def _convert(x: np.ndarray, src: str, dst: str, store: bool = False) -> np.ndarray:
    """Triton's conversion of in-range values: float->int truncates toward zero, int->int wraps.
    To bool, `.to(tl.int1)` is `!= 0`, but a store to a bool pointer converts to int8 first (Triton
    stores `*i1` as bytes): 0.5 stores False and 256 stores False."""
    if dst == "bool":
        if store:
            return _convert(x, src, "int8") != 0
        return x != 0
    if src in ("float32", "float16", "bfloat16") and dst not in ("float32", "float16"):
        return np.trunc(x.astype(np.float64)).astype(np.int64).astype(NP[dst])
    return x.astype(NP[dst])


# fp32 -> bf16 is tested separately (test_bf16_rounding): Triton's interpreter truncates there.
CONVERSIONS = [
    ("float32", "int32"), ("float32", "float16"), ("int32", "float32"), ("int32", "int8"), ("float16", "float32"),
    ("float32", "uint8"), ("int32", "bool"), ("float32", "bool"), ("uint8", "int32"), ("int8", "uint32"),
    ("float16", "int16"), ("bool", "float32"), ("int32", "uint16"),
]


def _src(rng, src: str, dst: str) -> np.ndarray:
    if src == "bool":
        return rng.integers(0, 2, N).astype(np.bool_)
    if src == "int32":
        if dst == "bool":
            x = ints(rng, np.int32, lo=-3, hi=3)
            x[:4] = [256, -256, 512, 257]  # zero low byte: `.to(int1)` True, stored False
        else:
            x = ints(rng, np.int32)  # all of int32: int8/uint16 wrap, float32 rounds
    elif src in ("int8", "uint8"):
        x = ints(rng, NP[src])
    else:
        lo, hi = (0.0, 255.0) if dst == "uint8" else (-100.0, 100.0)
        x = rng.uniform(lo, hi, N).astype(NP[src])
        x[:4] = [0.0, 1.5, 2.5, 0.99] if dst == "uint8" else [-2.7, 2.7, -0.5, 0.0]
        if dst == "bool":
            x[::3] = 0
            x[1::3] = rng.uniform(-0.99, 0.99, len(x[1::3]))  # nonzero, truncates to 0
    return x




@pytest.mark.parametrize("src,dst", [
    (s, d) for s, d in CONVERSIONS])
def test_store_converts_to_pointee(both, rng, src, dst):
    x = _src(rng, src, dst)
    both.check("store_convert_kernel", grid1(), (x, Out(N, dst), N), [_convert(x, src, dst, store=True)],
               consts={"BLOCK": BLOCK})


@pytest.mark.parametrize("src,dst", CONVERSIONS)
def test_to_casts(both, rng, src, dst):
    x = _src(rng, src, dst)
    both.check("cast_kernel", grid1(), (x, Out(N, dst), N), [_convert(x, src, dst)],
               consts={"DST": DT(dst), "BLOCK": BLOCK})


def _rtz(x: np.ndarray, dst: str) -> np.ndarray:
    """float32 -> dst rounded toward zero (as float32 for bfloat16)."""
    if dst == "bfloat16":
        return (x.view(np.uint32) & 0xFFFF0000).view(np.float32)
    r = x.astype(np.float16)
    over = np.abs(r.astype(np.float32)) > np.abs(x)
    r[over] = np.nextafter(r[over], np.float16(0))
    return r


def _downcast_input(rng) -> np.ndarray:
    x = rng.uniform(-300, 300, N).astype(np.float32)
    u = x.view(np.uint32)
    u[(u & 0xFFFF) == 0x8000] |= 1  # no exact bf16 ties
    return x


@pytest.mark.parametrize("dst", ["float16", "bfloat16"])
def test_downcast_rounding_rtz(both, rng, dst):
    x = _downcast_input(rng)
    both.check("downcast_rounding_kernel", grid1(), (x, Out(N, dst), N), [_rtz(x, dst)],
               consts={"DST": DT(dst), "MODE": "rtz", "BLOCK": BLOCK})


@pytest.mark.parametrize("dst", ["float16", "bfloat16"])
def test_downcast_rounding_rtne(both, rng, dst):
    """fp_downcast_rounding="rtne" (and plain `.to`) round to nearest even. Checked against numpy only:
    Triton's interpreter truncates fp32 -> bf16 here (compiled Triton rounds to nearest)."""
    x = _downcast_input(rng)
    want = bf16_round(x) if dst == "bfloat16" else x.astype(np.float16)
    for mode in ("rtne", None):
        ours = both.mf.run("downcast_rounding_kernel", grid1(), x, Out(N, dst), N, DST=DT(dst), MODE=mode,
                           BLOCK=BLOCK)
        compare(ours[0], want, f"metalforge .to({dst}, fp_downcast_rounding={mode!r}) vs numpy")


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"), ("float32", "uint32"),
                                     ("float16", "int16"), ("uint16", "float16"), ("bfloat16", "int16")])
def test_bitcast(both, rng, src, dst):
    if src == "bfloat16":
        v = bf16_round(rng.uniform(-4, 4, N).astype(np.float32))
        x, bits = BF16(v), (v.view(np.uint32) >> 16).astype(np.uint16).view(np.int16)
        want = bits
    else:
        x = _values(rng, src) if src != "int32" else ints(rng, np.int32, lo=0, hi=0x3F000000)
        want = x.view(NP[dst])
    both.check("bitcast_kernel", grid1(), (x, Out(N, dst), N), [want], consts={"DST": DT(dst), "BLOCK": BLOCK})


def test_pointer_element_ty(both, rng):
    x = rng.uniform(-50, 50, N).astype(np.float32)
    both.check("element_ty_kernel", grid1(), (x, Out(N, "int16"), N),
               [np.trunc(x.astype(np.float64) * 3).astype(np.int16)], consts={"BLOCK": BLOCK})


# --- masked loads, NaN ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,other", [("float32", -1.5), ("int32", -7), ("float16", 0.25), ("uint8", 200)])
def test_masked_load_other(both, rng, dtype, other):
    n = 23
    x = _values(rng, dtype, n) if dtype != "uint8" else ints(rng, np.uint8, n=n)
    want = np.concatenate([x, np.full(BLOCK - n, other, NP[dtype])])
    both.check("masked_other_kernel", (1,), (x, Out(BLOCK, dtype), n), [want],
               consts={"OTHER": other, "BLOCK": BLOCK})


def test_nan_where_and_comparisons(both, rng):
    x = rng.uniform(-1, 1, N).astype(np.float32)
    y = rng.uniform(-1, 1, N).astype(np.float32)
    x[rng.random(N) < 0.3] = np.nan
    y[rng.random(N) < 0.3] = np.nan
    y[:2] = x[:2]
    with np.errstate(invalid="ignore"):
        sel = np.where(x > y, x, y)
        bits = ((x < y).astype(np.int32) + 2 * (x == y) + 4 * (x != y) + 8 * (x != x)).astype(np.int32)
    both.check("nan_kernel", grid1(), (x, y, Out(N, "float32"), Out(N, "int32"), N), [sel, bits],
               consts={"BLOCK": BLOCK})


# --- reductions --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,dt", [("int8", "int8"), ("uint8", "uint8"), ("int16", "int16"), ("int8", "int32")])
def test_sum_and_cumsum_in_a_given_dtype_do_not_widen(both, rng, dtype, dt):
    """`tl.sum(x, dtype=...)` and `tl.cumsum(x, dtype=...)` compute in that type, narrow or not (Triton's
    _pick_sum_dtype; metalforge widened int8 to int32). The values keep every partial sum in range:
    Triton's interpreter overflows converting a wrapped int8 sum."""
    n = 32
    x = ints(rng, NP[dtype], n, lo=0 if dtype.startswith("u") else -3, hi=3)
    t = NP[dt]
    with np.errstate(over="ignore"):
        scan = np.cumsum(x.astype(t), dtype=t)
    both.check("sum_dtype_kernel", (1,), (x, Out(1, dt), Out(n, dt), n), [scan[-1:], scan],
               consts={"DT": DT(dt), "BLOCK": n})


@pytest.mark.parametrize("dtype,sum_t,max_t", [
    ("float16", "float16", "float32"),   # tl.sum keeps fp16, tl.max/min return fp32
    ("bfloat16", "bfloat16", "float32"),
    ("float32", "float32", "float32"),
    ("int8", "int32", "int32"),          # small ints: sum and max/min in int32
    ("uint8", "uint32", "int32"),        # unsigned: sum in uint32, max/min in int32
    ("int16", "int32", "int32"),
    ("int64", "int64", "int64"),
])
def test_reduction_result_dtypes(both, rng, dtype, sum_t, max_t):
    n = 45
    x = _values(rng, dtype, n)
    v = _f64(x)
    low, high = (0, 255) if dtype == "uint8" else (-1000, 1000)
    if dtype in ("float16", "bfloat16"):
        tol = dict(rtol=2e-2, atol=0.25)  # a half-precision sum rounds at every step, in any order
    else:
        tol = dict(rtol=1e-6, atol=1e-5) if dtype == "float32" else {}
    want = [np.array(v.sum()).astype(NP[sum_t]), np.array(v.max()).astype(NP[max_t]),
            np.array(v.min()).astype(NP[max_t])]
    want = [w.reshape(1) for w in want]
    if dtype == "bfloat16":
        want[0] = None  # the interpreter adds bf16 as raw uint16 bits: only the dtype (static_assert) is checked
    both.check("reduce_dtype_kernel", (1,), (x, Out(1, sum_t), Out(1, max_t), Out(1, max_t), n),
               want, consts={"LOW": low, "HIGH": high, "SUM_T": DT(sum_t), "MAX_T": DT(max_t), "BLOCK": 64},
               **tol)


@pytest.mark.parametrize("n", [37, 64])
def test_argmax_argmin_int32_first_on_ties(both, rng, n):
    x = rng.integers(-3, 4, n).astype(np.float32)  # many ties
    both.check("argreduce_kernel", (1,), (x, Out(1, "int32"), Out(1, "int32"), n),
               [np.array([np.argmax(x)], np.int32), np.array([np.argmin(x)], np.int32)], consts={"BLOCK": 64})


@pytest.mark.parametrize("num_warps", [1, 8])
def test_reductions_along_axes_2d(both, rng, num_warps):
    M, Nn = 13, 27
    stride = 32
    x = np.zeros((M, stride), np.float32)
    x[:, :Nn] = rng.integers(-4, 5, (M, Nn)).astype(np.float32)  # exact sums, ties for argmax
    v = x[:, :Nn]
    want = [v.sum(0), v.sum(1), v.max(0), v.max(1), np.argmax(v, 1).astype(np.int32), v.min(1),
            np.array([v.sum()], np.float32)]
    outs = [Out(Nn, "float32"), Out(M, "float32"), Out(Nn, "float32"), Out(M, "float32"), Out(M, "int32"),
            Out(M, "float32"), Out(1, "float32")]
    both.check("reduce_2d_kernel", (1,), (x.reshape(-1), *outs, M, Nn, stride), want,
               consts={"BM": 16, "BN": 32}, num_warps=num_warps)


def test_user_combine_reduce(both, rng):
    M, Nn = 11, 19
    x = rng.uniform(-3, 3, (M, Nn)).astype(np.float32)
    both.check("user_reduce_kernel", (1,), (x.reshape(-1), Out(M, "float32"), M, Nn), [np.abs(x).max(1)],
               consts={"BM": 16, "BN": 32})


@pytest.mark.parametrize("dtype,out,reverse", [
    ("float32", "float32", False), ("int32", "int32", True), ("int8", "int32", False),
    ("float16", "float16", False), ("uint8", "uint32", True),
    ("bfloat16", "float32", False),
])
def test_cumsum(both, rng, dtype, out, reverse):
    n = 50
    x = _values(rng, dtype, n)
    v = _f64(x)[::-1] if reverse else _f64(x)
    c = np.cumsum(v)
    c = c[::-1] if reverse else c
    tol = dict(rtol=1e-2, atol=0.1) if dtype == "float16" else (dict(rtol=1e-6, atol=1e-5) if "float" in out else {})
    with np.errstate(over="ignore"):
        want = c.astype(np.int64).astype(NP[out]) if NP[out] != np.float32 and "float" not in out else c.astype(NP[out])
    both.check("cumsum_kernel", (1,), (x, Out(n, out), n), [want],
               consts={"OUT": DT(out), "REVERSE": reverse, "BLOCK": 64}, **tol)


@pytest.mark.parametrize("num_warps", [1, 8])
def test_cumsum_2d_axes(both, rng, num_warps):
    M, Nn = 9, 21
    x = rng.integers(-50, 50, (M, Nn)).astype(np.int32)
    both.check("cumsum_2d_kernel", (1,), (x.reshape(-1), Out(M * Nn, "int32"), Out(M * Nn, "int32"), M, Nn),
               [np.cumsum(x, 0).reshape(-1).astype(np.int32), np.cumsum(x, 1).reshape(-1).astype(np.int32)],
               consts={"BM": 16, "BN": 32}, num_warps=num_warps)


# --- broadcasting ------------------------------------------------------------------------------------------------
def test_broadcast_outer_and_trans(both, rng):
    M, Nn = 19, 45
    a = ints(rng, np.int32, n=M, lo=-9, hi=9)
    b = rng.uniform(-2, 2, Nn).astype(np.float32)
    o = (a[:, None].astype(np.float32) * b[None, :] + a[:, None].astype(np.float32)).astype(np.float32)
    both.check("broadcast_kernel", (2, 3), (a, b, Out(M * Nn, "float32"), Out(M * Nn, "float32"), M, Nn),
               [o.reshape(-1), o.T.reshape(-1)], consts={"BM": 16, "BN": 16}, rtol=1e-6, atol=1e-6)


def test_compare_helper_catches_differences():
    """The comparison used above is strict on dtype and on values (a sanity check of the harness)."""
    compare(np.array([1.0, np.nan], np.float32), np.array([1.0, np.nan], np.float32), "same")
    with pytest.raises(AssertionError):
        compare(np.array([1, 2], np.int32), np.array([1, 2], np.uint32), "dtype")
    with pytest.raises(AssertionError):
        compare(np.array([1, 2], np.int32), np.array([1, 3], np.int32), "values")
