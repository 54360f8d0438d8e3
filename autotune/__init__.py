"""metalforge.autotune: Triton-compatible `autotune`/`Config`, an Optuna search per kernel and key, and
tuned configs looked up at run time from `metalforge.tuning_db`."""
from .space import Config, Space, pow2
from .tuner import (Autotuner, TrialResult, TuningReport, autotune, power_of_two_bucket, set_tuning_policy, tuning_policy,
                    tuning_report)

__all__ = ["Autotuner", "Config", "Space", "TrialResult", "TuningReport", "autotune", "pow2", "power_of_two_bucket",
           "set_tuning_policy", "tuning_policy", "tuning_report"]
