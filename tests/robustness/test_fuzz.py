"""Property: whatever a small kernel does with its launch arguments (read any offset, divide by any
value, any grid and threadgroup), the outcome is the exact result or a MetalforgeError, never
another exception, a signal or a hang (issue #19)."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from metalforge.errors import KernelRuntimeError, LaunchConfigError, OutOfBoundsError
from metalforge.runtime import metal_kernel

from ..runtime.helpers import backend

N = 64
# Each kernel: thread i reads x at i + off[0] and combines it with d[i % 8]; in Python the same.
KERNELS = {
    "add": ("out[i] = x[i + off[0]] + d[i % 8];", lambda a, b: a + b),
    "div": ("out[i] = x[i + off[0]] / d[i % 8];", lambda a, b: int(np.fix(a / b)) if b else None),
    "rem": ("out[i] = x[i + off[0]] % d[i % 8];", lambda a, b: int(np.fmod(a, b)) if b else None),
    "store": ("out[i + off[0]] = x[i] + d[i % 8];", None),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(KERNELS)), threads=st.integers(0, 2 * N), group=st.integers(1, 1100),
       offset=st.integers(-10**6, 10**6) | st.integers(-3, 3),
       divisors=st.lists(st.integers(-2, 2), min_size=8, max_size=8),
       values=st.lists(st.integers(-100, 100), min_size=N, max_size=N))
def test_any_launch_is_exact_or_a_metalforge_error(kind, threads, group, offset, divisors, values):
    source, combine = KERNELS[kind]
    k = metal_kernel(f"fuzz_{kind}", ["x", "off", "d"], ["out"], "int i = int(thread_position_in_grid.x);\n" + source,
                     backend=backend())
    x, d = np.array(values, np.int32), np.array(divisors, np.int32)
    call = dict(inputs=[mx.array(x), mx.array([offset], dtype=mx.int32), mx.array(d)], grid=(threads, 1, 1),
                threadgroup=(group, 1, 1), output_shapes=[(N,)], output_dtypes=[mx.int32], init_value=-7)
    expected, possible = np.full(N, -7, np.int64), set()  # threads run in any order: any of their errors
    if group > 1024:
        possible.add(LaunchConfigError)
    for i in range(threads if not possible else 0):
        if not 0 <= i + offset < N or i >= N:
            possible.add(OutOfBoundsError)
        elif kind == "store":
            expected[i + offset] = x[i] + d[i % 8]
        else:
            value = combine(int(x[i + offset]), int(d[i % 8]))
            if value is None:
                possible.add(KernelRuntimeError)
            else:
                expected[i] = value
    if possible:
        try:
            k(**call)
        except tuple(possible):
            return
        raise AssertionError(f"expected one of {sorted(e.__name__ for e in possible)}")
    np.testing.assert_array_equal(np.array(k(**call)[0]), expected)
