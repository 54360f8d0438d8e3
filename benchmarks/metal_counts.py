"""What each library kernel executes on Metal, counted on the emulator (counting mode,
runtime/emulator/counters.py), side by side with the same-source DSL kernel where one exists, MLX's
own Metal kernel(s) for the op (runtime/emulator/mlx_kernels.py: MLX 0.32.4's sources, launched as
MLX's host code launches them) and the ideal: the bytes the op must move at least.

Shapes are LLM shapes scaled down until the emulator runs each in seconds; configs are fixed (not
tuned), so the counts are reproducible, and tests/kernels/test_metal_counts.py holds the library's
and MLX's counts to the numbers recorded in tests/kernels/metal_counts.json. Every output is checked
against MLX's CPU op first (a failing row prints FAILED and the others still run).

Columns: device bytes (loads + stores, as issued: re-reads count each time, caches are not modelled)
per output element; device memory instructions (per thread) per byte; threadgroup-memory bytes per
output element; threadgroup barriers per threadgroup; for matmul and attention, simdgroup
multiply-accumulate FLOP (1024 per 8x8x8) per FLOP of the op and threadgroup bytes per FLOP.
A second table sets ours against MLX's kernel by issue 20's targets; a third projects times on Apple
GPUs with a roofline, max(device bytes / bandwidth, FLOP / FP16 or FP32 rate): a projection, not a
measurement.

    python benchmarks/metal_counts.py [--out DIR] [--ops softmax,matmul]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import mlx.core as mx
import numpy as np

from metalforge.kernels import attention, flash_attention, matmul, norms, quantized, rope, softmax
from metalforge.launcher import cdiv, empty
from metalforge.runtime.emulator import EmulatorBackend, LaunchCounts, counting, mlx_kernels

sys.path.insert(0, str(Path(__file__).parent))
from same_source import softmax_one_tile  # noqa: E402

SEED = 20
MMA_FLOP = 2 * 8 * 8 * 8  # one simdgroup_multiply_accumulate of 8x8 matrices


@dataclass(frozen=True)
class Chip:
    name: str
    bandwidth: float  # bytes/s
    fp32: float       # FLOP/s
    fp16: float


# Bandwidth: Apple's announcements (M1: LPDDR4X-4266 on 128 bits, 68.25 GB/s; M1 Pro 200, M1 Max 400,
# M1 Ultra 800 GB/s, M2 100 GB/s, M2 Max 400 GB/s, M2 Ultra 800 GB/s). FP32/FP16 rates: Philip Turner's
# metal-benchmarks (github.com/philipturner/metal-benchmarks, "Overview of Apple-designed GPUs"): equal
# FP16 and FP32 rates on these GPUs; M2 Ultra 27.2 TFLOPS also on Apple's Mac Pro page.
CHIPS = (
    Chip("M1", 68.25e9, 2.617e12, 2.617e12),
    Chip("M1 Pro", 200e9, 5.308e12, 5.308e12),
    Chip("M1 Max", 400e9, 10.62e12, 10.62e12),
    Chip("M1 Ultra", 800e9, 21.23e12, 21.23e12),
    Chip("M2", 100e9, 3.579e12, 3.579e12),
    Chip("M2 Max", 400e9, 13.6e12, 13.6e12),
    Chip("M2 Ultra", 800e9, 27.2e12, 27.2e12),
)


@dataclass(frozen=True)
class MlxCounterpart:
    """MLX's kernel(s) for a case: an op of mlx_kernels.MLX_OPS at the case's size, in that op's shape
    conventions, and the tolerance its output is checked with."""

    label: str
    op: str
    shape: dict
    rtol: float
    atol: float


@dataclass
class Case:
    """One op at one shape. `ours` and `same_source` run a kernel on the emulator and return
    (outputs, expected, rtol, atol); their launches are counted."""

    op: str
    shape: dict          # the op's sizes, also what MLX's kernel is run at
    elements: int        # output elements the per-element columns divide by
    flops: int           # FLOP of the op (multiply and add count 2)
    ideal_bytes: int     # device bytes the op must move at least: every input read once, every output written once
    fp32: bool           # compute rate: FP32 (else FP16)
    ours: Callable[[EmulatorBackend, np.random.Generator], tuple]
    same_source: Optional[Callable[[EmulatorBackend, np.random.Generator], tuple]] = None
    matrix: bool = False  # report simdgroup-matrix columns
    mlx: tuple[MlxCounterpart, ...] = ()  # the first is what MLX runs for the op on an M-series GPU at this size


def _normal(rng: np.random.Generator, shape, dtype: mx.Dtype) -> mx.array:
    return mx.array(rng.standard_normal(shape).astype(np.float32)).astype(dtype)


# ---- the cases ----------------------------------------------------------------------------------------
SOFTMAX = dict(rows=16, cols=4096)


def _softmax(be, rng):
    r, c = SOFTMAX["rows"], SOFTMAX["cols"]
    x = _normal(rng, (r, c), mx.float16)
    out = softmax.softmax_kernel.fn[(r,)](x.reshape(-1), empty((r, c), mx.float16), c, c, BLOCK=4096, num_warps=8,
                                         backend=be)
    return [out], [softmax.reference(x)], 1e-3, 1e-3


def _softmax_one_tile(be, rng):
    r, c = SOFTMAX["rows"], SOFTMAX["cols"]
    x = _normal(rng, (r, c), mx.float16)
    out = softmax_one_tile[(r,)](empty((r, c), mx.float16), x, c, c, c, BLOCK=4096, num_warps=8, backend=be)
    return [out], [softmax.reference(x)], 1e-3, 1e-3


NORM = dict(rows=16, cols=4096)


def _add_rms_norm(be, rng):
    r, c = NORM["rows"], NORM["cols"]
    x, res, w = _normal(rng, (r, c), mx.float16), _normal(rng, (r, c), mx.float16), _normal(rng, (c,), mx.float16)
    outs = norms.add_rms_norm_kernel.fn[(r,)](x.reshape(-1), res.reshape(-1), w, empty((r, c), mx.float16),
                                             empty((r, c), mx.float16), c, 1e-5, BLOCK=c, num_warps=4, backend=be)
    return list(outs), list(norms.add_rms_norm_reference(x, res, w)), 2e-2, 2e-2


def _layer_norm(be, rng):
    r, c = NORM["rows"], NORM["cols"]
    x, w, b = _normal(rng, (r, c), mx.float32), _normal(rng, (c,), mx.float32), _normal(rng, (c,), mx.float32)
    outs = norms.layer_norm_kernel.fn[(r,)](x.reshape(-1), w, b, empty((r, c)), empty((r,)), empty((r,)), c, 1e-5,
                                           BLOCK=c, num_warps=4, backend=be)
    return list(outs), list(norms.layer_norm_reference(x, w, b)), 1e-4, 1e-4


ROPE = dict(heads=8, tokens=64, dim=128)


def _rope(be, rng):
    h, t, d = ROPE["heads"], ROPE["tokens"], ROPE["dim"]
    x = _normal(rng, (h, t, d), mx.float16)
    out = rope.rope_kernel.fn[rope.grid(h, t)](x, empty((h, t, d), mx.float16), h, t, math.log(10000.0), d // 2,
                                              BLOCK_T=16, HEADS=4, num_warps=4, backend=be)
    return [out], [rope.reference(x)], 1e-3, 4e-3


QMV = dict(n=512, k=4096, group=64)


def _qmv(be, rng):
    n, k, g = QMV["n"], QMV["k"], QMV["group"]
    w_q, scales, biases = mx.quantize(_normal(rng, (n, k), mx.float32), group_size=g, bits=4)
    scales, biases = scales.astype(mx.float16), biases.astype(mx.float16)
    x = _normal(rng, (k,), mx.float16)
    config = quantized.qmv_default({"N": 14336, "K": 4096})  # the untuned config of the LLM layer this row scales down
    out = quantized.qmv_kernel.fn[(cdiv(n, config.kwargs["BLOCK_N"]),)](
        x, w_q.reshape(-1), scales.reshape(-1), biases.reshape(-1), empty((n,), mx.float16), n, k, g, 4,
        **config.all_kwargs(), backend=be)
    return [out], [quantized.reference(x, w_q, scales, biases, g)], 1e-2, 1e-2


DECODE = dict(heads=8, kv_heads=2, length=1024, dim=128)


def _decode_attention(be, rng):
    h, hk, s, d = DECODE["heads"], DECODE["kv_heads"], DECODE["length"], DECODE["dim"]
    q = _normal(rng, (h, d), mx.float16)
    k, v = _normal(rng, (hk, s, d), mx.float16), _normal(rng, (hk, s, d), mx.float16)
    grid, args, splits = attention._launch_args(q, k, v)
    o, m, l = attention.decode_attention_kernel.fn[grid](*args, BLOCK_N=64, num_warps=4, backend=be)
    out = attention.decode_attention_combine_kernel[(h,)](o, m, l, empty((h, d), mx.float16), splits, d,
                                                          1 << (splits - 1).bit_length(), backend=be)
    return [out], [attention.reference(q, k, v)], 2e-3, 2e-3


MATMUL = dict(m=256, n=256, k=256)


def _matmul(be, rng):
    m, n, k = MATMUL["m"], MATMUL["n"], MATMUL["k"]
    a, b = _normal(rng, (m, k), mx.float16), _normal(rng, (k, n), mx.float16)
    out = matmul.matmul_kernel.fn[matmul.launch_grid(m, n)](a, b, empty((m, n), mx.float16), m, n, k, BLOCK_M=64,
                                                           BLOCK_N=64, BLOCK_K=32, GROUP_M=8, num_warps=4,
                                                           num_stages=2, backend=be)
    return [out], [matmul.reference(a, b)], 2e-3, 1e-2


FLASH = dict(heads=4, kv_heads=2, length=256, dim=64, causal=True)


def _flash_attention(be, rng):
    h, hk, length, d = FLASH["heads"], FLASH["kv_heads"], FLASH["length"], FLASH["dim"]
    q = _normal(rng, (h, length, d), mx.float16)
    k, v = _normal(rng, (hk, length, d), mx.float16), _normal(rng, (hk, length, d), mx.float16)
    out = flash_attention.flash_attention_kernel.fn[flash_attention.launch_grid(h, length)](
        *flash_attention.kernel_args(q, k, v, True), BLOCK_M=32, BLOCK_N=32, num_warps=4, num_stages=2, backend=be)
    return [out], [flash_attention.reference(q, k, v, True)], 5e-3, 5e-3


def _cases() -> list[Case]:
    r, c = SOFTMAX["rows"], SOFTMAX["cols"]
    nr, nc = NORM["rows"], NORM["cols"]
    h, t, d = ROPE["heads"], ROPE["tokens"], ROPE["dim"]
    n, k, g = QMV["n"], QMV["k"], QMV["group"]
    dh, dkv, ds, dd = DECODE["heads"], DECODE["kv_heads"], DECODE["length"], DECODE["dim"]
    mm, mn, mk = MATMUL["m"], MATMUL["n"], MATMUL["k"]
    fh, fkv, fl, fd = FLASH["heads"], FLASH["kv_heads"], FLASH["length"], FLASH["dim"]
    causal_pairs = fl * (fl + 1) // 2
    fp16 = mx.float16
    # MLX's counterparts take the tolerances of ours (the same output precision): softmax precise
    # (float accumulation, as ours; MLX's default accumulates half in half); decode: sdpa_vector is what
    # MLX runs for 1024 keys on an M-series base/Pro/Max GPU, the 2-pass kernel (ours splits too) beside it.
    decode_shape = dict(batch=1, q_heads=dh, kv_heads=dkv, q_len=1, kv_len=ds, dim=dd, dtype=fp16)
    return [
        # FLOP of the memory-bound ops are rough (exp counted as 1); their projections are bandwidth-bound
        Case("softmax", dict(SOFTMAX, dtype="float16"), r * c, 5 * r * c, 2 * 2 * r * c, False, _softmax,
             _softmax_one_tile,
             mlx=(MlxCounterpart("MLX", "softmax", dict(rows=r, axis=c, dtype=fp16, precise=True), 1e-3, 1e-3),)),
        # ours fuses the residual add: reads x and the residual, writes the sum and the normed output;
        # MLX has no fused kernel (its add is a separate binary kernel): its rms_norm alone is beside it
        Case("add + rms_norm", dict(NORM, dtype="float16"), nr * nc, 5 * nr * nc, 2 * (4 * nr * nc + nc), False,
             _add_rms_norm,
             mlx=(MlxCounterpart("MLX rms_norm (no add)", "rms_norm", dict(rows=nr, axis=nc, dtype=fp16), 2e-2,
                                 2e-2),)),
        # ours also writes the mean and 1/std of each row (fp32)
        Case("layer_norm", dict(NORM, dtype="float32"), nr * nc, 7 * nr * nc, 4 * (2 * nr * nc + 2 * nc + 2 * nr),
             True, _layer_norm,
             mlx=(MlxCounterpart("MLX", "layer_norm", dict(rows=nr, axis=nc, dtype=mx.float32), 1e-4, 1e-4),)),
        Case("rope", dict(ROPE, dtype="float16"), h * t * d, 3 * h * t * d, 2 * 2 * h * t * d, False, _rope,
             mlx=(MlxCounterpart("MLX", "rope", dict(batch=1, heads=h, seq=t, dims=d, offset=0, dtype=fp16,
                                                     traditional=False), 1e-3, 4e-3),)),
        Case("qmv 4-bit g64", dict(QMV, dtype="float16"), n, 2 * n * k,
             n * k // 2 + 2 * 2 * n * (k // g) + 2 * k + 2 * n, False, _qmv,
             mlx=(MlxCounterpart("MLX", "qmv", dict(n=n, k=k, dtype=fp16), 1e-2, 1e-2),)),  # MLX's qmv: g64 only
        Case("decode attention", dict(DECODE, dtype="float16"), dh * dd, 4 * dh * ds * dd,
             2 * (2 * dh * dd + 2 * dkv * ds * dd), False, _decode_attention,
             mlx=(MlxCounterpart("MLX", "sdpa_vector", decode_shape, 2e-3, 2e-3),
                  MlxCounterpart("MLX 2-pass", "sdpa_vector_2pass", decode_shape, 2e-3, 2e-3))),
        Case("matmul", dict(MATMUL, dtype="float16"), mm * mn, 2 * mm * mn * mk, 2 * (mm * mk + mk * mn + mm * mn),
             False, _matmul, matrix=True,
             mlx=(MlxCounterpart("MLX", "steel_gemm", dict(m=mm, n=mn, k=mk, dtype=fp16), 2e-3, 1e-2),)),
        Case("flash attention", dict(FLASH, dtype="float16"), fh * fl * fd, 4 * fh * causal_pairs * fd,
             2 * (2 * fh * fl * fd + 2 * fkv * fl * fd), False, _flash_attention, matrix=True,
             mlx=(MlxCounterpart("MLX", "steel_attention", dict(batch=1, q_heads=fh, kv_heads=fkv, q_len=fl, kv_len=fl,
                                                                dim=fd, dtype=fp16, causal=True), 5e-3, 5e-3),)),
    ]


CASES = _cases()


# ---- running and counting -------------------------------------------------------------------------------
def check(outputs: list, expected: list, rtol: float, atol: float) -> None:
    """AssertionError unless every output matches its reference."""
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(np.array(got.astype(mx.float32)), np.array(want.astype(mx.float32)), rtol=rtol,
                                   atol=atol)


def run_counted(run: Callable, be: EmulatorBackend, seed: int = SEED) -> list[LaunchCounts]:
    """Run one kernel (one of a Case's callables) with counting on; its outputs are checked first
    (AssertionError on a mismatch)."""
    with counting() as launches:
        outputs, expected, rtol, atol = run(be, np.random.default_rng(seed))
        mx.eval(outputs)
    check(outputs, expected, rtol, atol)
    return _counted(launches)


def mlx_launches(mlx: MlxCounterpart, be: EmulatorBackend, seed: int = SEED) -> list[LaunchCounts]:
    """MLX's own Metal kernel(s) for a case, run on the emulator with counting on (every pass of a
    multi-pass op), its output checked against the mlx.core reference first."""
    with counting() as launches:
        result = mlx_kernels.run_mlx_op(mlx.op, mlx.shape, seed=seed, backend=be)
    check([result.output], [result.reference], mlx.rtol, mlx.atol)
    return _counted(launches)


def _counted(launches: list[LaunchCounts]) -> list[LaunchCounts]:
    """`launches`, refusing none: an empty list would read as a kernel that moves nothing."""
    if not launches:
        raise RuntimeError("no launch was counted: the kernel did not run through the emulator's launch path with a "
                           "counting library (EmulatorBackend, or compiler.compile_kernel inside counting())")
    return launches


@dataclass
class Column:
    """One kernel's (or the ideal's) figures for a case."""

    device_bytes: float
    device_accesses: float = math.nan
    threadgroup_bytes: float = math.nan
    barriers_per_group: float = math.nan
    mmas: float = math.nan
    counters: dict = field(default_factory=dict)  # the launches' summed counters, for the JSON


def column(launches: list[LaunchCounts]) -> Column:
    total: dict[str, int] = {}
    for launch in launches:
        for key, value in launch.total.as_dict().items():
            total[key] = total.get(key, 0) + value
    groups = sum(launch.threadgroups for launch in launches)
    return Column(total.get("device_load_bytes", 0) + total.get("device_store_bytes", 0),
                  total.get("device_loads", 0) + total.get("device_stores", 0),
                  total.get("threadgroup_load_bytes", 0) + total.get("threadgroup_store_bytes", 0),
                  total.get("barriers", 0) / max(1, groups), total.get("matrix_mmas", 0),
                  dict(total, threadgroups=groups, launches=len(launches)))


def project_us(case: Case, device_bytes: float, chip: Chip) -> float:
    """Roofline time in microseconds: the longer of moving the bytes and doing the FLOP."""
    return 1e6 * max(device_bytes / chip.bandwidth, case.flops / (chip.fp32 if case.fp32 else chip.fp16))


def _fmt(x: float) -> str:
    """Three significant digits; whole numbers from 1000 up."""
    return "-" if x != x else f"{x:.0f}" if abs(x) >= 1000 else f"{x:.3g}"


OURS = "ours (library)"
TARGETS = "| op | vs | device B (<= 1.05x) | instr/B (<= 1.25x) | barriers/TG (<= MLX's) | MMA FLOP (= Steel's) | " \
          "TG B/FLOP (<= 1.25x) |"


def target_row(case: Case, label: str, ours: Column, mlx: Column) -> str:
    """Issue 20's targets for one case: each as ours / MLX's (or ours vs MLX's barriers), and whether met."""
    def verdict(value: float, met: bool, text: Optional[str] = None) -> str:
        return f"{text or _fmt(value)} {'met' if met else '**missed**'}"

    def ratio(a: float, b: float) -> float:
        return a / b if b else (1.0 if a == b else math.inf)

    bytes_ratio = ratio(ours.device_bytes, mlx.device_bytes)
    instr_ratio = ratio(ours.device_accesses / ours.device_bytes, mlx.device_accesses / mlx.device_bytes)
    cells = [verdict(bytes_ratio, bytes_ratio <= 1.05), verdict(instr_ratio, instr_ratio <= 1.25),
             verdict(0, ours.barriers_per_group <= mlx.barriers_per_group,
                     f"{_fmt(ours.barriers_per_group)} vs {_fmt(mlx.barriers_per_group)}")]
    if case.matrix:
        mma_ratio, tg_ratio = ratio(ours.mmas, mlx.mmas), ratio(ours.threadgroup_bytes, mlx.threadgroup_bytes)
        cells += [verdict(mma_ratio, mma_ratio == 1), verdict(tg_ratio, tg_ratio <= 1.25)]
    else:
        cells += ["-", "-"]
    return f"| {case.op} | {label} | " + " | ".join(cells) + " |"


def report(cases: list[Case], be: EmulatorBackend, log: Callable[[str], None]) -> tuple[list[str], dict]:
    """The markdown tables (lines) and the figures as JSON."""
    counts_rows = ["| op | shape | kernel | device B/elem | instr/B | threadgroup B/elem | barriers/TG | "
                   "MMA FLOP/FLOP | TG B/FLOP |", "|---|---|---|---|---|---|---|---|---|"]
    target_rows = [TARGETS, "|---|---|---|---|---|---|---|"]
    proj_rows = ["| op | kernel | " + " | ".join(f"{c.name} ({c.bandwidth / 1e9:.0f} GB/s)" for c in CHIPS) + " |",
                 "|---|---|" + "---|" * len(CHIPS)]
    figures: dict[str, Any] = {}
    for case in cases:
        shape = " ".join(f"{k}={v}" for k, v in case.shape.items())
        columns: dict[str, Column | str] = {"ideal": Column(case.ideal_bytes)}
        kernels = [(OURS, case.ours)] + ([("same source", case.same_source)] if case.same_source else [])
        variants = [(label, lambda run=run: run_counted(run, be)) for label, run in kernels] + \
            [(mlx.label, lambda mlx=mlx: mlx_launches(mlx, be)) for mlx in case.mlx]
        for label, launches in variants:
            try:
                t0 = time.perf_counter()
                columns[label] = column(launches())
                log(f"{case.op} {label}: {time.perf_counter() - t0:.1f} s")
            except Exception as e:  # one broken row is reported, the others still run
                columns[label] = f"FAILED: {type(e).__name__}: {str(e)[:200]}"
        figures[case.op] = {"shape": case.shape, "elements": case.elements, "flops": case.flops,
                            "columns": {k: v if isinstance(v, str) else vars(v) for k, v in columns.items()}}
        for label, col in columns.items():
            if isinstance(col, str):
                counts_rows.append(f"| {case.op} | {shape} | {label} | {col} | | | | | |")
                continue
            mma = col.mmas * MMA_FLOP / case.flops if case.matrix else math.nan
            tg_flop = col.threadgroup_bytes / case.flops if case.matrix else math.nan
            counts_rows.append(f"| {case.op} | {shape} | {label} | {_fmt(col.device_bytes / case.elements)} | "
                               f"{_fmt(col.device_accesses / col.device_bytes)} | "
                               f"{_fmt(col.threadgroup_bytes / case.elements)} | {_fmt(col.barriers_per_group)} | "
                               f"{_fmt(mma)} | {_fmt(tg_flop)} |")
            proj_rows.append(f"| {case.op} | {label} | " + " | ".join(
                _fmt(project_us(case, col.device_bytes, chip)) for chip in CHIPS) + " |")
        ours = columns.get(OURS)
        for mlx in case.mlx:
            theirs = columns.get(mlx.label)
            if isinstance(ours, Column) and isinstance(theirs, Column):
                target_rows.append(target_row(case, mlx.label, ours, theirs))
    return counts_rows + ["", "Ours against MLX's kernel (issue 20's targets; ratios are ours / MLX's):", ""] + \
        target_rows + ["", "Projected time, microseconds (roofline; a projection, not a measurement):", ""] + \
        proj_rows, figures


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="write metal_counts.json there")
    ap.add_argument("--ops", help="comma-separated op names (default: all)")
    args = ap.parse_args(argv)
    wanted = args.ops.split(",") if args.ops else [c.op for c in CASES]
    unknown = set(wanted) - {c.op for c in CASES}
    if unknown:
        ap.error(f"unknown ops {sorted(unknown)}; choose from {[c.op for c in CASES]}")
    be = EmulatorBackend()
    lines, figures = report([c for c in CASES if c.op in wanted], be, lambda m: print(m, file=sys.stderr))
    print(f"# Metal counts on the emulator, mlx {mx.__version__}, MLX kernels {mlx_kernels.MLX_VERSION}, seed {SEED}")
    print("\n".join(lines))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "metal_counts.json").write_text(json.dumps(figures, indent=1))
    return 0 if all(not isinstance(col, str) for f in figures.values() for col in f["columns"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
