"""Device memory instructions that same_source.py's odd-size rows execute on the emulator (no GPU):
per element, and by bytes per access (runtime/emulator/counters.py counts every access a launch
makes). Codegen 36 moves whole vectors up to a mask's edge (docs/benchmarks.md); run it against an
older checkout (PYTHONPATH) for the "before" column.

    python benchmarks/edge_counts.py
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import mlx.core as mx

import metalforge as mf
from metalforge.codegen.pipeline import CODEGEN_VERSION
from metalforge.runtime.emulator import counters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from same_source import softmax_one_tile, vector_add  # noqa: E402


def counted(launch: Callable[[], Any], elements: int) -> str:
    with counters.counting() as launches:
        mx.eval(launch())
    total = launches[-1].total
    return (f"device accesses per element {total.accesses() / elements:.3f}, loads by bytes {total.widths()}, "
            f"stores by bytes {total.widths(direction='store')}")


def main() -> None:
    print(f"# codegen {CODEGEN_VERSION}, mlx {mx.__version__}, the emulator's counts")
    n = (1 << 16) + 1
    x, y = mx.random.normal((n,)), mx.random.normal((n,))
    print("vector add 2^16+1 fp32, BLOCK 1024, 4 warps:",
          counted(lambda: vector_add[(mf.cdiv(n, 1024),)](x, y, mf.empty((n,)), n, BLOCK=1024, num_warps=4), n))
    rows, cols, stride = 8, 32001, 32008
    x = mx.random.normal((rows, stride)).astype(mx.float16)
    print("softmax one tile 8x32001 (rows 32008 apart) fp16, 16 warps:",
          counted(lambda: softmax_one_tile[(rows,)](mf.empty((rows, stride), mx.float16), x, stride, stride, cols,
                                                    BLOCK=32768, num_warps=16), rows * cols))


if __name__ == "__main__":
    main()
