"""metalforge.kernels: the kernel library. Each tuned kernel registers its Autotuner here, so that
`metalforge autotune` without a target tunes all of them for their standard shapes."""
from __future__ import annotations

from typing import Any

_REGISTRY: dict[str, Any] = {}


def register(tuner: Any) -> Any:
    """Add an Autotuner (with `tune_args`, `shapes` and `dtypes` set) to the library; usable as a decorator."""
    _REGISTRY[tuner.name] = tuner
    return tuner


LIBRARY = ("softmax", "norms", "quantized", "attention", "rope", "matmul", "flash_attention")


def registered() -> dict[str, Any]:
    """The library's tuned kernels by name (importing every library module registers them)."""
    import importlib

    for module in LIBRARY:
        importlib.import_module(f"{__name__}.{module}")
    return dict(_REGISTRY)
