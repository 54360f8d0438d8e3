"""The index simplifier (codegen/lir_lir_passes/simplify.py): random integer expressions over hardware
indices and unrolled loop variables keep their value for every value the operands can take."""
from __future__ import annotations

import itertools

import numpy as np

from metalforge.codegen import lir
from metalforge.codegen.lir import Bin, Lit, Special, Sym
from metalforge.codegen.lir_passes.simplify import simplify_indices
from metalforge.dsl import ir

WARPS, STEP, TRIPS = 4, 4, 4  # a slot loop `for (k = 0; k < 16; k += 4)` in a 128-thread program


def c_value(e: lir.Expr, env: dict) -> int:
    """C semantics on int32: division and remainder truncate toward zero."""
    if isinstance(e, Lit):
        return int(e.value)
    if isinstance(e, (Sym, Special)):
        return env[e.name]
    a, b = c_value(e.a, env), c_value(e.b, env)
    if e.op == "+":
        return a + b
    if e.op == "-":
        return a - b
    if e.op == "*":
        return a * b
    q = abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1)
    return q if e.op == "/" else a - b * q


def random_expr(rng: np.random.Generator, depth: int) -> lir.Expr:
    if depth == 0 or rng.random() < 0.25:
        leaves = [Special("lane"), Special("warp"), Special("tid"), Sym("k"), Sym("n"),
                  Lit(int(rng.choice([0, 1, 2, 4, 8, 32, 64, 3, -1])), ir.int32)]
        return leaves[int(rng.integers(0, len(leaves)))]
    op = str(rng.choice(["+", "-", "*", "/", "%"]))
    a = random_expr(rng, depth - 1)
    if op in ("/", "%", "*") and rng.random() < 0.8:
        return Bin(op, a, Lit(int(rng.choice([1, 2, 4, 8, 16, 32, 3])), ir.int32))
    b = random_expr(rng, depth - 1)
    if op in ("/", "%"):
        b = Bin("+", Bin("%", b, Lit(7, ir.int32)), Lit(8, ir.int32))  # never zero (b % 7 in (-7, 7))
    return Bin(op, a, b)


def simplified(e: lir.Expr) -> lir.Expr:
    """`e` as the value of a declaration inside the slot loop, after the pass."""
    decl = lir.Decl("x", ir.int32, init=e)
    loop = lir.For("k", Lit(0, ir.int32), Bin("<", Sym("k"), Lit(STEP * TRIPS, ir.int32)), Lit(STEP, ir.int32),
                   [decl], unroll=True)
    kernel = lir.Kernel("k", [("n", ir.int32)], [("out", ir.float32)], [loop], WARPS * 32)
    simplify_indices(kernel, WARPS)
    return kernel.body[0].body[0].init


def test_random_index_expressions_keep_their_values(rng):
    """Every thread, slot and a few run-time values of `n`, negative ones included."""
    changed = 0
    for _ in range(300):
        e = random_expr(rng, 4)
        s = simplified(e)
        changed += s != e
        for warp, lane, k, n in itertools.product(range(WARPS), (0, 1, 31), range(0, STEP * TRIPS, STEP), (-5, 0, 37)):
            env = {"lane": lane, "warp": warp, "tid": warp * 32 + lane, "k": k, "n": n}
            assert c_value(s, env) == c_value(e, env), (e, s, env)
    assert changed > 30  # the pass did rewrite a good share of them


def test_known_rewrites():
    lane, warp, k = Special("lane"), Special("warp"), Sym("k")
    four, n = Lit(4, ir.int32), Sym("n")
    assert simplified(Bin("/", lane, Lit(32, ir.int32))) == Lit(0, ir.int32)
    assert simplified(Bin("%", k, four)) == Lit(0, ir.int32)
    assert simplified(Bin("*", Bin("/", k, four), Lit(1024, ir.int32))) == Bin("*", k, Lit(256, ir.int32))
    assert simplified(Bin("+", Bin("*", warp, Lit(32, ir.int32)), lane)) == Special("tid")
    assert simplified(Bin("%", n, four)) == Bin("%", n, four)  # n may be negative: untouched
    # a slot of a repeated body (fused loops): k + j with k a multiple of the divisor
    assert simplified(Bin("%", Bin("+", k, Lit(3, ir.int32)), four)) == Lit(3, ir.int32)
    assert simplified(Bin("/", Bin("+", k, Lit(5, ir.int32)), four)) == Bin("+", Bin("/", k, four), Lit(1, ir.int32))
    assert simplified(Bin("*", Bin("/", Bin("+", k, Lit(3, ir.int32)), four), Lit(1024, ir.int32))) == \
        Bin("*", k, Lit(256, ir.int32))
    assert simplified(Bin("/", Bin("+", n, Lit(3, ir.int32)), four)) == Bin("/", Bin("+", n, Lit(3, ir.int32)), four)
    eight = Lit(8, ir.int32)  # k steps by 4: k + 3 stays in k's group of 8
    assert simplified(Bin("/", Bin("+", k, Lit(3, ir.int32)), eight)) == Bin("/", k, eight)
    assert simplified(Bin("%", Bin("+", k, Lit(3, ir.int32)), eight)) == Bin("+", Bin("%", k, eight), Lit(3, ir.int32))
    assert simplified(Bin("/", Bin("+", k, Lit(5, ir.int32)), eight)) == Bin("/", Bin("+", k, Lit(5, ir.int32)), eight)
    x = Bin("+", Lit(1.0, ir.float32), Lit(0.0, ir.float32))
    assert simplified(x) == x  # floating point is never rewritten
