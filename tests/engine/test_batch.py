"""Batched decoding (engine/batch.py): requests decoded together answer exactly as alone."""

from __future__ import annotations

import numpy as np
import pytest

from explainer.engine.batch import BatchDecoder
from explainer.engine.generate import Engine
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Trace

pytestmark = pytest.mark.slow

# eight requests: prompts of different lengths, greedy and sampled, limits that end some early
REQUESTS = [
    ("The capital of France is", SamplingSettings(temperature=0.0, max_new_tokens=12, seed=1)),
    ("Once upon a time there was a robot", SamplingSettings(temperature=0.8, max_new_tokens=5, seed=2)),
    ("1, 2, 3,", SamplingSettings(temperature=1.0, top_k=20, max_new_tokens=16, seed=3)),
    ("Water boils at", SamplingSettings(temperature=0.7, top_p=0.9, max_new_tokens=3, seed=4)),
    (
        "The quick brown fox jumps over the lazy dog.",
        SamplingSettings(temperature=1.2, max_new_tokens=10, seed=5),
    ),
    ("Hi", SamplingSettings(temperature=0.0, max_new_tokens=8, seed=6)),
    ("Why is the sky blue?", SamplingSettings(temperature=0.9, top_k=40, max_new_tokens=14, seed=7)),
    ("def add(a, b):", SamplingSettings(temperature=0.5, max_new_tokens=6, seed=8)),
]


def batched(engine: Engine, slots: int, lens: bool) -> list[Trace]:
    """Every request through a BatchDecoder of `slots`, admitted as slots free up."""
    decoder = BatchDecoder(engine, slots)
    waiting = list(enumerate(REQUESTS))
    traces: dict[int, Trace] = {}
    shared_passes = 0
    while waiting or decoder.running:
        while waiting and decoder.free:
            i, (prompt, settings) = waiting.pop(0)
            trace = decoder.admit(prompt, settings, lens=lens, tag=i)
            if trace is not None:
                traces[i] = trace
        shared_passes += len(decoder.running) > 1
        for r in decoder.step():
            traces[r.tag] = r.trace
    assert shared_passes > 5  # the requests really shared passes
    return [traces[i] for i in range(len(REQUESTS))]


def assert_same_top(a, b) -> None:
    """The same candidates with the same probabilities (within 1e-5); two candidates whose
    probabilities are that close may trade places, or one may trade the list's last place."""
    np.testing.assert_allclose(b.probs, a.probs, atol=1e-5, rtol=0)
    pa, pb = dict(zip(a.ids.tolist(), a.probs.tolist())), dict(zip(b.ids.tolist(), b.probs.tolist()))
    for i in pa.keys() & pb.keys():
        assert abs(pa[i] - pb[i]) <= 1e-5
    last = min(a.probs[-1], b.probs[-1]) if len(a.probs) else 0.0
    for i in pa.keys() ^ pb.keys():
        assert abs((pa[i] if i in pa else pb[i]) - last) <= 1e-5
    assert abs(b.rest - a.rest) <= 1e-5


def assert_same_run(alone, together) -> None:
    assert together.stop_reason == alone.stop_reason
    assert [s.sampling.chosen.id for s in together.steps] == [s.sampling.chosen.id for s in alone.steps]
    for a, b in zip(alone.steps, together.steps, strict=True):
        assert b.start == a.start and [t.id for t in b.tokens] == [t.id for t in a.tokens]
        for sa, sb in zip(a.sampling.stages, b.sampling.stages, strict=True):
            assert_same_top(sa, sb)
        assert abs(b.sampling.chosen_prob - a.sampling.chosen_prob) <= 1e-5
        assert abs(b.sampling.chosen_raw_prob - a.sampling.chosen_raw_prob) <= 1e-5
        assert b.sampling.draw == a.sampling.draw
        np.testing.assert_allclose(b.logits, a.logits, atol=1e-4, rtol=0)
        la, lb = a.layers, b.layers
        np.testing.assert_array_equal(lb.attention_ids[..., :4], la.attention_ids[..., :4])
        assert lb.attention_ids.shape == la.attention_ids.shape
        assert ((lb.attention_ids >= 0) == (la.attention_ids >= 0)).all()  # no position past its own
        np.testing.assert_allclose(lb.attention_weights, la.attention_weights, atol=1e-3)
        if la.lens_probs is not None:
            np.testing.assert_allclose(lb.lens_probs, la.lens_probs, atol=1e-5)
            assert (lb.lens_ids[:, 0] == la.lens_ids[:, 0]).all()


@pytest.mark.parametrize("slots", [8, 3])
def test_eight_requests_batched_answer_as_alone(second_model, slots):
    engine = Engine(second_model, device="cpu")
    alone = [engine.generate(prompt, settings, lens=True) for prompt, settings in REQUESTS]
    assert len({len(t.steps) for t in alone}) > 3  # they end at different steps
    together = batched(engine, slots, lens=True)
    for a, b in zip(alone, together, strict=True):
        assert_same_run(a, b)


def test_the_cuda_graph_serves_the_class_one_request_at_a_time(second_model):
    """The CUDA graph reads one row: a class batch on it runs each request alone, to the same
    tokens, instead of failing them (run here on the CPU provider)."""
    from explainer.engine.runtime import ModelRuntime
    from explainer.inference.batch_loop import serve_batch
    from explainer.inference.messages import Admit, BatchDone, BatchMessage, ClassEnded, ClassReply, ClassStep, EndBatch

    engine = Engine(second_model, device="cpu")
    alone = [engine.generate(prompt, settings) for prompt, settings in REQUESTS[:3]]
    engine.runtime = ModelRuntime(second_model.onnx_path, second_model.config, "cpu", graph="cuda")
    sent: list[BatchMessage] = [Admit(i, p, s) for i, (p, s) in enumerate(REQUESTS[:3])]
    sent.append(EndBatch())
    said: list[ClassReply | BatchDone] = []
    serve_batch(engine, 4, False, lambda _wait: [sent.pop(0)] if sent else [], said.append, lambda: False)
    assert isinstance(said[-1], BatchDone)
    for i, a in enumerate(alone):
        steps = [r for r in said if isinstance(r, ClassStep) and r.tag == i]
        assert [s.step.sampling.chosen.id for s in steps] == [s.sampling.chosen.id for s in a.steps]
        assert all(s.rows == 1 for s in steps)
        ended = [r for r in said if isinstance(r, ClassEnded) and r.tag == i]
        assert len(ended) == 1 and ended[0].failure is None and ended[0].stop_reason == a.stop_reason
