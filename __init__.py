"""metalforge: Triton-compatible kernels for Apple silicon, compiled to Metal through MLX."""
from . import errors
from .runtime import metal_kernel

__version__ = "0.1.0"
__all__ = ["errors", "metal_kernel"]
