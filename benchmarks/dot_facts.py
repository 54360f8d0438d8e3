"""Cycle-independent facts about `tl.dot` matmul tiles, read off the generated MSL (compile only).

For each tile configuration (BLOCK_M x BLOCK_N x BLOCK_K, num_warps, input dtype) the kernel below
is compiled for `target="msl"` without launching, and the generated source is parsed:

- threadgroup memory: the sum of the `threadgroup T name[N];` declarations;
- barriers per K step: `threadgroup_barrier` calls inside the `for (k0 ...)` loop;
- simdgroup grid wm x wn (from the `MMA(...)` layout in `kernel.asm["layouts"]`) and the fragments
  each simdgroup holds, fm x fn (from the `frag_a[fm]` / `frag_b[fn]` declarations);
- simdgroup_multiply_accumulate per K step per simdgroup: calls in the K loop, each weighted by the
  trip counts of the unrolled loops around it;
- threadgroup bytes read per MMA: threadgroup-array reads that fill fragment elements, per lane,
  times 32 lanes, over the MMAs of one simdgroup;
- device bytes loaded per K step: `ptr[...]` reads in the K loop per thread times the threadgroup's
  threads (bytes issued, replicas included), and MMAs (of the tile, replicas excluded) and flops per
  device byte (one 8x8x8 MMA = 1024 flops).

Every count is cross-checked against what the tile shape implies; a mismatch is reported. The
numbers are properties of the generated code, the same on the emulator and on a GPU.
Run: python benchmarks/dot_facts.py            (the table, recorded in docs/dot.md)
     python benchmarks/dot_facts.py --show 64x64x32:float16:4   (that configuration's MSL)
"""
from __future__ import annotations

import argparse
import re
import sys
import time

import mlx.core as mx

import metalforge as mf
import metalforge.language as tl


@mf.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


TILES = [(32, 32, 16), (64, 64, 32), (128, 64, 32), (64, 128, 16)]
WARPS = [2, 4, 8]
DTYPES = {"float16": mx.float16, "float32": mx.float32}
SIZES = {"half": 2, "bfloat": 2, "bfloat16_t": 2, "float": 4, "int": 4, "uint": 4, "short": 2, "ushort": 2,
         "char": 1, "uchar": 1, "bool": 1, "long": 8, "ulong": 8}
MMA_FLOPS = 2 * 8 * 8 * 8
FOR = re.compile(r"for \(int (\w+) = (\w+); \(\1 < (\w+)\); \1 \+= (\w+)\) \{")


def compile_tile(bm: int, bn: int, bk: int, dtype: str, num_warps: int):
    size = 256  # the problem size only types the scalars: any value compiles the same code
    x = mx.zeros((1,), DTYPES[dtype])
    return matmul.compile(x, x, mf.empty((size, size), DTYPES[dtype]), size, size, size, size, 1, size, 1, size, 1,
                          BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=num_warps, target="msl")


def k_loop(msl: str) -> list[tuple[str, int]]:
    """The lines of the K loop (`for (int k0 ...)`), each with the product of the trip counts of the
    unrolled (literal-bounded) loops around it inside the K loop."""
    lines = msl.splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(r"for \(int k0 = ", line))
    out, stack = [], []  # stack: trip count of each open brace (1 for non-loop blocks)
    for line in lines[start + 1:]:
        s = line.strip()
        if s.startswith("}"):
            if not stack:
                break
            stack.pop()
            continue
        weight = 1
        for t in stack:
            weight *= t
        out.append((s, weight))
        if s.endswith("{"):
            m = FOR.search(s)
            if m and all(g.lstrip("-").isdigit() for g in m.groups()[1:]):
                lo, hi, step = (int(g) for g in m.groups()[1:])
                stack.append(max(0, -(-(hi - lo) // step)))
            else:
                stack.append(1)
    return out


def facts(bm: int, bn: int, bk: int, dtype: str, num_warps: int) -> dict:
    ck = compile_tile(bm, bn, bk, dtype, num_warps)
    msl, threads = ck.asm["msl"], ck.threads
    problems = []
    tg = {name: (t, int(n)) for t, name, n in re.findall(r"threadgroup (\w+) (\w+)\[(\d+)\];", msl)}
    tg_bytes = sum(SIZES[t] * n for t, n in tg.values())
    m = re.search(r"MMA\(shape=\((\d+), (\d+)\), warps=\((\d+), (\d+)\)", ck.asm["layouts"])
    wm, wn = int(m.group(3)), int(m.group(4))
    frag = re.search(r"simdgroup_matrix<\w+, (\d+), (\d+)> frag_a\w*\[(\d+)\]", msl)
    fr, fc, fm = int(frag.group(1)), int(frag.group(2)), int(frag.group(3))
    fn = int(re.search(r"simdgroup_matrix<\w+, \d+, \d+> frag_b\w*\[(\d+)\]", msl).group(1))
    if (fm * wm * fr, fn * wn * fc) != (bm, bn):
        problems.append(f"fragments {fm}x{fn} on {wm}x{wn} simdgroups do not cover {bm}x{bn}")

    body = k_loop(msl)
    barriers = sum(w * s.count("threadgroup_barrier(") for s, w in body)
    mmas = sum(w * s.count("simdgroup_multiply_accumulate(") for s, w in body)
    if mmas != fm * fn * (bk // 8):
        problems.append(f"{mmas} MMAs per K step per simdgroup, expected {fm * fn * (bk // 8)}")
    tg_read = 0  # bytes per lane read from threadgroup memory into fragments, per K step
    for s, w in body:
        if ".thread_elements()[" in s.split("=")[0]:
            for name in re.findall(r"(\w+)\[", s.split("=", 1)[1]):
                if name in tg:
                    tg_read += w * SIZES[tg[name][0]]
    tg_per_mma = tg_read * 32 / mmas
    ptr_types = {n: t.element for n, t in ck.inputs if hasattr(t, "element")}
    esize = {"float16": 2, "float32": 4}[dtype]
    device = 0  # bytes per thread loaded from device memory per K step
    for s, w in body:
        for name in re.findall(r"\b(\w+_ptr)\b", s):
            if name in ptr_types and "[0]" in s:
                device += w * esize
    device *= threads
    unique = (bm * bk + bk * bn) * esize
    if device != unique:
        problems.append(f"{device} device bytes issued per K step, the tiles hold {unique}")
    tile_mmas = (bm // 8) * (bn // 8) * (bk // 8)
    replicas = num_warps - wm * wn
    return dict(tile=f"{bm}x{bn}x{bk}", dtype=dtype, warps=num_warps, tg_bytes=tg_bytes, barriers=barriers,
                grid=f"{wm}x{wn}" + (f" (+{replicas} replica)" if replicas == 1 else
                                     f" (+{replicas} replicas)" if replicas else ""),
                frags=f"{fm}x{fn}", acc=fm * fn * 2, mmas=mmas, tg_per_mma=tg_per_mma, device=device,
                mma_per_byte=tile_mmas / device, flops_per_byte=tile_mmas * MMA_FLOPS / device, problems=problems)


COLUMNS = [("tile (MxNxK)", "tile"), ("dtype", "dtype"), ("warps", "warps"), ("tgmem B", "tg_bytes"),
           ("barriers/K step", "barriers"), ("simdgroups wm x wn", "grid"), ("frags/simdgroup", "frags"),
           ("acc floats/lane", "acc"), ("MMA/K step/simdgroup", "mmas"), ("tgmem B read/MMA", "tg_per_mma"),
           ("device B/K step", "device"), ("MMA/device B", "mma_per_byte"), ("flop/device B", "flops_per_byte")]


def cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.4f}" if v < 1 else f"{v:.1f}"
    return str(v)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--show", metavar="MxNxK:dtype:warps", help="print the generated MSL of one configuration")
    args = p.parse_args()
    if args.show:
        tile, dtype, warps = args.show.split(":")
        print(compile_tile(*(int(x) for x in tile.split("x")), dtype, int(warps)).asm["msl"])
        return 0
    t0 = time.perf_counter()
    rows = [facts(bm, bn, bk, dtype, w) for bm, bn, bk in TILES for dtype in DTYPES for w in WARPS]
    print("| " + " | ".join(h for h, _ in COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for r in rows:
        print("| " + " | ".join(cell(r[k]) for _, k in COLUMNS) + " |")
    bad = [(r["tile"], r["dtype"], r["warps"], q) for r in rows for q in r["problems"]]
    for b in bad:
        print("MISMATCH", *b, file=sys.stderr)
    print(f"\n{len(rows)} configurations compiled (no launch) in {time.perf_counter() - t0:.2f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
