"""Static report of the library's generated code (no GPU): for each kernel of
metalforge.kernels.specimens and each target, the device-memory instructions one thread issues
(count x bytes per access), barriers, threadgroup bytes and per-thread array elements, from the
lowered program (codegen/facts.py). Results are recorded in docs/benchmarks.md.

    python benchmarks/codegen_facts.py
"""
from __future__ import annotations

import mlx.core as mx

from metalforge.codegen.pipeline import CODEGEN_VERSION
from metalforge.kernels.specimens import SPECIMENS


def main() -> None:
    print(f"# generated-code facts, codegen {CODEGEN_VERSION}, mlx {mx.__version__} (per thread; loops with a run-time "
          "trip count counted once per iteration; CUDA: the aligned copy)")
    print("| kernel | target | threads | device loads | device stores | barriers | threadgroup B | array elements |")
    print("|---|---|---|---|---|---|---|---|")
    for specimen in SPECIMENS:
        for target in ("msl", "cuda"):
            f = specimen.compile(target).facts

            def accesses(counter) -> str:
                return " + ".join(f"{n}x{b}B" for b, n in sorted(counter.items(), reverse=True)) or "-"
            print(f"| {specimen.name} | {target} | {f.threads} | {accesses(f.loads)} | {accesses(f.stores)} | "
                  f"{f.barriers} | {f.shared_bytes} | {f.register_elements} |")


if __name__ == "__main__":
    main()
