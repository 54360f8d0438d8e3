"""metalforge.kernels: the kernel library. Each tuned kernel registers its Autotuner here, so that
`metalforge autotune` without a target tunes all of them for their standard shapes."""
from __future__ import annotations

from typing import Any

from ..codegen.target import METAL, Target, target_named
from ..errors import BackendUnavailableError
from ..runtime import resolve_backend

_REGISTRY: dict[str, Any] = {}


def active_target() -> Target:
    """The code generation target of the back end the tuner measures on (Metal's where none runs
    here), for prunes that must know the compiler's limits before compiling a config."""
    try:
        return target_named(resolve_backend().language)
    except BackendUnavailableError:
        return METAL


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
