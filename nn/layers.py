"""Drop-in layers: subclasses of their `mlx.nn` counterparts (same constructor arguments, parameter
names and shapes, call semantics, so weights load unchanged) whose `__call__` runs the tuned
library kernels. What the kernels do not take (a dtype, a shape, a mask kind, a quantization mode)
runs the MLX built-in instead, counted in `fallbacks()`. Leading axes are flattened into rows."""
from __future__ import annotations

from typing import Any, Optional, Union

import mlx.core as mx
import mlx.nn as nn

from ..kernels import attention, flash_attention, matmul, norms, quantized, rope
from .fallback import dtype_problem, fall_back, power_of_two


def _rows(x: mx.array) -> mx.array:
    return x.reshape(-1, x.shape[-1])


def _shape_problem(what: str, x: mx.array, features: int) -> Optional[str]:
    """Why the kernels cannot take input x of a layer over `features`, or None. Reasons name no
    sizes that change from call to call (a sequence length), so each is logged once."""
    if x.ndim == 0 or x.size == 0:
        return f"{what}: an empty or 0-d input"
    if x.shape[-1] != features:
        return f"{what}: input's last axis {x.shape[-1]}, expected {features}"
    return None


class RMSNorm(nn.RMSNorm):
    """`mlx.nn.RMSNorm` on `kernels.norms.rms_norm`."""

    def __call__(self, x: mx.array) -> mx.array:
        weight = self["weight"]
        problem = _shape_problem("RMSNorm", x, weight.shape[0]) or dtype_problem("RMSNorm", x, weight)
        if problem:
            fall_back(problem)
            return super().__call__(x)
        return norms.rms_norm(_rows(x), weight, self.eps).reshape(x.shape)


class LayerNorm(nn.LayerNorm):
    """`mlx.nn.LayerNorm` (affine or not, with or without bias) on `kernels.norms.layer_norm`."""

    def __call__(self, x: mx.array) -> mx.array:
        weight = self["weight"] if "weight" in self else mx.ones((self.dims,), x.dtype)
        bias = self["bias"] if "bias" in self else mx.zeros((self.dims,), x.dtype)
        problem = _shape_problem("LayerNorm", x, self.dims) or dtype_problem("LayerNorm", x, weight, bias)
        if problem:
            fall_back(problem)
            return super().__call__(x)
        return norms.layer_norm(_rows(x), weight, bias, self.eps)[0].reshape(x.shape)


class RoPE(nn.RoPE):
    """`mlx.nn.RoPE` (traditional or not, any base and scale, an integer offset) on
    `kernels.rope.rope`; positions run along the second-to-last axis."""

    def __call__(self, x: mx.array, offset: int = 0) -> mx.array:
        problem = None
        if x.ndim < 3 or x.size == 0:  # under 3 axes: MLX's error
            problem = f"RoPE: an input of {x.ndim} axes or empty"
        elif x.shape[-1] != self.dims:
            problem = f"RoPE: dims={self.dims} of rows of {x.shape[-1]} (rotating part of each row)"
        elif not power_of_two(self.dims // 2) or self.dims % 2:
            problem = f"RoPE: dims={self.dims} (the kernel takes twice a power of two)"
        elif not isinstance(offset, int):
            problem = "RoPE: an array offset (per-sequence positions)"
        problem = problem or dtype_problem("RoPE", x)
        if problem:
            fall_back(problem)
            return super().__call__(x, offset)
        t = x.shape[-2]
        return rope.rope(x.reshape(-1, t, self.dims), self.base, offset, self.scale, self.traditional).reshape(x.shape)


def _linear(what: str, x: mx.array, weight: mx.array, bias: Optional[mx.array]) -> Optional[mx.array]:
    """x @ W^T (+ bias) on `kernels.matmul.linear`; None (the fallback counted) where it cannot run."""
    params = (weight,) if bias is None else (weight, bias)
    problem = _shape_problem(what, x, weight.shape[1]) or dtype_problem(what, x, *params)
    if problem:
        fall_back(problem)
        return None
    return matmul.linear(_rows(x), weight, bias).reshape(*x.shape[:-1], weight.shape[0])


class Linear(nn.Linear):
    """`mlx.nn.Linear` on `kernels.matmul.linear` (x @ W^T with the bias added in the kernel)."""

    def __call__(self, x: mx.array) -> mx.array:
        out = _linear("Linear", x, self["weight"], self["bias"] if "bias" in self else None)
        return super().__call__(x) if out is None else out


class Embedding(nn.Embedding):
    """`mlx.nn.Embedding` whose `as_linear` (a tied output head) runs as Linear's product."""

    def as_linear(self, x: mx.array) -> mx.array:
        out = _linear("Embedding.as_linear", x, self["weight"], None)
        return super().as_linear(x) if out is None else out


def _quantized_product(what: str, layer: nn.Module, x: mx.array) -> Optional[mx.array]:
    """x @ W^T for a layer holding an MLX-quantized W (`weight`, `scales`, `biases`, `group_size`,
    `bits`, `mode`): one row of input (a decode step) on the quantized matvec `kernels.quantized.qmv`,
    more rows (a prefill) on the quantized matmul `kernels.quantized.qmm`; None (the fallback
    counted) where the kernels cannot take it."""
    weight, scales, biases = layer["weight"], layer["scales"], layer.get("biases")
    problem = None
    if layer.mode != "affine" or biases is None:
        problem = f"{what}: mode {layer.mode!r} (the kernels take 'affine')"
    elif layer.bits not in quantized.BITS:
        problem = f"{what}: bits={layer.bits} (the kernels take {', '.join(map(str, quantized.BITS))})"
    problem = problem or _shape_problem(what, x, weight.shape[1] * 32 // layer.bits) or dtype_problem(
        what, x, scales)
    if problem:
        fall_back(problem)
        return None
    rows = _rows(x)
    if rows.shape[0] == 1:
        out = quantized.qmv(rows.reshape(-1), weight, scales, biases, layer.group_size, layer.bits)
    else:
        out = quantized.qmm(rows, weight, scales, biases, layer.group_size, layer.bits)
    return out.reshape(*x.shape[:-1], weight.shape[0])


class QuantizedLinear(nn.QuantizedLinear):
    """`mlx.nn.QuantizedLinear` in MLX's affine format (bits 2, 4, 8; any group size MLX makes) on
    the quantized matvec (one row) or matmul (more rows); the bias is added after."""

    def __call__(self, x: mx.array) -> mx.array:
        out = _quantized_product("QuantizedLinear", self, x)
        if out is None:
            return super().__call__(x)
        return out + self["bias"] if "bias" in self else out


class QuantizedEmbedding(nn.QuantizedEmbedding):
    """`mlx.nn.QuantizedEmbedding` whose `as_linear` (the output head of a model with tied
    embeddings, e.g. Llama-3.2-1B, Qwen2) runs as QuantizedLinear's product; the lookup is MLX's."""

    def as_linear(self, x: mx.array) -> mx.array:
        out = _quantized_product("QuantizedEmbedding.as_linear", self, x)
        return super().as_linear(x) if out is None else out


def _attention_problem(q: mx.array, k: mx.array, v: mx.array, mask: Any, sinks: Optional[mx.array]) -> Optional[str]:
    """Why the attention kernels cannot take this call, or None."""
    if sinks is not None:
        return "scaled_dot_product_attention: attention sinks"
    if q.ndim != 4 or k.ndim != 4 or v.shape != k.shape or q.shape[0] != k.shape[0] or q.shape[3] != k.shape[3]:
        return (f"scaled_dot_product_attention: q, k, v of {q.ndim}, {k.ndim}, {v.ndim} axes or unmatched sizes "
                "(expected (B, H, L, D), (B, H_kv, S, D) twice)")
    if q.shape[1] % k.shape[1]:
        return f"scaled_dot_product_attention: {q.shape[1]} query heads over {k.shape[1]} key heads"
    if not power_of_two(q.shape[3]):
        return f"scaled_dot_product_attention: head dimension {q.shape[3]} (the kernels take powers of two)"
    if mask is not None and not (isinstance(mask, str) and mask == "causal"):
        return f"scaled_dot_product_attention: a mask of kind {type(mask).__name__} (the kernels take None, 'causal')"
    if q.shape[2] > k.shape[2]:
        return "scaled_dot_product_attention: more queries than keys"
    return dtype_problem("scaled_dot_product_attention", q, k, v)


def scaled_dot_product_attention(q: mx.array, k: mx.array, v: mx.array, *, scale: float,
                                 mask: Union[None, str, mx.array] = None,
                                 sinks: Optional[mx.array] = None) -> mx.array:
    """`mx.fast.scaled_dot_product_attention` for q (B, H, L, D) and k, v (B, H_kv, S, D), H a multiple
    of H_kv (grouped-query): one query per head (a decode step, mask None or 'causal') on the split
    decode attention `kernels.attention`, more queries (a prefill, mask None or 'causal', the
    queries being the last positions of the keys as in MLX) on `kernels.flash_attention`. Batches
    fold into heads."""
    problem = _attention_problem(q, k, v, mask, sinks)
    if problem:
        fall_back(problem)
        return mx.fast.scaled_dot_product_attention(q, k, v, scale=scale, mask=mask, sinks=sinks)
    batch, heads, length, dim = q.shape
    kv_heads, keys = k.shape[1], k.shape[2]
    if length == 1:  # the one query is the last position: a causal mask hides nothing
        out = attention.decode_attention(q.reshape(batch * heads, dim), k.reshape(batch * kv_heads, keys, dim),
                                         v.reshape(batch * kv_heads, keys, dim), scale)
    else:
        out = flash_attention.flash_attention(q.reshape(batch * heads, length, dim),
                                              k.reshape(batch * kv_heads, keys, dim),
                                              v.reshape(batch * kv_heads, keys, dim), mask == "causal", scale)
    return out.reshape(q.shape)


DROP_INS: dict[type, type] = {nn.RMSNorm: RMSNorm, nn.LayerNorm: LayerNorm, nn.RoPE: RoPE, nn.Linear: Linear,
                              nn.Embedding: Embedding, nn.QuantizedLinear: QuantizedLinear,
                              nn.QuantizedEmbedding: QuantizedEmbedding}
"""Each mlx.nn class with its metalforge.nn drop-in (what `patch` swaps)."""
