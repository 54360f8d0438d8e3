"""What a valid row of the tuning database is: imports, merges, `db check`/`repair` and lookups
use these checks so that a malformed row is refused or skipped instead of breaking every launch.

A row is valid when every column of its table is present with its type (the optional ones schema 2
added may be missing or null: rows of older files and exports), its JSON columns parse (the config as
a `Config` of known launch settings, the front as a list of such configs with their figures), its
figures are finite and non-negative, its status is known and its timestamp parses and is not in the
future (a winner from the future would win every merge forever).
"""
from __future__ import annotations

import datetime
import json
import math
from typing import Any, Mapping, Optional

from .front import FIGURES, front_problem

OPTIONAL_COLUMNS = frozenset((*FIGURES, "front"))  # added by schema 2: absent from older rows
FUTURE_TOLERANCE = datetime.timedelta(minutes=10)  # clock skew between machines that merge


def config_problem(text: Any) -> Optional[str]:
    """Why `text` is not a stored config (None if it is one)."""
    from ..autotune.space import LAUNCH_PARAMS  # here: metalforge.autotune imports this package

    if not isinstance(text, str):
        return f"config is {type(text).__name__}, not JSON text"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        return f"config is not JSON ({e.msg})"
    if not isinstance(data, dict) or not isinstance(data.get("kwargs"), dict):
        return "config has no \"kwargs\" object"
    unknown = set(data) - {"kwargs", *LAUNCH_PARAMS}
    if unknown:
        return f"config has unknown settings {sorted(unknown)} (known: kwargs, {', '.join(LAUNCH_PARAMS)})"
    for name, value in data["kwargs"].items():
        if not isinstance(value, (int, float, bool, str)) or (isinstance(value, float) and not math.isfinite(value)):
            return f"config value {name}={value!r} is not a constexpr (int, float, bool or str)"
    warps = data.get("num_warps", 4)
    if not _is_int(warps) or warps < 1 or warps > 32 or warps & (warps - 1):
        return f"config num_warps={warps!r} is not a power of two from 1 to 32"
    if not _is_int(data.get("num_stages", 1)) or data.get("num_stages", 1) < 0:
        return f"config num_stages={data.get('num_stages')!r} is not a non-negative integer"
    if data.get("warps_m") is not None and (not _is_int(data["warps_m"]) or data["warps_m"] < 1):
        return f"config warps_m={data['warps_m']!r} is not a positive integer"
    for setting in ("matmul2d", "wgmma"):
        if not isinstance(data.get(setting, False), bool):
            return f"config {setting}={data[setting]!r} is not true or false"
    return None


def row_problem(row: Mapping[str, Any], columns: Mapping[str, type], time_column: str) -> Optional[str]:
    """Why `row` is not a valid row of a table with `columns` (None if it is)."""
    if not isinstance(row, Mapping):
        return f"is {type(row).__name__}, not an object"
    missing = [c for c in columns if c not in row and c not in OPTIONAL_COLUMNS]
    if missing:
        return f"lacks {', '.join(missing)}"
    for column, kind in columns.items():
        value = row.get(column)
        if value is None and (column in OPTIONAL_COLUMNS or column in ("time_ms", "max_error", "reason")
                              and time_column == "created_at"):
            continue  # a failed trial has no time or error; figures only where they were measured
        if kind is float and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
            return f"{column}={value!r} is not a number"
        if kind is int and not _is_int(value):
            return f"{column}={value!r} is not an integer"
        if kind is str and not isinstance(value, str):
            return f"{column}={value!r} is not text"
    for column in ("dtypes", "shape_key", "bucket"):
        try:
            parsed = json.loads(row[column])
        except json.JSONDecodeError:
            parsed = None
        if not isinstance(parsed, list):
            return f"{column}={row[column]!r} is not a JSON list"
    problem = config_problem(row["config"])
    if problem:
        return problem
    for column in ("time_ms", *FIGURES):
        if column in columns and row.get(column) is not None and not (math.isfinite(row[column]) and row[column] >= 0):
            return f"{column}={row[column]!r} is not a finite non-negative number"
    if "front" in columns:
        problem = front_problem(row.get("front"), config_problem)
        if problem:
            return problem
    return _timestamp_problem(row[time_column], time_column)


def _timestamp_problem(text: str, column: str) -> Optional[str]:
    if not isinstance(text, str):
        return f"{column}={text!r} is not an ISO timestamp"
    try:
        stamp = datetime.datetime.fromisoformat(text)
    except ValueError:
        return f"{column}={text!r} is not an ISO timestamp"
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=datetime.timezone.utc)  # metalforge writes UTC
    if stamp > datetime.datetime.now(datetime.timezone.utc) + FUTURE_TOLERANCE:
        return f"{column}={text!r} is in the future"
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
