"""Compile generated CUDA as MLX's cuda_kernel does (NVRTC, sm_90) without a GPU, and read the
resources ptxas gives it (registers, spills, shared memory).

NVRTC is the one runtime/nvrtc.py finds (the test extra's `nvidia-cuda-nvrtc-cu12` wheel here); ptxas
comes from PATH or from Triton's bundled copy. Either may be missing: callers skip what they cannot run.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from metalforge.runtime import nvrtc as runtime_nvrtc

HERE = Path(__file__).parent
ARCH = "sm_90"


def nvrtc_missing() -> str | None:
    """Why NVRTC cannot compile here, or None where it can (runtime.nvrtc finds it)."""
    return runtime_nvrtc.available()


def cuda_tool(name: str) -> str | None:
    """A CUDA binary tool (ptxas, cuobjdump) from PATH, else Triton's wheel's bundled copy."""
    path = shutil.which(name)
    if path:
        return path
    try:
        import triton  # optional: its wheel bundles the CUDA binary tools
    except ImportError:
        return None
    bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name
    return str(bundled) if bundled.exists() else None


def ptxas() -> str | None:
    return cuda_tool("ptxas")


def cuobjdump() -> str | None:
    return cuda_tool("cuobjdump")


def to_cubin(ptx: str, path: Path, arch: str = ARCH) -> Path:
    """`ptx` assembled by ptxas into the cubin `path` (its PTX beside it, `path` with .ptx)."""
    path.with_suffix(".ptx").write_text(ptx)
    subprocess.run([ptxas(), f"-arch={arch}", "-o", str(path), str(path.with_suffix(".ptx"))], check=True)
    return path


def sass_of(cubin: Path) -> str:
    """cuobjdump's SASS listing of a cubin."""
    return subprocess.run([cuobjdump(), "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout


def to_ptx(source: str, name: str = "kernel.cu", arch: str = ARCH) -> str:
    """PTX of a translation unit in MLX's layout (the stand-in for MLX's utils header beside this
    file), compiled with MLX's NVRTC options; raises NvrtcError with NVRTC's log."""
    return runtime_nvrtc.compile_ptx(source, name.removesuffix(".cu"), arch,
                                     ["--device-as-default-execution-space", f"--include-path={HERE}"])


@dataclass(frozen=True)
class Resources:
    registers: int
    spill_stores: int
    spill_loads: int
    static_shared: int
    log: str = ""


def resources(ptx: str, arch: str = ARCH) -> Resources:
    """What `ptxas -v` reports for the (one) kernel of `ptx`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.ptx"
        path.write_text(ptx)
        r = subprocess.run([ptxas(), f"-arch={arch}", "-v", "-o", str(path.with_suffix(".cubin")), str(path)],
                           capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    log = r.stderr
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
    shared = re.search(r"(\d+) bytes smem", log)
    return Resources(int(re.search(r"Used (\d+) registers", log).group(1)), int(spills.group(1)),
                     int(spills.group(2)), int(shared.group(1)) if shared else 0, log)
