"""What ptxas makes of the generated CUDA, without a GPU: per kernel, the registers a thread, the
stack frame (local memory: the element-wise copy's rolled loops indexing register arrays), the
code's bytes (`.text`; `code_bytes` says why not the whole cubin) and SASS opcode counts (global
loads and stores, branches, integer compares, integer-to-float conversions). Both copies of a
versioned body count. The tables of codegen 37 in docs/benchmarks.md (session of 2026-12-07, third), the odd softmax
row's static counts and codegen 40's (fourth session; measured slower and removed in codegen 44).

Kernels: the library specimens (`metalforge.kernels.specimens`) and same_source.py's rows that the
specimens do not cover (vector add 2^26, add + RMS norm 2048 x 8192 on 8 warps, the one-tile
softmax at 32001 columns 32008 apart and at 32000).
Run: python benchmarks/cuda_static.py [NAME-SUBSTRING ...]   (NVRTC from the test extra; ptxas and
cuobjdump from PATH or Triton's wheel; a few minutes for all)
"""
from __future__ import annotations

import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable

import mlx.core as mx

import metalforge as mf
from metalforge.codegen.pipeline import CODEGEN_VERSION, CompiledKernel
from metalforge.kernels import norms
from metalforge.kernels.specimens import SPECIMENS

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).parent))
from same_source import softmax_one_tile, vector_add  # noqa: E402
from tests.codegen.nvrtc import resources, sass_of, to_cubin, to_ptx  # noqa: E402 (MLX's NVRTC options and header)
from tests.codegen.test_cuda_render import compiled_source  # noqa: E402

OPCODES = ("LDG", "STG", "BRA", "ISETP", "LDL", "STL", "I2FP", "I2F")


def extra_kernels() -> dict[str, Callable[[], CompiledKernel]]:
    """same_source.py's rows beyond the specimens, compiled for CUDA at their benchmark shapes."""
    f32, f16 = mx.zeros((1,), mx.float32), mx.zeros((1,), mx.float16)

    def softmax(cols: int, stride: int) -> CompiledKernel:
        return softmax_one_tile.compile(mf.empty((4096, stride), mx.float16), f16, stride, stride, cols,
                                        BLOCK=32768, num_warps=16, target="cuda")
    return {
        "vector add 2^26, BLOCK 1024 w4": lambda: vector_add.compile(
            f32, f32, mf.empty((1 << 26,)), 1 << 26, BLOCK=1024, num_warps=4, target="cuda"),
        "add + RMS norm 2048x8192 w8": lambda: norms.add_rms_norm_kernel.fn.compile(
            f16, f16, f16, mf.empty((2048, 8192), mx.float16), mf.empty((2048, 8192), mx.float16), 8192, 1e-5,
            BLOCK=8192, num_warps=8, target="cuda"),
        "softmax one tile 32001 (stride 32008) w16": lambda: softmax(32001, 32008),
        "softmax one tile 32000 w16": lambda: softmax(32000, 32000),
    }


def code_bytes(cubin: bytes) -> int:
    """The bytes of the cubin's `.text` sections (ELF64): the generated code's own size. The whole
    cubin built here is ~150 KB for any kernel, ~1000 `cuda::std` constants that the stand-in for
    MLX's header brings; what MLX gets from the CUDA back end is the by-value translation unit's
    module (runtime/cuda.py), 4-8 KB compressed for the library's kernels, without them."""
    shoff = int.from_bytes(cubin[0x28:0x30], "little")
    entsize, count, names = (int.from_bytes(cubin[o:o + 2], "little") for o in (0x3A, 0x3C, 0x3E))

    def field(i: int, at: int, size: int) -> int:
        start = shoff + i * entsize + at
        return int.from_bytes(cubin[start:start + size], "little")
    table = field(names, 0x18, 8)
    total = 0
    for i in range(count):
        name_at = table + field(i, 0, 4)
        if cubin[name_at:name_at + 5] == b".text":
            total += field(i, 0x20, 8)
    return total


def static_facts(kernel: CompiledKernel) -> str:
    """One table row's cells: registers, stack bytes, code bytes, SASS instructions and opcodes."""
    ptx = to_ptx(compiled_source(kernel))
    used = resources(ptx)
    stack = re.search(r"(\d+) bytes stack frame", used.log)
    with tempfile.TemporaryDirectory() as tmp:
        cubin = to_cubin(ptx, Path(tmp) / "k.cubin")
        sass, size = sass_of(cubin), code_bytes(cubin.read_bytes())
    ops = Counter(m.group(1).split(".")[0]
                  for m in re.finditer(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)", sass))
    return " | ".join([str(used.registers), stack.group(1) if stack else "?", str(size), str(sum(ops.values()))]
                      + [str(ops[o]) for o in OPCODES])


def main() -> int:
    wanted = sys.argv[1:]
    kernels = {s.name: (lambda s=s: s.compile("cuda")) for s in SPECIMENS} | extra_kernels()
    print(f"# CUDA static facts, codegen {CODEGEN_VERSION}, sm_90 (NVRTC as MLX compiles, ptxas, cuobjdump)")
    print("| kernel | registers | stack B | code B | SASS | " + " | ".join(OPCODES) + " |")
    print("|---|" + "---|" * (4 + len(OPCODES)))
    for name, compile_kernel in kernels.items():
        if not wanted or any(w in name for w in wanted):
            print(f"| {name} | {static_facts(compile_kernel())} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
