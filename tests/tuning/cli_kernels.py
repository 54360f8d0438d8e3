"""A module `metalforge autotune` can tune (the CLI tests load it by file path): one Autotuner over the
stand-in kernel, declaring its standard shapes and how to build a launch for a shape and dtype."""
import mlx.core as mx

from metalforge.autotune import Config, autotune
from metalforge.tests.tuning.standin import Empty, Launchable, reference


def tune_args(shape: tuple, dtype: mx.Dtype) -> tuple:
    (n,) = shape
    return (lambda meta: (-(-n // meta["BLOCK"]),)), (mx.random.normal((n,)).astype(dtype), Empty((n,), dtype), n)


double_plus_one = autotune(
    configs=[Config({"BLOCK": 64}, num_warps=1), Config({"BLOCK": 128}, num_warps=2),
             Config({"BLOCK": 128, "VARIANT": "wrong"}, num_warps=2)],
    key=["n"], reference=reference, warmup=1, rep=3, tune_args=tune_args, shapes=[(300,)],
)(Launchable("double_plus_one"))
