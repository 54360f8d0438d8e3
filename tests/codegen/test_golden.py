"""Golden sources: the MSL and CUDA each library kernel compiles to at one representative launch
(metalforge.kernels.specimens), checked in under tests/golden/, so a change to code generation shows
in review as a diff of real kernels. A deliberate change rewrites them:

    METALFORGE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/codegen/test_golden.py
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from metalforge.kernels.specimens import SPECIMENS

GOLDEN = Path(__file__).parent.parent / "golden"
SUFFIX = {"msl": ".metal", "cuda": ".cu"}
UPDATE = os.environ.get("METALFORGE_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("target", list(SUFFIX))
@pytest.mark.parametrize("specimen", SPECIMENS, ids=[s.name for s in SPECIMENS])
def test_generated_source_matches_golden(specimen, target):
    source = specimen.compile(target).asm[target] + "\n"
    path = GOLDEN / f"{specimen.name}{SUFFIX[target]}"
    if UPDATE:
        path.write_text(source)
    assert path.exists(), f"{path} is missing: write it with METALFORGE_UPDATE_GOLDEN=1"
    golden = path.read_text()
    if source != golden:
        diff = "".join(list(difflib.unified_diff(golden.splitlines(True), source.splitlines(True), str(path),
                                                 "generated"))[:80])
        pytest.fail(f"the generated {target} of {specimen.name} changed (first lines of the diff below); if the "
                    f"change is meant, rewrite the golden files with METALFORGE_UPDATE_GOLDEN=1\n{diff}")


def test_every_golden_file_has_its_specimen():
    """A specimen renamed or removed leaves no stale golden file behind."""
    expected = {f"{s.name}{suffix}" for s in SPECIMENS for suffix in SUFFIX.values()}
    assert {p.name for p in GOLDEN.iterdir()} == expected
