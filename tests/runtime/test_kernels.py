"""Kernels in the style of MLX's custom-kernel documentation, run on the emulator and compared
with independent references (numpy in float64, or exact rounding models) on fresh random inputs."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

from metalforge.errors import OutOfBoundsError

from .helpers import assert_close, cdiv, kernel, random_array, round_bf16, round_to, to_np

FLOATS = [mx.float32, mx.float16, mx.bfloat16]
# Relative precision of each type (half an ulp at 1).
EPS = {mx.float32: 2.0 ** -24, mx.float16: 2.0 ** -11, mx.bfloat16: 2.0 ** -8}

# ---- 1. elementwise exp through elem_to_loc on non-contiguous inputs ------------------------------
EXP_SOURCE = """
    uint elem = thread_position_in_grid.x;
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    T tmp = inp[loc];
    out[elem] = metal::exp(tmp);
"""

VIEWS = {
    "transposed": lambda a: a.reshape(13, 37).T,                      # (37, 13)
    "sliced": lambda a: a.reshape(37, 13)[1::3, 2:11],                 # (12, 9), offset start
    "reversed": lambda a: a.reshape(13, 37)[::-1, ::2],                # negative stride (64-bit loc)
    "3d-permuted": lambda a: a[: 5 * 7 * 13].reshape(5, 7, 13).transpose(2, 0, 1)[:, 1:, ::2],
    "broadcast": lambda a: mx.broadcast_to(a[:13].reshape(1, 13), (7, 13)),  # stride 0
}


@pytest.mark.parametrize("dtype", [mx.float32, mx.float16])
@pytest.mark.parametrize("view", list(VIEWS))
def test_exp_elem_to_loc_noncontiguous(emu, rng, dtype, view):
    base = random_array(rng, (13 * 37,), dtype, -3.0, 3.0)
    inp = VIEWS[view](base)
    host = np.asarray(inp)
    assert not host.flags["C_CONTIGUOUS"], "the view must not be row-contiguous"
    source = EXP_SOURCE
    if view == "reversed":  # a negative stride needs a signed location: uint would wrap
        source = source.replace("uint loc = elem_to_loc(", "int64_t loc = elem_to_loc<int64_t>(")
    k = kernel("myexp", ["inp"], ["out"], source, emu, ensure_row_contiguous=False)
    out = k(inputs=[inp], template=[("T", dtype)], grid=(inp.size, 1, 1), threadgroup=(64, 1, 1),
            output_shapes=[inp.shape], output_dtypes=[dtype])[0]
    expected = np.exp(to_np(inp))
    assert out.dtype == dtype and out.shape == inp.shape
    # Metal's safe-math exp is within 4 ulp in float; in half the rounding of the result dominates.
    assert_close(out, expected, rtol=2.0 ** -21 if dtype == mx.float32 else 2.0 ** -10, atol=0,
                 what=f"exp {view}")


def test_negative_stride_with_uint_location_is_caught(emu, rng):
    """The documentation's `uint loc` wraps for a negative stride: on Metal a wild read, here an error."""
    inp = VIEWS["reversed"](random_array(rng, (13 * 37,), mx.float32))
    k = kernel("myexp", ["inp"], ["out"], EXP_SOURCE, emu, ensure_row_contiguous=False)
    with pytest.raises(OutOfBoundsError, match="myexp"):
        k(inputs=[inp], template=[("T", mx.float32)], grid=(inp.size, 1, 1), threadgroup=(64, 1, 1),
          output_shapes=[inp.shape], output_dtypes=[mx.float32])


def test_strides_passed_are_the_views_strides(emu, rng):
    """ensure_row_contiguous=False hands over the view as it is, with its own strides."""
    src = """
        uint i = thread_position_in_grid.x;
        if (i < uint(x_ndim)) { shp[i] = x_shape[i]; str[i] = x_strides[i]; }
    """
    base = random_array(rng, (5, 7, 11), mx.float32)
    x = base.transpose(2, 0, 1)[::2, 1:, ::-3]
    k = kernel("strides", ["x"], ["shp", "str"], src, emu, ensure_row_contiguous=False)
    shp, st = k(inputs=[x], grid=(3, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(3,), (3,)],
                output_dtypes=[mx.int32, mx.int64])
    host = np.asarray(x)
    assert to_np(shp, np.int64).tolist() == list(x.shape)
    assert to_np(st, np.int64).tolist() == [s // 4 for s in host.strides]
    # With the default (ensure_row_contiguous=True) the kernel sees a row-contiguous copy.
    k2 = kernel("strides", ["x"], ["shp", "str"], src, emu)
    _, st2 = k2(inputs=[x], grid=(3, 1, 1), threadgroup=(32, 1, 1), output_shapes=[(3,), (3,)],
                output_dtypes=[mx.int32, mx.int64])
    assert to_np(st2, np.int64).tolist() == [x.shape[1] * x.shape[2], x.shape[2], 1]


# ---- 7. half and bfloat16 arithmetic: every operation rounds to the type ------------------------
AXPB = """
    uint i = thread_position_in_grid.x;
    out[i] = x[i] * a[i] + b[i];
"""


@pytest.mark.parametrize("dtype", [mx.float16, mx.bfloat16, mx.float32])
@pytest.mark.parametrize("n", [1, 333])
def test_axpb_in_input_type(emu, rng, dtype, n):
    x, a, b = (random_array(rng, (n,), dtype, -4, 4) for _ in range(3))
    k = kernel("axpb", ["x", "a", "b"], ["out"], AXPB, emu)
    out = k(inputs=[x, a, b], grid=(n, 1, 1), threadgroup=(128, 1, 1), output_shapes=[(n,)],
            output_dtypes=[dtype])[0]
    assert out.dtype == dtype
    # The product and the sum are each rounded to the type (exact in float64 before rounding).
    expected = round_to(round_to(to_np(x) * to_np(a), dtype) + to_np(b), dtype)
    np.testing.assert_array_equal(to_np(out), expected)
    # mlx.core's own ops in the same dtype round the same way.
    np.testing.assert_array_equal(to_np(out), to_np(x * a + b))


HALF_ACC = """
    uint i = thread_position_in_grid.x;
    T acc = T(0);
    for (int k = 0; k < L; ++k) acc += x[i * L + k];
    out[i] = acc;
"""


@pytest.mark.parametrize("dtype", [mx.float16, mx.bfloat16])
def test_reduced_precision_accumulation_rounds_each_step(emu, rng, dtype):
    rows, length = 61, 48
    x = random_array(rng, (rows, length), dtype, 0.0, 3.0)
    k = kernel("hacc", ["x"], ["out"], HALF_ACC, emu)
    out = k(inputs=[x], template=[("T", dtype), ("L", length)], grid=(rows, 1, 1), threadgroup=(32, 1, 1),
            output_shapes=[(rows,)], output_dtypes=[dtype])[0]
    xs = to_np(x)
    acc = np.zeros(rows)
    for j in range(length):
        acc = round_to(acc + xs[:, j], dtype)
    np.testing.assert_array_equal(to_np(out), acc)
    # Accumulating in float (excess precision) would differ: the test can tell them apart.
    wide = round_to(xs.sum(axis=1), dtype)
    assert np.any(wide != acc)


def test_half_literals_and_conversions(emu, rng):
    src = """
        uint i = thread_position_in_grid.x;
        half h = x[i];
        half third = 1.0h / 3.0h;
        out[i] = float(h * third + 0.5h);
        raw[i] = as_type<ushort>(third);
        bf[i] = float(bfloat(x[i]));
    """
    n = 45
    x = random_array(rng, (n,), mx.float32, -100, 100)
    k = kernel("hlit", ["x"], ["out", "raw", "bf"], src, emu)
    out, raw, bf = k(inputs=[x], grid=(n, 1, 1), threadgroup=(16, 1, 1), output_shapes=[(n,)] * 3,
                     output_dtypes=[mx.float32, mx.uint16, mx.float32])
    third = float(np.float16(1) / np.float16(3))
    h = round_to(to_np(x), mx.float16)
    expected = round_to(round_to(h * third, mx.float16) + 0.5, mx.float16)
    np.testing.assert_array_equal(to_np(out), expected)
    assert set(to_np(raw, np.int64).tolist()) == {int(np.float16(third).view(np.uint16))}
    np.testing.assert_array_equal(to_np(bf), round_bf16(to_np(x)))


# ---- 8. template arguments -------------------------------------------------------------------------
TEMPLATED = """
    uint i = thread_position_in_grid.x;
    T acc = T(0);
    for (int k = 0; k < N; ++k) acc += x[i * N + k];
    if (B) { out[i] = acc; } else { out[i] = -acc; }
"""


@pytest.mark.parametrize("dtype", [mx.float32, mx.float16, mx.int32])
@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("flag", [True, False])
def test_template_kernel(emu, rng, dtype, n, flag):
    rows = 37
    x = random_array(rng, (rows, n), dtype, -50, 50)
    k = kernel("templated", ["x"], ["out"], TEMPLATED, emu)
    tmpl = [("T", dtype), ("N", n), ("B", flag)]
    out = k(inputs=[x], template=tmpl, grid=(rows, 1, 1), threadgroup=(16, 1, 1), output_shapes=[(rows,)],
            output_dtypes=[dtype])[0]
    assert out.dtype == dtype
    xs = to_np(x)
    if dtype == mx.float16:
        acc = np.zeros(rows)
        for j in range(n):
            acc = round_to(acc + xs[:, j], dtype)
    else:
        acc = xs.sum(axis=1)
    expected = acc if flag else -acc
    if dtype == mx.float32:
        assert_close(out, expected, rtol=1e-6, atol=1e-4)
    else:
        np.testing.assert_array_equal(to_np(out), expected)
    g = k.generate([x], [dtype], tmpl)
    assert g.template_def.endswith(", 1>" if flag else ", 0>")


# ---- 5. GEMM with simdgroup matrices -----------------------------------------------------------------
GEMM = """
    // C[M, N] = A[M, K] @ B[K, N]; one 16x16 tile per threadgroup of four simdgroups (2x2 of 8x8).
    threadgroup T As[16 * 8];
    threadgroup T Bs[8 * 16];
    threadgroup T Cs[16 * 16];
    uint tid = thread_index_in_threadgroup;
    uint sg = simdgroup_index_in_threadgroup;
    uint tm = threadgroup_position_in_grid.y * 16;
    uint tn = threadgroup_position_in_grid.x * 16;
    simdgroup_matrix<T, 8, 8> acc = make_filled_simdgroup_matrix<T, 8, 8>(T(0));
    simdgroup_matrix<T, 8, 8> a;
    simdgroup_matrix<T, 8, 8> b;
    for (uint k0 = 0; k0 < K; k0 += 8) {
        uint ar = tid / 8, ac = tid % 8;
        As[tid] = (tm + ar < M && k0 + ac < K) ? A[(tm + ar) * K + k0 + ac] : T(0);
        uint br = tid / 16, bc = tid % 16;
        Bs[tid] = (k0 + br < K && tn + bc < N) ? B[(k0 + br) * N + tn + bc] : T(0);
        threadgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_load(a, As + (sg / 2) * 64, 8);
        simdgroup_load(b, Bs + (sg % 2) * 8, 16);
        simdgroup_multiply_accumulate(acc, a, b, acc);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    simdgroup_store(acc, Cs + (sg / 2) * 8 * 16 + (sg % 2) * 8, 16);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint e = tid; e < 256; e += 128) {
        uint r = e / 16, c = e % 16;
        if (tm + r < M && tn + c < N) C[(tm + r) * N + tn + c] = Cs[e];
    }
"""


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mnk", [(37, 29, 45), (8, 8, 8), (1, 17, 3)])
def test_simdgroup_gemm(emulator, rng, dtype, mnk):
    m, n, kk = mnk
    a = random_array(rng, (m, kk), dtype)
    b = random_array(rng, (kk, n), dtype)
    k = kernel("sg_gemm", ["A", "B"], ["C"], GEMM, emulator)
    c = k(inputs=[a, b], template=[("T", dtype), ("M", m), ("N", n), ("K", kk)],
          grid=(128 * cdiv(n, 16), cdiv(m, 16), 1), threadgroup=(128, 1, 1), output_shapes=[(m, n)],
          output_dtypes=[dtype])[0]
    expected = to_np(a) @ to_np(b)
    # Accumulation in T: one rounding per 8-wide k step (plus the output rounding).
    steps = cdiv(kk, 8)
    tol = EPS[dtype] * 2 * (steps + 1) * np.abs(to_np(a)) @ np.abs(to_np(b)) + 1e-6
    actual = to_np(c)
    assert np.all(np.isfinite(actual)), "unwritten (poisoned) outputs"
    err = np.abs(actual - expected)
    assert np.all(err <= tol), f"max error {err.max()} (tolerance {tol[err.argmax() // n, err.argmax() % n]})"


FRAGMENT = """
    uint lane = thread_index_in_simdgroup;
    simdgroup_matrix<T, 8, 8> m;
    simdgroup_load(m, src, 8);
    elems[2 * lane] = m.thread_elements()[0];
    elems[2 * lane + 1] = m.thread_elements()[1];
    // The other way: set each lane's elements and store.
    simdgroup_matrix<T, 8, 8> w;
    w.thread_elements()[0] = T(lane * 2);
    w.thread_elements()[1] = T(lane * 2 + 1);
    simdgroup_store(w, stored, 8);
    // Loading with an origin (column, row) inside a wider matrix, and transposed.
    simdgroup_matrix<T, 8, 8> o;
    simdgroup_load(o, big, 12, ulong2(3, 5), false);
    simdgroup_store(o, window, 8);
    simdgroup_matrix<T, 8, 8> t;
    simdgroup_load(t, src, 8, ulong2(0, 0), true);
    simdgroup_store(t, transposed, 8);
"""


def fragment_coords(lane: int) -> tuple[int, list[int]]:
    q = lane // 4
    row = (q & 4) + (lane // 2) % 4
    col = (q & 2) * 2 + (lane % 2) * 2
    return row, [col, col + 1]


def test_documented_fragment_layout():
    cells = {(r, c) for lane in range(32) for r, cs in [fragment_coords(lane)] for c in cs}
    assert cells == {(r, c) for r in range(8) for c in range(8)}  # a bijection onto the 8x8 matrix


@pytest.mark.parametrize("dtype", FLOATS)
def test_thread_elements_layout(emu, rng, dtype):
    src = mx.array(rng.permutation(64).reshape(8, 8).astype(np.float32)).astype(dtype)
    big = mx.array(rng.permutation(16 * 12).reshape(16, 12).astype(np.float32) / 4).astype(dtype)
    k = kernel("fragments", ["src", "big"], ["elems", "stored", "window", "transposed"], FRAGMENT, emu)
    elems, stored, window, transposed = k(
        inputs=[src, big], template=[("T", dtype)], grid=(32, 1, 1), threadgroup=(32, 1, 1),
        output_shapes=[(64,), (8, 8), (8, 8), (8, 8)], output_dtypes=[dtype] * 4)
    s = to_np(src)
    expected_elems = np.empty(64)
    expected_stored = np.full((8, 8), np.nan)
    for lane in range(32):
        row, cols = fragment_coords(lane)
        for j, c in enumerate(cols):
            expected_elems[2 * lane + j] = s[row, c]
            expected_stored[row, c] = 2 * lane + j
    np.testing.assert_array_equal(to_np(elems), expected_elems)
    np.testing.assert_array_equal(to_np(stored), expected_stored)
    np.testing.assert_array_equal(to_np(window), to_np(big)[5:13, 3:11])
    np.testing.assert_array_equal(to_np(transposed), s.T)


# ---- 6. atomics --------------------------------------------------------------------------------------
HIST = """
    uint i = thread_position_in_grid.x;
    atomic_fetch_add_explicit(&hist[x[i]], 1, memory_order_relaxed);
"""
WHIST = """
    uint i = thread_position_in_grid.x;
    atomic_fetch_add_explicit(&hist[x[i]], w[i], memory_order_relaxed);
"""


@pytest.mark.parametrize("n", [1000, 4097])
@pytest.mark.parametrize("bins_dtype, hist_dtype", [(mx.int32, mx.int32), (mx.uint32, mx.uint32),
                                                     (mx.int32, mx.uint32)])
def test_atomic_histogram(emu, rng, n, bins_dtype, hist_dtype):
    nbins = 37
    # Skewed so that many threads hit the same bin concurrently; the last bins stay empty.
    x_np = np.minimum(rng.geometric(0.15, size=n) - 1, nbins - 4)
    x = mx.array(x_np).astype(bins_dtype)
    k = kernel("hist", ["x"], ["hist"], HIST, emu, atomic_outputs=True)
    hist = k(inputs=[x], grid=(n, 1, 1), threadgroup=(256, 1, 1), output_shapes=[(nbins,)],
             output_dtypes=[hist_dtype], init_value=0)[0]
    assert hist.dtype == hist_dtype
    np.testing.assert_array_equal(to_np(hist, np.int64), np.bincount(x_np, minlength=nbins))


@pytest.mark.parametrize("n", [1000, 4097])
def test_atomic_float_add(emu, rng, n):
    nbins = 19
    x_np = rng.integers(0, nbins - 2, size=n)
    w_np = rng.standard_normal(n).astype(np.float32)
    k = kernel("whist", ["x", "w"], ["hist"], WHIST, emu, atomic_outputs=True)
    hist = k(inputs=[mx.array(x_np).astype(mx.int32), mx.array(w_np)], grid=(n, 1, 1),
             threadgroup=(256, 1, 1), output_shapes=[(nbins,)], output_dtypes=[mx.float32], init_value=0)[0]
    expected = np.bincount(x_np, weights=w_np.astype(np.float64), minlength=nbins)
    assert_close(hist, expected, rtol=1e-5, atol=1e-4 * np.sqrt(n))
    # init_value is honoured for bins no thread touches.
    assert to_np(hist)[-2:].tolist() == [0.0, 0.0]


def test_init_value_fills_and_poison_otherwise(emu):
    src = "if (thread_position_in_grid.x == 0) out[0] = 1.0f;"
    k = kernel("partial_write", ["x"], ["out"], src, emu)
    x = mx.zeros((1,))
    filled = k(inputs=[x], grid=(1, 1, 1), threadgroup=(1, 1, 1), output_shapes=[(5,)],
               output_dtypes=[mx.float32], init_value=2.5)[0]
    assert to_np(filled).tolist() == [1.0, 2.5, 2.5, 2.5, 2.5]
    poisoned = k(inputs=[x], grid=(1, 1, 1), threadgroup=(1, 1, 1), output_shapes=[(5,)],
                 output_dtypes=[mx.float32])[0]
    p = to_np(poisoned)
    assert p[0] == 1.0 and np.all(np.isnan(p[1:]))
    ki = kernel("partial_write_i", ["x"], ["out"], src.replace("1.0f", "1"), emu)
    pi = ki(inputs=[x], grid=(1, 1, 1), threadgroup=(1, 1, 1), output_shapes=[(3,)],
            output_dtypes=[mx.int32])[0]
    assert to_np(pi, np.int64).tolist() == [1, -1, -1]


TG_HIST = """
    threadgroup atomic<uint> local[NB];
    uint lid = thread_index_in_threadgroup;
    for (uint b = lid; b < NB; b += threads_per_threadgroup.x)
        atomic_store_explicit(&local[b], 0u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    atomic_fetch_add_explicit(&local[x[thread_position_in_grid.x]], 1u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint b = lid; b < NB; b += threads_per_threadgroup.x) {
        uint c = atomic_load_explicit(&local[b], memory_order_relaxed);
        if (c) atomic_fetch_add_explicit(&hist[b], c, memory_order_relaxed);
    }
"""


@pytest.mark.parametrize("n", [1000, 77])
def test_threadgroup_atomic_histogram(emulator, rng, n):
    nbins = 50
    x_np = rng.integers(0, nbins, size=n)
    k = kernel("tg_hist", ["x"], ["hist"], TG_HIST, emulator, atomic_outputs=True)
    hist = k(inputs=[mx.array(x_np).astype(mx.uint32)], template=[("NB", nbins)], grid=(n, 1, 1),
             threadgroup=(96, 1, 1), output_shapes=[(nbins,)], output_dtypes=[mx.uint32], init_value=0)[0]
    np.testing.assert_array_equal(to_np(hist, np.int64), np.bincount(x_np, minlength=nbins))


# ---- 16. 2-D and 3-D grids with partial threadgroups in every dimension ------------------------------
GRID = """
    uint3 g = thread_position_in_grid;
    uint3 gs = threads_per_grid;
    uint idx = (g.z * gs.y + g.y) * gs.x + g.x;
    uint3 vals[6] = {g, threadgroup_position_in_grid, threads_per_threadgroup,
                     dispatch_threads_per_threadgroup, thread_position_in_threadgroup, threadgroups_per_grid};
    for (int k = 0; k < 6; ++k)
        for (int d = 0; d < 3; ++d) vec3[(idx * 6 + k) * 3 + d] = vals[k][d];
    uint scal[5] = {thread_index_in_threadgroup, simdgroup_index_in_threadgroup, thread_index_in_simdgroup,
                    simdgroups_per_threadgroup, threads_per_simdgroup};
    for (int k = 0; k < 5; ++k) sc[idx * 5 + k] = scal[k];
    count[idx] += 1;  // each thread exactly once (count starts at 0)
    SYNC
"""


@pytest.mark.parametrize("grid, tg", [((37, 19, 3), (8, 4, 2)), ((37, 19, 1), (16, 8, 1)),
                                      ((5, 3, 7), (2, 2, 4)), ((100, 1, 1), (64, 1, 1))])
@pytest.mark.parametrize("sync", [False, True])
def test_grid_attributes(emulator, grid, tg, sync):
    # With a barrier the threads run as fibers, without it in a plain loop: both paths are checked.
    src = GRID.replace("SYNC", "threadgroup_barrier(mem_flags::mem_none);" if sync else "")
    k = kernel("grid_attrs_sync" if sync else "grid_attrs", ["dummy"], ["vec3", "sc", "count"], src, emulator)
    gx, gy, gz = grid
    total = gx * gy * gz
    vec3, sc, count = k(inputs=[mx.zeros((1,))], grid=grid, threadgroup=tg,
                        output_shapes=[(gz, gy, gx, 6, 3), (gz, gy, gx, 5), (gz, gy, gx)],
                        output_dtypes=[mx.uint32, mx.uint32, mx.int32], init_value=0)
    z, y, x = np.meshgrid(np.arange(gz), np.arange(gy), np.arange(gx), indexing="ij")
    pos = np.stack([x, y, z], axis=-1)                       # (gz, gy, gx, 3)
    tgs = np.array(tg)
    gpos = pos // tgs
    lpos = pos % tgs
    size = np.minimum(tgs, np.array(grid) - gpos * tgs)      # partial edge groups
    ngroups = -(-np.array(grid) // tgs)
    exp_vec3 = np.stack([pos, gpos, size, np.broadcast_to(tgs, pos.shape), lpos,
                         np.broadcast_to(ngroups, pos.shape)], axis=-2)
    index = lpos[..., 0] + size[..., 0] * (lpos[..., 1] + size[..., 1] * lpos[..., 2])
    nthreads = size.prod(axis=-1)
    exp_sc = np.stack([index, index // 32, index % 32, -(-nthreads // 32), np.full_like(index, 32)], axis=-1)
    v = to_np(vec3, np.int64)
    names = ["thread_position_in_grid", "threadgroup_position_in_grid", "threads_per_threadgroup",
             "dispatch_threads_per_threadgroup", "thread_position_in_threadgroup", "threadgroups_per_grid"]
    for i, name in enumerate(names):
        np.testing.assert_array_equal(v[..., i, :], exp_vec3[..., i, :], err_msg=name)
    s = to_np(sc, np.int64)
    for i, name in enumerate(["thread_index_in_threadgroup", "simdgroup_index_in_threadgroup",
                              "thread_index_in_simdgroup", "simdgroups_per_threadgroup", "threads_per_simdgroup"]):
        np.testing.assert_array_equal(s[..., i], exp_sc[..., i], err_msg=name)
    np.testing.assert_array_equal(to_np(count, np.int64), np.ones((gz, gy, gx)))
    assert total == to_np(count).sum()
