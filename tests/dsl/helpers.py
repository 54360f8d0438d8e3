"""Shared helpers for front-end tests: build IR and find operations in it."""
from __future__ import annotations

import inspect
import linecache

import pytest

from metalforge.dsl import ir
from metalforge.dsl.frontend import JITFunction
from metalforge.errors import KernelDefinitionError


def ops(fn: ir.Function, opcode: str) -> list[ir.Operation]:
    return [op for op in fn.walk() if op.opcode == opcode]


def opcodes(fn: ir.Function) -> list[str]:
    return [op.opcode for op in fn.walk()]


def line_of(kernel: JITFunction, text: str) -> int:
    """Absolute line number of the first line of `kernel` that contains `text`."""
    lines, start = inspect.getsourcelines(kernel.fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(f"{text!r} not in {kernel.__name__}")


def expect_error(kernel: JITFunction, arg_types: dict, constexprs: dict, at: str, reason: str,
                 hint: str = "") -> KernelDefinitionError:
    """Building must fail with a KernelDefinitionError naming the kernel, this file, the line
    containing `at`, showing that line, with `reason` in the message and a hint."""
    with pytest.raises(KernelDefinitionError) as info:
        kernel.build_ir(arg_types, constexprs)
    e = info.value
    line = line_of(kernel, at)
    assert e.kernel == kernel.__name__
    assert e.file == inspect.getsourcefile(kernel.fn)
    assert e.line == line, (e.line, line, str(e))
    assert e.source == linecache.getline(e.file, line).strip()
    assert reason in e.reason, str(e)
    assert e.hint and hint in e.hint, str(e)
    assert f"`{kernel.__name__}`" in str(e) and f"{e.file}:{line}" in str(e) and e.source in str(e)
    return e
