"""Back-end registry and selection: an argument, else $METALFORGE_BACKEND, else the best available.

This is the one place a back end is chosen: `metal_kernel` calls and DSL launches (metalforge.launcher)
both resolve through `resolve`.
"""
from __future__ import annotations

import functools
import os
from typing import Any, Callable, Mapping, Protocol, Union

import mlx.core as mx

from ..errors import BackendUnavailableError

BACKEND_ENV = "METALFORGE_BACKEND"


class Backend(Protocol):
    name: str
    language: str  # the kernel source it runs: "msl" or "cuda"
    # launches are lazy and run one after another, so the tuner may build several and time one
    # evaluation of them (autotune.bench.median_time_ms): CUDA. Metal runs kernels that share no
    # buffer concurrently; the emulator runs a kernel when it is launched.
    batch_timing: bool

    @staticmethod
    def available() -> bool: ...

    def scalars_by_value(self) -> Mapping[mx.Dtype, Callable[[Any], Any]]:
        """The scalar dtypes a generated kernel takes by value (in its launch parameters, not as a
        0-d array), each with what converts a launch's value for MLX (runtime.cuda); {} where none.
        Optional: a back end without it gets every scalar as a 0-d array."""
        ...

    # Optional: `lacks(setting) -> str | None`, what a feature launch setting (`wgmma`) needs of the
    # device that this one lacks (launcher.lacking adds the language's own features).

    def build(self, kernel: Any) -> Callable[..., list[mx.array]]:
        """What runs `kernel` (a runtime.MetalKernel): a callable taking the keyword arguments of the
        function `mx.fast.metal_kernel` returns (inputs, output_shapes, output_dtypes, grid, ...).
        Launch paths keep it: calling it is all a cached launch does."""
        ...


def _factories() -> dict:
    from .cuda import CudaBackend
    from .emulator.backend import EmulatorBackend
    from .metal import MetalBackend

    # Order is preference for automatic selection.
    return {"metal": MetalBackend, "cuda": CudaBackend, "emulator": EmulatorBackend}


@functools.lru_cache(maxsize=None)
def _shared(name: str):
    return _factories()[name]()


def forget() -> None:
    """Make the next resolution build its back end anew (they read the environment when made)."""
    _shared.cache_clear()
    _named.cache_clear()


def backend_names(language: str | None = None) -> list[str]:
    return [n for n, f in _factories().items() if language is None or f.language == language]


def _environment_reader(variable: str) -> Callable[[], str | None]:
    """A reader of one environment variable cheap enough for every launch: `os.environ.get` costs
    0.8 us when the variable is unset (it raises and catches a KeyError); this reads os.environ's own
    mapping, which every assignment to os.environ updates (os.environ.get where there is none)."""
    data = getattr(os.environ, "_data", None)
    encode, decode = getattr(os.environ, "encodekey", None), getattr(os.environ, "decodevalue", None)
    if not isinstance(data, dict) or encode is None or decode is None:
        return functools.partial(os.environ.get, variable)
    key = encode(variable)

    def read() -> str | None:
        raw = data.get(key)
        return None if raw is None else decode(raw)
    return read


environment_choice = _environment_reader(BACKEND_ENV)  # $METALFORGE_BACKEND, or None


def resolve(backend: Union[str, Backend, None] = None, language: str | None = None) -> Backend:
    """The back end to run on: an instance as given, a name, $METALFORGE_BACKEND, or automatic.

    `language` restricts the automatic choice to back ends running that source ("msl" for
    hand-written metal_kernel source; DSL kernels render for whichever back end is chosen).
    Names resolve once per process (each launch resolves its back end)."""
    if backend is not None and not isinstance(backend, str):
        return backend
    return _named(backend or environment_choice() or "auto", language)


@functools.lru_cache(maxsize=None)
def _named(name: str, language: str | None) -> Backend:
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
