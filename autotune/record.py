"""Recording the tuning cases a program launches: with `METALFORGE_RECORD=path`, each autotuned
kernel appends one JSON line per distinct launch key it meets (kernel, its module, the shape its
`tune_args` takes and the dtype), so that `metalforge autotune --recorded path` tunes exactly the
shapes a real workload runs. The note is taken where a launch's config is first looked up
(`Autotuner._miss`, once per key and process), so recording costs nothing on the launches after."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .. import errors

RECORD_ENV = "METALFORGE_RECORD"


@dataclass(frozen=True)
class RecordedCase:
    """One recorded tuning case: `target` (module:kernel, what `metalforge autotune` resolves), the
    `tune_args` shape and the dtype name."""
    target: str
    shape: tuple
    dtype: str


def note(target: str, shape: Optional[tuple], dtype: Optional[Any]) -> None:
    """Append a case to $METALFORGE_RECORD's file, if set. A kernel without `tune_shape` or an array
    argument has no case to record (its shape is None) and is written with `"shape": null`, so
    that `--recorded` can say which kernel it cannot tune and why."""
    path = os.environ.get(RECORD_ENV)
    if not path:
        return
    line = {"target": target, "shape": None if shape is None else [int(d) for d in shape],
            "dtype": None if dtype is None else str(dtype).rsplit(".", 1)[-1]}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def read(path: str | os.PathLike) -> list[RecordedCase]:
    """The distinct cases of a record file, in first-seen order; a malformed line or an entry
    without a shape is an error naming the file and line."""
    file = Path(path)
    if not file.is_file():
        raise errors.TuningTargetError(f"no record file {file}: run the program with {RECORD_ENV}={file} first")
    cases: dict[RecordedCase, None] = {}
    for number, text in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        try:
            entry = json.loads(text)
            target, shape, dtype = entry["target"], entry["shape"], entry["dtype"]
        except (ValueError, KeyError, TypeError) as e:
            raise errors.TuningTargetError(f"{file}:{number}: not a recorded case ({type(e).__name__}: {e}); "
                                           f"record it again with {RECORD_ENV}") from e
        if shape is None or dtype is None:
            raise errors.TuningTargetError(
                f"{file}:{number}: kernel {target} launched without a tuning shape (its autotune has no "
                f"tune_shape=, or it has no array argument); give it tune_shape= or tune it with --shapes")
        cases[RecordedCase(target, tuple(shape), dtype)] = None
    return list(cases)
