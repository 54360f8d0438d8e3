"""The kernel source MLX 0.32 builds around a `metal_kernel` body, reproduced exactly.

`mx.fast.metal_kernel` does not run the body as given: it generates a kernel signature from the
inputs' dtypes and sizes, the outputs, the template arguments and the attribute names that occur
in the body. The emulator must compile the very same text that Metal would, so this module mirrors
mlx/backend/common/metal_kernel.cpp (write_signature, write_template and the kernel name),
quirks included: names are detected by plain substring search, inputs of fewer than 8 elements
live in `constant` memory, and booleans in template arguments print as 1/0.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence, Union

import mlx.core as mx

MAX_CONSTANT_ARRAY_SIZE = 8

# MLX's get_type_string.
TYPE_NAMES: dict = {
    mx.bool_: "bool",
    mx.uint8: "uint8_t",
    mx.uint16: "uint16_t",
    mx.uint32: "uint32_t",
    mx.uint64: "uint64_t",
    mx.int8: "int8_t",
    mx.int16: "int16_t",
    mx.int32: "int32_t",
    mx.int64: "int64_t",
    mx.float16: "float16_t",
    mx.bfloat16: "bfloat16_t",
    mx.float32: "float",
    mx.float64: "double",
    mx.complex64: "complex64_t",
}

# Metal thread-position attributes that MLX adds as parameters when their name occurs in the body.
ATTRIBUTES: tuple[tuple[str, str], ...] = (
    ("dispatch_quadgroups_per_threadgroup", "uint"),
    ("dispatch_simdgroups_per_threadgroup", "uint"),
    ("dispatch_threads_per_threadgroup", "uint3"),
    ("grid_origin", "uint3"),
    ("grid_size", "uint3"),
    ("quadgroup_index_in_threadgroup", "uint"),
    ("quadgroups_per_threadgroup", "uint"),
    ("simdgroup_index_in_threadgroup", "uint"),
    ("simdgroups_per_threadgroup", "uint"),
    ("thread_execution_width", "uint"),
    ("thread_index_in_quadgroup", "uint"),
    ("thread_index_in_simdgroup", "uint"),
    ("thread_index_in_threadgroup", "uint"),
    ("thread_position_in_grid", "uint3"),
    ("thread_position_in_threadgroup", "uint3"),
    ("threadgroup_position_in_grid", "uint3"),
    ("threadgroups_per_grid", "uint3"),
    ("threads_per_grid", "uint3"),
    ("threads_per_simdgroup", "uint"),
    ("threads_per_threadgroup", "uint3"),
)

TemplateValue = Union[bool, int, mx.Dtype]


def type_name(dtype: mx.Dtype) -> str:
    """The MSL spelling MLX uses for `dtype`."""
    try:
        return TYPE_NAMES[dtype]
    except KeyError:
        raise TypeError(f"no Metal type for dtype {dtype}") from None


@dataclass(frozen=True)
class InputInfo:
    """What the signature needs to know about one input array."""

    name: str
    dtype: mx.Dtype
    ndim: int
    size: int
    uses_shape: bool
    uses_strides: bool
    uses_ndim: bool

    @property
    def in_constant_memory(self) -> bool:
        return self.size < MAX_CONSTANT_ARRAY_SIZE


@dataclass(frozen=True)
class GeneratedKernel:
    """The kernel as MLX would hand it to the Metal compiler."""

    name: str            # custom_kernel_<name>[_<template hash>]_<dtypes>
    source: str          # header + signature + body (+ explicit instantiation)
    inputs: tuple[InputInfo, ...]
    attributes: tuple[str, ...]
    template_def: str    # "<float, 4>" or ""


def shape_infos(source: str, input_names: Sequence[str]) -> list[tuple[bool, bool, bool]]:
    """Which of `<name>_shape`, `_strides`, `_ndim` each input's name has in the body."""
    return [(f"{n}_shape" in source, f"{n}_strides" in source, f"{n}_ndim" in source) for n in input_names]


def used_attributes(source: str) -> list[tuple[str, str]]:
    return [(name, ty) for name, ty in ATTRIBUTES if name in source]


def template_definition(template: Sequence[tuple[str, TemplateValue]]) -> str:
    parts = []
    for _, value in template:
        if isinstance(value, bool):
            parts.append("1" if value else "0")
        elif isinstance(value, int):
            parts.append(str(value))
        elif isinstance(value, mx.Dtype):
            parts.append(type_name(value))
        else:
            raise TypeError(f"template argument {value!r}: expected bool, int or mlx dtype")
    return "<" + ", ".join(parts) + ">"


def kernel_name(name: str, template: Sequence[tuple[str, TemplateValue]], inputs: Sequence[InputInfo],
                output_dtypes: Sequence[mx.Dtype]) -> str:
    full = "custom_kernel_" + name
    if template:
        full += "_" + re.sub(r"<|>|(, )", "_", template_definition(template))[:-1]
    for info in inputs:
        full += "_" + type_name(info.dtype)
        if info.ndim == 0:
            full += "s"
        elif info.in_constant_memory:
            full += "c"
    for dtype in output_dtypes:
        full += "_" + type_name(dtype)
    return full


def write_signature(func_name: str, header: str, source: str, inputs: Sequence[InputInfo],
                    output_names: Sequence[str], output_dtypes: Sequence[mx.Dtype],
                    template: Sequence[tuple[str, TemplateValue]], attributes: Sequence[tuple[str, str]],
                    atomic_outputs: bool) -> str:
    """MLX's write_signature, line for line (including its separator logic)."""
    text = header
    if template:
        kinds = ["bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "typename" for _, v in template]
        text += "template <" + ", ".join(f"{k} {n}" for k, (n, _) in zip(kinds, template)) + ">\n"
    text += f"[[kernel]] void {func_name}(\n"
    index = 0
    for info in inputs:
        location = "constant" if info.in_constant_memory else "device"
        ref = "&" if info.ndim == 0 else "*"
        text += f"  const {location} {type_name(info.dtype)}{ref} {info.name} [[buffer({index})]],\n"
        index += 1
        if info.ndim > 0:
            for used, decl in ((info.uses_shape, "const constant int* {}_shape"),
                               (info.uses_strides, "const constant int64_t* {}_strides"),
                               (info.uses_ndim, "const constant int& {}_ndim")):
                if used:
                    text += "  " + decl.format(info.name) + f" [[buffer({index})]],\n"
                    index += 1
    attribute_lines = [f"  {ty} {name} [[{name}]]" for name, ty in attributes]
    for name, dtype in zip(output_names, output_dtypes):
        element = f"atomic<{type_name(dtype)}>" if atomic_outputs else type_name(dtype)
        text += f"  device {element}* {name} [[buffer({index})]]"
        # MLX compares the buffer index (which counts shape buffers too) with the argument count.
        if index < len(inputs) + len(output_names) - 1 or attribute_lines:
            text += ",\n"
        else:
            text += ") {\n"
        index += 1
    for i, line in enumerate(attribute_lines):
        text += line + (",\n" if i < len(attribute_lines) - 1 else ") {\n")
    text += source
    text += "\n}\n"
    return text


def generate(name: str, input_names: Sequence[str], output_names: Sequence[str], source: str, header: str,
             inputs: Sequence[mx.array], output_dtypes: Sequence[mx.Dtype],
             template: Sequence[tuple[str, TemplateValue]], atomic_outputs: bool) -> GeneratedKernel:
    """The full kernel source MLX 0.32 compiles for this call."""
    infos = tuple(
        InputInfo(n, a.dtype, a.ndim, a.size, *flags)
        for n, a, flags in zip(input_names, inputs, shape_infos(source, input_names))
    )
    attributes = used_attributes(source)
    func_name = kernel_name(name, template, infos, output_dtypes)
    text = write_signature(func_name, header, source, infos, output_names, output_dtypes, template, attributes,
                           atomic_outputs)
    template_def = template_definition(template) if template else ""
    if template:
        instance = func_name + template_def
        text += f'\ntemplate [[host_name("{func_name}")]] [[kernel]] decltype({instance}) {instance};\n'
    return GeneratedKernel(func_name, text, infos, tuple(a for a, _ in attributes), template_def)
