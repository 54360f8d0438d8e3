"""The Metal back end: hands everything to `mx.fast.metal_kernel`, unchanged.

It stays this thin on purpose: the emulator compiles the text MLX generates from the very same
arguments, so what passes on the emulator is what runs on the GPU.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import mlx.core as mx

from .kernel import BuiltKernels, MetalKernel


def _metal_kernel(kernel: MetalKernel) -> Callable[..., list[mx.array]]:
    return mx.fast.metal_kernel(
        name=kernel.name, input_names=kernel.input_names, output_names=kernel.output_names, source=kernel.source,
        header=kernel.header, ensure_row_contiguous=kernel.ensure_row_contiguous,
        atomic_outputs=kernel.atomic_outputs, compile_options=kernel.compile_options)


@dataclass
class MetalBackend:
    name: str = "metal"
    language = "msl"
    batch_timing = False
    built: BuiltKernels = field(default_factory=lambda: BuiltKernels(_metal_kernel), repr=False, compare=False)

    @staticmethod
    def available() -> bool:
        return mx.metal.is_available()

    def scalars_by_value(self) -> Mapping[mx.Dtype, Callable[[Any], Any]]:
        """None: Metal binds scalars as `constant T&` buffers, read through the constant cache."""
        return {}

    def build(self, kernel: MetalKernel) -> Callable[..., list[mx.array]]:
        """The function `mx.fast.metal_kernel` returns for `kernel` (made once per build key)."""
        return self.built(kernel)
