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


# --- control flow: test_if, test_nested_if_else_return, test_while, test_nested_while, test_static_range -----
@jit
def if_kernel(Cond, XTrue, XFalse, Ret, IfType: tl.constexpr, BoolVar: tl.constexpr, StaticVaue: tl.constexpr):
    pid = tl.program_id(0)
    cond = tl.load(Cond)
    if IfType == "if":
        if pid % 2 == 0:  # eq
            tl.store(Ret, tl.load(XTrue))
        elif 1 == pid % 2:  # req
            tl.store(Ret, tl.load(XFalse))
    elif IfType == "if_exp_dynamic":
        val = tl.load(XTrue) if pid % 2 == 0 else tl.load(XFalse)
        tl.store(Ret, val)
    elif IfType == "if_exp_dynamic_constexpr":
        val = 3.14 if pid % 2 == 0 else tl.load(XFalse)
        tl.store(Ret, val)
    elif IfType == "if_exp_dynamic_void":
        tl.store(Ret, tl.load(XTrue)) if pid % 2 == 0 else tl.store(Ret, tl.load(XFalse))
    elif IfType == "if_exp_static":
        tl.store(Ret, tl.load(XTrue)) if BoolVar else tl.store(Ret, tl.load(XFalse))
    elif IfType == "if_and_dynamic":
        if BoolVar and (1 != pid % 2 and pid % 2 != 1):  # rne and ne
            tl.store(Ret, tl.load(XTrue))
        else:
            tl.store(Ret, tl.load(XFalse))
    elif IfType == "if_and_static":
        if StaticVaue != 0 and StaticVaue != 0:
            tl.store(Ret, tl.load(XTrue))
        else:
            tl.store(Ret, tl.load(XFalse))
    elif IfType == "if_or_dynamic":
        if cond or (1 != pid % 2 and pid % 2 != 1):
            tl.store(Ret, tl.load(XTrue))
        else:
            tl.store(Ret, tl.load(XFalse))


@jit
def nested_if_else_return_kernel(Cond1, Cond2, Cond3, Val1, Val2, Val3, Out):
    val = 0
    if tl.load(Cond1):
        if tl.load(Cond2):
            val = tl.load(Val1)
        else:
            return
    else:
        if tl.load(Cond3):
            val = tl.load(Val2)
        else:
            val = tl.load(Val3)
    tl.store(Out, val)


@jit
def while_kernel(InitI, Bound, CutOff, OutI, OutInitI, OutJ):
    init_i = tl.load(InitI)
    curr_i = init_i
    j = 0
    # Check that init_i is not updated by the loop
    while j < tl.load(Bound):
        curr_i = curr_i + (j == tl.load(CutOff))
        j += 1
        tl.store(OutInitI, init_i)
    tl.store(OutI, curr_i)
    tl.store(OutJ, j)


@jit
def nested_while_kernel(data, countPtr):
    for i in range(10):
        count = tl.load(countPtr)
        while count > 0:
            tl.store(data, tl.load(data) + 1.0)
            count = count - 2


@jit
def static_range_kernel(Z, START: tl.constexpr, END: tl.constexpr, STEP: tl.constexpr):
    acc = 0
    for i in tl.static_range(START, END, step=STEP):
        acc += i
    tl.store(Z, acc)


@jit
def for_iv_kernel(Out, LO: tl.constexpr, HI: tl.constexpr, iv: tl.constexpr):
    acc = 0
    acc = acc.to(tl.int64)
    for i in range(LO, HI, iv):
        acc += i
    tl.store(Out, acc)


# --- an early-return guard on odd sizes (metalforge's own) -------------------------------------------------------
@jit
def guard_return_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    total = tl.sum(x, axis=0)  # a reduction: barriers after the return
    if total < 0:
        tl.store(out_ptr + offs, -x, mask=mask)
        return
    tl.store(out_ptr + offs, x + (1.0 if pid % 2 == 0 else 2.0), mask=mask)


# --- math and casts: test_umulhi, test_propagate_nan, the tl.math namespace, tl.cast / .cast / zeros_like -------
@jit
def umulhi_kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    z = tl.umulhi(x, y)
    tl.store(Z + tl.arange(0, N), z)


@jit
def propagate_nan_kernel(A, B, C, propagate_nan: tl.constexpr, func: tl.constexpr):
    if func == 'clamp':
        tl.store(
            C,
            getattr(tl, func)(tl.load(A), -tl.load(B), tl.load(B),
                              propagate_nan=getattr(tl.PropagateNan, propagate_nan)))
    else:
        tl.store(C,
                 getattr(tl, func)(tl.load(A), tl.load(B), propagate_nan=getattr(tl.PropagateNan, propagate_nan)))


@jit
def math_namespace_kernel(X, Y, Z, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=1.0)
    y = tl.load(Y + offs, mask=mask, other=1.0)
    if FN == "fma":
        z = tl.math.fma(x, y, x)
    elif FN in ("div_rn", "fdiv"):
        z = getattr(tl.math, FN)(x, y)
    else:
        z = getattr(tl.math, FN)(x)
    tl.store(Z + offs, z, mask=mask)


@jit
def cast_like_kernel(X, A, B, C, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0.0)
    tl.store(A + offs, tl.cast(x, tl.int32), mask=mask)
    tl.store(B + offs, x.cast(tl.uint32, bitcast=True), mask=mask)
    tl.store(C + offs, tl.zeros_like(x) + tl.math.sqrt_rn(tl.abs(x)), mask=mask)


# --- shape ops: test_join, test_join_scalars, test_join_with_mma, test_interleave(_scalars), test_split(_to_scalar),
# test_cat, test_broadcast, test_reshape (make_ptr_str's pointer expressions written out), test_reduce's keep_dims
# configs (`z_ptr[None, None, :]`), and metalforge's own: 3-D permute/trans, odd sizes, errors ------------------
@jit
def join_kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    z = tl.join(x, y)
    tl.store(Z + tl.arange(0, N)[:, None] * 2 + tl.arange(0, 2)[None, :], z)


@jit
def join_scalars_kernel(X, Y, Z):
    x = tl.load(X)
    y = tl.load(Y)
    z = tl.join(x, y)
    tl.static_assert(z.shape == [2])
    tl.store(Z + tl.arange(0, 2), z)


@jit
def join_with_mma_kernel(X, Z):
    x = tl.load(X + 16 * tl.arange(0, 32)[:, None] + tl.arange(0, 16)[None, :])  # (32,16)
    x2 = tl.join(x, 2 * x)  # (32,16,2)
    x3 = tl.reshape(x2, (32, 32))
    z = tl.dot(x3, x3)  # (32,32)
    tl.store(Z + 32 * tl.arange(0, 32)[:, None] + tl.arange(0, 32)[None, :], z)


@jit
def interleave_kernel(Z, N: tl.constexpr):
    z = tl.interleave(tl.arange(0, N), tl.arange(N, 2 * N))
    tl.store(Z + tl.arange(0, 2 * N), z)


@jit
def interleave_scalars_kernel(X, Y, Z):
    z = tl.interleave(X, Y)
    tl.static_assert(z.shape == [tl.constexpr(2)])
    tl.store(Z + tl.arange(0, 2), z)


@jit
def split_kernel(X, Z1, Z2, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    x1 = tl.reshape(x, (N // 2, 2))
    z1, z2 = tl.split(x1)
    tl.store(Z1 + tl.arange(0, N // 2), z1)
    tl.store(Z2 + tl.arange(0, N // 2), z2)


@jit
def split_to_scalar_kernel(X, Z1, Z2):
    offs = tl.arange(0, 2)
    x = tl.load(X + offs)
    z1, z2 = tl.split(x)
    tl.static_assert(isinstance(z1, tl.tensor))
    tl.static_assert(isinstance(z2, tl.tensor))
    tl.static_assert(z1.shape == [])
    tl.static_assert(z2.shape == [])
    tl.store(Z1, z1)
    tl.store(Z2, z2)


@jit
def cat_kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    z = tl.cat(x, y, can_reorder=True)
    tl.store(Z + tl.arange(0, 2 * N), z)


@jit
def broadcast_pair_kernel(x_ptr, y_ptr, y_broadcasted_ptr, M: tl.constexpr, N: tl.constexpr):
    offset1 = tl.arange(0, M)
    offset2 = tl.arange(0, N)
    x = tl.load(x_ptr + N * offset1[:, None] + offset2[None, :])
    y = tl.load(y_ptr + offset2)
    _, y_broadcasted = tl.broadcast(x, y)
    tl.store(y_broadcasted_ptr + N * offset1[:, None] + offset2[None, :], y_broadcasted)


@jit
def reshape_0_kernel(Z, X, out_tuple: tl.constexpr):  # (64,) -> (8, 8)
    x = tl.load(X + tl.arange(0, 64)[:]*1)
    z = tl.reshape(x, out_tuple)
    tl.store(Z + tl.arange(0, 8)[None, :]*1 + tl.arange(0, 8)[:, None]*8, z)


@jit
def reshape_1_kernel(Z, X, out_tuple: tl.constexpr):  # (2, 32) -> (16, 4)
    x = tl.load(X + tl.arange(0, 32)[None, :]*1 + tl.arange(0, 2)[:, None]*32)
    z = tl.reshape(x, out_tuple)
    tl.store(Z + tl.arange(0, 4)[None, :]*1 + tl.arange(0, 16)[:, None]*4, z)


@jit
def reshape_2_kernel(Z, X, out_tuple: tl.constexpr):  # (512,) -> (2, 2, 2, 2, 2, 2, 2, 2, 2)
    x = tl.load(X + tl.arange(0, 512)[:]*1)
    z = tl.reshape(x, out_tuple)
    tl.store(Z + tl.arange(0, 2)[None, None, None, None, None, None, None, None, :]*1 + tl.arange(0, 2)[None, None, None, None, None, None, None, :, None]*2 + tl.arange(0, 2)[None, None, None, None, None, None, :, None, None]*4 + tl.arange(0, 2)[None, None, None, None, None, :, None, None, None]*8 + tl.arange(0, 2)[None, None, None, None, :, None, None, None, None]*16 + tl.arange(0, 2)[None, None, None, :, None, None, None, None, None]*32 + tl.arange(0, 2)[None, None, :, None, None, None, None, None, None]*64 + tl.arange(0, 2)[None, :, None, None, None, None, None, None, None]*128 + tl.arange(0, 2)[:, None, None, None, None, None, None, None, None]*256, z)


@jit
def reshape_3_kernel(Z, X, out_tuple: tl.constexpr):  # (64, 32) -> (16, 8, 16)
    x = tl.load(X + tl.arange(0, 32)[None, :]*1 + tl.arange(0, 64)[:, None]*32)
    z = tl.reshape(x, out_tuple)
    tl.store(Z + tl.arange(0, 16)[None, None, :]*1 + tl.arange(0, 8)[None, :, None]*16 + tl.arange(0, 16)[:, None, None]*128, z)


@jit
def reduce_kernel(X, Z, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, IS_3D: tl.constexpr,
                  AXIS: tl.constexpr, KEEP_DIMS: tl.constexpr, USE_I1: tl.constexpr, OP: tl.constexpr):
    range_m = tl.arange(0, BLOCK_M)
    range_n = tl.arange(0, BLOCK_N)
    range_k = tl.arange(0, BLOCK_K)
    if IS_3D:
        x = tl.load(X + range_m[:, None, None] * BLOCK_N * BLOCK_K + range_n[None, :, None] * BLOCK_K +
                    range_k[None, None, :])
    else:
        x = tl.load(X + range_m[:, None] * BLOCK_N + range_n[None, :])
    if USE_I1:
        x = tl.cast(x, tl.int1)
    z = getattr(tl, OP)(x, axis=AXIS, keep_dims=KEEP_DIMS)
    z_ptr = Z
    if KEEP_DIMS and AXIS is None:
        if IS_3D:
            z_ptr = z_ptr[None, None, None, :]
        else:
            z_ptr = z_ptr[None, None, :]
    if IS_3D:
        if AXIS == 0:
            z_ptr = Z + range_n[:, None] * BLOCK_K + range_k[None, :]
        elif AXIS == 1 or AXIS == -2:
            z_ptr = Z + range_m[:, None] * BLOCK_K + range_k[None, :]
        elif AXIS == 2 or AXIS == -1:
            z_ptr = Z + range_m[:, None] * BLOCK_N + range_n[None, :]
    else:
        if AXIS == 0:
            z_ptr = Z + range_n
        elif AXIS == 1 or AXIS == -1:
            z_ptr = Z + range_m
    if KEEP_DIMS and AXIS is not None:
        z_ptr = tl.expand_dims(z_ptr, axis=AXIS)
    tl.store(z_ptr, z)


@jit
def permute3d_kernel(X, P, T, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a, b, c = tl.arange(0, A), tl.arange(0, B), tl.arange(0, C)
    x = tl.load(X + a[:, None, None] * B * C + b[None, :, None] * C + c[None, None, :])
    p = tl.permute(x, (2, 0, 1))  # (C, A, B)
    tl.store(P + c[:, None, None] * A * B + a[None, :, None] * B + b[None, None, :], p)
    t = tl.trans(x)  # (A, C, B): without dims, the last two axes swap
    tl.store(T + a[:, None, None] * C * B + c[None, :, None] * B + b[None, None, :], t + 1)


@jit
def shape_ops_odd_kernel(X, Y, P, S0, S1, I, C, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0)
    y = tl.load(Y + offs, mask=mask, other=0)
    pairs = tl.load(P + offs[:, None] * 2 + tl.arange(0, 2)[None, :], mask=mask[:, None], other=-1)
    even, odd = pairs.split()
    tl.store(S0 + offs, even * 3, mask=mask)
    tl.store(S1 + offs, odd - even, mask=mask)
    both = tl.interleave(x, y + 1)
    io = 2 * tl.program_id(0) * BLOCK + tl.arange(0, 2 * BLOCK)
    tl.store(I + io, both, mask=io < 2 * n)
    z = tl.cat(x, y, can_reorder=True).view(2, BLOCK)
    tl.store(C + tl.arange(0, 2)[:, None] * n + offs[None, :], z, mask=mask[None, :])


@jit
def cat_no_reorder_kernel(X, Z, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(Z + tl.arange(0, 2 * N), tl.cat(x, x))


@jit
def split_odd_axis_kernel(X, Z, N: tl.constexpr):
    a, b = tl.split(tl.load(X + tl.arange(0, N)))
    tl.store(Z, a + b)


@jit
def join_types_kernel(X, Z, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(Z + tl.arange(0, 2 * N), tl.interleave(x, x.to(tl.float16)))


# --- Triton's value rules: test_empty_kernel, test_interleave's `@triton.jit(debug=debug)`, and metalforge's own:
# literals as tiles, jit keyword arguments, num_ctas, a 0-d output, atomics as the only output -------------------
@jit
def empty_kernel(X, SIZE: tl.constexpr):
    pass


@jit(debug=True)
def interleave_debug_kernel(Z, N: tl.constexpr):
    z = tl.interleave(tl.arange(0, N), tl.arange(N, 2 * N))
    tl.store(Z + tl.arange(0, 2 * N), z)


@jit(noinline=True)
def scaled_helper(x, factor):
    return x * factor


@jit(do_not_specialize=["n"], repr=None, launch_metadata=None)
def literal_rules_kernel(X, Z, D, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = 0
    tl.static_assert(acc.dtype == tl.int32)
    half = 0.5
    tl.static_assert(half.dtype == tl.float32)
    x = tl.load(X + offs, mask=offs < n, other=0)
    tl.static_assert(x.shape == [BLOCK])
    tl.static_assert(x.shape[:0] + [BLOCK] == (BLOCK,))
    acc += tl.sum(scaled_helper(x, 3), axis=0)
    tl.store(Z, acc.to(tl.int64))
    tl.store(D + offs, (x * half).to(x.dtype), mask=offs < n)


@jit
def zero_d_output_kernel(X, Z):
    tl.store(Z, tl.load(X) * 2)


@jit
def atomics_only_kernel(X, Counts, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bucket = tl.load(X + offs, mask=mask, other=0) % 4
    tl.atomic_add(Counts + bucket, 1, mask=mask)


# --- test_scan2d (Triton's combine functions and kernel; GENERATE_TEST_HERE written out per op) ---------------
@jit
def get_first_element(a, b):
    return a


@jit
def linear_recurrence(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@jit
def cummax(v0, i0, v1, i1):
    gt = v0 > v1
    return tl.where(gt, v0, v1), tl.where(gt, i0, i1)


@jit
def roll(a1, b1_last, b1_cur, a2, b2_last, b2_cur):
    return a1 + a2, tl.where(a2 == 1, b1_cur, 0) + b2_last, b2_cur


@jit
def scan2d_kernel(X, Y, Z, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr,
                  REVERSE: tl.constexpr):
    range_m = tl.arange(0, BLOCK_M)
    range_n = tl.arange(0, BLOCK_N)
    x = tl.load(X + range_m[:, None] * BLOCK_N + range_n[None, :])
    y = tl.load(Y + range_m[:, None] * BLOCK_N + range_n[None, :])
    if OP == "cumsum":
        z = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    elif OP == "cumprod":
        z = tl.cumprod(x, axis=AXIS, reverse=REVERSE)
    elif OP == "get_first_element":
        z = tl.associative_scan(x, axis=AXIS, combine_fn=get_first_element, reverse=REVERSE)
    elif OP == "cummax":
        if AXIS == 0:
            rg = tl.broadcast_to(range_m[:, None].to(tl.int64), [BLOCK_M, BLOCK_N])
        else:
            rg = tl.broadcast_to(range_n[None, :].to(tl.int64), [BLOCK_M, BLOCK_N])
        _, z = tl.associative_scan((x, rg), axis=AXIS, combine_fn=cummax, reverse=REVERSE)
    elif OP == "roll":
        _, z, _ = tl.associative_scan((1 + 0 * x, 0 * x, x), axis=AXIS, combine_fn=roll, reverse=REVERSE)
    else:
        _, z = tl.associative_scan((x, y), axis=AXIS, combine_fn=linear_recurrence, reverse=REVERSE)
    tl.store(Z + range_m[:, None] * BLOCK_N + range_n[None, :], z)


# --- test_generic_reduction (Welford's mean and M2 over a tuple, a 1-tuple and a single tile) ---------------------
@jit
def _welford_combine(mean_1, m2_1, weight_1, mean_2, m2_2, weight_2):
    delta = mean_2 - mean_1
    new_weight = weight_1 + weight_2
    w2_over_w = weight_2 / new_weight
    return (
        mean_1 + delta * w2_over_w,
        m2_1 + m2_2 + delta * delta * weight_1 * w2_over_w,
        new_weight,
    )


@jit
def _sum_combine(a, b):
    return a + b


@jit
def var_mean_kernel(X, out_mean, out_var, out_sum0, out_sum1, BLOCK: tl.constexpr):
    xindex = tl.arange(0, BLOCK)
    x = tl.load(X + xindex)
    mean = x
    m2 = tl.zeros_like(x)
    weight = tl.full(x.shape, 1, x.dtype)
    # Test return a tuple and a single value
    sum0, = tl.reduce((x, ), 0, _sum_combine)
    sum1 = tl.reduce(x, 0, _sum_combine)
    # Test multiple values in a tuple
    (mean, m2, weight) = tl.reduce((mean, m2, weight), 0, _welford_combine)
    tl.store(out_mean, mean)
    tl.store(out_var, m2 / weight)
    tl.store(out_sum0, sum0)
    tl.store(out_sum1, sum1)


# --- tuple reductions and scans on odd sizes, masked, several programs (metalforge's own) ----------------------
@jit
def _argmax_combine(v0, i0, v1, i1):
    take = (v1 > v0) | ((v1 == v0) & (i1 < i0))
    return tl.where(take, v1, v0), tl.where(take, i1, i0)


@jit
def tuple_odd_kernel(X, RowMax, RowArg, Mean, M2, CumMax, CumArg, n_rows, n_cols, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(X + offs, mask=mask, other=float("-inf"))
    idx = tl.broadcast_to(cols[None, :], [BLOCK_M, BLOCK_N])
    best, arg = tl.reduce((x, idx), 1, _argmax_combine)
    tl.store(RowMax + rows, best, mask=rows < n_rows)
    tl.store(RowArg + rows, arg, mask=rows < n_rows)
    present = mask.to(tl.float32)
    mean, m2, weight = tl.reduce((tl.where(mask, x, 0.0), tl.zeros_like(present), present), 1, _welford_safe)
    tl.store(Mean + rows, mean, mask=rows < n_rows)
    tl.store(M2 + rows, m2, mask=rows < n_rows)
    run, at = tl.associative_scan((x, idx), 1, cummax, reverse=True)
    tl.store(CumMax + offs, run, mask=mask)
    tl.store(CumArg + offs, at, mask=mask)


@jit
def _welford_safe(mean_1, m2_1, weight_1, mean_2, m2_2, weight_2):
    delta = mean_2 - mean_1
    new_weight = weight_1 + weight_2
    w2_over_w = tl.where(new_weight == 0, 0.0, weight_2 / new_weight)
    return mean_1 + delta * w2_over_w, m2_1 + m2_2 + delta * delta * weight_1 * w2_over_w, new_weight


@jit
def _one_of_two(a0, a1, b0, b1):
    return a0 + b0


@jit
def tuple_combine_error_kernel(X, Z, N: tl.constexpr, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    if WHICH == "count":
        s, t = tl.reduce((x, x), 0, _one_of_two)
    else:
        s, t = tl.associative_scan((x, tl.arange(0, N // 2)), 0, _sum_combine)
    tl.store(Z, s)


# --- tl.swizzle2d on tiles of odd sizes (metalforge's own) ------------------------------------------------------
@jit
def swizzle2d_tile_kernel(output, size_i, size_j, size_g, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    i = offs // size_j
    j = offs % size_j
    new_i, new_j = tl.swizzle2d(i, j, size_i, size_j, size_g)
    tl.store(output + new_i * size_j + new_j, offs, mask=offs < size_i * size_j)


# --- tl.flip and tl.gather (test_core.py's test_flip and test_gather, test_standard.py's test_flip) --------------
@jit
def flip_kernel(X, Z, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    offx = tl.arange(0, M) * N * K
    offy = tl.arange(0, N) * K
    offz = tl.arange(0, K)
    off3d = offx[:, None, None] + offy[None, :, None] + offz[None, None, :]
    x = tl.load(X + off3d)
    x = tl.flip(x, 1)
    tl.store(Z + off3d, x)


@jit
def flip_2d_kernel(X, Z, N: tl.constexpr, M: tl.constexpr):
    offx = tl.arange(0, M)
    offy = tl.arange(0, N) * M
    off2d = offx[None, :] + offy[:, None]
    x = tl.load(X + off2d)
    x = tl.flip(x)
    tl.store(Z + off2d, x)


@jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, axis: tl.constexpr, src_dim0: tl.constexpr, src_dim1: tl.constexpr,
                  src_stride0: tl.constexpr, src_stride1: tl.constexpr, idx_dim0: tl.constexpr,
                  idx_dim1: tl.constexpr, idx_stride0: tl.constexpr, idx_stride1: tl.constexpr,
                  out_dim0: tl.constexpr, out_dim1: tl.constexpr, out_stride0: tl.constexpr,
                  out_stride1: tl.constexpr):
    src_offs = (tl.arange(0, src_dim0)[:, None] * src_stride0 + tl.arange(0, src_dim1)[None, :] * src_stride1)
    src = tl.load(src_ptr + src_offs)

    idx_offs = (tl.arange(0, idx_dim0)[:, None] * idx_stride0 + tl.arange(0, idx_dim1)[None, :] * idx_stride1)
    idx = tl.load(idx_ptr + idx_offs)

    out = tl.gather(src, idx, axis)

    out_offs = (tl.arange(0, out_dim0)[:, None] * out_stride0 + tl.arange(0, out_dim1)[None, :] * out_stride1)
    tl.store(out_ptr + out_offs, out)


@jit
def flip_gather_odd_kernel(X, I, Flipped, Gathered, Reversed, n_rows, n_cols, BLOCK_M: tl.constexpr,
                           BLOCK_N: tl.constexpr):
    """metalforge's own: masked tiles of odd sizes, several programs; a flip of index arithmetic; a gather
    along rows by loaded indices and along columns of a flipped tile."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(X + offs, mask=mask, other=0)
    # row r of the flipped tile is row BLOCK_M - 1 - r of this program's rows
    back = tl.flip(x, 0)
    tl.store(Flipped + offs, back, mask=mask)
    idx = tl.load(I + offs, mask=mask, other=0)
    tl.store(Gathered + offs, tl.gather(x, idx, 1), mask=mask)
    # each row's valid columns in reverse order, through a flip of index arithmetic
    rev_idx = tl.where(mask, tl.flip(cols, 0)[None, :] - (BLOCK_N - n_cols), 0)
    tl.store(Reversed + offs, tl.gather(x, rev_idx, 1), mask=mask)


@jit
def gather_error_kernel(X, Z, N: tl.constexpr, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :])
    if WHICH == "shape":
        y = tl.gather(x, tl.zeros([N, 2 * N], tl.int32), 0)
    elif WHICH == "rank":
        y = tl.gather(x, tl.zeros([N], tl.int32), 0)
    elif WHICH == "float":
        y = tl.gather(x, x, 1)
    else:
        y = tl.flip(x, 2)
    tl.store(Z + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :], tl.sum(y, 1)[:, None] + x)


# --- Philox random numbers (test_random.py's kernels) ----------------------------------------------------------
BLOCK = tl.constexpr(1024)


@jit
def randint_kernel(X, N, seed):
    pid = tl.program_id(0).to(X.dtype.element_ty)
    offset = pid * BLOCK + tl.arange(0, BLOCK)
    rand = tl.randint(seed, offset)
    tl.store(X + offset, rand, mask=offset < N)


@jit
def randint_const_kernel(X, N, seed: tl.constexpr):
    pid = tl.program_id(0).to(X.dtype.element_ty)
    offset = pid * BLOCK + tl.arange(0, BLOCK)
    rand = tl.randint(seed, offset)
    tl.store(X + offset, rand, mask=offset < N)


@jit
def rand_kernel(X, N, seed, dtype: tl.constexpr):
    pid = tl.program_id(0).to(dtype)
    offset = pid * BLOCK + tl.arange(0, BLOCK)
    rand = tl.rand(seed, offset)
    tl.store(X + offset, rand, mask=offset < N)


@jit
def rand_const_kernel(X, N, seed: tl.constexpr, dtype: tl.constexpr):
    pid = tl.program_id(0).to(dtype)
    offset = pid * BLOCK + tl.arange(0, BLOCK)
    rand = tl.rand(seed, offset)
    tl.store(X + offset, rand, mask=offset < N)


@jit
def randn_kernel(X, N, seed, dtype: tl.constexpr):
    pid = tl.program_id(0).to(dtype)
    offset = pid * BLOCK + tl.arange(0, BLOCK)
    rand = tl.randn(seed, offset)
    tl.store(X + offset, rand, mask=offset < N)


@jit
def rand_limits_kernel(input, output, n: tl.constexpr):
    idx = tl.arange(0, n)
    x = tl.load(input + idx)
    y = tl.random.uint_to_uniform_float(x)
    tl.store(output + idx, y)


@jit
def random_streams_kernel(Offsets, Ints, Uniform, Normal, n, seed, BLOCK_N: tl.constexpr, N_ROUNDS: tl.constexpr):
    """metalforge's own: the four streams of randint4x/rand4x/randn4x at loaded (int64, odd) offsets, masked."""
    offs = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = offs < n
    offset = tl.load(Offsets + offs, mask=mask, other=0)
    i0, i1, i2, i3 = tl.randint4x(seed, offset, N_ROUNDS)
    u0, u1, u2, u3 = tl.rand4x(seed, offset, N_ROUNDS)
    n0, n1, n2, n3 = tl.random.randn4x(seed, offset, N_ROUNDS)
    tl.store(Ints + 4 * offs, i0, mask=mask)
    tl.store(Ints + 4 * offs + 1, i1, mask=mask)
    tl.store(Ints + 4 * offs + 2, i2, mask=mask)
    tl.store(Ints + 4 * offs + 3, i3, mask=mask)
    tl.store(Uniform + 4 * offs, u0, mask=mask)
    tl.store(Uniform + 4 * offs + 1, u1, mask=mask)
    tl.store(Uniform + 4 * offs + 2, u2, mask=mask)
    tl.store(Uniform + 4 * offs + 3, u3, mask=mask)
    tl.store(Normal + 4 * offs, n0, mask=mask)
    tl.store(Normal + 4 * offs + 1, n1, mask=mask)
    tl.store(Normal + 4 * offs + 2, n2, mask=mask)
    tl.store(Normal + 4 * offs + 3, n3, mask=mask)


@jit
def philox_error_kernel(X, seed, WHICH: tl.constexpr):
    offs = tl.arange(0, 16)
    if WHICH == "float":
        x = tl.randint(2.3, offs)
    elif WHICH == "tile":
        x = tl.randint(offs, offs)
    else:
        x, _, _, _ = tl.philox(seed, offs.to(tl.int64), 0, 0, 0)
    tl.store(X + offs, x)


# --- block pointers (test_block_pointer.py's kernels) ----------------------------------------------------------
@jit
def block_copy_kernel(a_ptr, b_ptr, N, BLOCK_SIZE: tl.constexpr, PADDING_OPTION: tl.constexpr,
                      TEST_LOWER_BOUND: tl.constexpr, TEST_UPPER_BOUND: tl.constexpr):
    pid = tl.program_id(0)
    offset = pid * BLOCK_SIZE
    if TEST_LOWER_BOUND:
        offset = -N
    elif TEST_UPPER_BOUND:
        offset = N
    # We only copy half of the data to see if the padding works
    a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(N // 2, ), strides=(1, ), offsets=(offset, ),
                                    block_shape=(BLOCK_SIZE, ), order=(0, ))
    b_block_ptr = tl.make_block_ptr(base=b_ptr, shape=(N, ), strides=(1, ), offsets=(offset, ),
                                    block_shape=(BLOCK_SIZE, ), order=(0, ))
    if PADDING_OPTION is None:
        a = tl.load(a_block_ptr, boundary_check=(0, ))
    else:
        a = tl.load(a_block_ptr, boundary_check=(0, ), padding_option=PADDING_OPTION)
    tl.store(b_block_ptr, a, boundary_check=(0, ))


@jit
def matmul_no_scf_with_advance_kernel(  #
        a_ptr, b_ptr, c_ptr,  #
        M, N, K,  #
        stride_am, stride_ak,  #
        stride_bk, stride_bn,  #
        stride_cm, stride_cn,  #
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr  #
):
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak), offsets=(0, 0),
                                    block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block_ptr = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn), offsets=(0, 0),
                                    block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    # Below two lines are just for testing negative offsets for the `advance` API, which could be removed
    a_block_ptr = tl.advance(a_block_ptr, (BLOCK_M, -BLOCK_K))
    a_block_ptr = tl.advance(a_block_ptr, (-BLOCK_M, BLOCK_K))
    a = tl.load(a_block_ptr, boundary_check=(1, ), padding_option="zero")
    b = tl.load(b_block_ptr, boundary_check=(0, ), padding_option="zero")

    c = tl.dot(a, b)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c)


@jit
def block_copy_3d_kernel(src_ptr, dst_ptr, dim0, dim1, dim2, stride0, stride1, stride2, BLOCK0: tl.constexpr,
                         BLOCK1: tl.constexpr, BLOCK2: tl.constexpr):
    src_block_ptr = tl.make_block_ptr(base=src_ptr, shape=(dim0, dim1, dim2), strides=(stride0, stride1, stride2),
                                      offsets=(dim0 - 1, 0, dim2 - 2), block_shape=(BLOCK0, BLOCK1, BLOCK2),
                                      order=(2, 1, 0))
    dst_block_ptr = tl.make_block_ptr(base=dst_ptr, shape=(dim0, dim1, dim2), strides=(stride0, stride1, stride2),
                                      offsets=(dim0 - 1, 0, dim2 - 2), block_shape=(BLOCK0, BLOCK1, BLOCK2),
                                      order=(2, 1, 0))
    values = tl.load(src_block_ptr, boundary_check=(0, 2), padding_option="zero")
    tl.store(dst_block_ptr, values, boundary_check=(0, 2))


@jit
def block_ptr_dtype_kernel(src_ptr, dst_ptr, N, BLOCK_SIZE: tl.constexpr):
    block_ptr = tl.make_block_ptr(base=src_ptr, shape=(N, ), strides=(1, ), offsets=(0, ), block_shape=(BLOCK_SIZE, ),
                                  order=(0, ))
    values = tl.load(block_ptr, boundary_check=(0, ), padding_option="zero").to(block_ptr.dtype.element_ty)
    tl.store(dst_ptr + tl.arange(0, BLOCK_SIZE), values)


@jit
def block_ptr_loops_kernel(X, RowSum, ColMax, T, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           COL_BLOCKS: tl.constexpr):
    """metalforge's own: block pointers carried by a for loop, a while loop and an if, on odd sizes; a
    transposed view (strides swapped); NaN padding."""
    pid = tl.program_id(0)
    rows = tl.make_block_ptr(X, (M, N), (N, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M,), tl.float32)
    for _ in range(COL_BLOCKS):  # a loop (constexpr bounds: Triton's interpreter cannot range over arguments)
        acc += tl.sum(tl.load(rows, boundary_check=(0, 1), padding_option="zero"), 1)
        rows = tl.advance(rows, (0, BLOCK_N))
    tl.store(tl.make_block_ptr(RowSum, (M,), (1,), (pid * BLOCK_M,), (BLOCK_M,), (0,)), acc, boundary_check=(0,))
    cols = tl.make_block_ptr(X, (N, M), (1, N), (pid * BLOCK_N, 0), (BLOCK_N, BLOCK_M), (0, 1))  # X transposed
    best = tl.full((BLOCK_N,), float("-inf"), tl.float32)
    start = 0
    while start < M:
        x = tl.load(cols, boundary_check=(0, 1), padding_option="nan")
        best = tl.maximum(best, tl.max(tl.where(x == x, x, float("-inf")), 1))
        tl.store(tl.make_block_ptr(T, (N, M), (M, 1), (pid * BLOCK_N, start), (BLOCK_N, BLOCK_M), (1, 0)), x,
                 boundary_check=(0, 1))
        if start % 2 == 0:
            cols = tl.advance(cols, (0, BLOCK_M))
        else:
            cols = tl.advance(cols, (0, BLOCK_M // 2))
            cols = tl.advance(cols, (0, BLOCK_M // 2))
        start += BLOCK_M
    tl.store(ColMax + pid * BLOCK_N + tl.arange(0, BLOCK_N), best, mask=pid * BLOCK_N + tl.arange(0, BLOCK_N) < N)


@jit
def block_ptr_error_kernel(X, N, WHICH: tl.constexpr):
    p = tl.make_block_ptr(X, (N,), (1,), (0,), (16,), (0,))
    if WHICH == "mask":
        x = tl.load(p, mask=tl.arange(0, 16) < N)
    elif WHICH == "padding":
        x = tl.load(p, boundary_check=(0,), padding_option="inf")
    elif WHICH == "axis":
        x = tl.load(p, boundary_check=(1,))
    elif WHICH == "pointer_tile":
        x = tl.load(X + tl.arange(0, 16), boundary_check=(0,))
    elif WHICH == "block_shape":
        x = tl.load(tl.make_block_ptr(X, (N,), (1,), (0,), (12,), (0,)))
    elif WHICH == "rank":
        x = tl.load(tl.make_block_ptr(X, (N, N), (1,), (0,), (16,), (0,)))
    else:  # "loop": a block pointer made anew in a loop
        x = tl.zeros((16,), tl.float32)
        for i in range(3):
            x += tl.load(p, boundary_check=(0,))
            p = tl.make_block_ptr(X, (N - 1,), (1,), (i,), (16,), (0,))
    tl.store(p, x, boundary_check=(0,))


# --- tl.sort (test_standard.py's test_sort) ----------------------------------------------------------------------
@jit
def sort_kernel(X, Z, N: tl.constexpr, M: tl.constexpr, descending: tl.constexpr):
    offx = tl.arange(0, M)
    offy = tl.arange(0, N) * M
    off2d = offx[None, :] + offy[:, None]
    x = tl.load(X + off2d)
    x = tl.sort(x, descending=descending)
    tl.store(Z + off2d, x)


@jit
def sort_odd_kernel(X, Up, Down, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """metalforge's own: rows of odd length padded with +inf (ascending) or -inf (descending), so the
    padding sorts past the row's end; several programs; a sort of index arithmetic."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(X + offs, mask=mask, other=float("inf"))
    tl.store(Up + offs, tl.sort(x), mask=mask)
    down = tl.sort(tl.where(mask, x, float("-inf")), dim=1, descending=True)
    tl.store(Down + offs, down + tl.sort(cols % 3, 0)[None, :].to(tl.float32) * 0, mask=mask)


@jit
def sort_error_kernel(X, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    if WHICH == "dim":
        x = tl.sort(x, dim=0)
    else:
        x = x + tl.sort(tl.sum(tl.sum(x, 1), 0))
    tl.store(X + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :], x)


# --- tl.topk (test_standard.py's test_topk kernel) ----------------------------------------------------------------
@jit
def topk_kernel(X, Z, N: tl.constexpr, M: tl.constexpr, K: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_x_n = tl.arange(0, N)
    offs_z_n = tl.arange(0, K)
    offs_x = offs_m[:, None] * N + offs_x_n[None, :]
    x = tl.load(X + offs_x)
    z = tl.topk(x, K)
    offs_z = offs_m[:, None] * K + offs_z_n[None, :]
    tl.store(Z + offs_z, z)


@jit
def topk_odd_kernel(X, Z, n_rows, n_cols, K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """metalforge's own: rows of odd length padded with -inf (it never ranks in the top k while k <=
    n_cols), several programs, a 3-D tile (dim=2) and rows of index arithmetic."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(X + rows[:, None] * n_cols + cols[None, :], mask=inside, other=float("-inf"))
    top = tl.reshape(tl.topk(tl.reshape(x, (BLOCK_M // 2, 2, BLOCK_N)), K, dim=2), (BLOCK_M, K))
    ranks = tl.topk(cols[None, :] * (rows[:, None] + 1) % 7 + 0 * rows[:, None], K)
    ks = tl.arange(0, K)
    out = Z + rows[:, None] * 2 * K + ks[None, :]
    tl.store(out, top, mask=rows[:, None] < n_rows)
    tl.store(out + K, ranks.to(tl.float32), mask=rows[:, None] < n_rows)


@jit
def topk_error_kernel(X, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    if WHICH == "dim":
        x = x + tl.sum(tl.topk(x, 2, dim=0), 0)[None, :]
    elif WHICH == "k":
        x = x + tl.sum(tl.topk(x, 3), 1)[:, None]
    else:
        x = x + tl.topk(tl.sum(tl.sum(x, 1), 0), 1)
    tl.store(X + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :], x)


# --- tl.histogram (test_core.py's test_histogram and test_histogram_mask kernels) ---------------------------------
@jit
def histogram_kernel(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    offset1 = tl.arange(0, M)
    offset2 = tl.arange(0, N)
    x = tl.load(x_ptr + offset1)
    z = tl.histogram(x, N)
    bias = tl.full([M, N], 1, dtype=tl.int32)
    # check that histogram produces object compatible with broadcasting
    biased = z + bias
    tl.store(z_ptr + offset2, z)


@jit
def histogram_mask_kernel(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    offset1 = tl.arange(0, 2 * M)
    offset2 = tl.arange(0, N)
    mask = offset1 < M
    x = tl.load(x_ptr + offset1)
    z = tl.histogram(x, N, mask)
    tl.store(z_ptr + offset2, z)


@jit
def histogram_odd_kernel(X, Z, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    """metalforge's own: each program counts its block of a length-n input (a masked tail) into its own
    row, as a method and with a mask, then a histogram of index arithmetic (offs % 5) plus 1."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0)
    row = Z + pid * 2 * BINS + tl.arange(0, BINS)
    tl.store(row, x.histogram(BINS, mask=offs < n))
    tl.store(row + BINS, tl.histogram(offs % 5, BINS, offs < n) + 1)


@jit
def histogram_error_kernel(X, Z, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, 16))
    if WHICH == "float":
        h = tl.histogram(x.to(tl.float32), 8)
    elif WHICH == "rank":
        h = tl.sum(tl.reshape(tl.histogram(tl.reshape(x, (4, 4)), 8), (8, 1)), 1)
    elif WHICH == "bins":
        h = tl.histogram(x, 6)
    else:
        h = tl.histogram(x, 8, mask=x)
    tl.store(Z + tl.arange(0, 8), h)


# --- 3-D tl.dot, int8 and float16 accumulation (test_core.py's test_dot3d kernel) ----------------------------------
@jit
def dot3d_kernel(q_ptr, k_ptr, o_ptr, stride_qb, stride_qm, stride_qk, stride_kb, stride_kk, stride_kn, stride_ob,
                 stride_om, stride_on, BLOCK_B: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr, INPUT_PRECISION: tl.constexpr, out_dtype: tl.constexpr = tl.float32):
    startm = tl.program_id(0) * BLOCK_M
    startn = tl.program_id(1) * BLOCK_N
    offs_b = tl.arange(0, BLOCK_B)
    offs_m = startm + tl.arange(0, BLOCK_M)
    offs_n = startn + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    q_ptrs = q_ptr + offs_b[:, None, None] * stride_qb + offs_m[None, :, None] * stride_qm + offs_k[
        None, None, :] * stride_qk
    k_ptrs = k_ptr + offs_b[:, None, None] * stride_kb + offs_k[None, :, None] * stride_kk + offs_n[
        None, None, :] * stride_kn
    q = tl.load(q_ptrs)
    k = tl.load(k_ptrs)
    qk = tl.dot(q, k, input_precision=INPUT_PRECISION, out_dtype=out_dtype)
    o_ptrs = o_ptr + offs_b[:, None, None] * stride_ob + offs_m[None, :, None] * stride_om + offs_n[
        None, None, :] * stride_on
    tl.store(o_ptrs, qk)


@jit
def dot_out_dtype_kernel(X, Y, Z, M, N, K: tl.constexpr, OUT: tl.constexpr, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """metalforge's own: a K loop accumulating in OUT (out_dtype) over masked odd-sized tiles (K constexpr:
    Triton 3.6's interpreter cannot take a run-time loop bound under numpy 2)."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=OUT)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + rm[:, None] * K + ks[None, :], mask=(rm[:, None] < M) & (ks[None, :] < K), other=0)
        y = tl.load(Y + ks[:, None] * N + rn[None, :], mask=(ks[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(x, y, acc, out_dtype=OUT)
    tl.store(Z + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# --- fp16/bf16 atomics (test_core.py's test_atomic_rmw kernel, GENERATE_TEST_HERE written out per op) ----------
@jit
def atomic_rmw_add_kernel(X, Z, SEM: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    old = tl.atomic_add(Z, x, sem=SEM)
    tl.static_assert(old.dtype == x.dtype)


@jit
def atomic_rmw_max_kernel(X, Z, SEM: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    old = tl.atomic_max(Z, x, sem=SEM)
    tl.static_assert(old.dtype == x.dtype)


@jit
def half_atomics_odd_kernel(X, Sum, Doubled, Y, Count, n, BLOCK: tl.constexpr):
    """metalforge's own: 16-bit atomics on both halves of shared words (neighbouring elements), masked,
    several programs; a plain 16-bit store and an int32 atomic in the same kernel."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0)
    tl.atomic_add(Sum + offs % 7, x, mask=mask)
    old = tl.atomic_add(Doubled + offs, x * 2, mask=mask)  # Triton has fp16 add and cas only
    tl.store(Y + offs, old + x, mask=mask)
    tl.atomic_add(Count, tl.sum(mask.to(tl.int32), 0))


@jit
def half_rmw_kernel(X, Z, Old, OP: tl.constexpr):
    """metalforge's own (Triton has fp16 add and cas only, and its interpreter's fp16 cas misses): one
    program per element of X on Z's two halves of a word; each program's old value."""
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    if OP == "max":
        old = tl.atomic_max(Z + pid % 2, x)
    elif OP == "min":
        old = tl.atomic_min(Z + pid % 2, x)
    elif OP == "xchg":
        old = tl.atomic_xchg(Z + pid % 2, x)
    else:  # cas: the first program of each half sets it, the others find it set
        old = tl.atomic_cas(Z + pid % 2, 0.0, x)
    tl.store(Old + pid, old)


@jit
def byte_atomics_kernel(X, Z):
    tl.atomic_add(Z, tl.load(X))


# --- unsupported Triton features are named (metalforge's own) ------------------------------------------------------
@jit
def bitwise_atomics_kernel(X, Rows, Cols, Bits, n, M: tl.constexpr, N: tl.constexpr, OP: tl.constexpr):
    """metalforge's own: tl.xor_sum and tl.reduce_or along each axis, and tl.atomic_and/or/xor from
    every lane of several programs into 4 words (masked at an odd n)."""
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    tl.store(Rows + tl.arange(0, M), tl.xor_sum(x, axis=1))
    tl.store(Cols + tl.arange(0, N), tl.reduce_or(x, 0))
    i = tl.program_id(0) * M * N + offs
    y = tl.load(X + i % (M * N), mask=i < n)
    if OP == "and":
        tl.atomic_and(Bits + i % 4, y, mask=i < n)
    elif OP == "or":
        tl.atomic_or(Bits + i % 4, y, mask=i < n)
    else:
        tl.atomic_xor(Bits + i % 4, y, mask=i < n)


@jit
def descriptor_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """metalforge's own: blocks of a tensor descriptor at odd sizes, read with zero padding past the
    edges (both axes) and stored back clipped, through the method and the function forms."""
    src = tl.make_tensor_descriptor(X, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(Z, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    m0 = tl.program_id(0) * BM
    n0 = tl.program_id(1) * BN
    block = src.load([m0, n0])
    padded = tl.sum(tl.where(block == 0, 1, 0))  # zeros read past the edges (the input has none)
    tl.store_tensor_descriptor(dst, [m0, n0], block * 2 + padded.to(block.dtype))
    again = tl.load_tensor_descriptor(dst, [m0, n0])
    dst.store([m0, n0], again - padded.to(block.dtype))


@jit
def unsupported_kernel(X, Z, FEATURE: tl.constexpr, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    if FEATURE == "dot_scaled":
        x = tl.dot_scaled(x, None, "e4m3", x, None, "e4m3")
    tl.store(Z + tl.arange(0, N), x)
