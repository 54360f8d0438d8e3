"""`tl.device_print`: Metal kernels cannot print, so each printed element is appended to a hidden
output buffer (records of program id, element index, value bits) that the launcher decodes and
prints after the kernel ran, in Triton's format."""
from __future__ import annotations

import numpy as np

from ...dsl import ir
from ...dsl.ir import BlockType, Operation, element_of, shape_of
from .. import lir
from ..layouts import Scalar, add, flat_index, lit, mul_
from ..lir import Atomic, Bin, Bitcast, Cast, Special, Sym
from .core import Lowering

PRINT_BUFFER = "mf_print_buffer"
RECORD_WORDS = 6        # pid x, pid y, pid z, (print site << 8 | argument), element index, value bits
PRINT_CAPACITY = 4096   # records per launch; later ones are dropped (the launcher says so)


def lower_print(lw: Lowering, op: Operation) -> None:
    site = len(lw.prints)
    lw.prints.append((op.attrs.get("prefix", ""), [element_of(v.type) for v in op.operands], op.attrs.get("hex")))
    buffer = Sym(PRINT_BUFFER)
    for arg, v in enumerate(op.operands):
        element = element_of(v.type)
        layout = lw.plan.storage(v) if isinstance(v.type, BlockType) else Scalar()
        lw.ready([v], layout)

        def record(k, coords, v=v, arg=arg, element=element, layout=layout):
            value = lw.read(v, layout, k, coords)
            bits = Bitcast(ir.uint32, Cast(ir.float32, value)) if element.is_float else Cast(ir.uint32, value)
            slot = lw.name(None, "record")
            base = add(mul_(Sym(slot), lit(RECORD_WORDS)), lit(RECORD_WORDS))  # record 0 holds the counter
            fields = [Special("pid0"), Special("pid1"), Special("pid2"), lit(site << 8 | arg),
                      flat_index(coords, shape_of(v.type)) if coords else lit(0), bits]
            body = [lir.Decl(slot, ir.uint32, init=Atomic("add", buffer, lit(1), ir.uint32)),
                    lir.If(Bin("<", Sym(slot), lit(PRINT_CAPACITY)),
                           [lir.Store(Bin("+", buffer, add(base, lit(i))), Cast(ir.uint32, f), atomic=True)
                            for i, f in enumerate(fields)])]
            owner = layout.owner(k) if k is not None else Bin("==", Special("tid"), lit(0))
            for stmt in ([lir.If(owner, body)] if owner is not None else body):
                lw.emit(stmt)
        lw.slot_loop(layout, record)


HANDLERS = {"print": lower_print}


def decode(words, prints, emit=print) -> None:
    """Print the records of one launch as Triton's device_print does."""
    words = np.asarray(words, dtype=np.uint32)
    count = int(words[0])
    for r in range(min(count, PRINT_CAPACITY)):
        px, py, pz, tag, index, bits = (int(w) for w in words[RECORD_WORDS * (r + 1):RECORD_WORDS * (r + 2)])
        prefix, types, hex_ = prints[tag >> 8]
        t = types[tag & 0xFF]
        if t.is_float:
            value = float(np.array([bits], np.uint32).view(np.float32)[0])
        else:
            value = int(np.array([bits], np.uint32).view(np.int32)[0]) if t.signed else bits
        shown = hex(bits) if hex_ else value
        emit(f"pid ({px}, {py}, {pz}) idx ({index}) {prefix}{shown}")
    if count > PRINT_CAPACITY:
        emit(f"({count - PRINT_CAPACITY} more device_print records were dropped)")
