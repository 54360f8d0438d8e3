"""Metal Shading Language spellings for the LIR (the source body MLX's metal_kernel wraps)."""
from __future__ import annotations

from ...dsl import ir
from .. import lir
from .base import Renderer


class MSLRenderer(Renderer):
    template = "msl.j2"
    types = {ir.int1: "bool", ir.int8: "int8_t", ir.int16: "int16_t", ir.int32: "int", ir.int64: "int64_t",
             ir.uint8: "uint8_t", ir.uint16: "uint16_t", ir.uint32: "uint", ir.uint64: "uint64_t",
             ir.float16: "half", ir.bfloat16: "bfloat", ir.float32: "float"}
    specials = {"tid": "int(thread_index_in_threadgroup)", "lane": "int(thread_index_in_simdgroup)",
                "warp": "int(simdgroup_index_in_threadgroup)",
                **{f"pid{i}": f"int(threadgroup_position_in_grid.{c})" for i, c in enumerate("xyz")},
                **{f"nprog{i}": f"int(threadgroups_per_grid.{c})" for i, c in enumerate("xyz")}}
    functions = {**{f: f"metal::{f}" for f in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "floor",
                                               "ceil", "abs", "fma", "clamp", "fmod", "min", "max")},
                 "sqrt_rn": "metal::precise::sqrt",  # correctly rounded under fast math too
                 "erf": "mf_erf", "sigmoid": "mf_sigmoid", "philox": "mf_philox",
                 "atomic_load": "mf_atomic_load", "rtz_float16": "mf_rtz_float16", "rtz_bfloat16": "mf_rtz_bfloat16"}
    helper_names = ("mpp::tensor_ops::matmul2d_descriptor",  # the tensor-op headers
                    "mf_erf", "mf_sigmoid", "mf_philox", "mf_atomic_cas", "mf_atomic_load", "mf_atomic16_load",
                    "mf_atomic16_store", "mf_atomic16_add", "mf_atomic16_max", "mf_atomic16_min", "mf_atomic16_xchg",
                    "mf_atomic16_cas",
                    "mf_rtz_float16", "mf_rtz_bfloat16")
    _atomic = {"add": "atomic_fetch_add_explicit", "max": "atomic_fetch_max_explicit",
               "min": "atomic_fetch_min_explicit", "xchg": "atomic_exchange_explicit",
               "and": "atomic_fetch_and_explicit", "or": "atomic_fetch_or_explicit",
               "xor": "atomic_fetch_xor_explicit"}

    _packed = {ir.float32: "float", ir.float16: "half", ir.int32: "int", ir.uint32: "uint", ir.int16: "short",
               ir.uint16: "ushort", ir.int8: "char", ir.uint8: "uchar"}

    def vector_type(self, element, n):
        return f"packed_{self._packed[element]}{n}"  # the scalar's alignment: any element boundary

    def render(self, kernel: lir.Kernel) -> tuple[str, str]:
        """A 16-bit output of a kernel with atomics arrives as 32-bit words (`<name>_words`); the body
        computes its pointers from a pointer of the element type at the same address. Threadgroup
        arrays are declared each on its own, or, where the target places them at offsets
        (`Target.shared_at_offsets`: off on Metal, as whether Apple's compiler aligns a `uchar`
        threadgroup array to 16 bytes is unchecked; the emulator does), as pointers into one buffer."""
        header, body = super().render(kernel)
        types = dict(kernel.outputs)
        prologue = "".join(f"device {self.types[types[n]]}* {n} = (device {self.types[types[n]]}*){lir.words_name(n)};\n"
                           for n in kernel.word_outputs)
        shared = [s for s in lir.walk(kernel.body) if isinstance(s, lir.Decl) and s.space == "threadgroup"]
        if self.target.shared_at_offsets and shared:
            size = max(s.end for s in shared)
            prologue = f"threadgroup uchar mf_shared[{-(-size // 16) * 16}];\n" + prologue
        return header, prologue + body

    def word_cell(self, c: lir.WordCell) -> str:
        return f"{self.expr(c.words)}, {self.expr(c.index)}"

    def stmt(self, s: lir.Stmt) -> str:
        if isinstance(s, lir.Store) and isinstance(s.ptr, lir.WordCell):
            return f"mf_atomic16_store({self.word_cell(s.ptr)}, {self.expr(s.value)});"
        return super().stmt(s)

    def target_expr(self, e: lir.Expr) -> str:
        if isinstance(e, lir.Call) and e.fn == "atomic_load" and isinstance(e.args[0], lir.WordCell):
            return f"mf_atomic16_load<{self.type_name(e.type)}>({self.word_cell(e.args[0])})"
        if isinstance(e, lir.Atomic) and isinstance(e.ptr, lir.WordCell):
            compare = f"{self.expr(e.compare)}, " if e.kind == "cas" else ""
            return f"mf_atomic16_{e.kind}({self.word_cell(e.ptr)}, {compare}{self.expr(e.value)})"
        if isinstance(e, lir.Call):
            if e.fn == "fdiv":
                return f"({self.expr(e.args[0])} / {self.expr(e.args[1])})"
            if e.fn == "fdiv_rn":  # fast math (MLX's default) leaves `/` inexact
                return f"metal::precise::divide({self.expr(e.args[0])}, {self.expr(e.args[1])})"
            return self.call(e)
        if isinstance(e, lir.Bitcast):
            return f"as_type<{self.type_name(e.type)}>({self.expr(e.a)})"
        if isinstance(e, lir.Shuffle):
            fn = {"xor": "simd_shuffle_xor", "down": "simd_shuffle_down", "up": "simd_shuffle_up",
                  "broadcast": "simd_broadcast"}[e.kind]
            return f"{fn}({self.expr(e.a)}, ushort({self.expr(e.offset)}))"
        if isinstance(e, lir.Atomic):
            if e.kind == "cas":
                return f"mf_atomic_cas({self.expr(e.ptr)}, {self.expr(e.compare)}, {self.expr(e.value)})"
            return f"{self._atomic[e.kind]}({self.expr(e.ptr)}, {self.expr(e.value)}, memory_order_relaxed)"
        raise NotImplementedError(type(e).__name__)
