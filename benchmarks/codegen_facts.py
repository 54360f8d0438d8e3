"""Static report of the library's generated code (no GPU): for each kernel of
metalforge.kernels.specimens and each target, the device-memory instructions one thread issues
(count x bytes per access), barriers, threadgroup bytes and per-thread array elements, from the
lowered program (codegen/facts.py). Results are recorded in docs/benchmarks.md.

    python benchmarks/codegen_facts.py
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import mlx.core as mx

import metalforge as mf
from metalforge.codegen.pipeline import CODEGEN_VERSION
from metalforge.kernels.specimens import SPECIMENS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from same_source import softmax_one_tile, vector_add  # noqa: E402

# same_source.py's odd-size rows (run_odd): name -> compile(target)
ODD: dict[str, Callable[[str], Any]] = {
    "vector add 2^26+1 fp32, BLOCK 1024 w4": lambda target: vector_add.compile(
        mx.zeros((4,)), mx.zeros((4,)), mf.empty(((1 << 26) + 1,)), (1 << 26) + 1, BLOCK=1024, num_warps=4,
        target=target),
    "softmax one tile 4096x32001 (stride 32008) fp16, w16": lambda target: softmax_one_tile.compile(
        mf.empty((4096, 32008), mx.float16), mx.zeros((4,), mx.float16), 32008, 32008, 32001, BLOCK=32768,
        num_warps=16, target=target),
}


def _row(name: str, target: str, f: Any) -> str:
    def accesses(counter) -> str:
        return " + ".join(f"{n}x{b}B" for b, n in sorted(counter.items(), reverse=True)) or "-"
    return (f"| {name} | {target} | {f.threads} | {accesses(f.loads)} | {accesses(f.stores)} | {f.barriers} | "
            f"{f.shared_bytes} | {f.register_elements} |")


def main() -> None:
    print(f"# generated-code facts, codegen {CODEGEN_VERSION}, mlx {mx.__version__} (per thread; loops with a run-time "
          "trip count counted once per iteration; CUDA: the aligned copy; an access at a mask's edge counts its "
          "vector and its element-wise accesses, both in the code)")
    print("| kernel | target | threads | device loads | device stores | barriers | threadgroup B | array elements |")
    print("|---|---|---|---|---|---|---|---|")
    for specimen in SPECIMENS:
        for target in ("msl", "cuda"):
            print(_row(specimen.name, target, specimen.compile(target).facts))
    for name, compiled in ODD.items():
        for target in ("msl", "cuda"):
            print(_row(name, target, compiled(target).facts))


if __name__ == "__main__":
    main()
