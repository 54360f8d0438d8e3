"""benchmarks/gpu_bench.py runs end to end off the GPU (--smoke: tiny shapes, times measure nothing):
the LLM shape sweep builds every row of the chosen kernels, checks it against its reference and
says where each row's config came from."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_sweep_smoke_rows_are_all_checked(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_bench.py"), "--sweep", "--smoke",
                           "--rows", "add + rms_norm,qmv 4-bit g64", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "METALFORGE_BACKEND": "emulator"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = json.loads((tmp_path / "results.json").read_text())["results"]
    assert [r["kernel"] for r in rows] == ["add + rms_norm"] * 8 + ["qmv 4-bit g64"] * 3 \
        + ["add + rms_norm"] * 8 + ["qmv 4-bit g64"] * 3  # fp16, then bf16
    assert all(r["correct"] for r in rows), [r for r in rows if not r.get("correct")]
    assert {r["shape"].rsplit(" ", 1)[1] for r in rows} == {"fp16", "bf16"}
    assert all(r["config_from"] in ("exact", "bucket", "family", "default") for r in rows)
    table = (tmp_path / "benchmarks.md").read_text()
    assert "LLM shape sweep" in table and "its times measure nothing" in table

