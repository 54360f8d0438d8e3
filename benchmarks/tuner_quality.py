"""How quickly the autotuner's TPE search finds the best config, against the exhaustive optimum.

Every config of a kernel's space is measured once (exhaustive search), exactly as `tune` measures a
trial (`Autotuner.evaluate`: prune, compile, check, median time over rotating input copies); then TPE
and random search are replayed on that table for many seeds through the tuner's own search loop
(`Autotuner.search`, the study started from the kernel's default config, as `tune` starts one), so
the comparison is about the samplers, not timing noise. The budget is 25% of the configs exhaustive
search has to measure (the points that no constraint or prune rejects), counted as `tune` counts its
trials: a suggestion that a constraint or prune rejects, or that repeats a point, measures nothing
and does not count.
Reports, per case and sampler: the share of seeds whose best config is within 5% of the optimum
after the budget, the median number of configs measured until then, and the mean best-so-far curve.

    python benchmarks/tuner_quality.py [--seeds 20] [--cases softmax_kernel:4096x32000:float16 ...]
                                       [--fix NAME=VALUE ...] [--jobs N]
                                       [--landscapes-out FILE.json | --landscapes-in FILE.json]

--landscapes-out writes every measured table (kernel, shape, dtype, back end, device, config -> time
or why it is invalid) so that a table measured on one machine (a GPU) can be replayed on another
with --landscapes-in, which measures nothing. Timings come from the active back end (the emulator's
are CPU times, which shape the landscape differently from a GPU's). --fix NAME=VALUE measures the
part of each space where those parameters take those values (its own space: budget and optimum are
that part's), with the search's start moved into it; a landscape records what was fixed, and its
replay searches that part. --jobs N measures with N processes: compiling is the slow part of a GPU
landscape (MLX compiles each custom kernel with NVRTC, ~2 s, in every process, with no disk cache),
so they compile in parallel and take turns to time, one config at a time. While measuring, each
entry is also appended to FILE.json.partial, and a run cut off resumes from it when started again
with the same arguments. Progress goes to stderr.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import copy
import dataclasses
import datetime
import importlib.util
import json
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

if importlib.util.find_spec("metalforge") is None:  # run from an unpacked copy: <dir>/metalforge/benchmarks/
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import mlx.core as mx  # noqa: E402
import optuna  # noqa: E402

from metalforge.autotune import Autotuner, Config, Space, TrialResult  # noqa: E402
from metalforge.autotune.bench import as_outputs, rotating_copies  # noqa: E402
from metalforge.kernels import registered  # noqa: E402
from metalforge.launcher import lacking  # noqa: E402
from metalforge.runtime import backends  # noqa: E402
from metalforge.tuning_db import identify, shape_distance  # noqa: E402

DEFAULT_CASES = ("softmax_kernel:8x4000:float16", "softmax_kernel:8x32000:float16", "qmv_kernel:256x1024:float16",
                 "matmul_kernel:64x96x80:float16")
DTYPES = {"float16": mx.float16, "bfloat16": mx.bfloat16, "float32": mx.float32}
FORMAT = "metalforge-landscapes-1"
WITHIN = 1.05      # "within 5% of the optimum"
BUDGET_SHARE = 0.25


@dataclasses.dataclass(frozen=True)
class Case:
    kernel: str
    shape: tuple[int, ...]
    dtype: str

    def __str__(self) -> str:
        return f"{self.kernel}:{'x'.join(map(str, self.shape))}:{self.dtype}"


def parse_case(text: str, library: dict[str, Autotuner]) -> Case:
    """A case from NAME:SHAPE[:DTYPE] (e.g. softmax_kernel:4096x32000:float16; the dtype defaults to the
    kernel's first standard dtype). Raises ValueError saying what is wrong."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not all(parts):
        raise ValueError(f"case {text!r}: expected NAME:SHAPE[:DTYPE], e.g. softmax_kernel:4096x32000:float16")
    name, shape_text = parts[0], parts[1]
    tuner = library.get(name)
    if tuner is None:
        raise ValueError(f"case {text!r}: no library kernel {name!r} (kernels: {', '.join(sorted(library))})")
    try:
        shape = tuple(int(s) for s in shape_text.lower().split("x"))
    except ValueError:
        shape = ()
    if not shape or min(shape) < 1:
        raise ValueError(f"case {text!r}: shape {shape_text!r} is not positive integers joined by x, e.g. 4096x32000")
    if tuner.shapes and len(shape) != len(tuner.shapes[0]):
        example = "x".join(map(str, tuner.shapes[0]))
        raise ValueError(f"case {text!r}: {name} takes a {len(tuner.shapes[0])}-D shape such as {example}")
    dtype = parts[2] if len(parts) == 3 else str(tuner.dtypes[0] if tuner.dtypes else mx.float32).rsplit(".", 1)[-1]
    if dtype not in DTYPES:
        raise ValueError(f"case {text!r}: dtype {dtype!r} is not one of {', '.join(DTYPES)}")
    return Case(name, shape, dtype)


def parse_fixed(texts: Sequence[str]) -> dict[str, Any]:
    """NAME=VALUE strings as a dict of parameter -> value text (checked against a space by `restrict`).
    Raises ValueError saying what is wrong."""
    fixed = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name or not value:
            raise ValueError(f"--fix {text!r}: expected NAME=VALUE, e.g. num_stages=2")
        fixed[name] = value
    return fixed


def restrict(tuner: Autotuner, fixed: dict[str, Any]) -> Autotuner:
    """The tuner searching only the part of its space where the `fixed` parameters take the given
    values (texts or values); the tuner itself when nothing is fixed. Raises ValueError for a name
    that is not a parameter of the space or a value that is not one of its choices."""
    if not fixed:
        return tuner
    params = tuner.space.params
    unknown = sorted(set(fixed) - set(params))
    if unknown or type(tuner.space) is not Space:
        raise ValueError(f"--fix {', '.join(unknown or fixed)}: not a parameter of {tuner.name}'s space "
                         f"(parameters: {', '.join(params)})")
    narrowed = dict(params)
    for name, value in fixed.items():
        chosen = [v for v in params[name] if str(v) == str(value)]
        if not chosen:
            raise ValueError(f"--fix {name}={value}: not one of {tuner.name}'s choices for {name} "
                             f"({', '.join(map(str, params[name]))})")
        narrowed[name] = chosen
    part = copy.copy(tuner)
    part.space = Space(narrowed, tuner.space.constraints)
    return part


def runnable(tuner: Autotuner, lacks: Callable[[str], object]) -> Autotuner:
    """The tuner over the part of its space that a back end lacking the features `lacks` names runs
    (`Space.on`), as `tune` searches it there."""
    space = tuner.space.on(lacks)
    if space is tuner.space:
        return tuner
    part = copy.copy(tuner)
    part.space = space
    return part


def start_in(tuner: Autotuner, start: Config) -> Config:
    """`start` with the parameters that `tuner`'s space fixes to one value set to it."""
    point = start.all_kwargs()
    point.update({name: values[0] for name, values in tuner.space.params.items() if len(values) == 1})
    return Config.from_point(point)


_MEASURING: dict[str, Any] = {}  # what this process measures points with (`_prepare`)


def _setup(case: Case, fixed: dict[str, Any]) -> tuple[Autotuner, Any, tuple]:
    """The tuner of `case`'s space (the part where `fixed` holds), its grid and launch arguments."""
    tuner = runnable(restrict(registered()[case.kernel], fixed), lacking())
    return (tuner, *tuner.tune_case(case.shape, DTYPES[case.dtype]))


def _prepare(case: Case, fixed: dict[str, Any], timing_lock: Any) -> None:
    """Set this process up to measure points of `case`'s space: its own inputs, rotating copies and
    reference outputs. A worker's initializer under --jobs."""
    tuner, grid, args = _setup(case, fixed)
    _MEASURING.update(tuner=tuner, grid=grid, args=args, copies=rotating_copies(args),
                      expected=as_outputs(tuner.reference(*args)), timing_lock=timing_lock)


def _measure_point(numbered: tuple[int, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """The landscape entry of one (numbered) point, measured as `tune` measures a trial."""
    i, point = numbered
    m = _MEASURING
    config, violated = Config.from_point(point), m["tuner"].space.violated(point)
    r = None if violated is not None else \
        m["tuner"].evaluate(m["grid"], config, m["copies"], m["expected"], timing_lock=m["timing_lock"])
    return i, {"config": config.to_json(), "status": r.status if r else "invalid",
               "time_ms": r.time_ms if r else None, "reason": r.reason if r else violated}


def _entry_key(config_json: dict[str, Any]) -> str:
    return json.dumps(config_json, sort_keys=True)


def _resumed(partial: Optional[Path], tag: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The entries in `partial` measured under `tag` (case, part, back end, chip, kernel source), by
    config; a line cut off by a killed run is skipped."""
    done: dict[str, dict[str, Any]] = {}
    if partial is None or not partial.exists():
        return done
    for line in partial.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if all(record.get(k) == v for k, v in tag.items()):
            done[_entry_key(record["entry"]["config"])] = record["entry"]
    return done


def measure(case: Case, fixed: dict[str, Any], jobs: int = 1, partial: Optional[Path] = None) -> dict[str, Any]:
    """The landscape of one case: every point of the space (the part where `fixed` holds) measured
    as `tune` measures a trial. With `jobs` > 1, that many worker processes measure points at once:
    they compile in parallel (the slow part on the GPU: NVRTC in every process) and take turns to
    time, so no two configs are timed at once (a config's first launch, which compiles it, and its
    check against the reference run outside the turn: they may share the device with another's
    timing). Each entry is appended to `partial` (JSON lines) as it is measured, and the entries
    already there for this case, part, back end, chip and kernel source are not measured again: a
    run cut off resumes where it stopped."""
    if jobs > 1:
        tuner, _, args = _setup(case, fixed)
    else:
        _prepare(case, fixed, None)
        tuner, args = _MEASURING["tuner"], _MEASURING["args"]
    device = identify()
    points = list(tuner.space.points())
    tag = {"case": str(case), "fixed": {k: str(v) for k, v in sorted(fixed.items())}, "backend": device.backend,
           "chip": device.chip, "source_hash": tuner.fn.source_hash}
    done = _resumed(partial, tag)
    entries: list[Optional[dict[str, Any]]] = [done.get(_entry_key(Config.from_point(p).to_json())) for p in points]
    todo = [(i, p) for i, p in enumerate(points) if entries[i] is None]
    if len(todo) < len(points):
        print(f"  resuming: {len(points) - len(todo)} of {len(points)} configs measured before, from {partial}",
              file=sys.stderr, flush=True)
    started, count = time.perf_counter(), len(points) - len(todo)
    with contextlib.ExitStack() as stack:
        if jobs > 1:
            ctx = multiprocessing.get_context("spawn")  # a fresh process per worker: its own device context
            # a worker that fails to start or dies breaks the pool (BrokenProcessPool), never hangs it
            pool = stack.enter_context(concurrent.futures.ProcessPoolExecutor(
                min(jobs, len(todo) or 1), mp_context=ctx, initializer=_prepare, initargs=(case, fixed, ctx.Lock())))
            futures = [pool.submit(_measure_point, numbered) for numbered in todo]
            results = (f.result() for f in concurrent.futures.as_completed(futures))
        else:
            results = map(_measure_point, todo)
        log = stack.enter_context(partial.open("a")) if partial is not None else None
        for i, entry in results:
            entries[i], count = entry, count + 1
            if log is not None:
                log.write(json.dumps({**tag, "entry": entry}) + "\n")
                log.flush()
            shown = f"{entry['time_ms']:.4g} ms" if entry["status"] == "ok" else \
                f"{entry['status']}: {entry['reason'][:70]}"
            print(f"  [{count}/{len(points)} {time.perf_counter() - started:.0f} s] {case} "
                  f"{Config.from_json(entry['config'])}: {shown}", file=sys.stderr, flush=True)
    return {"kernel": case.kernel, "shape": list(case.shape), "dtype": case.dtype, "backend": device.backend,
            "device": dataclasses.asdict(device), "source_hash": tuner.fn.source_hash,
            "measured": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "fixed": {name: values[0] for name, values in tuner.space.params.items() if name in fixed},
            "start": start_in(tuner, tuner.default_config(args)).to_json(), "configs": entries}


def dumps(landscapes: list[dict[str, Any]]) -> str:
    """The landscapes file: JSON with one config per line, so that it reads and diffs by config."""
    parts = []
    for landscape in landscapes:
        head = json.dumps({k: v for k, v in landscape.items() if k != "configs"})
        configs = ",\n".join(json.dumps(e) for e in landscape["configs"])
        parts.append(f'{head[:-1]}, "configs": [\n{configs}\n]}}')
    return f'{{"format": "{FORMAT}", "landscapes": [\n' + ",\n".join(parts) + "\n]}\n"


def table_of(tuner: Autotuner, landscape: dict[str, Any]) -> dict[Config, TrialResult]:
    """The measured result of every point of the tuner's space. Raises ValueError when the landscape
    was measured for another space."""
    table = {Config.from_json(e["config"]): TrialResult(e["status"], e["reason"], e["time_ms"])
             for e in landscape["configs"]}
    space = {Config.from_point(p) for p in tuner.space.points()}
    if set(table) != space:
        raise ValueError(f"the {landscape['kernel']} landscape has {len(table)} configs, {len(set(table) - space)} "
                         f"of them outside the current search space of {len(space)} points "
                         f"({len(space - set(table))} unmeasured): it was measured for another space")
    if not any(r.status == "ok" for r in table.values()):
        raise ValueError(f"the {landscape['kernel']} landscape has no valid config")
    return table


def replay(tuner: Autotuner, table: dict[Config, TrialResult], starts: Sequence[Config], sampler: Any,
           budget: int) -> list[float]:
    """Best-so-far time after each measured config of one search of `budget` configs that starts from
    `starts`, run by the tuner's search loop on the measured table instead of the device (a search
    that ends early keeps its best for the rest of the budget)."""
    curve: list[float] = []

    def track(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        if trial.user_attrs.get("measured"):
            value = trial.value if trial.value is not None else math.inf
            curve.append(min(curve[-1], value) if curve else value)

    tuner.search(tuner.create_study(sampler, starts), table.__getitem__, budget, callbacks=[track])
    return curve + [curve[-1] if curve else math.inf] * (budget - len(curve))


def nearest_winner(landscape: dict[str, Any], others: Sequence[dict[str, Any]]) -> Optional[tuple[str, Config]]:
    """The shape and best config of the landscape among `others` that `tune` would start from for this
    one: same kernel, space part, dtype, back end and chip, the nearest other shape. None if none."""
    same = [o for o in others if o["shape"] != landscape["shape"] and o.get("fixed", {}) == landscape.get("fixed", {})
            and all(o[k] == landscape[k] for k in ("kernel", "dtype", "backend"))
            and o["device"]["chip"] == landscape["device"]["chip"]]
    if not same:
        return None
    near = min(same, key=lambda o: shape_distance(o["shape"], landscape["shape"]))
    best = min((e for e in near["configs"] if e["status"] == "ok"), key=lambda e: e["time_ms"])
    return "x".join(map(str, near["shape"])), Config.from_json(best["config"])


def report(tuner: Autotuner, landscape: dict[str, Any], seeds: int, others: Sequence[dict[str, Any]] = ()) -> None:
    """Print the optimum and each sampler's result over `seeds` replayed searches; with a landscape of
    a neighbouring shape among `others`, also TPE started from that shape's best config, as `tune`
    starts from a neighbour's winner."""
    # a feature setting none of the landscape's configs has (its back end lacked it, or the space had
    # no such choice then) is replayed without it, as `tune` searched there
    tuner = runnable(restrict(tuner, landscape.get("fixed", {})),
                     lambda setting: not any(e["config"].get(setting) for e in landscape["configs"]))
    table = table_of(tuner, landscape)
    times = {c: r.time_ms for c, r in table.items() if r.status == "ok"}
    start = Config.from_json(landscape["start"])
    measured = sum(r.status != "invalid" for r in table.values())
    best = min(times, key=times.__getitem__)
    optimum = times[best]
    budget = max(1, math.ceil(BUDGET_SHARE * measured))
    near = sum(t <= WITHIN * optimum for t in times.values())
    print(f"\n{landscape['kernel']} {'x'.join(map(str, landscape['shape']))} {landscape['dtype']} on "
          f"{landscape['backend']} ({landscape['device']['chip']}): {len(table)} points, {measured} measured "
          f"(the rest rejected by constraints or prunes), {near} within 5% of the optimum"
          + "".join(f"; {name}={value} fixed" for name, value in landscape.get("fixed", {}).items()))
    at_start = f"{times[start] / optimum:.2f}x the optimum" if start in times else \
        table[start].status if start in table else "outside the space"
    print(f"  optimum {optimum:.4g} ms at {best}; the search starts from {start} ({at_start})")
    print(f"  budget {budget} measured configs ({BUDGET_SHARE:.0%} of {measured})")
    tpe = lambda s: tuner.make_sampler("tpe", s, budget)  # noqa: E731
    searches = [("tpe", tpe, [start]), ("random", lambda s: optuna.samplers.RandomSampler(seed=s), [start])]
    neighbour = nearest_winner(landscape, others)
    if neighbour is not None:
        shape, winner = neighbour
        here = f"{times[winner] / optimum:.2f}x the optimum" if winner in times else table[winner].status
        print(f"  tpe+: TPE started from {shape}'s best config, {winner} ({here} here), then the default")
        searches.append(("tpe+", tpe, [winner, start]))
    for label, factory, starts in searches:
        curves = [replay(tuner, table, starts, factory(seed), budget) for seed in range(seeds)]
        within = sum(c[-1] <= WITHIN * optimum for c in curves) / len(curves)
        reached = statistics.median_low(next((i for i, t in enumerate(c, 1) if t <= WITHIN * optimum), math.inf)
                                        for c in curves)
        mean_curve = [statistics.mean(c[i] for c in curves) / optimum for i in range(budget)]
        print(f"  {label:6s} within 5% of the optimum: {within:4.0%}   median configs to get there: "
              f"{reached if reached <= budget else '> budget'}   mean best/optimum by config: "
              + " ".join(f"{x:.2f}" for x in mean_curve))


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=30, help="replayed searches per sampler (default 30)")
    ap.add_argument("--fix", nargs="+", default=[], metavar="NAME=VALUE",
                    help="measure only the part of each case's space where these parameters take these values")
    ap.add_argument("--cases", nargs="+", metavar="NAME:SHAPE[:DTYPE]",
                    help=f"kernels and shapes to measure (default: {' '.join(DEFAULT_CASES)}); with "
                         f"--landscapes-in, which of the file's landscapes to replay")
    ap.add_argument("--jobs", type=int, default=1,
                    help="processes measuring configs at once: they compile in parallel and take turns to time "
                         "(default 1)")
    io = ap.add_mutually_exclusive_group()
    io.add_argument("--landscapes-out", metavar="FILE.json", help="also write the measured landscapes to this file")
    io.add_argument("--landscapes-in", metavar="FILE.json",
                    help="replay the landscapes in this file, measuring nothing")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error("--seeds must be at least 1")
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    library = registered()
    try:
        cases = [parse_case(text, library) for text in (args.cases or ([] if args.landscapes_in else DEFAULT_CASES))]
        fixed = parse_fixed(args.fix)
        if fixed and args.landscapes_in:
            raise ValueError("--fix measures part of a space; a landscape file records what it fixed")
        for case in cases:
            restrict(library[case.kernel], fixed)
    except ValueError as e:
        ap.error(str(e))
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    if args.landscapes_in:
        try:
            data = json.loads(Path(args.landscapes_in).read_text())
        except (OSError, ValueError) as e:
            ap.error(f"--landscapes-in {args.landscapes_in}: {e}")
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            ap.error(f"--landscapes-in {args.landscapes_in}: not a {FORMAT} file")
        landscapes = everything = data["landscapes"]
        if cases:
            found = {str(Case(ls["kernel"], tuple(ls["shape"]), ls["dtype"])): ls for ls in landscapes}
            missing = [str(c) for c in cases if str(c) not in found]
            if missing:
                ap.error(f"--landscapes-in {args.landscapes_in} has no landscape for {', '.join(missing)} "
                         f"(it has {', '.join(found) or 'none'})")
            landscapes = [found[str(c)] for c in cases]
        unknown = sorted({ls["kernel"] for ls in landscapes} - set(library))
        if unknown:
            ap.error(f"--landscapes-in {args.landscapes_in}: no library kernel {', '.join(unknown)}")
    else:
        landscapes = everything = []
        partial = Path(args.landscapes_out + ".partial") if args.landscapes_out else None
        for case in cases:
            print(f"measuring {case} on {backends.resolve().name}", file=sys.stderr, flush=True)
            landscapes.append(measure(case, fixed, args.jobs, partial))
            if args.landscapes_out:  # written after every case, so a later failure keeps what was measured
                Path(args.landscapes_out).write_text(dumps(landscapes))
        if partial is not None:
            partial.unlink(missing_ok=True)
    try:
        for landscape in landscapes:
            report(library[landscape["kernel"]], landscape, args.seeds, everything)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
