"""lir_passes/fuse_loops.py: neighbouring slot loops become one loop and arrays used in one loop become
scalars, without changing what a thread computes. Random programs of slot loops (loads, element-wise
work at this and other slots, stores, read-modify-writes, masked stores, stores to a buffer that is
also read, declarations and writes between the loops) run on a small interpreter of the per-thread
IR before and after the pass: every buffer must hold the same values, every uninitialised read
poisons (NaN), and an out-of-bounds index fails. Then the rules that keep loops apart, one by one,
and what the library's kernels become."""
from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np
import pytest

from metalforge.codegen import lir
from metalforge.codegen.layouts import add, lit
from metalforge.codegen.lir_passes.fuse_loops import fuse_slot_loops
from metalforge.dsl import ir
from metalforge.kernels.specimens import SPECIMENS

F32 = ir.float32
SLOTS = 8


class Thread:
    """Runs per-thread IR: scalars and register arrays in nested scopes (a name declared twice in one
    scope is an error, as in C), pointers as (buffer, element offset), NaN for what was never written."""

    def __init__(self, memory: dict[str, np.ndarray]) -> None:
        self.memory = memory
        self.scopes: list[dict[str, object]] = [{name: (name, 0) for name in memory}]

    def lookup(self, name: str) -> object:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise NameError(name)

    def assign(self, name: str, value: object) -> None:
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = value
                return
        raise NameError(name)

    def block(self, stmts: list[lir.Stmt]) -> None:
        self.scopes.append({})
        try:
            for s in stmts:
                self.stmt(s)
        finally:
            self.scopes.pop()

    def stmt(self, s: lir.Stmt) -> None:
        if isinstance(s, lir.Comment):
            return
        if isinstance(s, lir.Decl):
            assert s.name not in self.scopes[-1], f"{s.name} declared twice in one scope"
            value = np.full(s.size, np.nan) if s.size else (math.nan if s.init is None else self.expr(s.init))
            self.scopes[-1][s.name] = value
        elif isinstance(s, lir.Assign):
            self.write(s.target, self.expr(s.value))
        elif isinstance(s, lir.Store):
            self.write(lir.Index(s.ptr, lit(0)), self.expr(s.value))
        elif isinstance(s, lir.VectorLoad):
            buffer, offset = self.expr(s.ptr)
            for i, t in enumerate(s.targets):
                self.write(t, self.memory[buffer][self.bounded(buffer, offset + i)])
        elif isinstance(s, lir.VectorStore):
            buffer, offset = self.expr(s.ptr)
            for i, v in enumerate(s.values):
                self.memory[buffer][self.bounded(buffer, offset + i)] = self.expr(v)
        elif isinstance(s, lir.If):
            self.block(s.then if self.expr(s.cond) else s.orelse)
        elif isinstance(s, lir.For):
            start, end, step = s.literal_bounds()
            for k in range(start, end, step):
                self.scopes.append({s.var: k})
                self.block(s.body)
                self.scopes.pop()
        else:
            raise NotImplementedError(type(s).__name__)

    def bounded(self, name: str, i: int) -> int:
        assert 0 <= i < len(self.memory[name]), f"{name}[{i}] is out of bounds"
        return i

    def write(self, target: lir.Expr, value: float) -> None:
        if isinstance(target, lir.Sym):
            self.assign(target.name, value)
            return
        base, i = self.expr(target.base), self.expr(target.index)
        if isinstance(base, tuple):
            self.memory[base[0]][self.bounded(base[0], base[1] + i)] = value
        else:
            assert 0 <= i < len(base), f"{target} is out of bounds"
            base[i] = value

    def expr(self, e: lir.Expr):
        if isinstance(e, lir.Lit):
            return e.value
        if isinstance(e, lir.Sym):
            return self.lookup(e.name)
        if isinstance(e, lir.Index):
            base, i = self.expr(e.base), self.expr(e.index)
            if isinstance(base, tuple):
                return self.memory[base[0]][self.bounded(base[0], base[1] + i)]
            assert 0 <= i < len(base), f"{e} is out of bounds"
            return base[i]
        if isinstance(e, lir.Bin):
            a, b = self.expr(e.a), self.expr(e.b)
            if isinstance(a, tuple):  # pointer arithmetic
                return (a[0], a[1] + b)
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "%": lambda: a % b,
                    "<": lambda: a < b}[e.op]()
        raise NotImplementedError(type(e).__name__)


# ---- random programs --------------------------------------------------------------------------------
def random_program(rng: np.random.Generator) -> tuple[lir.Kernel, dict[str, np.ndarray]]:
    """Slot loops over SLOTS slots on arrays a0..a5 and buffers x, y (read) and out, obs (written;
    out is also read by some loops), with declarations and straight-line writes between them."""
    arrays = [f"a{i}" for i in range(6)]
    body: list[lir.Stmt] = [lir.Decl(a, F32, size=SLOTS) for a in arrays]
    for a in arrays:  # some arrays start with values (the others poison what reads them unwritten)
        if rng.random() < 0.5:
            body += [lir.Assign(lir.Index(lir.Sym(a), lit(j)), lir.Lit(float(rng.standard_normal()), F32))
                     for j in range(SLOTS)]
    k = lir.Sym("k")

    def address(buffer: str) -> lir.Expr:  # a run of the buffer at this slot, or a few elements on
        return lir.Bin("+", lir.Sym(buffer), add(k, lit(int(rng.integers(0, 3)))))
    for n in range(int(rng.integers(3, 9))):
        step = int(rng.choice([1, 2, 4]))
        loop: list[lir.Stmt] = []
        kind = rng.choice(["load", "compute", "compute", "store", "update", "masked", "scalar"])
        dst = lir.Sym(str(rng.choice(arrays)))
        slots = [add(k, lit(c)) for c in range(step)]
        if kind == "load":
            buffer = str(rng.choice(["x", "y", "out"]))
            loop.append(lir.VectorLoad([lir.Index(dst, s) for s in slots], address(buffer), F32))
        elif kind in ("compute", "scalar"):
            for s in slots:
                a, b = (lir.Sym(str(rng.choice(arrays))) for _ in range(2))
                at = rng.choice(["here", "here", "here", "other", "fixed"])
                index = s if at == "here" else lir.Bin("%", add(s, lit(int(rng.integers(1, SLOTS)))),
                                                        lit(SLOTS)) if at == "other" else lit(int(rng.integers(SLOTS)))
                value = lir.Bin(str(rng.choice(["+", "*", "-"])), lir.Index(a, index), lir.Index(b, s))
                if kind == "scalar":
                    name = f"t{n}"
                    loop += [lir.Decl(name, F32, init=value), lir.Assign(lir.Index(dst, s), lir.Sym(name))]
                    break  # one scalar per iteration: the loop steps by one
                loop.append(lir.Assign(lir.Index(dst, s), value))
            if kind == "scalar":
                step = 1
        elif kind == "store":
            loop.append(lir.VectorStore(address(str(rng.choice(["out", "obs"]))), [lir.Index(dst, s) for s in slots],
                                        F32))
        elif kind == "update":
            for s in slots:
                loop.append(lir.Assign(lir.Index(dst, s), lir.Bin("+", lir.Index(dst, s), lir.Lit(1.0, F32))))
        else:  # a store under a per-slot condition
            for s in slots:
                loop.append(lir.If(lir.Bin("<", s, lit(5)), [lir.Store(lir.Bin("+", lir.Sym("out"), s),
                                                                         lir.Index(dst, s))]))
        body.append(lir.Comment(f"loop {n}"))
        body.append(lir.For("k", lit(0), lir.Bin("<", k, lit(SLOTS)), lit(step), loop, unroll=True, type=ir.int32))
        between = rng.choice(["nothing", "decl", "decl of a written array", "write"])
        if between == "decl":
            body.append(lir.Decl(f"u{n}", ir.int32, init=lir.Bin("*", lit(n), lit(3))))
        elif between == "decl of a written array":
            body.append(lir.Decl(f"u{n}", F32, init=lir.Index(dst, lit(int(rng.integers(SLOTS))))))
            body.append(lir.Store(lir.Bin("+", lir.Sym("obs"), lit(SLOTS + n)), lir.Sym(f"u{n}")))
        elif between == "write":
            body.append(lir.Assign(lir.Index(dst, lit(int(rng.integers(SLOTS)))), lir.Lit(float(n), F32)))
    for i, a in enumerate(arrays):  # some arrays are seen after the loops (the rest may become scalars)
        if rng.random() < 0.5:
            body += [lir.Store(lir.Bin("+", lir.Sym("obs"), lit(2 * SLOTS + i * SLOTS + j)), lir.Index(lir.Sym(a), lit(j)))
                     for j in range(SLOTS)]
    memory = {"x": rng.standard_normal(SLOTS + 2), "y": rng.standard_normal(SLOTS + 2),
              "out": rng.standard_normal(SLOTS + 2),
              "obs": np.full(2 * SLOTS + len(arrays) * SLOTS, -7.0)}
    pointer = ir.PointerType(F32)
    kernel = lir.Kernel("random", [("x", pointer), ("y", pointer)], [("out", F32), ("obs", F32)], body, threads=1)
    return kernel, memory


def run(kernel: lir.Kernel, memory: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    memory = {name: m.copy() for name, m in memory.items()}
    Thread(memory).block(kernel.body)
    return memory


def test_random_programs_compute_the_same(rng):
    fused_loops = scalars = 0
    for trial in range(400):
        kernel, memory = random_program(rng)
        before = run(kernel, memory)
        loops = sum(isinstance(s, lir.For) for s in kernel.body)
        arrays = sum(isinstance(s, lir.Decl) and s.size is not None for s in lir.walk(kernel.body))
        fuse_slot_loops(kernel)
        after = run(kernel, memory)
        for name in before:
            np.testing.assert_array_equal(after[name], before[name], err_msg=f"trial {trial}, buffer {name}")
        fused_loops += loops - sum(isinstance(s, lir.For) for s in kernel.body)
        scalars += arrays - sum(isinstance(s, lir.Decl) and s.size is not None for s in lir.walk(kernel.body))
    assert fused_loops > 300 and scalars > 10, (fused_loops, scalars)  # the programs exercise the pass (684, 43 a run)


# ---- the rules, one by one ------------------------------------------------------------------------------
def loop(body: list[lir.Stmt], step: int = 1) -> lir.For:
    return lir.For("k", lit(0), lir.Bin("<", lir.Sym("k"), lit(SLOTS)), lit(step), body, unroll=True, type=ir.int32)


def at(name: str, c: int = 0) -> lir.Index:
    return lir.Index(lir.Sym(name), add(lir.Sym("k"), lit(c)))


def kernel_of(body: list[lir.Stmt]) -> lir.Kernel:
    pointer = ir.PointerType(F32)
    decls = [lir.Decl(a, F32, size=SLOTS) for a in ("a", "b", "c")]
    return lir.Kernel("k", [("x", pointer)], [("out", F32)], decls + body, threads=1)


def loops_after(body: list[lir.Stmt]) -> int:
    kernel = kernel_of(body)
    fuse_slot_loops(kernel)
    return sum(isinstance(s, lir.For) for s in kernel.body)


def test_a_vector_load_its_arithmetic_and_its_store_become_one_loop_of_scalars():
    k = lir.Sym("k")
    kernel = kernel_of([
        loop([lir.VectorLoad([at("a", c) for c in range(4)], lir.Bin("+", lir.Sym("x"), k), F32)], step=4),
        lir.Comment("b = a * 2"),
        loop([lir.Assign(at("b"), lir.Bin("*", at("a"), lir.Lit(2.0, F32)))]),
        loop([lir.VectorStore(lir.Bin("+", lir.Sym("out"), k), [at("b", c) for c in range(4)], F32)], step=4)])
    fuse_slot_loops(kernel)
    (fused,) = [s for s in kernel.body if isinstance(s, lir.For)]
    assert fused.literal_bounds() == (0, SLOTS, 4)
    assert [type(s).__name__ for s in fused.body] == ["Decl"] * 4 + ["VectorLoad", "Comment"] + ["Decl"] * 4 + [
        "VectorStore"]
    assert fused.body[6] == lir.Decl("b_0", F32, init=lir.Bin("*", lir.Sym("a_0"), lir.Lit(2.0, F32)))
    assert not any(isinstance(s, lir.Index) for s in lir.walk(fused.body) if isinstance(s, lir.Index))


@pytest.mark.parametrize("between,fused", [
    ([lir.Comment("x")], True),
    ([lir.Decl("n", ir.int32, init=lit(3))], True),                          # moved before the first loop
    ([lir.Decl("v", F32, init=lir.Index(lir.Sym("a"), lit(2)))], False),     # reads what the first loop writes
    ([lir.Assign(lir.Index(lir.Sym("c"), lit(0)), lir.Lit(1.0, F32))], False),  # a write
    ([lir.Barrier()], False)])
def test_what_may_stand_between_two_loops(between, fused):
    body = [loop([lir.Assign(at("a"), at("c"))])] + between + [loop([lir.Assign(at("b"), at("c"))])]
    assert loops_after(body) == (1 if fused else 2)


@pytest.mark.parametrize("second,fused", [
    (loop([lir.Assign(at("b"), at("a"))]), True),                                     # this slot
    (loop([lir.Assign(at("b"), lir.Index(lir.Sym("a"), lit(0)))]), False),             # another slot of a
    (loop([lir.Assign(at("b"), lir.Index(lir.Sym("a"), lir.Bin("%", add(lir.Sym("k"), lit(1)), lit(8))))]),
     False),
    (loop([lir.Assign(at("c"), lir.Index(lir.Sym("b"), lit(0)))]), True),             # b: written by neither
    (loop([lir.Store(lir.Bin("+", lir.Sym("out"), lir.Sym("k")), at("a"))]), True),   # another buffer
    (loop([lir.Store(lir.Bin("+", lir.Sym("x"), lir.Sym("k")), at("a"))]), False),    # the buffer the first reads
    (loop([lir.Assign(lir.Sym("outer"), at("a"))]), False),                            # a variable of outside
    (loop([lir.Assign(at("b"), at("a"))], step=3), False),                             # steps not multiples
    (lir.For("k", lit(0), lir.Bin("<", lir.Sym("k"), lit(4)), lit(1), [lir.Assign(at("b"), at("a"))], unroll=True),
     False),                                                                           # another range
    (loop([lir.Assign(at("b"), lir.Shuffle("xor", at("a"), lit(1), F32))]), False),   # a collective
    (dataclasses.replace(loop([lir.Assign(at("b"), at("a"))]), batch=True), False)])  # loads issued together
def test_what_keeps_two_loops_apart(second, fused):
    first = loop([lir.Assign(at("a"), lir.Index(lir.Sym("x"), lir.Sym("k")))])
    assert loops_after([lir.Decl("outer", F32, init=lir.Lit(0.0, F32)), first, second]) == (1 if fused else 2)


def test_an_array_read_after_its_loop_or_read_before_it_is_written_stays_an_array():
    body = [loop([lir.Assign(at("a"), lir.Index(lir.Sym("x"), lir.Sym("k"))),
                  lir.Assign(at("b"), lir.Bin("+", at("b"), at("a")))]),
            lir.Store(lir.Sym("out"), lir.Index(lir.Sym("a"), lit(3)))]
    kernel = kernel_of(body)
    fuse_slot_loops(kernel)
    arrays = {s.name for s in lir.walk(kernel.body) if isinstance(s, lir.Decl) and s.size is not None}
    assert arrays == {"a", "b", "c"}  # a: read after the loop; b: read before written; c: unused, left alone


def test_a_name_declared_by_both_loops_is_shared_or_renamed():
    k = lir.Sym("k")
    offs = lir.Decl("offs", ir.int32, init=lir.Bin("*", k, lit(4)))
    first = loop([offs, lir.Decl("v", F32, init=lir.Index(lir.Sym("x"), lir.Sym("offs"))),
                  lir.Assign(at("a"), lir.Sym("v"))])
    second = loop([lir.Decl("offs", ir.int32, init=lir.Bin("*", k, lit(4))),
                   lir.Decl("v", F32, init=lir.Bin("*", at("a"), lir.Lit(3.0, F32))),
                   lir.Store(lir.Bin("+", lir.Sym("out"), lir.Sym("offs")), lir.Sym("v"))])
    kernel = kernel_of(copy.deepcopy([first, second]))
    fuse_slot_loops(kernel)
    (fused,) = [s for s in kernel.body if isinstance(s, lir.For)]
    names = [s.name for s in fused.body if isinstance(s, lir.Decl)]
    assert names == ["offs", "v", "a", "v_1"]  # offs shared (same index arithmetic); the second v renamed
    memory = {"x": np.arange(32.0), "out": np.zeros(32)}
    assert run(kernel, memory)["out"].tolist() == run(kernel_of([first, second]), memory)["out"].tolist()


def _loop_over(var: str, body: list[lir.Stmt], n: int = SLOTS, unroll: bool = True) -> lir.For:
    return lir.For(var, lit(0), lir.Bin("<", lir.Sym(var), lit(n)), lit(1), body, unroll=unroll, type=ir.int32)


def _program(name: str) -> list[lir.Stmt]:
    """Programs an independent review built against the first version of the pass (each computed
    something else after it), beyond what the random programs make."""
    k, x, out, obs = (lir.Sym(n) for n in ("k", "x", "out", "obs"))
    ptr = lambda base, offset: lir.Bin("+", base, offset)  # noqa: E731
    hundred = lir.Decl("d", F32, init=lir.Lit(100.0, F32))
    own_d = lir.Decl("d", F32, init=lir.Index(x, k))
    if name == "a later loop reads the outer variable an earlier loop's own shadows":
        return [hundred, loop([own_d, lir.Assign(at("a"), lir.Sym("d"))]), loop([lir.Store(ptr(out, k), lir.Sym("d"))])]
    if name == "a later loop reads the outer variable before declaring its own":
        return [hundred, loop([own_d, lir.Assign(at("a"), lir.Sym("d"))]),
                loop([lir.Store(ptr(out, k), lir.Sym("d")), lir.Decl("d", F32, init=lir.Lit(1.0, F32)),
                      lir.Store(ptr(obs, k), lir.Sym("d"))])]
    if name == "a declaration between the loops loads what the first stores":
        return [loop([lir.Store(ptr(out, k), lir.Index(x, k))]), lir.Decl("v", F32, init=lir.Index(out, lit(3))),
                loop([lir.Store(ptr(obs, k), lir.Sym("v"))])]
    if name == "a repeated declaration whose variable a vector load overwrote":
        zero = lir.Decl("v", F32, init=lir.Lit(0.0, F32))
        return [loop([zero, lir.VectorLoad([lir.Sym("v")], ptr(x, k), F32), lir.Assign(at("a"), lir.Sym("v"))]),
                loop([copy.deepcopy(zero), lir.Store(ptr(out, k), lir.Sym("v"))])]
    if name == "an array read in a nested loop before the slot loop writes it":
        t = lir.Sym("t")
        inner = _loop_over("j", [lir.Store(ptr(out, lir.Bin("+", k, lir.Bin("*", t, lit(SLOTS)))), at("a"))], n=1,
                           unroll=False)
        return [_loop_over("t", [loop([inner, lir.Assign(at("a"), lir.Index(x, k))])], n=2, unroll=False)]
    assert name == "an array of a slot loop nested in another"
    j = lir.Sym("j")
    return [_loop_over("j", [lir.Assign(lir.Index(lir.Sym("c"), add(j, lit(0))), lir.Index(x, j)),
                             lir.Store(ptr(out, j), lir.Index(lir.Sym("c"), add(j, lit(0)))),
                             loop([lir.Assign(at("b"), lir.Index(x, k)), lir.Store(ptr(obs, k), at("b"))])], n=2)]


@pytest.mark.parametrize("name", [
    "a later loop reads the outer variable an earlier loop's own shadows",
    "a later loop reads the outer variable before declaring its own",
    "a declaration between the loops loads what the first stores",
    "a repeated declaration whose variable a vector load overwrote",
    "an array read in a nested loop before the slot loop writes it",
    "an array of a slot loop nested in another"])
def test_programs_that_once_changed_meaning(name):
    pointer = ir.PointerType(F32)
    body = [lir.Decl(a, F32, size=SLOTS) for a in ("a", "b", "c")] + _program(name)
    memory = {"x": np.arange(1.0, 2 * SLOTS + 1), "out": np.full(2 * SLOTS, -7.0), "obs": np.full(2 * SLOTS, -7.0)}
    before = run(lir.Kernel("k", [("x", pointer)], [("out", F32), ("obs", F32)], copy.deepcopy(body), threads=1),
                 memory)
    kernel = lir.Kernel("k", [("x", pointer)], [("out", F32), ("obs", F32)], body, threads=1)
    fuse_slot_loops(kernel)
    after = run(kernel, memory)
    for buffer in before:
        np.testing.assert_array_equal(after[buffer], before[buffer], err_msg=buffer)


# ---- the library's kernels --------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["msl", "cuda"])
def test_the_residual_rms_norm_loads_adds_and_stores_in_one_loop(target):
    """The element-wise chain before the reduction (two loads, the casts, the sum, its store, the
    squares) is one loop; only what a later op reads (h, the squares for the reduction) stays an array."""
    specimen = next(s for s in SPECIMENS if s.name.startswith("add_rms_norm"))
    source = specimen.compile(target).body
    head = source[:source.index("acc[1];")]  # up to the reduction (on CUDA, in the aligned copy)
    assert head.count("for (int k") == 1
    arrays = {line.split()[1].split("[")[0] for line in head.split("\n")
              if line.strip().startswith(("float ", "half ")) and line.rstrip().endswith("];")}
    assert arrays == {"h", "t_11"}, arrays
