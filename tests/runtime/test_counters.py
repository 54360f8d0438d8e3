"""Counting mode (runtime/emulator/counters.py): every counter kind on small kernels whose counts are
known by construction, per threadgroup on launches with partial edge groups, checked and unchecked,
deterministic over worker counts; off by default, on with `counting()` or the environment flag."""
from __future__ import annotations

import math

import mlx.core as mx
import numpy as np
import pytest

from metalforge.env import EnvironmentVariableError
from metalforge.errors import OutOfBoundsError
from metalforge.runtime.emulator import EmulatorBackend, counters, counting
from metalforge.runtime.emulator.counters import COUNTS_ENV

from .helpers import assert_close, backend, cdiv, kernel, random_array, to_np


def run_counted(k, **call):
    """The outputs of one launch of `k` and its LaunchCounts."""
    with counting() as launches:
        out = k(**call)
    assert len(launches) == 1
    return out, launches[0]


# ---- device loads and stores by width, per threadgroup ------------------------------------------
COPY4 = """
    uint i = thread_position_in_grid.x;
    if (i < n / 4) ((device vec<T, 4>*)out)[i] = ((const device vec<T, 4>*)x)[i];
"""


@pytest.mark.parametrize("dtype, width", [(mx.float32, 16), (mx.float16, 8)])
@pytest.mark.parametrize("checked", [True, False])
def test_vector_copy_counts(rng, dtype, width, checked):
    """A 4-vector copy of n elements: n/4 loads and n/4 stores of 4 * sizeof(T) bytes; the last group is partial."""
    n, tg = 4 * 250, 64
    x = random_array(rng, (n,), dtype, -100, 100)
    k = kernel("copy4", ["x", "n"], ["out"], COPY4, backend(checked=checked))
    (out,), c = run_counted(k, inputs=[x, n], template=[("T", dtype)], grid=(n // 4, 1, 1), threadgroup=(tg, 1, 1),
                            output_shapes=[(n,)], output_dtypes=[dtype])
    np.testing.assert_array_equal(to_np(out), to_np(x))
    t = c.total
    assert t.widths("device", "load") == {width: n // 4} and t.widths("device", "store") == {width: n // 4}
    assert t.bytes("device", "load") == t.bytes("device", "store") == n * width // 4
    assert c.threadgroups == 4 and c.output_elements == n
    threads = [64, 64, 64, 250 - 3 * 64]
    assert [c.threadgroup_counts(g).accesses("device", "load") for g in range(4)] == threads
    assert [c.threadgroup_counts(g).bytes("device", "store") for g in range(4)] == [width * m for m in threads]
    # n is a 0-d input: `const constant int&`, read once per thread
    assert t.widths("constant", "load") == {4: n // 4}
    assert t.accesses("threadgroup") == 0 and not any(t.event(e) for e in ("barriers", "simd_reductions"))
    assert c.per_element()["device_load_bytes"] == width / 4
    assert c.per_threadgroup()["device_loads"] == n / 4 / 4


SCALAR_LOOP = """
    // Each thread sums `per` consecutive halves one at a time: `per` 2-byte loads, one 4-byte store.
    uint i = thread_position_in_grid.x;
    float s = 0.0f;
    for (uint j = 0; j < per; j++) s += float(x[i * per + j]);
    out[i] = s;
"""


def test_scalar_loads_in_a_loop(emu, rng):
    threads, per = 96, 5
    x = random_array(rng, (threads * per,), mx.float16)
    k = kernel("scalar_loop", ["x", "per"], ["out"], SCALAR_LOOP, emu)
    (out,), c = run_counted(k, inputs=[x, per], grid=(threads, 1, 1), threadgroup=(32, 1, 1),
                            output_shapes=[(threads,)], output_dtypes=[mx.float32])
    # fp32 sums of 5 halves in [-1, 1]: 4 roundings, each within 2^-24 of a partial sum of magnitude <= 5
    assert_close(out, to_np(x).reshape(threads, per).sum(axis=1), rtol=0, atol=4 * 5 * 2.0 ** -24)
    assert c.total.widths("device", "load") == {2: threads * per}
    assert c.total.widths("device", "store") == {4: threads}


ROWS = """
    // Threads of grid row y load y + 1 floats each: the count says which threadgroup is which.
    uint y = thread_position_in_grid.y;
    float s = 0.0f;
    for (uint j = 0; j <= y; j++) s += x[j];
    out[y * threads_per_grid.x + thread_position_in_grid.x] = s;
"""


def test_threadgroups_of_a_2d_grid_in_order(emu, rng):
    """Rows of counters are in threadgroup order, x fastest: group (gx, gy) is row gx + 2 gy."""
    x = random_array(rng, (8,), mx.float32)  # 8 elements: a device buffer (MLX passes fewer as constant)
    k = kernel("rows", ["x"], ["out"], ROWS, emu)
    (out,), c = run_counted(k, inputs=[x], grid=(64, 3, 1), threadgroup=(32, 1, 1), output_shapes=[(3, 64)],
                            output_dtypes=[mx.float32])
    # fp32 prefix sums of at most 3 values in [-1, 1]: within 3 * 2^-24 * 3 of float64
    assert_close(out, np.repeat(np.cumsum(to_np(x))[:3, None], 64, axis=1), rtol=0, atol=9 * 2.0 ** -24)
    assert c.threadgroups == 6
    assert [c.threadgroup_counts(gx + 2 * gy).accesses("device", "load") for gy in range(3) for gx in range(2)] == \
        [32 * (gy + 1) for gy in range(3) for _ in range(2)]


# ---- threadgroup memory and barriers -------------------------------------------------------------
TREE = """
    threadgroup float buf[N];
    uint lid = thread_position_in_threadgroup.x;
    buf[lid] = x[thread_position_in_grid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = N / 2; s > 0; s >>= 1) {
        if (lid < s) buf[lid] += buf[lid + s];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (lid == 0) out[threadgroup_position_in_grid.x] = buf[0];
"""


def test_threadgroup_memory_and_barriers(emulator, rng):
    """A tree sum of N = 64 per group: N + (N - 1) threadgroup stores, 2 (N - 1) + 1 loads, 1 + log2 N barriers."""
    groups, tg = 5, 64
    x = random_array(rng, (groups * tg,), mx.float32)
    k = kernel("tree", ["x"], ["out"], TREE, emulator)
    (out,), c = run_counted(k, inputs=[x], template=[("N", tg)], grid=(groups * tg, 1, 1), threadgroup=(tg, 1, 1),
                            output_shapes=[(groups,)], output_dtypes=[mx.float32])
    assert_close(out, to_np(x).reshape(groups, tg).sum(axis=1), rtol=1e-5, atol=1e-4 * math.sqrt(tg))
    for g in range(groups):
        one = c.threadgroup_counts(g)
        assert one.widths("threadgroup", "store") == {4: 2 * tg - 1}
        assert one.widths("threadgroup", "load") == {4: 2 * (tg - 1) + 1}
        assert one.bytes("threadgroup") == 4 * (4 * tg - 2)
        assert one.event("barriers") == 1 + int(math.log2(tg))
        assert one.accesses("device", "load") == tg and one.accesses("device", "store") == 1
    assert c.per_threadgroup()["barriers"] == 1 + math.log2(tg)
    assert c.per_element()["device_load_bytes"] == 4 * tg


# ---- simd shuffles and reductions: once per simdgroup, partial simdgroups included ---------------
SIMD = """
    uint i = thread_position_in_grid.x;
    float v = x[i];
    float total = simd_sum(v);                     // reduction
    float biggest = simd_max(v);                   // reduction
    float swapped = simd_shuffle_xor(v, 1);        // shuffle
    float first = simd_broadcast_first(v);         // shuffle
    simdgroup_barrier(mem_flags::mem_none);
    out[i] = total + biggest + swapped + first;
"""


def test_simd_operations(emulator, rng):
    """Groups of 48 threads: a full and a partial simdgroup, each counting every simd call once."""
    tg, groups = 48, 3
    n = tg * groups - 20  # the last group has 28 threads: one partial simdgroup
    x = random_array(rng, (n,), mx.float32)
    k = kernel("simd_ops", ["x"], ["out"], SIMD, emulator)
    (out,), c = run_counted(k, inputs=[x], grid=(n, 1, 1), threadgroup=(tg, 1, 1), output_shapes=[(n,)],
                            output_dtypes=[mx.float32])
    assert np.all(np.isfinite(to_np(out)))
    simdgroups = [2, 2, 1]
    for g, s in enumerate(simdgroups):
        one = c.threadgroup_counts(g)
        assert (one.event("simd_reductions"), one.event("simd_shuffles"), one.event("simdgroup_barriers")) == \
            (2 * s, 2 * s, s)
        assert one.event("barriers") == 0
    assert c.total.event("simd_reductions") == 2 * sum(simdgroups)


# ---- simdgroup matrices ----------------------------------------------------------------------------
MMA = """
    // Each simdgroup: C (8x8) = A B + A B over two K steps of 8, from device memory.
    uint sg = simdgroup_index_in_threadgroup + threadgroup_position_in_grid.x * simdgroups_per_threadgroup;
    simdgroup_float8x8 a, b, acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (int k = 0; k < 16; k += 8) {
        simdgroup_load(a, A + sg * 128 + k, 16);
        simdgroup_load(b, B + sg * 128 + k * 8, 8);
        simdgroup_multiply_accumulate(acc, a, b, acc);
    }
    simdgroup_store(acc, C + sg * 64, 8);
"""


def test_simdgroup_matrix_operations(emu, rng):
    """Per simdgroup: 4 matrix loads, 2 multiply-accumulates, 1 store; each lane moves two elements
    per matrix as scalar accesses (4 x 64 loads, 64 stores of 4 bytes)."""
    groups, per_group = 2, 2  # 2 threadgroups of 2 simdgroups
    sgs = groups * per_group
    a = random_array(rng, (sgs, 8, 16), mx.float32)
    b = random_array(rng, (sgs, 16, 8), mx.float32)
    k = kernel("mma", ["A", "B"], ["C"], MMA, emu)
    (out,), c = run_counted(k, inputs=[a, b], grid=(sgs * 32, 1, 1), threadgroup=(per_group * 32, 1, 1),
                            output_shapes=[(sgs, 8, 8)], output_dtypes=[mx.float32])
    # fp32 products of values in [-1, 1] (16 roundings, <= 2^-24 each) summed in fp32 (16 roundings of partial
    # sums of magnitude <= 16, <= 16 * 2^-24 each)
    assert_close(out, to_np(a) @ to_np(b), rtol=0, atol=(16 + 16 * 16) * 2.0 ** -24)
    for g in range(groups):
        one = c.threadgroup_counts(g)
        assert (one.event("matrix_loads"), one.event("matrix_mmas"), one.event("matrix_stores")) == \
            (4 * per_group, 2 * per_group, per_group)
        assert one.widths("device", "load") == {4: 4 * 64 * per_group}
        assert one.widths("device", "store") == {4: 64 * per_group}
    assert c.per_element()["matrix_mmas"] == 2 / 64


# ---- atomics -----------------------------------------------------------------------------------------
ATOMICS = """
    threadgroup atomic<uint> local[1];
    uint lid = thread_position_in_threadgroup.x;
    if (lid == 0) atomic_store_explicit(&local[0], 0u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    atomic_fetch_add_explicit(&local[0], x[thread_position_in_grid.x], memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0) atomic_fetch_add_explicit(&total[0], atomic_load_explicit(&local[0], memory_order_relaxed),
                                            memory_order_relaxed);
"""


def test_atomics(emu, rng):
    """Per group of m threads: m + 2 threadgroup atomics (store, m adds, load), 1 device atomic."""
    n, tg = 200, 64
    x = random_array(rng, (n,), mx.uint32, 0, 1000)
    k = kernel("atomics", ["x"], ["total"], ATOMICS, emu, atomic_outputs=True)
    (out,), c = run_counted(k, inputs=[x], grid=(n, 1, 1), threadgroup=(tg, 1, 1), output_shapes=[(1,)],
                            output_dtypes=[mx.uint32], init_value=0)
    assert int(to_np(out)[0]) == int(to_np(x).sum())
    sizes = [64, 64, 64, 8]
    for g, m in enumerate(sizes):
        one = c.threadgroup_counts(g)
        assert (one.event("threadgroup_atomics"), one.event("device_atomics"), one.event("barriers")) == (m + 2, 1, 2)
        assert one.accesses("device", "store") == 0  # atomics are not counted as plain accesses
    assert c.total.event("device_atomics") == 4


# ---- determinism, off by default, the environment flag ----------------------------------------------
def test_counts_are_deterministic_across_workers(rng):
    x = random_array(rng, (5 * 64,), mx.float32)
    rows = []
    for workers in (1, 2):
        be = EmulatorBackend(workers=workers)
        k = kernel("tree", ["x"], ["out"], TREE, be)
        _, c = run_counted(k, inputs=[x], template=[("N", 64)], grid=(5 * 64, 1, 1), threadgroup=(64, 1, 1),
                           output_shapes=[(5,)], output_dtypes=[mx.float32])
        rows.append(c.groups)
    np.testing.assert_array_equal(rows[0], rows[1])


def test_off_by_default_and_nested_blocks(rng):
    """Outside `counting()` nothing is recorded and the kernel is compiled without counters; nested
    blocks both see the launches made inside the inner one."""
    be = EmulatorBackend()
    x = random_array(rng, (64,), mx.float32)
    k = kernel("copy4", ["x", "n"], ["out"], COPY4, be)
    call = dict(inputs=[x, 64], template=[("T", mx.float32)], grid=(16, 1, 1), threadgroup=(16, 1, 1),
                output_shapes=[(64,)], output_dtypes=[mx.float32])
    k(**call)
    (plain,) = be._cache.values()
    assert not hasattr(plain.library, "mfemu_take_counts")
    with counting() as outer:
        with counting() as inner:
            k(**call)
        k(**call)
    assert len(inner) == 1 and len(outer) == 2
    assert {key[-1] for key in be._cache} == {False, True}  # the counting variant is a separate library
    k(**call)
    assert len(outer) == 2


def test_environment_flag(monkeypatch, capsys, rng):
    monkeypatch.setenv(COUNTS_ENV, "1")
    x = random_array(rng, (64,), mx.float32)
    k = kernel("copy4", ["x", "n"], ["out"], COPY4, backend())
    k(inputs=[x, 64], template=[("T", mx.float32)], grid=(16, 1, 1), threadgroup=(16, 1, 1), output_shapes=[(64,)],
      output_dtypes=[mx.float32])
    err = capsys.readouterr().err
    assert "[metalforge counts] metal_kernel 'copy4'" in err and "device 16 loads / 256 B" in err


def test_bad_environment_flag(monkeypatch):
    monkeypatch.setenv(COUNTS_ENV, "maybe")
    with pytest.raises(EnvironmentVariableError, match=COUNTS_ENV):
        counters.active()


def test_failed_launch_leaves_no_counts(emu, rng):
    """A launch that fails records nothing, and the next launch of the same kernel counts from zero."""
    src = "uint i = thread_position_in_grid.x; out[i] = x[i + shift];"
    x = random_array(rng, (64,), mx.float32)
    k = kernel("shifted", ["x", "shift"], ["out"], src, emu)
    call = dict(grid=(64, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(64,)], output_dtypes=[mx.float32])
    with counting() as launches:
        with pytest.raises(OutOfBoundsError):
            k(inputs=[x, 1], **call)
        k(inputs=[x, 0], **call)
    assert len(launches) == 1
    assert launches[0].total.widths("device", "load") == {4: 64}


def test_unknown_counter_names_are_refused():
    c = counters.Counts(np.zeros(counters.COUNTERS, np.uint64))
    with pytest.raises(ValueError, match="spaces .*'device'.* not 'global'/'load'"):
        c.widths("global")
    with pytest.raises(ValueError, match="not 'device'/'read'"):
        c.bytes("device", "read")
    with pytest.raises(ValueError, match="no event counter 'barrier'; the events counted are barriers"):
        c.event("barrier")
