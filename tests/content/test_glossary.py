"""The glossary: every key term of the module, defined, and linked wherever a learner meets it."""

from __future__ import annotations

import re

import pytest

from explainer.content.assets import load_texts
from explainer.content.glossary import href_of, link_terms, linked_html, term_of_href, terms_in
from explainer.illustration.walk import Walk
from explainer.lesson.facts import lesson_fields
from explainer.lesson.questions import build_questions
from explainer.lesson.tour import TourState, tour_view
from tests.support.lesson import caption_at, names_for

TEXTS = load_texts()
G = TEXTS.glossary

# The module's key terms (issue 11), exactly as the glossary panel must list them.
KEY_TERMS = (
    "LLM",
    "parameter",
    "token",
    "vocabulary",
    "tokenization",
    "context window",
    "input tokens",
    "output tokens",
    "autoregressive generation",
    "sampling",
    "temperature",
    "top-p",
    "top-k",
    "inference",
    "training",
    "prefill",
    "decode",
    "TTFT",
    "TPOT",
    "KV cache",
    "embedding",
    "layer guess",
)
# The forms a learner reads that must lead to each term (besides the term itself).
MUST_LINK = {
    "autoregressive": "autoregressive generation",
    "large language model": "LLM",
    "prompt tokens": "input tokens",
    "time to first token": "TTFT",
    "time per output token": "TPOT",
    "tokens": "token",
    "embeddings": "embedding",
    "parameters": "parameter",
    "layer guesses": "layer guess",
}


@pytest.mark.parametrize("term", KEY_TERMS)
def test_every_key_term_is_defined(term):
    entry = G.entry(term)
    assert entry is not None and entry.term == term, f"{term!r} is missing from assets/en/glossary.json"
    assert 40 < len(entry.definition) < 240 and re.match(r"[A-Z]", entry.definition)
    assert entry.definition.rstrip().endswith((".", ")"))


def test_forms_lead_to_their_terms():
    for form, term in MUST_LINK.items():
        assert terms_in(f"Here: {form}.", G) == (term,), form


def test_linking_rules():
    parts = link_terms("Tokenization makes Tokens; the KV-cache? No: the KV cache.", G)
    assert "".join(p.text for p in parts) == "Tokenization makes Tokens; the KV-cache? No: the KV cache."
    assert [(p.text, p.term) for p in parts if p.term] == [
        ("Tokenization", "tokenization"),
        ("Tokens", "token"),
        ("KV cache", "KV cache"),
    ]
    # longest first, whole words only, case-insensitive
    assert terms_in("input tokens and output tokens", G) == ("input tokens", "output tokens")
    assert terms_in("untokenized detokenizer tokenizing top-kk xTTFT decoded", G) == ()
    assert terms_in("ttft, Llm, TOP-P", G) == ("TTFT", "LLM", "top-p")
    assert terms_in("a layer guess and a layer", G) == ("layer guess", "layer")
    assert terms_in("greedy decoding", G) == ("greedy",)


def test_once_links_the_first_mention_only():
    parts = link_terms("token, token, token", G, once=True)
    assert [p.term for p in parts if p.term] == ["token"]
    assert "".join(p.text for p in parts) == "token, token, token"


def test_html_links_escape_and_round_trip():
    out = linked_html("Prefill & <decode> use the KV cache", G)
    assert "&amp;" in out and "&lt;" in out and "<decode>" not in out
    assert f'<a href="{href_of("KV cache")}"' in out and 'href="term:KV%20cache"' in out
    for term in G.terms:
        assert term_of_href(href_of(term), G) == term
    assert term_of_href("https://example.org", G) is None
    assert term_of_href("term:nonsense", G) is None


def _unlinked(text: str) -> list[str]:
    """Key terms (and their must-link forms) that occur in ``text`` outside every link."""
    spans, at = [], 0
    for p in link_terms(text, G):
        if p.term is not None:
            spans.append((at, at + len(p.text)))
        at += len(p.text)
    out = []
    for form in (*KEY_TERMS, *MUST_LINK):
        # an independent whole-word search, so a form the linker misses is caught
        for m in re.finditer(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text, re.IGNORECASE):
            if not any(a <= m.start() and m.end() <= b for a, b in spans):
                out.append(form)
    return out


def test_every_caption_links_its_key_terms(real_trace):
    for name in ("paris", "chat", "sampled"):
        trace = real_trace(name)
        for c in Walk(trace).cursors():
            text = caption_at(trace, c)
            assert _unlinked(text) == [], (c, text)


def test_every_tour_step_and_question_links_its_key_terms(real_trace):
    trace = real_trace("sampled")
    names = names_for(trace)
    fields = lesson_fields(TEXTS, trace, None, names)
    seen: set[str] = set()
    for i in range(len(TEXTS.tour.steps)):
        view = tour_view(TEXTS, TourState(i), fields)
        assert view is not None and not view.needs_run
        for text in (view.text, view.do):
            assert _unlinked(text) == [], text
            seen |= set(terms_in(text, G))
    for q in build_questions(TEXTS, trace, None, names):
        for text in (q.text, q.explanation, *q.options, *q.items):
            assert _unlinked(text) == [], text
            seen |= set(terms_in(text, G))
    # the tour and the questions between them use every key term at least once
    assert set(KEY_TERMS) <= seen, set(KEY_TERMS) - seen


def test_no_learner_text_uses_jargon_a_beginner_does_not_know():
    """ "Logit lens", "output head" and "probe" are research words: every text a learner reads
    (the lesson, tour, questions, captions, glossary) says it in plain words instead."""
    from pathlib import Path

    folder = Path(__file__).parents[2] / "assets" / "en"
    for name in ("lesson", "tour", "questions", "captions", "glossary", "app"):
        text = (folder / f"{name}.json").read_text(encoding="utf-8").lower()
        text = text.replace('"layers_probe"', "")  # (a question's id, never shown)
        for word in ("logit lens", "output head", "probe"):
            assert word not in text, (name, word)
