"""Which machine a tuning result belongs to: back end, chip, GPU family, OS and MLX versions."""
from __future__ import annotations

import functools
import platform
import re
from dataclasses import dataclass
from typing import Any

import mlx.core as mx

from ..runtime import backends


@dataclass(frozen=True)
class DeviceIdentity:
    """The part of a tuning key that describes the machine. `chip` is what a config is tuned for;
    `gpu_family` groups chips whose best configs tend to carry over (e.g. every Apple G15 GPU)."""

    backend: str
    chip: str
    gpu_family: str
    os: str
    mlx_version: str


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _gpu_family(architecture: str) -> str:
    # Metal reports e.g. "applegpu_g15s"; the trailing letter is the die variant (p/g/s/c/d) of one family.
    return re.sub(r"^(applegpu_g\d+)[a-z]$", r"\1", architecture)


@functools.lru_cache(maxsize=None)
def _identify(backend_name: str) -> DeviceIdentity:
    os_name = f"{platform.system()}-{platform.release()}"
    if backend_name == "emulator":
        # The emulator's speed is the CPU's: the CPU model is the chip, the architecture its family.
        return DeviceIdentity(backend_name, _cpu_model(), platform.machine(), os_name, mx.__version__)
    info = mx.device_info()
    architecture = str(info.get("architecture", "unknown"))
    return DeviceIdentity(backend_name, str(info.get("device_name", architecture)), _gpu_family(architecture),
                          os_name, mx.__version__)


def identify(backend: Any = None) -> DeviceIdentity:
    """The identity of the machine `backend` (a name, an instance, or None for the active one) runs on."""
    return _identify(backends.resolve(backend).name)
