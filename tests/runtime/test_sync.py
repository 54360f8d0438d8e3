"""Threadgroup memory and barriers: tree reductions under both schedules, missing-barrier races,
and barriers that not every thread reaches."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import mlx.core as mx
import numpy as np
import pytest

from metalforge.errors import BarrierError

from .helpers import SCHEDULES, assert_close, backend, cdiv, kernel, random_array, to_np

# ---- 2. threadgroup tree reduction --------------------------------------------------------------------
TREE_PARTIAL = """
    // Edge groups are partial: only threads_per_threadgroup.x slots are written.
    threadgroup float buf[N];
    uint lid = thread_position_in_threadgroup.x;
    uint cnt = threads_per_threadgroup.x;
    buf[lid] = x[thread_position_in_grid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = N / 2; s > 0; s >>= 1) {
        if (lid < s && lid + s < cnt) buf[lid] += buf[lid + s];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (lid == 0) out[threadgroup_position_in_grid.x] = buf[0];
"""
TREE_PADDED = """
    // The grid is rounded up to whole groups; threads past the input contribute 0.
    threadgroup float buf[N];
    uint lid = thread_position_in_threadgroup.x;
    uint i = thread_position_in_grid.x;
    buf[lid] = i < uint(x_shape[0]) ? x[i] : 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = N / 2; s > 0; s >>= 1) {
        if (lid < s) buf[lid] += buf[lid + s];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (lid == 0) out[threadgroup_position_in_grid.x] = buf[0];
"""


@pytest.mark.parametrize("variant", ["partial", "padded"])
@pytest.mark.parametrize("n, tg", [(1000, 128), (4097, 256), (37, 64), (512, 32)])
def test_tree_reduction(emulator, rng, variant, n, tg):
    x = random_array(rng, (n,), mx.float32, -10, 10)
    src = TREE_PARTIAL if variant == "partial" else TREE_PADDED
    grid = n if variant == "partial" else cdiv(n, tg) * tg
    k = kernel("tree_" + variant, ["x"], ["out"], src, emulator)
    out = k(inputs=[x], template=[("N", tg)], grid=(grid, 1, 1), threadgroup=(tg, 1, 1),
            output_shapes=[(cdiv(n, tg),)], output_dtypes=[mx.float32])[0]
    xs = to_np(x)
    expected = [xs[i:i + tg].sum() for i in range(0, n, tg)]
    assert_close(out, expected, rtol=1e-5, atol=1e-4 * np.sqrt(tg), what=f"{emulator.schedule} schedule")


# ---- 15. missing barrier: the reverse schedule exposes it -------------------------------------------
RACE = """
    // Adjacent difference within a threadgroup through threadgroup memory.
    threadgroup float buf[64];
    uint lid = thread_position_in_threadgroup.x;
    uint i = thread_position_in_grid.x;
    buf[lid] = x[i];
    BARRIER_A
    float left = lid > 0 ? buf[lid - 1] : 0.0f;
    BARRIER_B
    out[i] = x[i] - left;
"""
BARRIER = "threadgroup_barrier(mem_flags::mem_threadgroup);"


def _race_expected(xs: np.ndarray, tg: int) -> np.ndarray:
    left = np.concatenate([[0.0], xs[:-1]])
    left[::tg] = 0.0
    return xs - left


def test_missing_barrier_is_exposed_by_a_schedule(rng):
    n, tg = 200, 64
    x = random_array(rng, (n,), mx.float32, 1, 2)  # no zeros: a stale 0 read differs too
    expected = _race_expected(to_np(x), tg)
    racy = RACE.replace("BARRIER_A", "").replace("BARRIER_B", BARRIER)  # barrier in the wrong place
    fixed = RACE.replace("BARRIER_A", BARRIER).replace("BARRIER_B", BARRIER)
    wrong = []
    for schedule in SCHEDULES:
        be = backend(schedule)
        call = dict(inputs=[x], grid=(n, 1, 1), threadgroup=(tg, 1, 1), output_shapes=[(n,)],
                    output_dtypes=[mx.float32])
        good = kernel("adjdiff", ["x"], ["out"], fixed, be)(**call)[0]
        np.testing.assert_allclose(to_np(good), expected, rtol=1e-6, err_msg=f"{schedule}: with the barrier")
        bad = to_np(kernel("adjdiff_racy", ["x"], ["out"], racy, be)(**call)[0])
        if not np.allclose(bad, expected, rtol=1e-6):
            wrong.append(schedule)
    assert wrong, "neither schedule exposed the missing barrier"
    assert "reverse" in wrong  # threads resumed last-to-first read slots not yet written


# ---- 9. divergent barriers ----------------------------------------------------------------------------
DIVERGENT = {
    "subset": """
        uint lid = thread_position_in_threadgroup.x;
        if (lid < 16) threadgroup_barrier(mem_flags::mem_threadgroup);
        out[thread_position_in_grid.x] = x[thread_position_in_grid.x];
    """,
    "early_return": """
        uint i = thread_position_in_grid.x;
        if (x[i] > 0.5f) return;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        out[i] = x[i];
    """,
    "two_sites": """
        uint lid = thread_position_in_threadgroup.x;
        if (lid % 2 == 0) {
            threadgroup_barrier(mem_flags::mem_threadgroup);
        } else {
            threadgroup_barrier(mem_flags::mem_device);
        }
        out[thread_position_in_grid.x] = x[thread_position_in_grid.x];
    """,
    "loop_count": """
        uint lid = thread_position_in_threadgroup.x;
        for (uint k = 0; k < 1 + lid % 3; ++k) threadgroup_barrier(mem_flags::mem_threadgroup);
        out[thread_position_in_grid.x] = x[thread_position_in_grid.x];
    """,
}


@pytest.mark.parametrize("case", list(DIVERGENT))
def test_divergent_barrier_raises(emulator, rng, case):
    n = 96
    xs = rng.uniform(0, 1, n).astype(np.float32)
    xs[0], xs[1] = 0.9, 0.1  # early_return: some threads return, others wait
    name = f"divergent_{case}"
    k = kernel(name, ["x"], ["out"], DIVERGENT[case], emulator)
    with pytest.raises(BarrierError) as info:
        k(inputs=[mx.array(xs)], grid=(n, 1, 1), threadgroup=(64, 1, 1), output_shapes=[(n,)],
          output_dtypes=[mx.float32])
    message = str(info.value)
    assert f"'{name}'" in message
    assert "threadgroup_barrier" in message
    # The emulator keeps working after the error.
    ok = kernel("after_barrier_error", ["x"], ["out"],
                "out[thread_position_in_grid.x] = 2 * x[thread_position_in_grid.x];", emulator)
    y = ok(inputs=[mx.array(xs)], grid=(n, 1, 1), threadgroup=(64, 1, 1), output_shapes=[(n,)],
           output_dtypes=[mx.float32])[0]
    np.testing.assert_array_equal(to_np(y), 2 * xs.astype(np.float64))


def test_uniform_early_return_of_a_whole_group_is_fine(emulator, rng):
    """A barrier skipped by every thread of a group (here: a whole group returns) is not divergent."""
    src = """
        if (threadgroup_position_in_grid.x == 1) return;
        threadgroup float buf[32];
        uint lid = thread_position_in_threadgroup.x;
        buf[lid] = x[thread_position_in_grid.x];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        out[thread_position_in_grid.x] = buf[(lid + 1) % threads_per_threadgroup.x];
    """
    n, tg = 80, 32
    xs = rng.standard_normal(n).astype(np.float32)
    k = kernel("uniform_return", ["x"], ["out"], src, emulator)
    out = to_np(k(inputs=[mx.array(xs)], grid=(n, 1, 1), threadgroup=(tg, 1, 1), output_shapes=[(n,)],
                  output_dtypes=[mx.float32])[0])
    for g in (0, 2):
        block = xs[g * tg:(g + 1) * tg]
        np.testing.assert_array_equal(out[g * tg:g * tg + len(block)], np.roll(block, -1))
    assert np.all(np.isnan(out[tg:2 * tg]))


def test_threadgroup_memory_starts_poisoned():
    """Threadgroup memory is uninitialised on Metal; the emulator fills it with 0xFF (NaN), also in
    the first threadgroup a fresh worker thread runs (checked in a new process)."""
    script = textwrap.dedent("""
        import mlx.core as mx, numpy as np
        from metalforge.runtime import metal_kernel
        from metalforge.runtime.emulator import EmulatorBackend
        src = '''
            threadgroup float buf[64];
            uint lid = thread_position_in_threadgroup.x;
            threadgroup_barrier(mem_flags::mem_threadgroup);
            out[thread_position_in_grid.x] = buf[lid];
        '''
        k = metal_kernel("uninit_tg", ["x"], ["out"], src, backend=EmulatorBackend(workers=1))
        out = k(inputs=[mx.zeros((1,))], grid=(128, 1, 1), threadgroup=(64, 1, 1), output_shapes=[(128,)],
                output_dtypes=[mx.float32])[0]
        print(int(np.isnan(np.array(out)).sum()))
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "128", f"{r.stdout.strip()} of 128 reads of uninitialised threadgroup memory were NaN"
