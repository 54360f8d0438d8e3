"""The tuning farm's test kernel (loaded by file path by `metalforge autotune` workers): the stand-in
over eight configs with one clear winner (one `good` config; the other right ones spin, many times
slower, so that timing noise on a loaded machine cannot change the winner), wrong, broken and
refused ones. With $FARM_STALL_FILE set, a worker creates that file at its first compile and then
hangs, holding its trial, until the test kills it. With $FARM_JOIN_DIR set, a worker's first trial
waits (up to a minute) until two workers are inside one, so that the study is shared out whichever
worker starts first."""
import os
import time
from pathlib import Path

from metalforge.autotune import Config, autotune
from metalforge.tests.tuning.cli_kernels import tune_args
from metalforge.tests.tuning.standin import Launchable, reference


class StallingLaunchable(Launchable):
    joined = False

    def warmup(self, *args, **kwargs) -> None:
        if os.environ.get("FARM_STALL_FILE"):
            open(os.environ["FARM_STALL_FILE"], "w").close()
            time.sleep(600)
        if os.environ.get("FARM_JOIN_DIR") and not self.joined:
            self.joined, inside = True, Path(os.environ["FARM_JOIN_DIR"])
            (inside / str(os.getpid())).touch()
            deadline = time.monotonic() + 60
            while len(list(inside.iterdir())) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
        super().warmup(*args, **kwargs)


CONFIGS = [Config({"BLOCK": 128, "VARIANT": "good"}, num_warps=2)] + \
    [Config({"BLOCK": b, "VARIANT": "slow"}, num_warps=w) for b, w in ((64, 1), (128, 2), (256, 4), (128, 1))] + \
    [Config({"BLOCK": 128, "VARIANT": "wrong"}, num_warps=2), Config({"BLOCK": 128, "VARIANT": "broken"}, num_warps=2),
     Config({"BLOCK": 128, "VARIANT": "good"}, num_warps=64)]  # 2048 threads: refused, invalid

farm = autotune(configs=CONFIGS, key=["n"], reference=reference, warmup=1, rep=3, trial_timeout=30,
                tune_args=tune_args, shapes=[(300,)])(StallingLaunchable("farm"))
