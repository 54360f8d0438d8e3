"""The compiler pipeline, one folder per stage: tile IR -> IR passes and layout assignment (`ir_passes/`)
-> per-thread LIR (`lowering/`) -> LIR passes (`lir_passes/`) -> target source (`render/`).

Every stage's text is kept (`CompiledKernel.asm`) so users can see what each pass did, as with
Triton's `kernel.asm`.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Mapping

from ..dsl.ir import Function, ScalarType
from ..errors import LaunchConfigError
from . import lir
from .layouts import Blocked, prod
from .facts import KernelFacts, kernel_facts
from .ir_passes.assign_layouts import LayoutPlan, assign_layouts
from .ir_passes.dce import eliminate_dead_code
from .ir_passes.exponentials import fold_exp_differences
from .ir_passes.fold import fold_constants
from .ir_passes.masks import drop_implied_masks
from .ir_passes.prefetch import prefetch_dot_operands
from .lir_passes.aligned_vectors import version_vector_accesses
from .lir_passes.sincos import fuse_sincos
from .lir_passes.barriers import merge_barriers
from .lir_passes.fuse_loops import fuse_slot_loops
from .lir_passes.simplify import simplify_indices
from .lir_passes.unused import drop_unused_scalars
from .lowering.driver import lower
from .render.cuda import CUDARenderer
from .render.msl import MSLRenderer
from .target import target_named

CODEGEN_VERSION = "46"  # bump when generated code changes for the same kernel source (tuning data goes stale)

_SOURCE_COMMENT = re.compile(r"^\s*// (\d+): (.*)$")  # lowering's comment naming each op's Python line
PASSES = (("fold constants", fold_constants), ("exp of differences", fold_exp_differences),
          ("dead code", eliminate_dead_code))
RENDERERS = {"msl": MSLRenderer, "cuda": CUDARenderer}


@dataclass
class CompiledKernel:
    name: str                         # unique per specialisation (MLX caches libraries by name)
    header: str
    body: str
    inputs: list[tuple[str, object]]  # (argument name, IR type) of buffers/scalars read
    outputs: list[tuple[str, ScalarType]]
    threads: int
    atomic_outputs: bool
    asm: dict[str, str] = field(default_factory=dict)
    prints: list[tuple] = field(default_factory=list)  # device_print sites (codegen/lowering/debug_print.py)
    facts: KernelFacts | None = None  # memory instructions, barriers, threadgroup bytes (codegen/facts.py)
    word_outputs: list[str] = field(default_factory=list)  # 16-bit outputs MLX gets as 32-bit words

    def python_line(self, body_line: int) -> tuple[int, str] | None:
        """The kernel-source line (number, text) that line `body_line` (1-based) of `body` was generated
        from: the nearest `// N: text` comment lowering put above it (None before the first)."""
        for line in reversed(self.body.split("\n")[:body_line]):
            m = _SOURCE_COMMENT.match(line)
            if m:
                return int(m.group(1)), m.group(2)
        return None

    @property
    def shared_bytes(self) -> int:
        """Threadgroup (shared) memory the kernel declares, as Triton's `shared` metadata."""
        return self.facts.shared_bytes if self.facts else 0


def describe_layouts(fn: Function, plan: LayoutPlan) -> str:
    lines = []
    for op in fn.walk():
        for r in op.results:
            layout = plan.values.get(r.id)
            if layout is not None and type(layout).__name__ != "Scalar":
                lines.append(f"%{r.name or r.id}: {r.type} -> {layout}")
    return "\n".join(lines)


MAX_SLOTS = 4096  # elements of one tile a thread holds: each is unrolled code, and registers long before


def check_slots(fn: Function, plan: LayoutPlan, num_warps: int) -> None:
    """Refuse a tile that would give each thread more than MAX_SLOTS elements (a 2^22-element
    reduction on one warp unrolled into minutes of compilation) with the fix in the message."""
    for value, layout in plan.values.items():
        if isinstance(layout, Blocked) and layout.slots > MAX_SLOTS:
            raise LaunchConfigError(
                f"{fn.name}: a tile of {prod(layout.shape)} elements over {num_warps * 32} threads gives each thread "
                f"{layout.slots} elements, more than {MAX_SLOTS} (unrolled, it would compile for minutes and spill "
                f"registers); use more warps (num_warps) or a smaller block size, looping over the rest")


MAX_ASYNC_STAGES = 4  # buffers of a dot operand copied asynchronously (Triton's matmul tutorial goes to 4-5)


def dot_stages_for(num_stages: int | None, matmul2d: bool, target: str = "msl") -> int:
    """Where a launch's `tl.dot` operands live (compile_ir's `dot_stages`) for its `num_stages`:
    None is 1; above 2 acts as 2, except on a target with asynchronous copies (CUDA's cp.async),
    which keeps up to MAX_ASYNC_STAGES buffers; matmul2d always stages them (its tensors are in memory)."""
    most = MAX_ASYNC_STAGES if target_named(target).async_copy else 2
    stages = 1 if num_stages is None else min(num_stages, most)
    return max(stages, 1) if matmul2d else stages


def compile_ir(fn: Function, outputs: set[str], num_warps: int, target: str = "msl",
               divisibility: Mapping[str, int] = {}, dot_stages: int = 1,
               warps_m: int | None = None, matmul2d: bool = False, wgmma: bool = False) -> CompiledKernel:
    """Run the passes on `fn` (a freshly built specialisation) and render it for `target` (codegen.target.TARGETS);
    `divisibility` maps the integer arguments this specialisation knows divisible (launcher/arguments.py)
    to the power of two that divides them;
    `dot_stages` is where `tl.dot` operands live: 0 read straight from device memory (those loaded
    only for it), 1 staged in threadgroup memory, 2 staged in two buffers alternating per iteration,
    3 or 4 (asynchronous copies) in that many, loaded that many iterations ahead less one;
    `warps_m` simdgroups go along the rows of `tl.dot` results (None: the longer side first);
    `matmul2d` multiplies `tl.dot` tiles with Metal 4's cooperative matmul (MSL only, operands staged);
    `wgmma` those that can with Hopper's warpgroup MMA (CUDA only; `assign_layouts.warpgroup_dot`)."""
    tgt = target_named(target)
    if matmul2d and dot_stages < 1:
        raise ValueError("matmul2d multiplies staged tiles: dot_stages must be 1 or 2 (see dot_stages_for)")
    asm = {"ir": str(fn)}
    for name, run in PASSES:
        fn = run(fn)
        asm[name] = str(fn)
    if dot_stages >= 2:  # dot operands loaded dot_stages - 1 iterations ahead (their old loads become dead code)
        fn = eliminate_dead_code(prefetch_dot_operands(fn, dot_stages - 1))
        asm["prefetch"] = str(fn)
    fn = eliminate_dead_code(drop_implied_masks(fn, divisibility))  # after prefetch: its guards too
    asm["masks"] = str(fn)
    plan = assign_layouts(fn, num_warps, tgt, divisibility, dot_stages, warps_m, matmul2d, wgmma)
    asm["layouts"] = describe_layouts(fn, plan)
    check_slots(fn, plan, num_warps)
    kernel: lir.Kernel = lower(fn, plan, outputs, num_warps)
    kernel.body = merge_barriers(kernel.body)
    if tgt.fuse_sincos:
        kernel.body = fuse_sincos(kernel.body)
    fuse_slot_loops(kernel)
    simplify_indices(kernel, num_warps)
    kernel.body = drop_unused_scalars(kernel.body)
    if tgt.vectors_need_alignment:
        version_vector_accesses(kernel)
    header, body = RENDERERS[target](tgt).render(kernel)
    asm[target] = (header + "\n" if header.strip() else "") + body
    digest = hashlib.sha256((CODEGEN_VERSION + header + body).encode()).hexdigest()[:10]
    return CompiledKernel(f"{fn.name}_{digest}", header, body, kernel.inputs, kernel.outputs, kernel.threads,
                          kernel.atomic_outputs, asm, kernel.prints, kernel_facts(kernel), kernel.word_outputs)
