"""End-to-end tokens/s of mlx-lm models with and without metalforge (run on the H200 through MLX's
CUDA back end; `--tiny` on any machine, the emulator included).

For each model (mlx-lm's own Llama and Qwen2 code, built from a config at a real size, random
weights made here, fp16, quantized with `nn.quantize` at 4 bits, group 64): the unpatched model
prefills a prompt and decodes greedily through its KV cache; then `metalforge.nn.patch` swaps in
metalforge's layers, one run with METALFORGE_RECORD records the kernel launches, `metalforge
autotune --recorded` tunes exactly those (bounded by --tune-seconds), and the patched model runs
the same prompt, decoding the unpatched run's tokens (so that every step compares like with like).
Correctness first: the largest logit difference of the prefill and of the decode steps, and
whether greedy decoding picks the same tokens. Then tokens/s for both (median of --reps runs):
prefill; decode as mlx-lm generates (its own `generate_step` loop, which builds the next step while
the GPU runs this one), and decode with each step evaluated before the next (the logits compared);
and each kernel's share of a patched decode step and
prefill (a separate pass that evaluates around every kernel call, so the shares are of a
synchronised run).

    python benchmarks/lm_bench.py --out DIR [--models llama-1b,llama-8b,qwen2-1.5b] [--tune-seconds 20]
    python benchmarks/lm_bench.py --out DIR --tiny      (tiny configs, short prompt: a smoke test)

Writes DIR/lm_bench.json and DIR/lm_bench.md (table, device, date, versions); prints the table last.
mlx-lm imports `transformers` and `huggingface_hub` at import time for its tokenizer and hub code,
which this never calls: where they are absent, empty stand-ins are put in `sys.modules`.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
import types
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import mlx.core as mx
import mlx.nn as nn

import metalforge
import metalforge.nn as mfnn
from metalforge.autotune import record
from metalforge.kernels import attention, flash_attention, matmul, norms, quantized, registered, rope

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runlog import Log  # noqa: E402

# (mlx-lm architecture, ModelArgs). Real shapes of Llama-3.2-1B, Llama-3-8B and Qwen2-1.5B, without
# Llama 3's rope_scaling (mlx-lm's own Llama3RoPE class, which patch leaves alone).
MODELS: dict[str, tuple[str, dict]] = {
    "llama-1b": ("llama", dict(model_type="llama", hidden_size=2048, num_hidden_layers=16, intermediate_size=8192,
                               num_attention_heads=32, num_key_value_heads=8, head_dim=64, rms_norm_eps=1e-5,
                               vocab_size=128256, rope_theta=500000.0, tie_word_embeddings=True)),
    "llama-8b": ("llama", dict(model_type="llama", hidden_size=4096, num_hidden_layers=32, intermediate_size=14336,
                               num_attention_heads=32, num_key_value_heads=8, rms_norm_eps=1e-5, vocab_size=128256,
                               rope_theta=500000.0, tie_word_embeddings=False)),
    "qwen2-1.5b": ("qwen2", dict(model_type="qwen2", hidden_size=1536, num_hidden_layers=28, intermediate_size=8960,
                                 num_attention_heads=12, num_key_value_heads=2, rms_norm_eps=1e-6, vocab_size=151936,
                                 rope_theta=1000000.0, tie_word_embeddings=True)),
    # tiny: odd vocabularies, MLP widths no power of two (multiples of the group size), grouped-query heads
    "llama-tiny": ("llama", dict(model_type="llama", hidden_size=64, num_hidden_layers=2, intermediate_size=192,
                                 num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-5, vocab_size=301,
                                 tie_word_embeddings=False)),
    "qwen2-tiny": ("qwen2", dict(model_type="qwen2", hidden_size=128, num_hidden_layers=2, intermediate_size=192,
                                 num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-6, vocab_size=299,
                                 tie_word_embeddings=True)),
}
# the library functions metalforge.nn calls, timed one by one in the profiling pass
KERNELS = ((quantized, "qmv"), (quantized, "qmv_swiglu"), (quantized, "qmv_qkv"), (quantized, "qmm"),
           (quantized, "qmm_qkv"), (quantized, "qmm_swiglu"), (norms, "rms_norm"), (norms, "layer_norm"), (rope, "rope"), (attention, "decode_attention"),
           (flash_attention, "flash_attention"), (matmul, "linear"))


def import_mlx_lm() -> types.ModuleType:
    """mlx_lm, with empty stand-ins for `transformers` and `huggingface_hub` where they are absent
    (imported by mlx_lm/__init__ for tokenizers and downloads, neither used here)."""
    for package, submodules in (("transformers", ("tokenization_utils_base",)), ("huggingface_hub", ())):
        try:
            importlib.import_module(package)
        except ImportError:
            for name in (package, *(f"{package}.{sub}" for sub in submodules)):
                sys.modules[name] = _stand_in(name)
    return importlib.import_module("mlx_lm")


class _StandInClass(type):
    """The class of stand-in classes: any class attribute is a function that does nothing (mlx_lm
    calls `AutoTokenizer.register(...)` at import time)."""

    def __getattr__(cls, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return lambda *args, **kwargs: None


def _stand_in(name: str) -> types.ModuleType:
    """A module from which any public name imports, as an empty class."""
    module = types.ModuleType(name)

    def attribute(attr: str) -> type:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _StandInClass(attr, (), {})

    module.__getattr__ = attribute
    return module


def build(name: str, dtype: mx.Dtype = mx.float16, bits: Optional[int] = 4, group_size: int = 64,
          seed: int = 0) -> nn.Module:
    """An mlx-lm model of MODELS[name] with random weights (seeded), cast to `dtype`, quantized with
    `nn.quantize(model, group_size, bits)` unless bits is None."""
    import_mlx_lm()
    arch, config = MODELS[name]
    module = importlib.import_module(f"mlx_lm.models.{arch}")
    mx.random.seed(seed)
    model = module.Model(module.ModelArgs.from_dict(config))
    model.set_dtype(dtype)
    if bits is not None:
        nn.quantize(model, group_size=group_size, bits=bits)
    mx.eval(model.parameters())
    return model


def generate(model: nn.Module, prompt: mx.array, steps: int, tokens: Optional[list[int]] = None,
             after_prefill: Callable[[], None] = lambda: None) -> dict:
    """Prefill `prompt` (1-D token ids) through a fresh KV cache, then `steps` decode steps, each fed
    the greedy token of the step before, or `tokens[i]` where given (to follow another run). Returns
    the prefill's last logits, each step's logits, the greedy tokens and the seconds each phase took
    (every step evaluated before the next, as generation does) and of the decode's, those the host
    spent building the steps' graphs (Python and MLX's calls, before evaluating); `after_prefill`
    runs between them."""
    from mlx_lm.models.cache import make_prompt_cache

    cache = make_prompt_cache(model)
    start = time.perf_counter()
    logits = model(prompt[None], cache=cache)[:, -1]
    mx.eval(logits)
    prefill_s = time.perf_counter() - start
    after_prefill()
    greedy, step_logits, build_s = [int(mx.argmax(logits, axis=-1).item())], [], 0.0
    start = time.perf_counter()
    for i in range(steps):
        fed = greedy[-1] if tokens is None else tokens[i]
        built = time.perf_counter()
        out = model(mx.array([[fed]]), cache=cache)[:, -1]
        nxt = mx.argmax(out, axis=-1)
        build_s += time.perf_counter() - built
        mx.eval(out, nxt)
        step_logits.append(out)
        greedy.append(int(nxt.item()))
    return {"prefill_logits": logits, "step_logits": step_logits, "tokens": greedy, "prefill_s": prefill_s,
            "decode_s": time.perf_counter() - start, "decode_build_s": build_s}


def max_logit_difference(a: dict, b: dict) -> tuple[float, float]:
    """The largest |difference| of the prefill's last logits and of any decode step's logits."""
    def diff(x: mx.array, y: mx.array) -> float:
        return float(mx.abs(x.astype(mx.float32) - y.astype(mx.float32)).max().item())
    steps = [diff(x, y) for x, y in zip(a["step_logits"], b["step_logits"])]
    return diff(a["prefill_logits"], b["prefill_logits"]), max(steps, default=0.0)


@contextlib.contextmanager
def kernel_timer(totals: dict[str, float], model: nn.Module) -> Iterator[None]:
    """Time every library call metalforge.nn makes (inputs evaluated first, the output evaluated
    inside the clock) into `totals` by function name: the functions, and the launches the layers of
    `model` prepare (`NAME_launch(...).prepare()`), which are prepared again inside. A call made
    inside another of them (qmm_qkv's three qmm for tiny weights) counts in the outer one only."""
    originals = [(module, name, getattr(module, name)) for module, name in KERNELS]
    originals += [(module, f"{name}_launch", getattr(module, f"{name}_launch")) for module, name in KERNELS
                  if hasattr(module, f"{name}_launch")]
    inside = [False]

    def timed(fn: Any, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if inside[0]:
                return fn(*args, **kwargs)
            mx.eval([a for a in args if isinstance(a, mx.array)])
            inside[0], start = True, time.perf_counter()
            try:
                out = fn(*args, **kwargs)
                mx.eval(out)
            finally:
                inside[0] = False
            totals[name] += time.perf_counter() - start
            return out
        return call

    def timed_launch(build: Any, name: str) -> Any:
        def launch(*args: Any, **kwargs: Any) -> Any:
            prepared = build(*args, **kwargs).prepare()
            return types.SimpleNamespace(prepare=lambda: timed(prepared, name))
        return launch

    for module, name, fn in originals:
        setattr(module, name, timed_launch(fn, name[:-len("_launch")]) if name.endswith("_launch") else timed(fn, name))
    mfnn.forget_prepared(model)
    try:
        yield
    finally:
        for module, name, fn in originals:
            setattr(module, name, fn)
        mfnn.forget_prepared(model)


def kernel_shares(model: nn.Module, prompt: mx.array, steps: int) -> dict[str, dict[str, float]]:
    """Each library function's share of a synchronised patched prefill and of its decode steps."""
    totals: dict[str, float] = defaultdict(float)
    prefill: dict[str, float] = {}
    with kernel_timer(totals, model):
        run = generate(model, prompt, steps, after_prefill=lambda: prefill.update(totals))
    decode = {name: t - prefill.get(name, 0.0) for name, t in totals.items()}
    return {phase: {name: t / run[f"{phase}_s"] for name, t in sorted(spent.items(), key=lambda kv: -kv[1]) if t > 0}
            for phase, spent in (("prefill", prefill), ("decode", decode))}


def forget_configs() -> None:
    """Empty every library kernel's looked-up configs: the next launch of each key looks it up again
    (and, under METALFORGE_RECORD, notes its case)."""
    for tuner in registered().values():
        tuner.clear_cache()


def tune_recorded(path: Path, tune_seconds: float, trials: int) -> int:
    """`metalforge autotune --recorded PATH` in a process of its own, as a user runs it beside the
    program (tuned in this process, its inputs, studies and compiled candidates stayed alive here and
    a patched 8B decode step took 5.1 ms to build instead of 3.0: H100, docs/models.md), each case's
    search bounded so that all fit in `tune_seconds`; then the launches look their configs up again
    (keys that were not tuned exactly, such as the decode attention's other key lengths, find the
    nearest tuned bucket)."""
    cases = record.read(path)
    per_case = max(1.0, tune_seconds / max(1, len(cases)))
    status = subprocess.run([sys.executable, "-c", "import sys; from metalforge import cli; sys.exit(cli.main())",
                             "autotune", "--recorded", str(path), "--trials", str(trials), "--timeout", f"{per_case:g}",
                             "--quiet"]).returncode
    forget_configs()
    return status


def median_run(model: nn.Module, prompt: mx.array, steps: int, reps: int, tokens: Optional[list[int]]) -> dict:
    """The run with the median decode time of `reps` (after a warm-up run that compiles)."""
    generate(model, prompt, min(steps, 2), tokens)
    runs = sorted((generate(model, prompt, steps, tokens) for _ in range(reps)), key=lambda r: r["decode_s"])
    best = runs[len(runs) // 2]
    best["prefill_s"] = statistics.median(r["prefill_s"] for r in runs)
    return best


def generation_rate(model: nn.Module, prompt: mx.array, steps: int, reps: int) -> float:
    """Decode tokens per second as mlx-lm generates: its own `generate_step` loop (greedy), which
    builds each step's graph while the GPU runs the step before (`mx.async_eval`). The median of
    `reps` runs after one warm-up run, each timed from its first token (the prefill's) to its last."""
    generate_step = importlib.import_module("mlx_lm.generate").generate_step
    rates = []
    for _ in range(reps + 1):
        tokens = generate_step(prompt, model, max_tokens=steps + 1, sampler=lambda lp: mx.argmax(lp, axis=-1))
        next(tokens)
        start = time.perf_counter()
        count = sum(1 for _ in tokens)
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates[1:])


def bench_model(name: str, args: argparse.Namespace, out: Path, log: Any) -> dict:
    mx.random.seed(1)
    model = build(name, mx.float16, 4, 64)
    prompt = mx.random.randint(0, MODELS[name][1]["vocab_size"], (args.prompt,))
    base = median_run(model, prompt, args.decode, args.reps, None)
    base_rate = generation_rate(model, prompt, args.decode, args.reps)
    log(f"{name}: unpatched prefill {base['prefill_s']:.3f} s, decode {base['decode_s']:.3f} s (evaluated per step), "
        f"{base_rate:.1f} tokens/s in mlx-lm's generation")
    report = mfnn.patch(model)
    log(f"{name}: patched {report}")
    recorded = out / f"{name}.record.jsonl"
    recorded.unlink(missing_ok=True)
    forget_configs()
    os.environ[record.RECORD_ENV] = str(recorded)
    try:
        generate(model, prompt, args.decode, base["tokens"])
    finally:
        del os.environ[record.RECORD_ENV]
    if args.tune_seconds > 0:
        status = tune_recorded(recorded, args.tune_seconds, args.trials)
        log(f"{name}: tuned {len(record.read(recorded))} recorded cases (exit {status})")
    patched = median_run(model, prompt, args.decode, args.reps, base["tokens"])
    patched_rate = generation_rate(model, prompt, args.decode, args.reps)
    prefill_diff, decode_diff = max_logit_difference(base, patched)
    shares = kernel_shares(model, prompt, min(args.decode, 16))
    mfnn.unpatch(model)
    same = sum(1 for a, b in zip(base["tokens"], patched["tokens"]) if a == b)
    return {"model": name, "replaced": report.counts(), "attention_patched": report.attention,
            "prefill_tokens": args.prompt, "decode_tokens": args.decode,
            "unpatched_prefill_tok_s": args.prompt / base["prefill_s"],
            "patched_prefill_tok_s": args.prompt / patched["prefill_s"],
            "unpatched_decode_tok_s": base_rate, "patched_decode_tok_s": patched_rate,
            "unpatched_stepwise_tok_s": args.decode / base["decode_s"],
            "patched_stepwise_tok_s": args.decode / patched["decode_s"],
            "unpatched_build_ms": 1e3 * base["decode_build_s"] / args.decode,
            "patched_build_ms": 1e3 * patched["decode_build_s"] / args.decode,
            "max_logit_diff_prefill": prefill_diff, "max_logit_diff_decode": decode_diff,
            "greedy_tokens_same": f"{same}/{len(base['tokens'])}",
            "max_abs_logit": float(mx.abs(base["prefill_logits"].astype(mx.float32)).max().item()),
            "kernel_shares": shares, "fallbacks": mfnn.fallbacks()}


def greedy_check(name: str, prompt_len: int, steps: int) -> dict:
    """Issue 21's fp32 criterion: greedy decoding of `steps` tokens from a fixed prompt, unpatched
    and patched (each following its own choices), in float32 with 4-bit g64 weights."""
    model = build(name, mx.float32, 4, 64)
    prompt = (mx.arange(prompt_len) * 7919) % MODELS[name][1]["vocab_size"]
    base = generate(model, prompt, steps)
    mfnn.patch(model)
    ours = generate(model, prompt, steps)
    mfnn.unpatch(model)
    differ = [i for i, (a, b) in enumerate(zip(base["tokens"], ours["tokens"])) if a != b]
    return {"model": name, "tokens": len(base["tokens"]), "identical": not differ,
            "first_difference": differ[0] if differ else None}


def table(rows: list[dict]) -> str:
    lines = ["| model | prefill tok/s MLX | patched | decode tok/s MLX | patched | evaluated per step: MLX | patched "
             "| building a step, ms: MLX / patched | max logit diff (prefill, decode) | greedy same "
             "| top kernels: decode step | prefill |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | FAILED: {r['error']} |||||||||||")
            continue
        top = " | ".join(", ".join(f"{k} {v:.0%}" for k, v in list(r["kernel_shares"][phase].items())[:3])
                         for phase in ("decode", "prefill"))
        lines.append(f"| {r['model']} | {r['unpatched_prefill_tok_s']:.0f} | {r['patched_prefill_tok_s']:.0f} | "
                     f"{r['unpatched_decode_tok_s']:.1f} | {r['patched_decode_tok_s']:.1f} | "
                     f"{r['unpatched_stepwise_tok_s']:.1f} | {r['patched_stepwise_tok_s']:.1f} | "
                     f"{r['unpatched_build_ms']:.2f} / {r['patched_build_ms']:.2f} | "
                     f"{r['max_logit_diff_prefill']:.3g}, {r['max_logit_diff_decode']:.3g} "
                     f"(of {r['max_abs_logit']:.3g}) | {r['greedy_tokens_same']} | {top} |")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="lm-bench-out")
    ap.add_argument("--models", default="llama-1b,llama-8b,qwen2-1.5b",
                    help=f"comma-separated, of {', '.join(MODELS)}")
    ap.add_argument("--tiny", action="store_true", help="the tiny configs, 24-token prompt, 4 steps: a smoke test")
    ap.add_argument("--prompt", type=int, default=512, help="prompt tokens (prefill)")
    ap.add_argument("--decode", type=int, default=128, help="decode steps")
    ap.add_argument("--reps", type=int, default=3, help="timed runs per model and side (median)")
    ap.add_argument("--tune-seconds", type=float, default=20.0,
                    help="search budget per model, split over its recorded cases (each case also pays its set-up: "
                    "random inputs, the reference, compiling; 0: no tuning)")
    ap.add_argument("--trials", type=int, default=8, help="configs measured per recorded case at most")
    ap.add_argument("--budget", type=float, default=200.0, metavar="S",
                    help="start no model after S seconds of the run (its row says so): the run ends near S + one model")
    ap.add_argument("--greedy", default="llama-1b", metavar="MODEL",
                    help="the model of the fp32 greedy-decoding check (32 tokens); '' skips it")
    args = ap.parse_args(argv)
    if args.tiny:
        args.models, args.prompt, args.decode, args.reps = "llama-tiny,qwen2-tiny", 24, 4, 1
        args.greedy = args.greedy and "llama-tiny"
    names = args.models.split(",")
    unknown = [n for n in names + ([args.greedy] if args.greedy else []) if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(MODELS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = Log(out / "lm_bench.log", stamp=False, stream=sys.stdout)

    run_start = time.perf_counter()
    mlx_lm = import_mlx_lm()
    greedy: dict = {}
    if args.greedy:
        try:
            greedy = greedy_check(args.greedy, 16, 32)
        except Exception as e:  # noqa: BLE001 - the check failing must not end the run
            log.write(traceback.format_exc())
            greedy = {"model": args.greedy, "error": f"{type(e).__name__}: {e}"}
        log(f"fp32 greedy check: {greedy}")
    rows = []
    for name in names:
        started = time.perf_counter()
        if started - run_start > args.budget:
            rows.append({"model": name, "error": f"not run: {started - run_start:.0f} s of the --budget "
                                                 f"{args.budget:g} s spent"})
            continue
        try:
            rows.append(bench_model(name, args, out, log))
        except Exception as e:  # noqa: BLE001 - one broken row must not end the run
            log.write(traceback.format_exc())
            rows.append({"model": name, "error": f"{type(e).__name__}: {e}"})
        log(f"{name}: {time.perf_counter() - started:.0f} s")
    versions = {"device": str(mx.default_device()), "date": datetime.date.today().isoformat(),
                "metalforge": metalforge.__version__, "mlx": mx.__version__, "mlx_lm": mlx_lm.__version__,
                "python": platform.python_version(), "machine": platform.machine()}
    (out / "lm_bench.json").write_text(json.dumps({"versions": versions, "greedy_fp32": greedy, "rows": rows},
                                                  indent=1))
    text = table(rows)
    if greedy:
        text += (f"\n\nfp32 greedy decoding, {greedy['model']}: " + (f"FAILED: {greedy['error']}" if "error" in greedy
                 else f"{greedy['tokens']} tokens, {'identical' if greedy['identical'] else 'first difference at ' + str(greedy['first_difference'])}"))
    (out / "lm_bench.md").write_text(f"{text}\n\n{json.dumps(versions)}\n")
    print(json.dumps(versions))
    print(text)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
