"""`patch(model)`: metalforge's kernels inside any `mlx.nn.Module` tree, in place. Each module whose
class is exactly one of `DROP_INS`' mlx.nn classes becomes an instance of its metalforge.nn
subclass (the same object with the same parameters: only `__class__` changes, so references held
elsewhere, e.g. tied weights, see it too); and the `scaled_dot_product_attention` that mlx-lm's
model modules import from `mlx_lm.models.base` is replaced, in those Python modules, by one that
runs metalforge's attention (for every model of those architectures, until `unpatch`). mlx-lm is
never imported here: the modules are found through the classes of the model's layers."""
from __future__ import annotations

import collections
import functools
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import mlx.core as mx
import mlx.nn as nn

from . import layers
from .fallback import fall_back

ATTENTION = "scaled_dot_product_attention"
_ORIGINAL_OF = {ours: theirs for theirs, ours in layers.DROP_INS.items()}


@dataclass
class PatchReport:
    """What `patch` or `unpatch` changed: module paths with their classes, and the Python modules
    whose attention function was swapped."""
    modules: list[tuple[str, str]] = field(default_factory=list)   # (path in the tree, class name)
    attention: list[str] = field(default_factory=list)             # Python module names

    def counts(self) -> dict[str, int]:
        """Replaced modules by class name."""
        return dict(collections.Counter(name for _, name in self.modules))

    def __str__(self) -> str:
        parts = [f"{n} {name}" for name, n in sorted(self.counts().items())]
        parts += [f"{ATTENTION} in {module}" for module in self.attention]
        return ", ".join(parts) or "nothing replaced"


def _mlx_lm_attention(original: Callable[..., mx.array]) -> Callable[..., mx.array]:
    """mlx-lm's `scaled_dot_product_attention(queries, keys, values, cache, scale, mask, sinks=None)`
    on metalforge's attention; a quantized KV cache keeps mlx-lm's own path."""
    @functools.wraps(original)
    def scaled_dot_product_attention(queries: mx.array, keys: Any, values: Any, cache: Any, scale: float,
                                     mask: Any, sinks: Optional[mx.array] = None) -> mx.array:
        if hasattr(cache, "bits"):
            fall_back(f"{ATTENTION}: a quantized KV cache")
            return original(queries, keys, values, cache, scale=scale, mask=mask, sinks=sinks)
        if queries.shape[2] == 1 and _holds_in_place(cache, keys, values):
            return layers.scaled_dot_product_attention(queries, cache.keys, cache.values, scale=scale, mask=mask,
                                                       sinks=sinks, length=cache.offset)
        return layers.scaled_dot_product_attention(queries, keys, values, scale=scale, mask=mask, sinks=sinks)

    scaled_dot_product_attention.metalforge_original = original
    return layers.attention_wrapper(scaled_dot_product_attention)


def _holds_in_place(cache: Any, keys: mx.array, values: mx.array) -> bool:
    """Whether `keys` and `values` are the first `cache.offset` slots of the buffers of mlx-lm's
    plain `KVCache` (what its `update_and_fetch` returns: `self.keys[..., :self.offset, :]`), so
    that the decode attention reads the buffers in place instead of MLX copying the slices to
    contiguous arrays (two copies a layer a step). Other caches (rotating, quantized) keep theirs."""
    if not layers.plain_kv_cache(cache):
        return False
    k, v = getattr(cache, "keys", None), getattr(cache, "values", None)
    return isinstance(k, mx.array) and isinstance(v, mx.array) and k.ndim == v.ndim == 4 and \
        keys.shape == (*k.shape[:2], cache.offset, k.shape[3]) and \
        values.shape == (*v.shape[:2], cache.offset, v.shape[3])


def _is_mlx_lm_attention(fn: Any) -> bool:
    """mlx-lm's own attention function (not metalforge's wrapper, which carries its name too)."""
    return callable(fn) and getattr(fn, "__module__", "").endswith("mlx_lm.models.base") \
        and getattr(fn, "__name__", "") == ATTENTION and not hasattr(fn, "metalforge_original")


def _gated_mlp_call(self, x):  # mlx-lm's gated MLP as Llama and Qwen2 write it (compared, never run)
    return self.down_proj(swiglu(self.gate_proj(x), self.up_proj(x)))  # noqa: F821


def _is_swiglu_mlp(cls: type) -> bool:
    """Whether `cls.__call__` is mlx-lm's gated MLP: the same bytecode and names as `_gated_mlp_call`,
    and `swiglu` mlx-lm's own activation (whatever the model's Python module)."""
    if not _same_code(cls, _gated_mlp_call):
        return False
    activations = sys.modules.get("mlx_lm.models.activations")
    return activations is not None and \
        cls.__dict__["__call__"].__globals__.get("swiglu") is getattr(activations, "swiglu", None)


def _qkv_attention_call(self, x, mask=None, cache=None):  # mlx-lm's Llama and Qwen2 attention (compared, never run)
    B, L, D = x.shape

    queries, keys, values = self.q_proj(x), self.k_proj(x), self.v_proj(x)

    queries = queries.reshape(B, L, self.n_heads, -1).transpose(0, 2, 1, 3)
    keys = keys.reshape(B, L, self.n_kv_heads, -1).transpose(0, 2, 1, 3)
    values = values.reshape(B, L, self.n_kv_heads, -1).transpose(0, 2, 1, 3)

    if cache is not None:
        queries = self.rope(queries, offset=cache.offset)
        keys = self.rope(keys, offset=cache.offset)
        keys, values = cache.update_and_fetch(keys, values)
    else:
        queries = self.rope(queries)
        keys = self.rope(keys)

    output = scaled_dot_product_attention(  # noqa: F821
        queries, keys, values, cache=cache, scale=self.scale, mask=mask
    )
    output = output.transpose(0, 2, 1, 3).reshape(B, L, -1)
    return self.o_proj(output)


def _transformer_block_call(self, x, mask=None, cache=None):  # mlx-lm's Llama and Qwen2 block (compared, never run)
    r = self.self_attn(self.input_layernorm(x), mask, cache)
    h = x + r
    r = self.mlp(self.post_attention_layernorm(h))
    out = h + r
    return out


def _same_code(cls: type, reference: Callable) -> bool:
    """Whether `cls.__call__` (its own, not inherited) compiles to `reference`'s code: bytecode,
    names, constants and variables."""
    code, ref = getattr(cls.__dict__.get("__call__"), "__code__", None), reference.__code__
    return code is not None and (code.co_code, code.co_names, code.co_consts, code.co_varnames) == \
        (ref.co_code, ref.co_names, ref.co_consts, ref.co_varnames)


def _is_qkv_attention(cls: type) -> bool:
    """Whether `cls.__call__` is mlx-lm's Llama/Qwen2 attention (`_qkv_attention_call`'s code), its
    attention function mlx-lm's (or metalforge's wrapper of it)."""
    if not _same_code(cls, _qkv_attention_call):
        return False
    attention = cls.__dict__["__call__"].__globals__.get(ATTENTION)
    return _is_mlx_lm_attention(getattr(attention, "metalforge_original", attention))


def _python_modules(model: nn.Module) -> list[Any]:
    """The Python modules that define the classes of the model's layers (a fused class's original's),
    each once."""
    classes = (getattr(type(m), "metalforge_original", type(m)) for _, m in model.named_modules())
    names = dict.fromkeys(cls.__module__ for cls in classes)
    return [sys.modules[name] for name in names if name in sys.modules]


def _check(model: Any, what: str) -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"metalforge.nn.{what}: expected an mlx.nn.Module, got {type(model).__name__}")


def patch(model: nn.Module) -> PatchReport:
    """Swap the model's RMSNorm, LayerNorm, RoPE, Linear, Embedding, QuantizedLinear and
    QuantizedEmbedding modules (exactly those classes: subclasses with their own behaviour, e.g. mlx-lm's scaled RoPEs, stay) for
    metalforge.nn's, mlx-lm's gated MLPs for ones that fuse gate, up and SwiGLU (`layers.FusedSwiGLU`),
    mlx-lm's Llama/Qwen2 attention layers for ones that fuse the query, key and value projections
    (`layers.FusedQKV`; both at a decode step and in a prefill), their transformer blocks for ones that fuse
    the norms and residual adds into those launches (`layers.FusedBlock`), and mlx-lm's attention
    function in the model's Python modules; returns what was replaced. Patching twice replaces
    nothing more."""
    _check(model, "patch")
    report = PatchReport()
    for path, module in model.named_modules():
        drop_in = layers.DROP_INS.get(type(module))
        if drop_in is None and _is_swiglu_mlp(type(module)):
            drop_in = layers.fused(layers.FusedSwiGLU, type(module))
        elif drop_in is None and _is_qkv_attention(type(module)):
            drop_in = layers.fused(layers.FusedQKV, type(module))
        elif drop_in is None and _same_code(type(module), _transformer_block_call):
            drop_in = layers.fused(layers.FusedBlock, type(module))
        if drop_in is not None:
            module.__class__ = drop_in
            report.modules.append((path, drop_in.__name__))
    for python_module in _python_modules(model):
        if _is_mlx_lm_attention(getattr(python_module, ATTENTION, None)):
            setattr(python_module, ATTENTION, _mlx_lm_attention(getattr(python_module, ATTENTION)))
            report.attention.append(python_module.__name__)
    return report


def unpatch(model: nn.Module) -> PatchReport:
    """Undo `patch`: the modules get their mlx.nn classes back, the Python modules their attention
    function; returns what was restored."""
    _check(model, "unpatch")
    report = PatchReport()
    layers.forget_prepared(model)
    for path, module in model.named_modules():
        original = _ORIGINAL_OF.get(type(module)) or type(module).__dict__.get("metalforge_original")
        if original is not None:
            module.__class__ = original
            report.modules.append((path, original.__name__))
    for python_module in _python_modules(model):
        original = getattr(getattr(python_module, ATTENTION, None), "metalforge_original", None)
        if original is not None:
            setattr(python_module, ATTENTION, original)
            report.attention.append(python_module.__name__)
    return report
