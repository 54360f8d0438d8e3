"""codegen/facts.py: the static counts of a lowered kernel, checked on kernels whose counts follow
from their tile sizes by hand."""
from __future__ import annotations

import mlx.core as mx
import pytest

import metalforge as mf
import metalforge.language as tl

from .test_cuda_render import add


@mf.jit
def row_sums(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@pytest.mark.parametrize("target", ["msl", "cuda"])
def test_vector_and_scalar_accesses_are_counted_per_thread(target):
    """1024 fp32 over 128 threads: 8 elements a thread, two 16-byte runs when n is a multiple of 16;
    when it is not, the same two runs where the whole run is below n, and the eight 4-byte accesses
    of the run that straddles n beside them (both counted: the code holds both); two loads and one
    store per element."""
    x = mx.zeros((16,))
    f = add.compile(x, x, mf.empty((4096,)), 4096, BLOCK=1024, num_warps=4, target=target).facts
    assert (f.threads, dict(f.loads), dict(f.stores), f.barriers, f.shared_bytes) == (128, {16: 4}, {16: 2}, 0, 0)
    f = add.compile(x, x, mf.empty((4095,)), 4095, BLOCK=1024, num_warps=4, target=target).facts
    assert (dict(f.loads), dict(f.stores)) == ({16: 4, 4: 16}, {16: 2, 4: 8})


def test_reduction_barriers_threadgroup_bytes_and_runtime_loops():
    """A row loop with a run-time bound counts once per iteration; the sum's partials of 4
    simdgroups take 16 bytes of threadgroup memory between two barriers; one thread stores. The
    row at `row * n` (n odd) is read in runs of 4 where all of a run is below n (Metal's packed
    vectors may start at any element), element by element at the edge; on CUDA, whose vectors need
    aligned addresses, element by element throughout."""
    c = row_sums.compile(mx.zeros((16,)), mf.empty(8), 4095, BLOCK=512, num_warps=4, target="msl")
    f = c.facts
    assert f.runtime_loops == 1 and dict(f.loads) == {16: 1, 4: 4} and dict(f.stores) == {4: 1}
    assert f.barriers == 2 and f.shared_bytes == c.shared_bytes == 16
    cuda = row_sums.compile(mx.zeros((16,)), mf.empty(8), 4095, BLOCK=512, num_warps=4, target="cuda").facts
    assert dict(cuda.loads) == {4: 4}
