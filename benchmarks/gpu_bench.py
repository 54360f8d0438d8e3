"""Side-by-side GPU benchmark (run on the NVIDIA machine through MLX's CUDA back end).

For each kernel and LLM-size shape: our DSL kernel (tuned on this GPU first, into the tuning
database), MLX's built-in, the same kernel body run by Triton on torch tensors, and the roofline
(bytes moved / measured copy bandwidth; for matmul and flash attention the larger of that and
flops / the measured rate of torch's fp16 matmul, and the table shows their TFLOP/s). Correctness
is checked before timing. Timing: many launches per `mx.eval` (MLX synchronises per eval), inputs
rotated over >= 256 MiB so L2 does not flatter, median of repeated runs; Triton is timed the same
way with CUDA events, at the fastest of our tuned config and Triton's own tutorial configs for the
`tl.dot` kernels.

    python benchmarks/gpu_bench.py --out DIR [--trials N] [--quick | --smoke] [--no-tune] [--isolate] [--sweep]
    python benchmarks/gpu_bench.py --check [PYTEST_PATH ...]    (the DSL test corpus on the cuda back end)

--sweep measures the LLM shapes of issue 7 instead of the target table's (decode and prefill rows,
hidden and MLP sizes, vocabularies, KV lengths; fp16 and bf16), each row on the config the tuning
database gives for it (marked when that is a neighbouring shape's or the default), without Triton.
Each run writes DIR/benchmarks.md (table, device, date, versions), DIR/results.json and DIR/bench.png. Our
kernels and MLX's are timed on a lazy graph built before the clock starts (the Python cost of a
DSL call is measured apart, as the launch-overhead row).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback
import types
from dataclasses import dataclass
from typing import Any, Callable

import mlx.core as mx

import metalforge as mf
from metalforge.kernels import attention, flash_attention, matmul, norms, quantized, rope, softmax
from metalforge.launcher.function import JITFunction

ROTATE_BYTES = 256 << 20


def rotations(nbytes: int) -> int:
    return max(2, min(16, math.ceil(ROTATE_BYTES / max(1, nbytes))))


PIPELINE_CHUNK = 4  # launches per mx.async_eval in the pipelined timing


def time_mlx(make_outputs: Callable[[int], Any], copies: int, launches: int = 100, reps: int = 7,
             pipelined: bool = True) -> float:
    """Median microseconds per launch of `launches` back-to-back launches (rotating over copies).

    The lazy graph is built before the clock starts, so Python's per-call cost (the same for every MLX
    op, timed on its own by `launch_overhead`) is not counted as GPU time. Pipelined (the default):
    the launches are handed to MLX `PIPELINE_CHUNK` at a time with `mx.async_eval`, as a program (and
    mlx-lm's generation) does, so MLX's host work for the next launches overlaps the GPU running the
    last ones: on MLX's CUDA back end one `mx.eval` of all of them records every launch into one
    CUDA graph before the GPU starts, which adds MLX's host cost per launch (~8 us, measured on the
    H200, docs/benchmarks.md) to the GPU's time. `pipelined=False` times that one `mx.eval` (the
    method of the benchmarks before 2026-12-04)."""
    mx.eval(make_outputs(0))
    samples = []
    for _ in range(reps):
        outs = [make_outputs(i % copies) for i in range(launches)]
        mx.synchronize()
        t = time.perf_counter()
        if pipelined:
            for i in range(0, launches, PIPELINE_CHUNK):
                mx.async_eval(outs[i:i + PIPELINE_CHUNK])
        else:
            mx.eval(outs)
        mx.synchronize()
        samples.append((time.perf_counter() - t) / launches * 1e6)
        mx.eval(outs)
        del outs
    return statistics.median(samples)


def time_torch(launch: Callable[[int], Any], copies: int, launches: int = 100, reps: int = 7) -> float:
    """Median microseconds per launch of `launches` back-to-back launches, timed as `time_mlx` does:
    the host clock between a synchronised start and the synchronised end (the launches queue
    asynchronously meanwhile, so the host's launch cost overlaps the GPU's work)."""
    import torch

    launch(0)
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for i in range(launches):
            launch(i % copies)
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t) / launches * 1e6)
    return statistics.median(samples)


def copy_bandwidth() -> float:
    """Bytes/s of torch `y = x * 2` on 1 GiB of fp32 (read + write), the roofline's bandwidth."""
    import torch

    x = torch.randn(1 << 28, device="cuda")
    us = time_torch(lambda i: x * 2, 1, launches=10)
    return 2 * x.numel() * 4 / (us * 1e-6)


def matmul_rate() -> float:
    """FLOP/s of torch's fp16 8192^3 matmul (cuBLAS), the roofline's compute rate: what this GPU's
    matrix units deliver in practice rather than the datasheet's peak."""
    import torch

    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    us = time_torch(lambda i: a @ a, 1, launches=10)
    return 2 * 8192 ** 3 / (us * 1e-6)


def triton_version(kernel) -> Any:
    """The same kernel body compiled by Triton: its globals' `tl` swapped for triton.language, and
    the @jit helpers it calls (kernels/norms.py's rms_normalised) swapped for their Triton versions."""
    import triton
    import triton.language as ttl

    fn = kernel.fn.fn if hasattr(kernel, "fn") and hasattr(kernel.fn, "fn") else kernel.fn
    glb = dict(fn.__globals__)
    glb["tl"] = ttl
    for name in fn.__code__.co_names:
        helper = glb.get(name)
        if isinstance(helper, JITFunction) and helper.fn is not fn:
            glb[name] = triton_version(helper)
    clone = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__module__ = fn.__module__
    clone.__annotations__ = {k: ttl.constexpr for k, v in fn.__annotations__.items()
                             if v == "tl.constexpr" or getattr(v, "__name__", "") == "constexpr"}
    return triton.jit(clone)


@dataclass
class Case:
    name: str
    shape: str
    nbytes: int                          # bytes a kernel must move (read + write)
    ours: Callable[[int], Any]           # copy index -> outputs
    mlx: Callable[[int], Any] | None     # MLX built-in
    expected: Any                        # reference outputs for copy 0
    triton: Callable[[int], Any] | None = None
    tol: float = 2e-2
    tuned: str = ""
    flops: float = 0.0                   # floating-point operations (compute-bound rows)
    dims: tuple = ()                     # sizes, for the Triton launch


def max_error(got, want) -> float:
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    return max(float(mx.max(mx.abs(g.astype(mx.float32) - w.astype(mx.float32))).item()) for g, w in zip(got, want))


def _short(dtype: mx.Dtype) -> str:
    return {mx.float16: "fp16", mx.bfloat16: "bf16", mx.float32: "fp32"}[dtype]


def _tolerance(dtype: mx.Dtype, tol: float, expected: Any) -> float:
    """The largest absolute error a row accepts: `tol`, set for fp16 (or fp32) outputs; bf16 keeps 8
    significant bits to fp16's 11, so 8x that, or two units in the last place of the largest
    expected value when that is more."""
    if dtype != mx.bfloat16:
        return tol
    outputs = expected if isinstance(expected, (tuple, list)) else (expected,)
    biggest = max(float(mx.max(mx.abs(o.astype(mx.float32))).item()) for o in outputs)
    return max(8 * tol, 2 ** -6 * biggest)


def softmax_case(rows: int, cols: int, dtype: mx.Dtype) -> Case:
    xs = [mx.random.normal((rows, cols)).astype(dtype) for _ in range(rotations(rows * cols * dtype.size))]
    ref = softmax.reference(xs[0])
    return Case("softmax", f"{rows}x{cols} {_short(dtype)}", 2 * rows * cols * dtype.size,
                lambda i: softmax.softmax(xs[i]), lambda i: mx.softmax(xs[i], axis=-1), ref,
                tol=_tolerance(dtype, 2e-2, ref))


def rms_norm_case(rows: int, d: int, dtype: mx.Dtype) -> Case:
    """Residual add + RMS norm: reads x, the residual and w; writes the output and the sum."""
    xs = [mx.random.normal((rows, d)).astype(dtype) for _ in range(rotations(rows * d * 2 * dtype.size))]
    rs = [mx.random.normal((rows, d)).astype(dtype) for _ in range(len(xs))]
    w = mx.random.normal((d,)).astype(dtype)
    ref = norms.add_rms_norm_reference(xs[0], rs[0], w)
    return Case("add + rms_norm", f"{rows}x{d} {_short(dtype)}", 4 * rows * d * dtype.size,
                lambda i: norms.add_rms_norm(xs[i], rs[i], w),
                lambda i: (mx.fast.rms_norm(xs[i] + rs[i], w, 1e-5), xs[i] + rs[i]), ref,
                tol=_tolerance(dtype, 2e-2, ref))


def layer_norm_case(rows: int, d: int, dtype: mx.Dtype) -> Case:
    xs = [mx.random.normal((rows, d)).astype(dtype) for _ in range(rotations(rows * d * 2 * dtype.size))]
    w, b = mx.random.normal((d,)).astype(dtype), mx.random.normal((d,)).astype(dtype)
    ref = norms.layer_norm_reference(xs[0], w, b)[0]
    return Case("layer_norm", f"{rows}x{d} {_short(dtype)}", 2 * rows * d * dtype.size,
                lambda i: norms.layer_norm(xs[i], w, b)[0], lambda i: mx.fast.layer_norm(xs[i], w, b, 1e-5), ref,
                tol=_tolerance(dtype, 1e-3 if dtype == mx.float32 else 2e-2, ref))


def rope_case(t: int, h: int, hd: int, dtype: mx.Dtype) -> Case:
    xs = [mx.random.normal((h, t, hd)).astype(dtype) for _ in range(rotations(h * t * hd * 2 * dtype.size))]
    ref = rope.reference(xs[0])
    return Case("rope", f"T={t} H={h} D={hd} {_short(dtype)}", 2 * h * t * hd * dtype.size,
                lambda i: rope.rope(xs[i]),
                lambda i: mx.fast.rope(xs[i][None], hd, traditional=False, base=10000.0, scale=1.0, offset=0)[0],
                ref, tol=_tolerance(dtype, 2e-2, ref))


def qmv_case(n: int, k: int, dtype: mx.Dtype) -> Case:
    """4-bit matrix-vector product, MLX's format with groups of 64."""
    ws = [mx.quantize(mx.random.normal((n, k)).astype(dtype), group_size=64, bits=4)
          for _ in range(rotations(n * k // 2))]
    xv = mx.random.normal((k,)).astype(dtype)
    q_bytes = n * k // 2 + 2 * (n * k // 64) * dtype.size + (k + n) * dtype.size
    return Case("qmv 4-bit g64", f"N={n} K={k} {_short(dtype)}", q_bytes, lambda i: quantized.qmv(xv, *ws[i]),
                lambda i: mx.quantized_matmul(xv[None], *ws[i], transpose=True, group_size=64, bits=4)[0],
                quantized.reference(xv, *ws[0]), tol=5e-1)


def decode_attention_case(s: int, hq: int, hkv: int, hd: int, dtype: mx.Dtype) -> Case:
    kvs = [(mx.random.normal((hkv, s, hd)).astype(dtype), mx.random.normal((hkv, s, hd)).astype(dtype))
           for _ in range(rotations(2 * hkv * s * hd * dtype.size))]
    q = mx.random.normal((hq, hd)).astype(dtype)
    ref = attention.reference(q, *kvs[0])
    return Case("decode attention", f"h{hq}/kv{hkv} d{hd} S={s} {_short(dtype)}", 2 * hkv * s * hd * dtype.size,
                lambda i: attention.decode_attention(q, *kvs[i]),
                lambda i: mx.fast.scaled_dot_product_attention(q[None, :, None, :], kvs[i][0][None], kvs[i][1][None],
                                                               scale=hd ** -0.5)[0, :, 0],
                ref, tol=_tolerance(dtype, 1e-2, ref))


def matmul_case(m: int, n: int, k: int, dtype: mx.Dtype) -> Case:
    """Entries scaled so that the products have unit variance: `tol` (absolute) means the same at any K."""
    ab = [(mx.random.normal((m, k)) * k ** -0.25).astype(dtype) for _ in range(rotations(2 * (m + n) * k))]
    bb = [(mx.random.normal((k, n)) * k ** -0.25).astype(dtype) for _ in range(len(ab))]
    ref = matmul.reference(ab[0], bb[0])
    return Case("matmul", f"{m}x{n}x{k} {_short(dtype)}", dtype.size * (m * k + k * n + m * n),
                lambda i: matmul.matmul(ab[i], bb[i]), lambda i: ab[i] @ bb[i], ref,
                tol=_tolerance(dtype, 2e-2, ref), flops=2 * m * n * k, dims=(m, n, k))


def flash_attention_case(h: int, hkv: int, length: int, d: int, dtype: mx.Dtype) -> Case:
    """Causal prefill attention with grouped KV heads."""
    qkv = [tuple(mx.random.normal(shape).astype(dtype) for shape in ((h, length, d), (hkv, length, d),
                                                                      (hkv, length, d)))
           for _ in range(rotations(2 * (h + hkv) * length * d * dtype.size))]
    ref = flash_attention.reference(*qkv[0])
    return Case("causal flash attention", f"h{h}/kv{hkv} d{d} L={length} {_short(dtype)}",
                2 * (h + hkv) * length * d * dtype.size, lambda i: flash_attention.flash_attention(*qkv[i]),
                lambda i: mx.fast.scaled_dot_product_attention(*(x[None] for x in qkv[i]), scale=d ** -0.5,
                                                               mask="causal")[0],
                ref, tol=_tolerance(dtype, 1e-2, ref),
                flops=2 * h * length * length * d,  # two products of 2*L*L*D per head, half under the mask
                dims=(h, hkv, length, d))


@dataclass
class Spec:
    """A benchmark row before its inputs exist: built when it is measured, so a sweep of large
    shapes holds one row's inputs at a time."""
    name: str
    build: Callable[[], Case]
    sizes: str  # the builder's arguments, for a row whose inputs could not be built


def _spec(builder: Callable[..., Case], *args: Any) -> Spec:
    name = {softmax_case: "softmax", rms_norm_case: "add + rms_norm", layer_norm_case: "layer_norm",
            rope_case: "rope", qmv_case: "qmv 4-bit g64", decode_attention_case: "decode attention",
            matmul_case: "matmul", flash_attention_case: "causal flash attention"}[builder]
    return Spec(name, lambda: builder(*args), " ".join(map(str, args)))


def _tuned_calls() -> dict[tuple, tuple]:
    """Calls so far that ran without a config tuned for their exact key: (kernel, shape, dtypes) ->
    (where the config came from, calls)."""
    return {(r["kernel"], tuple(r["shape"]), tuple(r["dtypes"])): (r["source"], r["calls"])
            for r in mf.tuning_report()}


def standard_specs(quick: bool, smoke: bool = False) -> list[Spec]:
    """The rows of the issue's target table (one shape per kernel; --quick and --smoke shrink them)."""
    rows = 8 if smoke else 512 if quick else 4096
    f16 = mx.float16
    return [_spec(softmax_case, rows, 32000, f16), _spec(rms_norm_case, rows, 8192, f16),
            _spec(layer_norm_case, rows, 8192, mx.float32),
            _spec(rope_case, 8 if smoke else 512 if quick else 4096, 32, 128, f16),
            _spec(qmv_case, *((256, 512) if smoke else (14336, 4096)), f16),
            _spec(decode_attention_case, 100 if smoke else 1024 if quick else 8192, 32, 8, 128, f16),
            _spec(matmul_case, *((64, 96, 80) if smoke else (1024,) * 3 if quick else (4096,) * 3), f16),
            _spec(flash_attention_case, *((4, 2, 40, 64) if smoke else (32, 8, 512 if quick else 2048, 64)), f16)]


def sweep_specs(smoke: bool = False) -> list[Spec]:
    """The LLM shapes of issue 7, fp16 and bf16: decode (1..8 rows) and prefill (512..4096 rows) at
    hidden sizes 2048..8192 and MLP sizes up to 14336, vocabularies 32000..152064, KV lengths 1k..32k.
    --smoke scales every size down (a check that each row runs)."""
    def z(n: int, small: int) -> int:
        return small if smoke else n
    specs = []
    for dtype in (mx.float16, mx.bfloat16):
        for rows in (8, 4096):
            for vocab in (32000, 152064):
                specs.append(_spec(softmax_case, z(rows, rows % 5 + 1), z(vocab, vocab % 1000 + 700), dtype))
        for rows in (1, 8, 512, 4096):
            for d in (2048, 8192):
                specs.append(_spec(rms_norm_case, z(rows, rows % 7 + 1), z(d, d // 8), dtype))
        for rows in (8, 4096):
            for d in (2048, 8192):
                specs.append(_spec(layer_norm_case, z(rows, rows % 5 + 1), z(d, d // 8), dtype))
        for t in (512, 4096):
            specs.append(_spec(rope_case, z(t, t // 64), z(32, 2), 128, dtype))
        for n, k in ((4096, 4096), (14336, 4096), (4096, 14336)):
            specs.append(_spec(qmv_case, z(n, n // 64), z(k, k // 16), dtype))
        for s in (1024, 8192, 32768):
            specs.append(_spec(decode_attention_case, z(s, s // 32 + 5), z(32, 4), z(8, 2), 128, dtype))
        for m in (8, 512, 4096):
            for n, k in ((4096, 4096), (14336, 4096), (4096, 14336)):
                specs.append(_spec(matmul_case, z(m, m % 60 + 5), z(n, n // 128), z(k, k // 128), dtype))
        for length in (512, 2048, 8192):
            for d in (64, 128):
                specs.append(_spec(flash_attention_case, z(32, 2), z(8, 1), z(length, length // 128 + 3), d, dtype))
    return specs


# benchmark row -> the library kernel it runs
ROW_KERNELS = {"softmax": "softmax_kernel", "add + rms_norm": "add_rms_norm_kernel", "layer_norm": "layer_norm_kernel",
               "rope": "rope_kernel", "qmv 4-bit g64": "qmv_kernel", "decode attention": "decode_attention_kernel",
               "matmul": "matmul_kernel", "causal flash attention": "flash_attention_kernel"}


# Spaces of hundreds of configs get more trials than the few-dozen ones.
LARGE_SPACES = {"matmul_kernel": 3, "flash_attention_kernel": 2}


def benchmark_shapes(quick: bool) -> dict[str, list[tuple]]:
    """Each library kernel's benchmark shapes, as its `tune_args` takes them (those of the target
    table's rows; --quick shrinks them). benchmarks/energy_bench.py measures at the same shapes."""
    return {"softmax_kernel": [(512 if quick else 4096, 32000)],
            "add_rms_norm_kernel": [(512 if quick else 4096, 8192)],
            "layer_norm_kernel": [(512 if quick else 4096, 8192)],
            "rope_kernel": [(32, 512 if quick else 4096, 128)],
            "qmv_kernel": [(14336, 4096)],
            "decode_attention_kernel": [(32, 8, 1024 if quick else 8192, 128)],
            "matmul_kernel": [(1024,) * 3 if quick else (4096,) * 3],
            "flash_attention_kernel": [(32, 8, 512 if quick else 2048, 64)]}


def tune_library(cases_quick: bool, trials: int, log, only: set[str] | None = None) -> None:
    """Tune each library kernel (those in `only`, when given) for the benchmark shapes on this GPU
    (winners go to the database)."""
    from metalforge.kernels import registered

    shapes = benchmark_shapes(cases_quick)
    for name, tuner in registered().items():
        if only is not None and name not in only:
            continue
        for shape in shapes.get(name, []):
            dtype = tuner.dtypes[0]
            grid, args = tuner.tune_case(shape, dtype)
            if tuner.config_for(grid, *args)[1] == "exact":  # tuned already (a carried database)
                log(f"{name} {shape}: tuned config found")
                continue
            t = time.perf_counter()
            try:
                config = tuner.tune(grid, *args, trials=trials * LARGE_SPACES.get(name, 1), progress=False)
                log(f"tuned {name} {shape}: {config} in {time.perf_counter() - t:.0f} s")
            except Exception as e:
                log(f"tuning {name} {shape} failed: {e}")
        tuner.clear_cache()


# Triton's own fp16 configs for these kernels (its matmul and fused-attention tutorials), tried
# besides our tuned config: Triton runs at its best, software pipelining (num_stages) included.
MATMUL_TRITON_CONFIGS = [
    {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "num_warps": w, "num_stages": st}
    for bm, bn, bk, w, st in ((128, 256, 64, 8, 3), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                              (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 2, 5), (32, 64, 32, 2, 5))]
ATTENTION_TRITON_CONFIGS = [
    {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": w, "num_stages": st}
    for bm, bn, w, st in ((128, 64, 8, 3), (128, 64, 4, 3), (128, 128, 8, 3), (64, 64, 4, 4), (64, 32, 4, 4))]


def fastest_triton(name: str, launch: Callable[[int, dict], Any], configs: list[dict], log,
                   timer: Callable[..., float] = time_torch) -> Callable[[int], Any]:
    """`launch` bound to the fastest of `configs` (meta values), as Triton's autotuner would pick it;
    configs that fail (e.g. out of shared memory) are skipped. `timer`: time_torch for Triton's
    launches, time_mlx for ours."""
    best: tuple[float, dict] | None = None
    for meta in configs:
        try:
            us = timer(lambda i: launch(i, meta), 2, launches=5, reps=3)
        except Exception as e:
            log(f"{name} triton {meta}: {type(e).__name__}: {str(e)[:200]}")
            continue
        if best is None or us < best[0]:
            best = (us, meta)
    if best is None:
        raise RuntimeError("no Triton config ran")
    log(f"{name} triton config {best[1]}")
    return lambda i: launch(i, best[1])


def triton_cases(cases: list[Case], log) -> None:
    """Attach the Triton runs (same kernel bodies) where the launch maps directly."""
    import torch

    by = {c.name: c for c in cases}
    try:
        sm = triton_version(softmax.softmax_kernel)
        c = by["softmax"]
        rows, cols = map(int, c.shape.split()[0].split("x"))
        xs = [torch.randn(rows, cols, device="cuda", dtype=torch.float16) for _ in range(2)]
        out = torch.empty(rows, cols, device="cuda", dtype=torch.float16)
        c.triton = lambda i: sm[(rows,)](xs[i % 2], out, cols, cols, BLOCK=4096, num_warps=8)
    except Exception as e:
        log(f"triton softmax: {e}")
    try:
        rk = triton_version(norms.add_rms_norm_kernel)
        c = by["add + rms_norm"]
        rows, d = map(int, c.shape.split()[0].split("x"))
        xs = [torch.randn(rows, d, device="cuda", dtype=torch.float16) for _ in range(4)]
        w = torch.randn(d, device="cuda", dtype=torch.float16)
        o1, o2 = torch.empty_like(xs[0]), torch.empty_like(xs[0])
        c.triton = lambda i: rk[(rows,)](xs[i % 2], xs[2 + i % 2], w, o1, o2, d, 1e-5, BLOCK=d, num_warps=8)
    except Exception as e:
        log(f"triton rms: {e}")
    try:
        lk = triton_version(norms.layer_norm_kernel)
        c = by["layer_norm"]
        rows, d = map(int, c.shape.split()[0].split("x"))
        xs = [torch.randn(rows, d, device="cuda") for _ in range(2)]
        w, b = torch.randn(d, device="cuda"), torch.randn(d, device="cuda")
        o, m, r = torch.empty_like(xs[0]), torch.empty(rows, device="cuda"), torch.empty(rows, device="cuda")
        c.triton = lambda i: lk[(rows,)](xs[i % 2], w, b, o, m, r, d, 1e-5, BLOCK=d, num_warps=8)
    except Exception as e:
        log(f"triton layer_norm: {e}")
    try:
        ropek = triton_version(rope.rope_kernel)
        c = by["rope"]
        h, t, hd = 32, int(c.shape.split()[0].split("=")[1]), 128
        xs = [torch.randn(h * t * hd, device="cuda", dtype=torch.float16) for _ in range(4)]
        o = torch.empty_like(xs[0])
        c.triton = lambda i: ropek[(t // 16, h // 8)](xs[i % 4], o, h, t, math.log(10000.0), hd // 2, BLOCK_T=16,
                                                     HEADS=8, num_warps=4)
    except Exception as e:
        log(f"triton rope: {e}")
    try:
        mmk = triton_version(matmul.matmul_kernel)
        c = by["matmul"]
        m, n, k = c.dims
        ab = [(torch.randn(m, k, device="cuda") * k ** -0.25).half() for _ in range(2)]
        bb = [(torch.randn(k, n, device="cuda") * k ** -0.25).half() for _ in range(2)]
        o = torch.empty(m, n, device="cuda", dtype=torch.float16)

        def launch_mm(i: int, meta: dict) -> Any:
            return mmk[(mf.cdiv(m, meta["BLOCK_M"]) * mf.cdiv(n, meta["BLOCK_N"]),)](ab[i], bb[i], o, m, n, k, **meta)

        ours = matmul.matmul_kernel.config_for(matmul.launch_grid(m, n), mx.zeros((m, k), mx.float16),
                                               mx.zeros((k, n), mx.float16), mf.empty((m, n), mx.float16), m, n, k)[0]
        c.triton = fastest_triton(c.name, launch_mm, [ours.all_kwargs(), *MATMUL_TRITON_CONFIGS], log)
        c.triton(0)
        log(f"matmul triton: max error vs torch {float((o.float() - ab[0].float() @ bb[0].float()).abs().max()):.3g}")
    except Exception as e:
        log(f"triton matmul: {e}")
    try:
        fak = triton_version(flash_attention.flash_attention_kernel)
        c = by["causal flash attention"]
        h, hkv, length, d = c.dims
        qkv = [[torch.randn(heads, length, d, device="cuda", dtype=torch.float16) for heads in (h, hkv, hkv)]
               for _ in range(2)]
        o = torch.empty(h, length, d, device="cuda", dtype=torch.float16)

        def launch_fa(i: int, meta: dict) -> Any:
            return fak[(mf.cdiv(length, meta["BLOCK_M"]), h)](*qkv[i], o, length, d ** -0.5, h // hkv, d, True, **meta)

        q0, k0 = mx.zeros((h, length, d), mx.float16), mx.zeros((hkv, length, d), mx.float16)
        ours = flash_attention.flash_attention_kernel.config_for(flash_attention.launch_grid(h, length),
                                                                 *flash_attention.kernel_args(q0, k0, k0, True))[0]
        c.triton = fastest_triton(c.name, launch_fa, [ours.all_kwargs(), *ATTENTION_TRITON_CONFIGS], log)
        c.triton(0)
        want = torch.nn.functional.scaled_dot_product_attention(*(x[None] for x in qkv[0]), is_causal=True,
                                                                enable_gqa=True)[0]
        log(f"flash attention triton: max error vs torch {float((o.float() - want.float()).abs().max()):.3g}")
    except Exception as e:
        log(f"triton flash attention: {e}")


def launch_overhead() -> dict:
    """Host time of one cached launch through the autotuned entry point users call (its tuned config)
    and of the raw MLX call it makes (`mx.fast.precompiled_cuda_kernel` with the same compiled code, scalars
    and outputs, recorded from the launch; same GPU work, queued without evaluation): the
    difference is what dispatch adds. benchmarks/dsl_bench.py measures more kernels."""
    x = mx.zeros((4 * 1024,), mx.float16)

    def dsl() -> Any:
        return softmax.softmax_kernel[(4,)](x, mf.empty((4, 1024), mx.float16), 1024, 1024)
    mx.eval(dsl())
    calls, launch = [], mx.fast.precompiled_cuda_kernel
    mx.fast.precompiled_cuda_kernel = lambda **call: calls.append(call) or launch(**call)
    try:
        mx.eval(dsl())
    finally:
        mx.fast.precompiled_cuda_kernel = launch
    if not calls:
        raise RuntimeError("the DSL launch did not go through mx.fast.precompiled_cuda_kernel (NVRTC missing?)")
    recorded = calls[-1]

    def direct() -> Any:
        return launch(**recorded)
    mx.eval(direct())

    def per_call_us(fn, n: int = 1000) -> float:
        samples = []
        for _ in range(5):
            t = time.perf_counter()
            outs = [fn() for _ in range(n)]
            samples.append((time.perf_counter() - t) / n * 1e6)
            mx.eval(outs)
        return statistics.median(samples)
    dsl_us, raw_us = per_call_us(dsl), per_call_us(direct)
    return {"dsl_launch_us": dsl_us, "raw_mlx_call_us": raw_us, "overhead_us": dsl_us - raw_us,
            "code_bytes": len(recorded["compiled_source"])}


OVERHEAD = "launch overhead"


def run_isolated(name: str, args, log) -> list[dict]:
    """The rows of one kernel, measured by a fresh process of this script (tuning already done)."""
    import subprocess
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".json") as rows:
        command = [sys.executable, os.path.abspath(__file__), "--only", name, "--no-tune", "--out", args.out,
                   "--rows-out", rows.name] + ["--quick"] * args.quick + ["--smoke"] * args.smoke \
            + ["--sweep"] * args.sweep
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
            found = json.loads(open(rows.name).read() or "[]") if done.returncode == 0 else []
        except subprocess.TimeoutExpired:
            done, found = None, []
    if found:
        for row in found:
            log(json.dumps(row))
        return found
    tail = (done.stdout + done.stderr)[-1500:] if done is not None else "timed out after 600 s"
    log(f"{name}: the measuring process failed:\n{tail}")
    return [{"kernel": name, "shape": "-", "error": tail.strip().splitlines()[-1] if tail.strip() else "failed"}]


def check_corpus(paths: list[str]) -> int:
    """The DSL test corpus on the cuda back end (the GPU's correctness check, issue 7): every test
    kernel's CUDA source compiled by NVRTC through MLX and compared with its float64 reference."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, METALFORGE_BACKEND="cuda")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *paths],
                          cwd=root, env=env).returncode


def _rates(results: list[dict]) -> tuple:
    """The copy bandwidth and matmul rate the workers measured (any one's)."""
    for row in results:
        if row.get("bandwidth"):
            return row["bandwidth"], row["matmul_rate"]
    return None, None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench-out")
    ap.add_argument("--trials", type=int, default=12)
    ap.add_argument("--quick", action="store_true", help="small shapes (a smoke run)")
    ap.add_argument("--no-tune", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="tiny shapes, one timing each: checks the script runs")
    ap.add_argument("--isolate", action="store_true",
                    help="measure each kernel in its own process, so a fault (illegal address) costs one row")
    ap.add_argument("--check", nargs="*", metavar="TESTS",
                    help="run the DSL test corpus (default tests/dsl tests/kernels, or these pytest paths) on "
                         "the cuda back end instead of benchmarking; exits with pytest's status")
    ap.add_argument("--sweep", action="store_true",
                    help="the LLM shape sweep (decode and prefill sizes, fp16 and bf16) instead of the target "
                         "table's shapes; rows run on the tuned configs the database gives (tuning covers the "
                         "table's shapes), no Triton column")
    ap.add_argument("--rows", help="comma-separated benchmark rows to run (default: all), e.g. 'matmul,softmax'")
    ap.add_argument("--only", help=argparse.SUPPRESS)       # one kernel (the worker side of --isolate)
    ap.add_argument("--rows-out", help=argparse.SUPPRESS)   # where that worker writes its rows
    args = ap.parse_args()
    if args.check is not None:
        return check_corpus(args.check or ["tests/dsl", "tests/kernels"])
    os.makedirs(args.out, exist_ok=True)
    os.environ.setdefault("METALFORGE_DB", os.path.join(args.out, "tuning.sqlite"))
    log_lines: list[str] = []

    def log(msg: str) -> None:
        print(msg, flush=True)
        log_lines.append(msg)

    device = mx.device_info().get("device_name", "?")
    log(f"device {device}; mlx {mx.__version__}; metalforge {mf.__version__}; back end "
        f"{mf.runtime.resolve_backend().name}")
    rows = set(args.rows.split(",")) if args.rows else None
    if not (args.no_tune or args.smoke):
        tune_library(args.quick, args.trials, log, {ROW_KERNELS[r] for r in rows if r in ROW_KERNELS} if rows else None)
    specs = sweep_specs(args.smoke) if args.sweep else standard_specs(args.quick, args.smoke)
    if rows:
        specs = [spec for spec in specs if spec.name in rows]
    if args.isolate:
        names = list(dict.fromkeys(spec.name for spec in specs))
        names += [OVERHEAD] * (not args.smoke and not args.sweep and (rows is None or OVERHEAD in rows))
        results = [row for name in names for row in run_isolated(name, args, log)]
        write_report(results, args.out, device, *_rates(results), log_lines, args.sweep)
        return 0
    if args.only:
        specs = [spec for spec in specs if spec.name == args.only]
    if args.smoke:
        global time_mlx
        timing = time_mlx
        time_mlx = lambda make, copies: timing(make, copies, launches=2, reps=1)  # noqa: E731
    # the sweep builds each row's inputs when it measures it, and has no Triton runs
    cases: list = specs if args.sweep else [spec.build() for spec in specs]
    try:
        if not args.sweep:
            triton_cases(cases, log)
        bandwidth, rate = copy_bandwidth(), matmul_rate()
        log(f"copy bandwidth {bandwidth / 1e12:.2f} TB/s; torch fp16 matmul {rate / 1e12:.0f} TFLOP/s")
    except Exception as e:
        log(f"torch/triton unavailable: {e}")
        bandwidth = rate = None
    results = []
    for item in cases:
        row = {"kernel": item.name, "shape": item.sizes if isinstance(item, Spec) else item.shape}
        try:
            c = item.build() if isinstance(item, Spec) else item
            row["shape"] = c.shape
            untuned = _tuned_calls()
            got = c.ours(0)
            mx.eval(got)
            # where our config came from: the database's exact key, else a neighbour's or the default
            row["config_from"] = ",".join(sorted({source for key, (source, calls) in _tuned_calls().items()
                                                  if untuned.get(key, (None, 0))[1] < calls})) or "exact"
            row["max_error"] = err = max_error(got, c.expected)
            row["correct"] = bool(err <= c.tol)
            if not row["correct"]:
                log(f"{c.name}: WRONG (max error {err:.3g} > {c.tol})")
            copies = rotations(c.nbytes)
            row["ours_us"] = time_mlx(c.ours, copies)
            if c.mlx is not None:
                row["mlx_us"] = time_mlx(c.mlx, copies)
            if c.triton is not None:
                try:
                    row["triton_us"] = time_torch(c.triton, 2)
                except Exception as e:
                    log(f"{c.name} triton: {e}")
            if bandwidth:
                row["roofline_us"] = max(c.nbytes / bandwidth, c.flops / rate) * 1e6
            if c.flops:
                for side in ("ours", "mlx", "triton"):
                    if f"{side}_us" in row:
                        row[f"{side}_tflops"] = c.flops / row[f"{side}_us"] / 1e6
        except Exception as e:
            row["error"] = f"{type(e).__name__}: {e}"
            log(f"{item.name}: {row['error']}\n{traceback.format_exc()[-2000:]}")
        results.append(row)
        log(json.dumps(row))
        c = got = None  # the sweep builds the next row's inputs only after this row's are freed
    if not args.sweep and not args.smoke and args.only in (None, OVERHEAD) and mf.runtime.resolve_backend().name == "cuda":
        overhead = launch_overhead()
        log(f"cached DSL launch {overhead['dsl_launch_us']:.1f} us, raw mx.fast.precompiled_cuda_kernel call "
            f"{overhead['raw_mlx_call_us']:.1f} us (code {overhead['code_bytes']} bytes): dispatch adds "
            f"{overhead['overhead_us']:.1f} us")
        results.append({"kernel": OVERHEAD, "shape": "softmax 4x1024 fp16", **overhead})
    for row in results:
        row.update(bandwidth=bandwidth, matmul_rate=rate)
    if args.rows_out:
        with open(args.rows_out, "w") as fh:
            json.dump(results, fh)
        return 0
    write_report(results, args.out, device, bandwidth, rate, log_lines, args.sweep)
    return 0


def write_report(results, out, device, bandwidth, rate, log_lines, sweep: bool = False) -> None:
    def f(x, fmt="{:.1f}"):
        return fmt.format(x) if isinstance(x, (int, float)) else "-"

    backend = mf.runtime.resolve_backend().name
    lines = [f"# GPU benchmark{' (LLM shape sweep)' if sweep else ''}: {device}", "",
             *([f"**Not the GPU ({backend} back end): a smoke run of the script, its times measure nothing** "
                "(the emulator runs each kernel when it is called, before the timed evaluation).", ""]
               if backend != "cuda" else []),
             f"{time.strftime('%Y-%m-%d')}, mlx {mx.__version__} ({backend} back end), metalforge {mf.__version__}, "
             f"Python {platform.python_version()}; copy bandwidth "
             f"{f(bandwidth / 1e12 if bandwidth else None, '{:.2f}')} TB/s, torch fp16 matmul "
             f"{f(rate / 1e12 if rate else None, '{:.0f}')} TFLOP/s.", "",
             "| kernel | shape | correct (max err) | ours us | MLX us | Triton us | roofline us | ours/MLX | "
             "ours/Triton | roofline/ours | TFLOP/s ours / MLX / Triton |", "|---" * 11 + "|"]
    overhead = [r for r in results if r["kernel"] == OVERHEAD]
    results = [r for r in results if r["kernel"] != OVERHEAD]
    for r in results:
        o, m, t, rf = (r.get(k) for k in ("ours_us", "mlx_us", "triton_us", "roofline_us"))
        tflops = " / ".join(f(r.get(f"{side}_tflops"), "{:.0f}") for side in ("ours", "mlx", "triton")) \
            if "ours_tflops" in r else "-"
        shape = r["shape"] + (f" ({r['config_from']} config)" if r.get("config_from", "exact") != "exact" else "")
        lines.append(f"| {r['kernel']} | {shape} | {r.get('correct', r.get('error', '-'))} "
                     f"({f(r.get('max_error'), '{:.2g}')}) | {f(o)} | {f(m)} | {f(t)} | {f(rf)} | "
                     f"{f(o / m if o and m else None, '{:.2f}')} | {f(o / t if o and t else None, '{:.2f}')} | "
                     f"{f(rf / o if o and rf else None, '{:.0%}')} | "
                     f"{tflops} |")
    for r in overhead:
        lines += ["", f"Cached autotuned DSL launch ({r['shape']}): {f(r['dsl_launch_us'])} us per call; the raw "
                      f"`mx.fast.precompiled_cuda_kernel` call it makes {f(r['raw_mlx_call_us'])} us (compiled code of "
                      f"{r['code_bytes']} bytes); the DSL adds {f(r['overhead_us'])} us (Python, per call)."]
    with open(os.path.join(out, "benchmarks.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "results.json"), "w") as fh:
        json.dump({"device": device, "bandwidth": bandwidth, "matmul_rate": rate, "results": results, "log": log_lines},
                  fh, indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = [r["kernel"] for r in results]
        fig, ax = plt.subplots(figsize=(10, 4))
        for j, (key, label) in enumerate((("ours_us", "metalforge"), ("mlx_us", "MLX"), ("triton_us", "Triton"),
                                          ("roofline_us", "roofline"))):
            ax.bar([i + 0.2 * j for i in range(len(names))], [r.get(key) or 0 for r in results], 0.2, label=label)
        ax.set_xticks([i + 0.3 for i in range(len(names))], names, rotation=20)
        ax.set_ylabel("us per launch")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "bench.png"), dpi=110)
    except Exception as e:
        print(f"no plot: {e}")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
