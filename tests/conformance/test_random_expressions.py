"""Random float expressions over mixed element types, on Triton's interpreter and on metalforge.

Hypothesis draws an expression tree (+, -, *, /, %, minimum, maximum, where, fma, abs, negation and the
float32 math functions), the element types of its leaves (float16, bfloat16, float32, int8, uint8, int32
tiles; a float32 and an int32 runtime scalar; Python constants), the sizes and the tiles. Each op takes
its type by Triton's promotion rules, which `result_type` below restates from Triton's
`computation_type_impl` (not from metalforge's semantic.py); the kernel asserts that type statically on
both sides, so a promotion metalforge gets wrong fails to compile, and Triton's own assertion checks this
file's reading. Values are checked against float64 within a bound carried through the tree: each op
adds one rounding of its type (two for fma), each conversion of an integer to a float one rounding,
each float32 math function 16 ulp of its result (the implementations' own bounds are <= 4 ulp, and a
composite such as sigmoid rounds up to four times), and every input error is carried through the op's
derivative. Both sides must be within the bound; integer results must be exact. Triton's interpreter
gets bfloat16 arithmetic wrong (1.5 + 1.5 in bfloat16 gives inf there), so where a leaf is bfloat16
only its type assertion is used.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("torch", reason="conformance suite needs torch and triton: pip install -e '.[conformance]'")
pytest.importorskip("triton", reason="conformance suite needs torch and triton: pip install -e '.[conformance]'")

from metalforge.errors import MetalforgeError  # noqa: E402

from .harness import Out  # noqa: E402
from .mixed_expressions import EXPR, INTS, KERNEL, TYPES, Refused, evaluate, leaves, source  # noqa: E402

SETTINGS = dict(max_examples=15, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


@settings(**SETTINGS)
@given(expr=EXPR, types=TYPES, M=st.integers(1, 20),
       N=st.integers(1, 40), blocks=st.tuples(st.sampled_from([1, 2, 4, 8, 16]), st.sampled_from([1, 8, 16, 32, 64])),
       num_warps=st.sampled_from([1, 2, 4]), seed=st.integers(0, 2**32 - 1))
def test_random_mixed_float_expressions(both, expr, types, M, N, blocks, num_warps, seed):
    inputs, env = leaves(np.random.default_rng(seed), types, M, N)
    s, k = float(env["s"].v), int(env["k"].v)
    src = KERNEL.format(expr=source(expr, env))
    BM, BN = blocks
    grid = (-(-M // BM), -(-N // BN))
    # Triton's interpreter takes a float argument as a Python constant (compiled Triton makes it a float32
    # scalar, which promotes as a tile) and computes bfloat16 wrongly (1.5 + 1.5 is inf there)
    sides = [both.mf] if "bfloat16" in types or "'s'" in repr(expr) else [both.triton, both.mf]
    try:
        want = evaluate(expr, env)
    except Refused as refused:
        print(f"seed {seed}, types {types}: refused ({refused}):\n{src}")
        args = (*inputs, Out(M * N, "float32"), s, k, M, N)
        for side in sides:
            with pytest.raises(MetalforgeError if side is both.mf else Exception) as raised:
                side.run(side.define(src), grid, *args, num_warps=num_warps, BM=BM, BN=BN)
            print(f"{side.name}: {raised.value}")
        return
    args = (*inputs, Out(M * N, want.t), s, k, M, N)
    print(f"seed {seed}, types {types}, M={M} N={N}, blocks {blocks}, {num_warps} warps, result {want.t}:\n{src}")
    value = np.broadcast_to(np.asarray(want.v, np.float64), (M, N))
    err = np.broadcast_to(want.err, (M, N)) * (1 + 1e-6) + 1e-30
    for side in sides:  # Triton first: it checks this file's reading of the rules
        (got,) = side.run(side.define(src), grid, *args, num_warps=num_warps, BM=BM, BN=BN)
        got = got.reshape(M, N)
        if want.t in INTS:
            bad = got != np.broadcast_to(want.v, (M, N))
        else:
            bad = ~(np.abs(got.astype(np.float64) - value) <= err)
        assert not bad.any(), (side.name, np.argwhere(bad)[:5].tolist(), got[bad][:5], value[bad][:5], err[bad][:5])
