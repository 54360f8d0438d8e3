"""One representative launch of each library kernel (an LLM shape, one fixed config): the golden
sources in tests/golden/ and the static report of benchmarks/codegen_facts.py are made from these,
so every change to code generation shows in review as a diff of what these kernels compile to.

Arguments only need their types (and integer values, which specialise on divisibility by 16):
arrays are small stand-ins of the right dtype, outputs are placeholders of the real shape.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import mlx.core as mx

from ..launcher import empty


@dataclass(frozen=True)
class Specimen:
    name: str
    kernel: Callable[[], Any]              # the @jit kernel (imported when asked: the library is large)
    args: Callable[[], tuple]
    meta: dict                             # constexprs and launch settings

    def compile(self, target: str) -> Any:
        return self.kernel().compile(*self.args(), target=target, **self.meta)


def _h(dtype: mx.Dtype = mx.float16) -> mx.array:
    return mx.zeros((16,), dtype)


def _jit(module: str, name: str) -> Callable[[], Any]:
    def load() -> Any:
        import importlib

        return getattr(importlib.import_module(f"metalforge.kernels.{module}"), name).fn
    return load


SPECIMENS = (
    Specimen("softmax_4096x32000_f16", _jit("softmax", "softmax_kernel"),
             lambda: (_h(), empty((4096, 32000), mx.float16), 32000, 32000), dict(BLOCK=4096, num_warps=8)),
    Specimen("add_rms_norm_4096x8192_f16", _jit("norms", "add_rms_norm_kernel"),
             lambda: (_h(), _h(), _h(), empty((4096, 8192), mx.float16), empty((4096, 8192), mx.float16), 8192,
                      1e-5), dict(BLOCK=8192, num_warps=8)),
    Specimen("layer_norm_4096x8192_f32", _jit("norms", "layer_norm_kernel"),
             lambda: (_h(mx.float32), _h(mx.float32), _h(mx.float32), empty((4096, 8192)), empty(4096), empty(4096),
                      8192, 1e-5), dict(BLOCK=8192, num_warps=8)),
    Specimen("rope_t4096_h32_d128_f16", _jit("rope", "rope_kernel"),
             lambda: (_h(), empty((32 * 4096 * 128,), mx.float16), 32, 4096, math.log(10000.0), 64),
             dict(BLOCK_T=16, HEADS=8, num_warps=4)),
    Specimen("qmv_4bit_14336x4096_f16", _jit("quantized", "qmv_kernel"),
             lambda: (_h(), _h(mx.uint32), _h(), _h(), empty(14336, mx.float16), 14336, 4096, 64, 4),
             dict(BLOCK_N=32, BLOCK_K=512, num_warps=4)),
    Specimen("qmv_swiglu_4bit_14336x4096_f16", _jit("quantized", "qmv_swiglu_kernel"),
             lambda: (_h(), _h(mx.uint32), _h(), _h(), _h(mx.uint32), _h(), _h(), empty(14336, mx.float16), 14336, 4096,
                      64, 4), dict(BLOCK_N=16, BLOCK_K=512, num_warps=4)),
    Specimen("qmv_qkv_4bit_4096_1024x4096_f16", _jit("quantized", "qmv_qkv_kernel"),
             lambda: (_h(), *(a for _ in range(3) for a in (_h(mx.uint32), _h(), _h())), empty(4096, mx.float16),
                      empty(1024, mx.float16), empty(1024, mx.float16), 4096, 1024, 4096, 64, 4),
             dict(BLOCK_N=8, BLOCK_K=512, num_warps=4)),
    Specimen("qmm_4bit_512x14336x4096_f16", _jit("quantized", "qmm_kernel"),
             lambda: (_h(), _h(mx.uint32), _h(), _h(), empty((512, 14336), mx.float16), 512, 14336, 4096, 64, 4),
             dict(BLOCK_M=32, BLOCK_N=64, BLOCK_K=32, num_warps=4)),
    Specimen("qmm_partial_4bit_512x1536x8960_f16", _jit("quantized", "qmm_partial_kernel"),  # Qwen2-1.5B's down_proj
             lambda: (_h(), _h(mx.uint32), _h(), _h(), empty((4, 512, 1536)), 512, 1536, 8960, 2240, 64, 4),
             dict(BLOCK_M=32, BLOCK_N=64, BLOCK_K=32, num_warps=4)),
    Specimen("qmm_qkv_4bit_512x1536_256x1536_f16", _jit("quantized", "qmm_qkv_kernel"),  # Qwen2-1.5B's prefill
             lambda: (_h(), *(a for _ in range(3) for a in (_h(mx.uint32), _h(), _h())),
                      *(empty((512, n), mx.float16) for n in (1536, 256, 256)), 512, 1536, 256, 1536, 64, 4),
             dict(BLOCK_M=32, BLOCK_N=64, BLOCK_K=32, num_warps=4, qb_ptr=_h(), kb_ptr=_h(), vb_ptr=_h(), BIAS=True)),
    Specimen("qmm_swiglu_4bit_512x8960x1536_f16", _jit("quantized", "qmm_swiglu_kernel"),  # Qwen2-1.5B's prefill MLP
             lambda: (_h(), _h(mx.uint32), _h(), _h(), _h(mx.uint32), _h(), _h(), empty((512, 8960), mx.float16), 512,
                      8960, 1536, 64, 4), dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, num_warps=4)),
    Specimen("decode_attention_s8192_d128_f16", _jit("attention", "decode_attention_kernel"),
             lambda: (_h(), _h(), _h(), empty((32 * 32, 128)), empty(32 * 32), empty(32 * 32), 8192, 256, 0,
                      1 / math.sqrt(128), 4, 128, False), dict(BLOCK_N=64, num_warps=4)),
    Specimen("matmul_4096_f16", _jit("matmul", "matmul_kernel"),
             lambda: (_h(), _h(), empty((4096, 4096), mx.float16), 4096, 4096, 4096),
             dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8, num_warps=4, num_stages=2)),
    Specimen("flash_attention_l2048_d64_f16", _jit("flash_attention", "flash_attention_kernel"),
             lambda: (_h(), _h(), _h(), empty((32, 2048, 64), mx.float16), 2048, 0.125, 4, 64, True),
             dict(BLOCK_M=32, BLOCK_N=32, num_warps=4, num_stages=2)),
)
