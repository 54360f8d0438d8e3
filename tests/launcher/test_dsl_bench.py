"""benchmarks/dsl_bench.py runs end to end (--smoke: few calls, its times measure little): the launch
table has its three columns for 4, 8 and 16 arguments with both grid kinds, and the compile table
its kernels."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_smoke_run_prints_both_tables():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "dsl_bench.py"), "--smoke"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = re.findall(r"^\|\s+(\d+) \| (tuple|lambda)\s+\|(.*)\|$", done.stdout, re.M)
    assert [(args, grid) for args, grid, _ in rows] == [(n, g) for n in ("4", "8", "16") for g in ("tuple", "lambda")]
    assert all(len(cells.split("|")) == 5 for _, _, cells in rows)  # raw, @jit, @autotune and the two overheads
    compiled = re.findall(r"^\| (\w+)\s+\|\s+[\d.]+ \|\s+[\d.]+ \|$", done.stdout, re.M)
    assert compiled == ["softmax", "layer_norm", "add_rms_norm", "qmv_4bit", "decode_attention"]
