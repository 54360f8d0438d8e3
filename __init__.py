"""metalforge: Triton-compatible kernels for Apple silicon, compiled to Metal through MLX."""
__version__ = "0.1.0"

from . import errors  # noqa: E402
from .autotune import Config, Space, autotune, pow2, set_tuning_policy, tuning_policy, tuning_report  # noqa: E402
from .launcher import Placeholder, cdiv, empty, full, jit, zeros  # noqa: E402
from .runtime import metal_kernel  # noqa: E402

__all__ = ["Config", "Placeholder", "Space", "autotune", "cdiv", "empty", "errors", "full", "jit", "metal_kernel",
           "pow2", "set_tuning_policy", "tuning_policy", "tuning_report", "zeros"]
