"""metalforge.nn: drop-in `mlx.nn` layers on the tuned kernel library, and `patch(model)` to put
them (and metalforge's attention) inside an existing model, such as mlx-lm's. See docs/models.md."""
from .fallback import clear_fallbacks, fallbacks
from .layers import (Embedding, FusedBlock, FusedQKV, FusedSwiGLU, LayerNorm, Linear, QuantizedEmbedding, QuantizedLinear, RMSNorm, RoPE,
                     forget_prepared, scaled_dot_product_attention)
from .patch import PatchReport, patch, unpatch

__all__ = ["Embedding", "FusedBlock", "FusedQKV", "FusedSwiGLU", "LayerNorm", "Linear", "PatchReport", "QuantizedEmbedding", "QuantizedLinear", "RMSNorm", "RoPE", "clear_fallbacks",
           "fallbacks", "forget_prepared", "patch", "scaled_dot_product_attention", "unpatch"]
