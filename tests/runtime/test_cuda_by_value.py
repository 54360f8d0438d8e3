"""Generated kernels on the cuda back end take scalars by value: NVRTC compiles the whole translation
unit here (runtime/nvrtc.py) and MLX's precompiled_cuda_kernel runs it. No GPU here: NVRTC is real
(the nvidia-cuda-nvrtc wheel of the test extra), compiling for sm_90 (the H200); MLX's launch is
recorded instead of run, and the H200 benchmark (benchmarks/same_source.py) runs it for real."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.kernels.specimens import SPECIMENS
from metalforge.runtime import nvrtc
from metalforge.runtime.cuda import CudaBackend, translation_unit
from metalforge.runtime.kernel import ValueTypes, metal_kernel

pytestmark = pytest.mark.skipif(nvrtc.available() is not None, reason=f"{nvrtc.available()} (`bash .ci/install` "
                                "installs the test extra, which has NVRTC)")


class H200(CudaBackend):
    """The cuda back end as on the H200, with MLX's launch recorded instead of run."""

    @staticmethod
    def available() -> bool:
        return True


@pytest.fixture
def launches(monkeypatch):
    calls = []

    def precompiled_cuda_kernel(**call):
        for v in call["scalars"]:  # MLX's binding: nanobind's strict bool / int / float (float32-exact)
            exact = type(v) in (bool, int) or (type(v) is float and float(np.float32(v)) == v)
            assert exact, f"[precompiled_cuda_kernel] Invalid scalar argument type: {v!r}"
        calls.append(call)
        return [mx.zeros(s, dtype=d) for s, d in zip(call["output_shapes"], call["output_dtypes"])]

    monkeypatch.setattr(nvrtc, "device_architecture", lambda device=0: "sm_90")
    monkeypatch.setattr(mx.fast, "precompiled_cuda_kernel", precompiled_cuda_kernel)
    monkeypatch.setattr(mx.fast, "cuda_kernel", lambda **kernel: pytest.fail(f"cuda_kernel called for {kernel['name']}"))
    return calls


@mf.jit
def scale_shift(x_ptr, out_ptr, n, scale, shift, flip, big, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x * scale + shift + (big % 7).to(tl.float32)
    tl.store(out_ptr + offs, tl.where(flip, -y, y), mask=mask)


def test_scalars_go_by_value_in_mlx_order(launches):
    n, x, backend = 1000, mx.ones(1000), H200()
    scale_shift[(mf.cdiv(n, 256),)](x, mf.empty(n), n, 2, 0.5, True, 2**40 + 3, BLOCK=256, backend=backend)
    call, = launches
    cubin = call["compiled_source"]
    assert cubin[:4] == FATBIN_MAGIC  # a fatbin (the compressed cubin for sm_90)
    # arrays (the int64 `big` stays a 0-d array: MLX passes 32-bit ints), then the by-value scalars
    # in input order, each converted to its parameter's type (an int `scale` specialises as int32,
    # as in Triton); outputs after the arrays, in the signature
    assert call["inputs"][0] is x and call["inputs"][1].dtype == mx.int64 and call["inputs"][1].item() == 2**40 + 3
    assert call["scalars"] == [1000, 2, 0.5, True]
    assert [type(v) for v in call["scalars"]] == [int, int, float, bool]
    assert call["grid"] == (4 * 128, 1, 1) and call["output_shapes"] == [(n,)]
    # other values, same specialisation: the same compiled kernel, the new values; a float that
    # float32 does not hold exactly arrives rounded, as the kernel's float parameter would hold it
    scale_shift[(1,)](x, mf.empty(n), 984, 3, 1e-5, False, 2**40, BLOCK=256, backend=backend)  # 984: 1000's class
    assert launches[-1]["name"] == call["name"] and launches[-1]["compiled_source"] is cubin
    assert launches[-1]["scalars"] == [984, 3, float(np.float32(1e-5)), False]
    scale_shift[(1,)](x, mf.empty(n), 984, 3, -0.0, False, 2**40, BLOCK=256, backend=backend)
    scale_shift[(1,)](x, mf.empty(n), 984, 3, 0.0, False, 2**40, BLOCK=256, backend=backend)
    assert [str(launches[i]["scalars"][2]) for i in (-2, -1)] == ["-0.0", "0.0"]  # each keeps its sign


def scale_shift_kernel():
    """scale_shift rendered for CUDA, its scalars by value."""
    compiled = scale_shift.compile(mx.ones(8), mf.empty(8), 8, 1.0, 0.0, True, 2**40, BLOCK=256, target="cuda")
    return metal_kernel(compiled.name, [n for n, _ in compiled.inputs], [n for n, _ in compiled.outputs],
                        compiled.body, compiled.header, backend=H200(),
                        value_types=ValueTypes((mx.float32, mx.int32, mx.float32, mx.float32, mx.bool_, mx.int64),
                                               (mx.float32,), ("n", "scale", "shift", "flip")))


def test_translation_unit_declares_mlx_order():
    unit = translation_unit(scale_shift_kernel(), "entry")
    start = unit.index('extern "C" __global__ void entry(')
    signature = unit[start:unit.index(") {", start)]
    order = [line.strip().rstrip(",").split()[-1] for line in signature.splitlines()[1:]]
    assert order == ["x_ptr", "big", "out_ptr", "n", "scale", "shift", "flip"]
    assert "const mf_by_value<int32_t> n" in signature and "const mf_by_value<bool> flip" in signature


FATBIN_MAGIC = (0xBA55ED50).to_bytes(4, "little")


def test_modules_are_compressed_fatbins_of_the_cubin(monkeypatch):
    """MLX copies and hashes the compiled code at every launch: the module is the cubin in a
    compressed fatbin, several times smaller; without nvFatbin, the cubin itself."""
    tu = translation_unit(scale_shift_kernel(), "k")
    cubin = nvrtc.compile_cubin(tu, "k", "sm_90")
    assert cubin[:4] == b"\x7fELF"
    module = nvrtc.compile_module(tu, "k", "sm_90")
    assert module[:4] == FATBIN_MAGIC and len(module) < len(cubin) / 2
    monkeypatch.setattr(nvrtc, "_fatbin", lambda: None)
    assert nvrtc.compile_module(tu, "k", "sm_90") == cubin

    class Refusing:  # an nvFatbin that refuses the options (older than CUDA 12.8): the cubin, and a warning
        @staticmethod
        def pack(*args):
            raise nvrtc.NvrtcError("nvFatbin create failed: unrecognized option")
    monkeypatch.setattr(nvrtc, "_fatbin", Refusing)
    assert nvrtc.compile_module(tu, "k", "sm_90") == cubin


def test_a_driver_older_than_cuda_12_8_gets_the_cubin(monkeypatch, caplog):
    """A driver that cannot load a compressed fatbin (before CUDA 12.8) would fail at MLX's module
    load: it gets the cubin, with a warning naming the fix; 12.8 and no driver at all (a machine
    that only compiles) get the fatbin."""
    tu = translation_unit(scale_shift_kernel(), "k")
    cubin = nvrtc.compile_cubin(tu, "k", "sm_90")
    monkeypatch.setattr(nvrtc, "driver_version", lambda: 12040)
    with caplog.at_level("WARNING"):
        assert nvrtc.compile_module(tu, "k", "sm_90") == cubin
    assert "supports CUDA 12.4, and loads compressed fatbins from 12.8" in caplog.text
    for version in (12080, None):
        monkeypatch.setattr(nvrtc, "driver_version", lambda v=version: v)
        assert nvrtc.compile_module(tu, "k", "sm_90")[:4] == FATBIN_MAGIC


@pytest.mark.parametrize("specimen", SPECIMENS, ids=[s.name for s in SPECIMENS])
def test_library_kernels_compile_with_nvrtc(specimen, launches):
    """Every library kernel's by-value translation unit compiles (NVRTC, sm_90): the same check MLX's
    own JIT would make on the H200, here on every commit."""
    fn = specimen.kernel()
    launch, _ = fn.launch_function(specimen.args(), {**specimen.meta, "backend": H200()})
    assert launch is not None


def test_nvrtc_errors_name_the_kernel():
    with pytest.raises(nvrtc.NvrtcError, match=r"(?s)NVRTC could not compile kernel 'broken'.*undefined_name"):
        nvrtc.compile_cubin('extern "C" __global__ void broken() { undefined_name(); }', "broken", "sm_90")


def test_without_nvrtc_scalars_stay_arrays(monkeypatch):
    """Where NVRTC is missing the back end says so, and kernels go to cuda_kernel as before."""
    monkeypatch.setattr(nvrtc, "available", lambda: "NVRTC was not found")
    assert H200().scalars_by_value() == {}


@pytest.mark.parametrize("warps", [4, 32])
def test_launch_bounds_hold_registers_to_the_threads(warps, launches, monkeypatch):
    """A launch of 1024 threads fails on CUDA ("too many resources requested") when its kernel took
    over 64 registers, as the softmax kernel at BLOCK 32768 did on the H200 without a bound: the
    translation unit a launch compiles tells the compiler the config's threads (PTX's .maxntid)."""
    from metalforge.kernels import softmax
    units, compile_cubin = [], nvrtc.compile_cubin
    monkeypatch.setattr(nvrtc, "compile_cubin", lambda source, name, *a: units.append((source, name))
                        or compile_cubin(source, name, *a))
    rows, cols = 2, 32001 + warps  # a shape of its own: a cached kernel would not compile again
    x = mx.zeros((rows, cols), dtype=mx.float16)
    softmax.softmax_kernel.fn[(rows,)](x.reshape(-1), mf.empty((rows, cols), mx.float16), cols, cols, BLOCK=32768,
                                       num_warps=warps, backend=H200())
    assert launches[-1]["threadgroup"] == (32 * warps, 1, 1) and len(units) == 1
    assert f".maxntid {32 * warps}, 1, 1" in nvrtc.compile_ptx(*units[0], "sm_90")
