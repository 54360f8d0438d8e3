"""What a search minimises: `time` (median time per launch, the default), `energy` (joules per launch,
idle power subtracted), `edp` (energy x delay: joules x seconds per launch) and `contended` (time per
launch beside a contention load). Several objectives make a multi-objective search (Optuna's
multi-objective samplers) whose Pareto front the winner stores (tuning_db/front.py); every trial
records every figure measured, whatever the objective.
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence, Union

from ..tuning_db.front import FRONT_KEYS

OBJECTIVES = ("time", "energy", "edp", "contended")
Objective = Union[str, Sequence[str]]


def parse_objectives(objective: Objective) -> tuple[str, ...]:
    """Objective names from one name, a comma-separated list or a sequence; each once, in order.
    Raises ValueError naming the choices."""
    names = objective.split(",") if isinstance(objective, str) else list(objective)
    parsed: list[str] = []
    for name in (n.strip().lower() for n in names):
        if name not in OBJECTIVES:
            raise ValueError(f"unknown tuning objective {name!r}: use {', '.join(OBJECTIVES)} (several for a "
                             "multi-objective search)")
        if name not in parsed:
            parsed.append(name)
    if not parsed:
        raise ValueError(f"no tuning objective given: use {', '.join(OBJECTIVES)}")
    return tuple(parsed)


def needs_energy(objectives: Sequence[str]) -> bool:
    return any(o in ("energy", "edp") for o in objectives)


def needs_contention(objectives: Sequence[str]) -> bool:
    return "contended" in objectives


def front_keys(objectives: Sequence[str]) -> tuple[str, ...]:
    """The figures a search for `objectives` measures that a Pareto front is over (time always)."""
    measured = {"time_ms", *(("energy_j",) if needs_energy(objectives) else ()),
                *(("contended_ms",) if needs_contention(objectives) else ())}
    return tuple(k for k in FRONT_KEYS if k in measured)


def objective_value(name: str, figures: Mapping[str, Optional[float]]) -> float:
    """The value of objective `name` from a trial's figures (joules x seconds for edp)."""
    if name == "time":
        return figures["time_ms"]
    if name == "energy":
        return figures["energy_j"]
    if name == "edp":
        return figures["energy_j"] * figures["time_ms"] / 1e3
    return figures["contended_ms"]


def study_suffix(objectives: Sequence[str]) -> str:
    """What a study's name gets for its objectives: nothing for time alone (the studies made before
    there were objectives), else `|energy+time`: a study's directions are fixed when it is made."""
    return "" if tuple(objectives) == ("time",) else "|" + "+".join(objectives)
