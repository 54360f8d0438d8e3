"""CPU emulator of Metal: MLX-wrapped MSL compiled with clang against a strict Metal-stdlib shim."""
from .backend import EmulatorBackend

__all__ = ["EmulatorBackend"]
