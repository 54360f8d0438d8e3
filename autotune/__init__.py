"""metalforge.autotune: Triton-compatible `autotune`/`Config`, an Optuna search per kernel and key, and
tuned configs looked up at run time from `metalforge.tuning_db`."""
from .space import Config, Space, pow2
from .tuner import Autotuner, TrialResult, TuningReport, autotune, tuning_report

__all__ = ["Autotuner", "Config", "Space", "TrialResult", "TuningReport", "autotune", "pow2", "tuning_report"]
