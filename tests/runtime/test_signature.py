"""The source MLX 0.32 generates around a metal_kernel body, checked against hand-derived strings.

Every expected string below was derived by hand from MLX's write_signature / write_template /
kernel naming in mlx/backend/common/metal_kernel.cpp (see /work/shared/reference), not from
metalforge's own code.
"""
from __future__ import annotations

import mlx.core as mx
import pytest

from metalforge.runtime import metal_kernel, signature


def gen(name, inputs, outputs, source, arrays, out_dtypes, template=(), header="", atomic=False):
    k = metal_kernel(name, inputs, outputs, source, header=header, atomic_outputs=atomic, backend="emulator")
    return k.generate(arrays, out_dtypes, list(template))


def test_full_source_with_shape_strides_ndim_and_template():
    body = ("uint elem = thread_position_in_grid.x;\n"
            "uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);\n"
            "out[elem] = metal::exp(inp[loc]);")
    g = gen("myexp", ["inp"], ["out"], body, [mx.zeros((4, 5))], [mx.float32], [("T", mx.float32)],
            header="// hdr\n")
    name = "custom_kernel_myexp__float_float_float"
    expected = (
        "// hdr\n"
        "template <typename T>\n"
        f"[[kernel]] void {name}(\n"
        "  const device float* inp [[buffer(0)]],\n"
        "  const constant int* inp_shape [[buffer(1)]],\n"
        "  const constant int64_t* inp_strides [[buffer(2)]],\n"
        "  const constant int& inp_ndim [[buffer(3)]],\n"
        "  device float* out [[buffer(4)]],\n"
        "  uint3 thread_position_in_grid [[thread_position_in_grid]]) {\n"
        + body + "\n}\n"
        f'\ntemplate [[host_name("{name}")]] [[kernel]] decltype({name}<float>) {name}<float>;\n'
    )
    assert g.name == name
    assert g.source == expected
    assert g.template_def == "<float>"
    assert g.attributes == ("thread_position_in_grid",)


def test_no_template_no_instantiation_and_minimal_signature():
    body = "out[thread_position_in_grid.x] = a[thread_position_in_grid.x] + b[0];"
    g = gen("add", ["a", "b"], ["out"], body, [mx.zeros((16,)), mx.zeros((3, 3))], [mx.float32])
    assert g.name == "custom_kernel_add_float_float_float"
    assert g.source == (
        "[[kernel]] void custom_kernel_add_float_float_float(\n"
        "  const device float* a [[buffer(0)]],\n"
        "  const device float* b [[buffer(1)]],\n"
        "  device float* out [[buffer(2)]],\n"
        "  uint3 thread_position_in_grid [[thread_position_in_grid]]) {\n"
        + body + "\n}\n")
    assert "template" not in g.source


@pytest.mark.parametrize("mentions, expected_params", [
    ("x_strides[0]", ["  const constant int64_t* x_strides [[buffer(1)]],\n"]),
    ("x_ndim + x_shape[0]", ["  const constant int* x_shape [[buffer(1)]],\n",
                             "  const constant int& x_ndim [[buffer(2)]],\n"]),
    # plain substring search: `max_shape` contains `x_shape`
    ("int max_shape = 3;", ["  const constant int* x_shape [[buffer(1)]],\n"]),
    ("", []),
])
def test_shape_buffers_only_when_mentioned(mentions, expected_params):
    body = f"{mentions}\nout[thread_index_in_threadgroup] = x[0];"
    g = gen("s", ["x"], ["out"], body, [mx.zeros((2, 5), mx.int32)], [mx.int32])
    out_index = 1 + len(expected_params)
    expected = ("[[kernel]] void custom_kernel_s_int32_t_int32_t(\n"
                "  const device int32_t* x [[buffer(0)]],\n" + "".join(expected_params) +
                f"  device int32_t* out [[buffer({out_index})]],\n"
                "  uint thread_index_in_threadgroup [[thread_index_in_threadgroup]]) {\n")
    assert g.source.startswith(expected), g.source
    info = g.inputs[0]
    assert (info.uses_shape, info.uses_strides, info.uses_ndim) == (
        "x_shape" in body, "x_strides" in body, "x_ndim" in body)


def test_input_name_substring_of_other_names():
    # Input "a" with a variable `data_shape` in the body: MLX adds a_shape (substring search).
    body = "int data_shape = 1; out[0] = a[0] + data_shape;"
    g = gen("sub", ["a"], ["out"], body, [mx.zeros((9,))], [mx.float32])
    assert "  const constant int* a_shape [[buffer(1)]],\n" in g.source
    assert "a_strides" not in g.source.split(")]]) {")[0].split("a_shape")[1]


@pytest.mark.parametrize("shape, decl, suffix", [
    ((), "const constant float& v [[buffer(0)]]", "floats"),
    ((1,), "const constant float* v [[buffer(0)]]", "floatc"),
    ((7,), "const constant float* v [[buffer(0)]]", "floatc"),
    ((2, 3), "const constant float* v [[buffer(0)]]", "floatc"),
    ((8,), "const device float* v [[buffer(0)]]", "float"),
    ((2, 4), "const device float* v [[buffer(0)]]", "float"),
    ((0,), "const constant float* v [[buffer(0)]]", "floatc"),  # 0 elements: < 8
])
def test_constant_address_space_and_name_suffix(shape, decl, suffix):
    body = "out[0] = v_shape[0];"  # 0-d inputs get no shape buffer even when it is mentioned
    g = gen("c", ["v"], ["out"], body, [mx.zeros(shape)], [mx.float32])
    assert g.name == f"custom_kernel_c_{suffix}_float"
    assert f"  {decl},\n" in g.source
    if shape == ():
        assert "v_shape [[buffer" not in g.source
        assert "  device float* out [[buffer(1)]]) {\n" in g.source
    else:
        assert "  const constant int* v_shape [[buffer(1)]],\n" in g.source
        assert "  device float* out [[buffer(2)]]) {\n" in g.source


def test_python_scalars_become_0d_inputs():
    k = metal_kernel("sc", ["a", "f", "i"], ["out"], "out[0] = a + f + i;", backend="emulator")
    p = k.prepare(inputs=[True, 2.5, 3], output_shapes=[(1,)], output_dtypes=[mx.float32], grid=(1, 1, 1),
                  threadgroup=(1, 1, 1))
    assert p.generated.name == "custom_kernel_sc_bools_floats_int32_ts_float"
    assert "  const constant bool& a [[buffer(0)]],\n  const constant float& f [[buffer(1)]],\n" \
           "  const constant int32_t& i [[buffer(2)]],\n  device float* out [[buffer(3)]]) {\n" in p.generated.source


def test_attributes_by_substring_in_fixed_order():
    body = ("uint my_thread_position_in_grid_copy = 0;\n"
            "uint a = simdgroup_index_in_threadgroup + threads_per_simdgroup;\n"
            "uint3 d = dispatch_threads_per_threadgroup;\n"  # contains threads_per_threadgroup too
            "uint q = dispatch_quadgroups_per_threadgroup; // and quadgroups_per_threadgroup\n"
            "out[0] = grid_size.x + a + q;")
    g = gen("attr", ["x"], ["out"], body, [mx.zeros((10,))], [mx.uint32])
    attrs = [
        ("uint", "dispatch_quadgroups_per_threadgroup"),
        ("uint3", "dispatch_threads_per_threadgroup"),
        ("uint3", "grid_size"),
        ("uint", "quadgroups_per_threadgroup"),
        ("uint", "simdgroup_index_in_threadgroup"),
        ("uint3", "thread_position_in_grid"),
        ("uint", "threads_per_simdgroup"),
        ("uint3", "threads_per_threadgroup"),
    ]
    lines = ",\n".join(f"  {t} {n} [[{n}]]" for t, n in attrs)
    expected = ("[[kernel]] void custom_kernel_attr_float_uint32_t(\n"
                "  const device float* x [[buffer(0)]],\n"
                "  device uint32_t* out [[buffer(1)]],\n" + lines + ") {\n" + body + "\n}\n")
    assert g.source == expected
    assert g.attributes == tuple(n for _, n in attrs)


def test_every_attribute_type():
    body = "\n".join(f"// {n}" for n, _ in signature.ATTRIBUTES)
    g = gen("all", ["x"], ["out"], body, [mx.zeros((10,))], [mx.float32])
    uint3 = {"dispatch_threads_per_threadgroup", "grid_origin", "grid_size", "thread_position_in_grid",
             "thread_position_in_threadgroup", "threadgroup_position_in_grid", "threadgroups_per_grid",
             "threads_per_grid", "threads_per_threadgroup"}
    assert len(g.attributes) == 20
    for n in g.attributes:
        assert f"  {'uint3' if n in uint3 else 'uint'} {n} [[{n}]]" in g.source


@pytest.mark.parametrize("template, decl, tdef, hashed", [
    ([("T", mx.float32), ("N", 4)], "template <typename T, int N>", "<float, 4>", "_float_4"),
    ([("N", 4), ("B", True), ("T", mx.float16)], "template <int N, bool B, typename T>", "<4, 1, float16_t>",
     "_4_1_float16_t"),
    ([("B", False)], "template <bool B>", "<0>", "_0"),
    ([("T", mx.bfloat16), ("U", mx.int32), ("K", 128)], "template <typename T, typename U, int K>",
     "<bfloat16_t, int32_t, 128>", "_bfloat16_t_int32_t_128"),
])
def test_template_arguments(template, decl, tdef, hashed):
    g = gen("k", ["x"], ["y"], "y[0] = x[0];", [mx.zeros((10,), mx.float16)], [mx.float16], template)
    name = "custom_kernel_k_" + hashed + "_float16_t_float16_t"
    assert g.name == name
    assert g.template_def == tdef
    assert g.source.startswith(decl + "\n[[kernel]] void " + name + "(\n")
    assert g.source.endswith(
        f'\ntemplate [[host_name("{name}")]] [[kernel]] decltype({name}{tdef}) {name}{tdef};\n')


def test_template_hash_example_from_issue():
    g = gen("k", ["x"], ["y"], "y[0] = x[0];", [mx.zeros((10,))], [mx.float32], [("T", mx.float32), ("N", 4)])
    assert g.name.startswith("custom_kernel_k__float_4")
    assert g.name == "custom_kernel_k__float_4_float_float"


def test_atomic_outputs_and_multiple_outputs():
    body = "atomic_fetch_add_explicit(&h[x[thread_position_in_grid.x]], 1.0f, memory_order_relaxed);"
    g = gen("hist", ["x"], ["h", "g"], body, [mx.zeros((100,), mx.uint32)], [mx.float32, mx.int32], atomic=True)
    assert g.source.startswith(
        "[[kernel]] void custom_kernel_hist_uint32_t_float_int32_t(\n"
        "  const device uint32_t* x [[buffer(0)]],\n"
        "  device atomic<float>* h [[buffer(1)]],\n"
        "  device atomic<int32_t>* g [[buffer(2)]],\n"
        "  uint3 thread_position_in_grid [[thread_position_in_grid]]) {\n")


def test_output_separator_without_attributes():
    body = "y[0] = x[0]; z[0] = x[1];"
    g = gen("two", ["x"], ["y", "z"], body, [mx.zeros((10,))], [mx.float32, mx.float16])
    assert g.source == ("[[kernel]] void custom_kernel_two_float_float_float16_t(\n"
                        "  const device float* x [[buffer(0)]],\n"
                        "  device float* y [[buffer(1)]],\n"
                        "  device float16_t* z [[buffer(2)]]) {\n" + body + "\n}\n")


def test_output_separator_quirk_with_shape_buffers():
    # MLX compares the buffer index (which counts x_shape) with #inputs + #outputs - 1, so with a
    # shape buffer, two outputs and no attributes it closes the parameter list after the first
    # output. The generated source is reproduced as MLX writes it.
    body = "y[0] = x_shape[0]; z[0] = 1;"
    g = gen("q", ["x"], ["y", "z"], body, [mx.zeros((10,))], [mx.float32, mx.float32])
    assert g.source == ("[[kernel]] void custom_kernel_q_float_float_float(\n"
                        "  const device float* x [[buffer(0)]],\n"
                        "  const constant int* x_shape [[buffer(1)]],\n"
                        "  device float* y [[buffer(2)]]) {\n"
                        "  device float* z [[buffer(3)]]) {\n" + body + "\n}\n")


@pytest.mark.parametrize("dtype, name", [
    (mx.bool_, "bool"), (mx.uint8, "uint8_t"), (mx.uint16, "uint16_t"), (mx.uint32, "uint32_t"),
    (mx.uint64, "uint64_t"), (mx.int8, "int8_t"), (mx.int16, "int16_t"), (mx.int32, "int32_t"),
    (mx.int64, "int64_t"), (mx.float16, "float16_t"), (mx.bfloat16, "bfloat16_t"), (mx.float32, "float"),
])
def test_type_names(dtype, name):
    g = gen("t", ["x"], ["y"], "y[0] = x[0];", [mx.zeros((9,), dtype)], [dtype])
    assert g.name == f"custom_kernel_t_{name}_{name}"
    assert f"  const device {name}* x [[buffer(0)]],\n  device {name}* y [[buffer(1)]]) {{\n" in g.source


def test_verbose_prints_generated_source(capsys, rng, emu):
    k = metal_kernel("verb", ["x"], ["y"], "y[thread_position_in_grid.x] = x[thread_position_in_grid.x];",
                     backend=emu)
    x = mx.array(rng.standard_normal(3).astype("float32"))
    y = k(inputs=[x], output_shapes=[(3,)], output_dtypes=[mx.float32], grid=(3, 1, 1), threadgroup=(4, 1, 1),
          verbose=True)[0]
    out = capsys.readouterr().out
    assert "Generated source code for `verb`:\n```\n[[kernel]] void custom_kernel_verb_floatc_float(" in out
    assert (y == x).all().item()


def test_prepare_validates_like_mlx():
    k = metal_kernel("v", ["a", "b"], ["o"], "o[0] = a[0];", backend="emulator")
    x = mx.zeros((4,))
    with pytest.raises(ValueError, match=r"Expected `inputs` to have size 2 but got size 1"):
        k.prepare(inputs=[x], output_shapes=[(1,)], output_dtypes=[mx.float32], grid=(1, 1, 1),
                  threadgroup=(1, 1, 1))
    with pytest.raises(ValueError, match=r"Expected `output_shapes` to have size 1 but got size 2"):
        k.prepare(inputs=[x, x], output_shapes=[(1,), (1,)], output_dtypes=[mx.float32], grid=(1, 1, 1),
                  threadgroup=(1, 1, 1))
    with pytest.raises(ValueError, match=r"Expected `output_dtypes` to have size 1 but got size 0"):
        k.prepare(inputs=[x, x], output_shapes=[(1,)], output_dtypes=[], grid=(1, 1, 1), threadgroup=(1, 1, 1))
    with pytest.raises(ValueError, match="at least one output"):
        metal_kernel("v", ["a"], [], "", backend="emulator")
