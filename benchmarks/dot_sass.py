"""Static SASS of the library matmul's K loop on CUDA against Triton's compile of the same source
(no GPU: NVRTC + ptxas + cuobjdump; the table "Static comparison with Triton's mma.sync kernel" in
docs/dot.md).

For each config, `matmul_kernel` (fp16, N = K = 4096) is compiled for sm_90 as MLX compiles it (NVRTC,
tests/codegen/nvrtc.py) and, where Triton is importable, Triton's compile of the same kernel body for
sm_80 (its mma.sync path; for sm_90 Triton emits wgmma). Printed per side: registers, and in the
K loop (the backward branch around the most HMMAs) the instructions, HMMA, LDSM (ldmatrix), LDGSTS
(cp.async) and the integer / predicate arithmetic (IMAD, IADD3, LEA, VIADD, SHF, LOP3, ISETP, SEL), of
which the ISETP (the masks' comparisons) are also counted apart.
Run: python benchmarks/dot_sass.py   (ptxas and cuobjdump from PATH or Triton's wheel; about a minute)
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import mlx.core as mx

import metalforge as mf
from metalforge.kernels.matmul import matmul_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).parent))
from gpu_bench import triton_version  # noqa: E402
from tests.codegen.nvrtc import cuobjdump, ptxas, resources, sass_of, to_cubin, to_ptx  # noqa: E402 (MLX's NVRTC options and header)
from tests.codegen.test_cuda_render import compiled_source  # noqa: E402

CONFIGS = [(4096, 128, 128, 64, 8, 8, 3), (4096, 128, 128, 32, 8, 8, 4), (4096, 128, 256, 32, 8, 8, 3),
           (512, 64, 128, 32, 8, 4, 4), (8, 16, 32, 64, 1, 2, 4)]  # M, BLOCK_M/N/K, GROUP_M, warps, stages
INTEGER = ("IMAD", "IADD3", "LEA", "VIADD", "SHF", "LOP3", "ISETP", "SEL")


def k_loop(sass: str) -> Counter:
    """Opcode counts of the loop (a backward branch) with the most HMMAs; "all": its length."""
    ins = [(int(m.group(1), 16), m.group(2).strip())
           for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(.*?);", sass)]
    best: list[str] = []
    for addr, text in ins:
        target = re.search(r"BRA\s.*?0x([0-9a-f]+)", text)
        if target and int(target.group(1), 16) < addr:
            body = [t for a, t in ins if int(target.group(1), 16) <= a <= addr]
            if sum("HMMA" in t for t in body) > sum("HMMA" in t for t in best):
                best = body
    counts = Counter(re.sub(r"^@!?U?P\w+\s+", "", t).split()[0].split(".")[0] for t in best)
    counts["all"] = len(best)
    return counts


def ours(m: int, bm: int, bn: int, bk: int, group: int, warps: int, stages: int, tmp: Path) -> str:
    a = mx.zeros((1,), mx.float16)
    c = matmul_kernel.fn.compile(a, a, mf.empty((m, 4096), mx.float16), m, 4096, 4096, BLOCK_M=bm, BLOCK_N=bn,
                                 BLOCK_K=bk, GROUP_M=group, num_warps=warps, num_stages=stages, target="cuda")
    ptx = to_ptx(compiled_source(c))
    return summary(resources(ptx).registers, k_loop(sass_of(to_cubin(ptx, tmp / "k.cubin"))))


def theirs(bm: int, bn: int, bk: int, group: int, warps: int, stages: int, tmp: Path) -> str:
    try:
        import triton
        from triton.backends.compiler import GPUTarget
    except ImportError:
        return "Triton not installed"
    kernel = triton_version(matmul_kernel)  # the library's own source, with triton.language
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                 **{name: "constexpr" for name in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")}}
    source = triton.compiler.ASTSource(fn=kernel, signature=signature,
                                       constexprs={"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": group},
                                       attrs={(i,): [["tt.divisibility", 16]] for i in range(6)})  # as Triton specialises
    compiled = triton.compile(source, target=GPUTarget("cuda", 80, 32), options={"num_warps": warps, "num_stages": stages})
    (tmp / "t.cubin").write_bytes(compiled.asm["cubin"])
    usage = subprocess.run([cuobjdump(), "-res-usage", str(tmp / "t.cubin")],
                           capture_output=True, text=True, check=True).stdout
    return summary(int(re.search(r"REG:(\d+)", usage).group(1)), k_loop(sass_of(tmp / "t.cubin")))


def summary(registers: int, loop: Counter) -> str:
    return (f"{registers}, {loop['all']}, {loop['LDSM']}, {sum(loop[k] for k in INTEGER)} "
            f"(HMMA {loop['HMMA']}, LDGSTS {loop['LDGSTS']}, ISETP {loop['ISETP']})")


def main() -> int:
    if ptxas() is None or cuobjdump() is None:
        print("ptxas or cuobjdump not found (PATH or Triton's wheel)")
        return 1
    print("| config | ours (sm_90): regs, K loop, LDSM, int | Triton (sm_80): regs, K loop, LDSM, int |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for m, bm, bn, bk, group, warps, stages in CONFIGS:
            mine = ours(m, bm, bn, bk, group, warps, stages, Path(tmp))
            other = theirs(bm, bn, bk, group, warps, stages, Path(tmp)) if m != 8 else "-"
            print(f"| M={m} {bm}x{bn}x{bk} w{warps} s{stages} | {mine} | {other} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
