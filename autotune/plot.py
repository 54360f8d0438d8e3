"""`metalforge autotune --plot`: one PNG per study, time per trial with the best so far, and parameter
importance; for a tuning that measured energy, and `metalforge db show --plot`, the Pareto front
(time against joules per call). matplotlib is optional: `available()` says whether plots can be drawn."""
from __future__ import annotations

import importlib.util
import re
import tempfile
import warnings
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import TuningTargetError
from .objectives import OBJECTIVES

UNITS = {"time": "median time (ms)", "energy": "joules per call", "edp": "energy x delay (J s)",
         "contended": "median time beside the load (ms)"}


def available() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def check_directory(directory: Path) -> None:
    """Create `directory` and make sure a plot can be written there, before any tuning time is spent."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.NamedTemporaryFile(dir=directory, prefix=".probe-").close()
    except OSError as e:
        raise TuningTargetError(f"--plot: cannot write plots into {directory}: {e.strerror}; "
                                "choose a writable directory") from e


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".png")
    fig.savefig(path, dpi=100)
    _pyplot().close(fig)
    return path


def objectives_of(study_name: str) -> list[str]:
    """The objectives of a study, from its name's suffix (`objectives.study_suffix`; none: time)."""
    names = study_name.rsplit("|", 1)[-1].split("+")
    return names if all(n in OBJECTIVES for n in names) else ["time"]


def plot_study(study, directory: Path) -> Path:
    """Write `<study name>.png` into `directory` and return its path. A multi-objective study is
    drawn by its first objective (its front: `plot_front`)."""
    import optuna

    plt = _pyplot()
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    fig, (values, importance) = plt.subplots(1, 2, figsize=(11, 4))
    values.scatter([t.number for t in done], [t.values[0] for t in done], s=12, label="trial")
    best, curve = float("inf"), []
    for t in done:
        best = min(best, t.values[0])
        curve.append(best)
    values.step([t.number for t in done], curve, where="post", color="C1", label="best so far")
    values.set(xlabel="trial", ylabel=UNITS[objectives_of(study.study_name)[0]], title=study.study_name)
    values.legend()
    try:
        with warnings.catch_warnings():  # Optuna warns that a given target is minimised: ours is
            warnings.filterwarnings("ignore", "PedAnovaImportanceEvaluator computes")
            scores = optuna.importance.get_param_importances(
                study, target=(lambda t: t.values[0]) if len(study.directions) > 1 else None)
    except (RuntimeError, ValueError):  # too few completed trials, or a single-valued space
        scores = {}
    importance.barh(list(scores), list(scores.values()))
    importance.set(xlabel="importance (fANOVA)", title="parameter importance" if scores else "importance: n/a")
    fig.tight_layout()
    return _save(fig, directory, study.study_name)


def plot_front(title: str, points: Sequence[Mapping], front: Sequence[Mapping], directory: Path) -> Path:
    """Write `<title>-front.png`: every measured config's median time against its joules per call,
    the Pareto front joined and marked; returns its path."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    measured = [p for p in points if p.get("energy_j") is not None]
    ax.scatter([p["time_ms"] for p in measured], [p["energy_j"] for p in measured], s=14, color="0.6",
               label=f"configs ({len(measured)})")
    on = sorted((p for p in front if p.get("energy_j") is not None), key=lambda p: p["time_ms"])
    ax.plot([p["time_ms"] for p in on], [p["energy_j"] for p in on], "o-", color="C3",
            label=f"Pareto front ({len(on)})")
    ax.set(xlabel="median time per call (ms)", ylabel="joules per call (idle subtracted)", title=title)
    ax.legend()
    fig.tight_layout()
    return _save(fig, directory, title + "-front")
