"""Lesson complete: the score, the recap, and a first look at attention from the learner's own run."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from explainer.content.assets import load_texts
from explainer.engine.trace_file import load_trace
from explainer.illustration.formatting import percent, quoted
from explainer.lesson.completion import attention_look, completion, context_tokens, is_averaged
from explainer.lesson.game import GameState
from explainer.lesson.questions import QuizState, build_questions, check
from tests.support.lesson import names_for

TEXTS = load_texts()
V1 = Path(__file__).parents[1] / "engine" / "data" / "v1_paris.json"


def test_the_completion_screen(real_trace):
    trace = real_trace("paris")
    names = names_for(trace)
    qs = build_questions(TEXTS, trace, None, names)
    quiz = QuizState()
    for q in qs:
        quiz = quiz.record(q.id, check(TEXTS, q, q.answer))
    game = GameState(played=3, score=2, streak=0, best=2)
    done = completion(TEXTS, quiz, qs, game, trace, names, layer=5, head=1)
    assert done.title == "Lesson complete: The LLM inference lifecycle"
    assert done.score == (
        f"Questions: {len(qs)} of {len(qs)} right, {len(qs)} at the first try.",
        "Predictions: 2 of 3 right, best streak 2.",
    )
    assert len(done.recap) == 2 and all(line.strip() for line in done.recap)
    assert done.next_title == "How attention works inside transformers" and done.next_title in done.bridge
    assert done.next_url.startswith("https://")
    assert done.look is not None and (done.look.layer, done.look.head) == (5, 1)
    assert done.look_text.startswith("In layer 6 of 30, head 2 of 9")
    no_game = completion(TEXTS, quiz, qs, GameState(), None, names)
    assert len(no_game.score) == 1 and no_game.look is None
    assert no_game.look_text == TEXTS.text("completion", "attention_none")


def test_the_attention_look_names_real_tokens_and_weights(real_trace):
    trace = real_trace("sampled")
    names = names_for(trace)
    for step in (0, len(trace.steps) - 1):
        s = trace.steps[step]
        ctx = context_tokens(trace, step)
        assert len(ctx) == s.end
        for layer, head in ((0, 0), (14, 4), (29, 8)):
            look = attention_look(TEXTS, trace, names, step, layer, head)
            assert look is not None and not look.averaged and look.note == ""
            ids = s.layers.attention_ids[layer, head]
            weights = s.layers.attention_weights[layer, head]
            assert [t.position for t in look.targets] == [int(p) for p in ids if p >= 0]
            for t in look.targets:
                assert t.label == quoted(names.display(ctx[t.position].id, ctx[t.position].text))
            assert [t.weight for t in look.targets] == sorted((t.weight for t in look.targets), reverse=True)
            assert np.isclose(look.targets[0].weight, float(weights[0]))
            first = look.targets[0]
            assert f"{first.label} ({percent(first.weight)})" in look.text
            assert look.token == quoted(names.display(s.tokens[-1].id, s.tokens[-1].text)) and look.token in look.text
            assert f"layer {layer + 1} of 30, head {head + 1} of 9" in look.text


def test_choices_out_of_range_are_clamped(real_trace):
    trace = real_trace("paris")
    look = attention_look(TEXTS, trace, names_for(trace), step=99, layer=-5, head=42)
    assert look is not None and (look.step, look.layer, look.head) == (len(trace.steps) - 1, 0, 8)
    default = attention_look(TEXTS, trace, names_for(trace))
    assert default is not None and (default.step, default.layer, default.head) == (len(trace.steps) - 1, 29, 0)


def test_an_old_trace_has_one_averaged_head():
    trace = load_trace(V1)
    assert is_averaged(trace)
    look = attention_look(TEXTS, trace, names_for(trace), layer=10, head=3)
    assert look is not None and look.averaged and look.n_heads == 1 and look.head == 0
    assert "9 heads" in look.note and "older format" in look.note
    assert "head 1 of 1" in look.text and look.targets
