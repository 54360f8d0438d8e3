"""Fixtures for the Triton conformance suite: both sides, and `both.check` / `both.raises`.

Triton's interpreter needs TRITON_INTERPRET=1 *before* triton is imported (triton.language's own
@jit helpers are decorated at import). It is set here for that import only and restored at once;
the harness sets it again around each Triton decoration and launch, so it never leaks into the
rest of the test session. If torch/triton are absent (the `conformance` extra is not installed),
the import fails quietly here and the test module skips with the reason.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

_old = os.environ.get("TRITON_INTERPRET")
os.environ["TRITON_INTERPRET"] = "1"
try:
    import torch  # noqa: F401
    import triton  # noqa: F401
except ImportError:
    pass
finally:
    if _old is None:
        del os.environ["TRITON_INTERPRET"]
    else:
        os.environ["TRITON_INTERPRET"] = _old

from .harness import CONFORMANCE_BACKEND, MetalforgeSide, TritonSide, compare  # noqa: E402


class Both:
    """Run a kernel of kernels.py on Triton's interpreter and on metalforge and compare."""

    def __init__(self, triton_side: TritonSide, mf_side: MetalforgeSide) -> None:
        self.triton, self.mf = triton_side, mf_side

    def check(self, kernel: str, grid, args: tuple, want: list[np.ndarray], *, consts: dict | None = None,
              rtol: float = 0.0, atol: float = 0.0, num_warps: int = 4) -> list[np.ndarray]:
        """Triton must match numpy (else the test's reference is wrong), then metalforge must match Triton.
        A `None` in `want` skips that output (where the interpreter's values are not Triton's)."""
        consts = consts or {}
        tri = self.triton.run(kernel, grid, *args, num_warps=num_warps, **consts)
        assert len(tri) == len(want)
        for i, (t, w) in enumerate(zip(tri, want)):
            if w is not None:
                compare(t, w, f"{kernel} output {i}: Triton vs numpy (the test's reference)", rtol, atol)
        for schedule in ("forward", "reverse"):  # threads first-to-last and last-to-first: barriers matter
            ours = self.mf.run(kernel, grid, *args, num_warps=num_warps, schedule=schedule, **consts)
            for i, (m, t, w) in enumerate(zip(ours, tri, want)):
                if w is not None:
                    compare(m, t, f"{kernel} output {i}: metalforge ({schedule} schedule) vs Triton", rtol, atol)
        return ours

    def raises(self, kernel: str, grid, args: tuple, *, consts: dict | None = None) -> tuple[Exception, Exception]:
        """Both sides must reject the kernel: Triton's interpreter raises while tracing it, metalforge
        with one of its compile-time errors (a MetalforgeError naming the kernel). Returns both."""
        from metalforge.errors import MetalforgeError

        consts = consts or {}
        with pytest.raises(Exception) as tri:
            self.triton.run(kernel, grid, *args, **consts)
        with pytest.raises(MetalforgeError) as ours:
            self.mf.run(kernel, grid, *args, **consts)
        assert kernel in str(ours.value), str(ours.value)
        print(f"Triton: {tri.value!r}\nmetalforge: {ours.value}")
        return tri.value, ours.value


@pytest.fixture(scope="session")
def both() -> Both:
    from metalforge.runtime.emulator import EmulatorBackend

    if not os.environ.get(CONFORMANCE_BACKEND) and not EmulatorBackend.available():
        pytest.skip("metalforge's emulator needs clang++ >= 17")
    return Both(TritonSide(), MetalforgeSide())
