"""Helpers for the emulator tests of metalforge.runtime (fixtures are in conftest.py)."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

from metalforge.runtime import metal_kernel
from metalforge.runtime.emulator import EmulatorBackend

SCHEDULES = ("forward", "reverse")
_BACKENDS: dict = {}


def backend(schedule: str = "forward", checked: bool = True) -> EmulatorBackend:
    """One shared back end per configuration, so compiled kernels are reused within the session."""
    key = (schedule, checked)
    if key not in _BACKENDS:
        if not EmulatorBackend.available():
            pytest.skip("the emulator needs clang++ >= 17")
        _BACKENDS[key] = EmulatorBackend(checked=checked, schedule=schedule, workers=0)
    return _BACKENDS[key]


def kernel(name, inputs, outputs, source, be, **kw):
    return metal_kernel(name, inputs, outputs, source, backend=be, **kw)


def to_np(a: mx.array, dtype=np.float64) -> np.ndarray:
    """An mx.array's values as numpy (bfloat16 via float32)."""
    if a.dtype == mx.bfloat16:
        a = a.astype(mx.float32)
    return np.array(a).astype(dtype)


def round_bf16(x) -> np.ndarray:
    """float64 values rounded to the nearest bfloat16 (ties to even), as float64."""
    x = np.asarray(x, np.float64)
    m, e = np.frexp(x)
    return np.ldexp(np.rint(m * 256.0), e - 8)


def round_to(x, dtype) -> np.ndarray:
    """float64 values rounded to `dtype` (an mx float dtype), as float64."""
    if dtype == mx.bfloat16:
        return round_bf16(x)
    np_dtype = {mx.float16: np.float16, mx.float32: np.float32}[dtype]
    return np.asarray(x, np.float64).astype(np_dtype).astype(np.float64)


def random_array(rng: np.random.Generator, shape, dtype, low=-1.0, high=1.0) -> mx.array:
    """Uniform random values already representable in `dtype`."""
    if dtype in (mx.int32, mx.uint32, mx.int64, mx.uint8, mx.int8, mx.int16, mx.uint16):
        return mx.array(rng.integers(int(low), int(high), size=shape)).astype(dtype)
    vals = rng.uniform(low, high, size=shape)
    return mx.array(vals.astype(np.float32)).astype(dtype)


def assert_close(actual, expected, rtol, atol, what=""):
    actual = to_np(actual) if isinstance(actual, mx.array) else np.asarray(actual, np.float64)
    expected = np.asarray(expected, np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert np.all(np.isfinite(actual)), f"{what}: {np.sum(~np.isfinite(actual))} non-finite (poisoned?) values"
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)
