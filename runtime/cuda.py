"""The CUDA back end: hands the kernel to `mx.fast.cuda_kernel` (MLX's CUDA build), unchanged.

As thin as the Metal one. The source must be CUDA (DSL kernels render it when this back end is
active); MLX declares inputs `const T*` (scalars too, as 0-d arrays), outputs `T*`, and counts
`grid` in threads as metal_kernel does. cuda_kernel has no atomic outputs (atomics act on plain
pointers) and no compile options: those are dropped.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mlx.core as mx


@dataclass
class CudaBackend:
    name: str = "cuda"
    language = "cuda"
    batch_timing = True
    _kernels: dict = field(default_factory=dict, repr=False)

    @staticmethod
    def available() -> bool:
        cuda = getattr(mx, "cuda", None)  # MLX builds before 0.28 have no mx.cuda
        return bool(cuda is not None and cuda.is_available())

    def launch(self, kernel, call: dict) -> list[mx.array]:
        fn = self._kernels.get(kernel.build_key)
        if fn is None:
            fn = mx.fast.cuda_kernel(
                name=kernel.name, input_names=kernel.input_names, output_names=kernel.output_names,
                source=kernel.source, header=kernel.header, ensure_row_contiguous=kernel.ensure_row_contiguous)
            self._kernels[kernel.build_key] = fn
        return fn(**call)
