"""The tuning tests' fixtures (the emulator, a fresh database file) for the energy tests."""
from ..tuning.conftest import db_path, emu  # noqa: F401
