"""benchmarks/dot_facts.py's static counts of the library matmul's generated MSL per K step (barriers,
threadgroup and device bytes, fragment loads, the stage counter) hold for every configuration it
lists: it had stopped recognising the loader's advancing pointers (`a_ptr_k`) and the stage counter,
and crashed unnoticed."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import dot_facts  # noqa: E402 (benchmarks/ is not a package)


def test_every_configuration_has_the_counts_its_design_says(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["dot_facts.py"])
    assert dot_facts.main() == 0, capsys.readouterr().err
    assert "31 configurations compiled" in capsys.readouterr().out
