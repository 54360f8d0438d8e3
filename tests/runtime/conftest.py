"""Fixtures for the emulator tests of metalforge.runtime."""
from __future__ import annotations

import pytest

from metalforge.runtime.emulator import EmulatorBackend

from .helpers import SCHEDULES, backend


@pytest.fixture(params=SCHEDULES)
def emulator(request) -> EmulatorBackend:
    """A checked emulator, once per schedule (a kernel must be right under both)."""
    return backend(request.param)


@pytest.fixture
def emu() -> EmulatorBackend:
    """A checked emulator with the forward schedule."""
    return backend("forward")
