"""DSL compile and dispatch cost (CPU-side, back-end independent).

- IR + code generation time per kernel specialisation (target: <= 50 ms);
- dispatch overhead of a cached `kernel[grid](...)` launch over calling the runtime directly with
  the same compiled source (target: <= 20 us), measured with a back end that does no work, so the
  emulator's (or GPU's) own launch cost does not hide it.
Run: python benchmarks/dsl_bench.py   (results are recorded in docs/dsl.md)
"""
from __future__ import annotations

import os
import statistics
import time

import mlx.core as mx

import metalforge as mf
from metalforge.kernels import attention, norms, quantized, softmax
from metalforge.runtime import metal_kernel


class NullBackend:
    """Accepts a launch and returns preallocated outputs: measures dispatch alone."""

    name = "null"
    language = "msl"
    batch_timing = False

    def __init__(self, outputs):
        self.outputs = outputs

    @staticmethod
    def available() -> bool:
        return True

    def launch(self, kernel, call):
        return self.outputs


def per_call_us(fn, n: int = 2000) -> float:
    for _ in range(100):
        fn()
    samples = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(samples)


def main() -> None:
    x16 = mx.zeros((4, 1024), mx.float16)
    flat, row = x16.reshape(-1), x16[0]
    w_q, scales, biases = mx.quantize(mx.zeros((64, 512)), 64, 4)
    q, kv = mx.zeros((256,)), mx.zeros((2 * 100 * 64,))
    cases = {  # kernel, arguments, constexprs: what the library wrappers launch
        "softmax": (softmax.softmax_kernel, (flat, mf.empty((4, 1024), mx.float16), 1024, 1024), dict(BLOCK=1024)),
        "layer_norm": (norms.layer_norm_kernel, (flat, row, row, mf.empty((4, 1024), mx.float16), mf.empty(4),
                                                 mf.empty(4), 1024, 1e-5), dict(BLOCK=1024)),
        "add_rms_norm": (norms.add_rms_norm_kernel, (flat, flat, row, mf.empty((4, 1024), mx.float16),
                                                     mf.empty((4, 1024), mx.float16), 1024, 1e-5), dict(BLOCK=1024)),
        "qmv_4bit": (quantized.qmv_kernel, (mx.zeros((512,)), w_q.reshape(-1), scales.reshape(-1),
                                            biases.reshape(-1), mf.empty(64), 64, 512),
                     dict(GROUP=64, BLOCK_N=8, BLOCK_K=256)),
        "decode_attention": (attention.decode_attention_kernel, (q, kv, kv, mf.empty((4, 64), mx.float32), mf.empty(4),
                                                                mf.empty(4), 100, 50, 0.125),
                             dict(GROUP=2, D=64, BLOCK_N=64)),
    }
    print(f"# DSL compile and dispatch — {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}, mlx {mx.__version__}")
    print(f"{'kernel':18s} {'IR+codegen (ms)':>16s}")
    for name, (kernel, args, meta) in cases.items():
        jit = getattr(kernel, "fn", kernel)  # library kernels are autotuned: time the kernel itself
        times = []
        for _ in range(5):
            jit.cache.clear()
            t = time.perf_counter()
            jit.compile(*args, **meta)
            times.append((time.perf_counter() - t) * 1e3)
        print(f"{name:18s} {statistics.median(times):16.1f}")

    # Dispatch: the same softmax launch through the DSL and through the runtime directly.
    null = NullBackend([mx.zeros((4, 1024), mx.float16)])
    sm = softmax.softmax_kernel.fn
    sm[(4,)](x16.reshape(-1), mf.empty((4, 1024), mx.float16), 1024, 1024, BLOCK=1024, backend=null)
    compiled = sm.last
    direct = metal_kernel(compiled.name, [k for k, _ in compiled.inputs], [k for k, _ in compiled.outputs],
                          compiled.body, compiled.header, backend=null)
    scalars = [mx.array(1024, dtype=mx.int32), mx.array(1024, dtype=mx.int32)]
    dsl_us = per_call_us(lambda: sm[(4,)](flat, mf.empty((4, 1024), mx.float16), 1024, 1024, BLOCK=1024,
                                          backend=null))
    raw_us = per_call_us(lambda: direct(inputs=[flat, *scalars], output_shapes=[(4, 1024)],
                                        output_dtypes=[mx.float16], grid=(512, 1, 1), threadgroup=(128, 1, 1)))
    print(f"dispatch: DSL launch {dsl_us:.1f} us, runtime call {raw_us:.1f} us, overhead {dsl_us - raw_us:.1f} us")


if __name__ == "__main__":
    main()
