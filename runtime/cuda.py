"""The CUDA back end: hands the kernel to `mx.fast.cuda_kernel` (MLX's CUDA build), unchanged.

As thin as the Metal one. The source must be CUDA (DSL kernels render it when this back end is
active); MLX declares inputs `const T*` (scalars too, as 0-d arrays), outputs `T*`, and counts
`grid` in threads as metal_kernel does. cuda_kernel has no atomic outputs (atomics act on plain
pointers) and no compile options: those are dropped.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import mlx.core as mx

from .kernel import BuiltKernels, MetalKernel


def _cuda_kernel(kernel: MetalKernel) -> Callable[..., list[mx.array]]:
    return mx.fast.cuda_kernel(
        name=kernel.name, input_names=kernel.input_names, output_names=kernel.output_names, source=kernel.source,
        header=kernel.header, ensure_row_contiguous=kernel.ensure_row_contiguous, shared_memory=kernel.shared_memory)


@dataclass
class CudaBackend:
    name: str = "cuda"
    language = "cuda"
    batch_timing = True
    built: BuiltKernels = field(default_factory=lambda: BuiltKernels(_cuda_kernel), repr=False, compare=False)

    @staticmethod
    def available() -> bool:
        cuda = getattr(mx, "cuda", None)  # MLX builds before 0.28 have no mx.cuda
        return bool(cuda is not None and cuda.is_available())

    def build(self, kernel: MetalKernel) -> Callable[..., list[mx.array]]:
        """The function `mx.fast.cuda_kernel` returns for `kernel` (made once per build key)."""
        return self.built(kernel)
