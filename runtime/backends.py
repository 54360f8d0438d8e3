"""Back-end registry and selection: an argument, else $METALFORGE_BACKEND, else the best available."""
from __future__ import annotations

import functools
import os
from typing import Protocol, Union

from ..errors import BackendUnavailableError


class Backend(Protocol):
    name: str
    language: str  # the kernel source it runs: "msl" or "cuda"
    # launches are lazy and run one after another, so the tuner may build several and time one
    # evaluation of them (autotune.bench.median_time_ms): CUDA. Metal runs kernels that share no
    # buffer concurrently; the emulator runs a kernel when it is launched.
    batch_timing: bool

    @staticmethod
    def available() -> bool: ...


def _factories() -> dict:
    from .cuda import CudaBackend
    from .emulator.backend import EmulatorBackend
    from .metal import MetalBackend

    # Order is preference for automatic selection.
    return {"metal": MetalBackend, "cuda": CudaBackend, "emulator": EmulatorBackend}


@functools.lru_cache(maxsize=None)
def _shared(name: str):
    return _factories()[name]()


def backend_names(language: str | None = None) -> list[str]:
    return [n for n, f in _factories().items() if language is None or f.language == language]


def resolve(backend: Union[str, Backend, None] = None, language: str | None = None) -> Backend:
    """The back end to run on: an instance as given, a name, $METALFORGE_BACKEND, or automatic.

    `language` restricts the automatic choice to back ends running that source ("msl" for
    hand-written metal_kernel source; DSL kernels render for whichever back end is chosen)."""
    if backend is not None and not isinstance(backend, str):
        return backend
    name = backend or os.environ.get("METALFORGE_BACKEND") or "auto"
    factories = _factories()
    if name == "auto":
        for candidate, factory in factories.items():
            if (language is None or factory.language == language) and factory.available():
                return _shared(candidate)
        raise BackendUnavailableError("no back end can run here: " + ", ".join(factories) +
                                      " are all unavailable (the emulator needs clang++ >= 17)")
    if name not in factories:
        raise BackendUnavailableError(f"unknown back end {name!r}; choose one of: auto, {', '.join(factories)}")
    if not factories[name].available():
        hint = {"metal": "Metal needs macOS on Apple silicon with MLX's Metal build",
                "cuda": "CUDA needs MLX's CUDA build (mlx-cuda) and an NVIDIA GPU",
                "emulator": "install clang-19 and libclang-rt-19-dev"}.get(name, "")
        raise BackendUnavailableError(f"back end {name!r} is not available on this machine: {hint}")
    return _shared(name)
