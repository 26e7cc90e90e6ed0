"""The request loop on the real model: what a learner would see it do."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from explainer.engine import generate
from explainer.engine.generate import Engine
from explainer.engine.sampler import SamplingSettings
from explainer.engine.text_bytes import LIKE_TOKENIZERS
from explainer.engine.trace_file import load_trace, save_trace
from explainer.errors import Cancelled, ExplainerError

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def engine(built_model):
    return Engine(built_model, device="cpu")


def test_greedy_continues_with_paris(engine):
    trace = engine.generate("The capital of France is", SamplingSettings(max_new_tokens=3))
    assert trace.steps[0].sampling.chosen.text == " Paris"
    assert trace.text.startswith("The capital of France is Paris")
    assert trace.steps[0].phase == "prefill" and len(trace.steps[0].tokens) == 5
    assert all(s.phase == "decode" and len(s.tokens) == 1 for s in trace.steps[1:])
    assert trace.stop_reason == "max_tokens" and len(trace.steps) == 3
    assert trace.ttft_s > 0 and trace.tpot_s > 0


def test_prefill_records_every_stage(engine):
    trace = engine.generate("The capital of France is", SamplingSettings(max_new_tokens=1))
    step = trace.steps[0]
    assert [t.id for t in step.tokens] == engine.tokenizer.encode_ids("The capital of France is")
    assert len(step.embeddings) == 5 and len(step.embeddings[0]) == 576
    assert len(step.layers) == 30
    # every layer's attention of the last token covers the 5 positions read, for each of the 9 heads
    assert all(
        layer.attention_ids.shape[0] == 9 and (layer.attention_ids >= 0).sum(axis=1).tolist() == [5] * 9
        for layer in step.layers
    )
    assert step.layers[-1].lens.ids[0] == step.sampling.raw.ids[0]  # the last layer's lens is the answer
    # the raw scores are kept, and give the recorded raw probabilities again
    assert step.logits.shape == (49152,) and int(step.logits.argmax()) == step.sampling.chosen.id
    p = np.exp(step.logits.astype(np.float64) - step.logits.max())
    assert (p / p.sum())[step.sampling.raw.ids].tolist() == pytest.approx(step.sampling.raw.probs.tolist(), abs=1e-7)
    assert step.sampling.raw.probs[0] == pytest.approx(0.77, abs=0.01)


def test_chat_mode_shows_template_tokens_and_stops_on_eos(engine):
    trace = engine.generate("What is 2+2?", SamplingSettings(max_new_tokens=64), chat=True)
    assert trace.prompt_tokens[0].text == "<|im_start|>" and trace.prompt_tokens[0].id == 1
    assert trace.stop_reason == "eos"
    assert trace.steps[-1].sampling.chosen.id == engine.eos_id
    assert "4" in "".join(t.text for t in trace.output_tokens)


def test_stops_when_the_context_is_full(engine, monkeypatch):
    prompt = "One two three"
    n = len(engine.prepare(prompt).tokens)
    monkeypatch.setitem(engine.config, "context_length", n + 2)
    trace = engine.generate(prompt, SamplingSettings(max_new_tokens=50))
    assert trace.stop_reason == "context"
    assert trace.steps[-1].end == n + 2


def test_same_seed_same_tokens_and_the_draw_explains_the_choice(engine):
    settings = SamplingSettings(temperature=0.9, top_k=40, top_p=0.9, seed=1234, max_new_tokens=8)
    a = engine.generate("Once upon a time", settings)
    b = engine.generate("Once upon a time", settings)
    assert [t.id for t in a.output_tokens] == [t.id for t in b.output_tokens]
    for step in a.steps:
        s = step.sampling
        assert s.draw is not None and 0 <= s.draw < 1
        assert s.kept <= 40  # so the recorded top 50 holds every kept candidate
        cumulative = np.cumsum(s.after_top_p.probs[: s.kept])
        pick = min(int(np.searchsorted(cumulative, s.draw, side="right")), s.kept - 1)
        assert s.after_top_p.ids[pick] == s.chosen.id


def test_trace_saved_and_loaded_is_identical(engine, tmp_path):
    trace = engine.generate("Hello", SamplingSettings(max_new_tokens=4, temperature=0.7, seed=7))
    path = tmp_path / "run.trace"
    save_trace(trace, path)
    loaded = load_trace(path)
    assert loaded == trace
    with zipfile.ZipFile(path) as zf:
        assert json.loads(zf.read("trace.json"))["stop_reason"] == trace.stop_reason


@pytest.mark.parametrize(
    "prompt, message", [("", "empty"), ("  \n\t ", "empty"), ("bad \ud800 half", "not valid Unicode")]
)
def test_bad_prompts_are_refused_clearly(engine, prompt, message):
    with pytest.raises(ExplainerError, match=message):
        engine.generate(prompt, SamplingSettings())


def test_a_prompt_longer_than_the_context_is_refused(engine, monkeypatch):
    monkeypatch.setitem(engine.config, "context_length", 16)
    with pytest.raises(ExplainerError, match="reads at most 16"):
        engine.generate("word " * 40, SamplingSettings())


@pytest.mark.parametrize(
    "settings",
    [
        SamplingSettings(temperature=0.9, top_k=40, top_p=0.9, seed=3, max_new_tokens=6),
        SamplingSettings(temperature=1.3, top_k=0, top_p=0.95, seed=11, max_new_tokens=5),
        SamplingSettings(max_new_tokens=4),
    ],
)
def test_the_engine_records_what_its_sampler_makes_of_the_recorded_logits(engine, settings):
    """A fixed seed gives the same trace twice, and each recorded step is what a fresh Sampler
    with the trace's settings makes of that step's recorded logits, bit for bit: the n-th step
    takes the seed's n-th draw, so a trace can be replayed from its logits alone."""
    from explainer.engine.generate import TOP_N
    from explainer.engine.sampler import Sampler
    from explainer.engine.trace_sampling import step_sampling

    a = engine.generate("The sky is", settings, lens=False)
    b = engine.generate("The sky is", settings, lens=False)
    replay = Sampler(a.settings)
    for sa, sb in zip(a.steps, b.steps, strict=True):
        assert np.array_equal(sa.logits, sb.logits) and sa.sampling == sb.sampling
        again = replay.sample(sa.logits)
        assert step_sampling(again, TOP_N, sa.sampling.chosen) == sa.sampling


LONG_PROMPT = "A language model reads the text it is given, one token at a time. " * 8


@pytest.fixture
def counted_passes(engine, monkeypatch):
    """Records the length of every forward pass the engine makes."""
    passes: list[int] = []
    real = engine.runtime.forward

    def forward(ids, cache, **kwargs):
        passes.append(len(ids))
        return real(ids, cache, **kwargs)

    monkeypatch.setattr(engine.runtime, "forward", forward)
    return passes


def test_prefill_reports_progress_once_per_chunk(engine, counted_passes, monkeypatch):
    """An 8k-token prompt takes tens of seconds on a CPU: the caller hears after every chunk."""
    whole = engine.generate(LONG_PROMPT, SamplingSettings(max_new_tokens=2))
    monkeypatch.setattr(generate, "PREFILL_CHUNK", 16)
    counted_passes.clear()
    progress = []
    chunked = engine.generate(
        LONG_PROMPT, SamplingSettings(max_new_tokens=2), on_progress=lambda done, total: progress.append((done, total))
    )
    total = len(engine.prepare(LONG_PROMPT).tokens)
    assert total > generate.ATTENTION_PASS_MAX  # read in chunks, then its last token alone
    prefill_passes = counted_passes[:-1]  # the last pass is the decode step
    assert prefill_passes == [16] * ((total - 1) // 16) + [(total - 1) % 16] * bool((total - 1) % 16) + [1]
    assert progress[0] == (0, total) and progress[-1] == (total, total)
    assert len(progress) == len(prefill_passes) + 1
    assert [d for d, _ in progress] == sorted({d for d, _ in progress})  # strictly increasing
    assert [t.id for t in chunked.output_tokens] == [t.id for t in whole.output_tokens]
    np.testing.assert_allclose(chunked.steps[0].sampling.raw.probs, whole.steps[0].sampling.raw.probs, atol=2e-4)
    assert len(chunked.steps[0].embeddings) == total
    # the last token's attention, read in its own pass, covers the whole prompt: its top 16 positions
    assert all((layer.attention_ids >= 0).sum(axis=1).tolist() == [16] * 9 for layer in chunked.steps[0].layers)


def test_stop_during_prefill_ends_within_one_chunk(engine, counted_passes, monkeypatch):
    """Stop pressed while a long prompt is read: no further pass runs, and Cancelled says so."""
    monkeypatch.setattr(generate, "PREFILL_CHUNK", 16)
    stop_at = 48
    progress = []
    with pytest.raises(Cancelled):
        engine.generate(
            LONG_PROMPT,
            SamplingSettings(max_new_tokens=5),
            on_progress=lambda done, total: progress.append(done),
            should_stop=lambda: bool(progress) and progress[-1] >= stop_at,
        )
    assert progress[-1] == stop_at
    assert counted_passes == [16, 16, 16]  # the three chunks before the stop, nothing after
    # the engine is still usable afterwards
    assert engine.generate("The capital of France is", SamplingSettings(max_new_tokens=1)).stop_reason


def test_the_trace_grows_by_the_same_few_arrays_every_step(engine):
    """Memory for a long answer is the trace's arrays, and every decode step adds the same amount:
    what a run holds grows in a straight line with its steps, nothing else accumulates."""
    import gc
    import tracemalloc

    def held_after(n: int) -> int:
        gc.collect()
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            trace = engine.generate("Once upon a time", SamplingSettings(max_new_tokens=n))
            assert len(trace.steps) == n
            gc.collect()
            return tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()

    held = {n: held_after(n) for n in (4, 12, 20)}
    first, second = held[12] - held[4], held[20] - held[12]  # 8 decode steps each
    per_step = second / 8
    print(f"held: {held}; per decode step: {per_step / 1024:.0f} KiB")
    assert first == pytest.approx(second, rel=0.05)  # linear: the same cost per step
    logits = 49152 * 4  # the raw scores kept for "what if?" are most of a step
    assert logits <= per_step < 1.5 * logits


class _SessionOutOfMemory:
    """An ONNX Runtime session whose next run fails to allocate, as onnxruntime words it."""

    def __init__(self, real):
        self.real = real

    def __getattr__(self, name):
        return getattr(self.real, name)

    def run_with_iobinding(self, binding):
        raise RuntimeError(
            "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running "
            "MatMulNBits node. Status Message: Failed to allocate memory for requested buffer of size 1073741824"
        )


def test_running_out_of_memory_in_the_model_is_a_clear_message(engine, monkeypatch):
    monkeypatch.setattr(engine.runtime, "session", _SessionOutOfMemory(engine.runtime.session))
    with pytest.raises(ExplainerError, match="not enough memory to run the model on 5 tokens") as info:
        engine.generate("The capital of France is", SamplingSettings(max_new_tokens=2))
    assert "shorter prompt" in info.value.hint
    monkeypatch.undo()  # memory is back: the same engine runs again
    assert engine.generate("The capital of France is", SamplingSettings(max_new_tokens=1)).steps


def test_running_out_of_memory_while_recording_is_a_clear_message(engine, monkeypatch):
    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(generate, "layers_record", no_memory)
    with pytest.raises(ExplainerError, match="not enough memory to record this run"):
        engine.generate("The capital of France is", SamplingSettings(max_new_tokens=2))


@pytest.mark.parametrize(
    "prompt",
    [
        "Reply with three emoji",
        "Translate to Greek: good morning",
        "Translate to Chinese: good morning",
        "Translate to Japanese: thank you",
        "Translate to Arabic: peace",
        "Translate to Hindi: water",
    ],
)
def test_an_answer_in_any_script_is_the_text_the_tokenizers_library_decodes(engine, prompt):
    """Each token's bytes are recorded where they are only part of a character, so the answer is
    decoded whole: no U+FFFD where the bytes make characters, and exactly the library's text."""
    trace = engine.generate(prompt, SamplingSettings(temperature=0.0, max_new_tokens=24), chat=True)
    tok = engine.tokenizer
    for t in [*trace.prompt_tokens, *trace.output_tokens]:
        assert t.data == tok.token_bytes(t.id)
        assert (t.raw is not None) == ("\ufffd" in tok.piece(t.id))
    assert any(t.partial for t in trace.output_tokens)  # the answer has tokens that are pieces of a character
    ids = [t.id for t in trace.output_tokens]
    theirs = tok.hf.decode(ids)  # (control tokens skipped, as the answer without them)
    answer = trace.answer(specials=False, errors=LIKE_TOKENIZERS)
    if answer.unfinished:  # the limit cut a character: the library shows U+FFFD for its bytes
        assert theirs == answer.text + "\ufffd"
    else:
        assert theirs == answer.text
    assert "\ufffd" not in answer.text
