"""`tl.device_print`: Metal kernels cannot print, so each printed element is appended to a hidden
output buffer (records of program id, element index, value bits) that the launcher decodes and
prints after the kernel ran, in Triton's format. `tl.device_assert` (and `tl.assume`) in a kernel
built with debug on append a record for each false element to the same buffer, and the decoding
raises DeviceAssertionError with the first."""
from __future__ import annotations

import numpy as np

from ...dsl import ir
from ...dsl.ir import BlockType, Operation, element_of, shape_of
from ...errors import DeviceAssertionError
from .. import lir
from ..layouts import Scalar, add, flat_index, lit, mul_
from ..lir import Atomic, Bin, Bitcast, Cast, Special, Sym, Un
from .core import Lowering

PRINT_BUFFER = "mf_print_buffer"
RECORD_WORDS = 6        # pid x, pid y, pid z, (print site << 8 | argument), element index, value bits
FAILURES_WORD = 1       # of record 0 (word 0: the record counter): false assertion elements, all counted
PRINT_CAPACITY = 4096   # records per launch; later ones are dropped (the launcher says so)


def lower_print(lw: Lowering, op: Operation) -> None:
    site = len(lw.prints)
    lw.prints.append((op.attrs.get("prefix", ""), [element_of(v.type) for v in op.operands], op.attrs.get("hex")))
    for arg, v in enumerate(op.operands):
        _records(lw, v, site << 8 | arg, lambda value, element=element_of(v.type): (
            Bitcast(ir.uint32, Cast(ir.float32, value)) if element.is_float else Cast(ir.uint32, value)))


def lower_assert(lw: Lowering, op: Operation) -> None:
    """A record (value 0) for each element whose condition is false where its mask is true. The site's
    entry in `lw.prints` carries the failure's message for `decode`: the kernel, the Python line and
    `msg` (its `hex` field is ASSERT, which no print has)."""
    site = len(lw.prints)
    loc = op.loc
    where = f"{op.attrs['what']} failed in kernel `{lw.fn.name}` at {loc.file}:{loc.line} (`{loc.source.strip()}`)"
    lw.prints.append((where + (f": {op.attrs['msg']}" if op.attrs["msg"] else ""), [ir.int1], ASSERT))
    cond, mask = op.operands[0], op.operands[1] if op.attrs.get("masked") else None
    _records(lw, cond, site << 8, lambda value: lit(0), mask=mask, when_false=True)


def _records(lw: Lowering, v, tag: int, bits, mask=None, when_false: bool = False) -> None:
    """Append a record of each element of `v` (that this thread owns) to the print buffer: program id,
    `tag`, element index and `bits(value)`; only where `v` is false and `mask` true if `when_false`."""
    buffer = Sym(PRINT_BUFFER)
    layout = lw.plan.storage(v) if isinstance(v.type, BlockType) else Scalar()
    lw.ready([v] + ([mask] if mask is not None else []), layout)

    def record(k, coords):
        value = lw.read(v, layout, k, coords)
        slot = lw.name(None, "record")
        base = add(mul_(Sym(slot), lit(RECORD_WORDS)), lit(RECORD_WORDS))  # record 0 holds the counter
        fields = [Special("pid0"), Special("pid1"), Special("pid2"), lit(tag),
                  flat_index(coords, shape_of(v.type)) if coords else lit(0), bits(value)]
        body = [lir.Decl(slot, ir.uint32, init=Atomic("add", buffer, lit(1), ir.uint32)),
                lir.If(Bin("<", Sym(slot), lit(PRINT_CAPACITY)),
                       [lir.Store(Bin("+", buffer, add(base, lit(i))), Cast(ir.uint32, f), atomic=True)
                        for i, f in enumerate(fields)])]
        conditions = [layout.owner(k) if k is not None else Bin("==", Special("tid"), lit(0))]
        if when_false:  # counted apart from the records, which a full buffer drops
            body.insert(0, lir.Decl(lw.name(None, "failure"), ir.uint32,
                                    init=Atomic("add", Bin("+", buffer, lit(FAILURES_WORD)), lit(1), ir.uint32)))
            conditions.append(Un("!", value))
            if mask is not None:
                conditions.append(lw.read(mask, layout, k, coords))
        for c in reversed([c for c in conditions if c is not None]):
            body = [lir.If(c, body)]
        for stmt in body:
            lw.emit(stmt)
    lw.slot_loop(layout, record)


ASSERT = "assert"  # the `hex` field of an assertion's site in `prints`
HANDLERS = {"print": lower_print, "assert": lower_assert}


def decode(words, prints, emit=print) -> None:
    """Print the records of one launch as Triton's device_print does; raise DeviceAssertionError for
    the first failed assertion (after printing every print record)."""
    words = np.asarray(words, dtype=np.uint32)
    count = int(words[0])
    failed: list[tuple[str, tuple[int, int, int], int]] = []
    for r in range(min(count, PRINT_CAPACITY)):
        px, py, pz, tag, index, bits = (int(w) for w in words[RECORD_WORDS * (r + 1):RECORD_WORDS * (r + 2)])
        prefix, types, hex_ = prints[tag >> 8]
        if hex_ == ASSERT:
            failed.append((prefix, (px, py, pz), index))
            continue
        t = types[tag & 0xFF]
        if t.is_float:
            value = float(np.array([bits], np.uint32).view(np.float32)[0])
        else:
            value = int(np.array([bits], np.uint32).view(np.int32)[0]) if t.signed else bits
        shown = hex(bits) if hex_ else value
        emit(f"pid ({px}, {py}, {pz}) idx ({index}) {prefix}{shown}")
    if count > PRINT_CAPACITY:
        emit(f"({count - PRINT_CAPACITY} more device_print records were dropped)")
    failures = int(words[FAILURES_WORD])
    if failed:
        where, pid, index = min(failed, key=lambda f: (f[1][::-1], f[2]))
        raise DeviceAssertionError(f"{where}; first at pid {pid} idx ({index})"
                                   + (f", and {failures - 1} more false element(s)" if failures > 1 else ""))
    if failures:
        sites = sorted({p[0] for p in prints if p[2] == ASSERT})
        raise DeviceAssertionError(f"{failures} element(s) failed a device assertion ({'; '.join(sites)}), but "
                                   f"their records were dropped: the launch's device_print records filled the "
                                   f"buffer ({PRINT_CAPACITY}); print fewer values to see which")
