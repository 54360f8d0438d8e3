"""Every rejected kernel raises KernelDefinitionError naming the kernel, file, line and source, with a fix."""
from __future__ import annotations

import mlx.core as mx
import pytest

import metalforge as mf
import metalforge.language as tl
from metalforge.dsl import ir
from metalforge.dsl.frontend import jit
from metalforge.errors import KernelDefinitionError

from .helpers import expect_error, line_of

P = ir.ptr(tl.float32)


@jit
def k_try(x_ptr):
    try:
        tl.store(x_ptr, 1.0)
    except ValueError:
        pass


@jit
def k_with(x_ptr):
    with open("f") as f:
        tl.store(x_ptr, 1.0)


@jit
def k_lambda(x_ptr):
    f = lambda v: v + 1  # noqa: E731
    tl.store(x_ptr, f(1.0))


@jit
def k_class(x_ptr):
    class C:
        pass
    tl.store(x_ptr, 1.0)


@jit
def k_nested_def(x_ptr):
    def helper(v):
        return v
    tl.store(x_ptr, 1.0)


@jit
def k_break(x_ptr, n):
    for i in range(n):
        break


@jit
def k_continue(x_ptr, n):
    for i in range(n):
        continue


@jit
def k_listcomp(x_ptr):
    vals = [i for i in range(4)]
    tl.store(x_ptr, 1.0)


@pytest.mark.parametrize("kernel, at, reason", [
    (k_try, "try:", "do not support try/except"),
    (k_with, "with open", "do not support with"),
    (k_lambda, "lambda v", "do not support lambda"),
    (k_class, "class C", "do not support class definitions"),
    (k_nested_def, "def helper", "do not support nested function definitions"),
    (k_break, " break", "do not support break"),
    (k_continue, " continue", "do not support continue"),
    (k_listcomp, "vals = [", "do not support list comprehensions"),
])
def test_unsupported_constructs(kernel, at, reason):
    types = {"x_ptr": P} | ({"n": tl.int32} if "n" in kernel.signature.parameters else {})
    expect_error(kernel, types, {}, at, reason)


@jit
def k_runtime_arange(x_ptr, n):
    offs = tl.arange(0, n)
    tl.store(x_ptr + offs, 1.0)


@jit
def k_arange_size(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0)


@jit
def k_zeros_size(x_ptr):
    acc = tl.zeros([4, 6], tl.float32)
    tl.store(x_ptr, tl.sum(acc))


@jit
def k_broadcast(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(x_ptr + a, (a + b).to(tl.float32))


@jit
def k_store_shape(x_ptr):
    offs = tl.arange(0, 16)
    vals = tl.zeros([32], tl.float32)
    tl.store(x_ptr + offs, vals)


@jit
def k_float64(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, x.to(tl.float64))


@jit
def k_exp_fp16(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.exp(x))


@jit
def k_tile_if(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    if x > 0:
        x = -x
    tl.store(x_ptr + tl.arange(0, 8), x)


@jit
def k_carried_type(x_ptr, n):
    acc = 0
    for i in range(n):
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)


@jit
def k_branch_type(x_ptr, flag):
    if flag:
        y = tl.load(x_ptr)
    else:
        y = tl.zeros([4], tl.float32)
    tl.store(x_ptr, tl.sum(y))


@jit
def k_static_assert(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 64, "BLOCK must be at least 64")
    tl.store(x_ptr, 1.0)


@jit
def k_return_value(x_ptr, flag):
    if flag:
        return 1.0
    tl.store(x_ptr, 1.0)


@jit
def h_early_return(x):
    if x > 0:
        return x
    return -x


@jit
def k_helper_early_return(x_ptr):
    tl.store(x_ptr, h_early_return(tl.load(x_ptr)))


@jit
def k_ternary_types(x_ptr, flag):
    tl.store(x_ptr, tl.load(x_ptr) if flag else tl.zeros([4], tl.float32))


@jit
def k_undefined(x_ptr):
    tl.store(x_ptr, undefined_name)  # noqa: F821


@jit
def k_helper_error_inner(x):
    return tl.sqrt(x)


@jit
def k_uses_bad_helper(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), k_helper_error_inner(x))


@jit
def k_python_fn_on_tile(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, float(x))


@jit
def k_index_tile(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr, x[0])


@jit
def k_unsigned_negative(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), x + -1)


@jit
def k_bad_kwarg(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr, msk=None))


@jit
def k_keyword_parameter(x_ptr, device, DEVICE: tl.constexpr):  # a constexpr is not spelled in the code
    tl.store(x_ptr, device + DEVICE)


@jit
def k_integer_fma(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.fma(x, x, x))


@jit
def k_full_out_of_range(x_ptr):
    tl.store(x_ptr + tl.arange(0, 8), tl.full((8,), 300, tl.int8))


@jit
def k_prefixed_parameter(x_ptr, mf_v):
    tl.store(x_ptr, mf_v)


@pytest.mark.parametrize("kernel, types, consts, at, reason, hint", [
    (k_runtime_arange, {"x_ptr": P, "n": tl.int32}, {}, "tl.arange(0, n)", "must be constexpr integers",
     "tl.constexpr"),
    (k_arange_size, {"x_ptr": P}, {"BLOCK": 100}, "tl.arange(0, BLOCK)", "not a positive power of two",
     "power-of-two"),
    (k_zeros_size, {"x_ptr": P}, {}, "tl.zeros([4, 6]", "not a power of two", "power-of-two"),
    (k_broadcast, {"x_ptr": P}, {}, "(a + b)", "cannot broadcast shapes [16] and [32]", "x[:, None]"),
    (k_store_shape, {"x_ptr": P}, {}, "tl.store(x_ptr + offs, vals)",
     "value of shape [32] does not fit pointers of shape [16]", ""),
    (k_float64, {"x_ptr": P}, {}, "x.to(tl.float64)", "Metal has no double", "tl.float32"),
    (k_exp_fp16, {"x_ptr": ir.ptr(tl.float16)}, {}, "tl.exp(x)", "tl.exp expects float32 input but got tl.float16",
     ".to(tl.float32)"),
    (k_tile_if, {"x_ptr": P}, {}, "if x > 0", "needs a scalar condition", "tl.where"),
    (k_carried_type, {"x_ptr": P, "n": tl.int32}, {}, "for i in range(n)", "loop-carried variable `acc` is i32",
     "keep its type"),
    (k_branch_type, {"x_ptr": P, "flag": tl.int32}, {}, "if flag:", "variable `y` is f32 in the if-branch but "
     "f32[4] in the else-branch", "same type"),
    (k_static_assert, {"x_ptr": P}, {"BLOCK": 32}, "tl.static_assert", "BLOCK must be at least 64", "constexpr"),
    (k_return_value, {"x_ptr": P, "flag": tl.int32}, {}, " return 1.0", "last statement of a kernel", "tl.where"),
    (k_ternary_types, {"x_ptr": P, "flag": tl.int32}, {}, "if flag else", "f32 in the if-side but", "same type"),
    (k_undefined, {"x_ptr": P}, {}, "undefined_name", "`undefined_name` is not defined", "define it"),
    (k_python_fn_on_tile, {"x_ptr": P}, {}, "float(x)", "Python function `float` on tiles", "@metalforge.jit"),
    (k_index_tile, {"x_ptr": P}, {}, "x[0]", "indexed with `:` and `None`", "masks"),
    (k_unsigned_negative, {"x_ptr": ir.ptr(tl.uint32)}, {}, "x + -1", "negative constant -1", "cast"),
    (k_bad_kwarg, {"x_ptr": P}, {}, "msk=None", "bad arguments to tl.load", "tl.load(pointer, mask=None"),
    (k_return_value, {"x_ptr": P}, {}, "def k_return_value", "no type given for runtime argument `flag`", "flag"),
    (k_arange_size, {"x_ptr": P}, {}, "def k_arange_size", "constexpr parameter `BLOCK` has no value", "BLOCK="),
    (k_float64, {"x_ptr": ir.ptr(tl.float64)}, {}, "def k_float64", "Metal has no double", "tl.float32"),
    (k_keyword_parameter, {"x_ptr": P, "device": tl.float32}, {"DEVICE": 1.0}, "def k_keyword_parameter",
     "parameter `device` is a name the generated Metal and CUDA code uses", "device_"),
    (k_integer_fma, {"x_ptr": ir.ptr(tl.int32)}, {}, "tl.fma(x, x, x)", "tl.fma needs floating-point operands",
     ".to(tl.float32)"),
    (k_full_out_of_range, {"x_ptr": ir.ptr(tl.int8)}, {}, "tl.full((8,), 300, tl.int8)",
     "constant 300 is out of range for tl.int8 (-128 to 127)", "wider type"),
    (k_prefixed_parameter, {"x_ptr": P, "mf_v": tl.float32}, {}, "def k_prefixed_parameter",
     "parameter `mf_v` is a name the generated Metal and CUDA code uses", "v_"),
])
def test_kernel_errors(kernel, types, consts, at, reason, hint):
    expect_error(kernel, types, consts, at, reason, hint)


def test_error_inside_helper_points_at_the_helper_line():
    with pytest.raises(KernelDefinitionError) as info:
        k_uses_bad_helper.build_ir({"x_ptr": ir.ptr(tl.float16)}, {})
    err = info.value
    assert err.kernel == "k_uses_bad_helper" and err.source == "return tl.sqrt(x)"
    assert err.line == line_of(k_helper_error_inner, "return tl.sqrt(x)")
    assert "in @jit helper `k_helper_error_inner`" in err.reason and err.hint == "convert with .to(tl.float32) first"


def test_kernel_without_source_says_so():
    namespace = {"tl": tl, "mf": mf}
    exec("@mf.jit\ndef nosource(x_ptr, BLOCK: tl.constexpr):\n    pass\n", namespace)
    with pytest.raises(mf.errors.MetalforgeError, match="cannot read the source of kernel `nosource`.*py file"):
        namespace["nosource"].compile(mx.zeros(4), BLOCK=4)


def test_helper_early_return_names_the_helper():
    """A kernel may return early; an inlined helper may not (its value would need merging)."""
    with pytest.raises(KernelDefinitionError) as info:
        k_helper_early_return.build_ir({"x_ptr": P})
    message = str(info.value)
    assert "h_early_return" in message and "last statement of a @jit helper" in message, message
    assert "return x" in message, message
