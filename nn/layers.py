"""Drop-in layers: subclasses of their `mlx.nn` counterparts (same constructor arguments, parameter
names and shapes, call semantics, so weights load unchanged) whose `__call__` runs the tuned
library kernels. What the kernels do not take (a dtype, a shape, a mask kind, a quantization mode)
runs the MLX built-in instead, counted in `fallbacks()`. Leading axes are flattened into rows."""
from __future__ import annotations

import functools
import itertools
import operator
import weakref
from typing import Any, Callable, NamedTuple, Optional, Union

import mlx.core as mx
import mlx.nn as nn

from ..kernels import attention, flash_attention, matmul, norms, quantized, rope
from .fallback import dtype_problem, fall_back, power_of_two


@functools.lru_cache(maxsize=4096)
def _problem(what: str, shape: tuple, features: int, *dtypes: mx.Dtype) -> Optional[str]:
    """Why the kernels cannot take an input of `shape` to a layer over `features` with arrays of
    `dtypes` (the input's first), or None. Reasons name no sizes that change from call to call (a
    sequence length), so each is logged once. Cached: a model asks it of the same few shapes on
    every call, and a decode step makes hundreds of calls."""
    if not shape or 0 in shape:
        return f"{what}: an empty or 0-d input"
    if shape[-1] != features:
        return f"{what}: input's last axis {shape[-1]}, expected {features}"
    return dtype_problem(what, *dtypes)


# bumped by every change to a `Watched` module, in any model
_GENERATION = [0]


class Watched:
    """Mixed into the modules a fused block's decode step depends on (the norms, RoPE and quantized
    projections it reads, the block, attention and MLP that hold them): any change to one (an
    attribute or item set or deleted, a dict method that changes items; mlx.nn's `update`,
    `load_weights` and `set_dtype` set items) bumps `_GENERATION`, so a decode step knows that
    nothing it was made for changed by comparing one integer (`_decode_step`)."""
    __slots__ = ()


def _bumping(name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        _GENERATION[0] += 1
        return getattr(super(Watched, self), name)(*args, **kwargs)
    method.__name__ = method.__qualname__ = name
    return method


for _name in ("__setattr__", "__delattr__", "__setitem__", "__delitem__", "__ior__", "update", "pop", "popitem",
              "clear", "setdefault"):
    setattr(Watched, _name, _bumping(_name))


class RMSNorm(Watched, nn.RMSNorm):
    """`mlx.nn.RMSNorm` on `kernels.norms.rms_norm`."""

    def __call__(self, x: mx.array) -> mx.array:
        weight = self["weight"]
        problem = _problem("RMSNorm", x.shape, weight.shape[0], x.dtype, weight.dtype)
        if problem:
            fall_back(problem)
            return super().__call__(x)
        return norms.rms_norm(x, weight, self.eps)


class LayerNorm(nn.LayerNorm):
    """`mlx.nn.LayerNorm` (affine or not, with or without bias) on `kernels.norms.layer_norm`."""

    def __call__(self, x: mx.array) -> mx.array:
        weight = self["weight"] if "weight" in self else mx.ones((self.dims,), x.dtype)
        bias = self["bias"] if "bias" in self else mx.zeros((self.dims,), x.dtype)
        problem = _problem("LayerNorm", x.shape, self.dims, x.dtype, weight.dtype, bias.dtype)
        if problem:
            fall_back(problem)
            return super().__call__(x)
        return norms.layer_norm(x, weight, bias, self.eps)[0]


class RoPE(Watched, nn.RoPE):
    """`mlx.nn.RoPE` (traditional or not, any base and scale, an integer offset) on
    `kernels.rope.rope`; positions run along the second-to-last axis."""

    def __call__(self, x: mx.array, offset: int = 0) -> mx.array:
        problem = (_rope_problem(x.shape, x.dtype, self.dims) if type(offset) is int
                   else "RoPE: an array offset (per-sequence positions)")
        if problem:
            fall_back(problem)
            return super().__call__(x, offset)
        return rope.rope(x, self.base, offset, self.scale, self.traditional)


@functools.lru_cache(maxsize=4096)
def _rope_problem(shape: tuple, dtype: mx.Dtype, dims: int) -> Optional[str]:
    """Why the RoPE kernel cannot rotate an input of `shape` and `dtype` by `dims`, or None (cached as
    `_problem`)."""
    if len(shape) < 3 or 0 in shape:  # under 3 axes: MLX's error
        return f"RoPE: an input of {len(shape)} axes or empty"
    if shape[-1] != dims:
        return f"RoPE: dims={dims} of rows of {shape[-1]} (rotating part of each row)"
    if not power_of_two(dims // 2) or dims % 2:
        return f"RoPE: dims={dims} (the kernel takes twice a power of two)"
    return dtype_problem("RoPE", dtype)


def _linear(what: str, x: mx.array, weight: mx.array, bias: Optional[mx.array]) -> Optional[mx.array]:
    """x @ W^T (+ bias) on `kernels.matmul.linear`; None (the fallback counted) where it cannot run."""
    dtypes = (weight.dtype,) if bias is None else (weight.dtype, bias.dtype)
    problem = _problem(what, x.shape, weight.shape[1], x.dtype, *dtypes)
    if problem:
        fall_back(problem)
        return None
    return matmul.linear(x.reshape(-1, x.shape[-1]), weight, bias).reshape(*x.shape[:-1], weight.shape[0])


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


_PREPARED_PER_LAYER = 8  # launches a layer keeps prepared (a decode loop needs one per shape)


def prepared(layer: nn.Module, key: tuple, launch: Callable[[], Any]) -> Callable[..., Any]:
    """The launch `launch()` builds (a library `*_launch` function's `Launch`), prepared once for
    `layer` and `key` (launcher's `prepare`: the weights fixed, only the step's inputs passed), kept
    on the layer: a decode step calls each layer's kernels with the same weights token after token,
    and a full launch's checks and key over every argument cost more host time than MLX's own ops. `key` holds the ids of the arrays
    the launch fixes (the entry keeps them alive, so an id cannot stand for another array while it
    is kept: new weights make a new entry) after what describes the call's input (`key[:2]`: its shape
    and the launch's kind, its dtype): an entry made for the same input drops those of other
    weights, so replaced weights are not kept alive. At
    most _PREPARED_PER_LAYER entries are kept."""
    launches = layer.__dict__.get("_metalforge_prepared")
    if launches is None:
        launches = {}
        object.__setattr__(layer, "_metalforge_prepared", launches)  # not a parameter: Module's setattr would keep it
    found = launches.get(key)
    if found is None:
        for other in [k for k in launches if k[:2] == key[:2]]:  # the same input with other weights: stale
            del launches[other]
        if len(launches) >= _PREPARED_PER_LAYER:
            launches.clear()
        found = launches[key] = launch().prepare()
    return found


def forget_prepared(model: nn.Module) -> None:
    """Drop the launches the layers of `model` keep prepared (`prepared`, the blocks' `DecodeStep`),
    and the weights they hold:
    `unpatch` does, and so may anything that wraps the library's launch functions (a profiler)."""
    for _, module in model.named_modules():
        module.__dict__.pop("_metalforge_prepared", None)
        module.__dict__.pop("_metalforge_decode", None)


def _quantized_product(what: str, layer: nn.Module, x: mx.array,
                       residual: Optional[mx.array] = None) -> Optional[mx.array]:
    """x @ W^T for a layer holding an MLX-quantized W (`weight`, `scales`, `biases`, `group_size`,
    `bits`, `mode`): one row of input (a decode step) on the quantized matvec `kernels.quantized.qmv`
    (plus `residual` in its launch where given), more rows (a prefill) on the quantized matmul
    `kernels.quantized.qmm` (the residual added after); None (the fallback counted) where the
    kernels cannot take it."""
    weight, scales, biases = layer["weight"], layer["scales"], layer.get("biases")
    problem = _quantized_problem(what, layer.mode, layer.bits, biases is None, x.shape, weight.shape[1], x.dtype,
                                 scales.dtype)
    if problem:
        fall_back(problem)
        return None
    if x.size == x.shape[-1]:
        group_size, bits = layer.group_size, layer.bits
        key = ((x.shape, residual is None), x.dtype, group_size, bits, id(weight), id(scales), id(biases))
        launch = prepared(layer, key, lambda: quantized.qmv_launch(x, weight, scales, biases, group_size, bits, residual))
        return launch(x) if residual is None else launch(x, residual)
    out = quantized.qmm(x, weight, scales, biases, layer.group_size, layer.bits)
    return out if residual is None else residual + out


@functools.lru_cache(maxsize=4096)
def _quantized_problem(what: str, mode: str, bits: int, no_biases: bool, shape: tuple, words: int, dtype: mx.Dtype,
                       scales_dtype: mx.Dtype) -> Optional[str]:
    """Why the quantized kernels cannot take this product (an input of `shape` against a weight of
    `words` 32-bit words per row), or None (cached as `_problem`)."""
    if mode != "affine" or no_biases:
        return f"{what}: mode {mode!r} (the kernels take 'affine')"
    if bits not in quantized.BITS:
        return f"{what}: bits={bits} (the kernels take {', '.join(map(str, quantized.BITS))})"
    return _problem(what, shape, words * 32 // bits, dtype, scales_dtype)


class QuantizedLinear(Watched, nn.QuantizedLinear):
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


class FusedSwiGLU(Watched):
    """Mixed into a gated MLP class whose call is `down_proj(swiglu(gate_proj(x), up_proj(x)))`
    (mlx-lm's Llama and Qwen2 MLP; `patch` checks the code): with both projections quantized alike,
    the two products and the activation are one launch instead of three: at a decode step (one row)
    the quantized matvec's (`quantized.qmv_swiglu`), for more rows (a prefill) the quantized
    matmul's (`quantized.qmm_swiglu`). `FusedBlock` hands it the block's norm before it and the
    residual after: at a decode step the norm then goes into that launch and the residual into the
    down projection's (`_residual_product`); a prefill runs the norm before it. Anything else runs
    the class's own call, whose projections are metalforge's layers all the same (the norm and
    residual then as the block has them)."""

    def __call__(self, x: mx.array, *, norm: Optional[nn.Module] = None,
                 residual: Optional[mx.array] = None) -> mx.array:
        if norm is not None and not _norm_fusable(norm, x):
            x, norm = norm(x), None
        gate, up = self["gate_proj"], self["up_proj"]
        if _swiglu_fusable(gate, up, x):
            if x.size != x.shape[-1]:  # a prefill's rows
                hidden = quantized.qmm_swiglu(x if norm is None else norm(x), _quantized(gate), _quantized(up),
                                              gate.group_size, gate.bits)
                return _residual_product(self["down_proj"], hidden, residual)
            weights, fused_norm = (*_quantized(gate), *_quantized(up)), _fused_norm(norm, x)
            key = (x.shape, x.dtype, gate.group_size, gate.bits, *map(id, weights),
                   None if fused_norm is None else (id(fused_norm.weight), fused_norm.eps))
            launch = prepared(self, key, lambda: quantized.qmv_swiglu_launch(
                x, weights[:3], weights[3:], gate.group_size, gate.bits, fused_norm))
            return _residual_product(self["down_proj"], launch(x), residual)
        out = super().__call__(x if norm is None else norm(x))
        return out if residual is None else residual + out


def _fused_norm(norm: Optional[nn.Module], x: mx.array) -> Optional[quantized.Norm]:
    """The RMS norm a fused product applies to its input x (the caller checked it with
    `_norm_fusable`), or None."""
    return None if norm is None else quantized.Norm(norm["weight"], norm.eps)


def _norm_fusable(norm: nn.Module, x: mx.array) -> bool:
    """Whether a product's kernel can apply `norm` to its input x: metalforge's RMSNorm (not a
    subclass with its own behaviour) with a weight of x's width and dtype."""
    if type(norm) is not RMSNorm:
        return False
    weight = norm["weight"]
    return weight.shape == (x.shape[-1],) and weight.dtype == x.dtype


def _residual_product(layer: nn.Module, x: mx.array, residual: Optional[mx.array]) -> mx.array:
    """residual + layer(x), the residual added inside the quantized matvec's launch where the layer
    is metalforge's QuantizedLinear without bias and x one row (a decode step); else as the block
    adds it."""
    if residual is None:
        return layer(x)
    if _residual_fusable(layer, x, residual):
        out = _quantized_product("QuantizedLinear", layer, x, residual)
        return residual + nn.QuantizedLinear.__call__(layer, x) if out is None else out  # a fallback: counted
    return residual + layer(x)


def _residual_fusable(layer: nn.Module, x: mx.array, residual: mx.array) -> bool:
    """Whether the quantized matvec can add `residual` to layer(x) in its launch: the layer
    metalforge's QuantizedLinear without bias, the residual of x's dtype and of the output's shape
    (whether the kernels take the product itself, `_quantized_product` asks)."""
    return type(layer) is QuantizedLinear and "bias" not in layer and residual.dtype == x.dtype and \
        residual.shape == (*x.shape[:-1], layer["weight"].shape[0])


def _swiglu_fusable(gate: nn.Module, up: nn.Module, x: mx.array) -> bool:
    """Both projections metalforge's QuantizedLinear without bias, of one shape (`_fusable`)."""
    return "bias" not in gate and "bias" not in up and _fusable((gate, up), x) and \
        up["weight"].shape == gate["weight"].shape


def _fusable(projections: tuple, x: mx.array) -> bool:
    """The projections all metalforge's QuantizedLinear, of one group size, bits, mode, input width
    and scales dtype, and the kernels take the product (no fallback to count: the projections run
    unfused otherwise, each on its kernel where it can). Written as a plain loop: a decode step asks
    it of every layer, and generator expressions cost several microseconds a call on a slow host."""
    facts = None
    for p in projections:
        if type(p) is not QuantizedLinear or "biases" not in p:
            return False
        mine = (p.group_size, p.bits, p.mode, p["weight"].shape[1], p["scales"].dtype)
        if facts is None:
            facts = mine
        elif mine != facts:
            return False
    group_size, bits, mode, words, scales_dtype = facts
    return _quantized_problem("QuantizedLinear", mode, bits, False, x.shape, words, x.dtype, scales_dtype) is None


def _quantized(layer: nn.Module) -> quantized.Quantized:
    return layer["weight"], layer["scales"], layer["biases"]


class FusedQKV(Watched):
    """Mixed into an attention class whose call is mlx-lm's Llama and Qwen2 attention (`patch`
    checks the code: `qkv_attention_call` below): at a decode step (one row) with the query, key
    and value projections quantized alike, the three products are one launch (`quantized.qmv_qkv`)
    instead of three; the projections' biases (Qwen2's: all three, in the input's dtype) are added
    in the same launch, and with metalforge's RoPE over whole heads it rotates the queries and keys
    too (two launches fewer again). Other biases are added after the products, as QuantizedLinear
    adds them (RoPE then runs on its own). For more rows (a prefill) the three products, and biases
    the kernel can add, are one quantized matmul (`quantized.qmm_qkv`; the norm runs before it, RoPE
    after). The rest is that call's own steps. Anything else runs the class's own call."""

    def __call__(self, x: mx.array, mask: Optional[mx.array] = None, cache=None, *, norm: Optional[nn.Module] = None,
                 residual: Optional[mx.array] = None) -> mx.array:
        if norm is not None and not _norm_fusable(norm, x):
            x, norm = norm(x), None
        projections = (self["q_proj"], self["k_proj"], self["v_proj"])
        if x.ndim != 3 or not _fusable(projections, x) or \
                projections[1]["weight"].shape != projections[2]["weight"].shape:
            return self._unfused(x if norm is None else norm(x), mask, cache, residual)
        if x.size != x.shape[-1]:  # a prefill's rows: the products in one launch, the norm before it
            return self._prefill(x if norm is None else norm(x), mask, cache, projections, residual)
        bias = _projection_biases(projections, x)
        # biases the kernel cannot add come after the products, and the rotation after them
        rotation = _fused_rotation(self, projections, x, cache) if bias or not any("bias" in p for p in projections) \
            else None
        weights, fused_norm = tuple(map(_quantized, projections)), _fused_norm(norm, x)
        group_size, bits = projections[0].group_size, projections[0].bits
        key = ((x.shape, None if rotation is None else rotation._replace(offset=0)), x.dtype, group_size, bits,
               *[id(a) for w in weights for a in w],
               None if fused_norm is None else (id(fused_norm.weight), fused_norm.eps),
               None if bias is None else tuple(map(id, bias)))
        launch = prepared(self, key, lambda: quantized.qmv_qkv_launch(x, *weights, group_size, bits, rotation,
                                                                      fused_norm, bias))
        products = launch(x) if rotation is None else launch(x, rotation.offset)
        queries, keys, values = products if bias else \
            (out + p["bias"] if "bias" in p else out for out, p in zip(products, projections))
        return qkv_attention_call(self, x, mask, cache, queries, keys, values, rotated=rotation is not None,
                                  residual=residual)

    def _prefill(self, x: mx.array, mask: Optional[mx.array], cache: Any, projections: tuple,
                 residual: Optional[mx.array]) -> mx.array:
        """The call for more than one row: the three products (and their biases, where all three have
        one in x's dtype) in one quantized matmul (`quantized.qmm_qkv`), the rest the class's steps."""
        bias = _projection_biases(projections, x)
        if bias is None and any("bias" in p for p in projections):
            return self._unfused(x, mask, cache, residual)
        products = quantized.qmm_qkv(x, *map(_quantized, projections), projections[0].group_size,
                                     projections[0].bits, bias)
        return qkv_attention_call(self, x, mask, cache, *products, residual=residual)

    def _unfused(self, x: mx.array, mask: Optional[mx.array], cache: Any, residual: Optional[mx.array]) -> mx.array:
        """The class's own call on x (already normed), the block's residual added after."""
        out = super().__call__(x, mask, cache)
        return out if residual is None else residual + out


def _projection_biases(projections: tuple, x: mx.array) -> Optional[tuple[mx.array, mx.array, mx.array]]:
    """The q, k and v projections' biases for qmv_qkv to add (Qwen2's): where all three have one, in
    x's dtype (the sum's dtype is then x's, as MLX's addition makes it); else None."""
    if not all("bias" in p for p in projections):
        return None
    biases = tuple(p["bias"] for p in projections)
    return biases if all(b.dtype == x.dtype for b in biases) else None


def _fused_rotation(attention: nn.Module, projections: tuple, x: mx.array, cache) -> Optional[quantized.Rotation]:
    """The RoPE qmv_qkv can apply for this attention layer at this step, or None: its rope
    metalforge's RoPE (not a subclass with its own behaviour) over whole heads that the kernel
    takes, an integer position (the caller checks that the biases, which come before the
    rotation, are in the launch too)."""
    rope_layer, offset = attention.rope, 0 if cache is None else cache.offset
    if type(rope_layer) is not RoPE or type(offset) is not int:
        return None
    head_dim = projections[1]["weight"].shape[0] // attention.n_kv_heads  # rows of W_k per head
    if projections[0]["weight"].shape[0] != attention.n_heads * head_dim or \
            _rope_problem((1, attention.n_heads, 1, head_dim), x.dtype, rope_layer.dims):
        return None
    return quantized.Rotation(head_dim, rope_layer.base, offset, rope_layer.scale, rope_layer.traditional)


def attention_function(layer: nn.Module) -> Optional[Callable[..., mx.array]]:
    """The attention function a fused attention layer's mlx-lm class calls: the one its Python module
    holds now (metalforge's wrapper while patched, or whatever the user put there)."""
    return layer.metalforge_original.__call__.__globals__.get("scaled_dot_product_attention")


def qkv_attention_call(self: nn.Module, x: mx.array, mask: Optional[mx.array], cache: Any, queries: mx.array,
                       keys: mx.array, values: mx.array, rotated: bool = False,
                       residual: Optional[mx.array] = None) -> mx.array:
    """mlx-lm's Llama and Qwen2 attention after its three projections (`queries, keys, values =
    self.q_proj(x), self.k_proj(x), self.v_proj(x)`), line for line, the queries' and keys' RoPE
    left out where the projections came `rotated`, and the block's `residual` added by the output
    projection (`_residual_product`) where given; `patch` fuses an attention class only where its
    call is this with that line in front (`nn/patch.py` compares the code). The attention function
    is the one the class's Python module holds now (patched or not)."""
    B, L, D = x.shape
    queries = queries.reshape(B, L, self.n_heads, -1).transpose(0, 2, 1, 3)
    keys = keys.reshape(B, L, self.n_kv_heads, -1).transpose(0, 2, 1, 3)
    values = values.reshape(B, L, self.n_kv_heads, -1).transpose(0, 2, 1, 3)

    if cache is not None:
        if not rotated:
            queries = self.rope(queries, offset=cache.offset)
            keys = self.rope(keys, offset=cache.offset)
        keys, values = cache.update_and_fetch(keys, values)
    elif not rotated:
        queries = self.rope(queries)
        keys = self.rope(keys)

    output = attention_function(self)(queries, keys, values, cache=cache, scale=self.scale, mask=mask)
    output = output.transpose(0, 2, 1, 3).reshape(B, L, -1)
    return _residual_product(self["o_proj"], output, residual)


class FusedBlock(Watched):
    """Mixed into a transformer block class whose call is mlx-lm's Llama and Qwen2 pre-norm block
    (`h = x + self_attn(input_layernorm(x)); out = h + mlp(post_attention_layernorm(h))`; `patch`
    checks the code) whose attention and MLP are fused (`FusedQKV`, `FusedSwiGLU`) and whose norms
    are metalforge's RMSNorm: each norm goes into the launch of the products after it and each
    residual add into the launch of the projection before it, so a decode step's layer is two
    launches and two MLX additions fewer. The attention and MLP decide per call what they fuse: a
    norm their kernel cannot take (another class, another dtype than its input: the attention's
    output, hence h, can differ from x) is applied before, a residual it cannot take added after,
    the block's arithmetic. Anything else runs the class's own call."""

    def __call__(self, x: mx.array, mask: Optional[mx.array] = None, cache: Any = None) -> mx.array:
        # children by item, not attribute: Module.__getattr__ is a Python call, and this runs for
        # every layer of every step
        attention, mlp = self["self_attn"], self["mlp"]
        if not (isinstance(attention, FusedQKV) and isinstance(mlp, FusedSwiGLU)):
            return super().__call__(x, mask, cache)
        if mask is None and cache is not None and x.size == x.shape[-1]:
            step = _decode_step(self, attention, mlp, x, cache)
            if step is not None:
                return step(x, cache)
        h = attention(x, mask, cache, norm=self["input_layernorm"], residual=x)
        return mlp(h, norm=self["post_attention_layernorm"], residual=h)


_ATTENTION_WRAPPERS: "weakref.WeakSet[Callable[..., Any]]" = weakref.WeakSet()


def attention_wrapper(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark `fn` as `patch`'s own wrapper of mlx-lm's attention function: a `DecodeStep` calls the
    decode attention directly only where the attention layer's module holds one of these, not a
    function of the user's that wraps it (which `functools.wraps` would make look like it)."""
    _ATTENTION_WRAPPERS.add(fn)
    return fn


def plain_kv_cache(cache: Any) -> bool:
    """Whether `cache` is mlx-lm's plain `KVCache` (not a rotating or quantized one, not a subclass):
    its `update_and_fetch` writes a step's keys and values into the buffers `keys` and `values` and
    returns their first `offset` slots, which the decode attention can read in place."""
    kind = type(cache)
    return kind.__name__ == "KVCache" and kind.__module__.endswith("mlx_lm.models.cache")


class DecodeStep(NamedTuple):
    """A fused block's decode step (one token through mlx-lm's plain KVCache) with the block's
    checks made once (`_decode_step`): the four prepared launches of the full path (q/k/v with the
    input norm, biases and rotation, written in heads; the output projection with the residual; the
    MLP's products with its norm; the down projection with the residual), the cache's update and the
    decode attention over its buffers in between. The same kernels on the same arguments as the
    full path (FusedQKV, qkv_attention_call, FusedSwiGLU), without its per-call checks, keys, reshapes
    and the two attention wrappers: a decode step's pace is the host's (docs/models.md)."""
    qkv: Callable[..., Any]
    output: Callable[..., Any]
    swiglu: Callable[..., Any]
    down: Callable[..., Any]
    scale: float

    def __call__(self, x: mx.array, cache: Any) -> mx.array:
        queries, keys, values = self.qkv(x, cache.offset)
        cache.update_and_fetch(keys, values)
        out = attention.decode_attention(queries, cache.keys, cache.values, self.scale, cache.offset)
        h = self.output(out.reshape(x.shape[0], 1, -1), x)
        return self.down(self.swiglu(h), h)


def _modules_key(block: nn.Module, attn: nn.Module, mlp: nn.Module) -> Optional[tuple]:
    """What `_make_decode_step`'s checks read of the block's modules: each one's class, settings and
    arrays (how many, and their ids: the step keeps the arrays alive, so an id stands for its array
    while the step is kept); None where a module lacks a setting a fused block's modules have (the
    full path then decides). Written flat, with C-level maps."""
    rope = attn.get("rope")
    modules = (block["input_layernorm"], block["post_attention_layernorm"], attn["q_proj"], attn["k_proj"],
               attn["v_proj"], attn["o_proj"], mlp["gate_proj"], mlp["up_proj"], mlp["down_proj"])
    try:
        return (attn.n_heads, attn.n_kv_heads, attn.scale, type(rope), rope.dims, rope.base, rope.scale,
                rope.traditional, modules[0].eps, modules[1].eps, *map(type, modules),
                *map(_QUANTIZED_SETTINGS, modules[2:]), *map(len, modules),
                *map(id, itertools.chain.from_iterable(map(dict.values, modules))))
    except AttributeError:
        return None


_QUANTIZED_SETTINGS = operator.attrgetter("group_size", "bits", "mode")


def _dtype(buffer: Optional[mx.array]) -> Union[mx.Dtype, str]:
    """A cache buffer's dtype, or "no buffer" (an empty cache): not None, which MLX's Dtype refuses to
    be compared with (TypeError), and a decode step's facts are compared with the ones before."""
    return "no buffer" if buffer is None else buffer.dtype


class _KeptStep(NamedTuple):
    """What a block keeps of its last decode step: the step (None: the full path) and what it was
    made for."""
    modules: tuple
    step: Optional[DecodeStep]
    generation: Optional[int]  # _GENERATION then; None for a None step, whose modules need not be watched
    facts: tuple


def _decode_step(block: nn.Module, attn: nn.Module, mlp: nn.Module, x: mx.array, cache: Any) -> Optional[DecodeStep]:
    """The block's `DecodeStep` for this call, or None where the full path must run (the checks of
    `_make_decode_step`, kept as None). The block keeps the last one with what it was made for: the
    call's facts (x's shape and dtype, the cache's kind and dtypes, the attention function mlx-lm's
    module holds) and `_modules_key`; a key that changed (e.g. new weights) makes it anew and frees
    the old arrays. A step's modules are all `Watched`, so while no watched module changed since
    (`_GENERATION`), comparing the call's facts is enough: this runs for every layer of every
    decode step, and the modules' key costs several microseconds."""
    facts = (x.shape, x.dtype, type(cache), type(cache.offset), _dtype(cache.keys), _dtype(cache.values),
             attention_function(attn))
    kept = block.__dict__.get("_metalforge_decode")
    if kept is not None and kept.generation == _GENERATION[0] and kept.facts == facts:
        return kept.step
    generation = _GENERATION[0]  # read first: a change while the key is made is seen at the next call
    modules = _modules_key(block, attn, mlp)
    if modules is None:
        return None
    if kept is not None and kept.modules == modules and kept.facts == facts:
        step = kept.step
    else:
        step = _make_decode_step(block, attn, mlp, x, cache)
    # not a parameter (see `prepared`)
    kept = _KeptStep(modules, step, None if step is None else generation, facts)
    object.__setattr__(block, "_metalforge_decode", kept)
    return step


def _make_decode_step(block: nn.Module, attn: nn.Module, mlp: nn.Module, x: mx.array,
                      cache: Any) -> Optional[DecodeStep]:
    """A DecodeStep where the full path would fuse everything for this call (norms, biases, rotation
    and residuals in the launches; the decode attention reading mlx-lm's plain KVCache in place
    through metalforge's attention function), else None."""
    norm, post_norm = block["input_layernorm"], block["post_attention_layernorm"]
    projections = (attn["q_proj"], attn["k_proj"], attn["v_proj"])
    out_proj, gate, up, down = attn["o_proj"], mlp["gate_proj"], mlp["up_proj"], mlp["down_proj"]
    attend = attention_function(attn)
    buffers = (cache.keys, cache.values) if plain_kv_cache(cache) else ()
    if x.ndim != 3 or not buffers or attend not in _ATTENTION_WRAPPERS or type(cache.offset) is not int or \
            any(b is not None and b.dtype != x.dtype for b in buffers) or \
            not (_norm_fusable(norm, x) and _norm_fusable(post_norm, x)) or \
            not _fusable(projections, x) or projections[1]["weight"].shape != projections[2]["weight"].shape:
        return None
    bias = _projection_biases(projections, x)
    rotation = _fused_rotation(attn, projections, x, cache)
    if rotation is None or (bias is None and any("bias" in p for p in projections)):
        return None
    head_dim, heads = rotation.head_dim, attn.n_heads
    # placeholders of the attention's and the MLP's products: only their shapes and dtypes are read
    attended = mx.zeros((x.shape[0], 1, heads * head_dim), x.dtype)
    product = mx.zeros((*x.shape[:-1], gate["weight"].shape[0]), x.dtype)
    if not (_fusable((out_proj,), attended) and _residual_fusable(out_proj, attended, x) and
            _swiglu_fusable(gate, up, x) and _fusable((down,), product) and _residual_fusable(down, product, x)) or \
            _attention_problem((x.shape[0], heads, 1, head_dim), (x.shape[0], attn.n_kv_heads, 1, head_dim),
                               (x.shape[0], attn.n_kv_heads, 1, head_dim), None, False, (x.dtype,) * 3):
        return None
    qkv = quantized.qmv_qkv_launch(x, *map(_quantized, projections), projections[0].group_size, projections[0].bits,
                                   rotation, _fused_norm(norm, x), bias, heads=True)
    output = quantized.qmv_launch(attended, *_quantized(out_proj), out_proj.group_size, out_proj.bits, residual=x)
    swiglu = quantized.qmv_swiglu_launch(x, _quantized(gate), _quantized(up), gate.group_size, gate.bits,
                                         _fused_norm(post_norm, x))
    down_launch = quantized.qmv_launch(product, *_quantized(down), down.group_size, down.bits, residual=x)
    return DecodeStep(qkv.prepare(), output.prepare(), swiglu.prepare(), down_launch.prepare(), attn.scale)


@functools.lru_cache(maxsize=None)
def fused(mixin: type, cls: type) -> type:
    """`cls` (a gated MLP, attention or transformer block class) with `mixin`'s call (FusedSwiGLU,
    FusedQKV, FusedBlock); `metalforge_original` names it for unpatch."""
    return type(f"{mixin.__name__}{cls.__name__}", (mixin, cls), {"metalforge_original": cls})


@functools.lru_cache(maxsize=4096)
def _attention_problem(q: tuple, k: tuple, v: tuple, mask: Optional[str], sinks: bool,
                       dtypes: tuple) -> Optional[str]:
    """Why the attention kernels cannot take q, k, v of these shapes and dtypes with a mask of kind
    `mask` (None, 'causal' or a type's name), or None (cached as `_problem`)."""
    if sinks:
        return "scaled_dot_product_attention: attention sinks"
    if len(q) != 4 or len(k) != 4 or v != k or q[0] != k[0] or q[3] != k[3]:
        return (f"scaled_dot_product_attention: q, k, v of {len(q)}, {len(k)}, {len(v)} axes or unmatched sizes "
                "(expected (B, H, L, D), (B, H_kv, S, D) twice)")
    if q[1] % k[1]:
        return f"scaled_dot_product_attention: {q[1]} query heads over {k[1]} key heads"
    if not power_of_two(q[3]):
        return f"scaled_dot_product_attention: head dimension {q[3]} (the kernels take powers of two)"
    if mask not in (None, "causal"):
        return f"scaled_dot_product_attention: a mask of kind {mask} (the kernels take None, 'causal')"
    if q[2] > k[2]:
        return "scaled_dot_product_attention: more queries than keys"
    return dtype_problem("scaled_dot_product_attention", *dtypes)


def scaled_dot_product_attention(q: mx.array, k: mx.array, v: mx.array, *, scale: float,
                                 mask: Union[None, str, mx.array] = None, sinks: Optional[mx.array] = None,
                                 length: Optional[int] = None) -> mx.array:
    """`mx.fast.scaled_dot_product_attention` for q (B, H, L, D) and k, v (B, H_kv, S, D), H a multiple
    of H_kv (grouped-query): one query per head (a decode step, mask None or 'causal') on the split
    decode attention `kernels.attention`, more queries (a prefill, mask None or 'causal', the
    queries being the last positions of the keys as in MLX) on `kernels.flash_attention`. Batches
    fold into heads. With `length`, k and v are a KV cache's buffers whose first `length` keys
    count: the decode attention reads them in place (anything else gets the slices)."""
    if length is not None and (q.shape[2] != 1 or length == k.shape[2]):
        k, v, length = k[..., :length, :], v[..., :length, :], None
    keys = k.shape if length is None else (*k.shape[:2], length, *k.shape[3:])
    values = v.shape if length is None else (*v.shape[:2], length, *v.shape[3:])
    kind = mask if mask is None or (isinstance(mask, str) and mask == "causal") else type(mask).__name__
    problem = _attention_problem(q.shape, keys, values, kind, sinks is not None, (q.dtype, k.dtype, v.dtype))
    if problem:
        fall_back(problem)
        if length is not None:
            k, v = k[..., :length, :], v[..., :length, :]
        return mx.fast.scaled_dot_product_attention(q, k, v, scale=scale, mask=mask, sinks=sinks)
    if q.shape[2] == 1:  # the one query is the last position: a causal mask hides nothing
        return attention.decode_attention(q, k, v, scale, length)
    batch, heads, queries, dim = q.shape
    kv_heads, keys_len = k.shape[1], k.shape[2]
    out = flash_attention.flash_attention(q.reshape(batch * heads, queries, dim),
                                          k.reshape(batch * kv_heads, keys_len, dim),
                                          v.reshape(batch * kv_heads, keys_len, dim), kind == "causal", scale)
    return out.reshape(q.shape)


DROP_INS: dict[type, type] = {nn.RMSNorm: RMSNorm, nn.LayerNorm: LayerNorm, nn.RoPE: RoPE, nn.Linear: Linear,
                              nn.Embedding: Embedding, nn.QuantizedLinear: QuantizedLinear,
                              nn.QuantizedEmbedding: QuantizedEmbedding}
"""Each mlx.nn class with its metalforge.nn drop-in (what `patch` swaps)."""
