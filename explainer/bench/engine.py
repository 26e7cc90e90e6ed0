"""`explainer bench`: measured figures for the engine, printed as one JSON object.

Speed is reported, never asserted: a 2-core laptop and an H200 both pass the tests. Where a
peer can run in the same process (llama.cpp through llama-cpp-python, when installed), its
figure is measured in the same run so the ratio means something.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path

from explainer.engine.generate import Engine
from explainer.engine.runtime import ModelRuntime
from explainer.model.build import BuiltModel

# Ordinary English prose, repeated: the numbers do not depend on what the tokens say.
_TEXT = (
    "A language model reads the text it is given, one token at a time, and predicts what "
    "comes next. The prediction is a probability for every token it knows. "
)
DECODE_TOKENS = 64


def _ids(engine: Engine, n: int) -> list[int]:
    ids = engine.tokenizer.encode_ids(_TEXT * (n // 20 + 2))
    return ids[:n]


def _prefill_s(runtime: ModelRuntime, ids: list[int], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        out = runtime.forward(ids, runtime.new_cache())
        times.append(out.seconds)
    return min(times)


def _decode_s(runtime: ModelRuntime, prompt: list[int], n: int, lens: bool) -> float:
    """Median seconds per decode pass over n tokens after `prompt` (greedy continuation)."""
    cache = runtime.new_cache()
    out = runtime.forward(prompt, cache)
    times = []
    for _ in range(n):
        out = runtime.forward([int(out.logits.argmax())], cache, lens=lens)
        times.append(out.seconds)
    return statistics.median(times)


def _peak_rss_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 if sys.platform != "darwin" else kb / 2**20


def _llama_cpp_tpot(gguf: Path | None, prompt: list[int], n: int) -> dict[str, object]:
    """llama.cpp on the same GGUF, if llama-cpp-python is installed; never a dependency."""
    try:
        from llama_cpp import Llama
    except ImportError:
        return {"llama_cpp": "not installed (pip install llama-cpp-python to compare)"}
    if gguf is None:
        return {"llama_cpp": "GGUF not in the download cache"}
    import os

    llm = Llama(model_path=str(gguf), n_ctx=1024, n_threads=os.cpu_count(), verbose=False, logits_all=False)
    llm.eval(prompt)
    times = []
    token = int(llm.scores[llm.n_tokens - 1].argmax())
    for _ in range(n):
        t = time.perf_counter()
        llm.eval([token])
        times.append(time.perf_counter() - t)
        token = int(llm.scores[llm.n_tokens - 1].argmax())
    return {"llama_cpp_tpot_s": statistics.median(times)}


def run_bench(built: BuiltModel, device: str | None = None, llama_cpp: bool = True) -> dict[str, object]:
    start = time.perf_counter()
    engine = Engine(built, device)
    load_s = time.perf_counter() - start
    runtime = engine.runtime
    p32, p256 = _ids(engine, 32), _ids(engine, 256)
    runtime.forward(p32, runtime.new_cache())  # warm-up: first-run allocations are not the model
    prefill_32 = _prefill_s(runtime, p32)
    prefill_256 = _prefill_s(runtime, p256)
    tpot = _decode_s(runtime, p32, DECODE_TOKENS, lens=False)
    tpot_lens = _decode_s(runtime, p32, 16, lens=True)
    tpot_256 = _decode_s(runtime, p256, 16, lens=False)
    # Without a cache every new token re-reads the whole sequence: 256 tokens for one token.
    no_cache = _prefill_s(runtime, _ids(engine, 257))
    report = {
        "model": engine.display_name,
        "provider": runtime.provider,
        "load_s": load_s,
        "session_load_s": runtime.load_seconds,
        "prefill_32_s": prefill_32,
        "prefill_256_s": prefill_256,
        "tpot_s": tpot,
        "tokens_per_s": 1.0 / tpot,
        "tpot_lens_s": tpot_lens,
        "tpot_256_s": tpot_256,
        "no_cache_256_s": no_cache,
        "no_cache_ratio_256": no_cache / tpot_256,
        "decode_tokens": DECODE_TOKENS,
    }
    if llama_cpp:
        report.update(_llama_cpp_tpot(built.gguf_path, p32, DECODE_TOKENS))
        if "llama_cpp_tpot_s" in report:
            report["tpot_ratio_vs_llama_cpp"] = tpot / report["llama_cpp_tpot_s"]
    report["peak_rss_mb"] = _peak_rss_mb()
    return report
