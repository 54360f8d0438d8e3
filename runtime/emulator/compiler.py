"""Compiling emulator translation units with clang, cached on disk.

Each kernel is compiled in three steps: the front end emits unoptimised LLVM IR, which is checked
for recursion (Metal has no call stack for it) and instrumented (instrument.py: safe integer
division; in checked mode, a check before every device access); the optimiser runs, and every loop
of the optimised IR gets a stop check for the watchdog (instrument.poll_loops); the code generator
turns it into a shared library. Results are cached under a key that hashes everything that affects them:
the translation unit, the shim headers, the compiler and its flags.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import warnings
from pathlib import Path
from typing import Callable, Optional

from ... import env
from ...errors import BackendUnavailableError, KernelCompileError
from . import counters, instrument

HERE = Path(__file__).resolve().parent
SHIM_DIR = HERE / "shim"
RUNTIME_SOURCE = HERE / "native" / "runtime.cpp"
INSTRUMENT_SOURCE = HERE / "instrument.py"

# Metal rounds every half/bfloat operation to the type; C++ would keep float precision.
BASE_FLAGS = ["-std=c++17", "-O2", "-fPIC", "-fno-exceptions", "-fno-rtti", "-pthread",
              "-Xclang", "-ffloat16-excess-precision=none", "-Xclang", "-fbfloat16-excess-precision=none",
              "-Wno-unknown-attributes", "-Wno-user-defined-literals"]
MATH_MODE_FLAGS = {
    "safe": [],
    "relaxed": ["-ffp-contract=fast", "-fno-math-errno"],
    "fast": ["-ffast-math"],
}
# Checked mode: the shim's checks, and line tables so every check knows its source line.
CHECKED_FLAGS = ["-DMFEMU_CHECKED=1", "-gline-tables-only"]
# Counting mode: the shim's counters and their take function (shim/mfemu/counts.h).
COUNTING_FLAGS = ["-DMFEMU_COUNTING=1"]
COMPILE_TIMEOUT_ENV = "METALFORGE_COMPILE_TIMEOUT"
DEFAULT_COMPILE_TIMEOUT_S = 120.0  # per clang step; the library's largest kernels take a few seconds
INSTALL_HINT = "install clang 19 with `apt-get install clang-19 libclang-rt-19-dev` (or set METALFORGE_CXX)"


def cache_dir() -> Path:
    """Where compiled kernels live: $METALFORGE_CACHE_DIR, else the user's cache directory (a
    temporary directory, with one warning, when that cannot be written)."""
    root = os.environ.get("METALFORGE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "metalforge")
    return _usable_cache_dir(root)


@functools.lru_cache(maxsize=None)
def _usable_cache_dir(root: str) -> Path:
    path = Path(root) / "emulator"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=path, prefix=".probe-")
        probe.close()
    except OSError as e:
        fallback = Path(tempfile.gettempdir()) / f"metalforge-{os.getuid()}" / "emulator"
        fallback.mkdir(parents=True, exist_ok=True)
        warnings.warn(f"the kernel cache directory {path} cannot be written ({e.strerror or e}); compiled kernels go "
                      f"to {fallback} for this process. Set METALFORGE_CACHE_DIR to a writable directory.",
                      stacklevel=3)
        path = fallback
    _remove_orphan_builds(path)
    return path


_BUILD_PREFIX = "build-"  # build-<pid>-<random>: a compile's temporary directory


def _remove_orphan_builds(directory: Path) -> None:
    """Delete the temporary directories of compiles whose process is gone (killed mid-compile)."""
    for build in directory.glob(f"{_BUILD_PREFIX}*"):
        try:
            pid = int(build.name.split("-")[1])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(build, ignore_errors=True)
        except (ValueError, IndexError, PermissionError):
            continue


def _build_dir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(dir=cache_dir(), prefix=f"{_BUILD_PREFIX}{os.getpid()}-")


@functools.lru_cache(maxsize=None)
def compiler() -> str:
    """The clang++ to use: $METALFORGE_CXX, else clang++-19, else a clang++ of version >= 17."""
    candidates = [os.environ["METALFORGE_CXX"]] if os.environ.get("METALFORGE_CXX") else ["clang++-19", "clang++"]
    for name in candidates:
        path = shutil.which(name)
        if not path:
            continue
        out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"clang version (\d+)", out)
        if m and int(m.group(1)) >= 17:
            return path
    raise BackendUnavailableError(f"the emulator needs clang++ >= 17, none found: {INSTALL_HINT}")


@functools.lru_cache(maxsize=None)
def builtins_library() -> str:
    """compiler-rt's builtins archive: it has the bfloat16 conversions libgcc lacks."""
    path = subprocess.run([compiler(), "-rtlib=compiler-rt", "-print-libgcc-file-name"],
                          capture_output=True, text=True).stdout.strip()
    if not path or not os.path.exists(path):
        raise BackendUnavailableError(f"clang's compiler-rt builtins are missing ({path or '?'}): {INSTALL_HINT}")
    return path


def shim_files() -> list[str]:
    """The shim's files relative to SHIM_DIR, in a fixed order (checked-mode reports number them)."""
    return [str(p.relative_to(SHIM_DIR)) for p in sorted(SHIM_DIR.rglob("*")) if p.is_file()]


@functools.lru_cache(maxsize=None)
def toolchain_fingerprint() -> str:
    """Hash of the compiler version, every shim file and the IR instrumentation: part of every cache key."""
    h = hashlib.sha256(subprocess.run([compiler(), "--version"], capture_output=True, text=True).stdout.encode())
    for path in sorted(SHIM_DIR.rglob("*")) + [RUNTIME_SOURCE, INSTRUMENT_SOURCE]:
        if path.is_file():
            h.update(str(path.relative_to(HERE)).encode())
            h.update(path.read_bytes())
    h.update(" ".join(BASE_FLAGS).encode())
    return h.hexdigest()


_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # runs in the child before exec: a killed Python leaves no clang behind
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _run(cmd: list[str], label: str, step: str, size: str) -> subprocess.CompletedProcess:
    """Run clang's `step` of compiling `label` on an input of `size` (both named in the error when it
    takes longer than $METALFORGE_COMPILE_TIMEOUT; clang is then killed)."""
    limit = env.seconds(COMPILE_TIMEOUT_ENV, DEFAULT_COMPILE_TIMEOUT_S)
    try:
        return subprocess.run(cmd, capture_output=True, text=True, preexec_fn=_die_with_parent, timeout=limit or None)
    except subprocess.TimeoutExpired:
        raise KernelCompileError(
            f"{label}: clang's {step} took longer than {limit:g} s on {size}; the usual cause is a loop unrolled "
            "into a huge body (static_range over many iterations, or many elements per thread: a large BLOCK "
            f"with few warps): loop instead or use more warps, or raise the limit with {COMPILE_TIMEOUT_ENV}="
            "<seconds> (0: none)") from None


def _publish(tmp: Path, final: Path, key: str) -> None:
    """Install a built library as the cache entry for `key`, with a stamp naming the key and the
    library's checksum (`_verified` reads it back); each file is replaced atomically."""
    digest = hashlib.sha256(tmp.read_bytes()).hexdigest()
    stamp = tmp.with_suffix(".stamp")
    stamp.write_text(f"{key} {digest}\n")
    os.replace(stamp, _stamp_of(final))
    os.replace(tmp, final)


def _stamp_of(library: Path) -> Path:
    return library.with_suffix(".stamp")


def _verified(library: Path, key: str) -> bool:
    """Whether the cache entry is whole and is the library built for `key` (not another's, not cut short)."""
    try:
        recorded_key, digest = _stamp_of(library).read_text().split()
        return recorded_key == key and hashlib.sha256(library.read_bytes()).hexdigest() == digest
    except (OSError, ValueError):
        return False


def discard(library: Path, why: str) -> None:
    """Delete a damaged cache entry (it is rebuilt by the next compile), with a warning."""
    warnings.warn(f"compiled kernel {library} is damaged ({why}); deleting it and compiling again", stacklevel=3)
    for path in (library, _stamp_of(library)):
        path.unlink(missing_ok=True)


def cached_library(library: Path, key: str) -> bool:
    """Whether a verified cache entry exists; a damaged one is discarded."""
    if not library.exists():
        return False
    if _verified(library, key):
        return True
    discard(library, "its checksum or key does not match its stamp")
    return False


def load_library(build: Callable[[], Path], mode: int = ctypes.DEFAULT_MODE) -> ctypes.CDLL:
    """Load the library `build()` returns; one that fails to load is discarded and built once more."""
    path = build()
    try:
        return ctypes.CDLL(str(path), mode=mode)
    except OSError as e:
        discard(path, str(e))
        return ctypes.CDLL(str(build()), mode=mode)


def _build_runtime() -> Path:
    key = toolchain_fingerprint()
    path = cache_dir() / f"libmfemu-{key[:16]}.so"
    if not cached_library(path, key):
        with _build_dir() as tmp:
            out = Path(tmp) / path.name
            r = _run([compiler(), *BASE_FLAGS, "-shared", "-o", str(out), str(RUNTIME_SOURCE)], "the emulator runtime",
                     "build", RUNTIME_SOURCE.name)
            if r.returncode:
                raise BackendUnavailableError(f"building the emulator runtime failed:\n{r.stderr}")
            _publish(out, path, key)
    return path


@functools.lru_cache(maxsize=None)
def runtime_library() -> ctypes.CDLL:
    """libmfemu, built once per toolchain and loaded globally so kernel libraries link to it."""
    lib = load_library(_build_runtime, mode=ctypes.RTLD_GLOBAL)
    lib.mfemu_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    lib.mfemu_launch.restype = ctypes.c_int32
    return lib


# ---- recursion check on the unoptimised IR ------------------------------------------------------
_DEFINE = re.compile(r"^define [^@]*@(\"[^\"]+\"|[\w.$]+)\(", re.M)
_CALL = re.compile(r"\b(?:call|invoke)\b[^@\n]*@(\"[^\"]+\"|[\w.$]+)\(")


def find_recursion(llvm_ir: str) -> list[str] | None:
    """A cycle of calls among the functions defined in `llvm_ir` (mangled names), or None."""
    calls: dict[str, set[str]] = {}
    current = None
    for line in llvm_ir.splitlines():
        m = _DEFINE.match(line)
        if m:
            current = m.group(1)
            calls[current] = set()
        elif line.startswith("}"):
            current = None
        elif current is not None:
            calls[current].update(_CALL.findall(line))
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(f: str) -> list[str] | None:
        state[f] = 1
        path.append(f)
        for g in calls.get(f, ()):
            if g not in calls:
                continue
            if state.get(g) == 1:
                return path[path.index(g):] + [g]
            if g not in state:
                cycle = visit(g)
                if cycle:
                    return cycle
        path.pop()
        state[f] = 2
        return None

    for f in calls:
        if f not in state:
            cycle = visit(f)
            if cycle:
                return cycle
    return None


def demangle(names: list[str]) -> list[str]:
    tool = shutil.which("llvm-cxxfilt-19") or shutil.which("c++filt")
    if not tool:
        return names
    out = subprocess.run([tool], input="\n".join(n.strip('"') for n in names), capture_output=True, text=True)
    return out.stdout.split("\n")[: len(names)] if out.returncode == 0 else names


# ---- diagnostics ---------------------------------------------------------------------------------
_DIAG = re.compile(r"^(?P<file>[^:\n]+\.cpp):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|fatal error): (?P<msg>.*)$", re.M)


def format_compile_error(label: str, text: str, stderr: str, describe_line) -> str:
    """The user-facing message: each error with the generated source around it."""
    lines = text.split("\n")
    parts = [f"{label}: the Metal source does not compile"]
    for m in list(_DIAG.finditer(stderr))[:5]:
        n, col, msg = int(m.group("line")), int(m.group("col")), m.group("msg")
        if "poisoned identifier" in msg and 0 < n <= len(lines):
            word = re.match(r"\w*", lines[n - 1][col - 1:]).group(0)
            msg = f"`{word}` is not part of the Metal Shading Language"
        parts.append(f"\nerror at {describe_line(n)}, column {col}: {msg}")
        for i in range(max(1, n - 3), min(len(lines), n + 2) + 1):
            parts.append(f"{'>>' if i == n else '  '} {i:4d} | {lines[i - 1]}")
    if len(parts) == 1:
        parts.append(stderr.strip())
    return "\n".join(parts)


def _ir_size(path: Path) -> str:
    return f"{path.stat().st_size // 1024} KiB of LLVM IR"


def compile_kernel(text: str, label: str, math_mode: str, describe_line, display_text: str,
                   checked: bool = False, counting: Optional[bool] = None) -> Path:
    """The shared library for translation unit `text`, compiled unless cached.

    `checked` compiles checked mode's bounds and division checks in; `counting` the counters of
    counting mode (runtime/emulator/counters.py), a separate library under its own key (default:
    whether launches are counted now, so every caller's launches are counted inside `counting()`).
    `label` names the user's kernel in errors; `describe_line(n)` says where line n of `text`
    comes from (generated signature, the user's source line, ...); errors quote `display_text`,
    the source as the user would see it, which has the same line numbering as `text`.
    """
    counting = counters.active() if counting is None else counting
    flags = BASE_FLAGS + MATH_MODE_FLAGS[math_mode] + (CHECKED_FLAGS if checked else []) + \
        (COUNTING_FLAGS if counting else [])
    key = hashlib.sha256("\0".join([toolchain_fingerprint(), " ".join(flags), text]).encode()).hexdigest()[:24]
    final = cache_dir() / f"kernel-{key}.so"
    if cached_library(final, key):
        return final
    with _build_dir() as tmp:
        src, ir, lib = Path(tmp) / "kernel.cpp", Path(tmp) / "kernel.ll", Path(tmp) / "kernel.so"
        src.write_text(text)
        front = _run([compiler(), *flags, "-I", str(SHIM_DIR), "-S", "-emit-llvm", "-Xclang", "-disable-llvm-passes",
                      "-o", str(ir), str(src)], label, "front end", f"{text.count(chr(10)) + 1} lines of Metal source")
        if front.returncode:
            raise KernelCompileError(format_compile_error(label, display_text, front.stderr, describe_line))
        llvm_ir = ir.read_text()
        cycle = find_recursion(llvm_ir)
        if cycle:
            names = " -> ".join(demangle(cycle))
            raise KernelCompileError(f"{label}: recursion is not allowed in Metal ({names}); "
                                     "rewrite the recursive function as a loop")
        ir.write_text(instrument.instrument(llvm_ir, checked, str(src), shim_files(), counting))
        optimised = Path(tmp) / "kernel.opt.ll"
        opt = _run([compiler(), *flags, "-Wno-override-module", "-S", "-emit-llvm", "-o", str(optimised), str(ir)],
                   label, "optimiser", _ir_size(ir))
        if opt.returncode:
            raise KernelCompileError(f"{label}: optimisation failed:\n{opt.stderr}")
        optimised.write_text(instrument.poll_loops(optimised.read_text(), checked, str(src), shim_files()))
        back = _run([compiler(), *flags, "-shared", "-Wno-override-module", "-Xclang", "-disable-llvm-passes",
                     "-o", str(lib), str(optimised), builtins_library()], label, "code generator", _ir_size(optimised))
        if back.returncode:
            raise KernelCompileError(f"{label}: code generation failed:\n{back.stderr}")
        _publish(lib, final, key)
        (cache_dir() / f"kernel-{key}.cpp").write_text(text)  # for inspection next to the library
    return final
