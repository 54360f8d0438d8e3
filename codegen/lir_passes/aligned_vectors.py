"""Vector accesses on targets whose wide loads and stores need aligned addresses (CUDA).

MLX views may start at any element, so an access of 8 halves is not known to be 16-byte aligned
when the kernel is compiled, and MLX's arrays are lazy, so the launch cannot look at the address
either (Triton specialises on it; we cannot). The contiguity analysis already proves every vector
access's element offset from its kernel argument a multiple of its width, so the arguments'
addresses decide for all of them at once: the body is emitted twice, under one test at the
kernel's start, with plain aligned vector accesses in the first copy and element-wise accesses in
the second. A test per access instead (the previous scheme) kept both paths' addresses live at
every access: 79 instead of 60 registers for the residual RMS norm, a third of the SASS branches.
Threadgroup arrays are declared once, before both copies (both use the same storage). Nothing
else is shared: hoisting the work before the first vector access out of the copies (RoPE's
angles, cosines and sines, half its cubin; MLX copies and hashes the cubin per launch) was
measured on the H200 on 2026-12-04 and undone: the register arrays it declares are indexed by the
element-wise copy's rolled loops, which puts them in local memory for the aligned copy too
(vector add 1.23-1.35x Triton's time on the same source, RoPE 1.27-1.46x, from 0.98-1.04).
"""
from __future__ import annotations

import copy
import dataclasses
from functools import reduce

from .. import lir
from ..layouts import add, lit


def version_vector_accesses(kernel: lir.Kernel) -> None:
    """Rewrite `kernel.body` as `if (arguments aligned) { aligned copy } else { element-wise copy }`
    when it makes vector accesses to device memory (else leave it as it is)."""
    alignment = _required_alignment(kernel)
    if not alignment:
        return
    shared = [s for s in lir.walk(kernel.body) if isinstance(s, lir.Decl) and s.space == "threadgroup"]
    dropped = {id(s) for s in shared}
    body = lir.rewrite(kernel.body, lambda s: [] if id(s) in dropped else None)
    cond = reduce(lambda a, b: lir.Bin("&&", a, b),
                  [lir.Call("is_aligned", (lir.Sym(name), lit(n))) for name, n in sorted(alignment.items())])
    kernel.body = shared + [lir.If(cond, _rewritten(body, aligned=True), _rewritten(body, aligned=False))]


def _device_accesses(stmts: list[lir.Stmt]) -> list[lir.Stmt]:
    return [s for s in lir.walk(stmts) if isinstance(s, lir.AsyncCopy)
            or isinstance(s, (lir.VectorLoad, lir.VectorStore)) and s.space == "device"]


def _required_alignment(kernel: lir.Kernel) -> dict[str, int]:
    """Bytes of alignment each pointer argument needs for its widest vector access."""
    origins = lir.pointer_origins(kernel)
    needed: dict[str, int] = {}
    for s in _device_accesses(kernel.body):
        count = len(s.targets) if isinstance(s, lir.VectorLoad) else s.count if isinstance(s, lir.AsyncCopy) \
            else len(s.values)
        nbytes = count * s.type.bits // 8
        for name in origins(s.src if isinstance(s, lir.AsyncCopy) else s.ptr):
            needed[name] = max(needed.get(name, 1), nbytes)
    return needed


def _rewritten(stmts: list[lir.Stmt], aligned: bool) -> list[lir.Stmt]:
    """A copy of `stmts` whose device vector accesses are marked aligned, or split into elements."""
    def replace(s: lir.Stmt) -> list[lir.Stmt] | None:
        if isinstance(s, lir.VectorLoad) and s.space == "device":
            if aligned:
                return [dataclasses.replace(s, aligned=True)]
            loads = [lir.Assign(t, lir.Index(s.ptr, lit(i))) for i, t in enumerate(s.targets)]
            if s.mask is None:
                return loads
            return [lir.If(s.mask, loads, [lir.Assign(t, o) for t, o in zip(s.targets, s.others)])]
        if isinstance(s, lir.AsyncCopy):  # element-wise: plain threadgroup stores, zero where masked
            if aligned:
                return [dataclasses.replace(s, aligned=True)]
            dst = add(s.dst, s.offset)
            copies = [lir.Assign(lir.Index(dst, lit(i)), lir.Index(s.src, lit(i))) for i in range(s.count)]
            if s.mask is None:
                return copies
            zeros = [lir.Assign(lir.Index(dst, lit(i)), lir.Lit(0, s.type)) for i in range(s.count)]
            return [lir.If(s.mask, copies, zeros)]
        if isinstance(s, lir.VectorStore) and s.space == "device":
            if aligned:
                return [dataclasses.replace(s, aligned=True)]
            return [lir.Assign(lir.Index(s.ptr, lit(i)), v) for i, v in enumerate(s.values)]
        if isinstance(s, lir.For) and s.unroll and not aligned:
            s.unroll, s.rolled = False, True
        if isinstance(s, lir.WarpgroupWait) and s.pending and not aligned:
            # products left running: the rolled loops index the accumulators, which puts them in local
            # memory, stored at the loop's exit before the wait after it; any read of a running
            # product's registers makes ptxas serialise every wgmma of the kernel, both copies'
            return [dataclasses.replace(s, pending=0)]
        return None
    return lir.rewrite(copy.deepcopy(stmts), replace)
