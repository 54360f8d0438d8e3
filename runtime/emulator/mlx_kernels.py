"""MLX's own production Metal kernels, run on the emulator: the yardstick for ours.

MLX (0.32.4) ships its kernels' headers in the `mlx-metal` wheel (softmax.h, quantized.h,
sdpa_vector.h, steel/...); the norms and RoPE are `.metal` files of its repository. This module
compiles one kernel of those sources as a translation unit — MLX's text with the spellings clang
needs (below), one instantiation with the template arguments MLX's kernel files use, and the
function constants MLX's host code sets — and launches it through the same emulator path as
`metal_kernel` (`EmulatorBackend.run_unit`: checked buffers, fibers, the watchdog), with the grid,
threadgroup and buffer indices MLX's host code (mlx/backend/metal/*.cpp) uses for a given shape.

Spellings changed on the way in, each keeping the line (errors name MLX's file and line); comments
are dropped first:
  * `#include "mlx/..."` is inlined once (`#pragma once` dropped); MLX's complex.h is replaced by
    the shim's mlx_complex.h (MLX's declares constructors per address space, which clang cannot);
  * `threadgroup T x[N];` (with or without an initializer, which Metal ignores) becomes a reference
    into the threadgroup arena, as for `metal_kernel`; the memory stays poisoned;
  * `[[threadgroup(n)]]` (`threadgroup` is an address-space macro here) is spelled
    `[[threadgroup_index(n)]]`; the harness binds no such parameter of a kernel (none of MLX's
    kernels run here has one);
  * `*((threadgroup V*)(p)) = *((const device V*)(q));` (an object assigned between address
    spaces, which clang's C++ cannot) becomes `::mfemu::copy_object(...)`: one access of the
    object's size and alignment (shim/mfemu/object_copy.h);
  * array parameters in an address space (`constant const int64_t strides[3]`) become pointers;
  * `constant T name [[function_constant(i)]];` becomes a compile-time constant with the launch's
    value, or, when the launch sets none, an object whose reading stops the kernel with an error
    naming it (Metal leaves its value undefined);
  * `instantiate_kernel` (every instantiation in a `.metal` file) is emptied: the harness
    instantiates the one kernel it runs.

Sources: `.ci/install` puts them under `sources_dir()` ($METALFORGE_MLX_SOURCES, else
<repository>/.cache/mlx-sources): the wheel's headers (pinned by version and SHA-256) and the
`.metal` files in KERNEL_FILES (pinned by SHA-256).
"""
from __future__ import annotations

import hashlib
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

import mlx.core as mx
import numpy as np

from ...errors import KernelCompileError
from ..signature import type_name
from . import translation_unit
from .backend import Argument, EmulatorBackend
from .instrument import split_top

MLX_VERSION = "0.32.4"
WHEEL = f"mlx_metal-{MLX_VERSION}-py3-none-macosx_14_0_arm64.whl"
WHEEL_SHA256 = "8019b2db622599267d66cc168b2f0dbf5af929790a6c3b3913e00eabc42a7947"
KERNELS = "mlx/backend/metal/kernels"
# The kernels that are `.metal` files of MLX's repository, not headers of the wheel: no package
# registry carries them. Pinned by content; taken from MLX_COMMIT.
KERNEL_FILES = {
    "rms_norm.metal": "b2e04e377fdad1d645581f9beeaf9cbb06d1ad32926161e06cbc15240caf12bf",
    "layer_norm.metal": "2d243f5abea7353929f9bc838ceb5a98e52a452dfc29609ad4d5974447ea689f",
    "rope.metal": "2b35221ebea033ff43100b85eaaddec5c0e34e3cfd52e7c692573764b2b7d0ab",
}
SOURCES_ENV = "METALFORGE_MLX_SOURCES"
MLX_COMMIT = "846d176227a0ac13d2667e58d2bb68b322109ab0"  # ml-explore/mlx, where KERNEL_FILES come from
FETCH_HINT = ("run `bash .ci/install` (it downloads the mlx-metal wheel from PyPI and copies MLX's .metal kernel "
              f"files, {', '.join(KERNEL_FILES)} of ml-explore/mlx at commit {MLX_COMMIT[:7]}, from .ci/mlx-kernels/ "
              f"when present), or set METALFORGE_MLX_SOURCES to a directory holding {KERNELS}/")
MAX_THREADS_PER_THREADGROUP = 1024  # what MLX reads from maxTotalThreadsPerThreadgroup (Apple GPUs: 1024)

_PRELUDE = ('#include <metal_stdlib>\nusing namespace metal;\n#include "mfemu/bind.h"\n#include "mfemu/object_copy.h"\n'
            "// metalforge: every instantiate_kernel of MLX's files is emptied; the harness instantiates one kernel\n")
_INCLUDE = re.compile(r'^\s*#\s*include\s+"(mlx/[^"]+)"')
_FUNCTION_CONSTANT = re.compile(
    r"^(?P<indent>\s*)constant\s+(?P<type>[\w:]+)\s+(?P<name>\w+)\s*\[\[\s*function_constant\((?P<index>\d+)\)\s*\]\]\s*;",
    re.M)
_ARRAY_PARAMETER = re.compile(
    r"\b(?P<space>constant|device|threadgroup)\s+(?P<type>(?:const\s+)?[\w:]+(?:<[^<>]*>)?)\s+(?P<name>\w+)\s*\[[^\]]*\](?=\s*[,)])")
_THREADGROUP_INIT = re.compile(r"(?<![\w:])(threadgroup\s+[\w:]+\s+\w+\s*(?:\[[^\]]*\]\s*)+)=\s*\{[^;{}]*\}\s*;")
_OBJECT_ASSIGNMENT = re.compile(
    r"(?P<lhs>\*\(\((?:threadgroup|device)\s+\w+\s*\*\)\([^;]*?\)\))\s*=(?P<gap>\s*)"
    r"(?P<rhs>\*\(\((?:const\s+)?(?:device|threadgroup|constant)\s+\w+\s*\*\)\([^;]*?\)\));")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_THREADGROUP_ATTRIBUTE = re.compile(r"\[\[\s*threadgroup\s*\(\s*(\d+)\s*\)\s*\]\]")
_ATTRIBUTES = re.compile(r"\[\[(?P<list>.*?)\]\]", re.S)
_ATTRIBUTE = re.compile(r"^\s*(?P<name>\w+)\s*(?:\(\s*(?P<arg>\w+)\s*\))?\s*$")


def sources_dir() -> Path:
    """Where the pinned MLX sources are (or go): $METALFORGE_MLX_SOURCES, else <repository>/.cache/mlx-sources."""
    env = os.environ.get(SOURCES_ENV)
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".cache" / "mlx-sources"


def missing_sources(files: Sequence[str]) -> list[str]:
    """Which of `files` (relative to MLX's kernels directory) are absent from `sources_dir()`."""
    root = sources_dir() / KERNELS
    return [f for f in files if not (root / f).is_file()]


def install_sources(wheel: Path, metal_dir: Optional[Path]) -> list[str]:
    """Extract the wheel's kernel headers into `sources_dir()` (the wheel's SHA-256 checked) and copy
    KERNEL_FILES from `metal_dir` (each SHA-256 checked); returns what could not be installed."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise ValueError(f"{wheel}: SHA-256 {digest}, expected {WHEEL_SHA256} (mlx-metal {MLX_VERSION})")
    root = sources_dir()
    prefix = f"mlx/include/{KERNELS}/"
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(prefix) and name.endswith(".h"):
                target = root / KERNELS / name[len(prefix):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(z.read(name))
    missing = []
    for name, sha in KERNEL_FILES.items():
        source = metal_dir / name if metal_dir else None
        if source is None or not source.is_file() or hashlib.sha256(source.read_bytes()).hexdigest() != sha:
            missing.append(name)
            continue
        (root / KERNELS / name).write_bytes(source.read_bytes())
    return missing


# ---- the translation unit ------------------------------------------------------------------------
@dataclass(frozen=True)
class MlxKernel:
    """One kernel of MLX's sources as its host code instantiates it."""

    source: str                 # file under mlx/backend/metal/kernels: "softmax.h", "rms_norm.metal"
    function: str               # the [[kernel]] function template: "softmax_single_row"
    template_args: str = ""     # as MLX's instantiate_kernel line gives them: "float, float"
    constants: tuple = ()       # (index, C++ value) of the function constants the host code sets
    includes: tuple = ("utils.h",)  # headers the source needs first (a header's .metal file includes them)

    @property
    def label(self) -> str:
        return f"MLX {MLX_VERSION} {self.function}<{self.template_args}>"


@dataclass(frozen=True)
class MlxUnit:
    """A translation unit of MLX's sources (the interface of translation_unit.TranslationUnit)."""

    text: str
    origins: tuple  # (file, line) of each line of `text`
    buffer_indices: tuple  # the kernel's [[buffer(n)]] indices, in the harness's binding order
    absent_buffers: tuple  # indices of parameters whose function_constant condition is false
    uses_fibers: bool = True  # MLX's kernels synchronise (and utils.h names simd functions)

    @property
    def display_text(self) -> str:
        return self.text

    def describe_line(self, n: int, origin: Optional[Callable[[int], Optional[str]]] = None) -> str:
        lines = self.text.split("\n")
        code = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        where, line = self.origins[n - 1] if 0 < n <= len(self.origins) else ("the harness", n)
        return f"{where}:{line} (`{code}`)"


class _Inliner:
    """MLX's files, inlined once each with the spellings clang needs (the module's docstring)."""

    def __init__(self, constants: dict[int, str]) -> None:
        self.constants = constants
        self.values: dict[str, str] = {}  # function constant name -> the value this launch gives it
        self.seen: set[str] = set()
        self.lines: list[str] = []
        self.origins: list[tuple[str, int]] = []
        self.sites = 0

    def add(self, text: str, where: str) -> None:
        for i, line in enumerate(text.split("\n")):
            self.lines.append(line)
            self.origins.append((where, i + 1))

    def include(self, relative: str) -> None:
        if relative in self.seen:
            return
        self.seen.add(relative)
        if relative == f"{KERNELS}/complex.h":
            self.add('#include "mlx_complex.h"  // metalforge: in place of MLX\'s complex.h', relative)
            return
        path = sources_dir() / relative
        if not path.is_file():
            raise FileNotFoundError(f"MLX source {relative} is missing from {sources_dir()}: {FETCH_HINT}")
        text = self.rewrite(path.read_text())
        for i, line in enumerate(text.split("\n")):
            m = _INCLUDE.match(line)
            if m:
                self.include(m.group(1))
            elif line.strip() != "#pragma once":
                self.lines.append(line)
                self.origins.append((relative, i + 1))
        if relative == f"{KERNELS}/defines.h":
            self.add("#undef instantiate_kernel\n#define instantiate_kernel(name, func, ...)", "metalforge")

    def rewrite(self, text: str) -> str:
        text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # words in comments are not code
        text = _THREADGROUP_INIT.sub(r"\1;", text)
        text = _OBJECT_ASSIGNMENT.sub(r"::mfemu::copy_object(\g<lhs>,\g<gap>\g<rhs>);", text)
        text = _THREADGROUP_ATTRIBUTE.sub(r"[[threadgroup_index(\1)]]", text)
        text, self.sites = translation_unit.rewrite_threadgroup_declarations(text, self.sites)
        text = _ARRAY_PARAMETER.sub(r"\g<space> \g<type>* \g<name>", text)
        return _FUNCTION_CONSTANT.sub(self.function_constant, text)

    def function_constant(self, m: re.Match) -> str:
        index, ty, name = int(m.group("index")), m.group("type"), m.group("name")
        if index in self.constants:
            self.values[name] = self.constants[index]
            return f"{m.group('indent')}static constexpr {ty} {name} = {self.constants[index]};"
        return f'{m.group("indent")}static const ::mfemu::UnsetFunctionConstant<{ty}> {name}{{"{name}", {index}}};'


def _parameters(text: str, function: str) -> list[str]:
    """The parameter declarations of the [[kernel]] function template `function` in `text`."""
    m = re.search(r"\[\[\s*kernel\b[^\]]*\]\]\s*void\s+" + re.escape(function) + r"\s*\(", text)
    if not m:
        raise KernelCompileError(f"MLX {MLX_VERSION}: no [[kernel]] function {function} in the sources")
    depth, i = 1, m.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return [p for p in split_top(text[m.end():i - 1]) if p]


def _attributes(parameter: str) -> dict[str, Optional[str]]:
    """The attributes of a parameter declaration: `[[buffer(11), function_constant(bool_mask)]]` ->
    {"buffer": "11", "function_constant": "bool_mask"}."""
    found: dict[str, Optional[str]] = {}
    for group in _ATTRIBUTES.finditer(parameter):
        for item in split_top(group.group("list")):
            m = _ATTRIBUTE.match(item)
            if m:
                found[m.group("name")] = m.group("arg")
    return found


def _harness_call(kernel: MlxKernel, parameters: list[str], constants: dict[str, str]) -> tuple[str, tuple, tuple]:
    """The harness's call of the kernel, the [[buffer(n)]] index behind each binding slot b[k], and the
    indices of buffers that are absent because their `function_constant(...)` condition is false.

    A buffer parameter without an index takes the previous one's plus one, as Metal assigns them."""
    args, indices, absent, previous = [], [], [], -1
    for p in parameters:
        attrs = _attributes(p)
        thread = [a for a in attrs if a in translation_unit.ATTRIBUTE_VALUES]
        if thread:
            args.append(f"::mfemu::attribute({translation_unit.ATTRIBUTE_VALUES[thread[0]]})")
            continue
        unknown = set(attrs) - {"buffer", "function_constant"}
        if unknown:
            raise KernelCompileError(f"{kernel.label}: parameter `{p.strip()}` has attribute {sorted(unknown)}, which "
                                     "the emulator's harness does not bind")
        previous = int(attrs["buffer"]) if attrs.get("buffer") else previous + 1
        indices.append(previous)
        args.append(previous)
        condition = attrs.get("function_constant")
        if condition is not None and constants.get(condition) != "true":
            absent.append(previous)
    order = tuple(sorted(indices))
    args = [f"::mfemu::BufferArgument{{b[{order.index(a)}]}}" if isinstance(a, int) else a for a in args]
    template = f"<{kernel.template_args}>" if kernel.template_args else ""
    return f"{kernel.function}{template}({', '.join(args)})", order, tuple(absent)


def build_unit(kernel: MlxKernel) -> MlxUnit:
    """The translation unit that runs `kernel` (MLX's sources must be installed)."""
    inliner = _Inliner(dict(kernel.constants))
    inliner.add(_PRELUDE, "metalforge prelude")
    for header in kernel.includes + (kernel.source,):
        inliner.include(f"{KERNELS}/{header}")
    text = "\n".join(inliner.lines)
    call, order, absent = _harness_call(kernel, _parameters(text, kernel.function), inliner.values)
    harness = translation_unit.render_harness(call)
    origins = inliner.origins + [("the harness", i + 1) for i in range(harness.count("\n") + 1)]
    return MlxUnit(text + "\n" + harness, tuple(origins), order, absent)


# ---- launches --------------------------------------------------------------------------------------
@dataclass
class Buffer:
    """A buffer of a launch: an input array, constant bytes (`set_bytes`), or an output to allocate."""

    name: str
    data: object = None  # mx.array or np.ndarray; None for an output
    shape: tuple = ()
    dtype: Optional[mx.Dtype] = None


@dataclass
class Launch:
    """One dispatch of an MLX kernel, as MLX's host code encodes it."""

    kernel: MlxKernel
    buffers: dict  # [[buffer(n)]] index -> Buffer
    grid: tuple  # threads per dimension (dispatchThreads; dispatchThreadgroups is converted)
    threadgroup: tuple
    rule: str  # the host code the launch follows: "mlx/backend/metal/softmax.cpp, Softmax::eval_gpu"
    unbound: tuple = ()  # buffer indices the host code leaves unset (the kernel must not read them)


def threadgroups(groups: tuple, threadgroup: tuple) -> tuple:
    """dispatchThreadgroups(groups, threadgroup) as the emulator's thread grid."""
    return tuple(g * t for g, t in zip(groups, threadgroup))


def run_launch(backend: EmulatorBackend, launch: Launch) -> dict[str, mx.array]:
    """Compile (cached) and run one launch; its outputs by name."""
    unit = build_unit(launch.kernel)
    compiled = backend.compile_unit(unit, launch.kernel.label)
    missing = [i for i in unit.buffer_indices
               if i not in launch.buffers and i not in unit.absent_buffers and i not in launch.unbound]
    if missing:
        raise ValueError(f"{launch.kernel.label}: the launch binds no buffer at index {missing} ({launch.rule})")
    arguments, outputs = [], []
    for index in unit.buffer_indices:
        buf = launch.buffers.get(index)
        if buf is None:  # absent (function constant false) or unset: any access is out of bounds
            arguments.append(Argument(f"buffer({index})", "unbound buffer", np.zeros(0, np.uint8)))
        elif buf.data is None:
            arguments.append(Argument(buf.name, "output", None, buf.shape, buf.dtype))
            outputs.append(buf.name)
        else:
            arguments.append(Argument(buf.name, "input", buf.data))
    results = backend.run_unit(compiled, arguments, launch.grid, launch.threadgroup, launch.kernel.label)
    return dict(zip(outputs, results))


@dataclass
class MlxOp:
    """An op MLX runs with its own kernels: inputs for a shape, the launches MLX's host code makes
    (a multi-pass op returns every pass; later passes read earlier passes' outputs by name), and the
    reference computed with mlx.core on the CPU."""

    name: str
    make_inputs: Callable[[dict, np.random.Generator], dict]
    launches: Callable[[dict], list]  # inputs -> [Launch], or a list of callables(results so far) -> Launch
    reference: Callable[[dict], mx.array]
    output: str  # the name of the final output buffer
    sources: tuple  # the files it needs under mlx/backend/metal/kernels
    shape: dict = field(default_factory=dict)  # the default (small) shape


@dataclass
class MlxResult:
    output: mx.array
    reference: mx.array
    inputs: dict
    launches: list  # the Launch of every pass, in order


def run_mlx_op(name: str, shape: Optional[dict] = None, seed: int = 0,
               backend: Optional[EmulatorBackend] = None) -> MlxResult:
    """Run MLX op `name` of MLX_OPS on the emulator for `shape` (default: the op's small shape) on
    random inputs from `seed`; returns its output, the mlx.core reference and the launches made."""
    op = MLX_OPS[name]
    missing = missing_sources(op.sources)
    if missing:
        raise FileNotFoundError(f"MLX {MLX_VERSION} sources {missing} are missing from {sources_dir()}: {FETCH_HINT}")
    backend = backend or EmulatorBackend()
    inputs = op.make_inputs({**op.shape, **(shape or {})}, np.random.default_rng(seed))
    results: dict[str, mx.array] = {}
    made = []
    for step in op.launches(inputs):
        launch = step(results) if callable(step) else step
        results.update(run_launch(backend, launch))
        made.append(launch)
    return MlxResult(results[op.output], op.reference(inputs), inputs, made)


# ---- the ops -----------------------------------------------------------------------------------------
def _random(rng: np.random.Generator, shape, dtype: mx.Dtype, scale: float = 1.0) -> mx.array:
    return mx.array((rng.standard_normal(shape) * scale).astype(np.float32)).astype(dtype)


def _bytes(value, dtype) -> np.ndarray:
    """`set_bytes` of a scalar or a small array."""
    return np.array(value, dtype=dtype).reshape(-1)


def _row_launch(kernel_looped: MlxKernel, kernel_block: MlxKernel, rows: int, axis: int, n_reads: int,
                looped_limit: int, buffers: dict, rule: str) -> Launch:
    """The launch rule MLX's row-wise ops share (softmax.cpp, normalization.cpp): one threadgroup per
    row of ceil(axis / n_reads) threads rounded up to a simdgroup, or of the pipeline's maximum
    threads when the row is longer than `looped_limit`; dispatch_threads."""
    if axis > looped_limit:
        size, kernel = MAX_THREADS_PER_THREADGROUP, kernel_looped
    else:
        threads_needed = -(-axis // n_reads)
        size, kernel = 32 * -(-threads_needed // 32), kernel_block
    return Launch(kernel, buffers, (rows * size, 1, 1), (size, 1, 1), rule)


def _softmax_launches(x: dict) -> list:
    # mlx/backend/metal/softmax.cpp, Softmax::eval_gpu: SOFTMAX_N_READS = 4, SOFTMAX_LOOPED_LIMIT = 4096;
    # kernels instantiated by softmax.metal as softmax_single_row<T> / softmax_looped<T> (AccT = T
    # without `precise`; precise: AccT = float).
    a = x["x"]
    t = type_name(a.dtype)
    acc = ", float" if x["precise"] else ""
    rows, axis = a.size // a.shape[-1], a.shape[-1]
    buffers = {0: Buffer("x", a), 1: Buffer("out", shape=a.shape, dtype=a.dtype), 2: Buffer("axis_size", _bytes(axis, np.int32))}
    return [_row_launch(MlxKernel("softmax.h", "softmax_looped", t + acc), MlxKernel("softmax.h", "softmax_single_row", t + acc),
                        rows, axis, 4, 4096, buffers, "mlx/backend/metal/softmax.cpp, Softmax::eval_gpu")]


def _norm_inputs(shape: dict, rng: np.random.Generator) -> dict:
    dtype = shape["dtype"]
    return {"x": _random(rng, (shape["rows"], shape["axis"]), dtype), "w": _random(rng, (shape["axis"],), dtype),
            "b": _random(rng, (shape["axis"],), dtype), "eps": 1e-5}


def _rms_norm_launches(x: dict) -> list:
    # mlx/backend/metal/normalization.cpp, RMSNorm::eval_gpu: RMS_N_READS = 4, RMS_LOOPED_LIMIT = 4096;
    # rms_norm.metal instantiates rms_single_row<T> / rms_looped<T>.
    a, t = x["x"], type_name(x["x"].dtype)
    rows, axis = a.size // a.shape[-1], a.shape[-1]
    buffers = {0: Buffer("x", a), 1: Buffer("w", x["w"]), 2: Buffer("out", shape=a.shape, dtype=a.dtype),
               3: Buffer("eps", _bytes(x["eps"], np.float32)), 4: Buffer("axis_size", _bytes(axis, np.uint32)),
               5: Buffer("w_stride", _bytes(1, np.uint32))}
    return [_row_launch(MlxKernel("rms_norm.metal", "rms_looped", t), MlxKernel("rms_norm.metal", "rms_single_row", t),
                        rows, axis, 4, 4096, buffers, "mlx/backend/metal/normalization.cpp, RMSNorm::eval_gpu")]


def _layer_norm_launches(x: dict) -> list:
    # mlx/backend/metal/normalization.cpp, LayerNorm::eval_gpu: n_reads 8 (4 when looped), looped
    # limit 6656; layer_norm.metal instantiates layer_norm_single_row<T> (N_READS 8) / layer_norm_looped<T> (4).
    a, t = x["x"], type_name(x["x"].dtype)
    rows, axis = a.size // a.shape[-1], a.shape[-1]
    buffers = {0: Buffer("x", a), 1: Buffer("w", x["w"]), 2: Buffer("b", x["b"]),
               3: Buffer("out", shape=a.shape, dtype=a.dtype), 4: Buffer("eps", _bytes(x["eps"], np.float32)),
               5: Buffer("axis_size", _bytes(axis, np.uint32)), 6: Buffer("w_stride", _bytes(1, np.uint32)),
               7: Buffer("b_stride", _bytes(1, np.uint32))}
    looped = axis > 6656
    return [_row_launch(MlxKernel("layer_norm.metal", "layer_norm_looped", t),
                        MlxKernel("layer_norm.metal", "layer_norm_single_row", t),
                        rows, axis, 4 if looped else 8, 6656, buffers,
                        "mlx/backend/metal/normalization.cpp, LayerNorm::eval_gpu")]


def block_dims(dim0: int, dim1: int, dim2: int, pow2: int = 10) -> tuple:
    """mlx/backend/common/utils.cpp, get_block_dims_common: a power-of-two threadgroup of at most
    2^pow2 threads, grown one dimension at a time while the grid is larger."""
    pows, total = [0, 0, 0], 0
    while True:
        before = total
        for d, dim in enumerate((dim0, dim1, dim2)):
            if dim >= (1 << (pows[d] + 1)):
                pows[d] += 1
                total += 1
            if total == 10:
                return tuple(1 << p for p in pows)
        if total == before or total == pow2:
            return tuple(1 << p for p in pows)


def _rope_inputs(shape: dict, rng: np.random.Generator) -> dict:
    b, h, t, d = shape["batch"], shape["heads"], shape["seq"], shape["dims"]
    return {"x": _random(rng, (b, h, t, d), shape["dtype"]), "offset": shape["offset"], "base": 10000.0, "scale": 1.0,
            "traditional": shape["traditional"]}


def _rope_launches(x: dict) -> list:
    # mlx/backend/metal/rope.cpp, RoPE::eval_gpu, row-contiguous input with T > 1 (not `single`):
    # kernel rope<T, int32_t> (rope.metal's "rope_<type>"), function constants forward (1),
    # traditional (2), hs_transpose (3); buffers in, out, offset, scale, strides[3], out_strides[3],
    # offset_stride, n_head, base = log2(base) at 10; grid (dims/2, T, B * ceil(N / 4)), threadgroup
    # get_block_dims of it; dispatch_threads.
    a = x["x"]
    b, n, t, d = a.shape
    strides = _bytes([t * d, d, 1], np.int64)
    kernel = MlxKernel("rope.metal", "rope", f"{type_name(a.dtype)}, int32_t",
                       ((1, "true"), (2, "true" if x["traditional"] else "false"), (3, "false")))
    buffers = {0: Buffer("x", a), 1: Buffer("out", shape=a.shape, dtype=a.dtype),
               2: Buffer("offset", mx.array([x["offset"]], dtype=mx.int32)), 3: Buffer("scale", _bytes(x["scale"], np.float32)),
               4: Buffer("strides", strides), 5: Buffer("out_strides", strides), 6: Buffer("offset_stride", _bytes(0, np.int64)),
               7: Buffer("n_head", _bytes(n, np.int32)), 10: Buffer("base", _bytes(np.log2(x["base"]), np.float32))}
    grid = (d // 2, t, b * -(-n // 4))
    return [Launch(kernel, buffers, grid, block_dims(*grid), "mlx/backend/metal/rope.cpp, RoPE::eval_gpu")]


def _qmv_inputs(shape: dict, rng: np.random.Generator) -> dict:
    n, k, dtype = shape["n"], shape["k"], shape["dtype"]
    w, scales, biases = mx.quantize(_random(rng, (n, k), dtype), group_size=64, bits=4, stream=mx.cpu)
    return {"x": _random(rng, (1, k), dtype), "w": w, "scales": scales, "biases": biases}


def _qmv_launches(x: dict) -> list:
    # mlx/backend/metal/quantized.cpp, qmv (dispatch_qmv with M = 1, K not 64/128, affine mode): fast when
    # N % 8 == 0 and K % 512 == 0 (qmv_fast_k_alignment for 4 bits); quantized.metal instantiates
    # affine_qmv[_fast]<T, group_size, bits, batched>; threadgroup (32, 2, 1), grid of threadgroups
    # (M, ceil(N / 8), B); buffers w, scales, biases, x, out, K, N, and for B > 1 only the batch
    # strides 7..14 (unset here: B = 1); dispatch_threadgroups.
    a, w = x["x"], x["w"]
    n, k = w.shape[0], a.shape[-1]
    fast = n % 8 == 0 and k % 512 == 0
    kernel = MlxKernel("quantized.h", "affine_qmv_fast" if fast else "affine_qmv", f"{type_name(a.dtype)}, 64, 4, false",
                       includes=("utils.h", "steel/gemm/gemm.h", "quantized_utils.h"))
    buffers = {0: Buffer("w", w), 1: Buffer("scales", x["scales"]), 2: Buffer("biases", x["biases"]), 3: Buffer("x", a),
               4: Buffer("out", shape=(1, n), dtype=a.dtype), 5: Buffer("K", _bytes(k, np.int32)),
               6: Buffer("N", _bytes(n, np.int32))}
    return [Launch(kernel, buffers, threadgroups((1, -(-n // 8), 1), (32, 2, 1)), (32, 2, 1),
                   "mlx/backend/metal/quantized.cpp, qmv", unbound=tuple(range(7, 15)))]


def _attention_inputs(shape: dict, rng: np.random.Generator) -> dict:
    b, hq, hkv, lq, lk, d, dtype = (shape[k] for k in ("batch", "q_heads", "kv_heads", "q_len", "kv_len", "dim", "dtype"))
    return {"q": _random(rng, (b, hq, lq, d), dtype), "k": _random(rng, (b, hkv, lk, d), dtype),
            "v": _random(rng, (b, hkv, lk, d), dtype), "scale": d ** -0.5}


def _f32(a: mx.array) -> mx.array:
    """References run mlx.core's CPU ops in float32 on the (rounded) inputs: their own error is then
    float32's, whatever precision MLX's CPU kernels use for half inputs."""
    return a.astype(mx.float32)


def _sdpa_reference(x: dict) -> mx.array:
    return mx.fast.scaled_dot_product_attention(_f32(x["q"]), _f32(x["k"]), _f32(x["v"]), scale=x["scale"],
                                                mask="causal" if x.get("causal") else None, stream=mx.cpu)


_NO_MASK = ((20, "false"), (21, "false"), (22, "false"), (23, "false"), (24, "false"), (25, "false"))


def _kv_strides(k: mx.array) -> tuple:
    """sdpa_vector's head and sequence strides of a row-contiguous (B, H, L, D) key/value array."""
    head = k.shape[2] * k.shape[3] if k.shape[1] > 1 else k.shape[1] * k.shape[2] * k.shape[3]
    return head, k.shape[3]


def _sdpa_vector_launches(x: dict) -> list:
    # mlx/backend/metal/scaled_dot_product_attention.cpp, sdpa_vector: kernel sdpa_vector<T, D, V>
    # (scaled_dot_product_attention.metal), function constants 20..25 (no mask, query not transposed,
    # not causal, no sinks); threadgroup 1024 threads, grid of threadgroups (B * Hq, Lq, 1).
    q, k, v = x["q"], x["k"], x["v"]
    b, hq, lq, d = q.shape
    k_head, k_seq = _kv_strides(k)
    v_head, v_seq = _kv_strides(v)
    kernel = MlxKernel("sdpa_vector.h", "sdpa_vector", f"{type_name(q.dtype)}, {d}, {v.shape[-1]}", _NO_MASK)
    buffers = {0: Buffer("q", q), 1: Buffer("k", k), 2: Buffer("v", v),
               3: Buffer("out", shape=(b, hq, lq, v.shape[-1]), dtype=q.dtype),
               4: Buffer("gqa_factor", _bytes(hq // k.shape[1], np.int32)), 5: Buffer("N", _bytes(k.shape[2], np.int32)),
               6: Buffer("k_head_stride", _bytes(k_head, np.uint64)), 7: Buffer("k_seq_stride", _bytes(k_seq, np.uint64)),
               8: Buffer("v_head_stride", _bytes(v_head, np.uint64)), 9: Buffer("v_seq_stride", _bytes(v_seq, np.uint64)),
               10: Buffer("scale", _bytes(x["scale"], np.float32))}
    return [Launch(kernel, buffers, threadgroups((b * hq, lq, 1), (1024, 1, 1)), (1024, 1, 1),
                   "mlx/backend/metal/scaled_dot_product_attention.cpp, sdpa_vector")]


def _sdpa_vector_2pass_launches(x: dict) -> list:
    # mlx/backend/metal/scaled_dot_product_attention.cpp, sdpa_vector_2pass (not the _gqa variant):
    # blocks as on an M-series base/Pro GPU (architecture suffix neither 'd' nor 's'): 64 when
    # gqa_factor * Lq >= 4 simdgroups, else 32. Pass 1: sdpa_vector_2pass_1<T, D, V> (TK default),
    # constants 20..25 and blocks (26), threadgroup (32, gqa_factor, Lq), grid of threadgroups
    # (Hkv, B, blocks), partial outputs (B, Hq, Lq, blocks, V) and float sums/maxs (B, Hq, Lq, blocks).
    # Pass 2: sdpa_vector_2pass_2<T, V>, threadgroup 1024, grid of threadgroups (B * Hq, Lq, 1).
    q, k, v = x["q"], x["k"], x["v"]
    b, hq, lq, d = q.shape
    hkv, vd = k.shape[1], v.shape[-1]
    gqa = hq // hkv
    blocks = 64 if gqa * lq >= 4 else 32
    k_head, k_seq = _kv_strides(k)
    v_head, v_seq = _kv_strides(v)
    t = type_name(q.dtype)
    rule = "mlx/backend/metal/scaled_dot_product_attention.cpp, sdpa_vector_2pass"
    first = Launch(MlxKernel("sdpa_vector.h", "sdpa_vector_2pass_1", f"{t}, {d}, {vd}", _NO_MASK + ((26, str(blocks)),)),
                   {0: Buffer("q", q), 1: Buffer("k", k), 2: Buffer("v", v),
                    3: Buffer("partials", shape=(b, hq, lq, blocks, vd), dtype=q.dtype),
                    4: Buffer("sums", shape=(b, hq, lq, blocks), dtype=mx.float32),
                    5: Buffer("maxs", shape=(b, hq, lq, blocks), dtype=mx.float32),
                    7: Buffer("N", _bytes(k.shape[2], np.int32)), 8: Buffer("k_head_stride", _bytes(k_head, np.uint64)),
                    9: Buffer("k_seq_stride", _bytes(k_seq, np.uint64)), 10: Buffer("v_head_stride", _bytes(v_head, np.uint64)),
                    11: Buffer("v_seq_stride", _bytes(v_seq, np.uint64)), 12: Buffer("scale", _bytes(x["scale"], np.float32))},
                   threadgroups((hkv, b, blocks), (32, gqa, lq)), (32, gqa, lq), rule)

    def second(results: dict) -> Launch:
        return Launch(MlxKernel("sdpa_vector.h", "sdpa_vector_2pass_2", f"{t}, {vd}", _NO_MASK + ((26, str(blocks)),)),
                      {0: Buffer("partials", results["partials"]), 1: Buffer("sums", results["sums"]),
                       2: Buffer("maxs", results["maxs"]), 3: Buffer("out", shape=(b, hq, lq, vd), dtype=q.dtype),
                       4: Buffer("blocks", _bytes(blocks, np.int32))},
                      threadgroups((b * hq, lq, 1), (1024, 1, 1)), (1024, 1, 1), rule)
    return [first, second]


_GEMM_PARAMS = np.dtype([(n, np.int32) for n in ("M", "N", "K", "lda", "ldb", "ldd", "tiles_n", "tiles_m")]
                        + [(n, np.int64) for n in ("batch_stride_a", "batch_stride_b", "batch_stride_d")]
                        + [(n, np.int32) for n in ("swizzle_log", "gemm_k_iterations_aligned", "batch_ndim")],
                        align=True)  # steel/gemm/params.h GEMMParams, with its C layout
_GEMM_ADDMM_PARAMS = np.dtype([("ldc", np.int32), ("fdc", np.int32), ("batch_stride_c", np.int64), ("alpha", np.float32),
                               ("beta", np.float32)], align=True)  # GEMMAddMMParams


def _gemm_inputs(shape: dict, rng: np.random.Generator) -> dict:
    m, n, k, dtype = shape["m"], shape["n"], shape["k"], shape["dtype"]
    return {"a": _random(rng, (m, k), dtype), "b": _random(rng, (k, n), dtype)}


def _steel_gemm_launches(x: dict) -> list:
    # mlx/backend/metal/matmul.cpp, steel_matmul_regular_axpby (no batch, no C source): tile from
    # GEMM_TPARAM_MACRO for a small device ('g'/'p'), half/bfloat nn: bm 64, bn 64, bk 16, wm 1, wn 2;
    # steel_gemm_fused.metal instantiates gemm<T, bm, bn, bk, wm, wn, transpose_a, transpose_b, float>;
    # function constants has_batch (10), use_out_source (100), do_axpby (110), align_M/N/K (200..202);
    # swizzle_log 0; threadgroup (32, wn, wm), grid of threadgroups (tiles_n, tiles_m, batch).
    a, b = x["a"], x["b"]
    (m, k), n = a.shape, b.shape[1]
    bm, bn, bk, wm, wn = 64, 64, 16, 1, 2
    tiles_n, tiles_m = -(-n // bn), -(-m // bm)
    flag = {True: "true", False: "false"}
    kernel = MlxKernel("steel/gemm/kernels/steel_gemm_fused.h", "gemm",
                       f"{type_name(a.dtype)}, {bm}, {bn}, {bk}, {wm}, {wn}, false, false, float",
                       ((10, "false"), (100, "false"), (110, "false"), (200, flag[m % bm == 0]),
                        (201, flag[n % bn == 0]), (202, flag[k % bk == 0])),
                       includes=("utils.h", "steel/gemm/gemm.h"))
    params = np.array([(m, n, k, k, n, n, tiles_n, tiles_m, m * k, k * n, m * n, 0, k // bk, 1)], _GEMM_PARAMS)
    # Buffer 5 (addmm_params) is absent in MLX's launch (use_out_source is false), but gemm() reads
    # addmm_params->alpha and ->beta unconditionally (steel_gemm_fused.h, the two epilogue ops) and
    # uses them only when use_out_source: dead reads that Metal's optimizer drops and the emulator,
    # which checks every read, reports. It is bound here to MLX's values for a plain matmul.
    addmm = np.array([(n, 1, 0, 1.0, 0.0)], _GEMM_ADDMM_PARAMS)
    buffers = {0: Buffer("a", a), 1: Buffer("b", b), 3: Buffer("out", shape=(m, n), dtype=a.dtype),
               4: Buffer("params", params.view(np.uint8)), 5: Buffer("addmm_params", addmm.view(np.uint8))}
    return [Launch(kernel, buffers, threadgroups((tiles_n, tiles_m, 1), (32, wn, wm)), (32, wn, wm),
                   "mlx/backend/metal/matmul.cpp, steel_matmul_regular_axpby")]


_ATTN_PARAMS = np.dtype([(n, np.int32) for n in ("B", "H", "D", "qL", "kL", "gqa_factor")] + [("scale", np.float32)]
                        + [(n, np.int32) for n in ("NQ", "NK", "NQ_aligned", "NK_aligned", "qL_rem", "kL_rem", "qL_off")]
                        + [(n, np.int64, (3,)) for n in ("Q_strides", "K_strides", "V_strides", "O_strides")],
                        align=True)  # steel/attn/params.h AttnParams, with its C layout


def _steel_attention_launches(x: dict) -> list:
    # mlx/backend/metal/scaled_dot_product_attention.cpp, sdpa_full_self_attention_metal (no NAX, no
    # array mask, causal or not, no sinks): wm 4, wn 1, bq 32, bk 32 for D < 128 (else 16), bd = D;
    # steel_attention.metal instantiates attention<T, bq, bk, bd, bv, wm, wn, MaskType = T, float>;
    # function constants align_Q (200), align_K (201), has_mask (300), do_causal (301), has_sinks
    # (302), save_lse (303, false: inference); threadgroup (32, wm, wn), grid of threadgroups (NQ, H, B).
    # Causal masks bottom-right aligned: query i sees keys up to i + qL_off, qL_off = kL - qL.
    q, k, v = x["q"], x["k"], x["v"]
    b, h, ql, d = q.shape
    kl, vd = k.shape[2], v.shape[-1]
    wm, wn, bq, bk = 4, 1, 32, 32 if d < 128 else 16
    flag = {True: "true", False: "false"}
    t = type_name(q.dtype)
    kernel = MlxKernel("steel/attn/kernels/steel_attention.h", "attention", f"{t}, {bq}, {bk}, {d}, {vd}, {wm}, {wn}, {t}, float",
                       ((200, flag[ql % bq == 0]), (201, flag[kl % bk == 0]), (300, "false"), (301, flag[x["causal"]]),
                        (302, "false"), (303, "false")),
                       includes=("utils.h", "steel/attn/attn.h"))
    nq, nk = -(-ql // bq), -(-kl // bk)

    def strides(a_shape) -> tuple:
        return (a_shape[1] * a_shape[2] * a_shape[3], a_shape[2] * a_shape[3], a_shape[3])
    params = np.array([(b, h, d, ql, kl, h // k.shape[1], x["scale"], nq, nk, ql // bq, kl // bk, ql - ql // bq * bq,
                        kl - kl // bk * bk, kl - ql, strides(q.shape), strides(k.shape), strides(v.shape),
                        strides((b, h, ql, vd)))], _ATTN_PARAMS)
    buffers = {0: Buffer("q", q), 1: Buffer("k", k), 2: Buffer("v", v), 3: Buffer("out", shape=(b, h, ql, vd), dtype=q.dtype),
               4: Buffer("params", params.view(np.uint8))}
    return [Launch(kernel, buffers, threadgroups((nq, h, b), (32, wm, wn)), (32, wm, wn),
                   "mlx/backend/metal/scaled_dot_product_attention.cpp, sdpa_full_self_attention_metal")]


MLX_OPS: dict[str, MlxOp] = {
    "softmax": MlxOp(
        "softmax", lambda s, rng: {"x": _random(rng, (s["rows"], s["axis"]), s["dtype"], 3.0), "precise": s["precise"]},
        _softmax_launches, lambda x: mx.softmax(x["x"], axis=-1, precise=x["precise"], stream=mx.cpu), "out",
        ("utils.h", "softmax.h"), {"rows": 3, "axis": 301, "dtype": mx.float32, "precise": False}),
    "rms_norm": MlxOp(
        "rms_norm", _norm_inputs, _rms_norm_launches,
        lambda x: mx.fast.rms_norm(x["x"], x["w"], x["eps"], stream=mx.cpu), "out",
        ("utils.h", "rms_norm.metal"), {"rows": 3, "axis": 301, "dtype": mx.float32}),
    "layer_norm": MlxOp(
        "layer_norm", _norm_inputs, _layer_norm_launches,
        lambda x: mx.fast.layer_norm(x["x"], x["w"], x["b"], x["eps"], stream=mx.cpu), "out",
        ("utils.h", "layer_norm.metal"), {"rows": 3, "axis": 301, "dtype": mx.float32}),
    "rope": MlxOp(
        "rope", _rope_inputs, _rope_launches,
        lambda x: mx.fast.rope(x["x"], x["x"].shape[-1], traditional=x["traditional"], base=x["base"],
                               scale=x["scale"], offset=x["offset"], stream=mx.cpu), "out",
        ("utils.h", "rope.metal"),
        {"batch": 2, "heads": 5, "seq": 7, "dims": 32, "offset": 3, "dtype": mx.float32, "traditional": False}),
    "qmv": MlxOp(
        "qmv", _qmv_inputs, _qmv_launches,
        lambda x: mx.quantized_matmul(_f32(x["x"]), x["w"], _f32(x["scales"]), _f32(x["biases"]), transpose=True,
                                      group_size=64, bits=4, stream=mx.cpu), "out",
        ("utils.h", "steel/gemm/gemm.h", "quantized_utils.h", "quantized.h"), {"n": 24, "k": 512, "dtype": mx.float16}),
    "sdpa_vector": MlxOp(
        "sdpa_vector", _attention_inputs, _sdpa_vector_launches, _sdpa_reference, "out", ("utils.h", "sdpa_vector.h"),
        {"batch": 1, "q_heads": 4, "kv_heads": 2, "q_len": 1, "kv_len": 37, "dim": 64, "dtype": mx.float16}),
    "sdpa_vector_2pass": MlxOp(
        "sdpa_vector_2pass", _attention_inputs, _sdpa_vector_2pass_launches, _sdpa_reference, "out",
        ("utils.h", "sdpa_vector.h"),
        {"batch": 1, "q_heads": 4, "kv_heads": 2, "q_len": 1, "kv_len": 77, "dim": 64, "dtype": mx.float16}),
    "steel_gemm": MlxOp(
        "steel_gemm", _gemm_inputs, _steel_gemm_launches, lambda x: mx.matmul(_f32(x["a"]), _f32(x["b"]), stream=mx.cpu), "out",
        ("utils.h", "steel/gemm/gemm.h", "steel/gemm/kernels/steel_gemm_fused.h"),
        {"m": 64, "n": 128, "k": 32, "dtype": mx.float16}),
    "steel_attention": MlxOp(
        "steel_attention", lambda s, rng: {**_attention_inputs(s, rng), "causal": s["causal"]},
        _steel_attention_launches, _sdpa_reference, "out",
        ("utils.h", "steel/attn/attn.h", "steel/attn/kernels/steel_attention.h"),
        {"batch": 1, "q_heads": 2, "kv_heads": 1, "q_len": 37, "kv_len": 45, "dim": 64, "dtype": mx.float16,
         "causal": False}),
}
