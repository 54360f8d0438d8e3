"""simdgroup functions (32 lanes): reductions, scans, shuffles and votes, including partial
simdgroups at the edge of a grid, whose missing lanes take no part."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

from metalforge.errors import SimdDivergenceError

from .helpers import assert_close, cdiv, kernel, random_array, to_np

TG = 256

# ---- 3. simd_sum reduction over partial edge groups ------------------------------------------------
SIMD_REDUCE = """
    threadgroup T partial[8];
    T v = x[thread_position_in_grid.x];
    T s = simd_sum(v);
    if (thread_index_in_simdgroup == 0) partial[simdgroup_index_in_threadgroup] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (thread_index_in_threadgroup == 0) {
        T total = T(0);
        for (uint k = 0; k < simdgroups_per_threadgroup; ++k) total += partial[k];
        out[threadgroup_position_in_grid.x] = total;
    }
"""


def block_view(a: np.ndarray, block: int) -> list[np.ndarray]:
    return [a[i:i + block] for i in range(0, len(a), block)]


@pytest.mark.parametrize("n", [1000, 4097, 31, 256])
@pytest.mark.parametrize("dtype", [mx.float32, mx.int32])
def test_simd_sum_partial_groups(emulator, rng, n, dtype):
    x = random_array(rng, (n,), dtype, -100, 100)
    k = kernel("simd_reduce", ["x"], ["out"], SIMD_REDUCE, emulator)
    out = k(inputs=[x], template=[("T", dtype)], grid=(n, 1, 1), threadgroup=(TG, 1, 1),
            output_shapes=[(cdiv(n, TG),)], output_dtypes=[dtype])[0]
    expected = [b.sum() for b in block_view(to_np(x), TG)]
    if dtype == mx.int32:
        np.testing.assert_array_equal(to_np(out), expected)
    else:
        assert_close(out, expected, rtol=1e-5, atol=1e-3)


# ---- 4. prefix sums ---------------------------------------------------------------------------------
SIMD_SCANS = """
    uint i = thread_position_in_grid.x;
    T v = x[i];
    excl[i] = simd_prefix_exclusive_sum(v);
    incl[i] = simd_prefix_inclusive_sum(v);
    excl_p[i] = simd_prefix_exclusive_product(v);
"""


@pytest.mark.parametrize("n, tg", [(1000, 256), (77, 64), (45, 45)])
def test_simd_prefix_sums(emulator, rng, n, tg):
    x = random_array(rng, (n,), mx.int32, -9, 10)
    k = kernel("simd_scans", ["x"], ["excl", "incl", "excl_p"], SIMD_SCANS, emulator)
    excl, incl, excl_p = k(inputs=[x], template=[("T", mx.int32)], grid=(n, 1, 1), threadgroup=(tg, 1, 1),
                           output_shapes=[(n,)] * 3, output_dtypes=[mx.int32] * 3)
    xs = to_np(x, np.int64)
    e_ex, e_in, e_pr = (np.empty(n, np.int64) for _ in range(3))
    for g in range(0, n, tg):           # threadgroups
        for s in range(g, min(g + tg, n), 32):  # simdgroups (the last may be partial)
            chunk = xs[s:min(s + 32, g + tg, n)]
            c = np.cumsum(chunk)
            e_in[s:s + len(chunk)] = c
            e_ex[s:s + len(chunk)] = c - chunk
            e_pr[s:s + len(chunk)] = np.concatenate([[1], np.cumprod(chunk)[:-1]]).astype(np.int64)
    np.testing.assert_array_equal(to_np(excl, np.int64), e_ex)
    np.testing.assert_array_equal(to_np(incl, np.int64), e_in)
    np.testing.assert_array_equal(to_np(excl_p, np.int64), e_pr.astype(np.int32).astype(np.int64))


BLOCK_SCAN = """
    // Inclusive scan of each threadgroup's block: scan in simdgroups, scan the simdgroup totals,
    // add the offsets.
    threadgroup T totals[32];
    uint i = thread_position_in_grid.x;
    uint lane = thread_index_in_simdgroup;
    uint sg = simdgroup_index_in_threadgroup;
    T v = x[i];
    T inc = simd_prefix_inclusive_sum(v);
    T total = simd_sum(v);
    if (lane == 0) totals[sg] = total;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg == 0) {
        uint nsg = simdgroups_per_threadgroup;
        T t = lane < nsg ? totals[lane] : T(0);
        T offset = simd_prefix_exclusive_sum(t);
        if (lane < nsg) totals[lane] = offset;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[i] = inc + totals[sg];
"""


@pytest.mark.parametrize("n, tg", [(1000, 256), (4097, 256), (77, 256), (333, 96)])
@pytest.mark.parametrize("dtype", [mx.int32, mx.float32])
def test_block_scan(emulator, rng, n, tg, dtype):
    x = random_array(rng, (n,), dtype, -20, 20)
    k = kernel("block_scan", ["x"], ["out"], BLOCK_SCAN, emulator)
    out = k(inputs=[x], template=[("T", dtype)], grid=(n, 1, 1), threadgroup=(tg, 1, 1),
            output_shapes=[(n,)], output_dtypes=[dtype])[0]
    expected = np.concatenate([np.cumsum(b) for b in block_view(to_np(x), tg)])
    if dtype == mx.int32:
        np.testing.assert_array_equal(to_np(out), expected)
    else:
        assert_close(out, expected, rtol=1e-5, atol=1e-3)


# ---- 14. shuffles, broadcasts, votes and min/max ------------------------------------------------------
SHUFFLES = """
    uint i = thread_position_in_grid.x;
    uint lane = thread_index_in_simdgroup;
    int v = x[i];
    int r[9];
    r[0] = simd_shuffle_down(v, ushort(3));
    r[1] = simd_shuffle_up(v, ushort(5));
    r[2] = simd_shuffle_xor(v, ushort(6));
    r[3] = simd_broadcast(v, ushort(2));
    r[4] = simd_shuffle(v, ushort((lane * 7 + 3) % 32));
    r[5] = simd_max(v);
    r[6] = simd_min(v);
    r[7] = int(uint(simd_vote::vote_t(simd_ballot(v > 0))));
    r[8] = int(uint(simd_vote::vote_t(simd_ballot(true))));
    for (int k = 0; k < 9; ++k) out[i * 9 + k] = r[k];
    lane_out[i] = lane;
"""


@pytest.mark.parametrize("n, tg", [(77, 64), (50, 50), (13, 32)])
def test_simd_shuffles_and_votes(emulator, rng, n, tg):
    x = random_array(rng, (n,), mx.int32, -1000, 1000)
    k = kernel("shuffles", ["x"], ["out", "lane_out"], SHUFFLES, emulator)
    out, lanes = k(inputs=[x], grid=(n, 1, 1), threadgroup=(tg, 1, 1), output_shapes=[(n, 9), (n,)],
                   output_dtypes=[mx.int32, mx.int32])
    xs = to_np(x, np.int64)
    got = to_np(out, np.int64)
    checked = 0
    for g in range(0, n, tg):
        for s in range(g, min(g + tg, n), 32):
            vals = xs[s:min(s + 32, g + tg, n)]
            active = len(vals)          # lanes past a partial simdgroup's end are inactive
            for lane in range(active):
                row = got[s + lane]
                assert to_np(lanes, np.int64)[s + lane] == lane

                def src(j, default_if_outside=True):
                    """The value read from lane j: own value when j is outside the simdgroup
                    (shuffle_up/down edges are unchanged); None (undefined) when j is inactive."""
                    if j < 0 or j >= 32:
                        return vals[lane]
                    return vals[j] if j < active else None
                expected = [src(lane + 3), src(lane - 5), src(lane ^ 6), src(2), src((lane * 7 + 3) % 32),
                            vals.max(), vals.min(),
                            sum(1 << j for j in range(active) if vals[j] > 0),
                            (1 << active) - 1]
                for c, e in enumerate(expected):
                    if e is None:
                        continue  # reading an inactive lane is undefined in Metal
                    e = int(np.int64(e).astype(np.uint32).astype(np.int32))
                    assert row[c] == e, f"lane {lane} of simdgroup at {s}, column {c}: {row[c]} != {e}"
                    checked += 1
    assert checked > 5 * n


def test_simd_functions_skip_returned_lanes(emulator, rng):
    """Lanes that returned are inactive: simd_sum and the ballot see only the others."""
    src = """
        uint i = thread_position_in_grid.x;
        if (x[i] < 0) return;
        out[i] = simd_sum(x[i]);
        mask[i] = uint(simd_vote::vote_t(simd_active_threads_mask()));
    """
    n = 64
    xs = rng.integers(-5, 6, size=n)
    k = kernel("returned_lanes", ["x"], ["out", "mask"], src, emulator)
    out, mask = k(inputs=[mx.array(xs).astype(mx.int32)], grid=(n, 1, 1), threadgroup=(64, 1, 1),
                  output_shapes=[(n,), (n,)], output_dtypes=[mx.int32, mx.uint32])
    o, m = to_np(out, np.int64), to_np(mask, np.int64)
    for s in range(0, n, 32):
        v = xs[s:s + 32]
        live = v >= 0
        exp_mask = sum(1 << j for j in range(32) if live[j])
        for lane in range(32):
            if live[lane]:
                assert o[s + lane] == v[live].sum()
                assert m[s + lane] == exp_mask
            else:
                assert o[s + lane] == -1 and m[s + lane] == 0xFFFFFFFF  # untouched: poisoned


def test_divergent_simd_calls_are_reported(emu):
    src = """
        uint lane = thread_index_in_simdgroup;
        float s;
        if (lane < 16) s = simd_sum(x[lane]);
        else s = simd_max(x[lane]);
        out[lane] = s;
    """
    k = kernel("simd_diverge", ["x"], ["out"], src, emu)
    with pytest.raises(SimdDivergenceError, match="simd_diverge"):
        k(inputs=[mx.zeros((32,))], grid=(32, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(32,)],
          output_dtypes=[mx.float32])
