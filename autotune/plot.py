"""`metalforge autotune --plot`: one PNG per study, time per trial with the best so far, and parameter
importance. matplotlib is optional: `available()` says whether plots can be drawn."""
from __future__ import annotations

import importlib.util
import re
import tempfile
from pathlib import Path

from ..errors import TuningTargetError


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


def plot_study(study, directory: Path) -> Path:
    """Write `<study name>.png` into `directory` and return its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import optuna

    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    fig, (times, importance) = plt.subplots(1, 2, figsize=(11, 4))
    times.scatter([t.number for t in done], [t.value for t in done], s=12, label="trial")
    best, curve = float("inf"), []
    for t in done:
        best = min(best, t.value)
        curve.append(best)
    times.step([t.number for t in done], curve, where="post", color="C1", label="best so far")
    times.set(xlabel="trial", ylabel="median time (ms)", title=study.study_name)
    times.legend()
    try:
        scores = optuna.importance.get_param_importances(study)
    except (RuntimeError, ValueError):  # too few completed trials, or a single-valued space
        scores = {}
    importance.barh(list(scores), list(scores.values()))
    importance.set(xlabel="importance (fANOVA)", title="parameter importance" if scores else "importance: n/a")
    fig.tight_layout()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (re.sub(r"[^A-Za-z0-9_.-]+", "_", study.study_name) + ".png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
