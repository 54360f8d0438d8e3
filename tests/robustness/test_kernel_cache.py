"""The emulator's compiled-kernel cache verifies and heals (issue #19: a truncated `.so` gave SIGBUS
or OSError forever, another kernel's `.so` copied over an entry gave wrong results silently, an
unwritable cache or METALFORGE_CACHE_DIR pointing at a file gave raw OSErrors, a killed compile
left its temporary directory behind)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings

import mlx.core as mx
import numpy as np
import pytest

from metalforge.runtime import metal_kernel
from metalforge.runtime.emulator import EmulatorBackend, compiler


PACKAGE_PARENT = os.path.dirname(os.path.dirname(compiler.HERE.parent.parent))  # where `metalforge` imports from


@pytest.fixture
def cache(tmp_path_factory, monkeypatch):
    """A cache directory of its own (the runtime library stays where the session built it)."""
    if not EmulatorBackend.available():
        pytest.skip("the emulator needs clang++ >= 17")
    compiler.runtime_library()
    root = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("METALFORGE_CACHE_DIR", str(root))
    return root / "emulator"


def scale(factor: float, backend: EmulatorBackend) -> np.ndarray:
    k = metal_kernel("scale", ["x"], ["out"], f"uint i = thread_position_in_grid.x; out[i] = x[i] * {factor}f;",
                     backend=backend)
    out = k(inputs=[mx.arange(8, dtype=mx.float32)], grid=(8, 1, 1), threadgroup=(8, 1, 1), output_shapes=[(8,)],
            output_dtypes=[mx.float32])[0]
    return np.array(out)


def entry_of(factor: float, cache) -> "Path":
    """The cache entry of `scale(factor)`, built by another process (as a damaged entry would be
    found: a library this process has loaded stays loaded under its path)."""
    before = set(cache.glob("kernel-*.so"))
    code = ("import sys; from metalforge.tests.robustness.test_kernel_cache import scale; "
            f"from metalforge.runtime.emulator import EmulatorBackend; scale({factor}, EmulatorBackend())")
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": PACKAGE_PARENT})
    (new,) = set(cache.glob("kernel-*.so")) - before
    return new


def run_fresh(factor: float) -> tuple[np.ndarray, list[str]]:
    """Launch in a new back end (its in-process cache empty: the library comes from disk)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = scale(factor, EmulatorBackend())
    return out, [str(w.message) for w in caught]


def test_truncated_entry_is_deleted_and_rebuilt(cache):
    entry = entry_of(1.5, cache)
    entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
    out, messages = run_fresh(1.5)
    np.testing.assert_array_equal(out, np.arange(8) * 1.5)
    assert any("is damaged" in m and entry.name in m for m in messages), messages
    assert compiler.cached_library(entry, entry.stem.removeprefix("kernel-"))


def test_another_kernels_library_copied_over_an_entry_is_not_run(cache):
    two, three = entry_of(2.5, cache), entry_of(3.5, cache)
    shutil.copyfile(three, two)
    out, messages = run_fresh(2.5)
    np.testing.assert_array_equal(out, np.arange(8) * 2.5)  # not 3.5: the stamp names another key
    assert any("is damaged" in m for m in messages), messages


def test_cache_dir_that_is_a_file_falls_back_with_one_warning(tmp_path, monkeypatch):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    monkeypatch.setenv("METALFORGE_CACHE_DIR", str(not_a_dir))
    out, messages = run_fresh(5.0)
    np.testing.assert_array_equal(out, np.arange(8) * 5.0)
    assert len([m for m in messages if "cannot be written" in m and "METALFORGE_CACHE_DIR" in m]) == 1, messages


def test_build_directories_of_killed_compiles_are_removed(tmp_path):
    orphan = tmp_path / "emulator" / "build-2147483000-abc"  # no such process
    orphan.mkdir(parents=True)
    (orphan / "kernel.ll").write_text("...")
    compiler._usable_cache_dir(str(tmp_path))
    assert not orphan.exists()
