"""metalforge: Triton-compatible kernels for Apple silicon, compiled to Metal through MLX."""
from . import errors
from .dsl.jit import Placeholder, cdiv, empty, full, jit, zeros
from .runtime import metal_kernel

__version__ = "0.1.0"
__all__ = ["Placeholder", "cdiv", "empty", "errors", "full", "jit", "metal_kernel", "zeros"]
