"""NVRTC through ctypes: compiles a CUDA translation unit to a cubin for the GPU MLX runs on.

Why: MLX's `cuda_kernel` passes every scalar argument as a pointer to a 0-d array, so each program
of a generated kernel starts with a global load that its masks and addresses wait for (issue 15:
RoPE 41 us against Triton's 25 us on the H200, parity once the scalars were constants). MLX's
`precompiled_cuda_kernel` passes scalars by value, but takes compiled code: this module makes it,
with the CUDA toolkit's NVRTC and headers, where MLX looks for them, else those of NVIDIA's wheels.
"""
from __future__ import annotations

import ctypes
import functools
import glob
import logging
import os
from pathlib import Path
from typing import Optional, Sequence

from ..errors import MetalforgeError


log = logging.getLogger(__name__)


class NvrtcError(MetalforgeError):
    """NVRTC is missing or refused a kernel (the message carries its log)."""


def _toolkit_roots() -> list[Path]:
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    return [Path(r) for r in roots if r and Path(r).is_dir()]


def _wheel_dirs() -> list[Path]:
    """The `nvidia-*` wheels' package folders (nvidia/cuda_nvrtc, nvidia/cuda_runtime, ...)."""
    try:
        import nvidia  # optional namespace package of NVIDIA's CUDA wheels
    except ImportError:
        return []
    return [Path(p) for root in nvidia.__path__ for p in sorted(glob.glob(os.path.join(root, "*")))]


def _loaded_library(stem: str) -> Optional[str]:
    """The path of `stem` (e.g. libcuda.so) if this process has it mapped already (MLX's own)."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.rsplit(" ", 1)[-1].strip()
                if os.path.basename(path).startswith(stem):
                    return path
    except OSError:
        pass
    return None


def _libraries(folder: Path, stem: str = "libnvrtc") -> list[str]:
    found = sorted(glob.glob(str(folder / f"{stem}.so*")), reverse=True)
    return [p for p in found if "builtins" not in p and ".alt." not in p]


def _headers(*folders: Path) -> list[str]:
    """The folders that exist, CCCL's (cuda/std) beside each include folder that has one."""
    return [str(d) for f in folders for d in (f, f / "cccl") if d.is_dir()]


def _candidates() -> list[tuple[str, list[str]]]:
    """(libnvrtc, include folders) pairs, each from one CUDA (another version's headers do not
    compile): the toolkit's ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda, as MLX looks), then NVIDIA's
    wheels (nvidia-cuda-nvrtc with nvidia-cuda-runtime and -cccl, or one cuNN wheel)."""
    pairs = []
    for root in _toolkit_roots():
        if (root / "include" / "cuda_fp16.h").is_file():
            for lib in [*_libraries(root / "lib64"), *_libraries(root / "lib")]:
                pairs.append((lib, _headers(root / "include")))
    wheels = _wheel_dirs()
    for folder in wheels:
        for lib in _libraries(folder / "lib"):
            pairs.append((lib, _headers(*(w / "include" for w in wheels))))
    return pairs


class _Nvrtc:
    def __init__(self, path: str, include_dirs: list[str]) -> None:
        self.path, self.include_dirs = path, include_dirs
        lib = self.lib = ctypes.CDLL(path)
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check(lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        self.version = (major.value, minor.value)

    def check(self, result: int, what: str) -> None:
        if result != 0:
            raise NvrtcError(f"{what} failed: {self.lib.nvrtcGetErrorString(result).decode()}")

    def compile(self, source: str, name: str, options: Sequence[str], output: str = "cubin") -> bytes:
        """`output` "cubin" (for the architecture in `options`) or "ptx"."""
        lib, prog = self.lib, ctypes.c_void_p()
        self.check(lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), f"{name}.cu".encode(), 0, None, None),
                   "nvrtcCreateProgram")
        try:
            opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            result = lib.nvrtcCompileProgram(prog, len(options), opts)
            if result != 0:
                size = ctypes.c_size_t()
                lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
                log = ctypes.create_string_buffer(size.value + 1)
                lib.nvrtcGetProgramLog(prog, log)
                raise NvrtcError(f"NVRTC could not compile kernel '{name}' ({' '.join(options)}):\n"
                                 f"{log.value.decode(errors='replace')}")
            get_size, get = ((lib.nvrtcGetCUBINSize, lib.nvrtcGetCUBIN) if output == "cubin"
                             else (lib.nvrtcGetPTXSize, lib.nvrtcGetPTX))
            size = ctypes.c_size_t()
            self.check(get_size(prog, ctypes.byref(size)), f"getting the {output}'s size")
            code = ctypes.create_string_buffer(size.value)
            self.check(get(prog, code), f"getting the {output}")
            return code.raw
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))


@functools.lru_cache(maxsize=None)
def _nvrtc() -> _Nvrtc:
    errors = []
    for path, headers in _candidates():
        try:
            return _Nvrtc(path, headers)
        except OSError as e:
            errors.append(str(e))
    raise NvrtcError("NVRTC was not found (looked in $CUDA_HOME, $CUDA_PATH, /usr/local/cuda and NVIDIA's wheels): "
                     "install the CUDA toolkit or `pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12 "
                     f"nvidia-cuda-cccl-cu12`, or set CUDA_HOME ({'; '.join(errors[-2:]) or 'no libnvrtc.so'})")


@functools.lru_cache(maxsize=None)
def device_architecture(device: int = 0) -> str:
    """`sm_XY` of CUDA device `device`, from the driver (libcuda, which MLX's CUDA build loads)."""
    try:
        cuda = ctypes.CDLL(_loaded_library("libcuda.so") or "libcuda.so.1")
    except OSError as e:
        raise NvrtcError(f"the CUDA driver (libcuda.so.1) could not be loaded: {e}") from None
    handle, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    for result, what in ((cuda.cuInit(0), "cuInit"), (cuda.cuDeviceGet(ctypes.byref(handle), device), "cuDeviceGet"),
                         (cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, handle), "compute capability"),
                         (cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, handle), "compute capability")):
        if result != 0:
            raise NvrtcError(f"the CUDA driver refused {what} (CUresult {result})")
    return f"sm_{major.value}{minor.value}"


@functools.lru_cache(maxsize=None)
def driver_version() -> Optional[int]:
    """The CUDA version the driver supports (cuDriverGetVersion: 12080 for 12.8), None where no
    driver loads here (a machine that only compiles)."""
    try:
        cuda = ctypes.CDLL(_loaded_library("libcuda.so") or "libcuda.so.1")
    except OSError:
        return None
    version = ctypes.c_int()
    return version.value if cuda.cuDriverGetVersion(ctypes.byref(version)) == 0 else None


# The driver that loads a fatbin compressed with -compress-mode=size (zstd; nvFatbin 12.8's option):
# older ones refuse the module when MLX loads it, so they get the cubin.
COMPRESSED_DRIVER = 12080


def available() -> Optional[str]:
    """None where kernels can be compiled here, else why not."""
    try:
        _nvrtc()
    except NvrtcError as e:
        return str(e)
    return None


def _options(architecture: Optional[str], extra: Sequence[str]) -> list[str]:
    return [f"--gpu-architecture={architecture or device_architecture()}", "-std=c++17",
            *(f"--include-path={d}" for d in _nvrtc().include_dirs), *extra]


def compile_cubin(source: str, name: str, architecture: Optional[str] = None, options: Sequence[str] = ()) -> bytes:
    """The cubin of `source` for `architecture` (default: device 0's), C++17, the includes found,
    and `options`."""
    return _nvrtc().compile(source, name, _options(architecture, options))


class _Fatbin:
    """nvFatbin (CUDA 12.4+): packs a cubin into a fatbin, compressed."""

    OPTIONS = (b"-compress-all", b"-compress-mode=size")

    def __init__(self, path: str) -> None:
        self.lib = ctypes.CDLL(path)
        self.lib.nvFatbinGetErrorString.restype = ctypes.c_char_p

    def check(self, result: int, what: str) -> None:
        if result != 0:
            raise NvrtcError(f"nvFatbin {what} failed: {self.lib.nvFatbinGetErrorString(result).decode()}")

    def pack(self, cubin: bytes, architecture: str, name: str) -> bytes:
        lib, handle = self.lib, ctypes.c_void_p()
        options = (ctypes.c_char_p * len(self.OPTIONS))(*self.OPTIONS)
        self.check(lib.nvFatbinCreate(ctypes.byref(handle), options, len(self.OPTIONS)), "create")
        try:
            self.check(lib.nvFatbinAddCubin(handle, cubin, len(cubin), architecture.removeprefix("sm_").encode(),
                                            name.encode()), f"adding {name}'s cubin")
            size = ctypes.c_size_t()
            self.check(lib.nvFatbinSize(handle, ctypes.byref(size)), "size")
            packed = ctypes.create_string_buffer(size.value)
            self.check(lib.nvFatbinGet(handle, packed), "get")
            return packed.raw
        finally:
            lib.nvFatbinDestroy(ctypes.byref(handle))


@functools.lru_cache(maxsize=None)
def _fatbin() -> Optional[_Fatbin]:
    """nvFatbin beside the NVRTC in use (the toolkit's lib64), else from NVIDIA's wheel; None if neither."""
    folders = [Path(_nvrtc().path).parent, *(w / "lib" for w in _wheel_dirs())]
    for path in (p for folder in folders for p in _libraries(folder, "libnvfatbin")):
        try:
            return _Fatbin(path)
        except OSError:
            continue
    return None


def compile_module(source: str, name: str, architecture: Optional[str] = None) -> bytes:
    """What MLX's precompiled_cuda_kernel loads for `source`: its cubin packed in a compressed fatbin
    where nvFatbin is found (3.5-4.5x smaller for the library's kernels), else the cubin.

    Why: MLX takes the compiled code at every launch, copies it into the graph node and hashes it
    when the node runs (mlx/backend/cuda/custom_kernel.cpp: the module's cache key), so each launch
    costs host time in proportion to its bytes (benchmarks/launch_cost.py: ~3 us up to ~12 KB,
    24-36 us at 53 KB on the H200's host). The driver decompresses once, when MLX loads the module.
    """
    architecture = architecture or device_architecture()
    cubin = compile_cubin(source, name, architecture)
    packer = _fatbin()
    if packer is None:
        return cubin
    driver = driver_version()
    if driver is not None and driver < COMPRESSED_DRIVER:
        log.warning("kernel %s: the cubin goes to MLX uncompressed: the CUDA driver supports CUDA %d.%d, and loads "
                    "compressed fatbins from %d.%d; a newer driver makes launches cheaper", name, driver // 1000,
                    driver % 1000 // 10, COMPRESSED_DRIVER // 1000, COMPRESSED_DRIVER % 1000 // 10)
        return cubin
    try:
        return packer.pack(cubin, architecture, name)
    except NvrtcError as e:  # e.g. an nvFatbin older than CUDA 12.8, without -compress-mode
        log.warning("kernel %s: the cubin goes to MLX uncompressed (%s); install nvidia-nvfatbin-cu12>=12.8 "
                    "or CUDA 12.8+ for smaller launches", name, e)
        return cubin


def compile_ptx(source: str, name: str, architecture: Optional[str] = None, options: Sequence[str] = ()) -> str:
    """The PTX of `source`, as compile_cubin compiles it (what ptxas reads to report resources)."""
    return _nvrtc().compile(source, name, _options(architecture, options), output="ptx").rstrip(b"\0").decode()
