"""The walk shared by every renderer: statements through the target's Jinja macros, expressions
through the target's spelling tables. Subclasses hold only spellings."""
from __future__ import annotations

import math

import jinja2

from ...dsl import ir
from ...dsl.ir import PointerType, ScalarType
from .. import lir
from ..target import Target

# PTX's names of the element types Hopper's wgmma multiplies
_PTX_TYPES = {ir.float16: "f16", ir.bfloat16: "bf16"}
_ENV = jinja2.Environment(loader=jinja2.PackageLoader("metalforge.codegen.render", "templates"),
                          undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                          keep_trailing_newline=True)


class Renderer:
    template: str  # file in templates/ with the construct macros and the `kernel` skeleton
    types: dict[ScalarType, str]
    specials: dict[str, str]
    functions: dict[str, str]

    def __init__(self, target: Target) -> None:
        self.target = target  # its facts that change a spelling (MSL: threadgroup arrays at offsets)
        self.macros = _ENV.get_template(self.template).module

    # ---- types and literals --------------------------------------------------------------------
    def type_name(self, t) -> str:
        if isinstance(t, lir.FragmentType):
            return self.macros.fragment_type(self.types[t.element], t.fragment, t.role)
        if isinstance(t, PointerType):
            return f"device {self.types[t.element]}*"
        return self.types[t]

    def literal(self, value, t: ScalarType) -> str:
        if t.is_bool:
            return "true" if value else "false"
        if t.is_float:
            if math.isinf(value):
                text = "INFINITY" if value > 0 else "(-INFINITY)"
            elif math.isnan(value):
                text = "NAN"
            else:
                text = f"{float(value)!r}f"
                text = f"({text})" if value < 0 else text
            return text if t == ir.float32 else f"{self.types[t]}({text})"
        text = str(int(value))
        if t == ir.int32:
            return f"({text})" if value < 0 else text
        return f"{self.types[t]}({text})"

    # ---- expressions ---------------------------------------------------------------------------
    def expr(self, e: lir.Expr) -> str:
        if isinstance(e, lir.Sym):
            return e.name
        if isinstance(e, lir.Lit):
            return self.literal(e.value, e.type)
        if isinstance(e, lir.Special):
            return self.specials[e.name]
        if isinstance(e, lir.Bin):
            return f"({self.expr(e.a)} {e.op} {self.expr(e.b)})"
        if isinstance(e, lir.Un):
            return f"({e.op}{self.expr(e.a)})"
        if isinstance(e, lir.Select):
            return f"({self.expr(e.cond)} ? {self.expr(e.a)} : {self.expr(e.b)})"
        if isinstance(e, lir.Index):
            return f"{self.expr(e.base)}[{self.expr(e.index)}]"
        if isinstance(e, lir.Cast):
            return f"static_cast<{self.type_name(e.type)}>({self.expr(e.a)})"
        if isinstance(e, lir.FragmentElement):
            index = e.index if isinstance(e.index, int) else self.expr(e.index)
            return self.macros.fragment_element(self.expr(e.fragment), index)
        if isinstance(e, lir.Tensor):
            return self.macros.tensor(e.space, self.types[e.element], self.expr(e.data), e.extents, e.strides)
        return self.target_expr(e)

    def target_expr(self, e: lir.Expr) -> str:
        raise NotImplementedError(type(e).__name__)

    def vector_type(self, element: ScalarType, n: int) -> str:
        """The type name of `n` neighbouring `element`s moved in one access."""
        raise NotImplementedError

    def call(self, e: lir.Call) -> str:
        return f"{self.functions[e.fn]}({', '.join(self.expr(a) for a in e.args)})"

    # ---- statements ----------------------------------------------------------------------------
    def block(self, stmts: list[lir.Stmt]) -> str:
        lines = []
        for s in stmts:
            lines.append(self.stmt(s))
        return "\n".join(lines)

    def indented(self, stmts: list[lir.Stmt]) -> str:
        return "\n".join("  " + line if line else line for line in self.block(stmts).split("\n"))

    def stmt(self, s: lir.Stmt) -> str:
        m = self.macros
        if isinstance(s, lir.Comment):
            return m.comment(s.text.rstrip(" \\"))  # a trailing backslash would continue the comment
        if isinstance(s, lir.Decl):
            t = f"decltype({s.like})" if s.like else self.type_name(s.type)
            return m.decl(t, s.name, s.size, None if s.init is None else self.expr(s.init), s.space,
                          s.offset if self.target.shared_at_offsets else None)  # None: an array of its own
        if isinstance(s, lir.Assign):
            return m.assign(self.expr(s.target), self.expr(s.value))
        if isinstance(s, lir.Store):
            return m.store(self.expr(s.ptr), self.expr(s.value), s.atomic)
        if isinstance(s, lir.If):
            return m.if_(self.expr(s.cond), self.indented(s.then), self.indented(s.orelse) if s.orelse else "")
        if isinstance(s, lir.For):
            return m.for_(self.type_name(s.type or ir.int32), s.var, self.expr(s.start), self.expr(s.cond),
                          self.expr(s.step), self.indented(s.body), s.unroll, s.rolled)
        if isinstance(s, lir.Loop):
            return m.loop(self.indented(s.head), self.expr(s.cond), self.indented(s.body))
        if isinstance(s, lir.VectorLoad):
            return m.vector_load([self.expr(t) for t in s.targets], self.expr(s.ptr),
                                 self.vector_type(s.type, len(s.targets)), s.aligned,
                                 None if s.mask is None else self.expr(s.mask),
                                 [self.expr(o) for o in s.others or ()], s.space)
        if isinstance(s, lir.VectorStore):
            return m.vector_store(self.expr(s.ptr), [self.expr(v) for v in s.values],
                                  self.vector_type(s.type, len(s.values)), s.space, s.aligned)
        if isinstance(s, lir.AsyncCopy):
            return m.async_copy(self.expr(s.dst), self.expr(s.offset), self.expr(s.src), s.count * s.type.bits // 8,
                                None if s.mask is None else self.expr(s.mask))
        if isinstance(s, lir.AsyncCommit):
            return m.async_commit()
        if isinstance(s, lir.AsyncWait):
            return m.async_wait(s.pending)
        if isinstance(s, lir.MatrixLoad):
            return m.matrix_load(self.expr(s.fragment), self.expr(s.address), self.expr(s.offset), s.count, s.transpose,
                                 self.expr(s.pair) if s.pair is not None else None)
        if isinstance(s, lir.Return):
            return m.return_()
        if isinstance(s, lir.Barrier):
            return m.barrier(s.device)
        if isinstance(s, lir.TensorMatmul):
            return m.tensor_matmul(self.expr(s.dest), self.expr(s.a), self.expr(s.b), s.m, s.n, s.k,
                                   s.transpose_a, s.transpose_b, s.simdgroups)
        if isinstance(s, lir.SinCos):
            return m.sincos(self.expr(s.value), self.expr(s.sin), self.expr(s.cos))
        if isinstance(s, lir.ProxyFence):
            return m.proxy_fence()
        if isinstance(s, lir.WarpgroupFence):
            return m.warpgroup_fence()
        if isinstance(s, lir.WarpgroupMMA):
            return m.warpgroup_mma(self.expr(s.acc), s.first, s.n, self.expr(s.a), self.expr(s.b),
                                   _PTX_TYPES[s.element], s.transpose_b)
        if isinstance(s, lir.WarpgroupCommit):
            return m.warpgroup_commit()
        if isinstance(s, lir.WarpgroupWait):
            return m.warpgroup_wait(s.pending, None if s.fragments is None else self.expr(s.fragments), s.count)
        if isinstance(s, lir.MultiplyAccumulate):
            return m.multiply_accumulate(self.expr(s.c), self.expr(s.a), self.expr(s.b), s.fragment)
        raise NotImplementedError(type(s).__name__)

    def render(self, kernel: lir.Kernel) -> tuple[str, str]:
        """(header, body) of the kernel source."""
        body = self.block(kernel.body)
        header = self.macros.helpers(sorted(self.helpers_used(body)))
        return header, body

    def helpers_used(self, body: str) -> set[str]:
        return {name for name in self.helper_names if name + "(" in body}

    helper_names: tuple[str, ...] = ()
