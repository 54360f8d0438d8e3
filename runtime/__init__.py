"""Back ends that run Metal kernels: `metal` (MLX on Apple GPUs) and `emulator` (clang on the CPU)."""
from .backends import backend_names, resolve as resolve_backend
from .kernel import MetalKernel, metal_kernel

__all__ = ["MetalKernel", "backend_names", "metal_kernel", "resolve_backend"]
