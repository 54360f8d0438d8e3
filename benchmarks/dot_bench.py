"""`tl.dot` kernels on the H200 (issue 17's target table): the library's matmul and causal flash
attention against the same kernel source run by Triton and against MLX's own kernels.

Rows (fp16):
- matmul 4096^3: ours at the fastest of OUR_MATMUL configs, Triton (same source) at the fastest of
  its tutorial configs and ours, MLX `a @ b`;
- matmul M=8 and M=512 with (N, K) in (4096, 4096), (14336, 4096), (4096, 14336): ours vs MLX;
- causal flash attention h32/kv8: d64 L=2048, d128 L=4096 and L=8192: ours vs Triton vs MLX's sdpa.

Every row is checked against a float32 reference before it is timed (MLX's own fp32 kernels on the
GPU, independent of ours). Timing is gpu_bench's, alike for every column: the host clock around
back-to-back launches with inputs rotated over >= 256 MiB (time_mlx: pipelined with mx.async_eval;
time_torch), the median of repeats. A failing
row prints `FAILED: reason` and the script goes on.

    python3 benchmarks/dot_bench.py --out DIR                      (~4 minutes: every row)
    python3 benchmarks/dot_bench.py --out DIR --only mm4096 --reps 1   (one launch of each kernel of
        one row, the first config of each list, no search: for `ncu --kernel-name regex:matmul ...`)
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import mlx.core as mx

import metalforge as mf
from metalforge.kernels import flash_attention, matmul

sys.path.insert(0, str(Path(__file__).parent))
from runlog import Log  # noqa: E402
from gpu_bench import (ATTENTION_TRITON_CONFIGS, MATMUL_TRITON_CONFIGS, fastest_triton, max_error,  # noqa: E402
                       rotations, time_mlx, time_torch, triton_version)


def _mm(bm: int, bn: int, bk: int, warps: int, stages: int, group: int = 8, wgmma: bool = False) -> dict:
    return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": group, "num_warps": warps, "num_stages": stages,
            **({"wgmma": True} if wgmma else {})}


def _fa(bm: int, bn: int, warps: int, stages: int, wgmma: bool = False) -> dict:
    return {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": warps, "num_stages": stages, **({"wgmma": True} if wgmma else {})}


# Our candidates, fastest first as far as we know (the first is the one `--reps 1` runs). The wider
# tiles (128x256, 256x128) and 64-deep K steps need the CUDA back end's dynamic shared memory; the
# M = 512 list has tiles that make 2-4 programs per SM (512 x 4096 at 128x128 is 128 tiles on 132
# SMs, one 8-warp program each); the M = 8 list has deep K steps (more bytes in flight per program
# where N / BLOCK_N is about the number of SMs) in place of a split K.
OUR_MATMUL = [_mm(128, 128, 64, 8, 3), _mm(128, 128, 32, 8, 3), _mm(128, 128, 32, 8, 4), _mm(128, 128, 64, 8, 4),
              _mm(128, 256, 32, 8, 3), _mm(128, 256, 64, 8, 3), _mm(256, 128, 64, 8, 3), _mm(128, 64, 64, 4, 4),
              # Hopper's wgmma (the CUDA back end on sm_90; BLOCK_M = 16 * num_warps, BLOCK_K 64; a ring of
              # num_stages + 1 buffers: 128x256 s3 is 193 KB, 128x128 w4 s2 97 KB, two programs an SM)
              _mm(128, 256, 64, 8, 3, wgmma=True), _mm(128, 256, 64, 8, 2, wgmma=True),
              _mm(256, 128, 64, 8, 3, wgmma=True), _mm(128, 256, 64, 8, 3, 16, wgmma=True),
              _mm(128, 128, 64, 8, 4, wgmma=True), _mm(128, 128, 64, 4, 4, wgmma=True),
              _mm(128, 128, 64, 4, 2, wgmma=True)]
OUR_SKINNY = {8: [_mm(16, 32, 64, 2, 4, 1), _mm(16, 64, 64, 4, 4, 1), _mm(16, 32, 128, 4, 3, 1),
                  _mm(16, 32, 128, 2, 4, 1), _mm(16, 16, 128, 2, 4, 1), _mm(16, 16, 256, 2, 4, 1),
                  _mm(16, 32, 256, 4, 3, 1), _mm(16, 64, 128, 4, 4, 1)],
              512: [_mm(128, 128, 32, 8, 3), _mm(64, 128, 32, 4, 4), _mm(64, 64, 64, 4, 3), _mm(128, 128, 64, 8, 3),
                    _mm(64, 128, 64, 4, 4), _mm(128, 64, 64, 4, 4), _mm(64, 64, 64, 4, 4), _mm(64, 256, 32, 8, 3),
                    _mm(128, 256, 32, 8, 3), _mm(64, 128, 32, 4, 3),
                    _mm(128, 128, 64, 8, 4, wgmma=True), _mm(64, 128, 64, 4, 4, wgmma=True),
                    _mm(64, 256, 64, 4, 3, wgmma=True), _mm(128, 256, 64, 8, 3, wgmma=True),
                    _mm(128, 128, 64, 4, 2, wgmma=True), _mm(64, 128, 64, 4, 2, wgmma=True)]}
OUR_ATTENTION = {64: [_fa(64, 64, 4, 2), _fa(128, 64, 8, 2), _fa(128, 64, 8, 3), _fa(128, 128, 8, 2),
                      _fa(64, 64, 4, 3), _fa(64, 64, 4, 2, wgmma=True), _fa(128, 64, 8, 2, wgmma=True),
                      _fa(64, 128, 4, 2, wgmma=True)],
                 128: [_fa(64, 64, 4, 2), _fa(128, 64, 8, 2), _fa(128, 64, 8, 3), _fa(64, 32, 4, 3),
                       _fa(64, 64, 4, 2, wgmma=True), _fa(128, 64, 8, 2, wgmma=True), _fa(64, 128, 4, 2, wgmma=True)]}
TOLERANCE = 2e-2  # absolute, on outputs of unit variance: fp16 rounding (2^-11) plus fp32 sums in another order


@dataclass
class Row:
    name: str
    flops: float
    ours_us: float | None = None
    triton_us: float | None = None
    mlx_us: float | None = None
    ours_config: dict = field(default_factory=dict)
    error: float | None = None
    failed: str = ""

    def tflops(self, us: float | None) -> str:
        return f"{self.flops / us / 1e6:.0f}" if us else "-"

    def ratio(self, other: float | None) -> str:
        return f"{other / self.ours_us:.2f}x" if other and self.ours_us else "-"


class Bench:
    def __init__(self, reps: int, log: Callable[[str], None]) -> None:
        self.profile = reps == 1  # one launch each, no config search (ncu)
        self.launches, self.reps = (1, 1) if self.profile else (20, reps)
        self.log = log

    def mlx(self, launch: Callable[[int], Any], copies: int) -> float:
        return time_mlx(launch, copies, self.launches, self.reps)

    def torch(self, launch: Callable[[int], Any], copies: int) -> float:
        return time_torch(launch, copies, self.launches, self.reps)

    def best(self, name: str, launch: Callable[[int, dict], Any], configs: list[dict], timer) -> tuple[Callable, dict]:
        """`launch` at the fastest of `configs` (the first one when profiling), and that config."""
        if self.profile:
            return (lambda i: launch(i, configs[0])), configs[0]
        chosen = {}

        def noted(i: int, meta: dict) -> Any:
            chosen["meta"] = meta
            return launch(i, meta)
        run = fastest_triton(name, noted, configs, self.log, timer=timer)
        run(0)
        return run, dict(chosen["meta"])


def for_triton(config: dict) -> dict:
    """Our config as Triton takes it: without `wgmma` (Triton picks wgmma on sm_90 itself)."""
    return {k: v for k, v in config.items() if k != "wgmma"}


def measure_ours(b: Bench, row: Row, ours: Callable[[int, dict], Any], configs: list[dict], want: mx.array,
                 copies: int) -> None:
    """Check our kernel at every config (a wrong or failing one is logged and left out), time the
    fastest of the others (the first one when profiling)."""
    correct = []
    for meta in configs[:1] if b.profile else configs:
        try:
            error = max_error(ours(0, meta), want)
        except Exception as e:
            b.log(f"{row.name} {meta}: FAILED: {type(e).__name__}: {str(e)[:200]}")
            continue
        if error <= TOLERANCE:
            correct.append(meta)
            row.error = max(row.error or 0.0, error)
        else:
            b.log(f"{row.name} {meta}: FAILED: max error {error:.3g} > {TOLERANCE}")
    if not correct:
        raise AssertionError("no config computes the right result (see the log)")
    run, row.ours_config = b.best(row.name, ours, correct, time_mlx)
    row.ours_us = b.mlx(run, copies)


def matmul_row(b: Bench, m: int, n: int, k: int, configs: list[dict], with_triton: bool) -> Row:
    row = Row(f"mm {m}x{n}x{k}", 2 * m * n * k)
    copies = rotations(2 * (m * k + k * n))
    scale = k ** -0.25  # unit-variance products at any K, so one absolute tolerance fits every row
    a = [(mx.random.normal((m, k)) * scale).astype(mx.float16) for _ in range(copies)]
    w = [(mx.random.normal((k, n)) * scale).astype(mx.float16) for _ in range(copies)]
    grid = matmul.launch_grid(m, n)

    def ours(i: int, meta: dict) -> mx.array:
        return matmul.matmul_kernel.fn[grid](a[i], w[i], mf.empty((m, n), mx.float16), m, n, k, **meta)

    measure_ours(b, row, ours, configs, a[0].astype(mx.float32) @ w[0].astype(mx.float32), copies)
    row.mlx_us = b.mlx(lambda i: a[i] @ w[i], copies)
    if with_triton:
        row.triton_us = triton_matmul(b, row, m, n, k)
    return row


def triton_matmul(b: Bench, row: Row, m: int, n: int, k: int) -> float | None:
    import torch

    try:
        kernel = triton_version(matmul.matmul_kernel)
        scale = k ** -0.25
        a = [(torch.randn(m, k, device="cuda") * scale).half() for _ in range(2)]
        w = [(torch.randn(k, n, device="cuda") * scale).half() for _ in range(2)]
        out = torch.empty(m, n, device="cuda", dtype=torch.float16)

        def launch(i: int, meta: dict) -> Any:
            grid = (mf.cdiv(m, meta["BLOCK_M"]) * mf.cdiv(n, meta["BLOCK_N"]),)
            return kernel[grid](a[i], w[i], out, m, n, k, **meta)
        run, meta = b.best(row.name + " triton", launch, [*MATMUL_TRITON_CONFIGS, for_triton(row.ours_config)],
                           time_torch)
        run(0)
        error = float((out.float() - a[0].float() @ w[0].float()).abs().max())
        b.log(f"{row.name} triton {meta}: max error {error:.3g}")
        return b.torch(run, 2)
    except Exception as e:  # Triton's column fails alone
        b.log(f"{row.name} triton FAILED: {type(e).__name__}: {str(e)[:300]}")
        return None


def attention_row(b: Bench, h: int, hkv: int, length: int, d: int) -> Row:
    row = Row(f"fa h{h}/kv{hkv} d{d} L={length}", 2 * h * length * length * d)  # two products, half masked
    copies = rotations(2 * (h + 2 * hkv) * length * d)
    qkv = [tuple(mx.random.normal(s).astype(mx.float16) for s in ((h, length, d), (hkv, length, d), (hkv, length, d)))
           for _ in range(copies)]
    grid = flash_attention.launch_grid(h, length)

    def ours(i: int, meta: dict) -> mx.array:
        return flash_attention.flash_attention_kernel.fn[grid](*flash_attention.kernel_args(*qkv[i], True), **meta)

    def sdpa(i: int, dtype=mx.float16) -> mx.array:
        q, k, v = (x[None].astype(dtype) for x in qkv[i])
        return mx.fast.scaled_dot_product_attention(q, k, v, scale=d ** -0.5, mask="causal")[0]

    measure_ours(b, row, ours, OUR_ATTENTION[d], sdpa(0, mx.float32), copies)
    row.mlx_us = b.mlx(sdpa, copies)
    row.triton_us = triton_attention(b, row, h, hkv, length, d)
    return row


def triton_attention(b: Bench, row: Row, h: int, hkv: int, length: int, d: int) -> float | None:
    import torch

    try:
        kernel = triton_version(flash_attention.flash_attention_kernel)
        qkv = [[torch.randn(heads, length, d, device="cuda", dtype=torch.float16) for heads in (h, hkv, hkv)]
               for _ in range(2)]
        out = torch.empty(h, length, d, device="cuda", dtype=torch.float16)

        def launch(i: int, meta: dict) -> Any:
            return kernel[(mf.cdiv(length, meta["BLOCK_M"]), h)](*qkv[i], out, length, d ** -0.5, h // hkv, d, True,
                                                                 **meta)
        run, meta = b.best(row.name + " triton", launch, [*ATTENTION_TRITON_CONFIGS, for_triton(row.ours_config)],
                           time_torch)
        run(0)
        want = torch.nn.functional.scaled_dot_product_attention(*(x[None] for x in qkv[0]), is_causal=True,
                                                                enable_gqa=True)[0]
        b.log(f"{row.name} triton {meta}: max error vs torch {float((out.float() - want.float()).abs().max()):.3g}")
        return b.torch(run, 2)
    except Exception as e:
        b.log(f"{row.name} triton FAILED: {type(e).__name__}: {str(e)[:300]}")
        return None


def wgmma_probe(log: Callable[[str], None]) -> str:
    """Whether MLX's NVRTC build accepts Hopper's wgmma (PTX for sm_90a only: fence, commit, wait),
    which decides if a wgmma path is possible through mx.fast.cuda_kernel."""
    source = """
        asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");
        asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");
        out[threadIdx.x] = inp[threadIdx.x];
    """
    try:
        kernel = mx.fast.cuda_kernel(name="mf_wgmma_probe", input_names=["inp"], output_names=["out"], source=source)
        x = mx.arange(128, dtype=mx.float32)
        got = kernel(inputs=[x], grid=(128, 1, 1), threadgroup=(128, 1, 1), output_shapes=[(128,)],
                     output_dtypes=[mx.float32])[0]
        verdict = "yes (sm_90a)" if bool(mx.all(got == x).item()) else "compiled, wrong result"
    except Exception as e:
        verdict = f"no: {type(e).__name__}: {str(e)[:200]}"
    log(f"wgmma PTX through cuda_kernel: {verdict}")
    return verdict


def rows() -> list[tuple[str, Callable[[Bench], Row]]]:
    out: list[tuple[str, Callable[[Bench], Row]]] = [
        ("mm4096", lambda b: matmul_row(b, 4096, 4096, 4096, OUR_MATMUL, with_triton=True))]
    for m in (8, 512):
        for n, k in ((4096, 4096), (14336, 4096), (4096, 14336)):
            out.append((f"mm{m}_{n}x{k}", lambda b, m=m, n=n, k=k: matmul_row(b, m, n, k, OUR_SKINNY[m], False)))
    for d, length in ((64, 2048), (128, 4096), (128, 8192)):
        out.append((f"fa_d{d}_L{length}", lambda b, d=d, length=length: attention_row(b, 32, 8, length, d)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="directory for log.txt, results.json and table.md")
    parser.add_argument("--only", help="run only the rows whose key contains this (keys: mm4096, mm8_4096x4096, "
                                       "mm512_14336x4096, fa_d64_L2048, ...)")
    parser.add_argument("--reps", type=int, default=7, help="timing repeats; 1: one launch each, no config search")
    parser.add_argument("--budget", type=float, default=230.0, help="seconds; rows after it are skipped")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = Log(out / "log.txt", mode="w", stamp=False, stream=sys.stdout)

    mx.random.seed(17)
    bench, start, results = Bench(args.reps, log), time.time(), []
    wgmma = wgmma_probe(log) if not args.only else "not probed"
    for key, make in rows():
        if args.only and args.only not in key:
            continue
        if time.time() - start > args.budget:
            log(f"{key}: SKIPPED: past the {args.budget:.0f} s budget")
            continue
        t = time.time()
        try:
            row = make(bench)
        except Exception as e:
            log(f"{key}: FAILED: {type(e).__name__}: {str(e)[:300]}")
            log.write(traceback.format_exc())
            results.append(Row(key, 0, failed=f"{type(e).__name__}: {str(e)[:120]}"))
            continue
        log(f"{key}: ours {row.ours_us:.1f} us {row.ours_config}, triton {row.triton_us}, mlx {row.mlx_us}, "
            f"max error {row.error:.3g} ({time.time() - t:.0f} s)")
        results.append(row)
    (out / "results.json").write_text(json.dumps([asdict(r) for r in results], indent=1))
    lines = ["| kernel | ours TFLOP/s | Triton TFLOP/s | MLX TFLOP/s | ours/Triton | ours/MLX | our config |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        if r.failed:
            lines.append(f"| {r.name} | FAILED: {r.failed} | | | | | |")
            continue
        config = "{BLOCK_M}x{BLOCK_N}".format(**r.ours_config) + (
            "x{BLOCK_K}".format(**r.ours_config) if "BLOCK_K" in r.ours_config else "") + \
            " w{num_warps} s{num_stages}".format(**r.ours_config) + (" wgmma" if r.ours_config.get("wgmma") else "")
        lines.append(f"| {r.name} | {r.tflops(r.ours_us)} | {r.tflops(r.triton_us)} | {r.tflops(r.mlx_us)} | "
                     f"{r.ratio(r.triton_us)} | {r.ratio(r.mlx_us)} | {config} |")
    table = "\n".join(lines)
    (out / "table.md").write_text(table + "\n")
    log(f"\ntotal {time.time() - start:.0f} s; ratios are ours' throughput over theirs (>1: ours faster); "
        f"wgmma through cuda_kernel: {wgmma}")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
