"""`metal_kernel`: MLX's `mx.fast.metal_kernel`, runnable on Metal or on the CPU emulator."""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Any, Callable, Iterator, NamedTuple, Optional, Sequence, Union

import mlx.core as mx

from ..errors import LaunchConfigError
from . import backends, signature

MATH_MODES = ("safe", "relaxed", "fast")


@dataclass(frozen=True)
class LaunchLimits:
    """The largest launch a back end's GPU takes; a bigger one must fail, not wrap around.

    `grid` counts threads per dimension (MLX's convention on both back ends): Metal's
    thread_position_in_grid is a 32-bit uint per dimension, and so is the grid size MLX hands
    to CUDA. `groups` bounds the threadgroups (CUDA blocks) per dimension.
    """

    gpu: str
    grid: tuple[int, int, int]
    groups: tuple[int, int, int]
    threadgroup: tuple[int, int, int]
    threadgroup_threads: int


_U32_MAX = 2**32 - 1
LAUNCH_LIMITS = {
    "msl": LaunchLimits("Metal", (_U32_MAX,) * 3, (_U32_MAX,) * 3, (1024,) * 3, 1024),
    "cuda": LaunchLimits("CUDA", (_U32_MAX,) * 3, (2**31 - 1, 65535, 65535), (1024, 1024, 64), 1024),
}


def check_launch_limits(label: str, grid: tuple[int, int, int], threadgroup: tuple[int, int, int],
                        language: str) -> None:
    """Raise LaunchConfigError, naming the kernel and the limit, for a launch the GPU would refuse."""
    limits = LAUNCH_LIMITS[language]
    axes = "xyz"
    for d in range(3):
        if grid[d] > limits.grid[d]:
            raise LaunchConfigError(f"{label}: grid {grid} has {grid[d]} threads along {axes[d]}; {limits.gpu} allows "
                                    f"at most {limits.grid[d]} (2^32 - 1) per dimension: spread the work over "
                                    "another grid dimension or launch several times")
        if threadgroup[d] > limits.threadgroup[d]:
            raise LaunchConfigError(f"{label}: threadgroup {threadgroup} has {threadgroup[d]} threads along "
                                    f"{axes[d]}; {limits.gpu} allows at most {limits.threadgroup[d]}")
        groups = -(-grid[d] // min(threadgroup[d], grid[d])) if grid[d] and threadgroup[d] else 0
        if groups > limits.groups[d]:
            raise LaunchConfigError(f"{label}: grid {grid} with threadgroup {threadgroup} makes {groups} threadgroups "
                                    f"along {axes[d]}; {limits.gpu} allows at most {limits.groups[d]}: use larger "
                                    "threadgroups or another grid dimension")
    threads = threadgroup[0] * threadgroup[1] * threadgroup[2]
    if threads > limits.threadgroup_threads:  # MLX checks the size as requested, before clamping it to the grid
        raise LaunchConfigError(f"{label}: threadgroup of {threads} threads: {limits.gpu} allows at most "
                                f"{limits.threadgroup_threads}")


class TimeLimit(NamedTuple):
    seconds: float
    name: str  # whose limit it is, for the KernelTimeoutError
    fix: str   # how to change it


_time_limit: contextvars.ContextVar[Optional[TimeLimit]] = contextvars.ContextVar("metalforge_time_limit",
                                                                                   default=None)


@contextlib.contextmanager
def launch_time_limit(seconds: float, name: str, fix: str) -> Iterator[None]:
    """Every launch inside stops with KernelTimeoutError after `seconds` where the back end can stop a
    running kernel (the emulator; a GPU's driver has its own watchdog): the tuner's per-trial limit,
    so that a config that never ends costs one trial, not the search. `name` and `fix` say whose
    limit it is and how to change it."""
    token = _time_limit.set(TimeLimit(seconds, name, fix))
    try:
        yield
    finally:
        _time_limit.reset(token)


def current_time_limit() -> Optional[TimeLimit]:
    """The innermost `launch_time_limit` around this launch, if any."""
    return _time_limit.get()


def _triple(value, what: str) -> tuple[int, int, int]:
    if not isinstance(value, (tuple, list)) or len(value) != 3 or not all(isinstance(v, int) for v in value):
        raise TypeError(f"[metal_kernel] `{what}` must be a tuple of 3 ints, got {value!r}")
    if any(v < 0 for v in value):
        raise ValueError(f"[metal_kernel] `{what}` must not be negative, got {value!r}")
    return tuple(value)


class ValueTypes(NamedTuple):
    """What a back end that passes scalars by value (CUDA, through MLX's precompiled_cuda_kernel) needs
    to write a generated kernel's signature itself: each input's dtype (an array's element type), each
    output's, and the scalar inputs passed by value (a launch gives them as `scalars=`, in order)."""

    inputs: tuple[mx.Dtype, ...]
    outputs: tuple[mx.Dtype, ...]
    by_value: tuple[str, ...]


@dataclass(eq=False)
class MetalKernel:
    """A custom Metal kernel; call it like the function `mx.fast.metal_kernel` returns."""

    name: str
    input_names: list[str]
    output_names: list[str]
    source: str
    header: str = ""
    ensure_row_contiguous: bool = True
    atomic_outputs: bool = False
    compile_options: Optional[dict] = None
    backend: Any = None
    # for generated kernels: where line n (1-based) of `source` comes from in the user's Python, for
    # messages (None: hand-written source)
    origin: Optional[Callable[[int], Optional[str]]] = None
    # for generated kernels whose back end takes scalars by value (its `scalars_by_value`)
    value_types: Optional[ValueTypes] = None
    shared_memory: int = 0  # bytes of dynamic shared memory the source's `extern __shared__` array needs (CUDA)
    # threads of every launch's threadgroup (generated kernels: num_warps x 32; 0: unknown): CUDA's
    # compiler keeps registers to what that many threads may hold (else a launch of 1024 threads whose
    # kernel took over 64 registers fails with "too many resources requested")
    max_threads: int = 0

    def __post_init__(self) -> None:
        if not self.output_names:
            raise ValueError("[metal_kernel] Must specify at least one output.")
        options = dict(self.compile_options or {})
        mode = options.pop("math_mode", "safe")
        if mode not in MATH_MODES:
            raise ValueError(f"[metal_kernel] math_mode must be one of {', '.join(MATH_MODES)}, not {mode!r}")
        if options:
            raise ValueError(f"[metal_kernel] unknown compile option(s): {', '.join(options)}")
        self.math_mode = mode
        self.input_names, self.output_names = list(self.input_names), list(self.output_names)
        # what MLX builds a kernel from: back ends keep what they built by it (BuiltKernels)
        self.build_key = (self.name, tuple(self.input_names), tuple(self.output_names), self.source, self.header,
                          self.ensure_row_contiguous, self.atomic_outputs, self.math_mode, self.value_types,
                          self.shared_memory)

    @property
    def label(self) -> str:
        return f"metal_kernel '{self.name}'"

    def generate(self, inputs: Sequence[mx.array], output_dtypes: Sequence[mx.Dtype],
                 template: Sequence[tuple[str, Any]] = ()) -> signature.GeneratedKernel:
        """The source MLX would compile for these arguments."""
        return signature.generate(self.name, self.input_names, self.output_names, self.source, self.header,
                                  inputs, output_dtypes, template, self.atomic_outputs)

    def __call__(self, *, inputs: Sequence[Union[mx.array, bool, int, float]], output_shapes: Sequence[Sequence[int]],
                 output_dtypes: Sequence[mx.Dtype], grid: tuple[int, int, int], threadgroup: tuple[int, int, int],
                 template: Optional[Sequence[tuple[str, Any]]] = None, init_value: Optional[float] = None,
                 verbose: bool = False, stream: Any = None) -> list[mx.array]:
        call = dict(inputs=inputs, output_shapes=output_shapes, output_dtypes=output_dtypes, grid=grid,
                    threadgroup=threadgroup, template=template, init_value=init_value, verbose=verbose,
                    stream=stream)
        backend = backends.resolve(self.backend, language="msl")
        check_launch_limits(self.label, _triple(grid, "grid"), _triple(threadgroup, "threadgroup"), backend.language)
        return backend.build(self)(**call)

    def prepare(self, inputs, output_shapes, output_dtypes, grid, threadgroup, template=None, init_value=None,
                verbose=False, stream=None) -> "PreparedCall":
        """Validate a call as MLX does and generate its source (for back ends that compile it)."""
        for what, seq, names in (("inputs", inputs, self.input_names), ("output_shapes", output_shapes,
                                 self.output_names), ("output_dtypes", output_dtypes, self.output_names)):
            if len(seq) != len(names):
                raise ValueError(f"[metal_kernel] Expected `{what}` to have size {len(names)} but got size {len(seq)}.")
        grid, threadgroup = _triple(grid, "grid"), _triple(threadgroup, "threadgroup")
        arrays = [a if isinstance(a, mx.array) else mx.array(a) for a in inputs]
        if self.ensure_row_contiguous:
            arrays = [mx.contiguous(a) for a in arrays]
        mx.eval(arrays)
        shapes = [tuple(int(d) for d in s) for s in output_shapes]
        generated = self.generate(arrays, output_dtypes, list(template or ()))
        if verbose:
            print(f"Generated source code for `{self.name}`:\n```\n{generated.source}\n```")
        return PreparedCall(generated, arrays, shapes, list(output_dtypes), grid, threadgroup, init_value)


class BuiltKernels:
    """The kernel objects one back end has built with MLX (`mx.fast.metal_kernel`, `cuda_kernel`), one per
    `MetalKernel.build_key`. Never keyed by `id(kernel)`: a collected kernel's id can be reused by a
    new kernel, which would then run the old one's code."""

    def __init__(self, construct: Callable[["MetalKernel"], Callable[..., list[mx.array]]]) -> None:
        self._construct = construct
        self._built: dict[tuple, Callable[..., list[mx.array]]] = {}

    def __call__(self, kernel: "MetalKernel") -> Callable[..., list[mx.array]]:
        built = self._built.get(kernel.build_key)
        if built is None:
            built = self._built[kernel.build_key] = self._construct(kernel)
        return built

    def __len__(self) -> int:
        return len(self._built)


@dataclass
class PreparedCall:
    generated: signature.GeneratedKernel
    inputs: list
    output_shapes: list
    output_dtypes: list
    grid: tuple
    threadgroup: tuple
    init_value: Optional[float]


def metal_kernel(name: str, input_names: Sequence[str], output_names: Sequence[str], source: str, header: str = "",
                 ensure_row_contiguous: bool = True, atomic_outputs: bool = False,
                 compile_options: Optional[dict] = None, *, backend: Any = None,
                 origin: Optional[Callable[[int], Optional[str]]] = None,
                 value_types: Optional[ValueTypes] = None, shared_memory: int = 0, max_threads: int = 0) -> MetalKernel:
    """A custom Metal kernel with `mx.fast.metal_kernel`'s signature and call convention.

    `backend` ("metal", "emulator", a back-end instance, or None for $METALFORGE_BACKEND / automatic)
    chooses where it runs; the emulator compiles exactly the source MLX would generate. `origin`
    (generated kernels) names the user's Python line behind a line of `source` in error messages;
    `value_types` (generated kernels) has the scalars passed by value where the back end allows;
    `shared_memory` is the dynamic shared memory a CUDA source declares `extern __shared__` (generated
    kernels: their `shared_bytes`); `max_threads` the threads every launch uses (generated kernels).
    """
    return MetalKernel(name, input_names, output_names, source, header, ensure_row_contiguous, atomic_outputs,
                       compile_options, backend, origin, value_types, shared_memory, max_threads)
