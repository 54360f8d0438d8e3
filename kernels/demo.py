"""`metalforge demo`: tune the kernel library for its standard shapes on the active back end, then
run each kernel with its tuned config, check it against MLX's own operations and print a table."""
from __future__ import annotations

import statistics
import time
from typing import Any, Callable

import mlx.core as mx

from ..autotune import tuning_report
from ..autotune.bench import as_outputs, max_error
from ..runtime import backends
from . import registered


def checked(tuner: Any, outputs: Any, expected: Any) -> tuple[float, bool]:
    """The largest absolute error of a launch's outputs against the tuner's reference, and whether
    every element is within the tuner's own tolerance (`max_error`: rtol and atol, so an fp16 output
    in the thousands may differ by its unit in the last place) - the check each config passed while
    tuning."""
    error, reason = max_error(as_outputs(outputs), as_outputs(expected), tuner.rtol, tuner.atol)
    return error, reason is None


def run_demo(trials: int = 6, db=None, echo: Callable[[str], None] = print, progress: bool = True) -> bool:
    """Tune, run and check every library kernel; True when all results are within tolerance."""
    backend = backends.resolve()
    echo(f"metalforge demo on the {backend.name} back end")
    library = registered()
    rows, ok = [], True
    for name, tuner in library.items():
        if db is not None:
            tuner.db = db
        tuner.clear_cache()
        for shape in tuner.shapes:
            for dtype in tuner.dtypes:
                grid, args = tuner.tune_case(shape, dtype)
                try:
                    tuner.tune(grid, *args, trials=trials, progress=progress)
                except Exception as e:  # reported in the table; the demo goes on
                    rows.append((name, shape, str(dtype).rsplit(".", 1)[-1], "-", "-", "-", f"tuning failed: {e}"))
                    ok = False
                    continue
                config, source = tuner.config_for(grid, *args)
                outputs = tuner[grid](*args)
                mx.eval(outputs)
                error, good = checked(tuner, outputs, tuner.reference(*args))
                times = []
                for _ in range(5):
                    t = time.perf_counter()
                    mx.eval(tuner[grid](*args))
                    times.append((time.perf_counter() - t) * 1e3)
                ok &= good
                rows.append((name, shape, str(dtype).rsplit(".", 1)[-1], source, f"{statistics.median(times):.2f}", f"{error:.2e}",
                             f"{'ok' if good else 'WRONG'}  {config}"))
    header = ("kernel", "shape", "dtype", "config", "time ms", "max error", "result")
    table = [header] + [tuple(str(c) if not isinstance(c, tuple) else "x".join(map(str, c)) for c in r)
                        for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        echo("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    report = tuning_report()
    echo(str(report))
    if backend.name == "emulator":
        echo("(times are the CPU emulator's: they say nothing about GPU speed)")
    echo("demo " + ("passed" if ok else "FAILED"))
    return ok
