"""CPU emulator of Metal: MLX-wrapped MSL compiled with clang against a strict Metal-stdlib shim."""
from .backend import EmulatorBackend
from .counters import Counts, LaunchCounts, counting

__all__ = ["Counts", "EmulatorBackend", "LaunchCounts", "counting"]
