"""What the autotuner searches: Triton's `Config` list, or a `Space` of named parameters with constraints."""
from __future__ import annotations

import itertools
import math
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

from ..codegen.target import FEATURE_SETTINGS as TARGET_FEATURES

# meta values that are launch settings, not constexprs
LAUNCH_PARAMS = ("num_warps", "num_stages", "warps_m", "matmul2d", "wgmma")
FEATURE_SETTINGS = tuple(name for name, *_ in TARGET_FEATURES)  # those that switch on a feature a back end may lack


class Config:
    """One point of the search: constexpr values (`kwargs`) and launch settings, as in Triton.

    `pre_hook(named_args)` runs before each launch with this config (Triton's contract; it receives
    the launch's arguments by name merged with the config's meta values). `warps_m` (metalforge's,
    not Triton's) arranges the simdgroups over `tl.dot` results: that many along M, the rest along
    N; None leaves it to the compiler (the longer side first). `matmul2d=True` (also metalforge's)
    multiplies `tl.dot` tiles with Metal 4's cooperative matmul, `wgmma=True` with Hopper's warpgroup
    MMA; a back end without it rejects the config (the tuner records it as invalid).
    """

    def __init__(self, kwargs: Mapping[str, Any], num_warps: int = 4, num_stages: int = 1,
                 pre_hook: Optional[Callable[[dict], None]] = None, warps_m: Optional[int] = None,
                 matmul2d: bool = False, wgmma: bool = False) -> None:
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.warps_m = warps_m
        self.matmul2d = matmul2d
        self.wgmma = wgmma
        self.pre_hook = pre_hook

    def all_kwargs(self) -> dict[str, Any]:
        """The meta values a launch takes: constexprs plus `num_warps`/`num_stages` (and `warps_m`,
        `matmul2d`, `wgmma` when set)."""
        return {**self.kwargs, **self._launch()}

    def _launch(self) -> dict[str, Any]:
        launch = {"num_warps": self.num_warps, "num_stages": self.num_stages}
        if self.warps_m is not None:
            launch["warps_m"] = self.warps_m
        if self.matmul2d:
            launch["matmul2d"] = True
        if self.wgmma:
            launch["wgmma"] = True
        return launch

    def to_json(self) -> dict[str, Any]:
        return {"kwargs": dict(sorted(self.kwargs.items())), **self._launch()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Config":
        return cls(data["kwargs"], data.get("num_warps", 4), data.get("num_stages", 1),
                   warps_m=data.get("warps_m"), matmul2d=data.get("matmul2d", False), wgmma=data.get("wgmma", False))

    @classmethod
    def from_point(cls, point: Mapping[str, Any]) -> "Config":
        """A config from a flat dict where `num_warps`/`num_stages` sit among the constexprs."""
        launch = {k: point[k] for k in LAUNCH_PARAMS if k in point}
        return cls({k: v for k, v in point.items() if k not in LAUNCH_PARAMS}, **launch)

    def _key(self) -> tuple:
        return (tuple(sorted(self.kwargs.items())), self.num_warps, self.num_stages, self.warps_m, self.matmul2d,
                self.wgmma)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        items = ", ".join(f"{k}: {v!r}" for k, v in self.all_kwargs().items())
        return f"Config({{{items}}})"


def pow2(low: int, high: int) -> list[int]:
    """The powers of two from `low` to `high` inclusive (both rounded into the range)."""
    return [1 << e for e in range(math.ceil(math.log2(low)), math.floor(math.log2(high)) + 1)]


class Space:
    """Named parameters, each a list of choices (`pow2(lo, hi)` for powers of two), and constraints:
    predicates on the flat parameter dict that a point must satisfy to be compiled at all, e.g.
    `lambda c: c["BLOCK_M"] * c["BLOCK_K"] * 2 <= 32768` (threadgroup memory). `num_warps`,
    `num_stages`, `warps_m`, `matmul2d` and `wgmma` may be parameters; they become the config's launch settings."""

    def __init__(self, params: Mapping[str, Sequence[Any]],
                 constraints: Sequence[Callable[[dict], bool]] = ()) -> None:
        if not params:
            raise ValueError("a search space needs at least one parameter")
        self.params = {name: list(values) for name, values in params.items()}
        empty = [name for name, values in self.params.items() if not values]
        if empty:
            raise ValueError(f"search-space parameter(s) without choices: {', '.join(empty)}")
        self.constraints = list(constraints)

    @property
    def size(self) -> int:
        return math.prod(len(v) for v in self.params.values())

    def grid(self) -> dict[str, list]:
        """The space as Optuna's GridSampler takes it."""
        return self.params

    def suggest(self, trial) -> tuple[Config, Optional[str]]:
        """Sample a point through an Optuna trial: the config and, when a constraint rejects it, why."""
        point = {name: trial.suggest_categorical(name, values) for name, values in self.params.items()}
        return Config.from_point(point), self.violated(point)

    def violated(self, point: Mapping[str, Any]) -> Optional[str]:
        for i, check in enumerate(self.constraints):
            if not check(dict(point)):
                return f"violates constraint {getattr(check, '__name__', i)}"
        return None

    def points(self) -> Iterator[dict]:
        for values in itertools.product(*self.params.values()):
            yield dict(zip(self.params, values))

    def point_of(self, config: Config) -> Optional[dict]:
        """The point of this space that is `config` (None when the space does not contain it)."""
        return next((p for p in self.points() if Config.from_point(p) == config), None)

    def on(self, lacks: Callable[[str], object]) -> "Space":
        """The space a back end runs: without the choices that switch on a launch setting it lacks
        (`lacks(setting)` true: `wgmma` on Metal, `matmul2d` on CUDA), so that a search spends no
        trial on a config the back end refuses. A parameter left with no choice keeps them all (the
        launch then says why none runs)."""
        params = {name: [v for v in values if not (name in FEATURE_SETTINGS and v is True and lacks(name))] or values
                  for name, values in self.params.items()}
        return self if params == self.params else Space(params, self.constraints)

    def default(self) -> Config:
        """The first point (in declaration order) that satisfies every constraint."""
        for point in self.points():
            if self.violated(point) is None:
                return Config.from_point(point)
        raise ValueError("no point of the search space satisfies its constraints")


class ConfigList(Space):
    """Triton's form: an explicit list of configs, searched as one categorical parameter (its index)."""

    def __init__(self, configs: Sequence[Config]) -> None:
        if not configs:
            raise ValueError("autotune needs at least one Config")
        self.configs = list(configs)
        super().__init__({"config": list(range(len(self.configs)))})

    def suggest(self, trial) -> tuple[Config, Optional[str]]:
        return self.configs[trial.suggest_categorical("config", self.params["config"])], None

    def point_of(self, config: Config) -> Optional[dict]:
        return {"config": self.configs.index(config)} if config in self.configs else None

    def on(self, lacks: Callable[[str], object]) -> "Space":
        kept = [c for c in self.configs if not any(getattr(c, s) and lacks(s) for s in FEATURE_SETTINGS)]
        return self if len(kept) in (0, len(self.configs)) else ConfigList(kept)

    def default(self) -> Config:
        return self.configs[0]
