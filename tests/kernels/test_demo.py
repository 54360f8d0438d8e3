"""`metalforge demo`'s verdict on a kernel's result: the tuner's own tolerance (relative and
absolute), which every config passed while tuning. An absolute bound alone failed the demo at
random: qmv_swiglu's fp16 outputs reach the thousands, where one unit in the last place is 1 or more."""
from __future__ import annotations

import types

import mlx.core as mx
import pytest

from metalforge.kernels.demo import checked

TUNER = types.SimpleNamespace(rtol=1e-2, atol=1e-2)  # the quantized kernels' tolerances


@pytest.mark.parametrize("got, want, good", [
    ([2049.0, 3.0], [2048.0, 3.0], True),      # one fp16 ulp at 2048: within rtol
    ([2100.0, 3.0], [2048.0, 3.0], False),     # 2.5%: beyond it
    ([0.0, 3.0], [0.0095, 3.0], True),         # near zero: within atol
    ([0.0, 3.0], [0.03, 3.0], False),          # beyond atol + rtol * 0.03
])
def test_the_demo_checks_with_the_tuners_tolerance(got, want, good):
    error, ok = checked(TUNER, mx.array(got, mx.float16), mx.array(want, mx.float32))
    assert ok is good and error == pytest.approx(abs(float(mx.array(got, mx.float16)[0].item()) - want[0]), rel=1e-6)


def test_the_demo_checks_every_output_and_its_shape():
    good = (mx.ones(3), mx.zeros(2))
    assert checked(TUNER, good, good) == (0.0, True)
    assert not checked(TUNER, (mx.ones(3), mx.ones(2)), good)[1]  # the second output is wrong
    assert not checked(TUNER, (mx.ones(3), mx.zeros(3)), good)[1]  # a shape that differs
