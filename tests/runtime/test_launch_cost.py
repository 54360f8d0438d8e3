"""benchmarks/launch_cost.py without a GPU: NVRTC compiles for sm_90 and MLX's launch is recorded
instead of run (as in test_cuda_by_value.py), so the script's rows come out with the cubins' sizes;
the figures themselves are the H200's (docs/benchmarks.md)."""
from __future__ import annotations

import sys
from pathlib import Path

import mlx.core as mx
import pytest

from metalforge.runtime import nvrtc

from .test_cuda_by_value import H200

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import launch_cost  # noqa: E402

pytestmark = pytest.mark.skipif(nvrtc.available() is not None, reason="NVRTC is missing (`bash .ci/install`)")


def test_rows_carry_each_launchs_cubin(monkeypatch):
    sizes = []

    arguments = []

    def precompiled_cuda_kernel(**call):
        sizes.append(len(call["compiled_source"]))
        arguments.append((len(call["inputs"]), len(call["scalars"])))
        return [mx.zeros(s, dtype=d) for s, d in zip(call["output_shapes"], call["output_dtypes"])]

    monkeypatch.setattr(nvrtc, "device_architecture", lambda device=0: "sm_90")
    monkeypatch.setattr(mx.fast, "precompiled_cuda_kernel", precompiled_cuda_kernel)
    monkeypatch.setattr("metalforge.runtime.backends.resolve", lambda *a, **k: H200())
    monkeypatch.setattr(launch_cost, "BATCH", 3)
    monkeypatch.setattr(launch_cost, "CHAIN", 2)
    monkeypatch.setattr(launch_cost, "ROUNDS", 1)
    padded = launch_cost.cubin_rows()
    assert [r["code_bytes"] - padded[0]["code_bytes"] for r in padded[:-1]] == [p << 10 for p in launch_cost.PADS_KB]
    assert padded[-1]["code_bytes"] is None and all(r["build_us"] > 0 and r["eval_us"] > 0 for r in padded)
    library = launch_cost.library_rows()
    assert [r["what"].split()[0] for r in library] == ["qmv", "qmv", "qmv_qkv", "rms_norm", "rope", "decode"]
    # compressed fatbins, each launch's under the ~12 KB above which the H200's host pays per KB
    assert all(1024 < r["code_bytes"] < r["launches"] * 12 << 10 for r in library), library
    assert [r["launches"] for r in library] == [1, 1, 1, 1, 1, 1]  # decode attention over 512 keys: one
    arguments.clear()
    arity = launch_cost.arity_rows()  # each call passes as many arrays and scalars as its row says
    assert [r["what"] for r in arity] == [f"one-line kernel, {a} arrays + {s} scalars" for a, s in launch_cost.ARITIES]
    assert set(arguments) == set(launch_cost.ARITIES)
    assert all(r["code_bytes"] > 1024 and r["build_us"] > 0 for r in arity)


def test_refuses_to_run_without_cuda(tmp_path, capsys):
    assert launch_cost.main(["--out", str(tmp_path)]) == 2
    assert "no CUDA device here" in capsys.readouterr().err
