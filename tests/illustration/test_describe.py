"""The frame in words (frames/describe.py), on real runs: what a screen reader hears of the
illustration must be what the frame shows, with its pieces spoken as words and nothing the frame
hides. Qt-free: the description is built from the frame's values alone."""

from __future__ import annotations

import pytest

from explainer.content.assets import load_texts
from explainer.content.texts import LessonTexts
from explainer.frames.describe import describe
from explainer.frames.embeddings import N_CELLS
from explainer.frames.frame import FrameBuilder
from explainer.frames.panels import CAPTION as CAPTION_PANEL
from explainer.frames.panels import EMBEDDINGS as EMBEDDINGS_PANEL
from explainer.frames.panels import LAYERS as LAYERS_PANEL
from explainer.frames.panels import PANELS
from explainer.frames.panels import TOKENS as TOKENS_PANEL
from explainer.frames.probabilities import TOP
from explainer.illustration.formatting import NEWLINE, SPACE, percent
from explainer.illustration.spoken import spoken, spoken_marks
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Predictor, Stage
from tests.support.lesson import model_vocabulary


@pytest.fixture(scope="module")
def texts():
    return load_texts()


def builder(texts):
    return FrameBuilder(texts, model_vocabulary(), timings=False)


def said(texts: LessonTexts, text: str) -> str:
    return texts.describe["quote"].format(piece=spoken(text, texts.describe))


def test_pieces_are_spoken_as_words(texts):
    w = texts.describe
    assert spoken(" Paris", w) == f"{w['space']} Paris"
    assert spoken(f"{SPACE}Paris", w) == f"{w['space']} Paris"  # the drawn label reads the same
    assert spoken("\n\n", w) == f"{w['line_break']} {w['line_break']}"
    assert spoken(NEWLINE, w) == w["line_break"]
    assert spoken("<|endoftext|>", w) == w["end_text"]
    assert spoken("<|im_end|>", w) == w["end_answer"]
    assert "<|" not in spoken("<|im_start|>", w)
    assert spoken("⟨E6·97⟩", w) == w["bytes"].format(bytes="E6 97")
    assert spoken_marks(f"picks “{SPACE}Paris”, then “<|im_end|>”", w) == (
        f"picks “{w['space']} Paris”, then “{w['end_answer']}”"
    )


@pytest.mark.slow
def test_tokens_stage_names_each_token_with_its_id(texts, real_trace):
    trace = real_trace("chat")  # a template of control tokens and line breaks
    text = describe(builder(texts).frame(trace, Cursor(0, Stage.TOKENS)), texts)
    for t in trace.prompt_tokens:
        assert texts.describe["token"].format(piece=said(texts, t.text), id=t.id) in text
    for glyph in (SPACE, NEWLINE, "<|"):
        assert glyph not in text, text
    assert texts.describe["end_answer"] in text and texts.describe["line_break"] in text


@pytest.mark.slow
@pytest.mark.parametrize("name", ["paris", "sampled"])
def test_top_five_with_the_traces_percentages(texts, real_trace, name):
    trace = real_trace(name)
    b = builder(texts)
    for step in range(len(trace.steps)):
        s = trace.steps[step].sampling
        raw = describe(b.frame(trace, Cursor(step, Stage.PROBABILITIES)), texts)
        told = [
            said(texts, b._names(int(i))) + " " + percent(float(p)) for i, p in zip(s.raw.ids[:TOP], s.raw.probs[:TOP])
        ]
        at = [raw.index(t) for t in told]  # each one there, most likely first
        assert at == sorted(at), raw
        picked = describe(b.frame(trace, Cursor(step, Stage.SAMPLING)), texts)
        assert texts.describe["chosen"].format(token=said(texts, s.chosen.text)) in picked
        if s.draw is not None:  # the final distribution, the cut and the draw
            final = dict(zip(s.after_top_p.ids.tolist(), s.after_top_p.probs.tolist()))
            for i in s.raw.ids[:TOP].tolist():
                piece = said(texts, b._names(i))
                word = (
                    texts.describe["candidate"].format(piece=piece, pct=percent(final[i]))
                    if final.get(i, 0.0) > 0
                    else texts.describe["candidate_cut"].format(piece=piece)
                )
                assert word in picked, picked
            assert f"{s.draw:.3f}" in picked
            assert texts.describe["kept"].format(kept=s.kept) in picked or s.kept == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["paris", "sampled"])
def test_the_appended_token_is_said_with_its_probability(texts, real_trace, name):
    trace = real_trace(name)
    b = builder(texts)
    for step in range(len(trace.steps)):
        s = trace.steps[step].sampling
        text = describe(b.frame(trace, Cursor(step, Stage.APPEND)), texts)
        token = said(texts, s.chosen.text)
        if s.draw is None:  # greedy: no cut, one number
            told = texts.describe["appended_greedy"].format(token=token, raw=percent(s.chosen_raw_prob))
        else:
            told = texts.describe["appended"].format(
                token=token, raw=percent(s.chosen_raw_prob), final=percent(s.chosen_prob)
            )
        assert told in text, text
        assert percent(s.chosen_raw_prob) in text  # the trace's own number, not one worked out again


@pytest.mark.slow
def test_a_learners_pick_is_said_to_be_theirs(texts, real_trace):
    trace = real_trace("yours")
    step = trace.branch.step
    text = describe(builder(texts).frame(trace, Cursor(step, Stage.SAMPLING)), texts)
    chosen = trace.steps[step].sampling.chosen
    assert (
        texts.describe["yours"].format(token=said(texts, chosen.text), model=said(texts, trace.branch.model_pick.text))
        in text
    )
    assert texts.describe["draw"].split("{")[0] not in text  # never worded as the draw's


@pytest.mark.slow
def test_changes_with_the_cursor(texts, real_trace):
    trace = real_trace("paris")
    b = builder(texts)
    walk, cursors = Walk(trace), []
    at: Cursor | None = walk.first()
    while at is not None:
        cursors.append(at)
        at = walk.next(at)
    told = [describe(b.frame(trace, c), texts) for c in cursors]
    assert len(set(told)) == len(told)


@pytest.mark.slow
def test_an_open_guess_is_not_named(texts, real_trace):
    trace = real_trace("paris")  # the lens reads " Paris" at the first pass; the prompt has no Paris
    top = said(texts, " Paris")
    shown = describe(builder(texts).frame(trace, Cursor(0, Stage.LAYERS)), texts)
    assert top in shown  # the caption says what the lens reads ...
    hidden = describe(builder(texts).with_answer_hidden(Predictor.LEARNER).frame(trace, Cursor(0, Stage.LAYERS)), texts)
    assert top not in hidden and "Paris" not in hidden  # ... and, while a guess is open, nothing does
    assert texts.describe["hidden"] in hidden


def test_before_any_run(texts):
    text = describe(builder(texts).empty("loading"), texts)
    assert texts.describe["empty"] in text and "loading" in text


@pytest.mark.slow
def test_the_text_so_far_puts_a_chat_reply_on_its_own_line(texts, real_trace):
    trace = real_trace("chat")
    b = builder(texts)
    before = describe(b.frame(trace, Cursor(0, Stage.LAYERS)), texts)  # nothing appended yet
    assert texts.describe["text"].format(text=trace.prompt) in before
    frame = b.frame(trace, Cursor(2, Stage.APPEND))  # three tokens appended
    reply = "".join(s.sampling.chosen.text for s in trace.steps[:3])
    assert texts.describe["text"].format(text=f"{trace.prompt}\n{reply}".strip()) in describe(frame, texts)


@pytest.mark.slow
def test_the_prompts_chips_are_read_once_per_request(texts, real_trace, monkeypatch):
    """Every frame's context starts with the prompt's chips (thousands at a long context): what
    the frames need of them is found once per request, not on every press of Next."""
    from explainer.frames import chips

    counted: list[int] = []
    of = chips.PromptFacts.of

    def counted_of(c):
        counted.append(len(c))
        return of(c)

    monkeypatch.setattr(chips.PromptFacts, "of", staticmethod(counted_of))
    trace = real_trace("chat")
    b = builder(texts)
    frames = [b.frame(trace, c) for c in Walk(trace).cursors()]
    assert counted == [len(trace.prompt_tokens)]
    tokens = frames[-1][TOKENS_PANEL]
    assert tokens.prompt_count == len(trace.prompt_tokens) and tokens.prompt_special  # a chat template
    assert [c.kind for c in tokens.chips[tokens.prompt_count :]] == ["output"] * len(trace.steps)


@pytest.mark.slow
def test_every_panel_is_told_where_it_shows_something(texts, real_trace):
    """Each row of the panel table says its panel in words at some frame of a run, so a screen
    reader hears of every panel the drawing shows (the training side, the cache, the arrows too)."""
    trace = real_trace("paris")
    b = FrameBuilder(texts, model_vocabulary(), timings=True)
    told: set[str] = set()
    for c in Walk(trace).cursors():
        frame = b.frame(trace, c)
        told |= {row.name for row in PANELS if row.describe(frame[row], frame, texts.describe)}
    assert told == {row.name for row in PANELS}


@pytest.mark.slow
def test_the_cache_and_the_lookups_are_told_with_the_traces_counts(texts, real_trace):
    trace = real_trace("paris")
    w, prompt = texts.describe, len(trace.prompt_tokens)
    layers = describe(builder(texts).frame(trace, Cursor(1, Stage.LAYERS)), texts)
    assert w["kvcache"].format(cached=prompt, new=1) in layers  # the second pass adds one token
    changes = builder(texts).frame(trace, Cursor(1, Stage.LAYERS))[LAYERS_PANEL].changes
    assert len(changes) == trace.model.n_layers
    longest, shortest = changes.index(max(changes)) + 1, changes.index(min(changes)) + 1  # the bars drawn
    assert w["layers_change"].format(longest=longest, shortest=shortest) in layers
    assert w["layers"].format(n=trace.model.n_layers) not in layers


@pytest.mark.slow
def test_the_embeddings_panel_tells_what_it_draws_and_leaves_the_lookup_to_its_caption(texts, real_trace):
    """The caption already says how many ids are looked up, how wide each is and that the
    cached ones are not read again: the panel's own lines say what is drawn (the sampled cells,
    the last token's whole vector, the colour scale's ends) instead of saying it all twice."""
    trace = real_trace("paris")
    w, prompt, dim = texts.describe, len(trace.prompt_tokens), trace.steps[1].embedding_dim
    frame = builder(texts).frame(trace, Cursor(1, Stage.EMBEDDINGS))
    told = EMBEDDINGS_PANEL.describe(frame[EMBEDDINGS_PANEL], frame, w)
    caption = "\n".join(CAPTION_PANEL.describe(frame[CAPTION_PANEL], frame, w))
    assert f"{prompt} earlier tokens" in caption and f"{dim:,} numbers" in caption
    assert told[0] == w["embeddings"].format(cells=N_CELLS, dim=f"{dim:,}", every=round(dim / N_CELLS))
    assert said(texts, trace.steps[1].tokens[-1].text) in told[1]
    value = frame[EMBEDDINGS_PANEL]
    assert f"{value.scale:.2f}" in told[2]
    assert not any(f"{prompt} earlier" in line or "looked up" in line for line in told)
    assert all(line not in caption for line in told)
