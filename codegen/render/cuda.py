"""CUDA spellings for the LIR (the source body MLX's cuda_kernel wraps).

MLX declares every input `const T* name` (scalars too: a Python number arrives as a 0-d array, so
the body reads scalar `n` as `n[0]`), every output `T* name`, inside `namespace mlx::core::cu`
after including cuda_fp16.h and cuda_bf16.h. One Triton program is one 1-D thread block of
`num_warps * 32` threads: warp = threadIdx.x / 32, lane = threadIdx.x % 32.

__half and __nv_bfloat16 have the C++ operators but few math functions and ambiguous conversions
to bool and to each other, so math computes through float and casts to those three types go
through `mf_cast` (the LIR does not carry the source type of a cast). Atomics spell CUDA's own
function where it takes the type (atomics act on plain pointers: there are no atomic outputs),
else a compare-and-swap helper.
"""
from __future__ import annotations

import re

from ...dsl import ir
from ...dsl.ir import PointerType, ScalarType
from .. import lir
from ..target import Target
from .base import Renderer

_HALF = {ir.float16: ("__float2half", "__half"), ir.bfloat16: ("__float2bfloat16", "__nv_bfloat16")}
# Triton's precision where it trades accuracy for speed (its PTX for fp32): exp and exp2 through
# ex2.approx (flushing results below 2^-126 to zero, as Metal's fast math), sqrt.approx, div.full
# (2 ulp); the rest as CUDA's math library computes them.
_FLOAT_FUNCTIONS = {"exp": "mf_exp", "exp2": "mf_exp2", "fdiv": "mf_fdiv", "log": "logf", "log2": "log2f",
                    "sqrt": "mf_sqrt", "sqrt_rn": "__fsqrt_rn", "fdiv_rn": "__fdiv_rn",  # the rn ones rounded
                    "rsqrt": "rsqrtf", "sin": "sinf", "cos": "cosf", "floor": "floorf", "ceil": "ceilf",
                    "abs": "fabsf", "fma": "fmaf", "min": "fminf", "max": "fmaxf", "fmod": "fmodf", "erf": "erff",
                    "sigmoid": "mf_sigmoid", "philox": "mf_philox"}
_INT_FUNCTIONS = {"min": "mf_min", "max": "mf_max", "abs": "mf_abs", "clamp": "mf_clamp"}  # templates on the type
# (kind, element) pairs CUDA has a function for, taking the pointer as it is.
_NATIVE_ATOMICS = {"add": (ir.int32, ir.uint32, ir.float32, ir.float16, ir.bfloat16),
                   "max": (ir.int32, ir.uint32), "min": (ir.int32, ir.uint32),
                   "xchg": (ir.int32, ir.uint32, ir.float32), "cas": (ir.int32, ir.uint32),
                   "and": (ir.int32, ir.uint32), "or": (ir.int32, ir.uint32), "xor": (ir.int32, ir.uint32)}
_ATOMIC_NAMES = {"add": "atomicAdd", "max": "atomicMax", "min": "atomicMin", "xchg": "atomicExch",
                 "cas": "atomicCAS", "and": "atomicAnd", "or": "atomicOr", "xor": "atomicXor"}
_MASK = "0xffffffffu"
_WGMMA_CALL = re.compile(r"mf_wgmma_m64n(\d+)k16_(f16|bf16)(_tb)?\(")


class CUDARenderer(Renderer):
    template = "cuda.j2"
    types = {ir.int1: "bool", ir.int8: "int8_t", ir.int16: "int16_t", ir.int32: "int", ir.int64: "int64_t",
             ir.uint8: "uint8_t", ir.uint16: "uint16_t", ir.uint32: "unsigned", ir.uint64: "uint64_t",
             ir.float16: "__half", ir.bfloat16: "__nv_bfloat16", ir.float32: "float"}
    specials = {"tid": "int(threadIdx.x)", "lane": "int(threadIdx.x % 32u)", "warp": "int(threadIdx.x / 32u)",
                **{f"pid{i}": f"int(blockIdx.{c})" for i, c in enumerate("xyz")},
                **{f"nprog{i}": f"int(gridDim.{c})" for i, c in enumerate("xyz")}}
    functions = _FLOAT_FUNCTIONS
    helper_names = ("mf_exp", "mf_exp2", "mf_fdiv", "mf_sqrt", "mf_cast", "mf_bitcast", "mf_sigmoid", "mf_philox", "mf_min", "mf_max", "mf_abs",
                    "mf_clamp", "mf_atomic_load", "mf_atomic_cas", "mf_atomic_add", "mf_atomic_max",
                    "mf_atomic_min", "mf_atomic_xchg", "mf_atomic_and", "mf_atomic_or", "mf_atomic_xor",
                    "mf_mma8", "mf_mma_m16n8k16", "mf_ldmatrix", "mf_ldmatrix_pair", "mf_cp_async", "mf_store_vec", "mf_vec",
                    "mf_is_aligned", "mf_wgmma_desc", "mf_wgmma_fence", "mf_wgmma_hold")
    # helpers the header must define before a helper (the template emits them in dependency order)
    helper_needs = {"mf_exp": ("mf_exp2",), "mf_wgmma_desc": ("mf_mma_m16n8k16", "mf_wgmma_fence", "mf_wgmma_hold"), "mf_sigmoid": ("mf_exp", "mf_exp2", "mf_fdiv"),
                    "mf_store_vec": ("mf_vec",), "mf_is_aligned": ("mf_vec",),
                    "mf_atomic_load": ("mf_bitcast",),
                    "mf_atomic_cas": ("mf_bitcast",),
                    **{f"mf_atomic_{k}": ("mf_atomic_cas", "mf_bitcast")
                       for k in ("add", "max", "min", "xchg", "and", "or", "xor")}}

    def __init__(self, target: Target) -> None:
        super().__init__(target)
        self.scalars: set[str] = set()

    def render(self, kernel: lir.Kernel) -> tuple[str, str]:
        self.scalars = {name for name, t in kernel.inputs if isinstance(t, ScalarType)}
        header, body = super().render(kernel)
        for n, element, transposed in sorted(set(_WGMMA_CALL.findall(body))):  # one helper per shape used
            header += self.macros.warpgroup_mma_helper(int(n), element, bool(transposed))
        # Read each scalar once: re-reading `n[0]` after every store would be required (outputs may
        # alias it) and serialises the kernel.
        prologue = "".join(f"const auto mf_{name} = {name}[0];\n" for name, _ in kernel.inputs if name in self.scalars)
        shared = [s for s in lir.walk(kernel.body) if isinstance(s, lir.Decl) and s.space == "threadgroup"]
        align = max((s.align for s in shared), default=16)
        if align > 16:  # the base moved up to `align` (the kernel's shared_bytes include the room)
            prologue = (f"extern __shared__ __align__(16) unsigned char mf_shared_raw[];\n"
                        f"unsigned char* mf_shared = mf_shared_raw + ((0u - (unsigned)__cvta_generic_to_shared("
                        f"mf_shared_raw)) & {align - 1}u);\n" + prologue)
        elif shared:
            prologue = "extern __shared__ __align__(16) unsigned char mf_shared[];\n" + prologue
        return header, prologue + body

    def helpers_used(self, body: str) -> set[str]:
        used = {name for name in self.helper_names if name + "(" in body or name + "<" in body}
        for name in list(used):
            used.update(self.helper_needs.get(name, ()))
        return used

    # ---- types and literals --------------------------------------------------------------------
    def type_name(self, t) -> str:
        if isinstance(t, lir.FragmentType):
            return super().type_name(t)
        if isinstance(t, PointerType):
            return f"{self.types[t.element]}*"
        return self.types[t]

    def literal(self, value, t: ScalarType) -> str:
        if t.is_float:
            text = super().literal(value, ir.float32)
            text = {"INFINITY": "__uint_as_float(0x7f800000u)", "(-INFINITY)": "__uint_as_float(0xff800000u)",
                    "NAN": "__uint_as_float(0x7fc00000u)"}.get(text, text)
            return f"{_HALF[t][0]}({text})" if t in _HALF else text
        if t.is_bool or t == ir.int32:
            return super().literal(value, t)
        value = int(value)
        if t == ir.uint32:
            return f"{value}u"
        if t.bits == 64:
            if value == -2**63:
                return "(-9223372036854775807ll - 1)"
            return f"{self.types[t]}({value}{'ull' if t.is_unsigned else 'll'})"
        return f"{self.types[t]}({value})"

    def vector_type(self, element, n):
        return f"mf_vec<{n}, {self.types[element]}>"

    def stmt(self, s: lir.Stmt) -> str:
        if isinstance(s, (lir.VectorLoad, lir.AsyncCopy)) and not s.aligned:  # aligned_vectors.py versions them
            raise ValueError("a device vector load of unknown alignment reached the CUDA renderer")
        return super().stmt(s)

    # ---- expressions ---------------------------------------------------------------------------
    def expr(self, e: lir.Expr) -> str:
        if isinstance(e, lir.Sym) and e.name in self.scalars:
            return f"mf_{e.name}"  # MLX passes scalars as pointers to 0-d arrays: read once (render)
        if isinstance(e, lir.Cast):
            if isinstance(e.type, PointerType):
                return f"(({self.type_name(e.type)})({self.expr(e.a)}))"
            if e.type.is_bool or e.type in _HALF:
                return f"mf_cast<{self.type_name(e.type)}>({self.expr(e.a)})"
        return super().expr(e)

    def target_expr(self, e: lir.Expr) -> str:
        if isinstance(e, lir.Call):
            return self.call(e)
        if isinstance(e, lir.Bitcast):
            return f"mf_bitcast<{self.type_name(e.type)}>({self.expr(e.a)})"
        if isinstance(e, lir.Shuffle):
            fn = {"xor": "__shfl_xor_sync", "down": "__shfl_down_sync", "up": "__shfl_up_sync",
                  "broadcast": "__shfl_sync"}[e.kind]
            value, offset = self.expr(e.a), self.expr(e.offset)
            if isinstance(e.type, ScalarType) and e.type.bits < 32 and e.type not in _HALF:
                # bool, 8- and 16-bit integers shuffle as int
                return f"static_cast<{self.type_name(e.type)}>({fn}({_MASK}, static_cast<int>({value}), {offset}))"
            return f"{fn}({_MASK}, {value}, {offset})"
        if isinstance(e, lir.Atomic):
            ptr, value = self.expr(e.ptr), self.expr(e.value)
            native = e.type in _NATIVE_ATOMICS[e.kind]
            fn = _ATOMIC_NAMES[e.kind] if native else f"mf_atomic_{e.kind}"
            if e.kind == "cas":
                return f"{fn}({ptr}, {self.expr(e.compare)}, {value})"
            return f"{fn}({ptr}, {value})"
        raise NotImplementedError(type(e).__name__)

    def call(self, e: lir.Call) -> str:
        args = [self.expr(a) for a in e.args]
        t = e.type or ir.float32
        if e.fn == "atomic_load":
            return f"mf_atomic_load({args[0]})"
        if e.fn == "is_aligned":
            return f"mf_is_aligned({', '.join(args)})"
        if e.fn == "wgmma_desc":
            return f"mf_wgmma_desc({', '.join(args)})"
        if e.fn.startswith("rtz_"):  # float -> half/bfloat16 rounding toward zero
            return f"{'__float2half_rz' if t == ir.float16 else '__float2bfloat16_rz'}({args[0]})"
        if e.fn == "philox":
            return f"{self.functions[e.fn]}({', '.join(args)})"
        if not t.is_float and e.fn in _INT_FUNCTIONS:
            return f"{_INT_FUNCTIONS[e.fn]}<{self.type_name(t)}>({', '.join(args)})"
        if t == ir.float32:
            return self.float_call(e.fn, args)
        # __half, __nv_bfloat16 and integers without their own spelling: compute in float
        result = self.float_call(e.fn, [f"static_cast<float>({a})" for a in args])
        return f"{_HALF[t][0]}({result})" if t in _HALF else f"static_cast<{self.type_name(t)}>({result})"

    def float_call(self, fn: str, args: list[str]) -> str:
        if fn == "clamp":
            return f"fminf(fmaxf({args[0]}, {args[1]}), {args[2]})"
        return f"{self.functions[fn]}({', '.join(args)})"
