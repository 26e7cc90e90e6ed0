"""`explainer bench`: measured figures for the engine, printed as one JSON object.

Speed is reported, never asserted: a 2-core laptop and an H200 both pass the tests. Where a
peer can run in the same process (llama.cpp through llama-cpp-python, when installed), its
figure is measured in the same run so the ratio means something.

`tpot_s` is decode as the app runs it: `Engine.generate` with every stage captured, the layer
guesses (the logit lens) and the attention included, exactly what the app's worker asks for
(`ui/worker.py`: `lens=True`), sampling and recording the step included. `tpot_no_lens_s` is
the same loop without the guesses, the figure `bench` reported as `tpot_s` before. Both decode
the same prose after the same prompt: the tokens read are forced (as a learner's "Your turn"
pick is, `Engine.continue_from`), so an end token cannot cut a run short and both figures are
medians over the same number of steps; what token is read does not change what a pass costs.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from explainer.bench.memory import peak_rss_mb
from explainer.engine.generate import Engine
from explainer.engine.runtime import ModelRuntime
from explainer.engine.sampler import SamplingSettings
from explainer.errors import ExplainerError
from explainer.model.build import BuiltModel

# Ordinary English prose, repeated: the numbers do not depend on what the tokens say.
_TEXT = (
    "A language model reads the text it is given, one token at a time, and predicts what "
    "comes next. The prediction is a probability for every token it knows. "
)
DECODE_TOKENS = 64
LONG_DECODE_TOKENS = 16  # decode at 256 tokens of context
# the most tokens one measurement holds in the cache: 256 read, then LONG_DECODE_TOKENS decoded
WINDOW_NEEDED = 256 + LONG_DECODE_TOKENS


def _ids(engine: Engine, n: int) -> list[int]:
    ids = engine.tokenizer.encode_ids(_TEXT * (n // 20 + 2))
    return ids[:n]


def _prefill_s(runtime: ModelRuntime, ids: list[int], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        out = runtime.forward(ids, runtime.new_cache())
        times.append(out.seconds)
    return min(times)


def _decode_s(runtime: ModelRuntime, prompt: list[int], n: int) -> float:
    """Median seconds per bare decode pass (no guesses) over n tokens after `prompt`."""
    cache = runtime.new_cache()
    out = runtime.forward(prompt, cache)
    times = []
    for _ in range(n):
        out = runtime.forward([int(out.logits.argmax())], cache)
        times.append(out.seconds)
    return statistics.median(times)


def _generate_tpot_s(engine: Engine, prompt: list[int], n: int, lens: bool) -> float:
    """Median seconds per decode step of `Engine.generate` over n steps after `prompt`, as the
    app runs it (`lens=True`) or without the layer guesses; greedy, the prose's own next tokens
    forced (see the module's docstring)."""
    text = engine.tokenizer.decode(prompt)
    forced = _ids(engine, len(prompt) + n + 1)[len(prompt) :]
    trace = engine.generate(text, SamplingSettings(max_new_tokens=n + 1), lens=lens, forced=forced)
    tpot = trace.tpot_s
    assert tpot is not None  # n >= 1 decode steps, none cut short by an end token
    return tpot


def _llama_cpp_figures(gguf: Path | None, prompt: list[int], long: list[int], n: int) -> dict[str, float | str]:
    """llama.cpp on the same GGUF, if llama-cpp-python is installed; never a dependency: decode
    after `prompt` (median seconds per token over n) and the prefill of the 256 tokens `long`
    (best of 3), with one thread per core as ONNX Runtime uses."""
    try:
        from llama_cpp import Llama
    except ImportError:
        return {"llama_cpp": "not installed (pip install llama-cpp-python to compare)"}
    if gguf is None:
        return {"llama_cpp": "GGUF not in the download cache"}
    threads = os.cpu_count() or 1
    llm = Llama(
        model_path=str(gguf),
        n_ctx=1024,
        n_threads=threads,
        n_threads_batch=threads,
        n_batch=512,
        verbose=False,
        logits_all=False,
    )
    llm.eval(prompt)
    times = []
    token = int(llm.scores[llm.n_tokens - 1].argmax())
    for _ in range(n):
        t = time.perf_counter()
        llm.eval([token])
        times.append(time.perf_counter() - t)
        token = int(llm.scores[llm.n_tokens - 1].argmax())
    prefill = []
    reset: Callable[[], None] = llm.reset  # (untyped in llama-cpp-python: typed here)
    for _ in range(3):
        reset()
        t = time.perf_counter()
        llm.eval(long)
        prefill.append(time.perf_counter() - t)
    return {"llama_cpp_tpot_s": statistics.median(times), "llama_cpp_prefill_256_s": min(prefill)}


def run_bench(built: BuiltModel, device: str | None = None, llama_cpp: bool = True) -> dict[str, object]:
    window = int(built.config["context_length"])
    if window < WINDOW_NEEDED:
        raise ExplainerError(
            f"bench holds up to {WINDOW_NEEDED} tokens at once, but {built.name} reads at most {window}",
            f"measure it with `explainer bench --context {window} --model {built.name}` instead",
        )
    start = time.perf_counter()
    engine = Engine(built, device)
    load_s = time.perf_counter() - start
    runtime = engine.runtime
    p32, p256 = _ids(engine, 32), _ids(engine, 256)
    runtime.forward(p32, runtime.new_cache())  # warm-up: first-run allocations are not the model
    prefill_32 = _prefill_s(runtime, p32)
    prefill_256 = _prefill_s(runtime, p256)
    tpot = _generate_tpot_s(engine, p32, DECODE_TOKENS, lens=True)
    tpot_no_lens = _generate_tpot_s(engine, p32, DECODE_TOKENS, lens=False)
    tpot_256 = _decode_s(runtime, p256, LONG_DECODE_TOKENS)
    # Without a cache every new token re-reads the whole sequence: 256 tokens for one token.
    no_cache = _prefill_s(runtime, _ids(engine, 257))
    report: dict[str, object] = {
        "model": engine.display_name,
        "provider": runtime.provider,
        "load_s": load_s,
        "session_load_s": runtime.load_seconds,
        "prefill_32_s": prefill_32,
        "prefill_256_s": prefill_256,
        # decode as the app runs it: every stage captured, the layer guesses included
        "tpot_s": tpot,
        "tokens_per_s": 1.0 / tpot,
        "tpot_no_lens_s": tpot_no_lens,
        "lens_cost_ratio": tpot / tpot_no_lens,
        "tpot_256_no_lens_s": tpot_256,
        "no_cache_256_s": no_cache,
        "no_cache_ratio_256": no_cache / tpot_256,
        "decode_tokens": DECODE_TOKENS,
        # ours alone: measured before llama.cpp is loaded into this process
        "peak_rss_mb": peak_rss_mb(),
    }
    if llama_cpp:
        theirs = _llama_cpp_figures(built.gguf_path, p32, p256, DECODE_TOKENS)
        report.update(theirs)
        decode, prefill = theirs.get("llama_cpp_tpot_s"), theirs.get("llama_cpp_prefill_256_s")
        if isinstance(decode, float) and isinstance(prefill, float):
            report["tpot_ratio_vs_llama_cpp"] = tpot / decode
            report["tpot_no_lens_ratio_vs_llama_cpp"] = tpot_no_lens / decode
            report["prefill_256_ratio_vs_llama_cpp"] = prefill_256 / prefill
    return report
