"""benchmarks/tuner_quality.py: a landscape measured on the emulator and written with --landscapes-out
replays from the file (--landscapes-in) to the same report; bad --cases strings and files are refused."""
from __future__ import annotations

import collections
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from metalforge.kernels.softmax import softmax_kernel
from metalforge.tuning_db import identify

_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "tuner_quality.py"
_spec = importlib.util.spec_from_file_location("tuner_quality", _SCRIPT)
tq = sys.modules["tuner_quality"] = importlib.util.module_from_spec(_spec)  # dataclasses look the module up
_spec.loader.exec_module(tq)

CASE = "softmax_kernel:2x100:float32"  # blocks above 128 columns are pruned: 6 configs to measure


@pytest.fixture(scope="module")
def measured(emu, tmp_path_factory) -> tuple[Path, str, str]:
    """A landscape file of CASE measured on the emulator by the script run as a program with two
    measuring processes, and the run's stdout (the report) and stderr (progress)."""
    path = tmp_path_factory.mktemp("landscapes") / "landscapes.json"
    run = subprocess.run([sys.executable, str(_SCRIPT), "--cases", CASE, "--seeds", "3", "--jobs", "2",
                          "--landscapes-out", str(path)],
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "METALFORGE_BACKEND": "emulator"})
    assert run.returncode == 0, run.stderr
    return path, run.stdout, run.stderr


def test_the_landscape_file_holds_every_config_with_its_time_or_reason(measured):
    path, _, progress = measured
    data = json.loads(path.read_text())
    (landscape,) = data["landscapes"]
    assert data["format"] == tq.FORMAT
    assert (landscape["kernel"], landscape["shape"], landscape["dtype"], landscape["backend"]) == \
        ("softmax_kernel", [2, 100], "float32", "emulator")
    assert landscape["device"]["chip"] == identify("emulator").chip
    assert landscape["start"] == {"kwargs": {"BLOCK": 128}, "num_warps": 1, "num_stages": 1}
    entries = landscape["configs"]
    assert len(entries) == softmax_kernel.space.size == 66
    assert collections.Counter(e["status"] for e in entries) == {"ok": 6, "invalid": 60}
    for e in entries:
        if e["status"] == "ok":
            assert e["time_ms"] > 0 and e["config"]["kwargs"]["BLOCK"] <= 128
        else:
            assert e["time_ms"] is None
            assert "violates constraint" in e["reason"] or "pruned by fits_row" in e["reason"]
    assert "[66/66 " in progress and "measuring softmax_kernel:2x100:float32 on emulator" in progress


def test_replaying_the_file_reports_what_the_measuring_run_reported(measured, tmp_path, capsys):
    path, report, _ = measured
    assert tq.main(["--landscapes-in", str(path), "--seeds", "3"]) == 0
    replayed = capsys.readouterr()
    assert replayed.out == report and replayed.err == ""  # nothing measured
    times = [e["time_ms"] for e in json.loads(path.read_text())["landscapes"][0]["configs"] if e["time_ms"]]
    assert f"optimum {min(times):.4g} ms" in report and "6 measured" in report and "budget 2 measured" in report

    # the replay reads the times from the file: a faster config written into it becomes the optimum
    data = json.loads(path.read_text())
    slowest = max((e for e in data["landscapes"][0]["configs"] if e["time_ms"]), key=lambda e: e["time_ms"])
    slowest["time_ms"] = 1e-6
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    assert tq.main(["--landscapes-in", str(edited), "--cases", CASE, "--seeds", "3"]) == 0
    out = capsys.readouterr().out
    assert f"optimum 1e-06 ms at Config({{BLOCK: {slowest['config']['kwargs']['BLOCK']}, " \
           f"num_warps: {slowest['config']['num_warps']}," in out


def test_a_landscape_of_another_space_is_refused(measured, tmp_path, capsys):
    data = json.loads(measured[0].read_text())
    data["landscapes"][0]["configs"].pop()
    path = tmp_path / "other.json"
    path.write_text(json.dumps(data))
    assert tq.main(["--landscapes-in", str(path), "--seeds", "1"]) == 1
    err = capsys.readouterr().err
    assert "65 configs, 0 of them outside the current search space of 66 points (1 unmeasured)" in err


@pytest.mark.parametrize("case,message", [
    ("softmax_kernel", "expected NAME:SHAPE[:DTYPE]"),
    ("softmax_kernel:8x4000:float16:x", "expected NAME:SHAPE[:DTYPE]"),
    ("softmax_kernel::float16", "expected NAME:SHAPE[:DTYPE]"),
    ("softmax:8x4000", "no library kernel 'softmax' (kernels: "),
    ("softmax_kernel:8xfour", "shape '8xfour' is not positive integers joined by x"),
    ("softmax_kernel:8x0", "shape '8x0' is not positive integers"),
    ("softmax_kernel:4096", "softmax_kernel takes a 2-D shape such as 8x4000"),
    ("softmax_kernel:8x4000:float64", "dtype 'float64' is not one of float16, bfloat16, float32"),
])
def test_bad_cases_are_refused_before_measuring(case, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        tq.main(["--cases", case])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "measuring" not in err


def test_a_case_defaults_to_the_kernels_dtype():
    library = tq.registered()
    assert tq.parse_case("softmax_kernel:4096x32000", library) == tq.Case("softmax_kernel", (4096, 32000), "float16")
    assert str(tq.parse_case("matmul_kernel:64X96x80:bfloat16", library)) == "matmul_kernel:64x96x80:bfloat16"


def test_bad_landscape_files_are_refused(measured, tmp_path, capsys):
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    for argv, message in [
        (["--landscapes-in", str(junk)], f"not a {tq.FORMAT} file"),
        (["--landscapes-in", str(tmp_path / "missing.json")], "No such file"),
        (["--landscapes-in", str(measured[0]), "--cases", "softmax_kernel:8x4000"],
         "has no landscape for softmax_kernel:8x4000:float16 (it has softmax_kernel:2x100:float32)"),
        (["--landscapes-in", str(junk), "--landscapes-out", str(junk)], "not allowed with argument"),
        (["--landscapes-in", str(measured[0]), "--fix", "num_warps=1"], "a landscape file records what it fixed"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            tq.main(argv)
        assert exit_.value.code == 2 and message in capsys.readouterr().err, argv


def test_a_neighbouring_shapes_landscape_adds_tpe_started_from_its_best(measured, tmp_path, capsys):
    """With a landscape of another shape of the same kernel, dtype and chip in the file, TPE is also
    replayed from that shape's best config (then the default), as `tune` starts from a neighbour's winner."""
    data = json.loads(measured[0].read_text())
    twin = json.loads(json.dumps(data["landscapes"][0]))
    twin["shape"] = [2, 120]  # the same times: its best is this landscape's optimum
    other_chip = json.loads(json.dumps(twin))
    other_chip["shape"], other_chip["device"]["chip"] = [2, 101], "another chip"  # nearer, but never borrowed from
    data["landscapes"] += [twin, other_chip]
    path = tmp_path / "two.json"
    path.write_text(json.dumps(data))
    assert tq.main(["--landscapes-in", str(path), "--cases", CASE, "--seeds", "3"]) == 0
    out = capsys.readouterr().out
    best = min((e for e in twin["configs"] if e["time_ms"]), key=lambda e: e["time_ms"])["config"]
    assert f"tpe+: TPE started from 2x120's best config, Config({{BLOCK: {best['kwargs']['BLOCK']}, " in out
    assert "(1.00x the optimum here), then the default" in out
    assert "tpe+   within 5% of the optimum: 100%   median configs to get there: 1 " in out


def test_fix_measures_part_of_the_space_and_its_replay_searches_that_part(emu, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")
    path = tmp_path / "part.json"
    assert tq.main(["--cases", CASE, "--fix", "num_warps=2", "--seeds", "2", "--landscapes-out", str(path)]) == 0
    measured = capsys.readouterr().out
    (landscape,) = json.loads(path.read_text())["landscapes"]
    assert landscape["fixed"] == {"num_warps": 2} and len(landscape["configs"]) == 11
    assert {e["config"]["num_warps"] for e in landscape["configs"]} == {2}
    assert landscape["start"] == {"kwargs": {"BLOCK": 128}, "num_warps": 2, "num_stages": 1}  # moved into the part
    assert "11 points, 2 measured" in measured and "num_warps=2 fixed" in measured  # BLOCK 64 and 128
    assert tq.main(["--landscapes-in", str(path), "--seeds", "2"]) == 0
    assert capsys.readouterr().out == measured


def test_a_cut_off_measurement_resumes_from_its_partial_file(emu, tmp_path, capsys, monkeypatch):
    """Entries already in FILE.json.partial for this case, part, back end, chip and kernel source are
    kept, not measured again; others (another case, another source) and a line cut off are ignored;
    the partial file goes once the landscapes are written."""
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")
    path, partial = tmp_path / "landscapes.json", tmp_path / "landscapes.json.partial"
    tag = {"case": CASE, "fixed": {}, "backend": "emulator", "chip": identify("emulator").chip,
           "source_hash": softmax_kernel.fn.source_hash}
    earlier = {"config": {"kwargs": {"BLOCK": 64}, "num_warps": 1, "num_stages": 1}, "status": "ok",
               "time_ms": 123.0, "reason": ""}
    other = {**earlier, "config": {"kwargs": {"BLOCK": 128}, "num_warps": 1, "num_stages": 1}, "time_ms": 456.0}
    partial.write_text(json.dumps({**tag, "entry": earlier}) + "\n"
                       + json.dumps({**tag, "case": "softmax_kernel:2x120:float32", "entry": other}) + "\n"
                       + json.dumps({**tag, "source_hash": "an older source", "entry": other}) + "\n"
                       + json.dumps({**tag, "entry": other})[:40])  # the line a killed run was writing
    assert tq.main(["--cases", CASE, "--seeds", "1", "--landscapes-out", str(path)]) == 0
    progress = capsys.readouterr().err
    assert "resuming: 1 of 66 configs measured before" in progress
    assert "[2/66 " in progress and "[66/66 " in progress and "[1/66 " not in progress
    (landscape,) = json.loads(path.read_text())["landscapes"]
    entries = {json.dumps(e["config"], sort_keys=True): e for e in landscape["configs"]}
    assert len(entries) == 66 and entries[json.dumps(earlier["config"], sort_keys=True)] == earlier
    assert sum(e["status"] == "ok" and e["time_ms"] < 100 for e in entries.values()) == 5  # the others, measured
    assert not partial.exists()


def test_jobs_must_be_positive(capsys):
    with pytest.raises(SystemExit) as exit_:
        tq.main(["--cases", CASE, "--jobs", "0"])
    assert exit_.value.code == 2 and "--jobs must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("fix,message", [
    ("num_warps", "--fix 'num_warps': expected NAME=VALUE"),
    ("BLOK=64", "--fix BLOK: not a parameter of softmax_kernel's space (parameters: BLOCK, num_warps)"),
    ("num_warps=3", "--fix num_warps=3: not one of softmax_kernel's choices for num_warps (1, 2, 4, 8, 16, 32)"),
])
def test_bad_fixes_are_refused_before_measuring(fix, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        tq.main(["--cases", CASE, "--fix", fix])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "measuring" not in err
