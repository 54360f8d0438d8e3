"""Static facts of a lowered kernel, per thread and program: what its memory instructions move and
how wide, its barriers, threadgroup memory and register arrays. They make the cost of generated code
visible without a GPU (benchmarks/codegen_facts.py prints them for the library, docs record them),
and the tuner's prunes can read the compiler's own threadgroup bytes instead of recomputing them.

Counts follow the per-thread program: a loop with a constant trip count multiplies its body; a loop
whose trip count is only known at run time (a K or column loop) counts its body once, as "per
iteration". A kernel versioned on its arguments' alignment (lir_passes/aligned_vectors.py) is counted
on its aligned copy, the one that runs for ordinary arrays.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from . import lir


@dataclass
class KernelFacts:
    threads: int
    loads: Counter = field(default_factory=Counter)   # bytes per access -> device loads per thread
    stores: Counter = field(default_factory=Counter)  # bytes per access -> device stores per thread
    barriers: int = 0
    shared_bytes: int = 0
    register_elements: int = 0  # elements of per-thread arrays (an upper bound on what lives in registers)
    runtime_loops: int = 0      # loops counted once per iteration

    def summary(self) -> str:
        def accesses(c: Counter) -> str:
            return " ".join(f"{n}x{b}B" for b, n in sorted(c.items(), reverse=True)) or "-"
        return (f"loads {accesses(self.loads)}, stores {accesses(self.stores)}, barriers {self.barriers}, "
                f"threadgroup {self.shared_bytes} B, register arrays {self.register_elements} elements")


def kernel_facts(kernel: lir.Kernel) -> KernelFacts:
    facts = KernelFacts(kernel.threads)
    body = kernel.body
    shared = [s for s in lir.walk(body) if isinstance(s, lir.Decl) and s.space == "threadgroup"]
    facts.shared_bytes = max((s.end for s in shared), default=0)
    if any(s.align > 16 for s in shared):  # the renderer moves the 16-byte aligned base up to the alignment
        facts.shared_bytes += max(s.align for s in shared) - 16
    versioned = [s for s in body if isinstance(s, lir.If) and _tests_alignment(s.cond)]
    if versioned:
        body = versioned[0].then
    arrays = {s.name for s in lir.walk(body) if isinstance(s, lir.Decl) and s.size is not None}
    arrays |= {s.name for s in shared}
    types = {name: t.element for name, t in kernel.inputs if hasattr(t, "element")}
    types.update(kernel.outputs)
    origins = lir.pointer_origins(kernel)

    def element_bytes(address: lir.Expr) -> int:
        found = {types[n].bits // 8 for n in origins(address)}
        return found.pop() if len(found) == 1 else 0  # 0: not traced to one argument

    def count(stmts: list[lir.Stmt], times: int) -> None:
        for s in stmts:
            if isinstance(s, lir.VectorLoad):
                if s.space == "device":
                    facts.loads[len(s.targets) * s.type.bits // 8] += times
            elif isinstance(s, lir.AsyncCopy):
                facts.loads[s.count * s.type.bits // 8] += times
            elif isinstance(s, lir.VectorStore):
                if s.space == "device":
                    facts.stores[len(s.values) * s.type.bits // 8] += times
            elif isinstance(s, lir.Store):
                facts.stores[element_bytes(s.ptr)] += times
            elif isinstance(s, lir.Barrier):
                facts.barriers += times
            elif isinstance(s, lir.Decl):
                if s.space == "thread" and s.size is not None:
                    facts.register_elements += s.size
                if s.init is not None:
                    _device_reads(s.init, arrays, element_bytes, facts.loads, times)
            elif isinstance(s, lir.Assign):
                _device_reads(s.value, arrays, element_bytes, facts.loads, times)
                if isinstance(s.target, lir.Index) and not _is_array(s.target.base, arrays):
                    facts.stores[element_bytes(s.target.base)] += times
            elif isinstance(s, lir.If):
                _device_reads(s.cond, arrays, element_bytes, facts.loads, times)
                count(s.then, times)
                count(s.orelse, times)
            elif isinstance(s, lir.For):
                bounds = s.literal_bounds()
                trips = None if bounds is None or bounds[1] is None else \
                    max(0, -(-(bounds[1] - bounds[0]) // bounds[2]))
                if trips is None:
                    facts.runtime_loops += 1
                count(s.body, times * (trips or 1))
            elif isinstance(s, lir.Loop):
                facts.runtime_loops += 1
                count(s.head + s.body, times)

    count(body, 1)
    return facts


def _tests_alignment(e: lir.Expr) -> bool:
    if isinstance(e, lir.Call):
        return e.fn == "is_aligned"
    return isinstance(e, lir.Bin) and e.op == "&&" and _tests_alignment(e.a) and _tests_alignment(e.b)


def _is_array(base: lir.Expr, arrays: set[str]) -> bool:
    return isinstance(base, lir.Sym) and base.name in arrays


def _device_reads(e: object, arrays: set[str], element_bytes, loads: Counter, times: int) -> None:
    """Count the device-memory element reads (`ptr[i]`, atomic loads) inside expression `e`."""
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, lir.Index):
            if not _is_array(n.base, arrays):
                loads[element_bytes(n.base)] += times
            stack.extend((n.base, n.index))
        elif isinstance(n, lir.Call) and n.fn == "atomic_load":
            loads[element_bytes(n.args[0])] += times
        elif isinstance(n, (list, tuple)):
            stack.extend(n)
        elif isinstance(n, lir.Expr):
            stack.extend(getattr(n, f) for f in lir.node_fields(type(n)))
