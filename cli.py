"""The `metalforge` command line."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from .autotune.objectives import OBJECTIVES
from .errors import MetalforgeError, TuningDatabaseError, TuningTargetError
from .runtime.backends import backend_names
from .tuning_db.front import Policy, choose, front_of


def _selftest(args: argparse.Namespace) -> int:
    from .runtime.selftest import selftest

    return 0 if selftest(args.backend or None, seed=args.seed) else 1


def _shape(text: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(d) for d in text.replace(",", "x").split("x"))
    except ValueError:
        dims = ()
    if not dims or any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError(f"malformed shape {text!r}: write positive sizes separated by x, e.g. 4096x128")
    return dims


def _at_least(minimum: float, kind: type = int):
    """An argparse type: a number of `kind` no smaller than `minimum`."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or value < minimum or (kind is float and value != value):
            what = "an integer" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what} >= {minimum:g}")
        return value
    return parse


def _share(text: str) -> float:
    """An argparse type: a share of the time, in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share in (0, 1], e.g. 0.5")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (the usage is one `--help` away)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _dtype(text: str):
    import mlx.core as mx

    dtype = getattr(mx, text, None)
    if not isinstance(dtype, mx.Dtype):
        raise argparse.ArgumentTypeError(f"unknown dtype {text!r}: use an MLX dtype name such as float32, float16, bfloat16")
    return dtype


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _config_text(config_json: str) -> str:
    from .autotune import Config
    from .tuning_db.rows import config_problem

    if config_problem(config_json):
        return "(malformed: see `metalforge db check`)"
    return " ".join(f"{k}={v}" for k, v in Config.from_json(json.loads(config_json)).all_kwargs().items())


def _autotune(args: argparse.Namespace) -> int:
    from .runtime import backends

    if not _plot_ready(args.plot):
        return 2
    if args.backend:
        os.environ["METALFORGE_BACKEND"] = args.backend
    backend = backends.resolve()
    cases = _recorded_cases(args) if args.recorded else _target_cases(args)
    # --db and --contention-share hold for this run only: `main` also runs inside a process (a
    # notebook, a test) whose later launches must read their own database again
    settings = {tuner: (tuner.db, tuner.contention_share) for tuner, _, _ in cases}
    try:
        return _tune_cases(args, backend, cases)
    finally:
        for tuner, (db, share) in settings.items():
            tuner.db, tuner.contention_share = db, share
            tuner.clear_cache()


def _tune_cases(args: argparse.Namespace, backend: Any, cases: list[tuple]) -> int:
    """`_autotune`'s search of each case, the table printed; 1 where a case found no valid config."""
    from .autotune import plot
    from .errors import TuningError
    from .tuning_db import TuningDB
    from .tuning_db.shared import HEARTBEAT_S

    rows, failed = [], 0
    for tuner, shape, dtype in cases:
        if args.db:
            tuner.db = args.db
        if args.contention_share is not None:
            tuner.contention_share = args.contention_share
        grid, call = tuner.tune_case(shape, dtype)
        dtype_name = str(dtype).rsplit(".", 1)[-1]
        try:
            tuner.tune(grid, *call, trials=args.trials, timeout=args.timeout, sampler=args.sampler,
                       seed=args.seed, patience=args.patience, progress=not args.quiet,
                       storage=args.storage, heartbeat_s=args.heartbeat or HEARTBEAT_S, objective=args.objective)
        except TuningError as e:
            failed += 1
            print(f"metalforge: {e}", file=sys.stderr)
            rows.append((tuner.name, "x".join(map(str, shape)), dtype_name, "-", "-", "no valid config"))
            continue
        key = tuner.tuning_key(call)
        store = TuningDB(tuner.db_path)
        winner = store.lookup(key).winner
        mine = [p for p in front_of(winner) if json.dumps(p["config"], sort_keys=True) == winner["config"]]
        joules = f"{mine[0]['energy_j']:.4g}" if mine and mine[0].get("energy_j") is not None else "-"
        rows.append((tuner.name, "x".join(map(str, shape)), dtype_name, f"{winner['time_ms']:.4g}", joules,
                     _config_text(winner["config"])))
        if args.plot:
            import optuna

            study = optuna.load_study(study_name=winner["study"], storage=args.storage or store.optuna_storage())
            print(f"plot: {plot.plot_study(study, Path(args.plot))}")
            for path in _plot_fronts(store, [winner], Path(args.plot)):
                print(f"plot: {path}")
    print(f"tuned on {backend.name} into {cases[0][0].db_path}" + (" and the shared store" if args.storage else ""))
    print(_table(("kernel", "shape", "dtype", "time ms", "J/call", "best config"), rows))
    return 1 if failed else 0


def _target_cases(args: argparse.Namespace) -> list[tuple]:
    """(tuner, shape, dtype) for every kernel of the TARGETs, shape and dtype asked for (standard
    ones where none are given); bad input is refused before any tuning time is spent."""
    import mlx.core as mx

    from .autotune import targets

    tuners = targets.resolve(args.targets)
    if not tuners:
        raise TuningTargetError("no kernels to tune: the kernel library has no registered kernels; "
                                "name a module or module:kernel")
    for tuner in tuners:
        if not (args.shapes or tuner.shapes):
            raise TuningTargetError(f"kernel `{tuner.name}` declares no standard shapes: pass --shapes")
        for shape in args.shapes or ():
            tuner.check_shape(shape)
    return [(tuner, shape, dtype) for tuner in tuners for shape in args.shapes or tuner.shapes
            for dtype in args.dtype or tuner.dtypes or [mx.float32]]


def _recorded_cases(args: argparse.Namespace) -> list[tuple]:
    """(tuner, shape, dtype) for every case METALFORGE_RECORD wrote into the --recorded file."""
    from .autotune import record, targets

    if args.targets or args.shapes or args.dtype:
        raise TuningTargetError("--recorded tunes the recorded cases: do not also name TARGETs, --shapes or --dtype")
    cases = record.read(args.recorded)
    if not cases:
        raise TuningTargetError(f"{args.recorded} records no launches: run the program with "
                                f"{record.RECORD_ENV}={args.recorded}, through autotuned kernels")
    found = []
    for case in cases:
        tuner, = targets.resolve([case.target])
        tuner.check_shape(case.shape)
        try:
            dtype = _dtype(case.dtype)
        except argparse.ArgumentTypeError as e:
            raise TuningTargetError(f"{args.recorded}: {case.target}: {e}") from e
        found.append((tuner, case.shape, dtype))
    return found


def _plot_ready(directory: str | None) -> bool:
    """Whether --plot can draw (matplotlib installed, `directory` writable); says why not."""
    from .autotune import plot

    if directory and not plot.available():
        print("metalforge: error: --plot needs matplotlib, which is not installed (pip install matplotlib)",
              file=sys.stderr)
        return False
    if directory:
        plot.check_directory(Path(directory))
    return True


def _front_title(winner: dict) -> str:
    return (f"{winner['kernel']} {'x'.join(map(str, json.loads(winner['shape_key'])))} "
            f"{','.join(json.loads(winner['dtypes']))} {winner['chip']}")


def _plot_fronts(db, winners: list[dict], directory: Path) -> list[Path]:
    """A front plot (time against joules per call) per winner whose front has energy figures, with
    every trial of its study that measured them."""
    from .autotune import plot

    paths = []
    for w in winners:
        if not any(p.get("energy_j") is not None for p in front_of(w)):
            continue
        trials = [t for t in db.trials(w["kernel"]) if t["study"] == w["study"] and t["status"] == "ok"]
        paths.append(plot.plot_front(_front_title(w), trials, front_of(w), directory))
    return paths


def _front_rows(winner: dict) -> list[tuple]:
    """The front of a winner as table rows, each with the policies that pick it."""
    picks: dict[str, list[str]] = {}
    for policy in (Policy("tuned"), Policy("fastest"), Policy("efficient"), Policy("within", 10), Policy("robust")):
        text, applied = choose(winner, policy)
        if applied:
            picks.setdefault(text, []).append(str(policy))

    def cell(value, digits: str = ".4g") -> str:
        return "-" if value is None else format(value, digits)
    return [(cell(p.get("time_ms")), cell(p.get("energy_j")), cell(p.get("energy_spread"), ".1%"),
             cell(p.get("contended_ms")), cell(p.get("inflicted_slowdown"), ".3g"),
             _config_text(json.dumps(p["config"], sort_keys=True)),
             ", ".join(picks.get(json.dumps(p["config"], sort_keys=True), []))) for p in front_of(winner)]


def _open_db(args: argparse.Namespace, create: bool = False):
    from .tuning_db import TuningDB, default_path

    path = Path(args.db) if args.db else default_path()
    if not create and not path.exists():
        raise TuningDatabaseError(f"no tuning database at {path} (run `metalforge autotune` first, or pass --db)")
    return TuningDB(path, create=create)


def _winner_rows(winners: list[dict], stale: list[dict]) -> list[tuple]:
    from .tuning_db.store import WINNER_PK

    stale_keys = {tuple(r[c] for c in WINNER_PK) for r in stale}
    return [(w["kernel"], w["backend"], w["chip"], ",".join(json.loads(w["dtypes"])),
             "x".join(map(str, json.loads(w["shape_key"]))), f"{w['time_ms']:.4g}", _config_text(w["config"]),
             w["tuned_at"][:19], "stale" if tuple(w[c] for c in WINNER_PK) in stale_keys else "") for w in winners]


_WINNER_HEADERS = ("kernel", "backend", "chip", "dtypes", "shape", "time ms", "config", "tuned at (UTC)", "")


def _db_list(args: argparse.Namespace) -> int:
    db = _open_db(args)
    print(_table(_WINNER_HEADERS, _winner_rows(db.winners(), db.stale_winners())))
    return 0


def _db_show(args: argparse.Namespace) -> int:
    from collections import Counter

    db = _open_db(args)
    trials = db.trials(args.kernel)
    winners = db.winners(args.kernel)
    if not trials and not winners:
        raise TuningTargetError(f"unknown kernel {args.kernel!r}: no tuning data in {db.path}; kernels there: "
                                f"{', '.join(db.kernels()) or 'none'}")
    print(f"winners of {args.kernel}:")
    print(_table(_WINNER_HEADERS, _winner_rows(winners, db.stale_winners())))
    counts = Counter(t["status"] for t in trials)
    print(f"\n{len(trials)} trials: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    failures = [(t["status"], _config_text(t["config"]), t["reason"].splitlines()[0][:100] if t["reason"] else "")
                for t in trials if t["status"] != "ok"]
    if failures:
        print(_table(("status", "config", "reason"), failures))
    for w in winners:
        if front_of(w):
            print(f"\nPareto front of {_front_title(w)} ({w['study'].rsplit('|', 1)[-1]}):")
            print(_table(("time ms", "J/call", "spread", "contended ms", "slowdown", "config", "chosen by"),
                         _front_rows(w)))
    if _plot_ready(args.plot) and args.plot:
        for path in _plot_fronts(db, winners, Path(args.plot)):
            print(f"plot: {path}")
    return 0


def _db_export(args: argparse.Namespace) -> int:
    data = _open_db(args).export(args.file)
    print(f"exported {len(data['winners'])} winners and {len(data['trials'])} trials to {args.file}")
    return 0


def _print_merge(source: str, report) -> None:
    print(f"merged {source}: {report.winners_added} winners added, {report.winners_updated} replaced (theirs "
          f"preferred), {report.winners_kept} kept (ours preferred), {report.trials_added} trials added")
    if report.conflicts:
        print(f"{len(report.conflicts)} conflicts (same key, different config; the faster, else the newest, was kept):")
        print(_table(("kernel", "chip", "dtypes", "shape", "ours", "theirs", "kept"),
                     [(c["kernel"], c["chip"], c["dtypes"], c["shape_key"], _config_text(c["ours"]),
                       _config_text(c["theirs"]), c["kept"]) for c in report.conflicts]))


def _db_merge(args: argparse.Namespace) -> int:
    if args.output:
        return _db_ship(args)
    db = _open_db(args, create=True)
    for file in args.files:
        _print_merge(file, db.merge(file))
    return 0


def _db_ship(args: argparse.Namespace) -> int:
    from .tuning_db import TuningDB

    if args.db:
        raise TuningTargetError("db merge -o writes a new file from the FILEs: --db does not apply")
    report = TuningDB.merge_for_shipping(args.files, args.output)
    print(f"wrote {args.output}: {len(report.merged)} winners merged, {len(report.skipped)} skipped (another "
          f"winner for their slot preferred), {len(report.stale)} stale (older kernel source) left out")
    stale = [(r, "stale") for r in report.stale]
    skipped = [(lost, f"skipped for {_config_text(won['config'])}") for lost, won in report.skipped]
    if stale or skipped:
        print(_table(("kernel", "chip", "dtypes", "shape", "source", "codegen", "time ms", "config", "why"),
                     [(r["kernel"], r["chip"], r["dtypes"], r["shape_key"], r["source_hash"][:12],
                       r["codegen_version"], f"{r['time_ms']:.4g}", _config_text(r["config"]), why)
                      for r, why in stale + skipped]))
    return 0


def _db_pull(args: argparse.Namespace) -> int:
    from .tuning_db import shared

    _print_merge("the shared store", shared.pull(_open_db(args, create=True), args.storage))
    return 0


def _db_push(args: argparse.Namespace) -> int:
    from .tuning_db import shared

    db = _open_db(args)
    stored = shared.push(db, args.storage)
    print(f"pushed {db.path}: {stored} of {len(db.winners())} winners stored (the others: the shared store's "
          "were preferred)")
    return 0


def _db_prune(args: argparse.Namespace) -> int:
    if not args.stale:
        raise TuningTargetError("db prune needs --stale (the only kind of pruning there is)")
    removed = _open_db(args).prune_stale()
    print(f"removed {len(removed)} stale winners")
    if removed:
        print(_table(_WINNER_HEADERS, _winner_rows(removed, removed)))
    return 0


def _damaged_db(args: argparse.Namespace):
    from .tuning_db import TuningDB, default_path

    return TuningDB.open_damaged(Path(args.db) if args.db else default_path())


def _db_check(args: argparse.Namespace) -> int:
    db = _damaged_db(args)
    report = db.check()
    for message in report.integrity:
        print(f"integrity: {message}")
    for table, rowid, problem in report.bad_rows:
        print(f"{table} row {rowid}: {problem}")
    print(f"{db.path}: " + ("ok" if report.ok else f"{len(report.integrity)} integrity errors, "
                            f"{len(report.bad_rows)} malformed rows: run `metalforge db repair`") +
          (f"; {report.stale} stale winners (`metalforge db prune --stale` deletes them)" if report.stale else ""))
    return 0 if report.ok else 1


def _db_repair(args: argparse.Namespace) -> int:
    db = _damaged_db(args)
    removed, rebuilt = db.repair()
    if rebuilt:
        print(f"{db.path}: rebuilt from its readable rows ({removed} rows lost or malformed; the damaged file is "
              "kept next to it as *.damaged-<time>, Optuna's study history is not carried over)")
    else:
        print(f"{db.path}: deleted {removed} malformed rows")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .kernels.demo import run_demo

    return 0 if run_demo(trials=args.trials, db=args.db, progress=not args.quiet) else 1


def _db_path(args: argparse.Namespace) -> int:
    from .tuning_db import default_path

    print(Path(args.db) if args.db else default_path())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="metalforge", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("selftest", help="run reference Metal kernels on every available back end and compare")
    p.add_argument("--backend", action="append", choices=["metal", "emulator"],
                   help="back end to check (repeatable; default: all available)")
    p.add_argument("--seed", type=int, default=None, help="random seed for the inputs")
    p.set_defaults(run=_selftest)

    db = argparse.ArgumentParser(add_help=False)
    db.add_argument("--db", metavar="PATH", help="tuning database file (default: $METALFORGE_DB, else the cache directory)")
    p = sub.add_parser("autotune", parents=[db], help="tune kernels and store the winners in the tuning database",
                       description="Tune the Autotuner kernels of each TARGET (a module or module:kernel, as a dotted "
                       "import path or a .py file; none: the kernel library) for each shape and dtype.")
    p.add_argument("targets", nargs="*", metavar="TARGET")
    p.add_argument("--shapes", nargs="+", type=_shape, help="shapes such as 4096 or 512x1024 (default: the kernel's)")
    p.add_argument("--recorded", metavar="PATH", help="tune exactly the (kernel, shape, dtype) cases a program "
                   "launched with METALFORGE_RECORD=PATH (instead of TARGETs, --shapes, --dtype)")
    p.add_argument("--dtype", nargs="+", type=_dtype, help="dtypes (default: the kernel's, else float32)")
    p.add_argument("--trials", type=_at_least(1), default=50,
                   help="configs to measure per kernel, shape and dtype (default 50; suggested configs that a "
                   "constraint or prune rejects, or that were already measured, do not count)")
    p.add_argument("--timeout", type=_at_least(1e-3, float), default=None, help="seconds per kernel, shape and dtype")
    p.add_argument("--sampler", choices=["auto", "tpe", "grid", "random"], default="auto",
                   help="auto: grid when the space fits in --trials, else TPE")
    p.add_argument("--seed", type=int, default=None, help="sampler seed")
    p.add_argument("--patience", type=_at_least(1), default=None, help="stop when the best has not improved for N trials")
    p.add_argument("--backend", choices=backend_names(), help="back end to tune on (default: the active one)")
    p.add_argument("--plot", nargs="?", const="tuning-plots", metavar="DIR",
                   help="write a PNG per study into DIR (default ./tuning-plots; needs matplotlib)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--objective", nargs="+", choices=OBJECTIVES, default=None,
                   help="what to minimise: time (default), energy (joules per call), edp (energy x delay), contended "
                   "(time beside a memory-streaming load); several: a multi-objective search storing the Pareto front")
    p.add_argument("--contention-share", type=_share, default=None, metavar="F",
                   help="with --objective contended: the load copies memory this share of the time (default 0.5)")
    p.add_argument("--storage", metavar="URL", help="a shared store (an SQLAlchemy URL Optuna accepts, e.g. "
                   "postgresql://user@host/db) in which workers on several machines tune each study together; "
                   "--trials is then the budget of the whole study")
    p.add_argument("--heartbeat", type=_at_least(1), default=None, metavar="S",
                   help="with --storage: seconds between a worker's heartbeats; the trial of a worker silent "
                   "for twice that is retried by another (default 30)")
    p.set_defaults(run=_autotune)

    p = sub.add_parser("demo", parents=[db], help="tune the kernel library, run it with the tuned configs and check it")
    p.add_argument("--trials", type=_at_least(1), default=6, help="configs to measure per kernel (default 6)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(run=_demo)

    p = sub.add_parser("db", help="inspect and exchange tuning databases")
    dbsub = p.add_subparsers(dest="db_command", required=True)
    q = dbsub.add_parser("list", parents=[db], help="winners of every kernel")
    q.set_defaults(run=_db_list)
    q = dbsub.add_parser("show", parents=[db], help="winners, trials and Pareto fronts of one kernel")
    q.add_argument("kernel")
    q.add_argument("--plot", nargs="?", const="tuning-plots", metavar="DIR",
                   help="draw each front (time against joules per call) into DIR (default ./tuning-plots)")
    q.set_defaults(run=_db_show)
    q = dbsub.add_parser("export", parents=[db], help="write winners and trials as JSON")
    q.add_argument("file")
    q.set_defaults(run=_db_export)
    for name in ("import", "merge"):
        q = dbsub.add_parser(name, parents=[db], help="merge JSON exports or other databases into --db; with -o, "
                             "into a new database to ship (one winner per slot, stale ones left out)")
        q.add_argument("files", nargs="+", metavar="FILE")
        q.add_argument("-o", "--output", metavar="PATH", help="write a new database from the FILEs only")
        q.set_defaults(run=_db_merge)
    for name, run, what in (("pull", _db_pull, "merge the shared store's winners into --db"),
                            ("push", _db_push, "store --db's winners in the shared store")):
        q = dbsub.add_parser(name, parents=[db], help=what)
        q.add_argument("--storage", metavar="URL", required=True, help="the shared store (an SQLAlchemy URL)")
        q.set_defaults(run=run)
    q = dbsub.add_parser("prune", parents=[db], help="delete winners tuned for an older kernel source")
    q.add_argument("--stale", action="store_true", help="delete stale winners")
    q.set_defaults(run=_db_prune)
    q = dbsub.add_parser("check", parents=[db], help="integrity, malformed rows and stale winners (exit 1 on damage)")
    q.set_defaults(run=_db_check)
    q = dbsub.add_parser("repair", parents=[db], help="delete malformed rows; rebuild a damaged file from what "
                                                      "can be read")
    q.set_defaults(run=_db_repair)
    q = dbsub.add_parser("path", parents=[db], help="print the database file in use")
    q.set_defaults(run=_db_path)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except TuningTargetError as e:  # bad input: usage-style exit status, as argparse's own errors
        print(f"metalforge: error: {e}", file=sys.stderr)
        return 2
    except MetalforgeError as e:
        print(f"metalforge: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
