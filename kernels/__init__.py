"""metalforge.kernels: the kernel library. Each tuned kernel registers its Autotuner here, so that
`metalforge autotune` without a target tunes all of them for their standard shapes."""
from __future__ import annotations

from typing import Any

_REGISTRY: dict[str, Any] = {}


def register(tuner: Any) -> Any:
    """Add an Autotuner (with `tune_args`, `shapes` and `dtypes` set) to the library; usable as a decorator."""
    _REGISTRY[tuner.name] = tuner
    return tuner


def registered() -> dict[str, Any]:
    """The library's tuned kernels by name."""
    return dict(_REGISTRY)
