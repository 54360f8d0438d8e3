"""Flash-attention forward (prefill): softmax(q k^T / sqrt(D)) v for q (H, L, D) and k, v (H_kv, S, D),
grouped-query heads (H a multiple of H_kv), optionally causal. S = L + past: the queries are the last
L positions (a prefill after `past` cached tokens; the causal mask aligns them to the end, as MLX's). One program per (query block, head);
keys stream through in blocks with an online softmax, so the L x L scores never reach memory. Both
products are `tl.dot`s; P is rounded to v's dtype before the second, as in Triton's kernel. Any L:
rows and keys past the end are masked; only the key blocks that cross the causal diagonal or the
keys' end apply the masks (a uniform branch on `start_n >= whole`), the others skip their
per-score comparisons and selects (docs/dot.md)."""
from __future__ import annotations

import math
from typing import Callable

import mlx.core as mx

from .. import language as tl
from ..autotune import Config, Space, autotune
from ..launcher import cdiv, empty, jit, lacking
from . import register


def launch_grid(heads: int, length: int) -> Callable[[dict], tuple]:
    """The launch grid: (query blocks, heads), for any BLOCK_M the tuner picks."""
    return lambda meta: (cdiv(length, meta["BLOCK_M"]), heads)


def kernel_args(q: mx.array, k: mx.array, v: mx.array, causal: bool, scale: float | None = None) -> tuple:
    """The kernel's launch arguments (all but the tuned block sizes and `past`) for q (H, L, D), k, v
    (H_kv, S, D); scale default 1 / sqrt(D)."""
    heads, length, dim = q.shape
    return (q, k, v, empty((heads, length, dim), q.dtype), length, 1.0 / math.sqrt(dim) if scale is None else scale,
            heads // k.shape[0], dim, causal)


def _tune_args(shape: tuple, dtype: mx.Dtype):
    heads, kv_heads, length, dim = shape
    q = mx.random.normal((heads, length, dim)).astype(dtype)
    k, v = (mx.random.normal((kv_heads, length, dim)).astype(dtype) for _ in range(2))
    return launch_grid(heads, length), kernel_args(q, k, v, True)


def _tune_shape(named: dict) -> tuple:
    """(heads, kv_heads, L, D), what `_tune_args` takes."""
    heads, length, dim = named["q_ptr"].shape
    return heads, named["k_ptr"].shape[0], length, dim


def _reference(q, k, v, out, length, scale, group, dim, causal, *meta):
    return reference(q, k, v, bool(causal))


def default_config(named: dict) -> Config:
    """The untuned config: 64 queries and 16 keys a program on 4 warps, in two stages where those
    fit Metal's 32 KiB of threadgroup memory at this dtype and head size and in one where only that
    does (the compiler's own `shared_bytes`, checked by tests/kernels/test_library.py), else 16 x 16
    on 2 warps (fp32 at D = 128, every dtype at D = 256). Every config of the space at the Llama-3-8B prefill
    (h32/kv8, D = 128, L = 512 causal fp16) on an H100, 2026-12-06 (benchmarks/decode_configs.py):
    16 x 16 (the space's first point, the default before) 45.5 us, 64 x 32 in two stages (the
    fastest, 52 KiB on Metal) 25.2 us, 64 x 16 in two 27.0, MLX's sdpa 34.4.

    Where the back end has Hopper's wgmma, fp16 / bf16 at D = 64 or 128: 64 x 64 in two stages
    on wgmma, both products (H100, 2026-12-06, benchmarks/wgmma_probe.py, L = 2048 causal: 225 TFLOP/s
    against 207 on mma.sync at D = 64, 287 against 215 at D = 128)."""
    row_bytes = named["D"] * named["q_ptr"].dtype.size
    if named["q_ptr"].dtype.size == 2 and named["D"] in (64, 128) and not lacking(named.get("backend"))("wgmma"):
        return Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=2, wgmma=True)
    if row_bytes <= 128:    # fp16 / bf16 at D <= 64: K and V double-buffered
        return Config({"BLOCK_M": 64, "BLOCK_N": 16}, num_warps=4, num_stages=2)
    if row_bytes <= 256:    # fp16 at D = 128, fp32 at D = 64
        return Config({"BLOCK_M": 64, "BLOCK_N": 16}, num_warps=4, num_stages=1)
    return Config({"BLOCK_M": 16, "BLOCK_N": 16}, num_warps=2, num_stages=1)


@register
@autotune(space=Space({"BLOCK_M": [16, 32, 64], "BLOCK_N": [16, 32, 64], "num_warps": [2, 4],
                       "num_stages": [1, 2],  # 2: K, V and P staged in two buffers, alternating per KV block
                       "wgmma": [False, True]}),  # Hopper's (CUDA); a back end without it leaves it out
          default=default_config,
          key=["q_ptr", "GROUP", "CAUSAL"], reference=_reference,
          tune_args=_tune_args, tune_shape=_tune_shape, shapes=[(4, 2, 40, 64)], dtypes=[mx.float16],
          rtol=5e-3, atol=5e-3)  # P is rounded to fp16 before P @ V
@jit
def flash_attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, L, sm_scale, GROUP: tl.constexpr, D: tl.constexpr,
                           CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, past=0):
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    S = L + past
    kv_base = (head // GROUP) * S * D
    rm = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + head * L * D + rm[:, None] * D + rd[None, :], mask=rm[:, None] < L, other=0.0)
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, D), tl.float32)
    hi = S
    whole = (S // BLOCK_N) * BLOCK_N  # blocks before `whole` are inside the keys and below the diagonal
    if CAUSAL:  # keys after the block's last query contribute nothing
        hi = tl.minimum((start_m + 1) * BLOCK_M + past, S)
        whole = tl.minimum(((start_m * BLOCK_M + past + 1) // BLOCK_N) * BLOCK_N, whole)
    for start_n in range(0, hi, BLOCK_N):
        rn = start_n + tl.arange(0, BLOCK_N)
        kv = kv_base + rn[:, None] * D + rd[None, :]
        k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        if start_n >= whole:  # only the blocks that cross the diagonal or the end are masked
            # Key 0 is always kept, so every row has a finite maximum from the first block on.
            if CAUSAL:
                qk = tl.where(rm[:, None] + past >= rn[None, :], qk, float("-inf"))
            qk = tl.where(rn[None, :] < S, qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(o_ptr + head * L * D + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
             mask=rm[:, None] < L)


def flash_attention(q: mx.array, k: mx.array, v: mx.array, causal: bool = True, scale: float | None = None,
                    backend=None) -> mx.array:
    """softmax(scale q k^T [+ causal mask]) v for q (H, L, D) and k, v (H_kv, S, D) of one float
    dtype, H a multiple of H_kv, S >= L (the queries are the last L positions); output (H, L, D) in
    q's dtype; scale default 1 / sqrt(D). D must be a power of two (a tile extent)."""
    heads, length, dim = q.shape
    if heads % k.shape[0] or k.shape[1] < length or k.shape[2] != dim or v.shape != k.shape:
        raise ValueError(f"flash_attention: q {q.shape}, k {k.shape}, v {v.shape}; expected q (H, L, D) and "
                         f"k, v (H_kv, S, D) with H a multiple of H_kv and S >= L")
    return flash_attention_kernel[launch_grid(heads, length)](*kernel_args(q, k, v, causal, scale),
                                                              past=k.shape[1] - length, backend=backend)


def reference(q: mx.array, k: mx.array, v: mx.array, causal: bool = True) -> mx.array:
    """MLX's attention in float32 on the CPU (independent of the GPU kernel the benchmark compares
    against), rounded to q's dtype."""
    f32 = [x.astype(mx.float32)[None] for x in (q, k, v)]
    out = mx.fast.scaled_dot_product_attention(*f32, scale=1.0 / math.sqrt(q.shape[-1]),
                                               mask="causal" if causal else None, stream=mx.cpu)
    return out[0].astype(q.dtype)
