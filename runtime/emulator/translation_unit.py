"""The C++ translation unit the emulator compiles for one generated Metal kernel.

It is MLX's generated text, unchanged but for two spellings clang cannot take as they are:
`threadgroup` variable declarations in the body become references into the per-threadgroup arena,
and the attributes on the explicit template instantiation are dropped. Line numbers are kept, so
clang's diagnostics point at the same lines as Metal's would. A harness rendered from a Jinja
template is appended: it binds buffers and thread attributes to the kernel's parameters.
"""
from __future__ import annotations

import re
from typing import Callable, Optional, Protocol
from dataclasses import dataclass

import jinja2

from ..signature import GeneratedKernel, type_name

_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("metalforge.runtime.emulator", "templates"),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)

# MLX's utils.h (which `metal::utils()` prepends to every custom kernel) and the Metal stdlib shim.
PRELUDE = '#include <metal_stdlib>\nusing namespace metal;\n#include "mlx_utils.h"\n'

# `threadgroup <type> <declarators>;` where declarators are names with array extents (no
# pointers, references or initialisers: those are not allocations).
_THREADGROUP_DECL = re.compile(
    r"(?<![\w:])threadgroup\s+(?P<type>(?:const\s+)?[A-Za-z_][\w:]*(?:\s*<[^;<>]*>)?)\s+"
    r"(?P<decls>[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)*(?:,\s*[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)*)*);"
)
_DECLARATOR = re.compile(r"(?P<name>[A-Za-z_]\w*)\s*(?P<dims>(?:\[[^\]]*\]\s*)*)")
_INSTANTIATION_ATTRS = re.compile(r'^template \[\[host_name\("[^"]*"\)\]\] \[\[kernel\]\] ', re.M)

# How the harness computes each Metal attribute from the runtime's per-thread context.
ATTRIBUTE_VALUES = {
    "dispatch_quadgroups_per_threadgroup": "(c.dispatch_threads_per_threadgroup.x * c.dispatch_threads_per_threadgroup.y"
                                           " * c.dispatch_threads_per_threadgroup.z + 3) / 4",
    "dispatch_simdgroups_per_threadgroup": "(c.dispatch_threads_per_threadgroup.x * c.dispatch_threads_per_threadgroup.y"
                                           " * c.dispatch_threads_per_threadgroup.z + 31) / 32",
    "dispatch_threads_per_threadgroup": "c.dispatch_threads_per_threadgroup",
    "grid_origin": "uint3{0, 0, 0}",
    "grid_size": "c.threads_per_grid",
    "quadgroup_index_in_threadgroup": "c.thread_index_in_threadgroup / 4",
    "quadgroups_per_threadgroup": "(c.threads_per_threadgroup.x * c.threads_per_threadgroup.y"
                                  " * c.threads_per_threadgroup.z + 3) / 4",
    "simdgroup_index_in_threadgroup": "c.thread_index_in_threadgroup / 32",
    "simdgroups_per_threadgroup": "(c.threads_per_threadgroup.x * c.threads_per_threadgroup.y"
                                  " * c.threads_per_threadgroup.z + 31) / 32",
    "thread_execution_width": "32u",
    "thread_index_in_quadgroup": "c.thread_index_in_threadgroup % 4",
    "thread_index_in_simdgroup": "c.thread_index_in_threadgroup % 32",
    "thread_index_in_threadgroup": "c.thread_index_in_threadgroup",
    "thread_position_in_grid": "c.thread_position_in_grid",
    "thread_position_in_threadgroup": "c.thread_position_in_threadgroup",
    "threadgroup_position_in_grid": "c.threadgroup_position_in_grid",
    "threadgroups_per_grid": "c.threadgroups_per_grid",
    "threads_per_grid": "c.threads_per_grid",
    "threads_per_simdgroup": "32u",
    "threads_per_threadgroup": "c.threads_per_threadgroup",
}

# Names whose presence means the kernel synchronises, so its threads must run as fibers (Metal 4
# tensor ops need their simdgroup and their place in the threadgroup).
_SYNCHRONISES = re.compile(r"\b(threadgroup_barrier|simdgroup_barrier|simd_\w+|quad_\w+"
                           r"|simdgroup_(?!index_in_threadgroup\b)\w+|matmul2d|execution_simdgroups?)\b")


class CompilableUnit(Protocol):
    """What the back end needs of a translation unit: a `metal_kernel`'s (TranslationUnit) or one of
    MLX's own kernels (mlx_kernels.MlxUnit)."""

    @property
    def text(self) -> str: ...
    @property
    def display_text(self) -> str: ...
    @property
    def uses_fibers(self) -> bool: ...
    def describe_line(self, n: int, origin: Optional[Callable[[int], Optional[str]]] = None) -> str: ...


@dataclass(frozen=True)
class TranslationUnit:
    text: str
    display_text: str      # the same lines as MLX generated them, for messages
    body_first_line: int   # 1-based line of the body's first line in `text`
    body_line_count: int
    uses_fibers: bool

    def describe_line(self, n: int, origin: Optional[Callable[[int], Optional[str]]] = None) -> str:
        """Where line n of `text` comes from, for messages (`origin`: the Python line behind a line of
        a generated kernel's source)."""
        lines = self.display_text.split("\n")
        code = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        if self.body_first_line <= n < self.body_first_line + self.body_line_count:
            line = n - self.body_first_line + 1
            where = origin(line) if origin else None
            return f"line {line} of the kernel source (`{code}`)" + (f", generated from {where}" if where else "")
        return f"line {n - PRELUDE.count(chr(10))} of the generated source (`{code}`)"


def rewrite_threadgroup_declarations(body: str, first_site: int = 0) -> tuple[str, int]:
    """`threadgroup float t[64], u[8];` -> arena references, on the same line; returns the text and the
    next free site number (every declaration of one translation unit needs its own)."""
    counter = iter(range(first_site, 1 << 30))
    last = [first_site]

    def replace(m: re.Match) -> str:
        ty = m.group("type")
        out = []
        for d in _DECLARATOR.finditer(m.group("decls")):
            name, dims = d.group("name"), d.group("dims").strip()
            site = next(counter)
            last[0] = site + 1
            out.append(f"threadgroup {ty} (&{name}){dims} = "
                       f"*(threadgroup {ty} (*){dims})::mfemu::threadgroup_slot<{ty} {dims}, {site}>();")
        return " ".join(out)

    return _THREADGROUP_DECL.sub(replace, body), last[0]


def render_harness(call: str) -> str:
    """The functions the runtime calls (one thread, a barrier-free group) around the kernel call `call`."""
    return _TEMPLATES.get_template("harness.cpp.j2").render(call=call)


def buffer_arguments(kernel: GeneratedKernel, output_dtypes, atomic_outputs: bool) -> list[str]:
    args, index = [], 0
    for info in kernel.inputs:
        t = type_name(info.dtype)
        space = "constant" if info.in_constant_memory else "device"
        args.append(f"*(const {space} {t}*)b[{index}]" if info.ndim == 0 else f"(const {space} {t}*)b[{index}]")
        index += 1
        if info.ndim > 0:
            for used, expr in ((info.uses_shape, "(const constant int*)b[{}]"),
                               (info.uses_strides, "(const constant int64_t*)b[{}]"),
                               (info.uses_ndim, "*(const constant int*)b[{}]")):
                if used:
                    args.append(expr.format(index))
                    index += 1
    for dtype in output_dtypes:
        t = f"atomic<{type_name(dtype)}>" if atomic_outputs else type_name(dtype)
        args.append(f"(device {t}*)b[{index}]")
        index += 1
    return args


def build(kernel: GeneratedKernel, body: str, header: str, output_dtypes, atomic_outputs: bool) -> TranslationUnit:
    text = kernel.source
    body_start = text.rindex(body + "\n}\n") if body else text.rindex("\n}\n")
    text = text[:body_start] + rewrite_threadgroup_declarations(body)[0] + text[body_start + len(body):]
    text = _INSTANTIATION_ATTRS.sub("template ", text)
    args = buffer_arguments(kernel, output_dtypes, atomic_outputs) + [ATTRIBUTE_VALUES[a] for a in kernel.attributes]
    call = f"{kernel.name}{kernel.template_def}({', '.join(args)})"
    harness = render_harness(call)
    prelude_lines = PRELUDE.count("\n")
    return TranslationUnit(
        text=PRELUDE + text + harness,
        display_text=PRELUDE + kernel.source,
        body_first_line=prelude_lines + kernel.source[:body_start].count("\n") + 1,
        body_line_count=body.count("\n") + 1,
        uses_fibers=bool(_SYNCHRONISES.search(header + "\n" + body)),
    )
