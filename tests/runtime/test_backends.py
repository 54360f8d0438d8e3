"""Back-end selection, the Metal and CUDA back ends' hand-off to MLX and the kernel objects they keep,
and the selftest command."""
from __future__ import annotations

import gc
import subprocess
import sys

import mlx.core as mx
import numpy as np
import pytest

from metalforge import errors
from metalforge.runtime import backends, metal_kernel
from metalforge.runtime.cuda import CudaBackend
from metalforge.runtime.emulator import EmulatorBackend
from metalforge.runtime.metal import MetalBackend

from .helpers import to_np

SOURCE = """
    uint i = thread_position_in_grid.x;
    if (i < x_shape[0]) out[i] = x[i] * T(scale) + T(N);
"""


class RecordingMetal(MetalBackend):
    """Stands in for a Mac: the Metal back end, as available."""

    @staticmethod
    def available() -> bool:
        return True


def test_metal_backend_passes_mlx_exactly_what_the_emulator_compiles(monkeypatch):
    recorded = {}

    def fake_metal_kernel(**kernel_args):
        recorded["kernel"] = kernel_args

        def run(**call):
            recorded["call"] = call
            return ["sentinel"]
        return run

    monkeypatch.setattr(mx.fast, "metal_kernel", fake_metal_kernel)
    x = mx.array(np.random.default_rng().standard_normal(37).astype(np.float32))
    call = dict(inputs=[x, 1.5], output_shapes=[(37,)], output_dtypes=[mx.float32], grid=(37, 1, 1),
                threadgroup=(32, 1, 1), template=[("T", mx.float32), ("N", 3)], init_value=None, verbose=False,
                stream=None)
    kernel_args = dict(name="scaled", input_names=["x", "scale"], output_names=["out"], source=SOURCE,
                       header="// helpers\n", ensure_row_contiguous=True, atomic_outputs=False,
                       compile_options={"math_mode": "fast"})

    assert metal_kernel(**kernel_args, backend=RecordingMetal())(**call) == ["sentinel"]
    assert recorded["kernel"] == kernel_args
    assert recorded["call"] == call

    # The emulator compiles the source MLX generates from those very arguments, and runs it.
    emulated = metal_kernel(**recorded["kernel"], backend="emulator")
    generated = emulated.prepare(**recorded["call"]).generated
    assert generated.source == emulated.generate([x, mx.array(1.5)], [mx.float32], call["template"]).source
    assert generated.name == "custom_kernel_scaled__float_3_float_floats_float"
    out, = emulated(**recorded["call"])
    np.testing.assert_allclose(np.array(out), np.array(x) * 1.5 + 3, rtol=1e-6)


class AvailableCuda(CudaBackend):
    """Stands in for an NVIDIA machine: the CUDA back end, as available."""

    @staticmethod
    def available() -> bool:
        return True


@pytest.mark.parametrize("backend_class,constructor", [(RecordingMetal, "metal_kernel"),
                                                       (AvailableCuda, "cuda_kernel")])
def test_kernels_made_and_dropped_in_a_loop_each_run_their_own_code(monkeypatch, backend_class, constructor):
    """MLX kernel objects are kept by what they are built from: a kernel made after another was
    collected (which may take the same id) runs its own source, never the old one's."""
    built = []

    def fake_constructor(**kernel_args):
        built.append(kernel_args["source"])
        return lambda **call: [kernel_args["source"]]

    monkeypatch.setattr(mx.fast, constructor, fake_constructor)
    backend = backend_class()
    call = dict(inputs=[mx.zeros(4)], output_shapes=[(4,)], output_dtypes=[mx.float32], grid=(4, 1, 1),
                threadgroup=(4, 1, 1))
    for i in range(200):
        source = f"out[0] = {i % 50};"
        assert metal_kernel("k", ["x"], ["out"], source, backend=backend)(**call) == [source]
        gc.collect(0)  # the kernel object is gone (a young cycle): its id is free for the next one
    assert built == [f"out[0] = {i};" for i in range(50)]  # each source built once, then reused
    assert len(backend.built) == 50


def test_kernels_made_and_dropped_in_a_loop_each_run_their_own_code_on_the_emulator(emu):
    x = mx.zeros(8)
    for i in range(3):
        k = metal_kernel("dropped", ["x"], ["out"], f"out[thread_position_in_grid.x] = x[thread_position_in_grid.x] + {i};",
                         backend=emu)
        out, = k(inputs=[x], output_shapes=[(8,)], output_dtypes=[mx.float32], grid=(8, 1, 1), threadgroup=(8, 1, 1))
        np.testing.assert_array_equal(to_np(out), np.full(8, i))
        del k
        gc.collect()


def test_selection_order(monkeypatch):
    monkeypatch.delenv("METALFORGE_BACKEND", raising=False)
    expected = "metal" if mx.metal.is_available() else "cuda" if mx.cuda.is_available() else "emulator"
    assert backends.resolve().name == expected
    # hand-written metal_kernel source only goes to back ends that run MSL
    assert backends.resolve(language="msl").name == ("metal" if mx.metal.is_available() else "emulator")
    monkeypatch.setenv("METALFORGE_BACKEND", "emulator")
    assert backends.resolve().name == "emulator"
    assert backends.resolve("emulator") is backends.resolve("emulator")
    custom = EmulatorBackend(schedule="reverse")
    assert backends.resolve(custom) is custom
    assert backends.backend_names("msl") == ["metal", "emulator"]


def test_unknown_and_unavailable_backends(monkeypatch):
    with pytest.raises(errors.BackendUnavailableError, match="unknown back end 'rocm'.*emulator"):
        backends.resolve("rocm")
    monkeypatch.setenv("METALFORGE_BACKEND", "tpu")
    with pytest.raises(errors.BackendUnavailableError, match="'tpu'"):
        backends.resolve()
    if not mx.metal.is_available():
        with pytest.raises(errors.BackendUnavailableError, match="metal.*not available"):
            backends.resolve("metal")
    if not mx.cuda.is_available():
        with pytest.raises(errors.BackendUnavailableError, match="cuda.*not available"):
            backends.resolve("cuda")


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match="math_mode"):
        metal_kernel("k", ["x"], ["y"], "", compile_options={"math_mode": "turbo"})
    with pytest.raises(ValueError, match="unknown compile option"):
        metal_kernel("k", ["x"], ["y"], "", compile_options={"opt": 3})
    with pytest.raises(ValueError, match="at least one output"):
        metal_kernel("k", ["x"], [], "")
    with pytest.raises(ValueError, match="schedule"):
        EmulatorBackend(schedule="random")


def test_selftest_command_runs_and_passes():
    r = subprocess.run([sys.executable, "-m", "metalforge.cli", "selftest", "--backend", "emulator"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "selftest passed" in r.stdout
    assert r.stdout.count(" ok ") >= 4


def test_cli_rejects_unknown_command():
    r = subprocess.run([sys.executable, "-m", "metalforge.cli", "frobnicate"], capture_output=True, text=True)
    assert r.returncode == 2 and "invalid choice" in r.stderr
