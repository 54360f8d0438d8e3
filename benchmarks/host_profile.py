"""Where the host's time goes when it builds a decode step of an mlx-lm model, unpatched and
patched (`metalforge.nn.patch`): a decode step is bound by the host once building it takes longer
than the GPU runs it (docs/models.md).

Prints the --prompt-token prefill's build and evaluated times (median of 5; a prefill's graph is
built whole before it runs), then the step's build, encode and evaluated times, both models (10th
percentile of --steps steps after the prefill; building = the model call, encoding =
`mx.async_eval` of its output, evaluated = both and the wait for the GPU); then, patched, for the
decode step and then the prefill, the time inside MLX's `precompiled_cuda_kernel` per kernel (the
CUDA back end's launch), inside the library's functions the layers call (`LIBRARY`, their launches
included; the rest of a build is mlx-lm's code and MLX's own operations) and cProfile's heaviest
functions.

    python benchmarks/host_profile.py [--model llama-1b] [--steps 40]      (MLX's CUDA build, a GPU)
    python benchmarks/host_profile.py --model llama-tiny --layers 16 --stub (any machine: the CUDA
        back end stubbed, each launch returning zeros, so only the Python and MLX graph building count)
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import cProfile
import pstats
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import mlx.core as mx

import metalforge.nn as mfnn
from metalforge.kernels import flash_attention, norms, quantized, rope
from metalforge.runtime import backends, cuda

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lm_bench  # noqa: E402

# the library functions a prefill's layers call (nn/layers.py): each one launch and its Python
LIBRARY = [(quantized, "qmm"), (quantized, "qmm_qkv"), (quantized, "qmm_swiglu"), (norms, "rms_norm"), (rope, "rope"),
           (flash_attention, "flash_attention")]


class StubCuda(cuda.CudaBackend):
    """The CUDA back end with launches that return zeros: the host's side of a launch only."""

    @staticmethod
    def available() -> bool:
        return True

    def scalars_by_value(self) -> Any:
        return cuda._BY_VALUE

    def build(self, kernel: Any) -> Any:
        def run(*, output_shapes, output_dtypes, **launch: Any) -> list[mx.array]:
            return [mx.zeros(s, d) for s, d in zip(output_shapes, output_dtypes)]
        return run


def step_times(model: Any, prompt: mx.array, steps: int, profile: Optional[cProfile.Profile] = None,
               on_steps: Callable[[], Any] = lambda: None) -> tuple:
    """(build ms, encode ms, evaluated ms) of a decode step, 10th percentile of each over `steps`
    after the prefill, then the mean build ms. Encoding = `mx.async_eval`, which walks the graph on
    this thread and hands each node to the back end (MLX's side of a launch that building does not
    show). `on_steps` is called between the prefill and the steps (a counter's reset)."""
    from mlx_lm.models.cache import make_prompt_cache

    cache = make_prompt_cache(model)
    mx.eval(model(prompt[None], cache=cache))
    on_steps()
    build, encode, total, token = [], [], [], mx.array([[7]])
    for _ in range(steps):
        start = time.perf_counter()
        if profile:
            profile.enable()
        out = model(token, cache=cache)
        if profile:
            profile.disable()
        built = time.perf_counter()
        mx.async_eval(out)
        encoded = time.perf_counter()
        mx.eval(out)
        build.append(built - start)
        encode.append(encoded - built)
        total.append(time.perf_counter() - start)
    return (*(sorted(t)[steps // 10] * 1e3 for t in (build, encode, total)), sum(build) / steps * 1e3)


def prefill_times(model: Any, prompt: mx.array, reps: int, evaluate: bool = True,
                  profile: Optional[cProfile.Profile] = None) -> tuple:
    """(build ms, evaluated ms, mean build ms) of a prefill of `prompt` through a fresh cache, the
    first two the median of `reps` (evaluated: None without `evaluate`, where only the host's
    building is timed, as with --stub).
    A prefill's graph is built whole before it runs, so its building adds to its time one for one."""
    from mlx_lm.models.cache import make_prompt_cache

    build, total = [], []
    for _ in range(reps):
        cache = make_prompt_cache(model)
        start = time.perf_counter()
        if profile:
            profile.enable()
        out = model(prompt[None], cache=cache)
        if profile:
            profile.disable()
        build.append(time.perf_counter() - start)
        if evaluate:
            mx.eval(out)
            total.append(time.perf_counter() - start)
    return (sorted(build)[reps // 2] * 1e3, sorted(total)[reps // 2] * 1e3 if total else None,
            sum(build) / reps * 1e3)


@contextlib.contextmanager
def timed(functions: list[tuple[Any, str]], key_of: Callable[[str, dict], str] = lambda name, kwargs: name
          ) -> Iterator[dict]:
    """Times each function `getattr(owner, name)` of `functions` while inside (replaced by a timing
    wrapper): a dict of key_of(name, keyword arguments) -> [calls, seconds, bytes of code (an MLX
    launch's `compiled_source`)]. A call made inside another of them (qmm_qkv's three qmm for tiny
    weights) counts in the outer one only."""
    per, originals = collections.defaultdict(lambda: [0, 0.0, 0]), [(o, n, getattr(o, n)) for o, n in functions]
    inside = [False]

    def wrapper(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if inside[0]:
                return original(*args, **kwargs)
            inside[0], start = True, time.perf_counter()
            try:
                out = original(*args, **kwargs)
            finally:
                inside[0] = False
            entry = per[key_of(name, kwargs)]
            entry[0] += 1
            entry[1] += time.perf_counter() - start
            entry[2] = len(kwargs.get("compiled_source", ""))
            return out
        return call
    for owner, name, original in originals:
        setattr(owner, name, wrapper(name, original))
    try:
        yield per
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def launches_timed() -> contextlib.AbstractContextManager[dict]:
    """MLX's `precompiled_cuda_kernel` (the CUDA back end's launch) timed per kernel (`timed`)."""
    return timed([(mx.fast, "precompiled_cuda_kernel")], lambda _, call: call["name"].rsplit("_", 1)[0][3:])


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="llama-1b", help=f"one of {', '.join(lm_bench.MODELS)}")
    ap.add_argument("--layers", type=int, help="override the config's layer count")
    ap.add_argument("--prompt", type=int, default=256)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--stub", action="store_true", help="stub the CUDA back end (no GPU needed)")
    args = ap.parse_args(argv)
    if args.model not in lm_bench.MODELS:
        ap.error(f"unknown model {args.model}; choose from {', '.join(lm_bench.MODELS)}")
    if args.stub:
        stub = StubCuda()
        backends.resolve = lambda backend=None, language=None: stub
    config = lm_bench.MODELS[args.model][1]
    if args.layers:
        config["num_hidden_layers"] = args.layers
    model = lm_bench.build(args.model)
    prompt = mx.arange(args.prompt) % config["vocab_size"]
    unpatched = step_times(model, prompt, args.steps)
    prefill_mlx = prefill_times(model, prompt, 5, not args.stub)
    print(f"{args.model}: {mfnn.patch(model)}")
    step_times(model, prompt, 5)  # compiles
    patched = step_times(model, prompt, args.steps)
    prefill_patched = prefill_times(model, prompt, 5, not args.stub)
    print(f"prefill of {args.prompt} tokens, build ms: MLX {prefill_mlx[0]:.2f}, patched {prefill_patched[0]:.2f}"
          + ("" if args.stub else f"; evaluated ms: MLX {prefill_mlx[1]:.2f}, patched {prefill_patched[1]:.2f}"))
    print(f"build ms/step: MLX {unpatched[0]:.2f}, patched {patched[0]:.2f}; encode ms/step: MLX "
          f"{unpatched[1]:.2f}, patched {patched[1]:.2f}; evaluated step ms: MLX {unpatched[2]:.2f}, "
          f"patched {patched[2]:.2f}")
    # per decode step (its prefill not counted) and per prefill: the time inside MLX's launch call
    # and inside the library's functions, against the mean build
    for what, build_of in (
            ("decode step", lambda reset=lambda: None, profile=None: step_times(model, prompt, args.steps, profile,
                                                                                reset)[3]),
            ("prefill", lambda reset=None, profile=None: prefill_times(model, prompt, 5, False, profile)[2])):
        runs = args.steps if what == "decode step" else 5
        if not args.stub:
            with launches_timed() as per:
                build = build_of(per.clear)
            calls = sum(c for c, _, _ in per.values())
            print(f"{what}, MLX's launch call timed: {calls / runs:.3g} calls, "
                  f"{sum(t for _, t, _ in per.values()) * 1e3 / runs:.2f} ms of a {build:.2f} ms build")
            for name, (count, seconds, size) in sorted(per.items(), key=lambda kv: -kv[1][1])[:12]:
                print(f"  {name:48s} {count / runs:6.3g} calls {seconds / count * 1e6:6.1f} us/call "
                      f"{size:7d} B of code")
        with timed(LIBRARY) as per:
            build = build_of(per.clear)
        print(f"{what}, inside the library's functions (their launches included): " + ", ".join(
            f"{name} {count / runs:.3g} x {seconds / count * 1e6:.1f} us" for name, (count, seconds, _) in per.items())
            + f"; {sum(t for _, t, _ in per.values()) * 1e3 / runs:.2f} ms of a {build:.2f} ms build")
        profile = cProfile.Profile()
        build_of(profile=profile)
        print(f"{what}, cProfile's heaviest functions:")
        pstats.Stats(profile, stream=sys.stdout).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
