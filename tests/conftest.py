"""Shared fixtures for metalforge's tests.

Random inputs are fresh on every run: each test that takes `rng` gets a generator seeded from a
new random seed, which is printed in the failure report (section "random seed"). Set
METALFORGE_TEST_SEED=<seed> to replay a failing run.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

_SEED_KEY = pytest.StashKey[int]()


@pytest.fixture(autouse=True, scope="session")
def _private_tuning_database(tmp_path_factory):
    """Tests never read or write the user's tuning database (tests that need one set their own)."""
    previous = os.environ.get("METALFORGE_DB")
    os.environ["METALFORGE_DB"] = str(tmp_path_factory.mktemp("tuning") / "tuning.sqlite")
    yield
    if previous is None:
        os.environ.pop("METALFORGE_DB", None)
    else:
        os.environ["METALFORGE_DB"] = previous


@pytest.fixture
def rng(request) -> np.random.Generator:
    env = os.environ.get("METALFORGE_TEST_SEED")
    seed = int(env) if env else int(np.random.SeedSequence().entropy % (1 << 63))
    request.node.stash[_SEED_KEY] = seed
    print(f"random seed: {seed} (replay with METALFORGE_TEST_SEED={seed})")
    return np.random.default_rng(seed)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    seed = item.stash.get(_SEED_KEY, None)
    if seed is not None and report.failed:
        report.sections.append(("random seed", f"METALFORGE_TEST_SEED={seed}"))
    return report
