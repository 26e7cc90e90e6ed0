"""`explainer bench --batch`: a class's queued prompts decoded together (engine/batch.py), at
batch sizes 1, 4 and 8: throughput over all requests, TTFT and TPOT as each request lived them,
and whether every token equals the same request run alone (Engine.generate).

Every prompt is queued at the start, as a class's are when the instructor opens the queue; a
request's TTFT runs from there to its first token (its wait included), its TPOT from its first
token to its last over the tokens between. Batch size 1 is one request at a time, today's
serving. The layer guesses are recorded as the app records them (lens) unless lens=False.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from explainer.engine.batch import BatchCache, BatchDecoder, decode_pass
from explainer.engine.generate import Engine
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Step, Trace
from explainer.model.build import BuiltModel

BATCH_SIZES = (1, 4, 8)
NEW_TOKENS = 48
PASSES = 20  # model passes alone, each of 1 and 8 rows, alternated (_model_passes)
PROMPTS = (
    "What is the capital of France?",
    "Write a haiku about autumn leaves.",
    "Explain photosynthesis to a child.",
    "Why is the sky blue?",
    "Give me three tips for learning to cook.",
    "What does a compiler do?",
    "Tell me a short story about a brave mouse who wanted to see the sea.",
    "How do vaccines work?",
)


def _settings(i: int) -> SamplingSettings:
    # a mix of greedy and sampled requests, each with its own seed; max_new_tokens for everyone
    return SamplingSettings(temperature=0.0 if i % 2 else 0.8, top_k=40, seed=100 + i, max_new_tokens=NEW_TOKENS)


def _p95(values: list[float]) -> float:
    return float(np.percentile(values, 95))


def _serve(engine: Engine, size: int, lens: bool) -> tuple[dict[str, float], list[Trace]]:
    decoder = BatchDecoder(engine, size)
    waiting = list(range(len(PROMPTS)))
    times: dict[int, list[float]] = {i: [] for i in waiting}
    traces: dict[int, Trace] = {}
    t0 = time.perf_counter()

    def stamp(i: int) -> Callable[[Trace, Step], None]:
        return lambda _trace, _step: times[i].append(time.perf_counter() - t0)

    while waiting or decoder.running:
        while waiting and decoder.free:
            i = waiting.pop(0)
            ended = decoder.admit(PROMPTS[i], _settings(i), chat=True, lens=lens, on_step=stamp(i), tag=i)
            if ended is not None:
                traces[i] = ended
        for r in decoder.step():
            traces[r.tag] = r.trace
    wall = time.perf_counter() - t0
    tokens = sum(len(t.steps) for t in traces.values())
    ttft = [times[i][0] for i in times]
    tpot = [(ts[-1] - ts[0]) / (len(ts) - 1) for ts in times.values() if len(ts) > 1]
    figures = {
        "seconds": round(wall, 3),
        "tokens": tokens,
        "tokens_per_s": round(tokens / wall, 2),
        "ttft_median_s": round(statistics.median(ttft), 4),
        "ttft_p95_s": round(_p95(ttft), 4),
        "tpot_median_s": round(statistics.median(tpot), 4),
        "tpot_p95_s": round(_p95(tpot), 4),
    }
    return figures, [traces[i] for i in range(len(PROMPTS))]


def _same(a: Trace, b: Trace) -> tuple[bool, float]:
    """Whether the two runs chose the same tokens, and the largest difference of their chosen
    tokens' probabilities."""
    same = [s.sampling.chosen.id for s in a.steps] == [s.sampling.chosen.id for s in b.steps]
    diff = max(
        (abs(x.sampling.chosen_raw_prob - y.sampling.chosen_raw_prob) for x, y in zip(a.steps, b.steps)), default=0.0
    )
    return same, diff


def run_batch_bench(built: BuiltModel) -> dict[str, object]:
    """The figures with the layer guesses recorded (as the app records a class's runs) and
    without them (the guesses' products grow with the batch: 29 rows more per request)."""
    engine = Engine(built, device="cpu")  # batched decoding runs the CPU graph
    return {"with_guesses": _sizes(engine, True), "without_guesses": _sizes(engine, False)}


def _sizes(engine: Engine, lens: bool) -> dict[str, object]:
    alone = [engine.generate(p, _settings(i), chat=True, lens=lens) for i, p in enumerate(PROMPTS)]
    report: dict[str, object] = {"requests": len(PROMPTS), "new_tokens": NEW_TOKENS, "lens": lens}
    report["model_pass"] = _model_passes(engine, lens)
    for size in BATCH_SIZES:
        figures, traces = _serve(engine, size, lens)
        checks = [_same(a, b) for a, b in zip(alone, traces, strict=True)]
        figures["tokens_equal_alone"] = all(ok for ok, _ in checks)
        figures["max_prob_diff"] = float(f"{max(d for _, d in checks):.3g}")
        report[f"batch_{size}"] = figures
    one = report["batch_1"]
    for size in BATCH_SIZES[1:]:
        mine = report[f"batch_{size}"]
        assert isinstance(one, dict) and isinstance(mine, dict)
        report[f"throughput_ratio_{size}_vs_1"] = round(mine["tokens_per_s"] / one["tokens_per_s"], 2)
    return report


def _model_passes(engine: Engine, lens: bool) -> dict[str, float]:
    """The model's decode pass alone, one row against eight, nothing recorded: the most batching
    can give on this machine, since the serving figures add each row's recording and each
    prompt's reading to it. The caches hold zeros past a common length (the arithmetic is the
    same as a real context's); the passes of 1 and 8 alternate, and the medians are kept."""
    cache = BatchCache(engine.runtime, max(BATCH_SIZES))
    for _ in range(max(BATCH_SIZES)):
        cache.claim().length = NEW_TOKENS
    times: dict[int, list[float]] = {1: [], 8: []}
    for _ in range(PASSES):
        for n in times:
            start = time.perf_counter()
            decode_pass(engine.runtime, cache, list(range(100, 100 + n)), lens)
            times[n].append(time.perf_counter() - start)
    one, eight = statistics.median(times[1]), statistics.median(times[8])
    return {
        "pass_1_ms": round(one * 1000, 1),
        "pass_8_ms": round(eight * 1000, 1),
        "per_token_ratio": round(8 * one / eight, 2),
    }
