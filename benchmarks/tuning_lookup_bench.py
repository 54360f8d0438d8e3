"""Cost of a tuned launch's config lookup once cached (target: <= 5 us per hit), and of a miss that
reads the tuning database. Run: python benchmarks/tuning_lookup_bench.py"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import mlx.core as mx

from metalforge.autotune import Config, autotune
from metalforge.tuning_db import TuningDB


class _Kernel:
    """The launch contract without a kernel behind it: only the lookup is measured."""

    name, source_hash, arg_names, backend = "bench", "0" * 64, ["x", "y", "out", "n"], "emulator"


def main() -> None:
    path = Path(tempfile.mkdtemp()) / "tuning.sqlite"
    tuned = autotune(configs=[Config({"BLOCK": 128}), Config({"BLOCK": 256})], key=["x", "n"], db=path)(_Kernel())
    args = (mx.zeros((4096, 128)), mx.zeros((4096, 128)), mx.zeros((4096, 128)), 4096 * 128)
    key = tuned.tuning_key(args)
    TuningDB(path).record_winner(key, config=Config({"BLOCK": 256}).to_json(), time_ms=1.0, trials=2, study="s")
    start = time.perf_counter()
    assert tuned.config_for((1,), *args)[1] == "exact"
    print(f"miss (opens the database, looks up, caches): {(time.perf_counter() - start) * 1e3:.2f} ms")
    n = 200_000
    start = time.perf_counter()
    for _ in range(n):
        tuned.config_for((1,), *args)
    print(f"hit: {(time.perf_counter() - start) / n * 1e6:.2f} us per lookup (target <= 5 us)")


if __name__ == "__main__":
    main()
