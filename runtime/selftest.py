"""`metalforge selftest`: run reference Metal kernels on every available back end and compare.

On a Mac this runs each kernel on the GPU (through `mx.fast.metal_kernel`) and on the emulator and
checks that both agree with each other and with numpy; elsewhere it checks the emulator alone.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import mlx.core as mx
import numpy as np

from ..errors import BackendUnavailableError
from . import backends
from .kernel import metal_kernel


@dataclass
class Case:
    name: str
    make: Callable[[np.random.Generator], tuple[dict, dict, list[np.ndarray]]]  # kernel args, call args, expected
    rtol: float = 1e-5
    atol: float = 1e-5


def _exp_strided(rng):
    x = rng.standard_normal((37, 53)).astype(np.float32)
    a = mx.array(x).T  # not row-contiguous: exercises elem_to_loc with real strides
    kernel = dict(name="selftest_exp", input_names=["inp"], output_names=["out"], ensure_row_contiguous=False,
                  source="""
    uint elem = thread_position_in_grid.x;
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    out[elem] = metal::exp(inp[loc]);
""")
    call = dict(inputs=[a], output_shapes=[a.shape], output_dtypes=[mx.float32], grid=(a.size, 1, 1),
                threadgroup=(256, 1, 1))
    return kernel, call, [np.exp(x.T.astype(np.float64))]


def _row_sum(rng):
    rows, cols, tg = 7, 1000, 256
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    kernel = dict(name="selftest_row_sum", input_names=["x"], output_names=["out"], source="""
    uint row = threadgroup_position_in_grid.y;
    uint lid = thread_index_in_threadgroup;
    uint n = x_shape[1];
    float acc = 0.0f;
    for (uint i = lid; i < n; i += threads_per_threadgroup.x) acc += x[row * n + i];
    threadgroup float partial[32];
    acc = simd_sum(acc);
    if (thread_index_in_simdgroup == 0) partial[simdgroup_index_in_threadgroup] = acc;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (simdgroup_index_in_threadgroup == 0) {
        float p = thread_index_in_simdgroup < simdgroups_per_threadgroup ? partial[thread_index_in_simdgroup] : 0.0f;
        p = simd_sum(p);
        if (thread_index_in_simdgroup == 0) out[row] = p;
    }
""")
    call = dict(inputs=[mx.array(x)], output_shapes=[(rows,)], output_dtypes=[mx.float32], grid=(tg, rows, 1),
                threadgroup=(tg, 1, 1))
    return kernel, call, [x.astype(np.float64).sum(1)]


def _simdgroup_gemm(rng):
    m, n, k = 24, 16, 40  # multiples of 8: one simdgroup per 8x8 output tile
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    kernel = dict(name="selftest_gemm", input_names=["a", "b"], output_names=["c"], source="""
    uint2 tile = threadgroup_position_in_grid.xy;
    uint K = a_shape[1], N = b_shape[1];
    simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    threadgroup half as[64];
    threadgroup half bs[64];
    for (uint k0 = 0; k0 < K; k0 += 8) {
        for (uint i = thread_index_in_simdgroup; i < 64; i += 32) {
            as[i] = a[(tile.y * 8 + i / 8) * K + k0 + i % 8];
            bs[i] = b[(k0 + i / 8) * N + tile.x * 8 + i % 8];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_half8x8 ma, mb;
        simdgroup_load(ma, as, 8);
        simdgroup_load(mb, bs, 8);
        simdgroup_multiply_accumulate(acc, ma, mb, acc);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    simdgroup_store(acc, c, N, ulong2(tile.x * 8, tile.y * 8));
""")
    call = dict(inputs=[mx.array(a), mx.array(b)], output_shapes=[(m, n)], output_dtypes=[mx.float32],
                grid=(32 * (n // 8), m // 8, 1), threadgroup=(32, 1, 1))
    return kernel, call, [a.astype(np.float64) @ b.astype(np.float64)]


def _histogram(rng):
    bins, n = 17, 4097
    x = rng.integers(0, bins, n).astype(np.int32)
    kernel = dict(name="selftest_histogram", input_names=["x"], output_names=["hist"], atomic_outputs=True, source="""
    uint i = thread_position_in_grid.x;
    if (i < x_shape[0]) atomic_fetch_add_explicit(&hist[x[i]], 1, memory_order_relaxed);
""")
    call = dict(inputs=[mx.array(x)], output_shapes=[(bins,)], output_dtypes=[mx.int32], grid=(n, 1, 1),
                threadgroup=(128, 1, 1), init_value=0)
    return kernel, call, [np.bincount(x, minlength=bins)]


CASES = [Case("exp, strided input", _exp_strided), Case("row sum, simd + barrier", _row_sum, 1e-4, 1e-3),
         Case("fp16 simdgroup_matrix gemm", _simdgroup_gemm, 1e-3, 1e-2), Case("atomic histogram", _histogram, 0, 0)]


def _run(backend, kernel_args, call):
    return [np.array(o.astype(mx.float32) if o.dtype == mx.bfloat16 else o)
            for o in metal_kernel(**kernel_args, backend=backend)(**call)]


def selftest(backend_names: list[str] | None = None, seed: int | None = None, echo=print) -> bool:
    """Run every case on each available back end; True when all agree with numpy (and each other)."""
    names = backend_names or backends.backend_names("msl")  # the cases are MSL source
    chosen = []
    for name in names:
        try:
            chosen.append(backends.resolve(name))
        except BackendUnavailableError as e:
            echo(f"skip {name}: {e}")
    if not chosen:
        echo("no back end available")
        return False
    rng = np.random.default_rng(seed)
    ok = True
    echo(f"{'case':32s} " + " ".join(f"{b.name:>22s}" for b in chosen) + "   agree")
    for case in CASES:
        kernel_args, call, expected = case.make(rng)
        results, cells = [], []
        for backend in chosen:
            t = time.perf_counter()
            try:
                out = _run(backend, kernel_args, call)
            except Exception as e:  # report and carry on with the other cases
                cells.append(f"FAIL {type(e).__name__}")
                echo(f"  {case.name} on {backend.name}: {e}")
                ok = False
                continue
            good = all(np.allclose(o, e, rtol=case.rtol, atol=case.atol) for o, e in zip(out, expected))
            ok &= good
            results.append(out)
            cells.append(f"{'ok' if good else 'WRONG'} {1e3 * (time.perf_counter() - t):8.1f} ms")
        agree = all(np.allclose(r, results[0][i], rtol=case.rtol, atol=case.atol)
                    for other in results[1:] for i, r in enumerate(other))
        ok &= agree
        echo(f"{case.name:32s} " + " ".join(f"{c:>22s}" for c in cells) + f"   {'yes' if agree else 'NO'}")
    echo("selftest " + ("passed" if ok else "FAILED"))
    return ok
