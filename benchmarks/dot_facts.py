"""Cycle-independent facts about `tl.dot` matmul tiles, read off the generated MSL (compile only).

For each tile configuration (BLOCK_M x BLOCK_N x BLOCK_K, num_warps, num_stages, input dtype) the
library's matmul kernel (`kernels/matmul.py`) is compiled for `target="msl"` without launching, and
the generated source is parsed:

- threadgroup memory: the sum of the `threadgroup T name[N];` declarations (rows padded by 16 bytes,
  as Steel's `tgp_padding`; with num_stages=2 each array holds two buffers, every access offset by
  `stage * (half its size)` with `stage = (k0 / BLOCK_K) % 2`);
- barriers per K step: `threadgroup_barrier` calls inside the `for (k0 ...)` loop;
- threadgroup stores per thread per K step: `*((threadgroup packed_T<n>*)(...)) = ...` vector stores
  (n elements each) and scalar `name[...] = ...` stores into threadgroup arrays in the K loop;
- simdgroup grid wm x wn (from the `MMA(...)` layout in `kernel.asm["layouts"]`) and the fragments
  each simdgroup holds, fm x fn (from the `frag_a[fm]` / `frag_b[fn]` declarations);
- simdgroup_multiply_accumulate per K step per simdgroup: calls in the K loop, each weighted by the
  trip counts of the unrolled loops around it;
- threadgroup bytes read per MMA: threadgroup-array reads that fill fragment elements, per lane,
  times 32 lanes, over the MMAs of one simdgroup;
- device loads per thread per K step: `packed_T<n>` vector reads (n elements each) and scalar
  `ptr[...][0]` reads in the K loop; device bytes per K step are their bytes times the threadgroup's
  threads (bytes issued, replicas included), and MMAs (of the tile, replicas excluded) and flops per
  device byte (one 8x8x8 MMA = 1024 flops).

Every count is cross-checked against what the tile shape implies; a mismatch is reported. The
numbers are properties of the generated code, the same on the emulator and on a GPU.
Run: python benchmarks/dot_facts.py            (the table, recorded in docs/dot.md)
     python benchmarks/dot_facts.py --show 64x64x32:float16:4     (that configuration's MSL)
     python benchmarks/dot_facts.py --show 64x64x32:float16:4:0   (the same with num_stages=0; :2 for two)
     python benchmarks/dot_facts.py --show 64x64x32:float16:4 --target cuda   (its CUDA: ldmatrix loads)
"""
from __future__ import annotations

import argparse
import re
import sys
import time

import mlx.core as mx

import metalforge as mf
from metalforge.kernels.matmul import matmul_kernel

TILES = [(32, 32, 16), (64, 64, 32), (128, 64, 32), (64, 128, 16)]
WARPS = [2, 4, 8]
DTYPES = {"float16": mx.float16, "float32": mx.float32}
# num_stages=2: operands loaded one K step ahead and staged in two alternating buffers. Every tile at 4
# warps whose two buffers fit the 32 KiB of threadgroup memory: fp32 64x64x32 (35840 B) and 128x64x32
# (54272 B) do not (the compiler rejects them, the library's prune skips them).
STAGED2 = [(32, 32, 16, "float16", 4), (64, 64, 32, "float16", 4), (128, 64, 32, "float16", 4),
           (64, 128, 16, "float16", 4), (32, 32, 16, "float32", 4), (64, 128, 16, "float32", 4)]
# num_stages=0: tl.dot operands read straight from device memory into fragments, no threadgroup staging
DIRECT = [(64, 64, 32, "float16", 4)]
PAD = 16  # bytes added to each staged operand row (Steel's tgp_padding: 16 / sizeof(T) elements)
BARRIERS = {0: 0, 1: 2, 2: 1}  # per K step: none staged; before and after staging; after staging only
SIZE = 4096  # M = N = K: a multiple of 16, so the masks allow vector loads (the value is not otherwise used)
SIZES = {"half": 2, "bfloat": 2, "bfloat16_t": 2, "float": 4, "int": 4, "uint": 4, "short": 2, "ushort": 2,
         "char": 1, "uchar": 1, "bool": 1, "long": 8, "ulong": 8}
MMA_FLOPS = 2 * 8 * 8 * 8
FOR = re.compile(r"for \(int (\w+) = (\w+); \(\1 < (\w+)\); \1 \+= (\w+)\) \{")
VECTOR_READ = re.compile(r"\(const device packed_([a-z]+?)(\d+)\*\)")
SCALAR_READ = re.compile(r"(?<!thread_elements\()\)\[0\]")  # `(ptr + offset)[0]`, not a fragment element
VECTOR_STORE = re.compile(r"^\*\(\(threadgroup packed_([a-z]+?)(\d+)\*\)\(\((\w+) \+ ")
SCALAR_STORE = re.compile(r"^(\w+)\[.*\] = ")
# a double-buffered array's position: `name[((stage * n) + ...` (read) or `(name + ((stage * n) + ...` (store)
STAGED_INDEX = re.compile(r"(\w+)(?:\[| \+ )\(\((stage\w*) \* (\d+)\) \+ ")


def compile_tile(bm: int, bn: int, bk: int, dtype: str, num_warps: int, num_stages: int = 1, target: str = "msl"):
    x = mx.zeros((1,), DTYPES[dtype])  # the operands only type the pointers
    return matmul_kernel.fn.compile(x, x, mf.empty((SIZE, SIZE), DTYPES[dtype]), SIZE, SIZE, SIZE,
                                    BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=num_warps,
                                    num_stages=num_stages, target=target)


def staged_bytes(rows: int, cols: int, esize: int, stages: int) -> int:
    """Threadgroup bytes of one staged operand: rows padded by PAD bytes, `stages` buffers (each a
    whole number of 16-byte units). Written out here rather than imported, to check the compiler."""
    size = rows * (cols * esize + PAD)
    return size if stages <= 1 else -(-size // 16) * 16 * stages


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
            if not s.endswith("{"):  # `} else {` closes one block and opens another
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


def device_loads(body: list[tuple[str, int]], ptr_bytes: dict[str, int], problems: list[str]) -> dict:
    """Device reads per thread in the K loop: {(elements, bytes per element): count}."""
    loads: dict[tuple[int, int], int] = {}
    for s, w in body:
        words = set(re.findall(r"\b(\w+)\b", s))  # an argument, or the loader's pointer made from it (a_ptr_k)
        ptrs = {p for p in ptr_bytes if any(w == p or w.startswith(p + "_") for w in words)}
        vectors = [(int(n), SIZES[t]) for t, n in VECTOR_READ.findall(s)]
        scalars = len(SCALAR_READ.findall(s)) if ptrs else 0
        if (vectors or scalars) and len(ptrs) != 1:
            problems.append(f"cannot tell which pointer a device read uses: {s}")
            continue
        for key in vectors + [(1, ptr_bytes[p]) for p in ptrs] * scalars:
            loads[key] = loads.get(key, 0) + w
    return loads


def tg_stores(body: list[tuple[str, int]], tg: dict[str, tuple[str, int]]) -> dict:
    """Threadgroup-memory stores per thread in the K loop: {(elements, bytes per element): count}."""
    stores: dict[tuple[int, int], int] = {}
    for s, w in body:
        m = VECTOR_STORE.match(s)
        if m and m.group(3) in tg:
            key = (int(m.group(2)), SIZES[m.group(1)])
        elif (m := SCALAR_STORE.match(s)) and m.group(1) in tg:
            key = (1, SIZES[tg[m.group(1)][0]])
        else:
            continue
        stores[key] = stores.get(key, 0) + w
    return stores


def widths(counts: dict[tuple[int, int], int]) -> str:
    return " + ".join(f"{count} x {n * size} B" for (n, size), count in sorted(counts.items(), reverse=True))


def facts(bm: int, bn: int, bk: int, dtype: str, num_warps: int, num_stages: int = 1) -> dict:
    ck = compile_tile(bm, bn, bk, dtype, num_warps, num_stages)
    msl, threads = ck.asm["msl"], ck.threads
    esize = {"float16": 2, "float32": 4}[dtype]
    staged = num_stages != 0
    buffers = min(num_stages, 2)
    problems = []
    tg = {name: (t, int(n)) for t, name, n in re.findall(r"threadgroup (\w+) (\w+)\[(\d+)\];", msl)}
    tg_bytes = sum(SIZES[t] * n for t, n in tg.values())
    unique = (bm * bk + bk * bn) * esize  # bytes of the A and B tiles of one K step
    # A (BM rows of BK) and B (BK rows of BN), each row padded by 16 bytes, in one or two buffers
    expected = staged_bytes(bm, bk, esize, buffers) + staged_bytes(bk, bn, esize, buffers) if staged else 0
    if tg_bytes != expected:
        problems.append(f"{tg_bytes} threadgroup bytes, expected {expected}")
    m = re.search(r"MMA\(shape=\((\d+), (\d+)\), warps=\((\d+), (\d+)\)", ck.asm["layouts"])
    wm, wn = int(m.group(3)), int(m.group(4))
    frag = re.search(r"simdgroup_matrix<\w+, (\d+), (\d+)> frag_a\w*\[(\d+)\]", msl)
    fr, fc, fm = int(frag.group(1)), int(frag.group(2)), int(frag.group(3))
    fn = int(re.search(r"simdgroup_matrix<\w+, \d+, \d+> frag_b\w*\[(\d+)\]", msl).group(1))
    if (fm * wm * fr, fn * wn * fc) != (bm, bn):
        problems.append(f"fragments {fm}x{fn} on {wm}x{wn} simdgroups do not cover {bm}x{bn}")

    body = k_loop(msl)
    barriers = sum(w * s.count("threadgroup_barrier(") for s, w in body)
    if barriers != BARRIERS[buffers]:
        problems.append(f"{barriers} barriers per K step, expected {BARRIERS[buffers]}")
    # two buffers: every access to a staged array is offset by `stage * (half the array)`, with one
    # counter for all of them, `int stage = 0;` before the K loop and advanced (0, 1, 0, ...) at the
    # end of its body; one buffer: no offset
    offsets: dict[str, set[int]] = {}
    stage_uses: set[str] = set()
    for s, _ in body:
        for name, var, n in STAGED_INDEX.findall(s):
            offsets.setdefault(name, set()).add(int(n))
            stage_uses.add(var)
    advanced = {d for s, _ in body for d in re.findall(r"^(stage\w*) = \(\(\1 < 1\) \? \(\1 \+ 1\) : \(\1 - 1\)\);$", s)}
    stage_decls = advanced & set(re.findall(r"^\s*int (stage\w*) = 0;$", msl, re.M))
    if buffers == 2:
        for name, (_, n) in tg.items():
            if offsets.get(name) != {n // 2}:
                problems.append(f"{name}[{n}] is accessed at stage offsets {sorted(offsets.get(name, ()))}, "
                                f"expected {{{n // 2}}}")
        if len(stage_decls) != 1 or stage_uses != stage_decls:
            problems.append(f"stage counters {sorted(stage_decls)} and uses {sorted(stage_uses)}: expected one "
                            f"counter (0, 1, 0, ...), shared by the {len(tg)} arrays")
    elif offsets or stage_decls:
        problems.append(f"stage offsets with {num_stages} stages: {offsets}")

    mmas = sum(w * s.count("simdgroup_multiply_accumulate(") for s, w in body)
    if mmas != fm * fn * (bk // 8):
        problems.append(f"{mmas} MMAs per K step per simdgroup, expected {fm * fn * (bk // 8)}")
    frag_bytes = (fm + fn) * (bk // 8) * 2 * esize  # per lane per K step: 2 elements of each fragment
    tg_read = 0  # bytes per lane read from threadgroup memory into fragments, per K step
    for s, w in body:
        if ".thread_elements()[" in s.split("=")[0]:
            for name in re.findall(r"(\w+)\[", s.split("=", 1)[1]):
                if name in tg:
                    tg_read += w * SIZES[tg[name][0]]
    if tg_read != (frag_bytes if staged else 0):
        problems.append(f"{tg_read} threadgroup bytes per lane per K step, expected {frag_bytes if staged else 0}")
    tg_per_mma = tg_read * 32 / mmas

    stores = tg_stores(body, tg)
    stored = threads * sum(n * size * count for (n, size), count in stores.items())
    if stored != (unique if staged else 0):  # each element of the A and B tiles written once
        problems.append(f"{stored} threadgroup bytes stored per K step, expected {unique if staged else 0}")

    ptr_bytes = {n: t.element.bits // 8 for n, t in ck.inputs if hasattr(t, "element")}
    loads = device_loads(body, ptr_bytes, problems)
    device = threads * sum(n * size * count for (n, size), count in loads.items())
    # staged: the threadgroup loads each tile once (with two stages, the next K step's tiles); direct: each
    # simdgroup reads its fm x fn fragments' rows of A and columns of B (A again for each of the wn
    # simdgroup columns, B for each of the wm rows)
    expected = unique if staged else num_warps * (bm // wm + bn // wn) * bk * esize
    if device != expected:
        problems.append(f"{device} device bytes issued per K step, expected {expected}")
    tile_mmas = (bm // 8) * (bn // 8) * (bk // 8)
    replicas = num_warps - wm * wn
    return dict(tile=f"{bm}x{bn}x{bk}", dtype=dtype, warps=num_warps, stages=num_stages, tg_bytes=tg_bytes,
                barriers=barriers,
                grid=f"{wm}x{wn}" + (f" (+{replicas} replica)" if replicas == 1 else
                                     f" (+{replicas} replicas)" if replicas else ""),
                frags=f"{fm}x{fn}", acc=fm * fn * 2, mmas=mmas, tg_per_mma=tg_per_mma,
                stores=widths(stores) or "0", loads=widths(loads),
                device=device, mma_per_byte=tile_mmas / device, flops_per_byte=tile_mmas * MMA_FLOPS / device,
                problems=problems)


COLUMNS = [("tile (MxNxK)", "tile"), ("dtype", "dtype"), ("warps", "warps"), ("stages", "stages"),
           ("tgmem B", "tg_bytes"), ("barriers/K step", "barriers"), ("simdgroups wm x wn", "grid"),
           ("frags/simdgroup", "frags"), ("acc floats/lane", "acc"), ("MMA/K step/simdgroup", "mmas"),
           ("tgmem B read/MMA", "tg_per_mma"), ("tgmem stores/thread/K step", "stores"),
           ("device loads/thread/K step", "loads"), ("device B/K step", "device"),
           ("MMA/device B", "mma_per_byte"), ("flop/device B", "flops_per_byte")]


def cell(v) -> str:
    if isinstance(v, float):
        return "0" if v == 0 else f"{v:.4f}" if v < 1 else f"{v:.1f}"
    return str(v)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--show", metavar="MxNxK:dtype:warps[:stages]", help="print the generated source of one configuration")
    p.add_argument("--target", choices=["msl", "cuda"], default="msl", help="the source --show prints (default msl)")
    args = p.parse_args()
    if args.show:
        tile, dtype, warps, *stages = args.show.split(":")
        ck = compile_tile(*(int(x) for x in tile.split("x")), dtype, int(warps), *(int(x) for x in stages),
                          target=args.target)
        print(ck.asm[args.target])
        return 0
    t0 = time.perf_counter()
    rows = [facts(bm, bn, bk, dtype, w) for bm, bn, bk in TILES for dtype in DTYPES for w in WARPS]
    rows += [facts(*config, num_stages=2) for config in STAGED2]
    rows += [facts(*config, num_stages=0) for config in DIRECT]
    print("| " + " | ".join(h for h, _ in COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for r in rows:
        print("| " + " | ".join(cell(r[k]) for _, k in COLUMNS) + " |")
    bad = [(r["tile"], r["dtype"], r["warps"], r["stages"], q) for r in rows for q in r["problems"]]
    for b in bad:
        print("MISMATCH", *b, file=sys.stderr)
    print(f"\n{len(rows)} configurations compiled (no launch) in {time.perf_counter() - t0:.2f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
