"""tl.make_tensor_descriptor (on block pointers, every axis checked): 'nan' padding at odd sizes on
the emulator, and Triton's refusals, each naming the kernel's line and a fix. The zero-padded loads
and clipped stores are checked against Triton's interpreter in tests/conformance."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.errors import KernelDefinitionError


@mf.jit
def padded_rows(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], padding_option=PAD)
    block = desc.load([tl.program_id(0) * BM, 0])
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(out_ptr + rows[:, None] * BN + tl.arange(0, BN)[None, :], block)


def test_nan_padding_past_both_edges(rng):
    m, n, bm, bn = 13, 5, 8, 8
    x = rng.standard_normal((m, n)).astype(np.float32)
    out = np.array(padded_rows[(2,)](mx.array(x), mf.empty((2 * bm, bn)), m, n, BM=bm, BN=bn, PAD="nan"))
    want = np.full((2 * bm, bn), np.nan, np.float32)
    want[:m, :n] = x
    np.testing.assert_array_equal(out, want)


@mf.jit
def described(x_ptr, n, STRIDE: tl.constexpr, BLOCK: tl.constexpr, PAD: tl.constexpr, USE: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [n, n], [n, STRIDE], [BLOCK, BLOCK], padding_option=PAD)
    if USE == "offsets":
        desc.load([0])
    elif USE == "twice":
        desc.store([0, 0], desc.load([0, 0]), offsets=[0, 0])
    elif USE == "atomic":
        desc.atomic_add([0, 0], tl.zeros((BLOCK, BLOCK), tl.float32))
    else:
        desc.store([0, 0], desc.load([0, 0]))


@pytest.mark.parametrize("dtype,consts,message", [
    (mx.float32, dict(STRIDE=2), "last stride must be the constant 1"),
    (mx.float32, dict(BLOCK=2), r"block has 2 x 4 bytes along its last axis; Triton asks for at least 16"),
    (mx.int32, dict(PAD="nan"), "padding_option='nan' needs floating-point elements"),
    (mx.float32, dict(PAD="max"), "padding_option='max' is not 'zero' or 'nan'"),
    (mx.float32, dict(USE="offsets"), "got 1 offsets for a descriptor of 2 axes"),
    (mx.float32, dict(USE="atomic"), r"a tensor descriptor's .atomic_add\(\) is not supported"),
    (mx.float32, dict(USE="twice"), r"desc.store\(\) takes \(offsets, value\), got 2 positional and \['offsets'\]"),
])
def test_refusals_name_the_line_and_the_fix(dtype, consts, message):
    meta = {**dict(STRIDE=1, BLOCK=8, PAD="zero", USE="copy"), **consts}
    with pytest.raises(KernelDefinitionError, match=message) as e:
        described[(1,)](mx.zeros((64,), dtype), 8, **meta)
    assert "described" in str(e.value) and "test_tensor_descriptor.py" in str(e.value) and "fix:" in str(e.value)
