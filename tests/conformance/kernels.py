"""The conformance kernels: one text, run by Triton's interpreter and by metalforge.

Never imported as a module: `harness.load_kernels` executes this file twice, once with `tl` and `jit`
bound to `triton.language`/`triton.jit` and once to `metalforge.language`/`metalforge.jit`, so both
sides compile exactly these bodies. Write them as Triton kernels (no metalforge-only spelling).
Constexpr parameters named like `OUT`/`DST` receive a dtype (each side's own `tl.<name>`).
"""
# ruff: noqa: F821  (`tl` and `jit` are bound by the harness)


# --- integer and float division ------------------------------------------------------------------
@jit
def divmod_kernel(a_ptr, b_ptr, q_ptr, r_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    tl.store(q_ptr + offs, a // b, mask=mask)
    tl.store(r_ptr + offs, a % b, mask=mask)


@jit
def divmod_const_kernel(a_ptr, q_ptr, r_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    tl.store(q_ptr + offs, a // D, mask=mask)
    tl.store(r_ptr + offs, a % D, mask=mask)


@jit
def float_mod_kernel(x_ptr, y_ptr, r_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(r_ptr + offs, x % y, mask=mask)


@jit
def float_floordiv_kernel(x_ptr, y_ptr, r_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(r_ptr + offs, x // y, mask=mask)


@jit
def true_div_kernel(a_ptr, b_ptr, out_ptr, n, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    q = a / b
    tl.static_assert(q.dtype == OUT)
    tl.store(out_ptr + offs, q, mask=mask)


# --- signed op unsigned ----------------------------------------------------------------------------
@jit
def mixed_sign_kernel(a_ptr, b_ptr, add_ptr, sub_ptr, mul_ptr, lt_ptr, max_ptr, n,
                      OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    s = a + b
    tl.static_assert(s.dtype == OUT)
    tl.store(add_ptr + offs, s, mask=mask)
    tl.store(sub_ptr + offs, a - b, mask=mask)
    tl.store(mul_ptr + offs, a * b, mask=mask)
    tl.store(lt_ptr + offs, (a < b).to(tl.int32), mask=mask)
    tl.store(max_ptr + offs, tl.maximum(a, b), mask=mask)


@jit
def mixed_sign_div_kernel(a_ptr, b_ptr, r_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    if OP == "//":
        r = a // b
    elif OP == "%":
        r = a % b
    else:
        r = a / b
    tl.store(r_ptr + offs, r, mask=mask)


# --- shifts and bitwise ----------------------------------------------------------------------------
@jit
def shift_kernel(a_ptr, s_ptr, shr_ptr, shl_ptr, shr3_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    s = tl.load(s_ptr + offs, mask=mask, other=0)
    tl.store(shr_ptr + offs, a >> s, mask=mask)
    tl.store(shl_ptr + offs, a << s, mask=mask)
    tl.store(shr3_ptr + offs, a >> 3, mask=mask)


@jit
def bitwise_kernel(a_ptr, b_ptr, and_ptr, or_ptr, xor_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    tl.store(and_ptr + offs, a & b, mask=mask)
    tl.store(or_ptr + offs, a | b, mask=mask)
    tl.store(xor_ptr + offs, a ^ b, mask=mask)


@jit
def invert_kernel(a_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, ~tl.load(a_ptr + offs, mask=mask, other=0), mask=mask)


@jit
def negate_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, -x, mask=mask)


@jit
def wrap_kernel(a_ptr, b_ptr, add_ptr, mul_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    tl.store(add_ptr + offs, a + b, mask=mask)
    tl.store(mul_ptr + offs, a * b, mask=mask)


# --- math functions ----------------------------------------------------------------------------------
@jit
def unary_math_kernel(x_ptr, y_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    if FN == "exp":
        y = tl.exp(x)
    elif FN == "exp2":
        y = tl.exp2(x)
    elif FN == "log":
        y = tl.log(x)
    elif FN == "log2":
        y = tl.log2(x)
    elif FN == "sqrt":
        y = tl.sqrt(x)
    elif FN == "rsqrt":
        y = tl.rsqrt(x)
    elif FN == "sin":
        y = tl.sin(x)
    elif FN == "cos":
        y = tl.cos(x)
    elif FN == "erf":
        y = tl.erf(x)
    elif FN == "floor":
        y = tl.floor(x)
    elif FN == "ceil":
        y = tl.ceil(x)
    elif FN == "sigmoid":
        y = tl.sigmoid(x)
    else:
        y = tl.abs(x)
    tl.store(y_ptr + offs, y, mask=mask)


@jit
def ternary_math_kernel(x_ptr, y_ptr, z_ptr, fma_ptr, clamp_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    z = tl.load(z_ptr + offs, mask=mask, other=0.0)
    tl.store(fma_ptr + offs, tl.fma(x, y, z), mask=mask)
    tl.store(clamp_ptr + offs, tl.clamp(x, -0.5, 0.75), mask=mask)


@jit
def const_minmax_clamp_kernel(x_ptr, max_ptr, clamp_ptr, n, S: tl.constexpr, LO: tl.constexpr, HI: tl.constexpr,
                              OUT: tl.constexpr, CLAMPED: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    hi = tl.maximum(x, S)  # S is a tile of its own type first (Triton's core.py), not a weak constant
    tl.static_assert(hi.dtype == OUT)
    tl.store(max_ptr + offs, hi * 3, mask=mask)
    if CLAMPED:
        c = tl.clamp(x, LO, HI)
        tl.static_assert(c.dtype == OUT)
        tl.store(clamp_ptr + offs, c, mask=mask)


# --- type promotion ---------------------------------------------------------------------------------
@jit
def binop_promote_kernel(x_ptr, y_ptr, add_ptr, mul_ptr, n, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.load(y_ptr + offs, mask=mask, other=0)
    s = x + y
    p = x * y
    tl.static_assert(s.dtype == OUT)
    tl.static_assert(p.dtype == OUT)
    tl.store(add_ptr + offs, s, mask=mask)
    tl.store(mul_ptr + offs, p, mask=mask)


@jit
def const_promote_kernel(x_ptr, out_ptr, n, S: tl.constexpr, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    z = x * S
    tl.static_assert(z.dtype == OUT)
    tl.store(out_ptr + offs, z, mask=mask)


@jit
def const_mul_kernel(x_ptr, out_ptr, n, S: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, x * S, mask=mask)


@jit
def sum_dtype_kernel(x_ptr, sum_ptr, scan_ptr, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    total = tl.sum(x, axis=0, dtype=DT)  # a given dtype is the sum's: no widening of narrow integers
    scan = tl.cumsum(x, axis=0, dtype=DT)
    tl.static_assert(total.dtype == DT)
    tl.static_assert(scan.dtype == DT)
    tl.store(sum_ptr + offs, total + tl.zeros((BLOCK,), DT), mask=offs < 1)
    tl.store(scan_ptr + offs, scan, mask=offs < n)


@jit
def const_where_kernel(x_ptr, out_ptr, n, S: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, tl.where(x > 0, x, S), mask=mask)


@jit
def scalar_arg_promote_kernel(x_ptr, out_ptr, s, n, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    z = x * s
    tl.static_assert(z.dtype == OUT)
    tl.store(out_ptr + offs, z, mask=mask)


@jit
def minmax_promote_kernel(x_ptr, y_ptr, mn_ptr, mx_ptr, n, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.load(y_ptr + offs, mask=mask, other=0)
    lo = tl.minimum(x, y)
    hi = tl.maximum(x, y)
    tl.static_assert(lo.dtype == OUT)
    tl.static_assert(hi.dtype == OUT)
    tl.store(mn_ptr + offs, lo, mask=mask)
    tl.store(mx_ptr + offs, hi, mask=mask)


@jit
def where_promote_kernel(x_ptr, out_ptr, n, S: tl.constexpr, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    z = tl.where(x > 0, x, S)
    tl.static_assert(z.dtype == OUT)
    tl.store(out_ptr + offs, z, mask=mask)


# --- stores and casts -------------------------------------------------------------------------------
@jit
def store_convert_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


@jit
def cast_kernel(x_ptr, out_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x.to(DST)
    tl.static_assert(y.dtype == DST)
    tl.store(out_ptr + offs, y, mask=mask)


@jit
def downcast_rounding_kernel(x_ptr, out_ptr, n, DST: tl.constexpr, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(DST, fp_downcast_rounding=MODE), mask=mask)


@jit
def bitcast_kernel(x_ptr, out_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(DST, bitcast=True), mask=mask)


@jit
def element_ty_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x * 3).to(out_ptr.dtype.element_ty), mask=mask)


# --- masked loads, NaN ----------------------------------------------------------------------------------
@jit
def masked_other_kernel(x_ptr, out_ptr, n, OTHER: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=OTHER)
    tl.store(out_ptr + offs, x)


@jit
def nan_kernel(x_ptr, y_ptr, sel_ptr, cmp_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(sel_ptr + offs, tl.where(x > y, x, y), mask=mask)
    bits = (x < y).to(tl.int32) + 2 * (x == y).to(tl.int32) + 4 * (x != y).to(tl.int32) + 8 * (x != x).to(tl.int32)
    tl.store(cmp_ptr + offs, bits, mask=mask)


# --- reductions and scans -------------------------------------------------------------------------------
@jit
def reduce_dtype_kernel(x_ptr, sum_ptr, max_ptr, min_ptr, n, LOW: tl.constexpr, HIGH: tl.constexpr,
                        SUM_T: tl.constexpr, MAX_T: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.sum(tl.load(x_ptr + offs, mask=mask, other=0), axis=0)
    hi = tl.max(tl.load(x_ptr + offs, mask=mask, other=LOW), axis=0)
    lo = tl.min(tl.load(x_ptr + offs, mask=mask, other=HIGH), axis=0)
    tl.static_assert(s.dtype == SUM_T)
    tl.static_assert(hi.dtype == MAX_T)
    tl.static_assert(lo.dtype == MAX_T)
    tl.store(sum_ptr, s)
    tl.store(max_ptr, hi)
    tl.store(min_ptr, lo)


@jit
def argreduce_kernel(x_ptr, amax_ptr, amin_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    i = tl.argmax(tl.load(x_ptr + offs, mask=mask, other=-1.0e30), axis=0)
    j = tl.argmin(tl.load(x_ptr + offs, mask=mask, other=1.0e30), axis=0)
    tl.static_assert(i.dtype == tl.int32)
    tl.static_assert(j.dtype == tl.int32)
    tl.store(amax_ptr, i)
    tl.store(amin_ptr, j)


@jit
def reduce_2d_kernel(x_ptr, s0_ptr, s1_ptr, m0_ptr, m1_ptr, a1_ptr, k1_ptr, tot_ptr, M, N, stride_m,
                     BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_m + rn[None, :], mask=mask, other=0.0)
    xm = tl.where(mask, x, -1.0e30)
    tl.store(s0_ptr + rn, tl.sum(x, axis=0), mask=rn < N)
    tl.store(s1_ptr + rm, tl.sum(x, axis=1), mask=rm < M)
    tl.store(m0_ptr + rn, tl.max(xm, axis=0), mask=rn < N)
    tl.store(m1_ptr + rm, tl.max(xm, axis=1), mask=rm < M)
    tl.store(a1_ptr + rm, tl.argmax(xm, axis=1), mask=rm < M)
    k = tl.min(tl.where(mask, x, 1.0e30), axis=1, keep_dims=True)
    tl.store(k1_ptr + rm[:, None] + rn[None, :] * 0, k, mask=(rm[:, None] < M) & (rn[None, :] < 1))
    tl.store(tot_ptr, tl.sum(x))


@jit
def cumsum_kernel(x_ptr, out_ptr, n, OUT: tl.constexpr, REVERSE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    c = tl.cumsum(x, axis=0, reverse=REVERSE)
    tl.static_assert(c.dtype == OUT)
    tl.store(out_ptr + offs, c, mask=mask)


@jit
def cumsum_2d_kernel(x_ptr, c0_ptr, c1_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    ptrs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + ptrs, mask=mask, other=0)
    tl.store(c0_ptr + ptrs, tl.cumsum(x, axis=0), mask=mask)
    tl.store(c1_ptr + ptrs, tl.cumsum(x, axis=1), mask=mask)


@jit
def _max_abs_combine(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@jit
def user_reduce_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rm, tl.reduce(x, 1, _max_abs_combine), mask=rm < M)


# --- broadcasting and tile shapes ------------------------------------------------------------------------
@jit
def broadcast_kernel(a_ptr, b_ptr, out_ptr, t_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    a = tl.load(a_ptr + rm, mask=rm < M, other=0)
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    o = a[:, None] * b[None, :] + a[:, None]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], o, mask=mask)
    tl.store(t_ptr + rn[:, None] * M + rm[None, :], tl.trans(o), mask=tl.trans(mask))
