"""Triton's own unit tests (test_core.py, Triton 3.6), ported: kernels in triton_port_kernels.py, run
on Triton's interpreter and on metalforge (both emulator schedules), inputs from a printed seed.

Parametrised as Triton parametrises them; where Triton's numpy reference is written inline it is
repeated here, so that Triton's interpreter is checked against it too.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("torch", reason="conformance suite needs torch and triton: pip install -e '.[conformance]'")
pytest.importorskip("triton", reason="conformance suite needs torch and triton: pip install -e '.[conformance]'")

from .harness import BF16, CONFORMANCE_BACKEND, DT, NP, Out, bf16_round, compare  # noqa: E402

INT = ["int8", "int16", "int32", "int64"]
UINT = ["uint8", "uint16", "uint32", "uint64"]
SIZE = 128  # _test_binary's


def promote(a: str, b: str) -> str:
    """Triton's integer promotion: wider wins, unsigned wins at equal width."""
    ba, bb = NP[a](0).itemsize, NP[b](0).itemsize
    if ba != bb:
        return a if ba > bb else b
    return a if a.startswith("u") else b


def random_ints(rng, dtype: str, n: int, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    info = np.iinfo(NP[dtype])
    return rng.integers(info.min if lo is None else lo, info.max if hi is None else hi, size=n, endpoint=True,
                        dtype=np.int64 if dtype != "uint64" else np.uint64).astype(NP[dtype])


def refused(both, kernel: str, message: str, *args, **consts) -> str:
    """metalforge refuses `kernel` (launched on one program) with a KernelDefinitionError containing
    `message`, naming the kernel, its file and the fix; the error text."""
    from metalforge.errors import KernelDefinitionError
    with pytest.raises(KernelDefinitionError, match=re.escape(message)) as e:
        both.mf.run(kernel, (1,), *args, **consts)
    text = str(e.value)
    assert kernel in text and "triton_port_kernels.py" in text and "fix:" in text, text
    return text


# --- test_shift_op -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype_x,dtype_y,op", [(x, y, op) for op in ["<<", ">>"] for x in INT + UINT for y in UINT])
def test_shift_op(both, rng, dtype_x, dtype_y, op):
    """Triton picks the shift from x's type before promotion: int32 >> uint32 is arithmetic."""
    bw = max(NP[dtype_x](0).itemsize, NP[dtype_y](0).itemsize) * 8
    dtype_z = f"{'int' if dtype_x.startswith('int') else 'uint'}{bw}"
    x = random_ints(rng, dtype_x, SIZE)
    y = random_ints(rng, dtype_y, SIZE, 0, bw - 1)
    with np.errstate(over="ignore"):
        xz, yz = x.astype(NP[dtype_z]), y.astype(NP[dtype_z])
        z = (xz << yz if op == "<<" else xz >> yz).astype(NP[promote(dtype_x, dtype_y)])
    out = Out(SIZE, promote(dtype_x, dtype_y))
    both.check("shl_kernel" if op == "<<" else "shr_kernel", (1,), (out, x, y), [z], consts={"SIZE": SIZE})
    if op == ">>":
        with np.errstate(over="ignore"):
            z = (xz >> yz[0]).astype(NP[promote(dtype_x, dtype_y)])
        both.check("shr_broadcast_rhs_kernel", (1,), (out, x, y), [z], consts={"SIZE": SIZE})


# --- stores read back ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,block", [(1, 16), (77, 128), (100, 128)])
def test_store_then_load_sees_the_value(both, rng, n, block):
    """Triton runs a program's statements in order: a load after a store reads the stored value, also
    where another thread of the threadgroup stored it (thread 0 for a scalar)."""
    x = random_ints(rng, "int32", n, 0, 1000)
    i = int(x.max()) % n
    rev = x[::-1]
    out = np.concatenate([x[(np.arange(n) + i) % n], rev * 2, rev + 1])
    both.check("store_reload_kernel", (1,), (x, Out(1, "int32"), Out(3 * n, "int32"), n),
               [np.array([i], np.int32), out], consts={"BLOCK": block})


@pytest.mark.parametrize("n,steps", [(37, 3), (64, 2)])
def test_store_then_load_across_loop_iterations(both, n, steps):
    a = np.arange(n, dtype=np.int32)
    for _ in range(steps):
        b = a[::-1] * 2 + 1
        a = b[::-1].copy()
    both.check("loop_reload_kernel", (1,), (Out(2 * n, "int32"), n), [np.concatenate([a, b])],
               consts={"STEPS": steps, "BLOCK": 64})


# --- control flow -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("if_type", ["if", "if_and_dynamic", "if_exp_static", "if_exp_dynamic", "if_exp_dynamic_constexpr",
                                     "if_exp_dynamic_void", "if_and_static", "if_or_dynamic"])
def test_if(both, if_type):
    cond = np.ones(1, np.int32)
    x_true, x_false = np.array([3.14], np.float32), np.array([1.51], np.float32)
    both.check("if_kernel", (1,), (cond, x_true, x_false, Out(1, "float32", 0.0)), [x_true],
               consts={"IfType": if_type, "BoolVar": True, "StaticVaue": 1})


@pytest.mark.parametrize("cond1,cond2,cond3", [(a, b, c) for a in (True, False) for b in (True, False)
                                               for c in (True, False)])
def test_nested_if_else_return(both, cond1, cond2, cond3):
    conds = [np.array([c], np.int32) for c in (cond1, cond2, cond3)]
    vals = [np.array([v], np.int32) for v in (1, 2, 3)]
    want = -1 if cond1 and not cond2 else (1 if cond1 else (2 if cond3 else 3))
    both.check("nested_if_else_return_kernel", (1,), (*conds, *vals, Out(1, "int32", -1)),
               [np.array([want], np.int32)])


def test_while(both):
    init_i, bound, cut_off = (np.full(1, v, np.int32) for v in (1, 10, 5))
    both.check("while_kernel", (1,), (init_i, bound, cut_off, *[Out(1, "int32", 0)] * 3),
               [init_i + 1, init_i, bound])


def test_nested_while(both):
    count = np.array([8], np.int32)
    both.check("nested_while_kernel", (1,), (Out(1, "float32", 0.0), count), [np.array([40.0], np.float32)])


@pytest.mark.parametrize("start,end,step", [(0, 10, 3), (1, 8, 2), (10, 0, -3), (3, 3, 1)])
def test_static_range(both, start, end, step):
    both.check("static_range_kernel", (1,), (Out(1, "int32", 0),),
               [np.array([sum(range(start, end, step))], np.int32)], consts={"START": start, "END": end, "STEP": step})


@pytest.mark.parametrize("lo,hi,iv", [(2**35, 2**35 + 20, 1), (2**35, 2**35 + 20, 3), (15, -16, -1), (15, -16, -3),
                                      (-18, -22, -1), (22, 18, -1)])
def test_for_iv(both, lo, hi, iv):
    both.check("for_iv_kernel", (1,), (Out(1, "int64"),), [np.array([sum(range(lo, hi, iv))], np.int64)],
               consts={"LO": lo, "HI": hi, "iv": iv})


@pytest.mark.parametrize("n", [1, 63, 157])
def test_early_return_guard(both, rng, n):
    """More programs than blocks: the extra ones return first; a returning branch after a reduction."""
    block = 32
    x = rng.uniform(-1, 1, n).astype(np.float32)
    want = np.empty(n, np.float32)
    for pid in range(-(-n // block)):
        s = slice(pid * block, (pid + 1) * block)
        want[s] = -x[s] if x[s].sum() < 0 else x[s] + (1.0 if pid % 2 == 0 else 2.0)
    both.check("guard_return_kernel", (-(-n // block) + 3,), (x, Out(n, "float32"), n), [want],
               consts={"BLOCK": block}, rtol=1e-6)


# --- math and casts ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype_str", ["int32", "uint32"])
def test_umulhi(both, rng, dtype_str):
    x, y = random_ints(rng, dtype_str, 128), random_ints(rng, dtype_str, 128)
    wide = (x.astype(object) * y.astype(object)) >> 32
    z = np.array([int(v) & 0xFFFFFFFF for v in wide], np.uint64).astype(np.uint32).view(NP[dtype_str])
    both.check("umulhi_kernel", (1,), (x, y, Out(128, dtype_str)), [z], consts={"N": 128})


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("propagate_nan", ["NONE", "ALL"])
@pytest.mark.parametrize("func", ["minimum", "maximum", "clamp"])
@pytest.mark.parametrize("mode", ["A", "B", "both"])
def test_propagate_nan(both, rng, dtype, propagate_nan, func, mode):
    if func == "clamp" and mode == "B":
        pytest.skip("Triton's test skips it too")
    a, b = (np.abs(rng.standard_normal(1)).astype(NP[dtype]) for _ in range(2))
    if mode in ("A", "both"):
        a[0] = np.nan
    if mode in ("B", "both"):
        b[0] = np.nan
    nan = mode == "both" or propagate_nan == "ALL"  # Triton's test: NaN exactly then
    consts = {"propagate_nan": propagate_nan, "func": func}
    if nan:
        both.check("propagate_nan_kernel", (1,), (a, b, Out(1, dtype)), [np.full(1, np.nan, NP[dtype])],
                   consts=consts)
    else:  # Triton's interpreter computes np.minimum (NaN) here; Triton on GPUs, and its test, the number
        for schedule in ("forward", "reverse"):
            got, = both.mf.run("propagate_nan_kernel", (1,), a, b, Out(1, dtype), schedule=schedule, **consts)
            assert not np.isnan(got[0]), got


MATH_NAMESPACE = {"abs": np.abs, "ceil": np.ceil, "cos": np.cos, "erf": np.vectorize(__import__("math").erf),
                  "exp": np.exp, "exp2": np.exp2, "floor": np.floor, "log": np.log, "log2": np.log2,
                  "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "sqrt": np.sqrt, "sqrt_rn": np.sqrt,
                  "div_rn": None, "fdiv": None, "fma": None}


@pytest.mark.parametrize("fn", sorted(MATH_NAMESPACE))
def test_math_namespace(both, rng, fn):
    n = 157
    x = rng.uniform(0.1, 4, n).astype(np.float32)
    y = rng.uniform(0.5, 3, n).astype(np.float32)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    want = (x64 * y64 + x64 if fn == "fma" else x64 / y64 if fn in ("div_rn", "fdiv")
            else MATH_NAMESPACE[fn](x64)).astype(np.float32)
    both.check("math_namespace_kernel", (3,), (x, y, Out(n, "float32"), n), [want],
               consts={"FN": fn, "BLOCK": 64}, rtol=2e-6, atol=2e-6)


def test_cast_bitcast_zeros_like(both, rng):
    n = 157
    x = rng.uniform(-100, 100, n).astype(np.float32)
    both.check("cast_like_kernel", (3,), (x, Out(n, "int32"), Out(n, "uint32"), Out(n, "float32"), n),
               [x.astype(np.int32), x.view(np.uint32), np.sqrt(np.abs(x))], consts={"BLOCK": 64})


# --- shape ops -----------------------------------------------------------------------------------------------------
def test_join(both):
    x, y = np.arange(0, 128, dtype=np.int32), np.arange(-128, 0, dtype=np.int32)
    both.check("join_kernel", (1,), (x, y, Out((128, 2), "int32")), [np.stack([x, y], axis=-1)], consts={"N": 128})


def test_join_scalars(both):
    x, y = np.full(1, 42, np.int32), np.full(1, 100, np.int32)
    both.check("join_scalars_kernel", (1,), (x, y, Out(2, "float32")), [np.array([42, 100], np.float32)])


def test_join_with_mma(both):
    x = np.arange(0, 32 * 16, dtype=np.float32).reshape((32, 16))
    r = np.stack([x, 2 * x], axis=-1).reshape((32, 32)).astype(np.float64)
    both.check("join_with_mma_kernel", (1,), (x, Out((32, 32), "float32")), [(r @ r).astype(np.float32)], rtol=1e-5)


def test_interleave(both):
    want = np.stack([np.arange(0, 128), np.arange(128, 256)], axis=-1).reshape(256).astype(np.int32)
    both.check("interleave_kernel", (1,), (Out(256, "int32"),), [want], consts={"N": 128})


def test_interleave_scalars(both):
    both.check("interleave_scalars_kernel", (1,), (10, 20, Out(2, "float32")), [np.array([10, 20], np.float32)])


def test_split(both):
    x = np.arange(0, 256, dtype=np.int32).reshape((128, 2))
    both.check("split_kernel", (1,), (x, Out(128, "int32"), Out(128, "int32")), [x[:, 0], x[:, 1]], consts={"N": 256})


def test_split_to_scalar(both):
    x = np.arange(0, 2, dtype=np.int64).reshape(1, 2)
    both.check("split_to_scalar_kernel", (1,), (x, Out(1, "int64"), Out(1, "int64")), [x[:, 0], x[:, 1]])


@pytest.mark.parametrize("dtype_str", INT + ["float16", "float32"])
@pytest.mark.parametrize("num_warps", [4, 8])
def test_cat(both, dtype_str, num_warps):
    """Triton's test checks only the sum and that no value repeats (cat may reorder); metalforge, like
    Triton's interpreter, concatenates in order, which is checked exactly."""
    x, y = np.arange(0, 128).astype(NP[dtype_str]), np.arange(-128, 0).astype(NP[dtype_str])
    z, = both.check("cat_kernel", (1,), (x, y, Out(256, dtype_str)), [np.concatenate([x, y])], consts={"N": 128},
                    num_warps=num_warps)
    assert len(np.unique(z)) == z.size


@pytest.mark.parametrize("dtype", INT + UINT + ["float16", "float32"])
def test_broadcast(both, rng, dtype):
    m, n = 32, 64
    x = (random_ints(rng, dtype, m * n) if dtype in INT + UINT else rng.standard_normal(m * n)).astype(NP[dtype])
    y = (random_ints(rng, dtype, n) if dtype in INT + UINT else rng.standard_normal(n)).astype(NP[dtype])
    x = x.reshape(m, n)
    both.check("broadcast_pair_kernel", (1,), (x, y, Out((m, n), dtype)), [np.broadcast_arrays(x, y)[1]],
               consts={"M": m, "N": n})


RESHAPES = [((64, ), (8, 8)), ((2, 32), (16, 4)), ((512, ), (2, 2, 2, 2, 2, 2, 2, 2, 2)), ((64, 32), (16, 8, 16))]


@pytest.mark.parametrize("i", range(len(RESHAPES)))
def test_reshape(both, rng, i):
    in_format, out_format = RESHAPES[i]
    x = random_ints(rng, "int32", int(np.prod(in_format))).reshape(in_format)
    both.check(f"reshape_{i}_kernel", (1,), (Out(out_format, "int32"), x), [x.reshape(out_format)],
               consts={"out_tuple": out_format})


KEEP_DIMS = ([(op, (32, 32), axis) for op in ["min", "max", "sum", "argmin", "argmax"] for axis in [0, 1]]
             + [(op, (32, 32), None) for op in ["min", "max", "sum"]]
             + [(op, (32, 2, 16), axis) for op in ["min", "max", "sum", "argmin", "argmax"] for axis in [0, 1, 2]]
             + [(op, (32, 2, 16), None) for op in ["min", "max", "sum"]])


@pytest.mark.parametrize("op,shape,axis", KEEP_DIMS)
def test_reduce_keep_dims(both, rng, op, shape, axis):
    """test_reduce's keep_dims configs: the output pointers get their axes from `Z[None, None, :]` (of a
    scalar pointer) or tl.expand_dims."""
    x = rng.standard_normal(shape).astype(np.float32)
    fn = {"min": np.min, "max": np.max, "sum": np.sum, "argmin": np.argmin, "argmax": np.argmax}[op]
    want = fn(x.astype(np.float64) if op == "sum" else x, axis=axis, keepdims=True)
    want = want.astype(np.int32 if op.startswith("arg") else np.float32)
    consts = {"BLOCK_M": shape[0], "BLOCK_N": shape[1], "BLOCK_K": shape[2] if len(shape) == 3 else 1,
              "IS_3D": len(shape) == 3, "AXIS": axis, "KEEP_DIMS": True, "USE_I1": False, "OP": op}
    both.check("reduce_kernel", (1,), (x, Out(want.shape, want.dtype.name)), [want], consts=consts,
               rtol=1e-5 if op == "sum" else 0, atol=1e-5 if op == "sum" else 0)


@pytest.mark.parametrize("a,b,c", [(2, 4, 8), (4, 2, 16)])
def test_permute_3d(both, rng, a, b, c):
    x = random_ints(rng, "int32", a * b * c, -1000, 1000).reshape(a, b, c)
    both.check("permute3d_kernel", (1,), (x, Out((c, a, b), "int32"), Out((a, c, b), "int32")),
               [x.transpose(2, 0, 1), x.transpose(0, 2, 1) + 1], consts={"A": a, "B": b, "C": c})


@pytest.mark.parametrize("n", [1, 37, 100])
def test_shape_ops_odd_sizes(both, rng, n):
    """split of loaded pairs, interleave, cat + view, with masks and several programs."""
    block = 32
    x, y = (random_ints(rng, "int32", n, -1000, 1000) for _ in range(2))
    p = random_ints(rng, "int32", 2 * n, -1000, 1000).reshape(n, 2)
    both.check("shape_ops_odd_kernel", (-(-n // block),),
               (x, y, p, Out(n, "int32"), Out(n, "int32"), Out(2 * n, "int32"), Out((2, n), "int32"), n),
               [p[:, 0] * 3, p[:, 1] - p[:, 0], np.stack([x, y + 1], -1).reshape(-1), np.stack([x, y])],
               consts={"BLOCK": block})


def test_cat_without_can_reorder_is_refused(both):
    _, ours = both.raises("cat_no_reorder_kernel", (1,), (np.zeros(8, np.int32), Out(16, "int32")), consts={"N": 8})
    assert "can_reorder=True" in str(ours)


def test_split_needs_a_last_axis_of_two(both):
    _, ours = both.raises("split_odd_axis_kernel", (1,), (np.zeros(4, np.int32), Out(1, "int32")), consts={"N": 4})
    assert "last axis has size 2" in str(ours) and "tl.reshape" in str(ours)


def test_join_of_two_types_is_refused(both):
    """Triton's compiler rejects it (its interpreter promotes, with numpy): metalforge names the types."""
    from metalforge.errors import KernelDefinitionError
    with pytest.raises(KernelDefinitionError, match="tl.join needs operands of one type") as e:
        both.mf.run("join_types_kernel", (1,), np.zeros(4, np.float32), Out(8, "float32"), N=4)
    assert "join_types_kernel" in str(e.value) and "triton_port_kernels.py" in str(e.value)


# --- Triton's value rules -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype_x", INT + UINT + ["float16", "float32"])
def test_empty_kernel(both, rng, dtype_x):
    """A kernel with no outputs launches (and returns nothing)."""
    x = (random_ints(rng, dtype_x, 128) if dtype_x in INT + UINT else rng.standard_normal(128)).astype(NP[dtype_x])
    both.check("empty_kernel", (1,), (x,), [], consts={"SIZE": 128})
    assert both.mf.k.empty_kernel[(1,)](both.mf.mx.array(x), SIZE=128) is None


def test_interleave_debug(both):
    want = np.stack([np.arange(0, 128), np.arange(128, 256)], axis=-1).reshape(256).astype(np.int32)
    both.check("interleave_debug_kernel", (1,), (Out(256, "int32"),), [want], consts={"N": 128})


@pytest.mark.parametrize("n", [1, 45])
def test_literals_and_jit_arguments(both, rng, n):
    """Literals are tiles (`acc = 0; acc.dtype`), shapes equal lists, `@jit(...)` takes Triton's keyword
    arguments (noinline, do_not_specialize, repr, launch_metadata), and num_ctas=1 is accepted."""
    x = random_ints(rng, "int32", n, -1000, 1000)
    both.check("literal_rules_kernel", (1,), (x, Out(1, "int64"), Out(n, "int32"), n),
               [np.array([3 * x.sum()], np.int64), (x * 0.5).astype(np.int32)], consts={"BLOCK": 64, "num_ctas": 1})


def test_num_ctas_other_than_one_is_refused(both):
    from metalforge.errors import LaunchConfigError
    with pytest.raises(LaunchConfigError, match="num_ctas=2.*use num_ctas=1") as e:
        both.mf.run("zero_d_output_kernel", (1,), np.ones(1, np.float32), Out((), "float32"), num_ctas=2)
    assert "zero_d_output_kernel" in str(e.value)


def test_zero_d_output(both):
    both.check("zero_d_output_kernel", (1,), (np.array(21.5, np.float32), Out((), "float32")),
               [np.array(43.0, np.float32)])


@pytest.mark.parametrize("n", [1, 77, 300])
def test_atomics_as_the_only_output(both, rng, n):
    x = random_ints(rng, "int32", n, 0, 1000)
    both.check("atomics_only_kernel", (-(-n // 64),), (x, Out(4, "int32", 0), n),
               [np.bincount(x % 4, minlength=4).astype(np.int32)], consts={"BLOCK": 64})


# --- tl.reduce and tl.associative_scan over tuples, tl.cumprod, reverse= ---------------------------------------------
# Triton's (2, 1024), (1024, 2) and (1, 1024) too: minutes each on the emulator, left out
SCAN2D_SHAPES = [(8, 32), (16, 32), (32, 16), (32, 32)]
SCAN_CONFIGS = [(op, dtype, shape, axis, reverse, num_warps)
                for num_warps in [4]  # Triton's 16 too; the scan sweeps rows in threadgroup memory either way
                for dtype in ["int32", "float32"]
                for axis in [1, 0]
                for reverse in [True, False]
                for shape in SCAN2D_SHAPES
                for op in ["cumsum", "cumprod", "get_first_element", "linear_recurrence", "cummax", "roll"]]


def scan2d_reference(op: str, x: np.ndarray, y: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    """test_scan2d's numpy reference, for one op (Triton writes it inline)."""
    x_in = np.flip(x, axis) if reverse else x
    if op in ("cumsum", "cumprod"):
        with np.errstate(over="ignore"):
            z = (np.cumsum if op == "cumsum" else np.cumprod)(x_in, axis=axis).astype(x.dtype)
        return np.flip(z, axis) if reverse else z
    if op == "cummax":
        n = x.shape[axis]
        arange = np.arange(n).reshape((-1, 1) if axis == 0 else (1, -1))
        running = np.maximum.accumulate(x_in, axis=axis)
        # torch.cummax's index: the last position holding the running maximum so far
        hit = np.where(x_in == running, np.broadcast_to(arange, x.shape), -1)
        z = np.maximum.accumulate(hit, axis=axis).astype(np.int64)
        return n - np.flip(z, axis) - 1 if reverse else z
    if op == "roll":
        z = np.roll(x_in.copy(), 1, axis=axis)
        if axis == 0:
            z[:1] = 0
        else:
            z[:, :1] = 0
        return np.flip(z, axis) if reverse else z
    if op == "linear_recurrence":
        x_ref, y_ref = (x.T, y.T) if axis == 0 else (x, y)
        if reverse:
            x_ref, y_ref = np.flip(x_ref, 1), np.flip(y_ref, 1)
        acc, rows = np.zeros(x_ref.shape[0], x.dtype), []
        for xi, yi in zip(x_ref.T, y_ref.T):
            acc = xi * acc + yi
            rows.append(acc)
        z = np.stack(rows, 1)
        z = np.flip(z, 1) if reverse else z
        return np.ascontiguousarray(z.T if axis == 0 else z)
    z = x.copy()  # get_first_element
    if axis == 0:
        if reverse:
            z[:-1] = x[-1]
        else:
            z[1:] = x[0]
    elif reverse:
        z[:, :-1] = x[:, -1:]
    else:
        z[:, 1:] = x[:, 0:1]
    return z


@pytest.mark.parametrize("op,dtype_str,shape,axis,reverse,num_warps",
                         SCAN_CONFIGS + [("linear_recurrence", "float32", (32, 16), 1, True, 16)])
def test_scan2d(both, rng, op, dtype_str, shape, axis, reverse, num_warps):
    """Triton's test_scan2d (bfloat16 left out: Triton's interpreter skips it)."""
    if op == "linear_recurrence" and dtype_str == "int32":
        x, y = (rng.integers(-1, 2, shape).astype(np.int32) for _ in range(2))
    elif dtype_str == "int32":
        x, y = (rng.integers(-10, 10, shape).astype(np.int32) for _ in range(2))
    else:
        x, y = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    if op == "cumprod" and dtype_str == "float32":
        x = (np.sign(x) * (0.9 + 0.2 * np.abs(x) / (1 + np.abs(x)))).astype(np.float32)  # keeps products finite
    want = scan2d_reference(op, x, y, axis, reverse)
    tol = {} if dtype_str == "int32" else {"rtol": 1e-2, "atol": 1e-3 if op == "cumprod" else 0}
    both.check("scan2d_kernel", (1,), (x, y, Out(shape, want.dtype.name)), [want],
               consts={"BLOCK_M": shape[0], "BLOCK_N": shape[1], "AXIS": axis, "OP": op, "REVERSE": reverse,
}, num_warps=num_warps, **tol)


def test_generic_reduction(both, rng):
    """Triton's test_generic_reduction: Welford's mean and M2 through tl.reduce over a 3-tuple, and a sum
    over a 1-tuple (a 1-tuple back) and over a single tile."""
    x = rng.random(512).astype(np.float32)
    x64 = x.astype(np.float64)
    want = [np.array(v, np.float32) for v in (x64.mean(), x64.var(), x64.sum(), x64.sum())]
    both.check("var_mean_kernel", (1,), (x, *(Out((), "float32") for _ in range(4))), want,
               consts={"BLOCK": 512}, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n_rows,n_cols", [(1, 1), (5, 37), (19, 100)])
def test_tuple_reduce_and_scan_odd_sizes(both, rng, n_rows, n_cols):
    """Argmax with its index and Welford over masked tiles of odd sizes, several programs; a reversed
    tuple cummax (ties to the later index, as Triton's cummax combine does)."""
    x = rng.integers(-5, 5, (n_rows, n_cols)).astype(np.float32)  # small integers: ties happen
    arg = np.argmax(x, axis=1).astype(np.int32)
    rev = np.flip(x, 1)
    running = np.maximum.accumulate(rev, axis=1)
    cols = np.arange(n_cols)[::-1]
    # the reversed scan's combine keeps the right-hand (earlier) index unless the left value is greater
    at = np.empty_like(x, dtype=np.int32)
    for r in range(n_rows):
        best, idx = rev[r, 0], cols[0]
        for j in range(n_cols):
            if j and not (best > rev[r, j]):
                best, idx = rev[r, j], cols[j]
            at[r, j] = idx
    x64 = x.astype(np.float64)
    want = [x.max(1), arg, x64.mean(1).astype(np.float32), (x64.var(1) * n_cols).astype(np.float32),
            np.flip(running, 1).copy(), np.flip(at, 1).copy()]
    block_m = 4
    both.check("tuple_odd_kernel", (-(-n_rows // block_m),),
               (x, Out(n_rows, "float32"), Out(n_rows, "int32"), Out(n_rows, "float32"), Out(n_rows, "float32"),
                Out((n_rows, n_cols), "float32"), Out((n_rows, n_cols), "int32"), n_rows, n_cols),
               want, consts={"BLOCK_M": block_m, "BLOCK_N": 128}, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("which,message", [
    ("count", "returns 1 value(s) for 2 tile(s)"),
    ("shape", "combines tiles of one shape"),
])
def test_tuple_combine_errors_name_the_kernel(both, which, message):
    refused(both, "tuple_combine_error_kernel", message, np.ones(8, np.float32), Out(1, "float32"), N=8, WHICH=which)


# --- tl.swizzle2d ---------------------------------------------------------------------------------------------------
def swizzled_order(size_i: int, size_j: int, size_g: int) -> np.ndarray:
    """Where each row-major index lands: column-major within groups of size_g rows (numpy's own)."""
    out = np.empty((size_i, size_j), np.int32)
    for start in range(0, size_i, size_g):
        rows = min(size_g, size_i - start)
        order = np.arange(start * size_j, (start + rows) * size_j).reshape(size_j, rows).T
        out[start:start + rows] = order
    return out


@pytest.mark.parametrize("size_i,size_j,size_g", [(1, 1, 1), (5, 7, 3), (9, 13, 4), (16, 8, 16)])
def test_swizzle2d_tiles_odd_sizes(both, size_i, size_j, size_g):
    both.check("swizzle2d_tile_kernel", (1,), (Out((size_i, size_j), "int32", -1), size_i, size_j, size_g),
               [swizzled_order(size_i, size_j, size_g)], consts={"BLOCK": 128})


# --- tl.flip and tl.gather ---------------------------------------------------------------------------------------
def numpy_random(rng, shape, dtype_str: str):
    """Triton's numpy_random, as the tests here use it: integers over a small range, floats normal."""
    if dtype_str == "int32":
        return rng.integers(-1000, 1000, shape).astype(np.int32)
    x = rng.standard_normal(shape).astype(np.float32)
    return bf16_round(x) if dtype_str == "bfloat16" else x.astype(NP[dtype_str])


def as_input(x: np.ndarray, dtype_str: str):
    return BF16(x) if dtype_str == "bfloat16" else x


@pytest.mark.parametrize("M,N,K", [[1, 16, 64], [8, 2, 256], [32, 1, 2], [128, 8, 1]])
@pytest.mark.parametrize("dtype_str", ["int32", "float16", "float32", "bfloat16"])
def test_flip(both, rng, M, N, K, dtype_str):
    x = numpy_random(rng, (M, N, K), dtype_str)
    both.check("flip_kernel", (1,), (as_input(x, dtype_str), Out((M, N, K), dtype_str)), [np.flip(x, 1).copy()],
               consts={"M": M, "N": N, "K": K}, num_warps=8)


@pytest.mark.parametrize("M,N", [[1, 512], [8, 64]])
def test_flip_without_dim(both, rng, M, N):
    """test_standard.py's test_flip calls tl.flip(x) (the last axis), which Triton 3.6's interpreter fails on
    (its flip compares dim=None with an int): metalforge only, against numpy."""
    x = numpy_random(rng, (N, M), "float32")
    compare(both.mf.run("flip_2d_kernel", (1,), x, Out((N, M), "float32"), N=N, M=M)[0], np.flip(x, 1),
            "tl.flip(x)")


@pytest.mark.parametrize("src_shape,indices_shape,axis", [([4, 4], [8, 4], 0), ([128, 64], [256, 64], 0),
                                                          ([128, 64], [128, 128], 1)])
def test_gather(both, rng, src_shape, indices_shape, axis):
    src = rng.standard_normal(src_shape).astype(np.float32)
    idx = rng.integers(0, src_shape[axis], indices_shape).astype(np.int64)  # torch.randint's int64
    strides = lambda shape: (shape[1], 1)  # noqa: E731 (contiguous)
    consts = {"axis": axis}
    for name, shape in (("src", src_shape), ("idx", indices_shape), ("out", indices_shape)):
        consts.update({f"{name}_dim0": shape[0], f"{name}_dim1": shape[1], f"{name}_stride0": strides(shape)[0],
                       f"{name}_stride1": strides(shape)[1]})
    both.check("gather_kernel", (1,), (src, idx, Out(indices_shape, "float32")),
               [np.take_along_axis(src, idx, axis)], consts=consts)


@pytest.mark.parametrize("n_rows,n_cols", [(1, 1), (5, 37), (19, 64)])
def test_flip_gather_odd_sizes(both, rng, n_rows, n_cols):
    block_m, block_n = 8, 64
    x = rng.integers(-1000, 1000, (n_rows, n_cols)).astype(np.int32)
    idx = rng.integers(0, n_cols, (n_rows, n_cols)).astype(np.int32)
    padded = np.zeros((-(-n_rows // block_m) * block_m, n_cols), np.int32)
    padded[:n_rows] = x
    flipped = padded.reshape(-1, block_m, n_cols)[:, ::-1].reshape(-1, n_cols)[:n_rows]
    both.check("flip_gather_odd_kernel", (-(-n_rows // block_m),),
               (x, idx, *(Out((n_rows, n_cols), "int32") for _ in range(3)), n_rows, n_cols),
               [flipped, np.take_along_axis(x, idx, 1), x[:, ::-1].copy()],
               consts={"BLOCK_M": block_m, "BLOCK_N": block_n})


@pytest.mark.parametrize("which,message", [
    ("shape", "index must match src in every axis but 0"),
    ("rank", "src and index tiles of one rank"),
    ("float", "needs an integer index tile"),
    ("flip", "axis 2 is out of range for a tile of rank 2"),
])
def test_flip_gather_errors_name_the_kernel(both, which, message):
    refused(both, "gather_error_kernel", message, np.ones(16, np.float32), Out((4, 4), "float32"), N=4, WHICH=which)


# --- Philox random numbers (test_random.py) ------------------------------------------------------------------------
M32 = 0xFFFFFFFF


def philox_reference(seed: int, c0: np.ndarray, c1: np.ndarray, n_rounds: int = 10) -> list[np.ndarray]:
    """Triton's philox_impl for 32-bit counters (c0, c1, 0, 0) and key (the seed's low, high word), in
    numpy uint64 (every product of two 32-bit words is exact there); the four uint32 words."""
    A, B, mask = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57), np.uint64(M32)
    c = [c0.astype(np.uint64) & mask, c1.astype(np.uint64) & mask, np.zeros(c0.shape, np.uint64),
         np.zeros(c0.shape, np.uint64)]
    s = seed & 0xFFFFFFFFFFFFFFFF
    k0, k1 = np.uint64(s & M32), np.uint64(s >> 32)
    for _ in range(n_rounds):
        p_b, p_a = B * c[2], A * c[0]
        c = [(p_b >> np.uint64(32)) ^ c[1] ^ k0, p_b & mask, (p_a >> np.uint64(32)) ^ c[3] ^ k1, p_a & mask]
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & mask, (k1 + np.uint64(0xBB67AE85)) & mask
    return [w.astype(np.uint32) for w in c]


def randint4x_reference(seed: int, offsets: np.ndarray, n_rounds: int = 10) -> list[np.ndarray]:
    """Triton's randint4x: the counter is the offset's low word, its high word (0 for 32-bit offsets), 0, 0."""
    wide = offsets.astype(np.int64).view(np.uint64)
    hi = wide >> np.uint64(32) if offsets.dtype.itemsize > 4 else np.zeros_like(wide)
    return philox_reference(seed, wide, hi, n_rounds)


def uniform_reference(x: np.ndarray) -> np.ndarray:
    """Triton's uint_to_uniform_float (fp32 product, as the kernel computes it)."""
    signed = x.view(np.int32 if x.dtype.itemsize == 4 else np.int64)
    folded = np.where(signed < 0, ~signed, signed)
    scale = np.float32(4.6566127342e-10 if x.dtype.itemsize == 4 else 1.0842020432385337e-19)
    return folded.astype(np.float32) * scale


def normal_reference(u1: np.ndarray, u2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Triton's pair_uniform_to_normal (Box-Muller) in float64."""
    u1 = np.maximum(1e-7, u1.astype(np.float64))
    r, th = np.sqrt(-2 * np.log(u1)), 6.283185307179586 * u2.astype(np.float64)
    return (r * np.cos(th)).astype(np.float32), (r * np.sin(th)).astype(np.float32)


# Box-Muller in float32: r <= sqrt(-2 ln 1e-7) < 5.7; th's rounding (2^-24 of 2pi < 4e-7) and a few ulp
# from log, sqrt and cos each give |error| < 5.7 * 1e-6
NORMAL_ATOL = 1e-5


@pytest.mark.parametrize("size,seed,dtype,const_seed", [(size, seed, dtype, const_seed)
                                                        for size in ["10", "4,53", "400"]
                                                        for seed in [0, 42, 124, 54, 0xffffffff, 0x0000000fcafeb0ba]
                                                        for dtype in ["int32", "int64"]
                                                        for const_seed in [True, False]])
def test_randint(both, size, seed, dtype, const_seed):
    """test_random.py's test_randint: the numbers are Philox-4x32's for (offset, 0, 0, 0), bit for bit."""
    shape = tuple(map(int, size.split(",")))
    n = int(np.prod(shape))
    want = randint4x_reference(seed, np.arange(n, dtype=NP[dtype]))[0].astype(NP[dtype]).reshape(shape)
    both.check("randint_const_kernel" if const_seed else "randint_kernel", (-(-n // 1024),),
               (Out(shape, dtype), n) if const_seed else (Out(shape, dtype), n, seed), [want],
               consts={"seed": seed} if const_seed else {})


@pytest.mark.parametrize("seed,dtype,const_seed", [(seed, dtype, const_seed) for seed in [0, 42, 124, 54]
                                                   for dtype in ["int32", "int64"] for const_seed in [True, False]])
def test_rand(both, seed, dtype, const_seed):
    """test_random.py's test_rand on 3001 numbers (Triton's 100000: emulator time), against the exact
    reference instead of a KS statistic."""
    n = 3001
    want = uniform_reference(randint4x_reference(seed, np.arange(n, dtype=NP[dtype]))[0])
    assert ((want >= 0) & (want < 1)).all()
    consts = {"dtype": DT(dtype), **({"seed": seed} if const_seed else {})}
    both.check("rand_const_kernel" if const_seed else "rand_kernel", (-(-n // 1024),),
               (Out(n, "float32"), n) + (() if const_seed else (seed,)), [want], consts=consts)


@pytest.mark.parametrize("seed,dtype", [(seed, dtype) for seed in [0, 42] for dtype in ["int32", "int64"]])
def test_randn(both, seed, dtype):
    """test_random.py's test_randn (non-constexpr seeds; 3001 numbers), against Box-Muller in float64."""
    n = 3001
    words = randint4x_reference(seed, np.arange(n, dtype=NP[dtype]))
    want = normal_reference(uniform_reference(words[0]), uniform_reference(words[1]))[0]
    both.check("randn_kernel", (-(-n // 1024),), (Out(n, "float32"), n, seed), [want], consts={"dtype": DT(dtype)},
               atol=NORMAL_ATOL)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_rand_limits(both, dtype):
    info = np.iinfo(NP[dtype])
    x = np.array([info.min, info.max], NP[dtype])
    out = both.check("rand_limits_kernel", (1,), (x, Out(2, "float32")), [uniform_reference(x)], consts={"n": 2})[0]
    assert out[0] == out[1] and 1.0 - np.finfo(np.float32).eps <= out[0] < 1.0


@pytest.mark.parametrize("n,n_rounds", [(1, 10), (77, 10), (300, 7)])
def test_random_streams_odd_sizes(both, rng, n, n_rounds):
    """randint4x, rand4x and randn4x at int64 offsets beyond 2**32 (the high word is Philox's second
    counter word), a 64-bit seed, masked tails, several programs."""
    seed = int(rng.integers(2**32, 2**62))
    offsets = rng.integers(-2**40, 2**40, n).astype(np.int64)
    words = randint4x_reference(seed, offsets, n_rounds)
    uniform = [uniform_reference(w) for w in words]
    normal = [*normal_reference(uniform[0], uniform[1]), *normal_reference(uniform[2], uniform[3])]
    stack = lambda ws: np.stack(ws, 1).reshape(-1)  # noqa: E731 (stream j of offset i at 4 * i + j)
    ours = both.check("random_streams_kernel", (-(-n // 64),),
                      (offsets, Out(4 * n, "uint32"), Out(4 * n, "float32"), Out(4 * n, "float32"), n, seed),
                      [stack(words), stack(uniform), None], consts={"BLOCK_N": 64, "N_ROUNDS": n_rounds})
    compare(ours[2], stack(normal), "randn4x vs Box-Muller in float64", atol=NORMAL_ATOL)


@pytest.mark.parametrize("which,message", [
    ("float", "tl.philox needs an integer scalar seed"),
    ("tile", "tl.philox needs an integer scalar seed"),
    ("counter", "tl.philox takes 32-bit integer counters here"),
])
def test_philox_errors_name_the_kernel(both, which, message):
    refused(both, "philox_error_kernel", message, Out(16, "uint32"), 7, WHICH=which)


# --- block pointers (test_block_pointer.py) ------------------------------------------------------------------------
@pytest.mark.parametrize("dtypes_str,n,padding_option,boundary_check", [
    (dtypes_str, n, padding, boundary_check)
    for dtypes_str in (("bool", "bool"), ("int16", "int16"), ("int32", "int32"), ("float16", "float16"),
                       ("float32", "float32"))  # and bfloat16, which Triton's interpreter skips
    for n in (64, 1024)  # Triton's 128, 256, 512 too: the same programs, more of them
    for padding in (None, "zero", "nan")
    for boundary_check in (None, "lower", "upper")
    if not (dtypes_str[0] in ("bool", "int16", "int32") and padding == "nan")  # Triton skips these
])
def test_block_copy(both, rng, dtypes_str, n, padding_option, boundary_check):
    """The first half of a copied through a block pointer of half a's length: the second half is padding
    (zero for padding_option None and "zero", as Triton's interpreter gives), nothing at all out of bounds."""
    dtype = dtypes_str[0]
    if dtype in ("bool", "int16", "int32"):
        a = rng.integers(0, 2, n).astype(NP[dtype])
    else:
        a = numpy_random(rng, n, dtype)
    want = np.zeros(n, np.float32 if dtype == "bfloat16" else NP[dtype])
    if boundary_check is None:
        want[:n // 2] = a[:n // 2]
        if padding_option == "nan":
            want[n // 2:] = np.nan
    both.check("block_copy_kernel", (-(-n // 64),), (as_input(a, dtype), Out(n, dtype, 0), n), [want],
               consts={"BLOCK_SIZE": 64, "PADDING_OPTION": padding_option,
                       "TEST_LOWER_BOUND": boundary_check == "lower", "TEST_UPPER_BOUND": boundary_check == "upper"})


@pytest.mark.parametrize("shape,num_warps", [(shape, num_warps) for shape in [[64, 64, 16], [64, 64, 32], [64, 64, 64]]
                                             for num_warps in [4, 8]])
def test_block_ptr_matmul_no_scf(both, rng, shape, num_warps):
    m, n, k = shape
    a, b = (rng.standard_normal(s).astype(np.float16) for s in ((m, k), (k, n)))
    # fp16 products are exact in fp32; k fp32 additions of terms below |a||b| each: k * 2^-24 * sum|a_i b_i|
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    both.check("matmul_no_scf_with_advance_kernel", (1,),
               (a, b, Out((m, n), "float32"), m, n, k, k, 1, n, 1, n, 1), [want],
               consts={"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k}, num_warps=num_warps, rtol=1e-5, atol=k * 6e-8 * 16)


def test_block_ptr_rank_3(both):
    src = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)
    expected = np.zeros_like(src)
    expected[2:3, 0:4, 3:5] = src[2:3, 0:4, 3:5]
    both.check("block_copy_3d_kernel", (1,), (src, Out((3, 4, 5), "float32", 0), 3, 4, 5, 20, 5, 1), [expected],
               consts={"BLOCK0": 2, "BLOCK1": 4, "BLOCK2": 4})


def test_block_ptr_dtype_element_ty(both):
    src = np.arange(16, dtype=np.float16)
    both.check("block_ptr_dtype_kernel", (1,), (src, Out(16, "float16", 0), 16), [src], consts={"BLOCK_SIZE": 16})


@pytest.mark.parametrize("m,n", [(1, 1), (13, 37), (40, 17)])
def test_block_ptr_loops_odd_sizes(both, rng, m, n):
    block_m, block_n = 8, 16
    x = rng.standard_normal((m, n)).astype(np.float32)
    grid = max(-(-m // block_m), -(-n // block_n))
    # the row sums of programs past the last row block, and the columns past the last column block, are masked
    x64 = x.astype(np.float64)
    both.check("block_ptr_loops_kernel", (grid,),
               (x, Out(m, "float32"), Out(n, "float32"), Out((n, m), "float32"), m, n),
               [x64.sum(1).astype(np.float32), x.max(0), x.T.copy()],
               consts={"BLOCK_M": block_m, "BLOCK_N": block_n, "COL_BLOCKS": -(-n // block_n)}, rtol=1e-6,
               atol=1e-6 * n)


@pytest.mark.parametrize("which,message", [
    ("mask", "takes boundary_check and padding_option, not mask"),
    ("padding", "padding_option='inf' is not one of"),
    ("axis", "boundary_check [1] names an axis out of range"),
    ("pointer_tile", "boundary_check and padding_option apply to block pointers"),
    ("block_shape", "block_shape [12] has an entry that is not a power of two"),
    ("rank", "differ in length"),
    ("loop", "block pointer `p` points into another tensor after an iteration"),
])
def test_block_ptr_errors_name_the_kernel(both, which, message):
    refused(both, "block_ptr_error_kernel", message, Out(16, "float32"), 16, WHICH=which)


# --- tl.sort ---------------------------------------------------------------------------------------------------------
# Triton's [256, 16] and [512, 8] too: 4096 elements, seconds each in Triton's interpreter
@pytest.mark.parametrize("M,N", [[1, 512], [8, 64]])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype_str", ["int32", "float16", "float32"])  # and bfloat16, which the interpreter skips
def test_sort(both, rng, M, N, descending, dtype_str):
    x = numpy_random(rng, (N, M), dtype_str)
    want = np.sort(x, 1)[:, ::-1].copy() if descending else np.sort(x, 1)
    both.check("sort_kernel", (1,), (x, Out((N, M), dtype_str)), [want],
               consts={"N": N, "M": M, "descending": descending})


@pytest.mark.parametrize("n_rows,n_cols", [(1, 1), (5, 37), (9, 64)])
def test_sort_odd_sizes(both, rng, n_rows, n_cols):
    x = rng.integers(-50, 50, (n_rows, n_cols)).astype(np.float32)  # ties happen
    both.check("sort_odd_kernel", (-(-n_rows // 4),),
               (x, Out((n_rows, n_cols), "float32"), Out((n_rows, n_cols), "float32"), n_rows, n_cols),
               [np.sort(x, 1), np.sort(x, 1)[:, ::-1].copy()], consts={"BLOCK_M": 4, "BLOCK_N": 64})


@pytest.mark.parametrize("which,message", [
    ("dim", "tl.sort sorts along the last axis only"),
    ("scalar", "tl.sort needs a tile, got a scalar"),
])
def test_sort_errors_name_the_kernel(both, which, message):
    refused(both, "sort_error_kernel", message, Out(16, "float32"), WHICH=which)


# --- tl.topk --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("M,N,K", [[1, 16, 16], [8, 16, 16], [4, 32, 8], [2, 128, 64]])
@pytest.mark.parametrize("dtype_str", ["int32", "float16", "float32"])  # bfloat16: as test_sort
def test_topk(both, rng, M, N, K, dtype_str):
    """test_standard.py's test_topk: the K largest of each row, largest first (torch.topk's values)."""
    x = numpy_random(rng, (M, N), dtype_str)
    both.check("topk_kernel", (1,), (x, Out((M, K), dtype_str)), [np.sort(x, 1)[:, ::-1][:, :K].copy()],
               consts={"N": N, "M": M, "K": K}, num_warps=8)


@pytest.mark.parametrize("n_rows,n_cols,k", [(1, 1, 1), (5, 37, 4), (9, 64, 32)])
def test_topk_odd_sizes(both, rng, n_rows, n_cols, k):
    block_m, block_n = 4, 64
    x = rng.integers(-50, 50, (n_rows, n_cols)).astype(np.float32)  # ties happen
    top = np.sort(x, 1)[:, ::-1][:, :k]
    rows = np.arange(n_rows)[:, None]
    ranks = np.sort(np.arange(block_n)[None, :] * (rows + 1) % 7, 1)[:, ::-1][:, :k].astype(np.float32)
    both.check("topk_odd_kernel", (-(-n_rows // block_m),), (x, Out((n_rows, 2 * k), "float32"), n_rows, n_cols),
               [np.concatenate([top, ranks], 1)], consts={"K": k, "BLOCK_M": block_m, "BLOCK_N": block_n})


@pytest.mark.parametrize("which,message", [
    ("dim", "tl.topk selects along the last axis only"),
    ("k", "tl.topk needs k a power of two from 1 to the last axis' 4, got k=3"),
    ("scalar", "tl.topk needs a tile, got a scalar"),
])
def test_topk_errors_name_the_kernel(both, which, message):
    refused(both, "topk_error_kernel", message, Out(16, "float32"), WHICH=which)


# --- tl.histogram ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("M,N", [[2048, 2], [1024, 8], [1024, 128], [256, 512], [32, 512], [8, 512], [8, 2]])
def test_histogram(both, rng, M, N):
    x = rng.integers(0, N, M).astype(np.int32)
    both.check("histogram_kernel", (1,), (x, Out(N, "int32")), [np.bincount(x, minlength=N).astype(np.int32)],
               consts={"M": M, "N": N})


@pytest.mark.parametrize("M,N", [(1, 64), (2, 32), (4, 16), (8, 8), (16, 4), (32, 2), (64, 1)])
def test_histogram_mask(both, rng, M, N):
    """The second half of the input is masked off."""
    x = rng.integers(0, N, M).astype(np.int32)
    both.check("histogram_mask_kernel", (1,), (np.concatenate([x, x]), Out(N, "int32")),
               [np.bincount(x, minlength=N).astype(np.int32)], consts={"M": M, "N": N})


def histogram_rows(x: np.ndarray, block: int, bins: int) -> np.ndarray:
    """histogram_odd_kernel's output: per program, its block's counts of values in [0, bins), then the
    counts of offs % 5 over its valid offsets, plus 1."""
    rows = []
    for start in range(0, len(x), block):
        part, offs = x[start:start + block], np.arange(start, min(start + block, len(x)))
        inside = part[(part >= 0) & (part < bins)]
        rows.append(np.concatenate([np.bincount(inside, minlength=bins), np.bincount(offs % 5, minlength=bins) + 1]))
    return np.array(rows, np.int32)


@pytest.mark.parametrize("n", [1, 37, 100])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64"])
def test_histogram_odd_sizes(both, rng, n, dtype):
    """Several programs, masked tails, values outside [0, BINS) (negative and past it, wrapping to
    large values for uint8) counted nowhere. The value BINS itself is checked on metalforge alone,
    against numpy: Triton 3.6's interpreter counts it in the last bin (np.histogram's closed last bin;
    triton-lang/triton#11194 makes it drop it, as the NVIDIA lowering's unsigned compare does)."""
    block, bins = 32, 16
    x = rng.integers(-3, bins + 4, n)
    x = np.where(x == bins, bins + 1, x).astype(NP[dtype])
    # other widths on metalforge alone: the interpreter's np.histogram weights take the input's type (int8
    # counts overflow; int64 counts are refused as its int32 result)
    if dtype == "int32":
        both.check("histogram_odd_kernel", (-(-n // block),), (x, Out((len(range(0, n, block)), 2 * bins), "int32"),
                                                               n), [histogram_rows(x.astype(np.int64), block, bins)],
                   consts={"BLOCK": block, "BINS": bins})
    x[::3] = bins
    want = histogram_rows(x.astype(np.int64), block, bins)
    got = both.mf.run("histogram_odd_kernel", (-(-n // block),), x, Out((len(want), 2 * bins), "int32"), n,
                      BLOCK=block, BINS=bins)[0]
    compare(got, want, "histogram with values equal to num_bins: metalforge vs numpy")


@pytest.mark.parametrize("which,message", [
    ("float", "tl.histogram needs a 1-D integer tile, got f32[16]"),
    ("rank", "tl.histogram needs a 1-D integer tile, got i32[4,4]"),
    ("bins", "tl.histogram needs a power-of-two num_bins (its result is a tile), got 6"),
    ("mask", "tl.histogram's mask must be boolean, got i32[16]"),
])
def test_histogram_errors_name_the_kernel(both, which, message):
    refused(both, "histogram_error_kernel", message, np.zeros(16, np.int32), Out(8, "int32"), WHICH=which)


# --- 3-D tl.dot, int8 -> int32, float16 accumulated in float16 -----------------------------------------------------
def dot_error_bound(x: np.ndarray, y: np.ndarray, u: float) -> float:
    """Twice the bound on a sum of K products rounded at every step with unit roundoff u, |fl - exact| <=
    gamma_{K+1} sum |x_k y_k| (Higham 3.1; gamma_n = n u / (1 - n u)), plus 2**-25 per step for float16
    subnormal results: the two sides each lie within it of the exact product, so within twice of each other."""
    k = x.shape[-1]
    gamma = (k + 1) * u / (1 - (k + 1) * u)
    return 2 * float((gamma * (np.abs(x.astype(np.float64)) @ np.abs(y.astype(np.float64)))).max() + k * 2.0 ** -25)


@pytest.mark.parametrize("B,num_warps", [(1, 1), (2, 4), (4, 2)])
@pytest.mark.parametrize("M,N,K", [(32, 32, 32), (64, 32, 16)])
@pytest.mark.parametrize("in_dtype,out_dtype", [("int8", "int32"), ("float16", "float16"), ("float16", "float32"),
                                                ("float32", "float32")])
def test_dot3d(both, rng, B, num_warps, M, N, K, in_dtype, out_dtype):
    """test_core.py's test_dot3d: [B, M, K] @ [B, K, N] in one tl.dot, one program per [BLOCK_M, BLOCK_N]
    tile (metalforge runs it as per-thread multiply-adds). int8 products are exact in int32; floats
    within the accumulation's error bound (float16: u = 2**-11, float32: 2**-24) of each other."""
    block_m, block_n = 32, 32
    if in_dtype == "int8":
        x, y = (rng.integers(-128, 128, s).astype(np.int8) for s in ((B, M, K), (B, K, N)))
        want = (x.astype(np.int64) @ y.astype(np.int64)).astype(np.int32)
        tol = 0.0
    else:
        x, y = (numpy_random(rng, s, in_dtype) for s in ((B, M, K), (B, K, N)))
        want = (x.astype(np.float64) @ y.astype(np.float64)).astype(NP[out_dtype])
        tol = dot_error_bound(x, y, 2.0 ** -11 if out_dtype == "float16" else 2.0 ** -24)
    out = Out((B, M, N), out_dtype)
    both.check("dot3d_kernel", (M // block_m, N // block_n), (x, y, out, M * K, K, 1, K * N, N, 1, M * N, N, 1), [want],
               consts={"BLOCK_B": B, "BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": K, "INPUT_PRECISION": "ieee",
                       "out_dtype": DT(out_dtype)}, atol=tol, num_warps=num_warps)


@pytest.mark.parametrize("in_dtype,out_dtype", [("int8", "int32"), ("float16", "float16")])
@pytest.mark.parametrize("M,N,K", [(3, 5, 7), (19, 37, 70)])
def test_dot_out_dtype_odd_sizes(both, rng, in_dtype, out_dtype, M, N, K):
    """metalforge's own: a K loop accumulating in out_dtype over masked tiles, several programs."""
    if in_dtype == "int8":
        x, y = (rng.integers(-128, 128, s).astype(np.int8) for s in ((M, K), (K, N)))
        want, tol = (x.astype(np.int64) @ y.astype(np.int64)).astype(np.int32), 0.0
    else:
        x, y = (numpy_random(rng, s, in_dtype) for s in ((M, K), (K, N)))
        want = (x.astype(np.float64) @ y.astype(np.float64)).astype(np.float16)
        tol = dot_error_bound(x, y, 2.0 ** -11)
    both.check("dot_out_dtype_kernel", (-(-M // 16), -(-N // 16)), (x, y, Out((M, N), out_dtype), M, N), [want],
               consts={"K": K, "OUT": DT(out_dtype), "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 32}, atol=tol)


# --- fp16/bf16 atomics -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op,mode,sem", [(op, mode, sem) for op in ["add"]
                                         for mode in ["all_neg", "all_pos", "min_neg", "max_pos"]
                                         for sem in [None, "acquire", "release", "acq_rel", "relaxed"]])
def test_atomic_rmw(both, op, mode, sem):
    """test_core.py's test_atomic_rmw, its float16 configs (add only: Triton refuses max/min on fp16, metalforge
    does them; its semantics are accepted and ignored: Metal's atomics are relaxed); bfloat16 ones are
    skipped as Triton's interpreter skips them. Metal has no 16-bit atomics: the output is 32-bit words,
    updated by compare-and-swap on the word (neighbouring elements share one)."""
    n_programs = 5
    x = np.array([2**i for i in range(n_programs)], dtype=np.float16)
    rs = np.random.RandomState(17)
    if mode == "all_neg":
        x = -np.abs(x)
    if mode == "all_pos":
        x = np.abs(x)
    if mode == "min_neg":
        x[rs.randint(n_programs, size=(1,)).item()] = -np.max(np.abs(x)) - 1
    if mode == "max_pos":
        x[rs.randint(n_programs, size=(1,)).item()] = np.max(np.abs(x)) + 1
    neutral = {"add": 0, "max": float("-inf"), "min": float("inf")}[op]
    want = {"add": np.sum, "max": np.max, "min": np.min}[op](x).astype(np.float16)  # exact: small powers of two
    both.check(f"atomic_rmw_{op}_kernel", (n_programs,), (x, Out(1, "float16", neutral)), [want.reshape(1)],
               consts={"SEM": sem})


@pytest.mark.parametrize("n", [1, 77, 300])
def test_half_atomics_odd_sizes(both, rng, n):
    x = rng.integers(-4, 5, n).astype(np.float16)  # integers: every sum exact in float16, in any order
    x64 = x.astype(np.float64)
    sums = np.bincount(np.arange(n) % 7, weights=x64, minlength=7).astype(np.float16)
    both.check("half_atomics_odd_kernel", (-(-n // 64),),
               (x, Out(7, "float16", 0), Out(n, "float16", 0), Out(n, "float16", 0), Out(1, "int32", 0), n),
               [sums, x * 2, x, np.array([n], np.int32)], consts={"BLOCK": 64})


@pytest.mark.parametrize("op", ["max", "min", "xchg", "cas"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_rmw_on_metal(both, rng, op, dtype):
    """fp16/bf16 max, min, xchg and cas (metalforge only, against numpy: Triton has fp16 add and cas only):
    programs race on both halves of one word; whatever the order, the final values and the set of old
    values are known."""
    x = rng.permutation(np.arange(1, 9)).astype(np.float32)  # distinct, exact in both types
    x = -x if op == "min" else x  # below the outputs' initial 0
    z, old = (np.asarray(a, np.float32) for a in both.mf.run(
        "half_rmw_kernel", (8,), as_input(x.astype(NP[dtype]), dtype), Out(2, dtype, 0), Out(8, dtype), OP=op))
    halves = [x[0::2], x[1::2]]  # program p updates half p % 2
    if op in ("max", "min"):
        assert z.tolist() == [float(getattr(h, op)()) for h in halves]
    elif op == "xchg":  # a chain: the olds of a half are 0 and all its values but the last one written
        for j, h in enumerate(halves):
            assert z[j] in h and sorted(old[j::2].tolist()) == sorted([0.0] + [v for v in h.tolist() if v != z[j]])
    else:  # cas: exactly one program per half saw 0 and set its value; the others saw that value
        for j, h in enumerate(halves):
            assert z[j] in h and sorted(old[j::2].tolist()) == sorted([0.0] + [float(z[j])] * 3)


def test_half_atomic_outputs_start_at_one_value(both, monkeypatch):
    """MLX starts every output at one value: a 16-bit output kept as words may start at a non-zero value only
    where every output is one (both halves of the word set: -inf's are exact in float32), else it is refused.
    Metal's rule (its atomics take 32-bit words; CUDA's act on the 16-bit outputs themselves): on the emulator."""
    from metalforge.errors import MetalforgeError
    monkeypatch.delenv(CONFORMANCE_BACKEND, raising=False)
    x = np.array([1, -3, 2], np.float16)
    out = both.mf.run("atomic_rmw_max_kernel", (3,), x, Out(1, "float16", float("-inf")), SEM=None)[0]
    assert out.tolist() == [2.0]
    with pytest.raises(MetalforgeError, match="start them at 0"):
        both.mf.run("half_atomics_odd_kernel", (1,), x, *(Out(s, "float16", 1.0) for s in (7, 3, 3)),
                    Out(1, "int32", 1.0), 3, BLOCK=64)
    with pytest.raises(MetalforgeError, match="cannot set"):
        both.mf.run("atomic_rmw_max_kernel", (3,), x, Out(1, "float16", 0.1), SEM=None)


def test_byte_atomics_are_refused(both):
    """Atomics on 8-bit elements: Metal has no atomic<char> (MLX makes the outputs of a kernel with atomics
    atomic), CUDA no compare-and-swap on single bytes (Triton refuses them too); refused at the atomic's
    line on either, not by the GPU compiler."""
    text = refused(both, "byte_atomics_kernel", "has no atomic tl.int8", np.ones(1, np.int8), Out(1, "int8", 0))
    assert "tl.atomic_add(Z, tl.load(X))" in text and "int32" in text, text


# --- xor_sum, reduce_or, atomic_and / or / xor ---------------------------------------------------------------------
@pytest.mark.parametrize("op", ["and", "or", "xor"])
@pytest.mark.parametrize("dtype", ["int32", "uint32"])
def test_bitwise_reductions_and_atomics(both, rng, op, dtype):
    m, n_cols, n = 4, 16, 3 * 64 - 5  # three programs, the last masked
    x = random_ints(rng, dtype, m * n_cols)
    start = {"and": -1, "or": 0, "xor": 0}[op]
    y = np.resize(x, 3 * m * n_cols)[:n]
    reduce = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op].reduce
    start_bits = np.array(start, np.int64).astype(dtype)
    want = np.array([reduce(np.concatenate([[start_bits], y[k::4]])) for k in range(4)], dtype=dtype)
    rows = np.bitwise_xor.reduce(x.reshape(m, n_cols), axis=1)
    cols = np.bitwise_or.reduce(x.reshape(m, n_cols), axis=0)
    # MLX starts every output of a kernel at one value: all four start at `start`
    both.check("bitwise_atomics_kernel", (3,), (x, Out(m, dtype, start), Out(n_cols, dtype, start), Out(4, dtype, start), n),
               [rows, cols, want], consts={"M": m, "N": n_cols, "OP": op})


# --- tensor descriptors ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m,n", [(16, 16), (37, 44), (5, 68)])  # rows of 16-byte multiples, as Triton asks
def test_tensor_descriptor_blocks_at_odd_sizes(both, rng, m, n):
    bm, bn = 16, 16
    x = rng.integers(1, 1000, (m, n)).astype(np.float32)  # no zeros (the kernel counts the padding's); exact sums
    grid = (-(-m // bm), -(-n // bn))
    both.check("descriptor_kernel", grid, (x.reshape(-1), Out(m * n, "float32"), m, n), [(x * 2).reshape(-1)],
               consts={"BM": bm, "BN": bn})


# --- clear errors for what is not supported ------------------------------------------------------------------------
@pytest.mark.parametrize("feature", ["dot_scaled"])
def test_unsupported_feature_is_named(both, feature):
    """Triton runs these; metalforge refuses them at the user's line, naming the tl function and a fix."""
    from metalforge.errors import KernelDefinitionError
    with pytest.raises(KernelDefinitionError) as e:
        both.mf.run("unsupported_kernel", (1,), np.ones(8, np.float32), Out(8, "float32"), FEATURE=feature, N=8)
    message = str(e.value)
    assert f"Triton's tl.{feature} is not supported by metalforge yet" in message, message
    assert "unsupported_kernel" in message and "triton_port_kernels.py" in message and "fix:" in message, message
    assert "AttributeError" not in message
