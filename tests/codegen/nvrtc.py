"""Compile generated CUDA as MLX's cuda_kernel does (NVRTC, sm_90) without a GPU, and read the
resources ptxas gives it (registers, spills, shared memory).

NVRTC comes from the `nvidia-cuda-nvrtc-cu12` wheel (the `nvidia.cuda_nvrtc` package, with
`nvidia.cuda_runtime` and `nvidia.cuda_cccl` for the headers); ptxas from PATH or from Triton's
bundled copy. Either may be missing: callers skip what they cannot run.
"""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
ARCH = "sm_90"


def _package_dir(name: str) -> Path | None:
    try:
        module = __import__(f"nvidia.{name}", fromlist=["_"])
    except ImportError:
        return None
    return Path(list(module.__path__)[0])


def nvrtc() -> ctypes.CDLL | None:
    """libnvrtc, or None where the wheel is not installed."""
    root = _package_dir("cuda_nvrtc")
    found = sorted((root / "lib").glob("libnvrtc.so*")) if root else []
    return ctypes.CDLL(str(found[0])) if found else None


def ptxas() -> str | None:
    path = shutil.which("ptxas")
    if path:
        return path
    try:
        import triton  # optional: its wheel bundles ptxas
    except ImportError:
        return None
    bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"
    return str(bundled) if bundled.exists() else None


def to_ptx(source: str, name: str = "kernel.cu") -> str:
    """PTX of a translation unit, compiled with MLX's NVRTC options; raises with NVRTC's log."""
    lib = nvrtc()
    assert lib is not None, "NVRTC is not installed"
    includes = [HERE] + [d / "include" for d in map(_package_dir, ("cuda_runtime", "cuda_cccl")) if d]
    options = [f"--gpu-architecture={ARCH}", "-std=c++17", "--device-as-default-execution-space",
               *(f"-I{d}" for d in includes)]
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None) == 0
    try:
        argv = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
        status = lib.nvrtcCompileProgram(prog, len(options), argv)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        if status != 0:
            raise AssertionError(f"NVRTC failed:\n{log.value.decode(errors='replace')}")
        lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
        ptx = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetPTX(prog, ptx)
        return ptx.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


@dataclass(frozen=True)
class Resources:
    registers: int
    spill_stores: int
    spill_loads: int
    static_shared: int


def resources(ptx: str) -> Resources:
    """What `ptxas -v` reports for the (one) kernel of `ptx`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.ptx"
        path.write_text(ptx)
        r = subprocess.run([ptxas(), f"-arch={ARCH}", "-v", "-o", str(path.with_suffix(".cubin")), str(path)],
                           capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    log = r.stderr
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
    shared = re.search(r"(\d+) bytes smem", log)
    return Resources(int(re.search(r"Used (\d+) registers", log).group(1)), int(spills.group(1)),
                     int(spills.group(2)), int(shared.group(1)) if shared else 0)
