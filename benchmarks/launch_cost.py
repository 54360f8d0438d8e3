"""What one kernel launch costs the host through MLX's CUDA back end, by the size of its cubin (run on
the H200).

MLX's `precompiled_cuda_kernel` takes the compiled cubin at every call: the call copies it into the
graph node, and evaluating the node hashes it to find the loaded module. For the few-microsecond
kernels of a decode step this host time, not the GPU's, sets the pace (docs/models.md), so the code
size of a config is a cost of its own (autotune/bench.py counts building in a sample for that reason).

1. A one-line kernel's cubin, padded with zeros to several sizes: microseconds to build one launch
   (the Python call) and to evaluate one node of a chain of 500 (MLX's encoding plus the GPU's few
   microseconds), best of 3; a built-in `x + 1` chain beside it.
2. The same kernel taking 1 to 16 array inputs, or 8 scalars by value: what an argument costs (a
   fused decode launch passes a dozen weights, scales and biases).
3. The library kernels of a Llama-3.2-1B decode step (fp16, 4-bit g64, 512 cached tokens), each with
   the config the run-time lookup picks: the size of the code its launch hands MLX (the cubin in a
   compressed fatbin, runtime/nvrtc.py), and the same two figures through the DSL's launch.

    python benchmarks/launch_cost.py --out DIR

Writes DIR/launch_cost.json and prints a table.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

import mlx.core as mx

from metalforge.runtime import nvrtc

ONE_LINE = 'extern "C" __global__ void mf_one_line(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x] + 1.0f; }'
PADS_KB = (0, 8, 24, 48)
CHAIN, BATCH, ROUNDS = 500, 2000, 3
ARITIES = ((1, 0), (4, 0), (8, 0), (16, 0), (1, 8))  # (array inputs, scalars by value) of arity_rows


def per_launch_us(launch: Callable[[mx.array], mx.array], x: mx.array) -> tuple[float, float]:
    """(build, evaluate) microseconds per launch, best of ROUNDS: BATCH independent launches built, then
    a chain of CHAIN launches (each reading the last one's output) evaluated."""
    mx.eval(launch(x))
    build, evaluate = [], []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        outputs = [launch(x) for _ in range(BATCH)]
        build.append((time.perf_counter() - start) / BATCH)
        mx.eval(outputs)
        y = x
        for _ in range(CHAIN):
            y = launch(y)
        mx.synchronize()
        start = time.perf_counter()
        mx.eval(y)
        mx.synchronize()
        evaluate.append((time.perf_counter() - start) / CHAIN)
    return min(build) * 1e6, min(evaluate) * 1e6


def cubin_rows() -> list[dict[str, Any]]:
    cubin = nvrtc.compile_cubin(ONE_LINE, "mf_one_line")
    x = mx.zeros((32,), mx.float32)
    rows = []
    for pad in PADS_KB:
        padded = cubin + bytes(pad << 10)

        def launch(a: mx.array, padded: bytes = padded) -> mx.array:
            return mx.fast.precompiled_cuda_kernel(
                name="mf_one_line", compiled_source=padded, inputs=[a], output_shapes=[(32,)],
                output_dtypes=[mx.float32], scalars=[], grid=(32, 1, 1), threadgroup=(32, 1, 1))[0]
        build, evaluate = per_launch_us(launch, x)
        rows.append({"what": "one-line kernel", "code_bytes": len(padded), "build_us": build, "eval_us": evaluate})
    build, evaluate = per_launch_us(lambda a: a + 1.0, x)
    rows.append({"what": "built-in x + 1", "code_bytes": None, "build_us": build, "eval_us": evaluate})
    return rows


def arity_rows() -> list[dict[str, Any]]:
    """The one-line kernel with more array inputs (unused but passed, as a fused launch passes its
    weights, scales and biases) and scalars by value: what each argument adds to a launch."""
    x = mx.zeros((32,), mx.float32)
    rows = []
    for arrays, scalars in ARITIES:
        params = [f"const float* x{i}" for i in range(arrays)] + ["float* y"] + [f"int s{i}" for i in range(scalars)]
        source = f'extern "C" __global__ void mf_arity({", ".join(params)}) {{ y[threadIdx.x] = x0[threadIdx.x] + 1.0f; }}'
        cubin = nvrtc.compile_cubin(source, "mf_arity")
        others = [mx.zeros((32,), mx.float32) for _ in range(arrays - 1)]
        mx.eval(others)

        def launch(a: mx.array, cubin: bytes = cubin, others: list = others, scalars: int = scalars) -> mx.array:
            return mx.fast.precompiled_cuda_kernel(
                name="mf_arity", compiled_source=cubin, inputs=[a, *others], output_shapes=[(32,)],
                output_dtypes=[mx.float32], scalars=list(range(scalars)), grid=(32, 1, 1), threadgroup=(32, 1, 1))[0]
        build, evaluate = per_launch_us(launch, x)
        rows.append({"what": f"one-line kernel, {arrays} arrays + {scalars} scalars", "code_bytes": len(cubin),
                     "build_us": build, "eval_us": evaluate})
    return rows


def decode_kernels() -> dict[str, Callable[[], Callable[[mx.array], mx.array]]]:
    """Each decode-step kernel of a Llama-3.2-1B layer whose input is the hidden state (or the queries,
    as many elements) as a launch taking one (1, 1, 2048) fp16 array, so that launches chain (the
    down projection, whose input is 8192 long, is left out: its cubin is the 2048x2048 one's); its
    other inputs made here."""
    from metalforge.kernels import attention, norms, quantized, rope

    def qmv(n: int, k: int) -> Callable[[mx.array], mx.array]:
        w = mx.random.normal((n, k)).astype(mx.float16)
        wq, scales, biases = mx.quantize(w, 64, 4)
        mx.eval(wq, scales, biases)
        return lambda a: quantized.qmv(a, wq, scales, biases, 64, 4)

    def qkv(n: int, n_kv: int, k: int) -> Callable[[mx.array], mx.array]:
        ws = [mx.quantize(mx.random.normal((m, k)).astype(mx.float16), 64, 4) for m in (n, n_kv, n_kv)]
        mx.eval(ws)
        return lambda a: quantized.qmv_qkv(a, *ws)[0]

    weight = mx.ones((2048,), mx.float16)
    kv = [mx.random.normal((1, 8, 512, 64)).astype(mx.float16) for _ in range(2)]
    return {
        "qmv 2048x2048": lambda: qmv(2048, 2048),
        "qmv 8192x2048": lambda: qmv(8192, 2048),
        "qmv_qkv (2048 + 2 x 512) x 2048": lambda: qkv(2048, 512, 2048),
        "rms_norm 2048": lambda: (lambda a: norms.rms_norm(a, weight, 1e-5)),
        "rope 32x64": lambda: (lambda a: rope.rope(a.reshape(1, 32, 1, 64), 500000.0, 512)),
        "decode attention 32/8 heads, 512 keys": lambda: (
            lambda a: attention.decode_attention(a.reshape(1, 32, 1, 64), *kv, 0.125)),
    }


def library_rows() -> list[dict[str, Any]]:
    sizes: dict[str, int] = {}
    call = mx.fast.precompiled_cuda_kernel

    def recording(**kw: Any) -> list[mx.array]:
        sizes[kw["name"]] = len(kw["compiled_source"])
        return call(**kw)

    rows = []
    for what, make in decode_kernels().items():
        launch, x = make(), mx.random.normal((1, 1, 2048)).astype(mx.float16)
        sizes.clear()
        mx.fast.precompiled_cuda_kernel = recording
        try:
            mx.eval(launch(x))
        finally:
            mx.fast.precompiled_cuda_kernel = call
        # the chain takes the first 2048 outputs (a view: no kernel), counted in the build
        build, evaluate = per_launch_us(lambda a: launch(a).reshape(1, 1, -1)[..., :2048], x)
        rows.append({"what": what, "code_bytes": sum(sizes.values()), "launches": len(sizes),
                     "build_us": build, "eval_us": evaluate})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if not mx.cuda.is_available():
        print("launch_cost.py measures MLX's CUDA back end: no CUDA device here", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    rows = cubin_rows() + arity_rows() + library_rows()
    (args.out / "launch_cost.json").write_text(json.dumps(rows, indent=1))
    print("| launch | code bytes | build us | evaluate us (chain) |\n|---|---|---|---|")
    for r in rows:
        size = "-" if r["code_bytes"] is None else f"{r['code_bytes']}" + (
            f" ({r['launches']} kernels)" if r.get("launches", 1) > 1 else "")
        print(f"| {r['what']} | {size} | {r['build_us']:.2f} | {r['eval_us']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
