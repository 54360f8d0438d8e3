"""The same kernel source through metalforge and through Triton, at identical meta-parameters
(run on the NVIDIA machine: metalforge through MLX's CUDA back end, Triton on torch tensors).

Rows are the memory-bound kernels of issue 15: vector add, softmax with one row per program in one
tile (Triton's tutorial form) and the library's online softmax, residual add + RMS norm, layer norm
and RoPE; each at a few launch configurations, both sides compiled from the very same Python
function; then views at element 1, and sizes that are not multiples of the vector. Every input is drawn once in numpy (seeded) and handed to both; each side's output is
checked against a float64 numpy reference before anything is timed. Timing: `launches` launches
per measurement over inputs rotated across >= 256 MiB, median of `reps`, both sides timed alike by
benchmarks/gpu_bench.py (`time_mlx`, `time_torch`: the host clock around back-to-back launches; MLX's
pipelined with `mx.async_eval`; the "serial" column is ours in one mx.eval, the earlier method). The roofline
is the bytes each row must move over torch's measured copy bandwidth.

    python benchmarks/same_source.py --out DIR [--label TEXT] [--quick] [--only TEXT] [--part odd]

Prints one table and writes DIR/same_source-<label>.json. Run it once per version to compare
(e.g. with PYTHONPATH pointing at an older checkout for "before").
"""
from __future__ import annotations

import argparse
import inspect
import json
import linecache
import math
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import mlx.core as mx
import numpy as np

import metalforge as mf
import metalforge.language as tl
from metalforge.kernels import norms, rope, softmax

sys.path.insert(0, str(Path(__file__).parent))
from gpu_bench import copy_bandwidth, rotations, time_mlx, time_torch, triton_version  # noqa: E402

SEED = 15


@mf.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@mf.jit
def softmax_one_tile(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    """Triton's tutorial softmax: the whole row in one tile, read once."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_row_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + offs, (num / den).to(tl.float16), mask=mask)


def with_constexpr(kernel: Any, names: tuple[str, ...]) -> Any:
    """The same kernel body with the scalar parameters `names` made constexpr (a diagnostic: how much
    of a kernel's time is its scalar arguments, which MLX's cuda_kernel passes through memory while
    Triton passes them in the launch's constant bank)."""
    fn = kernel.fn.fn  # the Python function behind the autotuned @jit kernel
    source = inspect.getsource(fn)
    for name in names:
        source = source.replace(f" {name},", f" {name}: tl.constexpr,", 1)
    source = source[source.index("def "):]
    filename = f"<{fn.__name__} with constexpr {', '.join(names)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope: dict = {}
    exec(compile(source, filename, "exec"), fn.__globals__, scope)
    return mf.jit(scope[fn.__name__])


@dataclass
class Row:
    kernel: str
    shape: str
    config: str
    nbytes: int
    ours_us: float = math.nan
    triton_us: float = math.nan
    ours_serial_us: float = math.nan  # one mx.eval of all launches (the method before 2026-12-04)
    ours_err: float = math.nan
    triton_err: float = math.nan
    tol: float = 0.0


def _np_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Bench:
    def __init__(self, launches: int, reps: int, log: Callable[[str], None], only: str = ""):
        import torch

        self.torch, self.launches, self.reps, self.log, self.only = torch, launches, reps, log, only
        self.rng = np.random.default_rng(SEED)
        self.rows: list[Row] = []

    def inputs(self, shape: tuple, dtype: str, copies: int) -> tuple[list[mx.array], list[Any], np.ndarray]:
        """`copies` random arrays on both sides (same values), and copy 0 in numpy."""
        host = [self.rng.standard_normal(shape, dtype=np.float32).astype(dtype) for _ in range(copies)]
        mxs = [mx.array(h) for h in host]
        ts = [self.torch.from_numpy(h).cuda() for h in host]
        mx.eval(mxs)
        return mxs, ts, host[0]

    def launches_within_memory(self, outputs: Any) -> int:
        """`launches`, or fewer where their outputs (all alive until time_mlx's evaluation ends) would
        pass OUTPUT_BYTES: 100 outputs of the 2^28-float add are 100 GiB, more than an H100 holds."""
        arrays = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        each = sum(a.nbytes for a in arrays)
        return max(1, min(self.launches, OUTPUT_BYTES // max(1, each)))

    def measure(self, row: Row, ours: Callable[[int], Any], triton: Callable[[int], Any], copies: int,
                check: Callable[[Any, Any], tuple[float, float]]) -> None:
        """Check both sides on copy 0 against the reference, then time both (rows `--only` names)."""
        if self.only not in row.kernel:
            return
        try:
            out_ours = ours(0)
            mx.eval(out_ours)
            out_triton = triton(0)
            self.torch.cuda.synchronize()
            row.ours_err, row.triton_err = check(out_ours, out_triton)
            if not (row.ours_err <= row.tol and row.triton_err <= row.tol):
                self.log(f"WRONG {row.kernel} {row.config}: ours {row.ours_err:.3g}, triton {row.triton_err:.3g} "
                         f"(tol {row.tol:.3g}); not timed")
            else:
                launches = self.launches_within_memory(out_ours)
                row.ours_us = time_mlx(ours, copies, launches, self.reps)
                row.triton_us = time_torch(triton, copies, launches, self.reps)
                row.ours_serial_us = time_mlx(ours, copies, launches, self.reps, pipelined=False)
        except Exception as e:  # a failing row is reported, the others still run
            self.log(f"FAILED {row.kernel} {row.config}: {type(e).__name__}: {e}")
        self.rows.append(row)
        self.log(f"{row.kernel} {row.config}: ours {row.ours_us:.1f} us, triton {row.triton_us:.1f} us")


OUTPUT_BYTES = 16 << 30  # outputs of one timing's launches at most (Bench.launches_within_memory)


def _errors(ref: np.ndarray, *outs: Any) -> list[float]:
    errs = []
    for o in outs:
        got = np.array(o.astype(mx.float32)) if isinstance(o, mx.array) else o.float().cpu().numpy()
        errs.append(float(np.max(np.abs(got.astype(np.float64) - ref))))
    return errs


def run(b: Bench, quick: bool) -> None:
    torch = b.torch
    # ---- vector add 2^28 fp32
    n = 1 << (24 if quick else 28)
    xs, xt, x0 = b.inputs((n,), "float32", 2)
    ys, yt, y0 = b.inputs((n,), "float32", 2)
    ref = x0.astype(np.float64) + y0
    out_t = torch.empty(n, device="cuda")
    ta = triton_version(vector_add)
    for block, warps in ((1024, 4), (4096, 8)):
        grid = (mf.cdiv(n, block),)
        b.measure(Row("vector add", f"2^{n.bit_length() - 1} fp32", f"BLOCK {block}, {warps} warps", 12 * n,
                      tol=1e-6),
                  lambda i, block=block, warps=warps, grid=grid: vector_add[grid](
                      xs[i], ys[i], mf.empty((n,)), n, BLOCK=block, num_warps=warps),
                  lambda i, block=block, warps=warps, grid=grid: ta[grid](
                      xt[i], yt[i], out_t, n, BLOCK=block, num_warps=warps) and out_t,
                  2, lambda o, t: tuple(_errors(ref, o, t)))
    del xs, xt, ys, yt
    # ---- softmax 4096x32000 fp16: one tile per row (tutorial), and the library's online form
    rows, cols = (512 if quick else 4096), 32000
    copies = rotations(rows * cols * 2)
    xs, xt, x0 = b.inputs((rows, cols), "float16", copies)
    ref = _np_softmax(x0)
    out_t = torch.empty(rows, cols, device="cuda", dtype=torch.float16)
    tk = triton_version(softmax_one_tile)
    for warps in (16, 32):
        b.measure(Row("softmax, one tile", f"{rows}x{cols} fp16", f"BLOCK 32768, {warps} warps",
                      4 * rows * cols, tol=2e-3),
                  lambda i, warps=warps: softmax_one_tile[(rows,)](
                      mf.empty((rows, cols), mx.float16), xs[i], cols, cols, cols, BLOCK=32768, num_warps=warps),
                  lambda i, warps=warps: tk[(rows,)](out_t, xt[i], cols, cols, cols, BLOCK=32768,
                                                    num_warps=warps) and out_t,
                  copies, lambda o, t: tuple(_errors(ref, o, t)))
    sk, tsk = softmax.softmax_kernel.fn, triton_version(softmax.softmax_kernel)
    for block, warps in ((1024, 2), (4096, 8)):
        b.measure(Row("softmax, online (library)", f"{rows}x{cols} fp16", f"BLOCK {block}, {warps} warps",
                      4 * rows * cols, tol=2e-3),
                  lambda i, block=block, warps=warps: sk[(rows,)](
                      xs[i].reshape(-1), mf.empty((rows, cols), mx.float16), cols, cols, BLOCK=block,
                      num_warps=warps),
                  lambda i, block=block, warps=warps: tsk[(rows,)](xt[i], out_t, cols, cols, BLOCK=block,
                                                                   num_warps=warps) and out_t,
                  copies, lambda o, t: tuple(_errors(ref, o, t)))
    del xs, xt
    # ---- residual add + RMS norm 4096x8192 fp16 (outputs: normed, sum)
    rows, d = (512 if quick else 4096), 8192
    copies = rotations(rows * d * 2 * 2)
    xs, xt, x0 = b.inputs((rows, d), "float16", copies)
    rs, rt, r0 = b.inputs((rows, d), "float16", copies)
    ws, wt, w0 = b.inputs((d,), "float16", 1)
    h = x0.astype(np.float64) + r0
    ref_norm = h / np.sqrt((h * h).mean(axis=-1, keepdims=True) + 1e-5) * w0
    o1, o2 = torch.empty(rows, d, device="cuda", dtype=torch.float16), torch.empty(rows, d, device="cuda",
                                                                                   dtype=torch.float16)
    rk, trk = norms.add_rms_norm_kernel.fn, triton_version(norms.add_rms_norm_kernel)
    for warps in (8, 16):
        b.measure(Row("add + rms_norm", f"{rows}x{d} fp16", f"BLOCK {d}, {warps} warps", 4 * rows * d * 2,
                      tol=2e-2),
                  lambda i, warps=warps: rk[(rows,)](xs[i], rs[i], ws[0], mf.empty((rows, d), mx.float16),
                                                     mf.empty((rows, d), mx.float16), d, 1e-5, BLOCK=d,
                                                     num_warps=warps),
                  lambda i, warps=warps: trk[(rows,)](xt[i], rt[i], wt[0], o1, o2, d, 1e-5, BLOCK=d,
                                                      num_warps=warps) and (o1, o2),
                  copies, lambda o, t: (max(_errors(ref_norm, o[0])[0], _errors(h, o[1])[0]),
                                        max(_errors(ref_norm, t[0])[0], _errors(h, t[1])[0])))
    # diagnostic: the scalars constexpr on both sides (see with_constexpr)
    rk_c = with_constexpr(norms.add_rms_norm_kernel, ("n_cols", "eps"))
    trk_c = triton_version(rk_c)
    b.measure(Row("add + rms_norm, scalars constexpr", f"{rows}x{d} fp16", f"BLOCK {d}, 16 warps", 4 * rows * d * 2,
                  tol=2e-2),
              lambda i: rk_c[(rows,)](xs[i], rs[i], ws[0], mf.empty((rows, d), mx.float16),
                                      mf.empty((rows, d), mx.float16), d, 1e-5, BLOCK=d, num_warps=16),
              lambda i: trk_c[(rows,)](xt[i], rt[i], wt[0], o1, o2, d, 1e-5, BLOCK=d, num_warps=16) and (o1, o2),
              copies, lambda o, t: (max(_errors(ref_norm, o[0])[0], _errors(h, o[1])[0]),
                                    max(_errors(ref_norm, t[0])[0], _errors(h, t[1])[0])))
    del xs, xt, rs, rt
    # ---- layer norm 4096x8192 fp32 (outputs: y, mean, rstd)
    copies = rotations(rows * d * 4)
    xs, xt, x0 = b.inputs((rows, d), "float32", copies)
    (ws, wt, w0), (bs, bt, b0) = b.inputs((d,), "float32", 1), b.inputs((d,), "float32", 1)
    x64 = x0.astype(np.float64)
    mean = x64.mean(axis=-1, keepdims=True)
    ref_ln = (x64 - mean) / np.sqrt(((x64 - mean) ** 2).mean(axis=-1, keepdims=True) + 1e-5) * w0 + b0
    o, m, r = (torch.empty(rows, d, device="cuda"), torch.empty(rows, device="cuda"),
               torch.empty(rows, device="cuda"))
    lk, tlk = norms.layer_norm_kernel.fn, triton_version(norms.layer_norm_kernel)
    for warps in (8, 16):
        b.measure(Row("layer_norm", f"{rows}x{d} fp32", f"BLOCK {d}, {warps} warps", 2 * rows * d * 4, tol=1e-4),
                  lambda i, warps=warps: lk[(rows,)](xs[i], ws[0], bs[0], mf.empty((rows, d)), mf.empty(rows),
                                                     mf.empty(rows), d, 1e-5, BLOCK=d, num_warps=warps)[0],
                  lambda i, warps=warps: tlk[(rows,)](xt[i], wt[0], bt[0], o, m, r, d, 1e-5, BLOCK=d,
                                                      num_warps=warps) and o,
                  copies, lambda o_, t: tuple(_errors(ref_ln, o_, t)))
    del xs, xt
    # ---- RoPE T=4096 H=32 D=128 fp16
    heads, t_len, hd = 32, (512 if quick else 4096), 128
    total = heads * t_len * hd
    copies = rotations(total * 2 * 2)
    xs, xt, x0 = b.inputs((total,), "float16", copies)
    pos = (np.arange(heads * t_len) % t_len).astype(np.float64)[:, None]
    inv = np.exp(np.arange(hd // 2) * (-math.log(10000.0) / (hd // 2)))[None, :]
    xr = x0.astype(np.float64).reshape(-1, hd)
    c, s = np.cos(pos * inv), np.sin(pos * inv)
    ref_rope = np.concatenate([xr[:, :hd // 2] * c - xr[:, hd // 2:] * s, xr[:, :hd // 2] * s + xr[:, hd // 2:] * c],
                              axis=1).reshape(-1)
    out_t = torch.empty(total, device="cuda", dtype=torch.float16)
    pk, tpk = rope.rope_kernel.fn, triton_version(rope.rope_kernel)
    for block_t, share, warps in ((16, 1, 4), (16, 8, 4)):  # heads a program: 1 (no angles shared), 8
        grid = rope.grid(heads, t_len)({"BLOCK_T": block_t, "HEADS": share})
        b.measure(Row("rope", f"T={t_len} H={heads} D={hd} fp16", f"{block_t} positions x {share} heads, {warps} warps",
                      4 * total, tol=2e-2),
                  lambda i, block_t=block_t, share=share, warps=warps, grid=grid: pk[grid](
                      xs[i], mf.empty((total,), mx.float16), heads, t_len, math.log(10000.0), hd // 2,
                      BLOCK_T=block_t, HEADS=share, num_warps=warps),
                  lambda i, block_t=block_t, share=share, warps=warps, grid=grid: tpk[grid](
                      xt[i], out_t, heads, t_len, math.log(10000.0), hd // 2, BLOCK_T=block_t, HEADS=share,
                      num_warps=warps) and out_t,
                  copies, lambda o, t: tuple(_errors(ref_rope, o, t)))
    # diagnostic: the same body with its scalars constexpr on both sides (Triton folds them too)
    pk_c = with_constexpr(rope.rope_kernel, ("n_heads", "T", "log_base"))  # a plain @jit kernel
    tpk_c = triton_version(pk_c)
    grid = rope.grid(heads, t_len)({"BLOCK_T": 16, "HEADS": 8})
    b.measure(Row("rope, scalars constexpr", f"T={t_len} H={heads} D={hd} fp16", "16 positions x 8 heads, 4 warps",
                  4 * total, tol=2e-2),
              lambda i: pk_c[grid](xs[i], mf.empty((total,), mx.float16), heads, t_len, math.log(10000.0),
                                      hd // 2, BLOCK_T=16, HEADS=8, num_warps=4),
              lambda i: tpk_c[grid](xt[i], out_t, heads, t_len, math.log(10000.0), hd // 2, BLOCK_T=16, HEADS=8,
                                    num_warps=4) and out_t,
              copies, lambda o, t: tuple(_errors(ref_rope, o, t)))


def run_misaligned(b: Bench, quick: bool) -> None:
    """Views that start one element into their buffers: CUDA takes the kernel's element-wise copy
    (lir_passes/aligned_vectors.py). Checked like every row; timed for ours (Triton specialises on the
    address itself, so its column is the aligned launch for reference)."""
    torch = b.torch
    n = 1 << (24 if quick else 26)
    xs, xt, x0 = b.inputs((n + 1,), "float32", 2)
    ys, yt, y0 = b.inputs((n + 1,), "float32", 2)
    ref = x0[1:].astype(np.float64) + y0[1:]
    out_t = torch.empty(n, device="cuda")
    ta = triton_version(vector_add)
    grid = (mf.cdiv(n, 1024),)
    b.measure(Row("vector add, views at element 1", f"2^{n.bit_length() - 1} fp32", "BLOCK 1024, 4 warps", 12 * n,
                  tol=1e-6),
              lambda i: vector_add[grid](xs[i][1:], ys[i][1:], mf.empty((n,)), n, BLOCK=1024, num_warps=4),
              lambda i: ta[grid](xt[i][1:], yt[i][1:], out_t, n, BLOCK=1024, num_warps=4) and out_t,
              2, lambda o, t: tuple(_errors(ref, o, t)))
    rows, d = (256 if quick else 2048), 8192
    xs, xt, x0 = b.inputs((rows * d + 1,), "float16", 2)
    rs, rt, r0 = b.inputs((rows * d,), "float16", 2)
    ws, wt, w0 = b.inputs((d,), "float16", 1)
    h = (x0[1:].astype(np.float64) + r0).reshape(rows, d)
    ref_norm = h / np.sqrt((h * h).mean(axis=-1, keepdims=True) + 1e-5) * w0
    o1, o2 = (torch.empty(rows, d, device="cuda", dtype=torch.float16) for _ in range(2))
    rk, trk = norms.add_rms_norm_kernel.fn, triton_version(norms.add_rms_norm_kernel)
    b.measure(Row("add + rms_norm, x at element 1", f"{rows}x{d} fp16", f"BLOCK {d}, 8 warps", 4 * rows * d * 2,
                  tol=2e-2),
              lambda i: rk[(rows,)](xs[i][1:], rs[i], ws[0], mf.empty((rows, d), mx.float16),
                                    mf.empty((rows, d), mx.float16), d, 1e-5, BLOCK=d, num_warps=8),
              lambda i: trk[(rows,)](xt[i][1:], rt[i], wt[0], o1, o2, d, 1e-5, BLOCK=d, num_warps=8) and (o1, o2),
              2, lambda o, t: (max(_errors(ref_norm, o[0])[0], _errors(h, o[1])[0]),
                               max(_errors(ref_norm, t[0])[0], _errors(h, t[1])[0])))


def run_odd(b: Bench, quick: bool) -> None:
    """Sizes that are not multiples of the vector (codegen 36): a vector add of 2^26 + 1 elements, and
    softmax rows of 32001 columns 32008 apart (a padded row). Both sides compile the same source;
    Triton's `offs < n` is then element by element, ours moves whole vectors wherever all of a run
    is in (`AxisInfo.edges`)."""
    torch = b.torch
    n = (1 << (24 if quick else 26)) + 1
    xs, xt, x0 = b.inputs((n,), "float32", 2)
    ys, yt, y0 = b.inputs((n,), "float32", 2)
    ref = x0.astype(np.float64) + y0
    out_t = torch.empty(n, device="cuda")
    ta = triton_version(vector_add)
    grid = (mf.cdiv(n, 1024),)
    b.measure(Row("vector add, odd n", f"2^{n.bit_length() - 1}+1 fp32", "BLOCK 1024, 4 warps", 12 * n, tol=1e-6),
              lambda i: vector_add[grid](xs[i], ys[i], mf.empty((n,)), n, BLOCK=1024, num_warps=4),
              lambda i: ta[grid](xt[i], yt[i], out_t, n, BLOCK=1024, num_warps=4) and out_t,
              2, lambda o, t: tuple(_errors(ref, o, t)))
    del xs, xt, ys, yt
    rows, cols, stride = (512 if quick else 4096), 32001, 32008
    copies = rotations(rows * stride * 2)
    xs, xt, x0 = b.inputs((rows, stride), "float16", copies)
    ref = _np_softmax(x0[:, :cols])
    out_t = torch.empty(rows, stride, device="cuda", dtype=torch.float16)
    tk = triton_version(softmax_one_tile)
    b.measure(Row("softmax, one tile, odd n", f"{rows}x{cols} (stride {stride}) fp16", "BLOCK 32768, 16 warps",
                  4 * rows * cols, tol=2e-3),
              lambda i: softmax_one_tile[(rows,)](mf.empty((rows, stride), mx.float16), xs[i], stride, stride, cols,
                                                  BLOCK=32768, num_warps=16),
              lambda i: tk[(rows,)](out_t, xt[i], stride, stride, cols, BLOCK=32768, num_warps=16) and out_t,
              copies, lambda o, t: tuple(_errors(ref, o[:, :cols], t[:, :cols])))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--label", default="current")
    ap.add_argument("--quick", action="store_true", help="small shapes (a smoke run, not for the record)")
    ap.add_argument("--launches", type=int, default=100)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--only", default="", help="time only the rows whose kernel name contains this")
    ap.add_argument("--part", choices=("all", "aligned", "misaligned", "odd"), default="all",
                    help="run only these rows (no inputs made for the others)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    log_file = (args.out / f"same_source-{args.label}.log").open("w")

    def log(msg: str) -> None:
        print(msg, file=log_file, flush=True)

    b = Bench(args.launches, args.reps, log, args.only)
    bandwidth = copy_bandwidth()
    for part, rows in (("aligned", run), ("misaligned", run_misaligned), ("odd", run_odd)):
        if args.part in ("all", part):
            rows(b, args.quick)
    meta = {"label": args.label, "date": time.strftime("%Y-%m-%d %H:%M"), "mlx": mx.__version__,
            "metalforge_file": mf.__file__, "codegen": __import__("metalforge.codegen.pipeline",
                                                                 fromlist=["x"]).CODEGEN_VERSION,
            "copy_bandwidth": bandwidth, "seed": SEED}
    (args.out / f"same_source-{args.label}.json").write_text(json.dumps(
        {"meta": meta, "rows": [asdict(r) for r in b.rows]}, indent=1))
    print(f"# same source [{args.label}] codegen {meta['codegen']}, copy {bandwidth / 1e12:.2f} TB/s, seed {SEED}")
    print(f"{'kernel':26s} {'shape':22s} {'config':22s} {'ours':>8s} {'triton':>8s} {'o/t':>5s} {'roof%':>5s} "
          f"{'serial':>8s} err")
    for r in b.rows:
        roof = r.nbytes / bandwidth * 1e6
        print(f"{r.kernel:26s} {r.shape:22s} {r.config:22s} {r.ours_us:8.1f} {r.triton_us:8.1f} "
              f"{r.ours_us / r.triton_us:5.2f} {100 * roof / r.ours_us:5.0f} {r.ours_serial_us:8.1f} "
              f"{r.ours_err:.1e}/{r.triton_err:.1e}")
    return 0 if all(r.ours_us == r.ours_us for r in b.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
