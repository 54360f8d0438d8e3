"""Hopper's `wgmma` through MLX's `mx.fast.cuda_kernel`, hand-written: the building blocks a wgmma
path in the compiler would emit (docs/dot.md, "What is left, and a wgmma path"), proven and timed
before the compiler learns them.

A fp16 matmul C = A @ B (row-major, fp32 accumulators, fp16 out), one program per BM x BN tile
(grouped order, 8 tiles along M), 4 warps a warpgroup, each warpgroup 64 rows:
- operands copied by `cp.async` (16 bytes a thread) into a ring of `stages` buffers in dynamic
  shared memory, each 64-element (128-byte) row of 8 16-byte chunks stored with chunk c at
  c ^ (row % 8): the 128-byte swizzle wgmma's descriptors read (no padding); B's rows, BN wide,
  as BN / 64 such 64-column blocks;
- per K step of 16, one `wgmma.mma_async.m64n{BN}k16` a warpgroup: A through a K-major descriptor
  (start + 32 bytes a step, 1024 bytes between 8-row groups), B through an MN-major one
  (`imm-trans-b`: rows of N; the leading offset the bytes between 64-column blocks, the stride
  offset those between 8-row groups, as CUTLASS's canonical layouts say; the first variant is also
  tried with the two exchanged, and the rest follow whichever is right);
- `fence.proxy.async` between the copies landing and the barrier (cp.async writes through the
  generic proxy, wgmma reads through the async one), `wgmma.fence` before a step's products,
  `commit_group`, then `wait_group WAIT`: 0 waits for the step's products before the next step's
  copies are issued; 1 leaves them running while the next step's copies go out (the copies then run
  stages - 2 tiles ahead, so none overwrites a buffer a product still reads).

Every variant is checked against MLX's own matmul (fp32, on the GPU) before it is timed with
gpu_bench's method, beside MLX's fp16 matmul; then the compiler's own wgmma path (`wgmma=True`,
`library_checks`) is checked at odd shapes and timed against its mma.sync path.

    python3 benchmarks/wgmma_probe.py --out DIR          (a GPU with sm_90a and MLX's CUDA build)
    python3 benchmarks/wgmma_probe.py --compile-only     (here: NVRTC + ptxas for sm_90a, registers
                                                          and spills of each variant)
    python3 benchmarks/wgmma_probe.py --qmm-only         (the quantized matmul only: whole against K
                                                          in 2 / 4 / 8 ranges at the prefill shapes,
                                                          then its tiles on wgmma and mma.sync)
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import mlx.core as mx

sys.path.insert(0, str(Path(__file__).parent))

HELPERS = r"""
__device__ __forceinline__ void probe_cp_async16(void* smem, const void* src) {
  unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src));
}
__device__ __forceinline__ unsigned long long probe_desc(const void* smem, unsigned lbo, unsigned sbo) {
  // wgmma matrix descriptor: start address, leading and stride byte offsets (16-byte units, 14
  // bits each), swizzle mode 1 (128 bytes) in bits 62-63
  unsigned addr = (unsigned)__cvta_generic_to_shared(smem);
  return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)((lbo >> 4) & 0x3FFF) << 16)
       | ((unsigned long long)((sbo >> 4) & 0x3FFF) << 32) | (1ull << 62);
}
"""


@dataclass(frozen=True)
class Variant:
    bm: int
    bn: int
    stages: int
    wait: int  # wgmma groups left running at the end of a step
    swap: bool = False  # B's descriptor with its leading and stride offsets exchanged

    @property
    def name(self) -> str:
        return f"{self.bm}x{self.bn}x64 s{self.stages} wait{self.wait}{' swap' if self.swap else ''}"

    @property
    def threads(self) -> int:
        return 128 * (self.bm // 64)

    @property
    def shared_bytes(self) -> int:
        return self.stages * (self.bm * 64 + 64 * self.bn) * 2 + 1024  # + room to align the ring to 1024

    def wgmma_asm(self) -> str:
        regs = self.bn // 2
        outs = ", ".join(f"%{i}" for i in range(regs))
        operands = ", ".join(f'"+f"(acc[{i}])' for i in range(regs))
        return (f'asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 2}, 0;\\n'
                f'wgmma.mma_async.sync.aligned.m64n{self.bn}k16.f32.f16.f16 {{{outs}}}, %{regs}, %{regs + 1}, '
                f'p, 1, 1, 0, 1;\\n}}\\n" : {operands} : "l"(da), "l"(db), "r"(1));')

    def source(self) -> str:
        ahead = self.stages - 1 - self.wait
        a_elems, b_elems = self.bm * 64, 64 * self.bn
        lbo, sbo = 64 * 128, 1024  # bytes between 64-column blocks of B; between its 8-row groups
        if self.swap:
            lbo, sbo = sbo, lbo
        return f"""
  constexpr int BM = {self.bm}, BN = {self.bn}, BK = 64, STAGES = {self.stages}, AHEAD = {ahead};
  constexpr int THREADS = {self.threads}, A_ELEMS = {a_elems}, STAGE = {a_elems + b_elems};
  extern __shared__ unsigned char probe_smem[];
  const unsigned raw = (unsigned)__cvta_generic_to_shared(probe_smem);
  __half* ring = reinterpret_cast<__half*>(probe_smem + (((raw + 1023u) & ~1023u) - raw));
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, wg = warp / 4;
  const int grid_m = M / BM, grid_n = N / BN, width = 8 * grid_n, pid = blockIdx.x;
  const int first_m = (pid / width) * 8, group = min(grid_m - first_m, 8);
  const int m0 = (first_m + (pid % width) % group) * BM, n0 = ((pid % width) / group) * BN;
  auto load = [&](int stage, int k0) {{
    __half* as = ring + stage * STAGE;
    __half* bs = as + A_ELEMS;
    for (int c = tid; c < BM * 8; c += THREADS) {{
      const int row = c / 8, ch = c % 8;
      probe_cp_async16(as + row * 64 + ((ch ^ (row % 8)) * 8), a + (size_t)(m0 + row) * K + k0 + ch * 8);
    }}
    for (int c = tid; c < BK * BN / 8; c += THREADS) {{
      const int row = c / (BN / 8), col = c % (BN / 8), blk = col / 8, ch = col % 8;
      probe_cp_async16(bs + blk * BK * 64 + row * 64 + ((ch ^ (row % 8)) * 8),
                       b + (size_t)(k0 + row) * N + n0 + col * 8);
    }}
  }};
  float acc[BN / 2];
  #pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
  const int steps = K / BK;
  for (int s = 0; s < AHEAD; ++s) {{
    if (s < steps) load(s, s * BK);
    asm volatile("cp.async.commit_group;\\n" ::);
  }}
  for (int t = 0; t < steps; ++t) {{
    asm volatile("cp.async.wait_group %0;\\n" :: "n"(AHEAD - 1) : "memory");
    asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");
    __syncthreads();
    if (t + AHEAD < steps) load((t + AHEAD) % STAGES, (t + AHEAD) * BK);
    asm volatile("cp.async.commit_group;\\n" ::);
    const __half* as = ring + (t % STAGES) * STAGE + wg * 64 * 64;
    const __half* bs = ring + (t % STAGES) * STAGE + A_ELEMS;
    asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");
    #pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {{
      const unsigned long long da = probe_desc(as + kk, 16, 1024);
      const unsigned long long db = probe_desc(bs + kk * 64, {lbo}, {sbo});
      {self.wgmma_asm()}
    }}
    asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned %0;\\n" :: "n"({self.wait}) : "memory");
  }}
  asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");
  const int row = m0 + wg * 64 + (warp % 4) * 16 + lane / 4;
  #pragma unroll
  for (int j = 0; j < BN / 8; ++j) {{
    const int col = n0 + j * 8 + (lane % 4) * 2;
    *reinterpret_cast<__half2*>(c + (size_t)row * N + col) = __floats2half2_rn(acc[4 * j], acc[4 * j + 1]);
    *reinterpret_cast<__half2*>(c + (size_t)(row + 8) * N + col) = __floats2half2_rn(acc[4 * j + 2], acc[4 * j + 3]);
  }}
"""


VARIANTS = [Variant(128, 256, 3, 0), Variant(128, 256, 4, 1),
            Variant(128, 256, 3, 1), Variant(128, 128, 4, 0), Variant(128, 128, 4, 1)]


def kernel(v: Variant):
    return mx.fast.cuda_kernel(name=f"wgmma_probe_{v.bm}_{v.bn}_{v.stages}_{v.wait}_{int(v.swap)}",
                               input_names=["a", "b"], output_names=["c"], source=v.source(), header=HELPERS,
                               shared_memory=v.shared_bytes)


def run(v: Variant, a: mx.array, b: mx.array) -> mx.array:
    m, k = a.shape
    n = b.shape[1]
    return kernel(v)(inputs=[a, b], template=[("M", m), ("N", n), ("K", k)], output_shapes=[(m, n)],
                     output_dtypes=[mx.float16], grid=((m // v.bm) * (n // v.bn) * v.threads, 1, 1),
                     threadgroup=(v.threads, 1, 1))[0]


def compile_only() -> int:
    """Each variant through NVRTC (MLX's wrapping and options, tests/codegen) and ptxas for sm_90a."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from metalforge.runtime import nvrtc
    from tests.codegen.nvrtc import HERE, ptxas
    from tests.codegen.test_cuda_render import MLX_INCLUDES, mlx_cuda_source
    for v in VARIANTS:
        template = "  constexpr int M = 4096, N = 4096, K = 4096;\n"  # cuda_kernel's template arguments
        body = mlx_cuda_source(f"probe_{v.bm}_{v.bn}", ["a", "b"], ["__half", "__half"], ["c"], ["__half"],
                               template + v.source(), HELPERS, MLX_INCLUDES)
        ptx = nvrtc.compile_ptx(body, "probe", "sm_90a", ["--device-as-default-execution-space", f"--include-path={HERE}"])
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "p.ptx").write_text(ptx)
            log = subprocess.run([ptxas(), "-arch=sm_90a", "-v", "-o", f"{tmp}/p.cubin", f"{tmp}/p.ptx"],
                                 capture_output=True, text=True)
        used = [line.strip() for line in log.stderr.splitlines() if any(w in line for w in ("registers", "spill", "wgmma", "arning"))]
        print(f"{v.name}: ptxas rc {log.returncode}; {' '.join(used)[:200]}{log.stderr[:300] if log.returncode else ''}")
    return 0


@dataclass
class Result:
    variant: str
    error: float | None = None
    us: float | None = None
    tflops: float | None = None
    failed: str = ""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", help="directory for results.json")
    p.add_argument("--compile-only", action="store_true")
    p.add_argument("--size", type=int, default=4096, help="M = N = K")
    p.add_argument("--library-only", action="store_true", help="the compiler's wgmma path only (library_checks)")
    p.add_argument("--qmm-only", action="store_true", help="the quantized matmul's checks and timings only")
    args = p.parse_args()
    if args.compile_only:
        return compile_only()
    if args.qmm_only:
        splits = split_checks()  # a row holds a time for each variant that was right
        right = all(len(row["us"]) == len(row["errors"]) for row in splits)
        return 0 if all(row["us"] for row in qmm_checks()) and right else 1
    from gpu_bench import rotations, time_mlx

    size, flops = args.size, 2 * args.size ** 3
    seed = int(time.time()) % 100000
    print(f"seed {seed}, M = N = K = {size}, {mx.default_device()}")
    mx.random.seed(seed)
    copies = rotations(3 * size * size * 2)
    ab = [(mx.random.normal((size, size)).astype(mx.float16), mx.random.normal((size, size)).astype(mx.float16))
          for _ in range(copies)]
    want = ab[0][0].astype(mx.float32) @ ab[0][1].astype(mx.float32)
    # fp16 output of a unit-variance K-term sum: |C| ~ sqrt(K) * 4 at most here, fp16's half ulp there
    # plus fp32 sums in another order
    tolerance = 2.0 ** -11 * float(mx.max(mx.abs(want)).item()) * 2
    results, swap = [], None
    for v in VARIANTS if not args.library_only else []:
        for v in ([v, replace(v, swap=True)] if swap is None else [replace(v, swap=swap)]):
            r = Result(v.name)
            try:
                got = run(v, *ab[0])
                r.error = float(mx.max(mx.abs(got.astype(mx.float32) - want)).item())
                if not r.error <= tolerance:
                    r.failed = f"max error {r.error:.3g} > {tolerance:.3g}"
                else:
                    swap = v.swap if swap is None else swap  # the B descriptor the hardware reads right
                    r.us = time_mlx(lambda i: run(v, *ab[i]), copies)
                    r.tflops = flops / r.us * 1e-6
            except Exception as e:  # a variant the GPU or NVRTC refuses: say so, go on
                r.failed = f"{type(e).__name__}: {str(e)[:300]}"
            print(f"{r.variant}: {r.failed or f'{r.us:.1f} us, {r.tflops:.0f} TFLOP/s, max error {r.error:.3g}'}",
                  flush=True)
            results.append(r)
    mlx_us = time_mlx(lambda i: ab[i][0] @ ab[i][1], copies)
    print(f"MLX a @ b: {mlx_us:.1f} us, {flops / mlx_us * 1e-6:.0f} TFLOP/s")
    library = library_checks(size, ab, copies, flops)
    library["qmm"] = qmm_checks()
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        Path(args.out, "results.json").write_text(json.dumps(
            {"seed": seed, "size": size, "variants": [asdict(r) for r in results], "mlx_us": mlx_us,
             "library": library}, indent=1))
    return 0 if any(r.tflops for r in results) or args.library_only else 1


# The compiler's wgmma path (`wgmma=True`): the library matmul at these configs, checked at shapes
# that leave partial tiles on every edge (cp.async's zero fill, the store's masks) and in bf16, then
# timed at M = N = K = size beside the same configs on mma.sync; flash attention, whose P @ V is a
# wgmma dot then (P staged through swizzled shared memory), checked and timed the same way.
LIBRARY = [dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=2),
           dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3),
           dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=4, num_stages=4),
           dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=4, num_stages=3),
           dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=4, num_stages=2)]
CHECK_SHAPES = [(1000, 1000, 1000, mx.float16), (8, 4096, 4096, mx.float16), (333, 4160, 200, mx.bfloat16)]
TOLERANCE = 2e-2  # dot_bench's: unit-variance outputs, fp16 rounding plus fp32 sums in another order


def library_checks(size: int, ab: list, copies: int, flops: float) -> dict:
    import metalforge as mf
    from gpu_bench import time_mlx
    from metalforge.kernels import flash_attention, matmul

    def mm(a, b, config, wgmma):
        (m, k), n = a.shape, b.shape[1]
        grid = (mf.cdiv(m, config["BLOCK_M"]) * mf.cdiv(n, config["BLOCK_N"]),)
        return matmul.matmul_kernel.fn[grid](a, b, mf.empty((m, n), a.dtype), m, n, k, **config, wgmma=wgmma)

    out: dict = {"matmul": [], "flash": []}
    for config in LIBRARY:
        name = "{BLOCK_M}x{BLOCK_N}x{BLOCK_K} w{num_warps} s{num_stages}".format(**config)
        errors, us = [], {}
        try:
            for m, n, k, dtype in CHECK_SHAPES:
                scale = k ** -0.25
                a = (mx.random.normal((m, k)) * scale).astype(dtype)
                b = (mx.random.normal((k, n)) * scale).astype(dtype)
                got = mm(a, b, config, True).astype(mx.float32)
                errors.append(float(mx.max(mx.abs(got - a.astype(mx.float32) @ b.astype(mx.float32))).item()))
            if max(errors) <= TOLERANCE:
                for wgmma in (True, False):
                    us[wgmma] = time_mlx(lambda i: mm(*ab[i], config, wgmma), copies)
        except Exception as e:
            print(f"library {name} wgmma: FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)
            continue
        verdict = (f"{us[True]:.1f} us, {flops / us[True] * 1e-6:.0f} TFLOP/s (mma.sync: {us[False]:.1f} us, "
                   f"{flops / us[False] * 1e-6:.0f})" if us else "WRONG, not timed")
        print(f"library {name} wgmma: max errors {', '.join(f'{e:.3g}' for e in errors)}; {verdict}", flush=True)
        out["matmul"].append({"config": config, "errors": errors, "wgmma_us": us.get(True), "mma_us": us.get(False)})
    for d, config in ((64, dict(BLOCK_M=64, BLOCK_N=64, num_warps=4, num_stages=2)),
                      (64, dict(BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=2)),
                      (128, dict(BLOCK_M=64, BLOCK_N=64, num_warps=4, num_stages=2))):
        try:
            q, k, v = (mx.random.normal((h, 2048, d)).astype(mx.float16) for h in (32, 8, 8))

            def fa(wgmma, length=2048, qkv=(q, k, v)):
                return flash_attention.flash_attention_kernel.fn[flash_attention.launch_grid(32, length)](
                    *flash_attention.kernel_args(*qkv, True), **config, wgmma=wgmma)
            short = tuple(x[:, :1000] for x in (q, k, v))  # partial blocks at the end of the keys and queries
            error = max(float(mx.max(mx.abs(fa(True, n, qkv).astype(mx.float32)
                                            - flash_attention.reference(*qkv).astype(mx.float32))).item())
                        for n, qkv in ((2048, (q, k, v)), (1000, short)))
            us = {w: time_mlx(lambda i: fa(w), 2) for w in (True, False)} if error <= TOLERANCE else {}
            fl = 2 * 32 * 2048 * 2048 * d
            print(f"flash d{d} {config}: max error {error:.3g}; " + (
                f"wgmma {us[True]:.1f} us ({fl / us[True] * 1e-6:.0f} TFLOP/s), mma.sync {us[False]:.1f} us "
                f"({fl / us[False] * 1e-6:.0f})" if us else "WRONG, not timed"), flush=True)
            out["flash"].append({"d": d, "config": config, "error": error, "wgmma_us": us.get(True),
                                 "mma_us": us.get(False)})
        except Exception as e:
            print(f"flash d{d} {config} wgmma: FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)
    return out


# The quantized matmul (4-bit g64: a prefill's projections) with its B a `tl.trans` of the dequantised
# weight rows, which wgmma reads K-major from registers stored swizzled: checked at a shape with
# partial tiles against MLX's dequantize and matmul, then timed at the Llama-3-8B and Qwen2-1.5B
# prefill shapes (M = 512) beside mma.sync and MLX's quantized_matmul.
QMM_CONFIGS = [dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, num_warps=4), dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=64,
               num_warps=4, num_stages=2), dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=2),
               dict(BLOCK_M=64, BLOCK_N=256, BLOCK_K=64, num_warps=4, num_stages=2),
               dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, num_warps=4, num_stages=2)]
# Llama-3-8B's projections, then Qwen2-1.5B's (gate/up, down, q/o, k/v: few output tiles at 128 x 128)
QMM_SHAPES = [(512, 14336, 4096), (512, 4096, 14336), (512, 4096, 4096), (512, 8960, 1536), (512, 1536, 8960),
              (512, 1536, 1536), (512, 256, 1536)]
SPLIT_SHAPES = QMM_SHAPES + [(512, 151936, 1536)]  # and Qwen2-1.5B's tied lm_head (QuantizedEmbedding.as_linear)


def qmm_checks() -> list:
    import metalforge as mf
    from gpu_bench import rotations, time_mlx
    from metalforge.kernels import quantized

    def qmm(x, w, config, wgmma):
        (m, k), n = x.shape, w[1].size * 64 // x.shape[1]  # w: packed words, scales, biases (flat)
        return quantized.qmm_kernel.fn[quantized.qmm_grid(m, n)](
            x, *w, mf.empty((m, n), x.dtype), m, n, k, 64, 4, **config, wgmma=wgmma)

    out = []
    m, n, k = 333, 1000, 1024
    x = (mx.random.normal((m, k)) * k ** -0.5).astype(mx.float16)
    w = quantized._weights(n, k, 64, 4, mx.float16)
    want = quantized.reference(x, *(a.reshape(n, -1) for a in w), 64, 4, stream=None,
                               weights_in_x_dtype=True).astype(mx.float32)
    bound = 2e-2 * max(1.0, float(mx.max(mx.abs(want)).item()))  # fp16 output of an fp32 sum
    for config in QMM_CONFIGS:
        name = "{BLOCK_M}x{BLOCK_N}x{BLOCK_K} w{num_warps}".format(**config) + f" s{config.get('num_stages', 1)}"
        try:
            error = max(float(mx.max(mx.abs(qmm(x, w, config, wg).astype(mx.float32) - want)).item())
                        for wg in (True, False))  # both paths are timed below, so both are checked
            row = {"config": config, "error": error, "us": {}}
            if error <= bound:
                for shape in QMM_SHAPES:
                    sm, sn, sk = shape
                    copies = rotations(sn * sk // 2 + sm * (sk + sn) * 2)
                    args = [((mx.random.normal((sm, sk)) * sk ** -0.5).astype(mx.float16),
                             quantized._weights(sn, sk, 64, 4, mx.float16)) for _ in range(copies)]
                    row["us"][str(shape)] = {wg: time_mlx(lambda i: qmm(*args[i], config, wg), copies)
                                             for wg in (True, False)}
                    if not out:  # MLX's own kernel, once a shape
                        row["us"][str(shape)]["mlx"] = time_mlx(lambda i: mx.quantized_matmul(
                            args[i][0], *(a.reshape(sn, -1) for a in args[i][1]), transpose=True, group_size=64,
                            bits=4), copies)
            print(f"qmm {name}: max error {error:.3g} (bound {bound:.3g}); " + ("; ".join(
                f"{s}: wgmma {t[True]:.1f} us, mma.sync {t[False]:.1f}" + (f", MLX {t['mlx']:.1f}" if "mlx" in t else "")
                for s, t in row["us"].items()) if row["us"] else "WRONG, not timed"), flush=True)
            out.append(row)
        except Exception as e:
            print(f"qmm {name} wgmma: FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)
    return out


def split_checks() -> list:
    """qmm at the prefill shapes at its untuned default tile: whole (`qmm_kernel`), K cut into 2, 4 and 8
    ranges (`qmm_partial_kernel` and the sum), and `quantized.qmm` (what `qmm_k_split` picks), beside
    MLX's quantized_matmul; each checked before it is timed."""
    import metalforge as mf
    from gpu_bench import rotations, time_mlx
    from metalforge.kernels import quantized

    cdiv, out = mf.cdiv, []
    for m, n, k in SPLIT_SHAPES:
        copies = rotations(n * k // 2 + m * (k + n) * 2)
        args = [((mx.random.normal((m, k)) * k ** -0.5).astype(mx.float16), quantized._weights(n, k, 64, 4, mx.float16))
                for _ in range(copies)]
        want = quantized.reference(args[0][0], *(a.reshape(n, -1) for a in args[0][1]), 64, 4, stream=None,
                                   weights_in_x_dtype=True).astype(mx.float32)
        bound = 2e-2 * max(1.0, float(mx.max(mx.abs(want)).item()))

        def whole(i):
            x, w = args[i]
            return quantized.qmm_kernel[quantized.qmm_grid(m, n)](x, *w, mf.empty((m, n), x.dtype), m, n, k, 64, 4)

        def split(i, ranges):
            x, w = args[i]
            k_split = cdiv(cdiv(k, ranges), 64) * 64
            parts = quantized.qmm_partial_kernel[quantized.qmm_partial_grid(m, n, k, k_split)](
                x, *w, mf.empty((cdiv(k, k_split), m, n), mx.float32), m, n, k, k_split, 64, 4)
            return parts.sum(axis=0).astype(x.dtype)

        few = cdiv(m, 128) * cdiv(n, 128) < 2 * quantized.MIN_PROGRAMS  # else no ranges (the lm_head's: 2.5 GB)
        variants = {"whole": whole, **{f"{r} ranges": (lambda i, r=r: split(i, r)) for r in ((2, 4, 8) if few else ())},
                    "qmm()": lambda i: quantized.qmm(args[i][0], *(a.reshape(n, -1) for a in args[i][1])),
                    "MLX": lambda i: mx.quantized_matmul(args[i][0], *(a.reshape(n, -1) for a in args[i][1]),
                                                         transpose=True, group_size=64, bits=4)}
        row = {"shape": [m, n, k], "k_split": quantized.qmm_k_split(m, n, k, 64), "us": {}, "errors": {}}
        for name, launch in variants.items():
            try:
                error = float(mx.max(mx.abs(launch(0).astype(mx.float32) - want)).item())
                row["errors"][name] = error
                if error <= bound:
                    row["us"][name] = time_mlx(launch, copies)
            except Exception as e:
                row["errors"][name] = f"{type(e).__name__}: {str(e)[:200]}"
        print(f"qmm split {m}x{n}x{k} (picks K {row['k_split']}): " + ", ".join(
            f"{name} {row['us'][name]:.1f} us" if name in row["us"] else f"{name} WRONG/FAILED {row['errors'][name]}"
            for name in variants), flush=True)
        out.append(row)
    return out


if __name__ == "__main__":
    sys.exit(main())
