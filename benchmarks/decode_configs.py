"""Every config of each decode-step kernel at one model's shapes, on the GPU (MLX's CUDA back end):
what the untuned default gives away against the best config of the kernel's own search space, and
MLX's op for the same work beside it. An untuned decode step (a model run before `metalforge
autotune --recorded`) runs the defaults, so they should be near the best. The quantized matmul of
a 512-token prefill at the same model's largest and most common shapes too (`qmm` rows), and the
prefill's causal attention (`flash` row).

Shapes: a decode step of the Llama-3-8B shape (hidden 4096, 32 query and 8 key heads of 128, MLP
14336, 4-bit g64, fp16) with S keys in mlx-lm's cache buffer (256-slot steps). Timing as
gpu_bench.py's (`time_mlx`: launches pipelined, inputs rotated over >= 256 MiB); each config's
outputs checked against the default's first (the reference the tests prove the default against).

    python benchmarks/decode_configs.py [--keys 640] [--kernels qmv,qmv_qkv,qmv_swiglu,decode]
    python benchmarks/decode_configs.py --kernels qmm,flash --stages 1,2   (the prefill's; qmm pipelined too)
    python benchmarks/decode_configs.py --smoke      (small shapes, one timed launch: any machine)
    python benchmarks/decode_configs.py --default-only --kernels qmv,qmm   (the untuned defaults against MLX
                                                     only, with each default's largest difference from MLX's op)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import mlx.core as mx

from metalforge.autotune import Config
from metalforge.kernels import attention, flash_attention, quantized
from metalforge.launcher import Launch, empty

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_bench import rotations, time_mlx  # noqa: E402

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, MLP, PREFILL = 4096, 32, 8, 128, 14336, 512
GROUP, BITS = 64, 4


def weights(n: int, k: int, copies: int) -> list[tuple]:
    return [mx.quantize(mx.random.normal((n, k)).astype(mx.float16) * 0.02, group_size=GROUP, bits=BITS)
            for _ in range(copies)]


def launch_with(launch: Launch, config: Config) -> Any:
    """The library launch at `config` (the autotuner's kernel function, its grid for that config)."""
    kwargs = {**launch.kwargs, **config.all_kwargs()}
    grid = launch.grid(kwargs) if callable(launch.grid) else launch.grid
    return launch.kernel.fn[grid](*launch.args, **kwargs)


def cases(keys: int) -> dict[str, tuple[Callable[[int], Launch], Callable[[int], Any], int]]:
    """name -> (the library launch for copy i, MLX's op for copy i, copies)."""
    x = mx.random.normal((1, 1, HIDDEN)).astype(mx.float16)
    qkv_rows = (HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM)
    out = {}
    n_o = rotations(HIDDEN * HIDDEN // 2)
    wo = weights(HIDDEN, HIDDEN, n_o)
    out[f"qmv o_proj {HIDDEN}x{HIDDEN}"] = (lambda i: quantized.qmv_launch(x, *wo[i], GROUP, BITS),
                                   lambda i: mx.quantized_matmul(x, *wo[i], transpose=True, group_size=GROUP, bits=BITS),
                                   n_o)
    n_d = rotations(HIDDEN * MLP // 2)
    xd = mx.random.normal((1, 1, MLP)).astype(mx.float16)
    wd = weights(HIDDEN, MLP, n_d)
    out[f"qmv down {HIDDEN}x{MLP}"] = (lambda i: quantized.qmv_launch(xd, *wd[i], GROUP, BITS),
                                  lambda i: mx.quantized_matmul(xd, *wd[i], transpose=True, group_size=GROUP,
                                                                bits=BITS), n_d)
    n_qkv = rotations(sum(qkv_rows) * HIDDEN // 2)
    wqkv = [tuple(weights(rows, HIDDEN, 1)[0] for rows in qkv_rows) for _ in range(n_qkv)]
    out[f"qmv_qkv {sum(qkv_rows)}x{HIDDEN}"] = (lambda i: quantized.qmv_qkv_launch(x, *wqkv[i], GROUP, BITS),
                                lambda i: [mx.quantized_matmul(x, *w, transpose=True, group_size=GROUP, bits=BITS)
                                           for w in wqkv[i]], n_qkv)
    n_s = rotations(2 * MLP * HIDDEN // 2)
    wgu = [tuple(weights(MLP, HIDDEN, 1)[0] for _ in range(2)) for _ in range(n_s)]

    def mlx_swiglu(i: int) -> mx.array:
        g, u = (mx.quantized_matmul(x, *w, transpose=True, group_size=GROUP, bits=BITS) for w in wgu[i])
        return g * mx.sigmoid(g) * u
    out[f"qmv_swiglu 2x{MLP}x{HIDDEN}"] = (lambda i: quantized.qmv_swiglu_launch(x, *wgu[i], GROUP, BITS), mlx_swiglu, n_s)
    for n, k in ((MLP, HIDDEN), (HIDDEN, HIDDEN)):  # a 512-token prefill's largest and most frequent products
        copies = rotations(n * k // 2)
        xs = mx.random.normal((PREFILL, k)).astype(mx.float16)
        ws = weights(n, k, copies)
        out[f"qmm {PREFILL}x{n}x{k}"] = (
            lambda i, ws=ws, xs=xs, n=n, k=k: Launch(quantized.qmm_kernel, quantized.qmm_grid(PREFILL, n),
                                                     (xs, *ws[i], empty((PREFILL, n), mx.float16), PREFILL, n, k,
                                                      GROUP, BITS), {}),
            lambda i, ws=ws, xs=xs: mx.quantized_matmul(xs, *ws[i], transpose=True, group_size=GROUP, bits=BITS),
            copies)
    n_f = rotations(2 * (HEADS + 2 * KV_HEADS) * PREFILL * HEAD_DIM)
    qkv_f = [(mx.random.normal((HEADS, PREFILL, HEAD_DIM)).astype(mx.float16),
              *(mx.random.normal((KV_HEADS, PREFILL, HEAD_DIM)).astype(mx.float16) for _ in range(2)))
             for _ in range(n_f)]
    out[f"flash attention h{HEADS}/kv{KV_HEADS} d{HEAD_DIM} L={PREFILL} causal"] = (  # the prefill's attention
        lambda i: Launch(flash_attention.flash_attention_kernel, flash_attention.launch_grid(HEADS, PREFILL),
                         flash_attention.kernel_args(*qkv_f[i], True), {}),
        lambda i: mx.fast.scaled_dot_product_attention(*(t[None] for t in qkv_f[i]), scale=HEAD_DIM ** -0.5,
                                                       mask="causal"),
        n_f)
    slots = -(-keys // 256) * 256
    n_a = rotations(2 * KV_HEADS * slots * HEAD_DIM * 2)
    q = mx.random.normal((1, HEADS, 1, HEAD_DIM)).astype(mx.float16)
    kv = [tuple(mx.random.normal((1, KV_HEADS, slots, HEAD_DIM)).astype(mx.float16) for _ in range(2))
          for _ in range(n_a)]

    def decode_launch(i: int) -> Launch:
        grid, args, _ = attention._launch_args(q, *kv[i], HEAD_DIM ** -0.5, keys, final_if_whole=True)
        return Launch(attention.decode_attention_kernel, grid, args, {})
    out[f"decode attention h{HEADS}/kv{KV_HEADS} d{HEAD_DIM} S={keys} of {slots}"] = (
        decode_launch, lambda i: mx.fast.scaled_dot_product_attention(q, kv[i][0][..., :keys, :],
                                                                      kv[i][1][..., :keys, :], scale=HEAD_DIM ** -0.5),
        n_a)
    return out


def first(outputs: Any) -> mx.array:
    return outputs[0] if isinstance(outputs, (list, tuple)) else outputs


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keys", type=int, default=640, help="keys in the cache (a 512-token prompt and 128 steps)")
    ap.add_argument("--kernels", default="", help="comma-separated name prefixes, e.g. qmv,decode,qmm (default: all)")
    ap.add_argument("--smoke", action="store_true", help="small shapes, one launch timed once (checks the script)")
    ap.add_argument("--stages", default="", help="comma-separated num_stages to cross the configs of a space "
                                                 "without its own with (qmm's has none)")
    ap.add_argument("--launches", type=int, default=100, help="launches a timing (gpu_bench's time_mlx)")
    ap.add_argument("--reps", type=int, default=7, help="timings a config (median)")
    ap.add_argument("--default-only", action="store_true", help="time the untuned default config only (and MLX's "
                                                                "op), with the default's largest difference from MLX's")
    args = ap.parse_args(argv)
    timing = dict(launches=args.launches, reps=args.reps)
    if args.smoke:
        global HIDDEN, HEADS, KV_HEADS, HEAD_DIM, MLP, PREFILL
        HIDDEN, HEADS, KV_HEADS, HEAD_DIM, MLP, PREFILL, args.keys = 256, 4, 2, 64, 512, 24, 40
        timing = dict(launches=1, reps=1)
    wanted = [k for k in args.kernels.split(",") if k]
    mx.random.seed(0)
    for name, (make, mlx_op, copies) in cases(args.keys).items():
        if wanted and not any(name.startswith(w) for w in wanted):
            continue
        launch = make(0)
        tuner = launch.kernel
        default = tuner.default_config(launch.args)
        reference = first(launch_with(launch, default))
        mx.eval(reference)
        launches = [make(i) for i in range(copies)]
        rows = []
        stages = [{"num_stages": int(n)} for n in args.stages.split(",") if n] or [{}]
        crossed = (p | extra if "num_stages" not in p else p for p in tuner.space.points() for extra in stages)
        if args.default_only:
            crossed = [tuner.space.point_of(default) or default.all_kwargs()]
        for point in dict.fromkeys(tuple(sorted(p.items())) for p in crossed):
            point = dict(point)
            if tuner.space.violated(point) is not None:
                continue
            config = Config.from_point(point)
            try:
                got = first(launch_with(launch, config))
                error = float(mx.abs(got.astype(mx.float32) - reference.astype(mx.float32)).max())
                us = time_mlx(lambda i: launch_with(launches[i], config), copies, **timing)
            except Exception as e:  # a config the back end refuses: shown, not fatal
                rows.append((float("inf"), config, f"failed: {type(e).__name__}: {str(e)[:80]}"))
                continue
            rows.append((us, config, f"max diff from default {error:.3g}"))
        rows.sort(key=lambda r: r[0])
        mlx_us = time_mlx(mlx_op, copies, **timing)
        theirs = mlx_op(0)
        if isinstance(theirs, mx.array) and theirs.shape == reference.shape:
            print(f"{name}: default's largest difference from MLX's op "
                  f"{float(mx.abs(reference.astype(mx.float32) - theirs.astype(mx.float32)).max()):.3g}")
        default_us = next(us for us, c, _ in rows if c == default)
        print(f"{name}: MLX {mlx_us:.1f} us; default {default.all_kwargs()} {default_us:.1f} us; best "
              f"{rows[0][1].all_kwargs()} {rows[0][0]:.1f} us ({rows[0][2]})")
        for us, config, note in rows[1:4]:
            print(f"    next {config.all_kwargs()} {us:.1f} us ({note})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
