"""The CUDA back end: hands the kernel to MLX's CUDA build.

As thin as the Metal one. The source must be CUDA (DSL kernels render it when this back end is
active). A hand-written kernel goes to `mx.fast.cuda_kernel` unchanged: MLX declares inputs
`const T*` (scalars too, as 0-d arrays), outputs `T*`, and counts `grid` in threads as metal_kernel
does. cuda_kernel has no atomic outputs (atomics act on plain pointers) and no compile options:
those are dropped.

A generated kernel with scalar arguments (`MetalKernel.value_types`) is compiled here with NVRTC and
run by `mx.fast.precompiled_cuda_kernel`, which passes scalars by value in the launch's parameters
as Triton does: through cuda_kernel every program would first wait for a global load of each scalar
(runtime/nvrtc.py says what that cost). The body is the same; only the signature differs, written
here in MLX's order (array inputs, outputs, then the scalars).
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import mlx.core as mx
import numpy as np

from ..errors import LaunchConfigError
from . import nvrtc
from .kernel import BuiltKernels, MetalKernel

CUDA_TYPES = {mx.bool_: "bool", mx.int8: "int8_t", mx.int16: "int16_t", mx.int32: "int32_t", mx.int64: "int64_t",
              mx.uint8: "uint8_t", mx.uint16: "uint16_t", mx.uint32: "uint32_t", mx.uint64: "uint64_t",
              mx.float16: "__half", mx.bfloat16: "__nv_bfloat16", mx.float32: "float"}


class Float32Values(dict):
    """Python floats rounded to float32, made once per value (`cache[value]`): precompiled_cuda_kernel
    takes a float only if float32 holds it exactly (nanobind's strict check refuses 1e-5), and the
    kernel's float parameter would round it the same way."""

    LIMIT = 512

    def __missing__(self, value: float) -> float:
        rounded = float(np.float32(value))
        if value == 0 or len(self) >= self.LIMIT:  # 0.0 and -0.0 are one key: neither is kept
            return rounded
        self[value] = rounded
        return rounded


# What precompiled_cuda_kernel passes by value (MLX's ScalarArg: bool, 32-bit int, float), and how a
# launch converts a value for it.
_BY_VALUE = {mx.int32: int, mx.float32: Float32Values().__getitem__, mx.bool_: bool}

# A scalar parameter the body reads as `name[0]`, as it reads cuda_kernel's 0-d arrays.
_PRELUDE = """\
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda/std/cstdint>

template <typename T>
struct mf_by_value {
  T value;
  __device__ T operator[](int) const { return value; }
};

"""


def translation_unit(kernel: MetalKernel, symbol: str) -> str:
    """The whole CUDA source of a generated kernel whose scalars come by value, entry `symbol`."""
    types = kernel.value_types
    by_value = set(types.by_value)
    arrays = [f"    const {CUDA_TYPES[t]}* {n}" for n, t in zip(kernel.input_names, types.inputs) if n not in by_value]
    outputs = [f"    {CUDA_TYPES[t]}* {n}" for n, t in zip(kernel.output_names, types.outputs)]
    scalars = [f"    const mf_by_value<{CUDA_TYPES[t]}> {n}" for n, t in zip(kernel.input_names, types.inputs)
               if n in by_value]
    bounds = f"__launch_bounds__({kernel.max_threads}) " if kernel.max_threads else ""
    return (f"{_PRELUDE}{kernel.header}\nextern \"C\" __global__ void {bounds}{symbol}(\n"
            + ",\n".join(arrays + outputs + scalars) + f") {{\n{kernel.source}\n}}\n")


def _cuda_kernel(kernel: MetalKernel) -> Callable[..., list[mx.array]]:
    if kernel.value_types is not None and kernel.value_types.by_value:
        return _precompiled(kernel)
    _architecture(kernel)  # a wgmma kernel on another GPU is refused here too (MLX's NVRTC picks sm_90a itself)
    return mx.fast.cuda_kernel(
        name=kernel.name, input_names=kernel.input_names, output_names=kernel.output_names, source=kernel.source,
        header=kernel.header, ensure_row_contiguous=kernel.ensure_row_contiguous, shared_memory=kernel.shared_memory)


@functools.lru_cache(maxsize=None)
def _device_architecture() -> str:
    """The GPU's `sm_XY` (asked once), or what kept the driver from saying."""
    try:
        return nvrtc.device_architecture()
    except nvrtc.NvrtcError as e:
        return f"unknown: {e}"


def _architecture(kernel: MetalKernel) -> str | None:
    """What to compile `kernel` for: the device's own architecture (None), or sm_90a for a kernel
    with Hopper's wgmma (`wgmma=True`), whose PTX no other architecture runs."""
    if "wgmma.mma_async" not in kernel.header:
        return None
    device = nvrtc.device_architecture()
    if device != "sm_90":
        raise LaunchConfigError(f"{kernel.name}: wgmma=True needs a Hopper GPU (sm_90); this one is {device}: "
                                "launch without wgmma (tl.dot then uses mma.sync)")
    return "sm_90a"


def _precompiled(kernel: MetalKernel) -> Callable[..., list[mx.array]]:
    """A callable taking cuda_kernel's keywords plus `scalars` (the by-value ones, in input order)."""
    digest = hashlib.sha256(translation_unit(kernel, "mf_kernel").encode()).hexdigest()[:20]
    symbol = f"mf_{kernel.name}_{digest}"  # MLX keeps compiled modules by this name
    source = translation_unit(kernel, symbol)
    module = nvrtc.compile_module(source, symbol, _architecture(kernel))
    contiguous, shared, fast = kernel.ensure_row_contiguous, kernel.shared_memory, mx.fast

    def run(*, inputs, scalars, output_shapes, output_dtypes, grid, threadgroup, init_value=None, stream=None):
        return fast.precompiled_cuda_kernel(
            name=symbol, compiled_source=module, inputs=inputs, output_shapes=output_shapes, output_dtypes=output_dtypes,
            scalars=scalars, grid=grid, threadgroup=threadgroup, shared_memory=shared, init_value=init_value,
            ensure_row_contiguous=contiguous, stream=stream)

    run.source = source
    return run


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

    def lacks(self, setting: str) -> str | None:
        """What launch setting `setting` needs of the GPU that this one lacks (the language's own
        features are codegen's `Target.lacks`): wgmma a Hopper GPU (`_architecture` refuses a wgmma
        kernel elsewhere)."""
        if setting == "wgmma" and _device_architecture() != "sm_90":
            return f"Hopper's warpgroup MMA (sm_90; this GPU is {_device_architecture()})"
        return None

    def scalars_by_value(self) -> Mapping[mx.Dtype, Callable[[Any], Any]]:
        """The scalar dtypes generated kernels take by value here (NVRTC found, MLX has
        precompiled_cuda_kernel), each with what converts a launch's value for MLX; else none."""
        if nvrtc.available() is None and hasattr(mx.fast, "precompiled_cuda_kernel"):
            return _BY_VALUE
        return {}

    def build(self, kernel: MetalKernel) -> Callable[..., list[mx.array]]:
        """What runs `kernel`, made once per build key: the function `mx.fast.cuda_kernel` returns,
        or for scalars by value a call of `mx.fast.precompiled_cuda_kernel` on the compiled module
        (a compressed fatbin: runtime/nvrtc.py's compile_module says why)."""
        return self.built(kernel)
