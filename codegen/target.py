"""What code generation needs to know of each back end's GPU, one record per target (tinygrad's
renderer idea): layout assignment, lowering, the LIR passes and the pipeline read these facts
instead of testing the target's name; renderers only spell."""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl import ir


@dataclass(frozen=True)
class Target:
    name: str                     # the source language a back end runs: "msl" or "cuda"
    gpu: str                      # how errors name it
    simd_width: int               # threads of a simdgroup / warp
    max_threads: int              # threads of a threadgroup / block
    threadgroup_memory: int       # bytes of threadgroup (shared) memory a kernel may declare
    vector_bytes: int             # the widest single access of neighbouring elements
    vector_elements: int          # ... and at most this many elements (Metal's packed vectors stop at 4)
    vectors_need_alignment: bool  # wide accesses need addresses aligned to their size
    vector_types: frozenset[ir.ScalarType]  # element types moved as vectors
    tensor_core_elements: frozenset[ir.ScalarType]  # operand types with m16n8k16 tensor-core fragments
    cooperative_matmul: bool      # Metal 4's matmul2d (MetalPerformancePrimitives)
    # the element types an output of a kernel with atomics may have: MLX's metal_kernel declares every
    # output of such a kernel `atomic<T>`, which Metal has for these only; None: atomics act on plain
    # pointers (CUDA), any output type
    atomic_outputs: frozenset[ir.ScalarType] | None
    async_copy: bool = False      # device -> threadgroup copies bypassing registers (CUDA's cp.async, sm_80+)
    # sin and cos of one value as one sincos (lir_passes/sincos.py): on CUDA each launch through MLX
    # copies and hashes the whole cubin, and RoPE's precise sine and cosine each inline their own range
    # reduction (36.8 -> 24.5 KB for its decode launch)
    fuse_sincos: bool = False
    # Hopper's warpgroup matrix multiply (wgmma, sm_90a): four warps multiply a 64-row slice of a tile
    # by operands read from shared memory through descriptors (the `wgmma=True` launch setting)
    warpgroup_mma: bool = False
    # a `tl.store` of a dot's fragments goes through shared memory, each thread then writing whole
    # vectors of a row (Triton's coalesced epilogue): an m16n8 fragment holds 2 neighbouring elements
    # of 8 rows a warp, so a direct store writes 4 bytes of each 32-byte sector it touches. Metal keeps
    # the direct store MLX's Steel kernels make (`store_result`), unmeasured against this
    staged_fragment_stores: bool = False
    # threadgroup arrays are placed at byte offsets of one buffer (CUDA's dynamic shared memory), so an
    # array may take the bytes of one nothing reads any more; Metal declares each array on its own
    shared_at_offsets: bool = False
    # the narrowest element an atomic acts on: CUDA has no compare-and-swap on single bytes (Triton
    # refuses 8-bit atomics as well); Metal refuses narrow outputs of kernels with atomics first
    # (`atomic_outputs`)
    atomic_min_bits: int = 8

    def lacks(self, setting: str) -> str | None:
        """What launch setting `setting` switches on, where this target lacks it; None where it has
        it or the setting needs no feature."""
        return next((what for name, field, what in FEATURE_SETTINGS if name == setting and not getattr(self, field)),
                    None)

    def vector_limit(self, element: ir.ScalarType) -> int:
        """The most neighbouring `element`s one access moves."""
        if element not in self.vector_types:
            return 1
        return min(self.vector_elements, self.vector_bytes // max(1, element.bits // 8))


# Launch settings that switch on a feature a target may lack: the setting, its Target field, what it is.
FEATURE_SETTINGS = (("matmul2d", "cooperative_matmul", "Metal 4's cooperative matmul"),
                    ("wgmma", "warpgroup_mma", "Hopper's warpgroup MMA (CUDA)"))

_PACKED = frozenset({ir.float32, ir.float16, ir.int32, ir.uint32, ir.int16, ir.uint16, ir.int8, ir.uint8})
# Apple GPUs: packed vectors (of the types above, no bfloat) take any element alignment; 32 KiB of
# threadgroup memory.
METAL = Target("msl", "Metal", simd_width=32, max_threads=1024, threadgroup_memory=32 * 1024, vector_bytes=16,
               vector_elements=4, vectors_need_alignment=False, vector_types=_PACKED,
               tensor_core_elements=frozenset(), cooperative_matmul=True,
               atomic_outputs=frozenset({ir.int32, ir.uint32, ir.float32, ir.int1, ir.int64, ir.uint64}))
# CUDA through MLX's cuda_kernel: shared arrays in the kernel's dynamic shared memory, whose size the
# kernel's constructor takes (`shared_memory=`; 227 KiB per block on Hopper, sm_90), 128-bit accesses
# that fault unaligned.
CUDA = Target("cuda", "CUDA", simd_width=32, max_threads=1024, threadgroup_memory=227 * 1024, vector_bytes=16,
              vector_elements=16, vectors_need_alignment=True, vector_types=_PACKED | {ir.bfloat16},
              tensor_core_elements=frozenset({ir.float16, ir.bfloat16}), cooperative_matmul=False, atomic_outputs=None,
              async_copy=True, fuse_sincos=True, warpgroup_mma=True,
              staged_fragment_stores=True, shared_at_offsets=True, atomic_min_bits=16)
TARGETS = {t.name: t for t in (METAL, CUDA)}


def target_named(name: str) -> Target:
    if name not in TARGETS:
        raise ValueError(f"unknown code generation target {name!r}; choose one of: {', '.join(TARGETS)}")
    return TARGETS[name]
