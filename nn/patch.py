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
        return layers.scaled_dot_product_attention(queries, keys, values, scale=scale, mask=mask, sinks=sinks)

    scaled_dot_product_attention.metalforge_original = original
    return scaled_dot_product_attention


def _is_mlx_lm_attention(fn: Any) -> bool:
    """mlx-lm's own attention function (not metalforge's wrapper, which carries its name too)."""
    return callable(fn) and getattr(fn, "__module__", "").endswith("mlx_lm.models.base") \
        and getattr(fn, "__name__", "") == ATTENTION and not hasattr(fn, "metalforge_original")


def _gated_mlp_call(self, x):  # mlx-lm's gated MLP as Llama and Qwen2 write it (compared, never run)
    return self.down_proj(swiglu(self.gate_proj(x), self.up_proj(x)))  # noqa: F821


def _is_swiglu_mlp(cls: type) -> bool:
    """Whether `cls.__call__` is mlx-lm's gated MLP: the same bytecode and names as `_gated_mlp_call`,
    and `swiglu` mlx-lm's own activation (whatever the model's Python module)."""
    call = cls.__dict__.get("__call__")
    code, reference = getattr(call, "__code__", None), _gated_mlp_call.__code__
    if code is None or (code.co_code, code.co_names) != (reference.co_code, reference.co_names):
        return False
    activations = sys.modules.get("mlx_lm.models.activations")
    return activations is not None and call.__globals__.get("swiglu") is getattr(activations, "swiglu", None)


def _python_modules(model: nn.Module) -> list[Any]:
    """The Python modules that define the classes of the model's layers, each once."""
    names = dict.fromkeys(type(m).__module__ for _, m in model.named_modules())
    return [sys.modules[name] for name in names if name in sys.modules]


def _check(model: Any, what: str) -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"metalforge.nn.{what}: expected an mlx.nn.Module, got {type(model).__name__}")


def patch(model: nn.Module) -> PatchReport:
    """Swap the model's RMSNorm, LayerNorm, RoPE, Linear, Embedding, QuantizedLinear and
    QuantizedEmbedding modules (exactly those classes: subclasses with their own behaviour, e.g. mlx-lm's scaled RoPEs, stay) for
    metalforge.nn's, mlx-lm's gated MLPs for ones that fuse gate, up and SwiGLU at a decode step
    (`layers.FusedSwiGLU`), and mlx-lm's attention function in the model's Python modules; returns
    what was replaced. Patching twice replaces nothing more."""
    _check(model, "patch")
    report = PatchReport()
    for path, module in model.named_modules():
        drop_in = layers.DROP_INS.get(type(module))
        if drop_in is None and _is_swiglu_mlp(type(module)):
            drop_in = layers.fused_swiglu(type(module))
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
