"""The library kernels' Metal counts (benchmarks/metal_counts.py, at its shapes and fixed configs) may
not regress: every count where fewer is better — device and threadgroup accesses and bytes, constant
loads, barriers, simd and simdgroup-matrix operations, atomics — must stay at or under the numbers
recorded in metal_counts.json. A deliberate change (or an improvement, reported as a warning) is
recorded again with

    METALFORGE_UPDATE_COUNTS=1 .venv/bin/python -m pytest tests/kernels/test_metal_counts.py
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path

import pytest

from metalforge.runtime.emulator import EmulatorBackend, counters

_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(_DIR))
_spec = importlib.util.spec_from_file_location("metal_counts", _DIR / "metal_counts.py")
metal_counts = importlib.util.module_from_spec(_spec)
sys.modules["metal_counts"] = metal_counts  # its dataclasses look their module up
_spec.loader.exec_module(metal_counts)

RECORDED = Path(__file__).parent / "metal_counts.json"
UPDATE = os.environ.get("METALFORGE_UPDATE_COUNTS") == "1"
# counts where fewer is better (per-width counts are not: wider accesses replacing narrow ones is progress)
HELD = tuple(f"{space}_{d}{suffix}" for space in counters.SPACES for d in counters.DIRECTIONS
             for suffix in ("s", "_bytes")) + counters.EVENTS


def library_counts() -> dict[str, dict[str, int]]:
    be = EmulatorBackend(checked=False)  # the counts do not depend on checked mode; unchecked runs faster
    return {case.op: metal_counts.column(metal_counts.run_counted(case.ours, be)).counters
            for case in metal_counts.CASES}


def changes(recorded: dict, now: dict) -> tuple[list[str], list[str]]:
    """The HELD counts that grew and those that shrank, op by op, as `op: key before -> after`."""
    worse, better = [], []
    for op, counts in now.items():
        for key in HELD:
            before, after = recorded[op].get(key, 0), counts.get(key, 0)
            if after != before:
                (worse if after > before else better).append(f"{op}: {key} {before} -> {after}")
    return worse, better


def test_changes_finds_growth_and_ignores_widths():
    recorded = {"op": {"device_loads": 10, "device_load_4B": 10, "barriers": 2}}
    now = {"op": {"device_loads": 4, "device_load_16B": 4, "barriers": 3, "simd_shuffles": 1}}
    assert changes(recorded, now) == (["op: barriers 2 -> 3", "op: simd_shuffles 0 -> 1"],
                                      ["op: device_loads 10 -> 4"])


def test_library_counts_do_not_regress():
    now = library_counts()
    if UPDATE:
        RECORDED.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    recorded = json.loads(RECORDED.read_text())
    assert set(recorded) == set(now), f"ops recorded {sorted(recorded)}, counted {sorted(now)}: record them again " \
                                      "with METALFORGE_UPDATE_COUNTS=1"
    worse, better = changes(recorded, now)
    if better:
        warnings.warn("counts improved (record them with METALFORGE_UPDATE_COUNTS=1): " + "; ".join(better))
    assert not worse, "library kernels execute more on Metal than recorded (if meant, record them again with " \
                      "METALFORGE_UPDATE_COUNTS=1):\n" + "\n".join(worse)


def test_mlx_column_is_empty_until_wired(monkeypatch):
    """Without runtime/emulator/mlx_kernels.py the MLX column says so and holds no number."""
    monkeypatch.setattr(metal_counts, "mlx_kernels", None)
    case = metal_counts.CASES[0]
    assert metal_counts.mlx_launches(case) is None
    lines, figures = metal_counts.report([case], EmulatorBackend(checked=False), lambda message: None)
    assert figures[case.op]["columns"]["MLX"].startswith("not wired")
    assert any("| MLX | not wired" in line for line in lines)


def test_a_wrong_result_fails_its_row(monkeypatch):
    """A kernel whose output does not match the reference gives a FAILED row, not counts."""
    case = metal_counts.CASES[0]

    def wrong(be, rng):
        outputs, expected, rtol, atol = case.ours(be, rng)
        return [o + 1 for o in outputs], expected, rtol, atol

    broken = metal_counts.Case(case.op, case.shape, case.elements, case.flops, case.ideal_bytes, case.fp32, wrong)
    monkeypatch.setattr(metal_counts, "mlx_kernels", None)
    _, figures = metal_counts.report([broken], EmulatorBackend(checked=False), lambda message: None)
    assert figures[case.op]["columns"]["ours (library)"].startswith("FAILED: AssertionError")


def test_a_kernel_that_was_not_counted_fails_its_row(monkeypatch):
    """Outputs computed without an emulator launch give a FAILED row, never a row of zeros."""
    case = metal_counts.CASES[0]
    uncounted = metal_counts.Case(case.op, case.shape, case.elements, case.flops, case.ideal_bytes, case.fp32,
                                  lambda be, rng: ([], [], 0, 0))
    monkeypatch.setattr(metal_counts, "mlx_kernels", None)
    _, figures = metal_counts.report([uncounted], EmulatorBackend(checked=False), lambda message: None)
    assert figures[case.op]["columns"]["ours (library)"].startswith("FAILED: RuntimeError: no launch was counted")
