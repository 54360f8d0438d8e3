"""benchmarks/timing_stability.py: a table of each timing method's medians per round, on the emulator;
bad arguments are refused before anything runs."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import mlx.core as mx
import pytest

_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(_DIR))
_spec = importlib.util.spec_from_file_location("timing_stability", _DIR / "timing_stability.py")
ts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ts)


def test_every_method_and_config_gets_a_row_with_a_time_per_round(emu, capsys, monkeypatch):
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")
    monkeypatch.setattr(ts, "IDLE_S", 0.0)
    configs = ['{"kwargs": {"BLOCK": 128}, "num_warps": 1}', '{"kwargs": {"BLOCK": 128}, "num_warps": 2}']
    assert ts.main(["--case", "softmax_kernel:3x100:float32", "--rounds", "2", "--config", *configs]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()[1:]]
    assert "softmax_kernel:3x100:float32 on emulator" in out and len(rows) == 6
    for method in ("single", "batched", "pipelined"):
        assert sum(row[0] == method for row in rows) == 2
    for row in rows:
        assert all(float(t) > 0 for t in row[1:3])


@pytest.mark.parametrize("argv,message", [
    (["--rounds", "1"], "--rounds must be at least 2"),
    (["--case", "softmax_kernel:4000"], "takes a 2-D shape"),
    (["--config", "{not json"], "--config '{not json': JSONDecodeError: Expecting property name"),
    (["--config", '{"num_warps": 4}'], "--config '{\"num_warps\": 4}': KeyError: 'kwargs'; expected JSON such as"),
])
def test_bad_arguments_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        ts.main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_a_config_that_disagrees_with_the_reference_is_not_timed(emu, capsys, monkeypatch):
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")
    monkeypatch.setattr(ts, "IDLE_S", 0.0)
    kernel = ts.registered()["softmax_kernel"]
    monkeypatch.setattr(kernel, "reference", lambda *args: [mx.full((3, 100), 7.0)])  # poisoned reference
    assert ts.main(["--case", "softmax_kernel:3x100:float32", "--rounds", "2"]) == 1
    captured = capsys.readouterr()
    assert "gives a wrong result: output 0: 300 of 300 elements differ" in captured.err
    assert captured.out == ""  # no table
