"""tl.device_assert and tl.assume: type-checked always, checked at run time only in a kernel built
with debug on (`@jit(debug=True)`, or METALFORGE_DEBUG=1 when the kernel is defined), as Triton
checks them only with TRITON_DEBUG; a false element (where the mask is true) fails the launch with
DeviceAssertionError naming the kernel, the line, the message, the program and the element."""
from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.errors import DeviceAssertionError, KernelDefinitionError


def guarded(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1.0)
    tl.device_assert(x >= 0, "x must be non-negative", mask=offs < n)
    tl.assume(n % 2 == 1)
    tl.store(out_ptr + offs, tl.sqrt(x), mask=offs < n)


checked, unchecked = mf.jit(debug=True)(guarded), mf.jit(guarded)


def test_every_element_holding_runs_as_without_the_checks(rng):
    """Masked lanes (past n, loaded as -1) are not asserted on; an odd n satisfies the assumption."""
    n = int(rng.integers(50, 120)) | 1
    x = rng.uniform(0, 9, n).astype(np.float32)
    out = checked[(mf.cdiv(n, 32),)](mx.array(x), mf.empty((n,)), n, BLOCK=32, num_warps=1)
    np.testing.assert_allclose(np.array(out), np.sqrt(x), rtol=1e-6)


def test_a_false_element_fails_the_launch_naming_where(rng):
    n = 101
    x = rng.uniform(0, 9, n).astype(np.float32)
    bad = [int(i) for i in rng.choice(n, 3, replace=False)]
    x[bad] = -1.0
    with pytest.raises(DeviceAssertionError) as e:
        checked[(mf.cdiv(n, 32),)](mx.array(x), mf.empty((n,)), n, BLOCK=32, num_warps=1)
    first = min(bad, key=lambda i: (i // 32, i % 32))
    message = str(e.value)
    assert "tl.device_assert failed in kernel `guarded`" in message and "test_device_assert.py:19" in message
    assert "x must be non-negative" in message and f"first at pid ({first // 32}, 0, 0) idx ({first % 32})" in message
    assert "and 2 more false element(s)" in message


def test_a_false_assumption_fails_with_debug_and_is_a_hint_without(rng):
    x = mx.array(rng.uniform(0, 9, 64).astype(np.float32))
    with pytest.raises(DeviceAssertionError, match=r"tl.assume failed in kernel `guarded` .*tl.assume\(n % 2 == 1\)"):
        checked[(2,)](x, mf.empty((64,)), 64, BLOCK=32)
    np.testing.assert_allclose(np.array(unchecked[(2,)](x, mf.empty((64,)), 64, BLOCK=32)), np.sqrt(np.array(x)),
                               rtol=1e-6)


def test_without_debug_nothing_is_checked_or_added():
    x = mx.array(np.full(33, -4.0, np.float32))
    out = unchecked[(2,)](x, mf.empty((33,)), 33, BLOCK=32)
    assert np.isnan(np.array(out)).all()  # sqrt(-4): the assert was left out, as in Triton without debug
    assert unchecked.last.prints == [] and "mf_print_buffer" not in unchecked.last.body


def test_the_environment_turns_debug_on_for_kernels_defined_after(monkeypatch):
    monkeypatch.setenv("METALFORGE_DEBUG", "1")
    on = mf.jit(guarded)
    monkeypatch.setenv("METALFORGE_DEBUG", "0")
    off = mf.jit(guarded)
    x = mx.array(np.full(33, -4.0, np.float32))
    with pytest.raises(DeviceAssertionError):
        on[(2,)](x, mf.empty((33,)), 33, BLOCK=32)
    off[(2,)](x, mf.empty((33,)), 33, BLOCK=32)


@mf.jit(debug=True)
def runtime_message(x_ptr, msg_ptr):
    tl.device_assert(tl.load(x_ptr) > 0, tl.load(msg_ptr))


def test_the_message_must_be_a_constant():
    with pytest.raises(KernelDefinitionError, match="msg must be a constexpr"):
        runtime_message[(1,)](mx.ones(1), mx.ones(1))


@mf.jit(debug=True)
def printed_then_checked(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("x", x)
    tl.debug_barrier()  # every print's record is taken before any assertion's, whatever the schedule
    tl.device_assert(x >= 0, "negative")


def test_a_failure_whose_record_a_full_buffer_dropped_still_fails(capsys):
    """4096 printed elements fill the record buffer before the assertion's records: the failures are
    counted apart, so the launch fails all the same, saying the records were dropped."""
    with pytest.raises(DeviceAssertionError, match=r"(?s)8 element\(s\) failed a device assertion \(tl.device_assert "
                       r"failed in kernel `printed_then_checked`.*negative\), but their records were dropped"):
        printed_then_checked[(1,)](mx.array(np.arange(4096, dtype=np.float32)[::-1] - 7.5), BLOCK=4096, num_warps=4)
    assert len(capsys.readouterr().out.splitlines()) == 4096 + 1  # and the line saying 8 were dropped
