"""The tuning database: every trial and one winner per key, in one SQLite file shared with Optuna.

Tables (prefixed `mf_` because Optuna's own tables, `studies`, `trials`, ..., live in the same file):

- `mf_meta(key, value)`: `schema_version`; a file from a newer metalforge is refused, not misread.
- `mf_trials`: one row per trial, primary key a random `uid` so rows from several machines merge
  without collisions; every figure measured (time, and where the objective asked for them joules per
  call with their spread, power, idle power, time beside a contention load and the slowdown inflicted
  on it: `front.FIGURES`).
- `mf_winners`: one row per key (see `WINNER_PK`), the newest tuning of that key wins; `front` holds
  the Pareto front of a tuning for more than time (`front.py`), from which run-time policies choose.

Schema 2 added the figures and `front` (nullable): opening a schema-1 file to write adds them in place
(`_migrate`); rows from older files and exports, which lack them, read as null.

A key is the kernel (name, source hash, codegen version), the machine (`DeviceIdentity`), the
dtypes of the array arguments and the shape key; `bucket` (the next power of two per dimension) is
stored alongside for the nearest-shape fallback of `lookup`.
"""
from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import math
import os
import re
import sqlite3
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

import sqlite_utils

from ..errors import TuningDatabaseError
from ..runtime.emulator import compiler
from .device import DeviceIdentity
from .front import FIGURES
from .rows import OPTIONAL_COLUMNS, config_problem, row_problem

SCHEMA_VERSION = 2
BUSY_TIMEOUT_S = 60.0  # concurrent tuners wait this long for the write lock instead of failing

KEY_COLUMNS = {
    "kernel": str, "source_hash": str, "codegen_version": str, "backend": str, "chip": str, "gpu_family": str,
    "os": str, "mlx_version": str, "dtypes": str, "shape_key": str, "bucket": str,
}
TRIAL_COLUMNS = {"uid": str, **KEY_COLUMNS, "study": str, "trial_number": int, "config": str, "status": str,
                 "reason": str, "time_ms": float, "max_error": float, "created_at": str,
                 **{figure: float for figure in FIGURES}}
WINNER_COLUMNS = {**KEY_COLUMNS, "config": str, "time_ms": float, "trials": int, "study": str, "tuned_at": str,
                  "front": str}
WINNER_PK = ("kernel", "source_hash", "codegen_version", "backend", "chip", "os", "mlx_version", "dtypes",
             "shape_key")
STATUSES = ("ok", "invalid", "wrong", "compile_error", "timeout", "runtime_error")


def default_path() -> Path:
    """$METALFORGE_DB, else `tuning.sqlite` in metalforge's cache directory (next to compiled kernels)."""
    if os.environ.get("METALFORGE_DB"):
        return Path(os.environ["METALFORGE_DB"])
    return compiler.cache_dir().parent / "tuning.sqlite"


def bucket(shape: Sequence[int]) -> list[int]:
    """The next power of two of each dimension: shapes in one bucket share a tuned config."""
    return [1 << (int(d) - 1).bit_length() if d > 0 else 0 for d in shape]


def now() -> str:
    """UTC timestamp that sorts as text (merges compare them: newest wins)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class TuningKey:
    """What a winner is stored under and looked up by."""

    kernel: str
    source_hash: str
    codegen_version: str
    device: DeviceIdentity
    dtypes: tuple[str, ...]
    shape: tuple[int, ...]

    def columns(self) -> dict[str, str]:
        d = self.device
        return {"kernel": self.kernel, "source_hash": self.source_hash, "codegen_version": self.codegen_version,
                "backend": d.backend, "chip": d.chip, "gpu_family": d.gpu_family, "os": d.os,
                "mlx_version": d.mlx_version, "dtypes": json.dumps(list(self.dtypes)),
                "shape_key": json.dumps(list(self.shape)), "bucket": json.dumps(bucket(self.shape))}

    @property
    def study_name(self) -> str:
        """One Optuna study per (kernel, key); readable in optuna-dashboard."""
        d = self.device
        return (f"{self.kernel}|{self.source_hash[:12]}|{d.backend}|{d.chip}|{','.join(self.dtypes)}|"
                f"{'x'.join(map(str, self.shape))}")


@dataclass
class Lookup:
    """A lookup's result: the winner row (None: use the kernel's default) and where it came from:
    "exact", "bucket" (nearest shape bucket, same chip), "family" (same GPU family), "stale" (this
    chip's winners are all for another source or codegen version) or "default"."""

    source: str
    winner: Optional[dict] = None


@dataclass
class MergeReport:
    winners_added: int = 0
    winners_updated: int = 0
    winners_kept: int = 0
    trials_added: int = 0
    conflicts: list[dict] = field(default_factory=list)  # same key, different config: which one won


@dataclass
class ShipReport:
    """What `merge_for_shipping` did: `merged` winners written, `skipped` winners that lost their slot
    to another (each with the one that won), `stale` winners for an older source of their kernel."""

    merged: list[dict] = field(default_factory=list)
    skipped: list[tuple[dict, dict]] = field(default_factory=list)  # (lost, won)
    stale: list[dict] = field(default_factory=list)


@dataclass
class CheckReport:
    """What `TuningDB.check` found: `problems` make the file unusable or rows unreadable (`db
    repair` fixes them); stale winners are only reported (`db prune --stale` deletes them)."""

    integrity: list[str] = field(default_factory=list)  # SQLite's integrity_check messages
    bad_rows: list[tuple[str, int, str]] = field(default_factory=list)  # (table, rowid, why)
    stale: int = 0

    @property
    def ok(self) -> bool:
        return not self.integrity and not self.bad_rows


def known_columns(row: dict, columns: dict[str, type]) -> dict:
    """`row` with the table's columns only: unknown ones dropped, optional ones an older file lacks
    set to null."""
    return {c: row.get(c) if c in OPTIONAL_COLUMNS else row[c] for c in columns}


def _version_key(version: str) -> tuple:
    """A code-generator version as a sortable tuple: numeric parts as numbers ("10" after "9")."""
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"[.+-]", version))


def winner_preference(row: dict) -> tuple:
    """How two winners for one key (or one shipping slot) rank, the larger winning: the newest
    code-generator version, then the best time, then the newest tuning, then the config text, so
    that every order of the inputs makes the same choice (merges are deterministic)."""
    return (_version_key(row["codegen_version"]), -row["time_ms"], row["tuned_at"], row["config"])


def current_sources(winners: Sequence[dict]) -> dict[str, tuple[str, str]]:
    """Each kernel's current (source_hash, codegen_version): that of its most recently tuned winner."""
    newest: dict[str, tuple] = {}
    for r in winners:
        rank = (r["tuned_at"], r["source_hash"], r["codegen_version"])
        newest[r["kernel"]] = max(newest.get(r["kernel"], rank), rank)
    return {kernel: (source, codegen) for kernel, (_, source, codegen) in newest.items()}


def shape_distance(a: Sequence[int], b: Sequence[int]) -> float:
    """How far apart two shapes (or buckets) are for borrowing tuned configs: summed log2 ratios."""
    return sum(abs(math.log2(max(x, 1)) - math.log2(max(y, 1))) for x, y in zip(a, b))


class TuningDB:
    """One tuning database file. `create=False` opens for lookups only: nothing is written and a
    file without metalforge tables reads as empty; a file this process may not write (a database
    shipped with an application, installed read-only) is opened read-only (SQLite's `mode=ro`),
    so lookups work without the write access SQLite would otherwise ask for."""

    def __init__(self, path: os.PathLike | str | None = None, *, create: bool = True) -> None:
        self.path = Path(path) if path is not None else default_path()
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        elif not self.path.exists():
            raise TuningDatabaseError(f"tuning database {self.path} does not exist")
        self._storage = None
        self.read_only = not create and not os.access(self.path, os.W_OK)
        try:
            if self.read_only:
                conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
            else:
                conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S)
            self.db = sqlite_utils.Database(conn)
            if create:
                with self._file_lock():
                    self._migrate()
            else:
                self._check_version()
        except sqlite3.DatabaseError as e:
            raise TuningDatabaseError(f"cannot read tuning database {self.path}: {e} (is it a metalforge "
                                      f"tuning database? use another file with --db or $METALFORGE_DB)") from e

    @classmethod
    def open_damaged(cls, path: os.PathLike | str) -> "TuningDB":
        """Open a file that may be damaged, reading nothing yet: for `check` and `repair`."""
        self = cls.__new__(cls)
        self.path, self._storage = Path(path), None
        if not self.path.exists():
            raise TuningDatabaseError(f"tuning database {self.path} does not exist")
        self.db = sqlite_utils.Database(sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S))
        return self

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        # Creating tables is check-then-create (here and in Optuna): two tuners starting at once on a
        # new file would both create. A lock file serialises the set-up, nothing else.
        with open(f"{self.path}.lock", "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def schema_version(self) -> int:
        if "mf_meta" not in self.db.table_names():
            return 0
        rows = list(self.db.query("select value from mf_meta where key = 'schema_version'"))
        return int(rows[0]["value"]) if rows else 0

    def _check_version(self) -> None:
        found = self.schema_version()
        if found > SCHEMA_VERSION:
            raise TuningDatabaseError(
                f"tuning database {self.path} has schema version {found}, written by a newer metalforge; this one "
                f"reads versions up to {SCHEMA_VERSION}: upgrade metalforge or use another file (--db / $METALFORGE_DB)")

    def _migrate(self) -> None:
        """Create or upgrade the tables in place (sqlite-utils' transform adds and retypes columns:
        schema 1 -> 2 adds the figures and `front`, null in the rows already there)."""
        self._check_version()
        self.db.enable_wal()
        self._create_tables(self.db)
        self.optuna_storage()  # Optuna creates its tables on first use: do it under the lock too

    @staticmethod
    def _create_tables(db: sqlite_utils.Database) -> None:
        db["mf_meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
        db["mf_trials"].create(TRIAL_COLUMNS, pk="uid", transform=True)
        db["mf_winners"].create(WINNER_COLUMNS, pk=WINNER_PK, transform=True)
        db["mf_trials"].create_index(["kernel", "source_hash"], if_not_exists=True)
        db["mf_winners"].create_index(["kernel", "backend", "dtypes"], if_not_exists=True)
        db["mf_meta"].upsert({"key": "schema_version", "value": str(SCHEMA_VERSION)}, pk="key")

    @property
    def url(self) -> str:
        return f"sqlite:///{self.path.resolve()}"

    def optuna_storage(self):
        """Optuna's RDB storage on this same file, so `optuna-dashboard <file>` shows every study."""
        if self._storage is None:
            import optuna

            self._storage = optuna.storages.RDBStorage(
                self.url, engine_kwargs={"connect_args": {"timeout": BUSY_TIMEOUT_S}})
        return self._storage

    # -- writing ----------------------------------------------------------------------------------

    def record_trial(self, key: TuningKey, *, study: str, trial_number: int, config: dict, status: str,
                     reason: str = "", time_ms: Optional[float] = None, max_error: Optional[float] = None,
                     figures: Optional[dict[str, float]] = None) -> dict:
        """Store a trial with every figure measured (`figures`: some of `front.FIGURES`)."""
        if status not in STATUSES:
            raise ValueError(f"trial status must be one of {', '.join(STATUSES)}, not {status!r}")
        unknown = set(figures or {}) - set(FIGURES)
        if unknown:
            raise ValueError(f"unknown trial figures {sorted(unknown)} (known: {', '.join(FIGURES)})")
        row = {"uid": uuid.uuid4().hex, **key.columns(), "study": study, "trial_number": trial_number,
               "config": json.dumps(config, sort_keys=True), "status": status, "reason": reason,
               "time_ms": time_ms, "max_error": max_error, "created_at": now(),
               **{figure: (figures or {}).get(figure) for figure in FIGURES}}
        self.db["mf_trials"].insert(row)
        return row

    def record_winner(self, key: TuningKey, *, config: dict, time_ms: float, trials: int, study: str,
                      tuned_at: Optional[str] = None, front: Optional[list[dict]] = None) -> dict:
        """Store a key's winner; `front`: the Pareto front of a tuning for more than time (see front.py)."""
        row = {**key.columns(), "config": json.dumps(config, sort_keys=True), "time_ms": time_ms,
               "trials": trials, "study": study, "tuned_at": tuned_at or now(),
               "front": json.dumps(front, sort_keys=True) if front else None}
        self.db["mf_winners"].upsert(row, pk=WINNER_PK)
        return row

    # -- reading ----------------------------------------------------------------------------------

    def _rows(self, table: str, where: str = "", params: Sequence[Any] = ()) -> list[dict]:
        if table not in self.db.table_names():
            return []
        return list(self.db[table].rows_where(where or None, params, order_by="kernel"))

    def winners(self, kernel: Optional[str] = None) -> list[dict]:
        return self._rows("mf_winners", "kernel = ?" if kernel else "", [kernel] if kernel else [])

    def trials(self, kernel: Optional[str] = None) -> list[dict]:
        return self._rows("mf_trials", "kernel = ?" if kernel else "", [kernel] if kernel else [])

    def kernels(self) -> list[str]:
        return sorted({r["kernel"] for r in self.winners()} | {r["kernel"] for r in self.trials()})

    def lookup(self, key: TuningKey) -> Lookup:
        """The exact key, else the nearest shape bucket on the same chip, else the nearest on the same
        GPU family; winners of another source hash or codegen version are stale and never used."""
        cols = key.columns()
        rows = [r for r in self._rows("mf_winners", "kernel = ? and backend = ? and dtypes = ?",
                                      [cols["kernel"], cols["backend"], cols["dtypes"]])
                if config_problem(r["config"]) is None]  # a row `db repair` would delete is never used
        fresh = [r for r in rows if (r["source_hash"], r["codegen_version"]) ==
                 (cols["source_hash"], cols["codegen_version"])]
        for r in fresh:
            if all(r[c] == cols[c] for c in ("chip", "os", "mlx_version", "shape_key")):
                return Lookup("exact", r)
        target = json.loads(cols["bucket"])
        for source, column in (("bucket", "chip"), ("family", "gpu_family")):
            near = [r for r in fresh if r[column] == cols[column] and len(json.loads(r["bucket"])) == len(target)]
            if near:
                # nearest bucket; then a winner from the same OS and MLX; then the newest
                near.sort(key=lambda r: r["tuned_at"], reverse=True)
                near.sort(key=lambda r: (shape_distance(json.loads(r["bucket"]), target),
                                         (r["os"], r["mlx_version"]) != (cols["os"], cols["mlx_version"])))
                return Lookup(source, near[0])
        stale = any(r["chip"] == cols["chip"] for r in rows if r not in fresh)
        return Lookup("stale" if stale else "default")

    def stale_winners(self, current: Optional[dict[str, tuple[str, str]]] = None) -> list[dict]:
        """Winners tuned for another version of their kernel. `current` maps kernel name to its
        (source_hash, codegen_version); kernels not in it count the most recently tuned version as
        current."""
        live = current_sources(self.winners())
        live.update(current or {})
        return [r for r in self.winners() if (r["source_hash"], r["codegen_version"]) != live[r["kernel"]]]

    def prune_stale(self, current: Optional[dict[str, tuple[str, str]]] = None) -> list[dict]:
        """Delete stale winners (their trials stay, as history); returns the deleted rows."""
        stale = self.stale_winners(current)
        with self.db.atomic():
            for r in stale:
                self.db["mf_winners"].delete([r[c] for c in WINNER_PK])
        return stale

    # -- exchange ---------------------------------------------------------------------------------

    def export(self, path: os.PathLike | str) -> dict:
        """Winners and trials as JSON (Optuna's studies stay in the database file)."""
        data = {"format": "metalforge-tuning", "schema_version": SCHEMA_VERSION, "exported_at": now(),
                "winners": self.winners(), "trials": self.trials()}
        try:
            Path(path).write_text(json.dumps(data, indent=1))
        except OSError as e:
            raise TuningDatabaseError(f"cannot write {path}: {e.strerror}; nothing was exported") from e
        return data

    @staticmethod
    def _read_foreign(path: Path) -> tuple[list[dict], list[dict]]:
        try:
            with open(path, "rb") as f:
                is_sqlite = f.read(16) == b"SQLite format 3\x00"
        except OSError as e:
            raise TuningDatabaseError(f"cannot read {path}: {e.strerror}") from e
        if is_sqlite:
            other = TuningDB(path, create=False)
            try:
                return other.winners(), other.trials()
            except sqlite3.DatabaseError as e:
                raise TuningDatabaseError(f"{path}: cannot read its rows ({e}); run `metalforge db repair --db {path}` "
                                          "on it first; nothing was imported") from e
        try:
            data = json.loads(path.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise TuningDatabaseError(f"{path} is neither a tuning database nor a JSON export: {e}") from e
        if not isinstance(data, dict) or data.get("format") != "metalforge-tuning":
            raise TuningDatabaseError(f"{path} is not a metalforge tuning export (no \"format\": \"metalforge-tuning\")")
        if data.get("schema_version", 0) > SCHEMA_VERSION:
            raise TuningDatabaseError(f"{path} was exported by a newer metalforge (schema {data['schema_version']}; "
                                      f"this one reads up to {SCHEMA_VERSION}): upgrade metalforge")
        winners, trials = data.get("winners", []), data.get("trials", [])
        if not isinstance(winners, list) or not isinstance(trials, list):
            raise TuningDatabaseError(f"{path}: \"winners\" and \"trials\" must be lists; nothing was imported")
        return winners, trials

    @staticmethod
    def validate_rows(source: str, winners: list, trials: list) -> None:
        """Refuse the whole file, in one line, at its first malformed row: nothing is written."""
        for what, rows, columns, time_column in (("winner", winners, WINNER_COLUMNS, "tuned_at"),
                                                 ("trial", trials, TRIAL_COLUMNS, "created_at")):
            for i, row in enumerate(rows):
                problem = row_problem(row, columns, time_column)
                if problem is None and what == "trial" and row["status"] not in STATUSES:
                    problem = f"status={row['status']!r} is not one of {', '.join(STATUSES)}"
                if problem:
                    kernel = row.get("kernel") if isinstance(row, dict) else None
                    raise TuningDatabaseError(f"{source}: {what} {i + 1} of {len(rows)}"
                                              f"{f' (kernel {kernel!r})' if kernel else ''}: {problem}; "
                                              "nothing was imported")

    def merge(self, path: os.PathLike | str) -> MergeReport:
        """Merge another tuning database or JSON export (see `merge_rows`). Every row is validated
        first (`rows.row_problem`): one malformed row refuses the whole file."""
        winners, trials = self._read_foreign(Path(path))
        self.validate_rows(str(path), winners, trials)
        return self.merge_rows(winners, trials)

    def merge_rows(self, winners: list[dict], trials: list[dict]) -> MergeReport:
        """Merge validated rows: every trial is kept once (by uid); for a key in both, the winner
        `winner_preference` ranks higher is kept (best time, then newest) and a different config is
        reported as a conflict. A winner of ours that is itself malformed is replaced by theirs."""
        winners = [known_columns(w, WINNER_COLUMNS) for w in winners]
        trials = [known_columns(t, TRIAL_COLUMNS) for t in trials]
        report = MergeReport()
        table = self.db["mf_winners"]
        self.db.execute("BEGIN IMMEDIATE")  # read-compare-write of winners: no other writer in between
        try:
            before = self.db["mf_trials"].count
            self.db["mf_trials"].insert_all(trials, pk="uid", ignore=True)
            report.trials_added = self.db["mf_trials"].count - before
            for theirs in winners:
                try:
                    ours = table.get([theirs[c] for c in WINNER_PK])
                except sqlite_utils.db.NotFoundError:
                    table.insert(theirs)
                    report.winners_added += 1
                    continue
                ours_broken = row_problem(ours, WINNER_COLUMNS, "tuned_at") is not None
                newer = ours_broken or winner_preference(theirs) > winner_preference(ours)
                if ours["config"] != theirs["config"]:
                    report.conflicts.append({**{c: ours[c] for c in WINNER_PK}, "ours": ours["config"],
                                             "theirs": theirs["config"], "kept": "theirs" if newer else "ours"})
                if newer:
                    table.upsert(theirs, pk=WINNER_PK)
                    report.winners_updated += 1
                else:
                    report.winners_kept += 1
            self.db.commit()
        except BaseException:
            self.db.rollback()
            raise
        return report

    @staticmethod
    def merge_for_shipping(inputs: Sequence[os.PathLike | str], output: os.PathLike | str) -> ShipReport:
        """Union the winners of several tuning databases (one per chip, say) into a new file `output`
        to ship with an application: one winner per slot (kernel, back end, chip, OS, MLX version,
        dtypes, shape), chosen by the kernel's current source hash first (that of its most recently
        tuned winner in any input), then `winner_preference` (newest code-generator version, best
        time). Winners for another source hash are stale and left out, as are trials (they stay in
        the inputs). The choice depends on the rows only, never on the order of `inputs`, and the
        file is written sorted, in rollback-journal mode (readable from a read-only directory),
        and moved into place at once: merging the same inputs twice gives the same database, and
        merging `output` again changes nothing."""
        rows: dict[tuple, dict] = {}
        for path in inputs:
            winners, _ = TuningDB._read_foreign(Path(path))
            TuningDB.validate_rows(str(path), winners, [])
            for w in winners:
                row = known_columns(w, WINNER_COLUMNS)
                rows[tuple(row[c] for c in WINNER_COLUMNS)] = row  # identical rows count once
        winners = sorted(rows.values(), key=lambda r: tuple(str(r[c]) for c in WINNER_COLUMNS))
        current = current_sources(winners)
        report = ShipReport()
        slots: dict[tuple, list[dict]] = {}
        for w in winners:
            if w["source_hash"] != current[w["kernel"]][0]:
                report.stale.append(w)
            else:
                slots.setdefault(tuple(w[c] for c in WINNER_PK if c not in ("source_hash", "codegen_version")),
                                 []).append(w)
        for candidates in slots.values():
            candidates.sort(key=winner_preference, reverse=True)
            report.merged.append(candidates[0])
            report.skipped.extend((lost, candidates[0]) for lost in candidates[1:])
        report.merged.sort(key=lambda r: [r[c] for c in WINNER_PK])
        output = Path(output)
        building = output.with_name(output.name + ".building")
        building.unlink(missing_ok=True)
        shipped = sqlite_utils.Database(sqlite3.connect(building))  # no WAL: one file, readable read-only
        try:
            TuningDB._create_tables(shipped)
            shipped["mf_winners"].insert_all(report.merged, pk=WINNER_PK)
            shipped.conn.commit()
            shipped.execute("vacuum")
        finally:
            shipped.conn.close()
        os.replace(building, output)
        return report

    # -- health -----------------------------------------------------------------------------------

    def check(self) -> CheckReport:
        """SQLite's integrity check, then every row of metalforge's tables validated, then the stale
        winners counted. Never raises for a damaged file: the damage is the report."""
        report = CheckReport()
        try:
            report.integrity = [r[0] for r in self.db.execute("pragma integrity_check").fetchall() if r[0] != "ok"]
            for table, columns, time_column in (("mf_winners", WINNER_COLUMNS, "tuned_at"),
                                                ("mf_trials", TRIAL_COLUMNS, "created_at")):
                for rowid, row in self._rows_with_ids(table):
                    problem = row_problem(row, columns, time_column)
                    if problem:
                        report.bad_rows.append((table, rowid, problem))
            report.stale = len(self.stale_winners()) if not report.bad_rows else 0
        except sqlite3.DatabaseError as e:
            report.integrity.append(str(e))
        return report

    def _rows_with_ids(self, table: str) -> list[tuple[int, dict]]:
        if table not in self.db.table_names():
            return []
        return [(row.pop("rowid"), row) for row in self.db.query(f"select rowid, * from [{table}]")]

    def repair(self) -> tuple[int, bool]:
        """Delete malformed rows; a file that fails SQLite's integrity check is rebuilt from every row
        that can still be read (a copy of the damaged file is kept next to it, `.damaged-<time>`).
        Returns (rows deleted or lost, rebuilt)."""
        report = self.check()
        if report.integrity:
            return self._rebuild(), True
        removed = 0
        with self.db.atomic():
            for table, rowid, _ in report.bad_rows:
                self.db.execute(f"delete from [{table}] where rowid = ?", [rowid])
                removed += 1
        return removed, False

    def _rebuild(self) -> int:
        """Copy the valid rows that can be read into a new file and swap it in; returns rows lost."""
        fresh_path = self.path.with_name(self.path.name + ".rebuild")
        fresh_path.unlink(missing_ok=True)
        fresh = sqlite_utils.Database(sqlite3.connect(fresh_path))  # no WAL: the file moves once written
        TuningDB._create_tables(fresh)
        lost = 0
        for table, columns, time_column in (("mf_winners", WINNER_COLUMNS, "tuned_at"),
                                            ("mf_trials", TRIAL_COLUMNS, "created_at")):
            rows, unreadable = self._readable_rows(table)
            good = [r for r in rows if row_problem(r, columns, time_column) is None]
            lost += unreadable + len(rows) - len(good)
            fresh[table].insert_all(good, pk=WINNER_PK if table == "mf_winners" else "uid", ignore=True)
        fresh.conn.close()
        self.db.conn.close()
        damaged = f"{self.path.name}.damaged-{now()[:19].replace(':', '')}"
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{self.path}{suffix}").exists():
                os.replace(f"{self.path}{suffix}", self.path.with_name(damaged + suffix))
        os.replace(fresh_path, self.path)
        self.db = sqlite_utils.Database(sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S))
        self._storage = None
        return lost

    def _readable_rows(self, table: str) -> tuple[list[dict], int]:
        """Every row of `table` that SQLite can still read, one at a time, and how many it cannot."""
        try:
            ids = [r[0] for r in self.db.execute(f"select rowid from [{table}]").fetchall()]
        except sqlite3.DatabaseError:
            return [], 0
        rows, unreadable = [], 0
        for rowid in ids:
            try:
                cursor = self.db.execute(f"select * from [{table}] where rowid = ?", [rowid])
                names = [d[0] for d in cursor.description]
                rows.extend(dict(zip(names, r)) for r in cursor.fetchall())
            except sqlite3.DatabaseError:
                unreadable += 1
        return rows, unreadable
