"""Random expressions over mixed element types: the generator (hypothesis strategies), their tl source,
and a float64 reference that carries each op's Triton type and an error bound through the tree
(test_random_expressions.py says how; tests/codegen/test_nvrtc.py compiles the same expressions for CUDA)."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from ..dsl.test_properties import promote
from .harness import BF16, NP, bf16_round

FLOATS = ("float16", "bfloat16", "float32")
INTS = ("int8", "uint8", "int32")
EPS = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 2.0 ** -24}  # unit roundoff
FN = 16 * EPS["float32"]  # a float32 math function's error, relative to max(1, |result|)
TILES = ["a", "b", "c", "r"]  # full tiles and a row vector broadcast along the rows
SCALARS = ["s", "k"]  # runtime scalars: float32 and int32
SOURCE = {"a": "a", "b": "b", "c": "c", "r": "r[None, :]", "s": "s", "k": "k"}
FUNCTIONS = ["exp", "log", "sqrt", "rsqrt", "sin", "cos", "sigmoid", "erf"]
CONSTS = [0.5, 1.25, -2.0, 3.0, -0.75, 0, 2, 7]  # exact in every float type


def result_type(x: str, x_literal: bool, y: str, y_literal: bool, div: bool) -> str:
    """Triton's type of a binary op (semantic.py, computation_type_impl), in this file's words: a Python
    constant does not promote a tile of its kind or a higher one; float32 wins, then float16 (float32 for
    / and %), two bfloat16 stay bfloat16 (float32 for / and %), bfloat16 with anything else is float32;
    integers promote by C's rules without its promotion to int."""
    if x_literal != y_literal:
        literal, tile = (x, y) if x_literal else (y, x)
        if (literal in FLOATS) <= (tile in FLOATS):
            return "float32" if div and tile in ("float16", "bfloat16") else tile
    if "float32" in (x, y):
        return "float32"
    if "float16" in (x, y):
        return "float32" if div else "float16"
    if x == y == "bfloat16":
        return "float32" if div else "bfloat16"
    if "bfloat16" in (x, y):
        return "float32"
    return promote(np.dtype(x), np.dtype(y)).name


class Val:
    """A subexpression: its exact value (float64, or the integer type's wrapped values), its type, a bound on
    its magnitude and a bound on one side's error against the exact value."""

    def __init__(self, v, t: str, bound, err) -> None:
        self.v, self.t, self.bound, self.err = v, t, np.asarray(bound, np.float64), np.asarray(err, np.float64)

    def to(self, t: str) -> Val:
        if t == self.t:
            return self
        if t in INTS:  # integer promotion: wraps as C does
            with np.errstate(over="ignore"):
                v = np.asarray(self.v).astype(np.int64).astype(NP[t])
            return Val(v, t, np.abs(v.astype(np.float64)), 0.0)
        v = np.asarray(self.v, np.float64)
        rounding = EPS[t] * self.bound if self.t in INTS else 0.0  # float to float only ever widens here
        return Val(v, t, self.bound, self.err + rounding)


class Refused(Exception):
    """Triton refuses the expression (and so must metalforge)."""


def literal(value) -> Val:
    t = "float32" if isinstance(value, float) else "int32"
    return Val(np.float64(value) if t == "float32" else np.int32(value), t, abs(value), 0.0)


def is_literal(e) -> bool:
    return e[0] == "const"


def evaluate(e, env: dict[str, Val]) -> Val:
    kind = e[0]
    if kind == "leaf":
        return env[e[1]]
    if kind in ("+", "-", "*", "minimum", "maximum"):
        x = evaluate(e[1], env)
        y = literal(e[2][1]) if is_literal(e[2]) else evaluate(e[2], env)
        if kind in ("minimum", "maximum"):  # Triton's core.py: a constant is a tile, bfloat16 is float32
            x, y = (v.to("float32") if v.t == "bfloat16" else v for v in (x, y))
            t = result_type(x.t, False, y.t, False, False)
        else:
            t = result_type(x.t, False, y.t, is_literal(e[2]), False)
        x, y = x.to(t), y.to(t)
        if t in INTS:
            f = {"+": np.add, "-": np.subtract, "*": np.multiply, "minimum": np.minimum, "maximum": np.maximum}[kind]
            with np.errstate(over="ignore"):
                v = np.asarray(f(x.v, y.v)).astype(NP[t])
            return Val(v, t, np.abs(v.astype(np.float64)), 0.0)
        if kind in ("minimum", "maximum"):
            f = np.minimum if kind == "minimum" else np.maximum
            return Val(f(x.v, y.v), t, np.maximum(x.bound, y.bound), np.maximum(x.err, y.err))
        if kind == "*":
            bound = x.bound * y.bound
            err = x.err * y.bound + y.err * x.bound + x.err * y.err + EPS[t] * bound
            return Val(x.v * y.v, t, bound, err)
        bound = x.bound + y.bound
        return Val(x.v + y.v if kind == "+" else x.v - y.v, t, bound, x.err + y.err + EPS[t] * bound)
    if kind == "/":  # by a tile leaf: exact, |y| >= 0.5; every division is float32 (Triton's truediv)
        x, y = evaluate(e[1], env), env[e[2]]
        if x.t in INTS and y.t in INTS and (x.t == "uint8") != (y.t == "uint8"):
            raise Refused(f"{x.t} / {y.t}: integers of different signedness")
        t = result_type(x.t, False, y.t, False, True)
        t = "float32" if t in INTS else t
        x = x.to(t)
        d = np.abs(np.asarray(y.v, np.float64))
        bound = x.bound / d
        return Val(x.v / np.asarray(y.v, np.float64), t, bound, x.err / d + 4 * EPS[t] * bound)
    if kind == "%":  # of two tile leaves: C's fmod, exact
        x, y = env[e[1]], env[e[2]]
        xt = "float32" if x.t in INTS and y.t in INTS else x.t  # the source converts x then
        t = result_type(xt, False, y.t, False, True)
        v = np.fmod(np.asarray(x.v, np.float64), np.asarray(y.v, np.float64))
        return Val(v, t, np.abs(np.asarray(y.v, np.float64)), 0.0)
    if kind == "where":
        _, lhs, op, rhs, xe, ye = e
        ct = result_type(env[lhs].t, False, env[rhs].t, False, False)  # compared in it: int8 < uint8 is unsigned
        l, r = env[lhs].to(ct).v, env[rhs].to(ct).v
        cond = {"<": l < r, ">=": l >= r, "!=": l != r}[op]
        x = evaluate(xe, env)
        y = literal(ye[1]) if is_literal(ye) else evaluate(ye, env)
        t = result_type(x.t, False, y.t, is_literal(ye), False)
        x, y = x.to(t), y.to(t)
        v = np.where(cond, x.v, y.v)
        if t in INTS:
            v = v.astype(NP[t])
        return Val(v, t, np.where(cond, x.bound, y.bound), np.where(cond, x.err, y.err))
    if kind == "fma":
        x, y, z = (evaluate(s, env) for s in e[1:])
        if x.t in INTS and y.t in INTS and z.t in INTS:
            x = x.to("float32")  # the source converts x then
        t = result_type(result_type(x.t, False, y.t, False, False), False, z.t, False, False)
        x, y, z = x.to(t), y.to(t), z.to(t)
        bound = x.bound * y.bound + z.bound
        err = x.err * y.bound + y.err * x.bound + x.err * y.err + z.err + 2 * EPS[t] * bound
        return Val(x.v * y.v + z.v, t, bound, err)
    if kind in ("abs", "neg"):
        x = evaluate(e[1], env)
        if x.t in INTS:
            with np.errstate(over="ignore"):
                v = np.abs(x.v) if kind == "abs" else np.negative(x.v)
            v = np.asarray(v).astype(NP[x.t])
            return Val(v, x.t, np.abs(v.astype(np.float64)), 0.0)
        return Val(np.abs(x.v) if kind == "abs" else -x.v, x.t, x.bound, x.err)
    assert kind == "fn", e
    name, x = e[1], evaluate(e[2], env).to("float32")
    v, b, err = np.asarray(x.v, np.float64), x.bound, x.err
    if name == "exp":  # of min(x, 2): derivative <= e^2
        out = np.exp(np.minimum(v, 2.0))
        return Val(out, "float32", np.exp(np.minimum(b, 2.0)), math.e ** 2 * err + FN * math.e ** 2)
    if name == "log":  # of |x| + 1: derivative <= 1
        bound = np.log(b + 1)
        return Val(np.log(np.abs(v) + 1), "float32", bound, err + EPS["float32"] * (b + 1) + FN * np.maximum(bound, 1))
    if name in ("sqrt", "rsqrt"):  # of |x| + 1: derivative <= 1/2
        bound = np.sqrt(b + 1) if name == "sqrt" else 1.0
        out = np.sqrt(np.abs(v) + 1)
        return Val(out if name == "sqrt" else 1 / out, "float32", bound,
                   (err + EPS["float32"] * (b + 1)) / 2 + FN * np.maximum(bound, 1))
    if name in ("sin", "cos"):  # of clamp(x, -8, 8)
        out = (np.sin if name == "sin" else np.cos)(np.clip(v, -8.0, 8.0))
        return Val(out, "float32", 1.0, err + FN)
    if name == "sigmoid":  # derivative <= 1/4
        return Val(1 / (1 + np.exp(-v)), "float32", 1.0, err / 4 + FN)
    assert name == "erf"  # derivative <= 2 / sqrt(pi)
    return Val(np.vectorize(math.erf)(v), "float32", 1.0, 1.13 * err + FN)


def source(e, env: dict[str, Val]) -> str:
    """The tl source of the tree (types from `env`, for the conversions the tree's ops need)."""
    kind = e[0]
    if kind == "leaf":
        return SOURCE[e[1]]
    if kind == "const":
        return repr(e[1])
    sub = [source(s, env) if isinstance(s, tuple) else s for s in e[1:]]
    if kind in "+-*":
        return f"({sub[0]} {kind} {sub[1]})"
    if kind == "/":
        return f"({sub[0]} / {SOURCE[e[2]]})"
    if kind == "%":
        x = SOURCE[e[1]]
        if env[e[1]].t in INTS and env[e[2]].t in INTS:
            x = f"{x}.to(tl.float32)"
        return f"({x} % {SOURCE[e[2]]})"
    if kind in ("minimum", "maximum"):
        return f"tl.{kind}({sub[0]}, {sub[1]})"
    if kind == "where":
        return f"tl.where({SOURCE[e[1]]} {e[2]} {SOURCE[e[3]]}, {sub[3]}, {sub[4]})"
    if kind == "fma":
        x = sub[0]
        if all(evaluate(s, env).t in INTS for s in e[1:]):
            x = f"{x}.to(tl.float32)"
        return f"tl.fma({x}, {sub[1]}, {sub[2]})"
    if kind == "abs":
        return f"tl.abs({sub[0]})"
    if kind == "neg":
        return f"(-{sub[0]})"
    name, x = e[1], sub[1]
    x32 = x if evaluate(e[2], env).t == "float32" else f"{x}.to(tl.float32)"
    if name in ("sin", "cos"):  # clamp with Python bounds promotes any tile to float32 (Triton's rules)
        return f"tl.{name}(tl.clamp({x}, -8.0, 8.0))"
    if name == "exp":
        return f"tl.exp(tl.minimum({x32}, 2.0))"
    if name in ("log", "sqrt", "rsqrt"):
        return f"tl.{name}(tl.abs({x32}) + 1.0)"
    return f"tl.{name}({x32})"


def extend(children):
    const = st.sampled_from(CONSTS).map(lambda v: ("const", v))
    binop = st.tuples(st.sampled_from(["+", "-", "*"]), children, st.one_of(children, const))
    divide = st.tuples(st.just("/"), children, st.sampled_from(TILES))
    modulo = st.tuples(st.just("%"), st.sampled_from(TILES), st.sampled_from(TILES))
    minmax = st.tuples(st.sampled_from(["minimum", "maximum"]), children, st.one_of(children, const))
    where = st.tuples(st.just("where"), st.sampled_from(TILES + ["s"]), st.sampled_from(["<", ">=", "!="]),
                      st.sampled_from(TILES + ["k"]), children, st.one_of(children, const))
    fma = st.tuples(st.just("fma"), children, children, children)
    unary = st.tuples(st.sampled_from(["abs", "neg"]), children)
    function = st.tuples(st.just("fn"), st.sampled_from(FUNCTIONS), children)
    return st.one_of(binop, divide, modulo, minmax, where, fma, unary, function)


EXPR = st.recursive(st.sampled_from(TILES + SCALARS).map(lambda v: ("leaf", v)), extend, max_leaves=6)
TYPES = st.tuples(*[st.sampled_from(FLOATS + INTS)] * 4)  # of a, b, c and r

KERNEL = '''
def generated(a_ptr, b_ptr, c_ptr, r_ptr, out_ptr, s, k, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    c = tl.load(c_ptr + offs, mask=mask, other=1)
    r = tl.load(r_ptr + rn, mask=rn < N, other=1)
    result = {expr}
    tl.static_assert(result.dtype == out_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, result, mask=mask)
'''


def leaf_values(rng, t: str, shape) -> np.ndarray:
    """Floats of magnitude 0.5-2 exact in their type; integers of magnitude 1-4 (never 0: they divide)."""
    if t in INTS:
        v = rng.integers(1, 4, size=shape, endpoint=True)
        return (v if t == "uint8" else v * rng.choice([-1, 1], size=shape)).astype(NP[t])
    v = (rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)).astype(np.float32)
    return bf16_round(v) if t == "bfloat16" else v.astype(NP[t])


def leaves(rng, types, M: int, N: int) -> tuple[list, dict[str, Val]]:
    """The tiles a, b, c, r of `types` (as the harness takes them) and every leaf's Val, with the scalars s
    and k."""
    inputs, env = [], {}
    for name, t in zip(TILES, types):
        v = leaf_values(rng, t, (M, N) if name != "r" else (1, N))
        inputs.append(BF16(v.reshape(-1)) if t == "bfloat16" else v.reshape(-1))
        env[name] = Val(v, t, np.abs(v.astype(np.float64)), 0.0)
    s = float(leaf_values(rng, "float32", ()))
    k = int(rng.integers(2, 3, endpoint=True))  # not 1: Triton specialises an int of 1 as a constant
    env["s"], env["k"] = Val(np.float64(s), "float32", abs(s), 0.0), Val(np.int32(k), "int32", k, 0.0)
    return inputs, env
