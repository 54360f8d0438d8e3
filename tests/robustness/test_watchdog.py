"""A kernel that never ends stops (issue #19: it hung the process and the tuner, SIGINT was ignored,
and the tuner's time limit was only measured after the launch returned, leaving a RUNNING trial).

The emulator's watchdog stops a launch past its limit with a KernelTimeoutError naming the kernel
and the loop, Ctrl-C stops it with KeyboardInterrupt, the tuner's per-trial limit stops a trial and
marks it `timeout`, and a config that faults is a `runtime_error`: neither ends the search.
"""
from __future__ import annotations

import json
import os
import signal
import threading
import time

import mlx.core as mx
import numpy as np
import optuna
import pytest

from metalforge.autotune import Config, autotune
from metalforge.env import EnvironmentVariableError
from metalforge.errors import KernelCompileError, KernelTimeoutError
from metalforge.runtime import metal_kernel
from metalforge.runtime.emulator import EmulatorBackend
from metalforge.tuning_db import TuningDB

from ..tuning import standin

pytestmark = pytest.mark.serial  # timed against the wall clock or a CPU share (pyproject's markers)

LIMIT_S = 0.5
# Thread 1 never leaves its loop (k * 2 + 1 never reaches 3 from 2); the others end.
SPIN = "uint i = thread_position_in_grid.x;\nint k = a[i];\nwhile (k != 3) { k = k * 2 + 1; }\nout[i] = k;"
EMPTY_LOOP = "uint i = thread_position_in_grid.x;\nif (a[i] == 2) { for (;;) {} }\nout[i] = a[i];"


def launch(source: str, be: EmulatorBackend, values=(1, 2, 3, 1)) -> np.ndarray:
    k = metal_kernel("spin", ["a"], ["out"], source, backend=be)
    n = len(values)
    out = k(inputs=[mx.array(values, dtype=mx.int32)], grid=(n, 1, 1), threadgroup=(n, 1, 1),
            output_shapes=[(n,)], output_dtypes=[mx.int32])[0]
    return np.array(out)


@pytest.mark.parametrize("checked, where", [(True, r"in the loop at line 3 of the kernel source \(`while \(k != 3\).*`\)"), (False, "in a loop")])
def test_an_endless_loop_is_stopped_by_the_watchdog(checked, where):
    be = EmulatorBackend(checked=checked, timeout=LIMIT_S)
    launch(SPIN, be, (1, 3))  # compiles outside the timed part
    start = time.perf_counter()
    with pytest.raises(KernelTimeoutError, match=rf"'spin': ran longer than the emulator's watchdog limit of 0.5 s "
                                                 rf"and was stopped {where} by thread \(1, 0, 0\) of the grid.*"
                                                 r"METALFORGE_EMULATOR_TIMEOUT"):
        launch(SPIN, be)
    assert time.perf_counter() - start < LIMIT_S + 2
    assert list(launch(SPIN, be, (1, 3))) == [3, 3]  # the next launch runs normally


def test_a_loop_without_effects_is_not_assumed_to_end():
    # C++ lets the optimiser delete a loop that never ends and does nothing: the kernel would
    # silently finish; on the emulator it hangs, and the watchdog reports it
    with pytest.raises(KernelTimeoutError, match=r"'spin': ran longer"):
        launch(EMPTY_LOOP, EmulatorBackend(timeout=LIMIT_S))


def test_the_watchdog_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("METALFORGE_EMULATOR_TIMEOUT", "0.25")
    assert EmulatorBackend().timeout == 0.25
    for bad in ("abc", "-1", "inf"):
        monkeypatch.setenv("METALFORGE_EMULATOR_TIMEOUT", bad)
        with pytest.raises(EnvironmentVariableError, match=rf"METALFORGE_EMULATOR_TIMEOUT='{bad}': use a number of "
                                                           r"seconds >= 0 \(0: no limit\)"):
            EmulatorBackend()
    with pytest.raises(ValueError, match="emulator timeout must be a number of seconds >= 0"):
        EmulatorBackend(timeout=-2)


@pytest.fixture
def interrupt_soon():
    """`interrupt_soon(handler)`: SIGINT's Python handler set to `handler` for the test, and a SIGINT
    sent to this process 0.3 s later. Afterwards the timer is cancelled and joined (its SIGINT must
    not reach a later test, where it would end the session) and the handler before restored. A
    process started in the background by a non-interactive shell (`cmd &`, as some CI runners do)
    starts with SIGINT ignored, and Python then keeps it ignored: hence the handler set here."""
    before, timers = signal.getsignal(signal.SIGINT), []

    def start(handler) -> None:
        signal.signal(signal.SIGINT, handler)
        timers.append(threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)))
        timers[-1].start()
    yield start
    for timer in timers:
        timer.cancel()
        timer.join()
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_stops_a_running_kernel(interrupt_soon):
    be = EmulatorBackend(timeout=30)  # a safety net: SIGINT must stop it long before
    launch(SPIN, be, (1, 3))
    start = time.perf_counter()
    interrupt_soon(signal.default_int_handler)
    with pytest.raises(KeyboardInterrupt):
        launch(SPIN, be)
    assert time.perf_counter() - start < 5
    assert list(launch(SPIN, be, (1, 3))) == [3, 3]


@pytest.mark.parametrize("handler", ["ignored", "own"])
def test_ctrl_c_leaves_a_kernel_running_where_python_would_not_raise(interrupt_soon, handler):
    # SIGINT ignored, or handled by the program's own handler: Python raises no KeyboardInterrupt,
    # so the kernel is not stopped either (the watchdog still is); the program's handler runs
    seen = []
    be = EmulatorBackend(timeout=1)
    launch(SPIN, be, (1, 3))
    interrupt_soon(signal.SIG_IGN if handler == "ignored" else lambda *_: seen.append(1))
    try:
        with pytest.raises(KernelTimeoutError, match="'spin': ran longer than the emulator's watchdog limit of 1 s"):
            launch(SPIN, be)
    except KeyboardInterrupt:
        pytest.fail("SIGINT stopped the kernel with KeyboardInterrupt although Python's handler was not installed")
    assert seen == ([] if handler == "ignored" else [1])


def test_a_compile_past_its_time_limit_says_which_step_is_slow(monkeypatch):
    be = EmulatorBackend()
    launch(SPIN, be, (1, 3))  # the runtime library is built
    monkeypatch.setenv("METALFORGE_COMPILE_TIMEOUT", "0.001")
    fresh = SPIN + f"\n// {time.time_ns()}"  # never cached
    with pytest.raises(KernelCompileError, match=r"'spin': clang's front end took longer than 0.001 s on \d+ lines of "
                                                 r"Metal source.*METALFORGE_COMPILE_TIMEOUT"):
        launch(fresh, be, (1, 3))


def test_the_tuner_survives_a_hung_and_a_crashing_config(tmp_path, monkeypatch):
    db_path = tmp_path / "tuning.sqlite"
    monkeypatch.setenv("METALFORGE_DB", str(db_path))
    configs = [Config({"BLOCK": 64, "VARIANT": "hang"}, num_warps=1),
               Config({"BLOCK": 64, "VARIANT": "crash"}, num_warps=1),
               Config({"BLOCK": 64, "VARIANT": "good"}, num_warps=1),
               Config({"BLOCK": 128, "VARIANT": "good"}, num_warps=2)]
    be = EmulatorBackend(checked=False)  # the crash is a real segmentation fault, caught by the runtime
    tuned = autotune(configs=configs, key=["n"], reference=standin.reference, warmup=1, rep=3,
                     trial_timeout=LIMIT_S)(standin.Launchable("hung", be))
    best = tuned.tune(standin.grid, *standin.args(), trials=len(configs), sampler="grid", seed=1)
    assert best.kwargs["VARIANT"] == "good"
    trials = {json.loads(t["config"])["kwargs"]["VARIANT"] + str(json.loads(t["config"])["num_warps"]): t
              for t in TuningDB(db_path).trials("hung")}
    assert trials["hang1"]["status"] == "timeout" and "the trial time limit of 0.5 s" in trials["hang1"]["reason"]
    assert trials["crash1"]["status"] == "runtime_error" and "invalid memory access" in trials["crash1"]["reason"]
    assert trials["good1"]["status"] == trials["good2"]["status"] == "ok"
    study = optuna.load_study(study_name=tuned.tuning_key(standin.args()).study_name,
                              storage=TuningDB(db_path).optuna_storage())
    assert {t.state for t in study.trials} <= {optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED}
