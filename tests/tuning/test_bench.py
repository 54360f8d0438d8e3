"""`max_error`, the tuner's check of a candidate's outputs against the reference: floating outputs are
compared in float32 where they are, integers exactly on the host."""
from __future__ import annotations

import math
import time

import mlx.core as mx
import numpy as np
import pytest

from metalforge.autotune import bench
from metalforge.autotune.bench import max_error


def test_outputs_within_the_dtype_tolerance_agree():
    want = mx.array(np.linspace(-3, 3, 1000, dtype=np.float32))
    err, reason = max_error([(want * (1 + 5e-4)).astype(mx.float16)], [want], None, None)
    assert reason is None and 0 < err < 5e-3


def test_the_first_differing_element_is_reported():
    want = np.zeros((4, 50), np.float32)
    got = mx.array(want).at[2, 7].add(0.5).at[3, 1].add(-2.0)
    err, reason = max_error([got], [want], None, None)
    assert err == 2.0
    assert reason == "output 0: 2 of 200 elements differ (first at (2, 7): 0.5 vs 0; rtol=1e-05, atol=1e-05)"


@pytest.mark.parametrize("got,want,err,agree", [
    ([1.0, math.nan], [1.0, math.nan], 0.0, True),        # NaN where the reference has NaN
    ([1.0, math.nan], [1.0, 1.0], math.inf, False),
    ([math.inf, 2.0], [math.inf, 2.0], 0.0, True),
])
def test_nan_and_inf(got, want, err, agree):
    e, reason = max_error([mx.array(got)], [np.array(want)], None, None)
    assert e == err and (reason is None) == agree


def test_integers_compare_exactly_beyond_float32_precision():
    err, reason = max_error([mx.array([16777217, 3], dtype=mx.int32)], [np.array([16777216, 3])], None, None)
    assert err == 1.0 and "1 of 2 elements differ" in reason


def test_shape_and_count_mismatches():
    assert max_error([mx.zeros((2, 3))], [np.zeros(6)], None, None) == \
        (math.inf, "output 0 has shape (2, 3), the reference (6,)")
    assert max_error([mx.zeros(2)], [], None, None)[0] == math.inf
    assert max_error([mx.zeros((0, 3))], [np.zeros((0, 3))], None, None) == (0.0, None)


@pytest.mark.parametrize("batched", [False, True])
def test_batched_timing_builds_several_launches_to_a_wait(monkeypatch, batched):
    """Where launches are lazy and run in order (CUDA), a sample builds a batch and evaluates it once
    (a wait costs as much as a small kernel); elsewhere every launch is waited for."""
    x = mx.arange(1000, dtype=mx.float32)
    monkeypatch.setattr(bench, "BATCH_MS", 1e6)  # a batch of MAX_BATCH however slow the host is
    launches, waits, real_eval = [], [], mx.eval
    monkeypatch.setattr(mx, "eval", lambda *arrays: (waits.append(1), real_eval(*arrays))[1])

    def launch(args: tuple) -> mx.array:
        launches.append(1)
        return args[0] + 1

    ms = bench.median_time_ms(launch, [(x,), (x + 1,)], warmup_ms=1, rep_ms=5, timeout_s=10, batched=batched)
    assert 0 < ms < 5
    if batched:
        assert len(launches) == 1 + bench.MAX_BATCH * (len(waits) - 1)  # the estimate, then full batches
        assert len(waits) >= 1 + 1 + bench.MIN_REPS  # the estimate, warm-up, samples
    else:
        assert len(launches) == len(waits) > bench.MIN_REPS


def test_a_sample_counts_building_the_launches():
    """Building a launch (Python, here a 5 ms sleep; MLX's CUDA back end copies and hashes the cubin)
    is part of what a launch costs, batched or not: a config whose launches are slower to build
    loses to one of equal device time."""
    x = mx.arange(1000, dtype=mx.float32)

    def slow_to_build(args: tuple) -> mx.array:
        time.sleep(0.005)
        return args[0] * 2

    single = bench.median_time_ms(slow_to_build, [(x,)], warmup_ms=1, rep_ms=1, timeout_s=10)
    batched = bench.median_time_ms(slow_to_build, [(x,)], warmup_ms=1, rep_ms=1, timeout_s=10, batched=True)
    quick = bench.median_time_ms(lambda args: args[0] * 2, [(x,)], warmup_ms=1, rep_ms=1, timeout_s=10, batched=True)
    assert single >= 5 and batched >= 5 > 1 > quick
