"""tl.device_print: records come back through a hidden output and print in Triton's format."""
from __future__ import annotations

import re

import mlx.core as mx
import numpy as np

import metalforge as mf
import metalforge.language as tl


@mf.jit
def printed(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1.0)
    tl.device_print("x=", x)
    tl.device_print("n=", n)
    tl.store(out_ptr + offs, x * 2, mask=offs < n)


def test_device_print_prints_every_element_and_keeps_outputs(rng, capsys):
    n = int(rng.integers(3, 7))
    x = rng.standard_normal(n).astype(np.float32)
    out = printed[(2,)](mx.array(x), mf.empty((n,)), n, BLOCK=8, num_warps=1)
    np.testing.assert_array_equal(np.array(out), x * 2)  # the hidden buffer is not returned
    lines = capsys.readouterr().out.strip().splitlines()
    xs = {}
    for line in lines:
        m = re.fullmatch(r"pid \((\d), 0, 0\) idx \((\d+)\) x=(\S+)", line)
        if m:
            xs[(int(m.group(1)), int(m.group(2)))] = float(m.group(3))
    assert len(xs) == 16  # 2 programs x 8 elements
    for pid in (0, 1):
        got = [xs[(pid, i)] for i in range(8)]
        np.testing.assert_allclose(got, list(x) + [-1.0] * (8 - n), rtol=1e-6)
    assert sorted(l for l in lines if "n=" in l) == [f"pid ({p}, 0, 0) idx (0) n={n}" for p in (0, 1)]

