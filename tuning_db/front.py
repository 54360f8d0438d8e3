"""Pareto fronts of tuned configs and the run-time policies that choose from them.

A tuning for more than time (`energy`, `edp`, `contended` or several objectives) stores with its
winner the configs no other measured config beats on every figure at once: the Pareto front over
time, joules per call and time under contention (whichever were measured). Every policy's choice
lies on it (a config dominated by another is never strictly better under any of them), so the
front is all a lookup needs:

- `tuned` (default): the winner, the config the tuning's own objective chose;
- `fastest`: the least time per call;
- `efficient`: the fewest joules per call;
- `within:X`: the fastest config whose joules per call are within X% of the fewest;
- `robust`: the least time per call beside the contention load.

A winner without a front (tuned for time only) or without the figure a policy needs is used as it is.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

FIGURES = ("energy_j", "energy_spread", "power_w", "idle_w", "contended_ms", "inflicted_slowdown")
FRONT_KEYS = ("time_ms", "energy_j", "contended_ms")  # the figures a front is over (all minimised)
POLICIES = ("tuned", "fastest", "efficient", "within:X", "robust")


@dataclass(frozen=True)
class Policy:
    """A run-time choice among a key's tuned configs (see the module docstring); `percent` is X of
    `within:X`."""

    name: str
    percent: float = 0.0

    def __str__(self) -> str:
        return f"within:{self.percent:g}" if self.name == "within" else self.name


def parse_policy(text: str) -> Policy:
    """A policy from its name (`within:10` for within 10%). Raises ValueError naming the choices."""
    name, _, arg = text.strip().lower().partition(":")
    if name in ("tuned", "fastest", "efficient", "robust") and not arg:
        return Policy(name)
    if name == "within":
        try:
            percent = float(arg.rstrip("%"))
        except ValueError:
            percent = -1.0
        if 0 <= percent < math.inf:
            return Policy("within", percent)
    raise ValueError(f"unknown tuning policy {text!r}: use one of {', '.join(POLICIES)} "
                     "(X a percentage, e.g. within:10)")


def dominates(a: Mapping[str, Any], b: Mapping[str, Any], keys: Sequence[str]) -> bool:
    """Whether `a` is no worse than `b` on every key and better on one (all minimised)."""
    return all(a[k] <= b[k] for k in keys) and any(a[k] < b[k] for k in keys)


def pareto_front(points: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> list[dict]:
    """The points (those with every key measured) that no other point dominates, fastest first; of
    points with equal figures, one is kept."""
    measured = [dict(p) for p in points if all(p.get(k) is not None for k in keys)]
    front: list[dict] = []
    for p in sorted(measured, key=lambda p: ([p[k] for k in keys], json.dumps(p.get("config"), sort_keys=True))):
        if not any(dominates(q, p, keys) or all(q[k] == p[k] for k in keys) for q in front):
            front.append(p)
    return front


def front_of(winner: Mapping[str, Any]) -> list[dict]:
    """A winner row's stored front (empty when it has none: tuned for time only, or an older file)."""
    text = winner.get("front")
    return json.loads(text) if text else []


def choose(winner: Mapping[str, Any], policy: Policy) -> tuple[str, bool]:
    """The config (JSON text, as the winner row stores it) that `policy` picks for this winner's key,
    and whether the front had what the policy needs (False: the winner's own config is used)."""
    if policy.name == "tuned":
        return winner["config"], True
    need = {"fastest": "time_ms", "efficient": "energy_j", "within": "energy_j", "robust": "contended_ms"}[policy.name]
    candidates = [p for p in front_of(winner) if p.get(need) is not None and p.get("time_ms") is not None]
    if not candidates:
        return winner["config"], False
    if policy.name == "within":
        least = min(p["energy_j"] for p in candidates)
        candidates = [p for p in candidates if p["energy_j"] <= least * (1 + policy.percent / 100)]
        need = "time_ms"
    best = min(candidates, key=lambda p: (p[need], p["time_ms"], json.dumps(p["config"], sort_keys=True)))
    return json.dumps(best["config"], sort_keys=True), True


def front_problem(text: Any, config_problem: Any) -> Optional[str]:
    """Why `text` is not a stored front (None if it is: null, or a JSON list of points, each a valid
    config with finite non-negative figures). `config_problem` checks a config's JSON text."""
    if text is None:
        return None
    try:
        points = json.loads(text) if isinstance(text, str) else None
    except json.JSONDecodeError:
        points = None
    if not isinstance(points, list):
        return f"front={str(text)[:60]!r} is not a JSON list"
    for i, point in enumerate(points):
        if not isinstance(point, dict) or "config" not in point:
            return f"front point {i} is not an object with a config"
        problem = config_problem(json.dumps(point["config"]))
        if problem:
            return f"front point {i}: {problem}"
        for key, value in point.items():
            if key != "config" and value is not None and not (
                    isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                    and value >= 0):
                return f"front point {i}: {key}={value!r} is not a finite non-negative number"
    return None
