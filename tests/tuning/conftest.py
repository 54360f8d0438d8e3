"""Fixtures for the autotuner and tuning-database tests: the emulator and a fresh database file."""
from __future__ import annotations

import pytest

from metalforge.runtime.emulator import EmulatorBackend


@pytest.fixture(scope="session")
def emu() -> EmulatorBackend:
    if not EmulatorBackend.available():
        pytest.skip("the emulator needs clang++ >= 17")
    return EmulatorBackend(workers=0)


@pytest.fixture
def db_path(tmp_path, monkeypatch):
    path = tmp_path / "tuning.sqlite"
    monkeypatch.setenv("METALFORGE_DB", str(path))
    monkeypatch.delenv("METALFORGE_TUNE_ON_MISS", raising=False)
    return path
