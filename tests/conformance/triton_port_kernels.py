"""Kernels ported from Triton's unit tests (python/test/unit/language/test_core.py, Triton 3.6), bodies
verbatim where Triton writes them inline; Triton's `GENERATE_TEST_HERE` templates are written out once
per expression. Executed like kernels.py (`tl` and `jit` bound by the harness, once per side), plus a
few kernels of metalforge's own for what Triton's tests do not reach (odd sizes, read-back).
"""
# ruff: noqa: F821  (`tl` and `jit` are bound by the harness)


# --- test_shift_op (_test_binary's kernel and kernel_broadcast_rhs, expr `x >> y` / `x << y`) ----------
@jit
def shr_kernel(Z, X, Y, SIZE: tl.constexpr):
    off = tl.arange(0, SIZE)
    x = tl.load(X + off)
    y = tl.load(Y + off)
    z = x >> y
    tl.store(Z + off, z)


@jit
def shl_kernel(Z, X, Y, SIZE: tl.constexpr):
    off = tl.arange(0, SIZE)
    x = tl.load(X + off)
    y = tl.load(Y + off)
    z = x << y
    tl.store(Z + off, z)


@jit
def shr_broadcast_rhs_kernel(Z, X, Y, SIZE: tl.constexpr):
    off = tl.arange(0, SIZE)
    x = tl.load(X + off)
    y = tl.load(Y)
    z = x >> y
    tl.store(Z + off, z)


# --- a program reads back what it stored (metalforge's own) -----------------------------------------------
@jit
def store_reload_kernel(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(idx_ptr, tl.max(x, axis=0) % n)  # a scalar: one thread stores it
    i = tl.load(idx_ptr)  # every thread reads it back
    tl.store(out_ptr + offs, tl.load(x_ptr + (offs + i) % n, mask=mask), mask=mask)
    tl.store(out_ptr + n + offs, x, mask=mask)
    y = tl.load(out_ptr + n + (n - 1 - offs), mask=mask)  # other threads' elements
    tl.store(out_ptr + 2 * n + offs, y + 1, mask=mask)
    tl.store(out_ptr + n + offs, y * 2, mask=mask)  # overwrites what other threads just read


@jit
def loop_reload_kernel(out_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, offs, mask=mask)
    for _ in range(STEPS):  # a loop in the generated code (only static_range unrolls)
        v = tl.load(out_ptr + (n - 1 - offs), mask=mask)  # stored by another thread last iteration
        tl.store(out_ptr + n + offs, v * 2 + 1, mask=mask)
        w = tl.load(out_ptr + n + (n - 1 - offs), mask=mask)
        tl.store(out_ptr + offs, w, mask=mask)
