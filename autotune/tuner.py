"""`autotune` and `Autotuner`: tuned launches looked up per machine and shape, and the Optuna search that
fills the tuning database.

A launchable kernel `fn` (what `@mf.jit` makes) provides `fn.name`, `fn.source_hash` (changes with
its source and metalforge's codegen), `fn.arg_names` and `fn[grid](*args, **meta)`; optionally
`fn.backend` (where it runs; default the active back end), `fn.codegen_version`, `fn.reference`
(expected outputs from the launch's arguments), `fn.warmup(*args, grid=..., **meta)` (compile
without running, as in Triton, so compile time is not counted as run time), and
`fn.dispatcher(miss, args, kwargs, ...)` with `fn.launch_function(args, kwargs)` (a generated launch
path whose cache, `dispatcher.cache`, also holds the tuned config: see metalforge.launcher; without
them, each launch looks its config up and calls `fn[grid]`).
"""
from __future__ import annotations

import collections
import contextlib
import functools
import json
import math
import os
import sqlite3
import threading
import warnings
import weakref
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Union

import mlx.core as mx

from .. import __version__, env, errors
from ..launcher import lacking
from ..runtime import backends, meters
from ..runtime.contention import ContentionLoad
from ..runtime.kernel import launch_time_limit
from ..tuning_db import Lookup, TuningDB, TuningKey, default_path, identify
from ..tuning_db.front import FIGURES, Policy, choose, parse_policy, pareto_front
from ..tuning_db.shared import HEARTBEAT_S, open_storage, publish_winner
from . import record
from .bench import (TrialTimeout, as_outputs, contended_time, energy_per_call, max_error, median_time_ms,
                    rotating_copies, timed)
from .objectives import (Objective, front_keys, needs_contention, needs_energy, objective_value, parse_objectives,
                         study_suffix)
from .progress import Progress
from .space import FEATURE_SETTINGS, Config, ConfigList, Space

TUNE_ON_MISS_ENV = "METALFORGE_TUNE_ON_MISS"
CONFIRM_ROUNDS = 3  # alternating re-timings of a search's best and the default config (Autotuner._confirmed)
POLICY_ENV = "METALFORGE_POLICY"
Grid = Union[tuple, Callable[[dict], tuple]]
Predicate = Callable[[dict, dict], bool]
TuneArgs = Callable[[tuple, mx.Dtype], tuple[Grid, tuple]]
TuneShape = Callable[[dict], tuple]
Default = Union[Config, Callable[[dict], Config]]

_TUNERS: "weakref.WeakSet[Autotuner]" = weakref.WeakSet()
_UNUSABLE_DATABASES: set[Path] = set()  # tuning databases already warned about in this process
_POLICY: list[Optional[Policy]] = [None]  # this process's run-time policy, once resolved


@dataclass
class TrialResult:
    status: str               # one of tuning_db.STATUSES
    reason: str = ""
    time_ms: Optional[float] = None
    max_error: Optional[float] = None
    energy_j: Optional[float] = None            # joules per launch, idle power subtracted
    energy_spread: Optional[float] = None       # (max - min) / median of energy_j over the repeats
    power_w: Optional[float] = None             # mean power while launching
    idle_w: Optional[float] = None              # idle power: the mean of before and after the repeats
    contended_ms: Optional[float] = None        # time per launch beside the contention load
    inflicted_slowdown: Optional[float] = None  # the load's copy rate alone / beside the launches
    idle_drift: Optional[float] = None          # idle power after less before, over idle_w (not stored)

    @property
    def figures(self) -> dict[str, float]:
        """Every figure measured (time and `tuning_db.front.FIGURES`), by name."""
        return {k: v for k in ("time_ms", *FIGURES) if (v := getattr(self, k)) is not None}


def _point(trial) -> dict:
    """A finished trial's config and figures (a trial of a study from before figures were kept: its time)."""
    return {"config": trial.user_attrs["config"], **trial.user_attrs.get("figures", {"time_ms": trial.values[0]})}


def tuning_policy() -> Policy:
    """This process's run-time policy (tuning_db/front.py): the one `set_tuning_policy` set, else
    $METALFORGE_POLICY, else `tuned`. Read when a key is first looked up, never per launch."""
    if _POLICY[0] is None:
        text = os.environ.get(POLICY_ENV, "").strip() or "tuned"
        try:
            _POLICY[0] = parse_policy(text)
        except ValueError as e:
            raise env.EnvironmentVariableError(f"{POLICY_ENV}: {e}") from None
    return _POLICY[0]


def set_tuning_policy(policy: Union[str, Policy, None]) -> Policy:
    """Choose this process's tuned configs by `policy`: "tuned", "fastest", "efficient", "within:X"
    (the fastest within X% of the fewest joules per call) or "robust" (fastest beside a contention
    load); None: back to $METALFORGE_POLICY. Every kernel looks its configs up again at its next
    launch of each key (its cached launches are dropped); launches after that cost what they did."""
    _POLICY[0] = None if policy is None else policy if isinstance(policy, Policy) else parse_policy(policy)
    for tuner in list(_TUNERS):
        tuner.clear_cache()
    return tuning_policy()


class _Budget:
    """Optuna callback: stop once `trials` trials have measured a config (a trial whose point a
    constraint rejects, or that repeats a point, costs no device time and does not count). With
    `whole_study`, the trials of every worker of a shared study count: a farm splits the budget."""

    def __init__(self, trials: int, whole_study: bool = False) -> None:
        self.trials, self.measured, self.whole_study = trials, 0, whole_study

    def __call__(self, study, trial) -> None:
        import optuna

        if self.whole_study:
            finished = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,
                                                                 optuna.trial.TrialState.PRUNED))
            self.measured = sum(bool(t.user_attrs.get("measured")) for t in finished)
        else:
            self.measured += bool(trial.user_attrs.get("measured"))
        if self.measured >= self.trials:
            study.stop()


class _Patience:
    """Optuna callback: stop once the best time has not improved for `patience` trials."""

    def __init__(self, patience: Optional[int]) -> None:
        self.patience, self.best, self.since = patience, math.inf, 0

    def __call__(self, study, trial) -> None:
        value = trial.values[0] if trial.values else None  # a multi-objective search: its first objective
        if value is not None and value < self.best:
            self.best, self.since = value, 0
        else:
            self.since += 1
        if self.patience is not None and self.since >= self.patience:
            study.stop()


@contextlib.contextmanager
def _quiet_optuna() -> Iterator[None]:
    # Optuna logs every trial at INFO; the tuner reports progress itself.
    import optuna

    level = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(level)


def _dtype_name(dtype: Any) -> str:
    return str(dtype).rsplit(".", 1)[-1]


class Autotuner:
    """A launchable kernel with tuned configs: `tuned[grid](*args)` launches with the config tuned for
    this machine, dtypes and shape key (looked up once per process, never tuned in the call unless
    $METALFORGE_TUNE_ON_MISS=1); `tune(...)` searches and stores the winner.

    Looked-up configs are cached for the back end in use at the first call of each key (a `tune` in
    the process replaces its key's); after switching back ends in a running process
    ($METALFORGE_BACKEND), call `clear_cache()`. With a `@jit` kernel, a cached launch is the
    kernel's generated dispatcher keyed also on the tuning key's shapes: one dict lookup finds the
    config's compiled launch.
    """

    def __init__(self, fn: Any, space: Space, key: Sequence[str], *, prune: Sequence[Predicate] = (),
                 reference: Optional[Callable[..., Any]] = None, rtol: Optional[float] = None,
                 atol: Optional[float] = None, warmup: float = 25.0, rep: float = 100.0, trial_timeout: float = 10.0,
                 default: Optional[Default] = None, db: Union[str, os.PathLike, None] = None,
                 tune_args: Optional[TuneArgs] = None, shapes: Sequence[tuple] = (),
                 dtypes: Sequence[mx.Dtype] = (), objective: Objective = "time", contention_share: float = 0.5,
                 energy_repeats: int = 3, tune_shape: Optional[TuneShape] = None,
                 shape_ranks: Sequence[int] = (), buckets: Optional[Mapping[str, Callable[[int], int]]] = None) -> None:
        missing = [k for k in key if k not in fn.arg_names]
        if missing:
            raise ValueError(f"autotune key {missing} names no argument of kernel `{fn.name}` "
                             f"(arguments: {', '.join(fn.arg_names)})")
        self.fn, self.space, self.key = fn, space, list(key)
        self.prune = list(prune)
        self.reference = reference or getattr(fn, "reference", None)
        self.rtol, self.atol, self.warmup, self.rep, self.trial_timeout = rtol, atol, warmup, rep, trial_timeout
        self.default = default or space.default()
        self.db = db
        self.tune_args, self.shapes, self.dtypes = tune_args, [tuple(s) for s in shapes], list(dtypes)
        self.objective = parse_objectives(objective)
        self.contention_share, self.energy_repeats = contention_share, energy_repeats
        self.energy_window_s: Optional[float] = None  # energy windows' length; None: the meter's own
        self.tune_shape = tune_shape
        self.shape_ranks = sorted({len(s) for s in self.shapes} | set(shape_ranks))
        self._key_index = [fn.arg_names.index(k) for k in key]
        self.buckets = dict(buckets or {})
        unkeyed = sorted(set(self.buckets) - set(key))
        if unkeyed:
            raise ValueError(f"autotune buckets {unkeyed} of kernel `{fn.name}` are not in its key {list(key)}")
        self._bucket_of = [self.buckets.get(k) for k in key]
        self._cache: dict[tuple, tuple[Config, Optional[tuple]]] = {}
        self._source_hash: Optional[str] = None
        self._open_db: Optional[tuple[tuple, TuningDB]] = None  # see _reader
        self._untuned: dict[tuple, list[int]] = {}  # (shape, dtypes, where the config came from) -> [calls]
        self._dispatch: Callable[..., Any] = self._first_launch if hasattr(fn, "dispatcher") else self.run
        _TUNERS.add(self)

    # -- identity -----------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.fn.name

    @property
    def source_hash(self) -> str:
        """The kernel's source hash, computed once per process like its configs (`clear_cache` computes
        it again): a @jit kernel's walks its source and helpers, about 1.5 ms, and a decode step
        meets a new key (the cache's length) at every token."""
        if self._source_hash is None:
            self._source_hash = self.fn.source_hash
        return self._source_hash

    @property
    def target(self) -> str:
        """`module:kernel`, as `metalforge autotune` names it (the module that defines the kernel)."""
        module = getattr(getattr(self.fn, "fn", None), "__module__", None) or type(self.fn).__module__
        return f"{module}:{self.name}"

    @property
    def codegen_version(self) -> str:
        return getattr(self.fn, "codegen_version", __version__)

    @property
    def db_path(self) -> Path:
        return Path(self.db) if self.db is not None else default_path()

    def _signature(self, args: Sequence[Any]) -> tuple:
        """The in-memory cache key: shape key and dtypes, kept cheap (no strings made): launches of
        kernels without a dispatcher compute it each time."""
        shape: list[int] = []
        for i, bucket in zip(self._key_index, self._bucket_of):
            if i >= len(args):
                raise TypeError(f"kernel `{self.name}`: the autotune key argument `{self.fn.arg_names[i]}` was not "
                                f"given; pass the arguments up to it by position")
            a = args[i]
            if hasattr(a, "shape"):
                shape.extend(a.shape)
            else:
                shape.append(int(a) if bucket is None else bucket(int(a)))
        return tuple(shape), tuple([getattr(a, "dtype", None) for a in args])  # None: a scalar

    def tuning_key(self, args: Sequence[Any]) -> TuningKey:
        """The database key of a launch with `args` on the active back end."""
        shape, dtypes = self._signature(args)
        return TuningKey(self.name, self.source_hash, self.codegen_version,
                         identify(getattr(self.fn, "backend", None)),
                         tuple(_dtype_name(d) for d in dtypes if d is not None), shape)

    def _config(self, data: Mapping[str, Any]) -> Config:
        config = Config.from_json(data)
        if isinstance(self.space, ConfigList):  # the user's own object, pre_hook included
            return next((c for c in self.space.configs if c == config), config)
        return config

    # -- launching ----------------------------------------------------------------------------------

    def __getitem__(self, grid: Grid) -> Callable[..., Any]:
        return functools.partial(self._dispatch, grid)

    def _first_launch(self, grid: Grid, *args: Any, **meta: Any) -> Any:
        """The first launch makes the dispatcher, for its argument types."""
        dispatch = self._dispatcher_for(args, meta)
        launched = dispatch(grid, *args, **meta)
        self._dispatch = dispatch  # after the launch: a call that fails (its types unknown) teaches nothing
        return launched

    def prepare(self, grid: Grid, *args: Any, varying: Sequence[str], **meta: Any) -> Callable[..., Any]:
        """`tuned[grid](*args, **meta)` made once for calls that change only the parameters named in
        `varying` (`launch(*their values)`), with the config looked up now: see JITFunction.prepare."""
        if not hasattr(self.fn, "dispatcher"):
            raise TypeError(f"kernel `{self.name}`: prepare needs a @metalforge.jit kernel (its launches are "
                            "generated); launch this one with tuned[grid](...)")
        dispatch = self._dispatcher_for(args, meta)
        prepared = dispatch.prepare(grid, args, meta, varying)
        self._dispatch = dispatch  # after preparing: a call that fails teaches nothing
        return prepared

    def _dispatcher_for(self, args: Sequence[Any], meta: Mapping[str, Any]) -> Callable[..., Any]:
        """The dispatcher, made for these argument types where no launch has made it yet."""
        if self._dispatch != self._first_launch:
            return self._dispatch
        return self.fn.dispatcher(self._dispatch_miss, args, dict(meta), open_meta=True, shape_of=self.key,
                                  buckets=self.buckets, counted=True)

    def run(self, grid: Grid, *args: Any, **meta: Any) -> Any:
        """Launch with the tuned config; `meta` passes constexprs that are not tuned."""
        config, untuned = self._cache.get(self._signature(args)) or self._miss(grid, args, meta.get("backend"))
        if untuned is not None:
            self._untuned_calls(untuned)[0] += 1
        return self._launch(grid, args, config, meta)

    def _dispatch_miss(self, grid: Grid, key: tuple, args: tuple, meta: dict[str, Any]) -> tuple[tuple, bool]:
        """What the dispatcher runs for a key it has not seen: the kernel's launch function with the
        config (looked up once per shape key and dtypes) and the untuned-call count it adds to; and
        whether the dispatcher may keep them."""
        config, untuned = self._cache.get(self._signature(args)) or self._miss(grid, args, meta.get("backend"))
        calls = None if untuned is None else self._untuned_calls(untuned)
        if config.pre_hook is not None:  # the hook sees each launch's arguments: this call only
            return ((lambda *_: self._launch(grid, args, config, meta)), calls), False
        launch, cacheable = self.fn.launch_function(args, self._launch_kwargs(config, args, meta))
        return (launch, calls), cacheable

    def _forget_launches(self) -> None:
        """Empty the dispatcher's cache: its launches hold configs."""
        cache = getattr(self._dispatch, "cache", None)
        if cache is not None:
            cache.clear()

    def _untuned_calls(self, untuned: tuple) -> list[int]:
        return self._untuned.setdefault(untuned, [0])

    def config_for(self, grid: Grid, *args: Any) -> tuple[Config, str]:
        """The config a launch with `args` would use, and where it came from (see `TuningDB.lookup`)."""
        config, untuned = self._cache.get(self._signature(args)) or self._miss(grid, args)
        return config, "exact" if untuned is None else untuned[-1]

    def default_config(self, args: Sequence[Any], backend: Any = None) -> Config:
        """The config a launch with `args` runs untuned, and the first trial of its search: the
        `default` given (a Config, or a function of the arguments by name and of `backend`, the back
        end the launch names: None for the active one), else the space's first valid point."""
        if callable(self.default):
            return self.default({**dict(zip(self.fn.arg_names, args)), "backend": backend})
        return self.default

    def _launch_kwargs(self, config: Config, args: Sequence[Any], meta: Mapping[str, Any]) -> dict[str, Any]:
        """A launch's keyword arguments: the caller's constexprs and options, and the config's, less
        a feature setting the launch's back end lacks (a config chosen for another back end, whose
        tuned or default choice the in-memory cache keeps by shape: it runs without it)."""
        settings = config.all_kwargs()
        clash = (set(meta) | set(self.fn.arg_names[:len(args)])) & set(settings)
        if clash:
            raise TypeError(f"kernel `{self.name}`: {', '.join(sorted(clash))} is tuned; do not pass it to the launch")
        if any(settings.get(s) for s in FEATURE_SETTINGS):
            lacks = lacking(meta.get("backend", getattr(self.fn, "backend", None)))
            settings = {k: v for k, v in settings.items() if not (k in FEATURE_SETTINGS and v and lacks(k))}
        return {**meta, **settings}

    def _launch(self, grid: Grid, args: Sequence[Any], config: Config, meta: Optional[Mapping[str, Any]] = None) -> Any:
        full = self._launch_kwargs(config, args, meta or {})
        if config.pre_hook is not None:
            config.pre_hook({**dict(zip(self.fn.arg_names, args)), **full})
        return self.fn[grid](*args, **full)

    def _reader(self, path: Path) -> TuningDB:
        """The database opened for lookups, kept while it is the same file (inode and modification
        time) in the same thread: opening it costs about 1.5 ms, and a decode step meets a new key
        (the cache's length) at every token."""
        stat = path.stat()
        identity = (threading.get_ident(), path, stat.st_ino, stat.st_mtime_ns)
        if self._open_db is None or self._open_db[0] != identity:
            self._open_db = (identity, TuningDB(path, create=False))
        return self._open_db[1]

    def _lookup(self, key: TuningKey) -> Lookup:
        path = self.db_path
        if not path.exists():
            return Lookup("default")
        try:
            return self._reader(path).lookup(key)
        except (errors.TuningDatabaseError, sqlite3.DatabaseError, OSError) as e:
            if path not in _UNUSABLE_DATABASES:  # one warning per file: every kernel would repeat it
                _UNUSABLE_DATABASES.add(path)
                warnings.warn(f"the tuning database {path} cannot be read ({e}); kernels run with their default "
                              f"configs. Check it with `metalforge db check --db {path}` and fix it with "
                              "`metalforge db repair`", stacklevel=4)
            return Lookup("default")

    def recorded_case(self, args: Sequence[Any]) -> tuple[Optional[tuple], Optional[mx.Dtype]]:
        """The (`tune_args` shape, dtype) that tunes a launch with `args`, for METALFORGE_RECORD: the
        shape from `tune_shape`, the dtype of the first array argument; None where there is none."""
        dtype = next((a.dtype for a in args if isinstance(a, mx.array)), None)
        shape = self.tune_shape(dict(zip(self.fn.arg_names, args))) if self.tune_shape is not None else None
        return shape, dtype

    def _miss(self, grid: Grid, args: Sequence[Any], backend: Any = None) -> tuple[Config, Optional[tuple]]:
        if os.environ.get(record.RECORD_ENV):
            record.note(self.target, *self.recorded_case(args))
        key = self.tuning_key(args)
        found = self._lookup(key)
        if found.source != "exact" and env.flag(TUNE_ON_MISS_ENV, False):
            self.tune(grid, *args)  # stores the winner and fills the cache
            return self._cache[self._signature(args)]
        if found.source == "stale":
            warnings.warn(f"kernel `{self.name}`: the tuned configs in {self.db_path} are for an older version of "
                          f"its source; using the default config. Re-tune with `metalforge autotune`.", stacklevel=4)
        config = self._chosen(found.winner) if found.winner else self.default_config(args, backend)
        entry = (config, None if found.source == "exact" else (key.shape, key.dtypes, found.source))
        self._cache[self._signature(args)] = entry
        return entry

    def _chosen(self, winner: dict) -> Config:
        """The config this process's policy picks from a winner row (its front, where it has one)."""
        policy = tuning_policy()
        text, applied = choose(winner, policy)
        if not applied:
            warnings.warn(f"kernel `{self.name}`: policy {policy} needs figures its tuning of "
                          f"{json.loads(winner['shape_key'])} did not measure; using its tuned config. Tune it with "
                          "`metalforge autotune --objective time energy contended` for every policy.", stacklevel=5)
        return self._config(json.loads(text))

    def untuned_calls(self) -> list[dict]:
        return [{"kernel": self.name, "shape": shape, "dtypes": dtypes, "source": source, "calls": n}
                for (shape, dtypes, source), (n,) in self._untuned.items()]

    def clear_cache(self) -> None:
        """Forget looked-up configs and the source hash (the next call of each key reads the database again)."""
        self._cache.clear()
        self._source_hash = self._open_db = None
        self._forget_launches()

    # -- tuning -------------------------------------------------------------------------------------

    def make_sampler(self, sampler: str, seed: Optional[int], trials: int, space: Optional[Space] = None):
        """The Optuna sampler for a search of `trials` trials (grid when the space fits in them).

        TPE models the landscape after a quarter of the budget (at most Optuna's usual 10 random
        start-up trials): with the default 10, a budget of a few dozen trials is mostly random search.
        It models the parameters jointly (multivariate, Optuna 5's default, set here so that it does
        not depend on the version): replayed on the stored landscapes, it ends within 5% of the
        optimum for more seeds than one model per parameter on 6 of 10, as many on 3, fewer on the
        GPU matmul (docs/autotune.md)."""
        import optuna

        space = space or self.space
        if sampler == "auto":
            sampler = "grid" if space.size <= trials else "tpe"
        if sampler == "grid":
            return optuna.samplers.GridSampler(space.grid(), seed=seed)
        if sampler == "tpe":
            return optuna.samplers.TPESampler(seed=seed, n_startup_trials=max(2, min(10, trials // 4)),
                                              multivariate=True)
        if sampler == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        raise ValueError(f"sampler must be 'auto', 'tpe', 'grid' or 'random', not {sampler!r}")

    def create_study(self, sampler, starts: Sequence[Config] = (), objectives: int = 1, space: Optional[Space] = None,
                     **storage: Any):
        """A minimising Optuna study of `objectives` values (continued when `storage` holds it) whose
        first trials, when it is new, are `starts` in order (those in the space, each once; see
        `starting_configs`): informed starts are never worse than random ones."""
        import optuna

        study = optuna.create_study(sampler=sampler, directions=["minimize"] * objectives,
                                    load_if_exists=bool(storage), **storage)
        if not study.trials and not isinstance(sampler, optuna.samplers.GridSampler):
            enqueued: list[dict] = []
            for point in ((space or self.space).point_of(config) for config in starts):
                if point is not None and point not in enqueued:
                    enqueued.append(point)
                    study.enqueue_trial(point)
        return study

    def starting_configs(self, args: Sequence[Any], store: TuningDB) -> list[Config]:
        """The first configs a search for `args` measures: the winner the run-time lookup finds for its
        key (the nearest tuned shape on this chip, else on this GPU family), since winners carry over
        between nearby shapes on one GPU (docs/autotune.md measures how well), then `default_config`."""
        found = store.lookup(self.tuning_key(args))
        tuned = [self._config(json.loads(found.winner["config"]))] if found.winner is not None else []
        return tuned + [self.default_config(args, getattr(self.fn, "backend", None))]

    def evaluate(self, grid: Grid, config: Config, copies: list[tuple], expected: Optional[list], *,
                 timing_lock: Optional[contextlib.AbstractContextManager] = None,
                 meter: Optional[meters.Meter] = None, load: Optional[ContentionLoad] = None,
                 kernels: Optional[dict] = None) -> TrialResult:
        """Compile, check against the reference, and time one config; failures become statuses.
        `timing_lock` is held while timing only, so that several processes measuring configs at once
        compile them in parallel and time them one at a time (benchmarks/tuner_quality.py --jobs); the
        first launch, which compiles, and the check stay outside it. Where the back end batches
        (`batch_timing`), samples are batches of launches (`median_time_ms`). A launch that runs past
        `trial_timeout` is stopped where the back end can stop a kernel (the emulator) and the config
        marked `timeout`; one that crashes (an exception, or a fault the emulator catches) is marked
        `runtime_error`: neither ends the search. With a `meter`, joules per launch are measured
        after the time (`energy_per_call`); with a contention `load`, the time beside it and the
        slowdown inflicted on it (`contended_time`).

        `kernels` (one search's, `tune`): the configs measured so far by the kernel each compiled to;
        a config whose kernel is among them takes that measurement instead of timing the same code
        again (on Metal `num_stages` 3 and 4 act as 2; `wgmma=True` where no dot can take it)."""
        named = dict(zip(self.fn.arg_names, copies[0]))
        for predicate in self.prune:
            if not predicate(config.all_kwargs(), named):
                return TrialResult("invalid", f"pruned by {getattr(predicate, '__name__', 'a predicate')}")
        try:
            with launch_time_limit(self.trial_timeout, "the trial time limit",
                                   "or raise autotune(trial_timeout=...)"):
                warmup = getattr(self.fn, "warmup", None)
                compiled = warmup(*copies[0], grid=grid, **config.all_kwargs()) if warmup is not None else None
                same = self._kernel_of(grid, config, copies[0], compiled) if kernels is not None else None
                if same is not None and same in kernels:
                    twin, measured = kernels[same]
                    return replace(measured, reason="; ".join(
                        r for r in (measured.reason, f"the same kernel as {twin.to_json()}, measured once") if r))
                result = self._measure(grid, config, copies, expected, timing_lock, meter, load)
                if same is not None:
                    kernels[same] = (config, result)
                return result
        except (TrialTimeout, errors.KernelTimeoutError) as e:
            return TrialResult("timeout", str(e))
        except (errors.LaunchConfigError, errors.ThreadgroupMemoryError, errors.SharedMemoryLimitError) as e:
            return TrialResult("invalid", str(e))
        except (errors.KernelCompileError, errors.KernelDefinitionError) as e:
            return TrialResult("compile_error", str(e))
        except Exception as e:  # noqa: BLE001 - a failing candidate is a result, never the end of tuning
            return TrialResult("runtime_error", f"{type(e).__name__}: {e}")

    def _kernel_of(self, grid: Grid, config: Config, args: tuple, compiled: Any) -> Optional[tuple]:
        """What a launch of `config` (compiled to `compiled`) runs: the kernel's name (a digest of its
        source), threads and grid; None where that cannot be told (a pre-hook, a launchable whose
        `warmup` returns no compiled kernel)."""
        name = getattr(compiled, "name", None)
        if name is None or config.pre_hook is not None:
            return None
        meta = {**dict(zip(self.fn.arg_names, args)), **config.all_kwargs()}
        return name, compiled.threads, tuple(grid(meta)) if callable(grid) else tuple(grid)

    def _measure(self, grid: Grid, config: Config, copies: list[tuple], expected: Optional[list],
                 timing_lock: Optional[contextlib.AbstractContextManager], meter: Optional[meters.Meter],
                 load: Optional[ContentionLoad]) -> TrialResult:
        """`evaluate`'s check and timing, after its compile; its failures are exceptions."""
        def launch(a: tuple) -> Any:
            return self._launch(grid, a, config)

        _, outputs = timed(launch, copies[0], self.trial_timeout)
        err = None
        if expected is not None:
            err, wrong = max_error(outputs, expected, self.rtol, self.atol)
            if wrong:
                return TrialResult("wrong", wrong, max_error=err)
        batched = getattr(backends.resolve(getattr(self.fn, "backend", None)), "batch_timing", False)
        result = TrialResult("ok", "", None, err)
        with timing_lock or contextlib.nullcontext():
            result.time_ms = median_time_ms(launch, copies, warmup_ms=self.warmup, rep_ms=self.rep,
                                            timeout_s=self.trial_timeout, batched=batched)
            if meter is not None:
                energy = energy_per_call(launch, copies, meter, estimate_s=result.time_ms / 1e3,
                                         repeats=self.energy_repeats, batched=batched, window_s=self.energy_window_s)
                result.energy_j, result.energy_spread = energy.joules, energy.spread
                result.power_w, result.idle_w, result.idle_drift = energy.busy_w, energy.idle_w, energy.idle_drift
            if load is not None:
                contended = contended_time(launch, copies, load, warmup_ms=self.warmup, rep_ms=self.rep,
                                           timeout_s=self.trial_timeout, estimate_s=result.time_ms / 1e3,
                                           batched=batched)
                result.contended_ms, result.inflicted_slowdown = contended.time_ms, contended.slowdown
        return result

    def _confirmed(self, grid: Grid, point: dict, default: Config, done: Sequence[Any], copies: list[tuple],
                   expected: Optional[list]) -> dict:
        """The search's best against the default config, timed again in alternation
        (CONFIRM_ROUNDS each, after one launch of each to compile it): the best stays the winner only
        where the median of its times is the lower one, else the default is. A search keeps the
        fastest of single measurements, and for a few-microsecond kernel whose samples are mostly the
        host's (a decode step's: building and encoding a launch on MLX's CUDA back end take longer
        than the kernel runs) that is the one the host's noise favoured: a tuned Llama-3-8B decode
        step ran at 156 tokens/s where the untuned one ran at 200 (H100, 2026-12-06,
        docs/autotune.md). A default that none of the study's finished trials measured (a study
        continued from an earlier run) is checked first; one that is not right, or any failure
        while re-timing, leaves the search's best."""
        best = self._config(point["config"])
        if best == default:
            return point
        if not any(t.user_attrs.get("config") == default.to_json() for t in done) \
                and self.evaluate(grid, default, copies, expected).status != "ok":
            return point
        batched = getattr(backends.resolve(getattr(self.fn, "backend", None)), "batch_timing", False)
        launches = {c: (lambda a, c=c: self._launch(grid, a, c)) for c in (best, default)}
        times: dict[Config, list[float]] = {best: [], default: []}
        try:
            with launch_time_limit(self.trial_timeout, "the trial time limit", "or raise autotune(trial_timeout=...)"):
                for launch in launches.values():
                    timed(launch, copies[0], self.trial_timeout)
                for _ in range(CONFIRM_ROUNDS):
                    for config, launch in launches.items():
                        times[config].append(median_time_ms(launch, copies, warmup_ms=self.warmup, rep_ms=self.rep,
                                                            timeout_s=self.trial_timeout, batched=batched))
        except Exception:  # noqa: BLE001 - a re-timing that fails keeps the search's result
            return point
        median = {c: sorted(t)[CONFIRM_ROUNDS // 2] for c, t in times.items()}
        fastest = min(median, key=lambda c: (median[c], c is best))  # a tie: the default
        return {**point, "config": fastest.to_json(), "time_ms": median[fastest]}

    def search(self, study, measure: Callable[[Config], TrialResult], trials: int, *,
               timeout: Optional[float] = None, patience: Optional[int] = None,
               record: Optional[Callable[[Any, Config, TrialResult], None]] = None,
               callbacks: Sequence[Callable] = (), shared: bool = False,
               objectives: Sequence[str] = ("time",), space: Optional[Space] = None) -> dict[Config, TrialResult]:
        """Run `study` until `trials` configs have been measured and return every result by config.
        Each trial suggests a point of the space: one that violates a constraint is `invalid`
        unmeasured, a repeated one reuses its result, any other is `measure`d (a prune may still
        reject it: `invalid`, unmeasured too). Only measured trials count against `trials`: the
        others cost no device time. A sampler that keeps suggesting such points has nothing new to
        try, so a search makes at most `trials` + the space's size trials in all. Only `ok` results
        are values; the rest end as pruned trials, which never become best. `record(trial, config,
        result)` sees every trial; `patience` counts every trial. `shared`: other processes tune
        `study` too (a farm): `trials` counts theirs as well. `objectives`: the values a trial returns
        (objectives.py; one study value each); every figure measured is the trial's `figures` user
        attribute, from which `tune` makes the Pareto front (in a farm, of every worker's trials).
        `space`: what is searched (default the tuner's; `tune` passes what its back end runs, `Space.on`).

        `tune` measures on the device; benchmarks/tuner_quality.py replays measured tables through
        this same loop, so its search-quality numbers are the tuner's."""
        import optuna

        space = space or self.space
        results: dict[Config, TrialResult] = {}

        def objective(trial: optuna.Trial) -> Union[float, tuple[float, ...]]:
            config, violated = space.suggest(trial)
            new = config not in results  # a repeated point is not run again
            if new:
                results[config] = TrialResult("invalid", violated) if violated else measure(config)
            r = results[config]
            for name, value in (("config", config.to_json()), ("status", r.status), ("reason", r.reason),
                                ("measured", new and r.status != "invalid"), ("figures", r.figures)):
                trial.set_user_attr(name, value)
            if record is not None:
                record(trial, config, r)
            if r.status != "ok":
                raise optuna.TrialPruned(f"{r.status}: {r.reason}")  # pruned trials never become best
            values = tuple(objective_value(o, r.figures) for o in objectives)
            return values[0] if len(values) == 1 else values

        study.optimize(objective, n_trials=trials + space.size, timeout=timeout,
                       callbacks=[*callbacks, _Budget(trials, shared), _Patience(patience)])
        return results

    def tune(self, grid: Grid, *args: Any, trials: int = 50, timeout: Optional[float] = None, sampler: str = "auto",
             seed: Optional[int] = None, patience: Optional[int] = None, progress: bool = False,
             storage: Optional[str] = None, heartbeat_s: int = HEARTBEAT_S, objective: Optional[Objective] = None,
             meter: Optional[meters.Meter] = None) -> Config:
        """Search configs for a launch with `args` and store every trial and the winner.

        One Optuna study per (kernel, key, objectives) in the database file, continued when it
        exists, started from `starting_configs(args)` (a neighbouring shape's winner, then the
        default config). `trials`: how many configs to measure (suggestions that a constraint or
        prune rejects, or that repeat a point, cost no device time and do not count; see `search`).
        sampler: "auto" (grid when the space has at most `trials` points, else TPE), "tpe", "grid"
        or "random" (each also searches several objectives). `timeout` bounds the whole search in
        seconds, `patience` stops it once the best (of the first objective) has not improved for
        that many trials. Raises TuningError when no config is valid.

        `objective` (default: the decorator's): "time", "energy", "edp", "contended", or several
        (objectives.py). Energy needs a power meter (`meter`, default the back end's:
        runtime/meters.py; none raises MeterUnavailableError before any tuning), `contended` a
        contention load at `contention_share` (on the GPU for CUDA, else the CPU), started here and
        stopped at the end. The winner is the best config for a single objective, the fastest of
        the Pareto front for several; for more than time the front is stored with it.

        `storage`: the URL of a shared store (`tuning_db.shared`, e.g. PostgreSQL) that holds the
        study instead of the database file, so that workers on several machines tune it together:
        `trials` is then the budget of the whole study, split between them; a worker silent for
        2 x `heartbeat_s` seconds has its trial retried by another. Trials and the winner (the
        study's best, whoever measured it) are still recorded in the database file, and the winner
        in the shared store too.
        """
        import optuna

        objectives = parse_objectives(objective) if objective is not None else self.objective
        key = self.tuning_key(args)
        study_name = key.study_name + study_suffix(objectives)
        backend = backends.resolve(getattr(self.fn, "backend", None))
        opened = meters.meter_for(backend.name) if needs_energy(objectives) and meter is None else None
        try:  # a meter opened here (an NVML handle, a powermetrics process) is closed here
            if needs_energy(objectives):
                meter = meter or opened
                if not meter.available:
                    raise meters.MeterUnavailableError(f"kernel `{self.name}`: objective {'+'.join(objectives)} measures "
                                                       f"energy, but there is no power meter: {meter.reason}")
            else:
                meter = None
            store = TuningDB(self.db_path)
            expected = as_outputs(self.reference(*args)) if self.reference is not None else None
            copies = rotating_copies(args)
            bar = Progress(trials, f"{self.name} {key.shape} {','.join(key.dtypes)}", progress)
            best_ms: list[Optional[float]] = [None]  # for the progress bar

            def record(trial: optuna.Trial, config: Config, r: TrialResult) -> None:
                store.record_trial(key, study=study_name, trial_number=trial.number, config=config.to_json(),
                                   status=r.status, reason=r.reason, time_ms=r.time_ms, max_error=r.max_error,
                                   figures={k: v for k, v in r.figures.items() if k != "time_ms"})

            def report(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
                ms = trial.user_attrs.get("figures", {}).get("time_ms")
                if ms is not None and (best_ms[0] is None or ms < best_ms[0]):
                    best_ms[0] = ms
                if trial.user_attrs.get("measured", True):  # the bar counts measured configs, as `trials` does
                    bar.update(trial.user_attrs.get("status", trial.state.name.lower()), best_ms[0])

            shared = open_storage(storage, heartbeat_s) if storage else None
            with contextlib.ExitStack() as stack:
                stack.callback(bar.close)
                load = None
                if needs_contention(objectives):
                    load = stack.enter_context(ContentionLoad(self.contention_share,
                                                              "cuda" if backend.name == "cuda" else "cpu"))
                stack.enter_context(_quiet_optuna())
                space = self.space.on(lacking(backend))  # what this back end can run
                study = self.create_study(self.make_sampler(sampler, seed, trials, space), self.starting_configs(args, store),
                                          len(objectives), space, study_name=study_name,
                                          storage=shared or store.optuna_storage())
                kernels: dict = {}  # one measurement per compiled kernel (`evaluate`)
                results = self.search(
                    study, lambda config: self.evaluate(grid, config, copies, expected, meter=meter, load=load,
                                                        kernels=kernels), trials,
                    timeout=timeout, patience=patience, record=record, callbacks=[report], shared=shared is not None,
                    objectives=objectives, space=space)
            done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
            if not done:
                counts = collections.Counter(r.status for r in results.values())
                raise errors.TuningError(
                    f"kernel `{self.name}`: no valid config for {study_name} after {len(study.trials)} trials ("
                    + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + "); see `metalforge db show " + self.name + "`")
            front = pareto_front([_point(t) for t in done], front_keys(objectives))
            point = _point(study.best_trial) if len(objectives) == 1 else front[0]
            if objectives == ("time",) and shared is None:
                point = self._confirmed(grid, point, self.default_config(args, getattr(self.fn, "backend", None)), done,
                                        copies, expected)
            winner = store.record_winner(key, config=point["config"], time_ms=point["time_ms"], trials=len(study.trials),
                                         study=study_name, front=front if objectives != ("time",) else None)
            if shared is not None:
                publish_winner(shared, winner)
            config = self._chosen(winner)
            self._cache[self._signature(args)] = (config, None)
            self._forget_launches()  # launches cached with the config this replaces
            return config
        finally:
            if opened is not None:
                opened.close()

    def check_shape(self, shape: tuple) -> None:
        """Refuse a shape `tune_args` cannot take: one whose rank differs from the standard shapes'."""
        if self.tune_args is None:
            raise errors.TuningTargetError(
                f"kernel `{self.name}` has no tune_args: pass autotune(..., tune_args=fn) where fn(shape, dtype) "
                f"returns (grid, args), to tune it from the command line")
        ranks = self.shape_ranks
        if ranks and len(shape) not in ranks:
            raise errors.TuningTargetError(
                f"kernel `{self.name}`: shape {'x'.join(map(str, shape))} has {len(shape)} dimension(s), its tune_args "
                f"takes {' or '.join(map(str, ranks))} (standard shapes: "
                f"{', '.join('x'.join(map(str, s)) for s in self.shapes)})")

    def tune_case(self, shape: tuple, dtype: mx.Dtype) -> tuple[Grid, tuple]:
        """The grid and arguments to tune for a shape (from `tune_args`)."""
        self.check_shape(shape)
        try:
            return self.tune_args(tuple(shape), dtype)
        except (TypeError, ValueError, IndexError) as e:  # a shape tune_args cannot unpack or use
            raise errors.TuningTargetError(
                f"kernel `{self.name}`: tune_args cannot build a launch for shape {'x'.join(map(str, shape))} and "
                f"{_dtype_name(dtype)}: {type(e).__name__}: {e}") from e

    def __repr__(self) -> str:
        return f"<metalforge.autotune {self.name} key={self.key}>"


def power_of_two_bucket(n: int) -> int:
    """`n` rounded up to a power of two (1 for n <= 1): a bucket for `autotune(buckets=...)`."""
    return 1 << (n - 1).bit_length() if n > 1 else 1


def autotune(configs: Optional[Sequence[Config]] = None, key: Sequence[str] = (), *,
             space: Union[Space, Mapping[str, Sequence[Any]], None] = None,
             prune: Union[Predicate, Sequence[Predicate]] = (), reference: Optional[Callable[..., Any]] = None,
             rtol: Optional[float] = None, atol: Optional[float] = None, warmup: float = 25.0, rep: float = 100.0,
             trial_timeout: float = 10.0, default: Optional[Default] = None, db: Union[str, os.PathLike, None] = None,
             tune_args: Optional[TuneArgs] = None, shapes: Sequence[tuple] = (),
             dtypes: Sequence[mx.Dtype] = (), objective: Objective = "time", contention_share: float = 0.5,
             energy_repeats: int = 3, tune_shape: Optional[TuneShape] = None,
             shape_ranks: Sequence[int] = (),
             buckets: Optional[Mapping[str, Callable[[int], int]]] = None) -> Callable[[Any], Autotuner]:
    """Decorate a launchable kernel (above `@mf.jit`) with a search space, as Triton's `autotune`.

    configs: Triton's list of `Config`s; or space: a `Space` (or a dict of parameter -> choices).
    key: argument names whose values (scalars) or shapes (arrays, placeholders) select the tuned config.
    prune: predicates `(meta, named_args) -> bool` evaluated before compiling; False skips a config.
    reference: `reference(*args)` returns the expected outputs; rtol/atol default by output dtype.
    warmup/rep: milliseconds of warm-up and of timed launches per config (median time is the score);
    trial_timeout: seconds one config may take. default: the config used untuned and tried first when
    tuning (else the space's first valid point); a Config, or `default(named_args) -> Config` for one
    that depends on the shape (only through the key's arguments: it is cached per key).
    db: tuning database file (default $METALFORGE_DB, else the cache directory).
    tune_args(shape, dtype) -> (grid, args), shapes and dtypes: what `metalforge autotune` tunes;
    shape_ranks: further shape ranks tune_args takes (besides those of `shapes`).
    tune_shape(named_args) -> shape: the inverse of tune_args, the shape that tunes a launch, which
    METALFORGE_RECORD records for `metalforge autotune --recorded` (autotune/record.py).
    buckets: key arguments (ints) mapped to a function of their value: a launch's key holds
    `bucket(value)`, so every value of a bucket runs one looked-up config and one launch function
    (a decode's key length, new at every token, rounded up to a power of two: `power_of_two_bucket`).
    objective: what `tune` minimises: "time", "energy" (joules per launch), "edp" (energy x delay),
    "contended" (time beside a contention load streaming memory `contention_share` of the time), or a
    list of them (a multi-objective search storing the Pareto front); energy_repeats: energy windows
    per config. Which tuned config a launch runs is this process's policy (`set_tuning_policy`).
    """
    if (configs is None) == (space is None):
        raise ValueError("autotune takes either configs=[Config(...), ...] or space=..., exactly one")
    searched = ConfigList(configs) if configs is not None else space if isinstance(space, Space) else Space(space)
    predicates = [prune] if callable(prune) else list(prune)

    def decorate(fn: Any) -> Autotuner:
        return Autotuner(fn, searched, key, prune=predicates, reference=reference, rtol=rtol, atol=atol,
                         warmup=warmup, rep=rep, trial_timeout=trial_timeout, default=default, db=db,
                         tune_args=tune_args, shapes=shapes, dtypes=dtypes, objective=objective,
                         contention_share=contention_share, energy_repeats=energy_repeats,
                         tune_shape=tune_shape, shape_ranks=shape_ranks, buckets=buckets)

    return decorate


class TuningReport(list):
    """Calls that ran without a config tuned for their exact key; prints as a table."""

    def __str__(self) -> str:
        if not self:
            return "every call ran with a config tuned for its exact key"
        lines = [f"{'kernel':<24} {'shape':<16} {'dtypes':<24} {'config from':<12} calls"]
        for r in self:
            lines.append(f"{r['kernel']:<24} {'x'.join(map(str, r['shape'])):<16} {','.join(r['dtypes']):<24} "
                         f"{r['source']:<12} {r['calls']}")
        return "\n".join(lines)


def tuning_report() -> TuningReport:
    """Every call (by kernel, shape key and dtypes) of this process that ran untuned, and which config
    it ran with instead: "bucket"/"family" (a neighbour's), "stale"/"default" (the kernel's default)."""
    return TuningReport(row for tuner in list(_TUNERS) for row in tuner.untuned_calls())
