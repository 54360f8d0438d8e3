"""The Metal back end: hands everything to `mx.fast.metal_kernel`, unchanged.

It stays this thin on purpose: the emulator compiles the text MLX generates from the very same
arguments, so what passes on the emulator is what runs on the GPU.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mlx.core as mx


@dataclass
class MetalBackend:
    name: str = "metal"
    language = "msl"
    batch_timing = False
    _kernels: dict = field(default_factory=dict, repr=False)

    @staticmethod
    def available() -> bool:
        return mx.metal.is_available()

    def launch(self, kernel, call: dict) -> list[mx.array]:
        fn = self._kernels.get(id(kernel))
        if fn is None:
            fn = mx.fast.metal_kernel(
                name=kernel.name, input_names=kernel.input_names, output_names=kernel.output_names,
                source=kernel.source, header=kernel.header, ensure_row_contiguous=kernel.ensure_row_contiguous,
                atomic_outputs=kernel.atomic_outputs, compile_options=kernel.compile_options)
            self._kernels[id(kernel)] = fn
        return fn(**call)
