"""The library kernels' Metal counts (benchmarks/metal_counts.py, at its shapes and fixed configs) may
not regress: every count where fewer is better — device and threadgroup accesses and bytes, constant
loads, barriers, simd and simdgroup-matrix operations, atomics — must stay at or under the numbers
recorded in metal_counts.json. MLX's kernels' counts (its pinned sources, at the same shapes) must
equal theirs exactly: they change only when the emulator's counting does. A deliberate change (or an
improvement of ours, reported as a warning) is recorded again with

    METALFORGE_UPDATE_COUNTS=1 .venv/bin/python -m pytest tests/kernels/test_metal_counts.py
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path

import pytest

from metalforge.runtime.emulator import EmulatorBackend, counters, mlx_kernels

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


def mlx_counts() -> dict[str, dict[str, int]]:
    """MLX's kernels' counts, by `op | column label`."""
    be = EmulatorBackend(checked=False)
    return {f"{case.op} | {mlx.label}": metal_counts.column(metal_counts.mlx_launches(mlx, be)).counters
            for case in metal_counts.CASES for mlx in case.mlx}


def recorded(part: str, now: dict) -> dict:
    """The recorded counts of `part` ("library" or "mlx"), after recording `now` in their place when
    METALFORGE_UPDATE_COUNTS=1; fails when the recorded and counted rows differ."""
    everything = json.loads(RECORDED.read_text()) if RECORDED.exists() else {}
    if UPDATE:
        everything[part] = now
        RECORDED.write_text(json.dumps(everything, indent=1, sort_keys=True) + "\n")
    rows = everything.get(part, {})
    assert set(rows) == set(now), f"{part} rows recorded {sorted(rows)}, counted {sorted(now)}: record them " \
                                  "again with METALFORGE_UPDATE_COUNTS=1"
    return rows


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
    worse, better = changes(recorded("library", now), now)
    if better:
        warnings.warn("counts improved (record them with METALFORGE_UPDATE_COUNTS=1): " + "; ".join(better))
    assert not worse, "library kernels execute more on Metal than recorded (if meant, record them again with " \
                      "METALFORGE_UPDATE_COUNTS=1):\n" + "\n".join(worse)


def test_mlx_counts_are_as_recorded():
    """MLX's sources are pinned, so any change in their counts is the emulator's counting changing."""
    missing = mlx_kernels.missing_sources(sorted({f for op in mlx_kernels.MLX_OPS.values() for f in op.sources}))
    if missing:
        pytest.skip(f"MLX {mlx_kernels.MLX_VERSION} sources {missing} not installed: {mlx_kernels.FETCH_HINT}")
    now = mlx_counts()
    drift = [f"{row}: {key} {before.get(key, 0)} -> {now[row].get(key, 0)}"
             for row, before in recorded("mlx", now).items()
             for key in sorted(set(before) | set(now[row])) if before.get(key, 0) != now[row].get(key, 0)]
    assert not drift, "the emulator counts MLX's (pinned) kernels differently than recorded: a change in counting " \
                      "(if meant, record them again with METALFORGE_UPDATE_COUNTS=1):\n" + "\n".join(drift)


def test_a_wrong_mlx_result_fails_its_row():
    """MLX's output is checked before it is counted: one off by more than the tolerance fails its row."""
    case = metal_counts.CASES[0]
    exact = dataclasses.replace(case.mlx[0], rtol=0.0, atol=0.0)  # half outputs differ from the fp32 reference
    _, figures = metal_counts.report([dataclasses.replace(case, mlx=(exact,), same_source=None)],
                                     EmulatorBackend(checked=False), lambda message: None)
    assert figures[case.op]["columns"][exact.label].startswith("FAILED: AssertionError")


def test_a_wrong_result_fails_its_row():
    """A kernel whose output does not match the reference gives a FAILED row, not counts."""
    case = metal_counts.CASES[0]

    def wrong(be, rng):
        outputs, expected, rtol, atol = case.ours(be, rng)
        return [o + 1 for o in outputs], expected, rtol, atol

    broken = metal_counts.Case(case.op, case.shape, case.elements, case.flops, case.ideal_bytes, case.fp32, wrong)
    _, figures = metal_counts.report([broken], EmulatorBackend(checked=False), lambda message: None)
    assert figures[case.op]["columns"]["ours (library)"].startswith("FAILED: AssertionError")


def test_a_kernel_that_was_not_counted_fails_its_row():
    """Outputs computed without an emulator launch give a FAILED row, never a row of zeros."""
    case = metal_counts.CASES[0]
    uncounted = metal_counts.Case(case.op, case.shape, case.elements, case.flops, case.ideal_bytes, case.fp32,
                                  lambda be, rng: ([], [], 0, 0))
    _, figures = metal_counts.report([uncounted], EmulatorBackend(checked=False), lambda message: None)
    assert figures[case.op]["columns"]["ours (library)"].startswith("FAILED: RuntimeError: no launch was counted")
