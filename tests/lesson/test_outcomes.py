"""Every outcome of the lesson is taught by a tour step and checked by a question."""

from __future__ import annotations

from explainer.content.assets import load_texts
from explainer.lesson.outcomes import outcome_coverage, uncovered

TEXTS = load_texts()

# The outcomes issue 11 lists from the seed lesson (and its module), by the ids lesson.json uses.
SEED_OUTCOMES = {
    "llm",
    "training_inference",
    "inference_loop",
    "tokens",
    "conversions",
    "context_window",
    "embeddings_layers",
    "probabilities",
    "sampling",
    "autoregressive",
    "prefill_decode",
    "request_lifecycle",
    "ttft_tpot",
    "scale",
    "why_hard",
    "tokens_vs_embeddings",
}


def test_every_outcome_has_a_tour_step_and_a_question():
    assert set(TEXTS.outcome_ids()) == SEED_OUTCOMES
    assert uncovered(TEXTS) == ()
    for c in outcome_coverage(TEXTS):
        assert c.tour_steps and c.questions, c.outcome.id


def test_coverage_follows_the_data():
    by_id = {c.outcome.id: c for c in outcome_coverage(TEXTS)}
    assert "closing" in by_id["tokens_vs_embeddings"].questions
    assert "req-server" in by_id["request_lifecycle"].tour_steps
    assert "scale-memory" in by_id["scale"].tour_steps and "memory16" in by_id["scale"].questions
    assert "ttft" in by_id["ttft_tpot"].questions


# Module 00's six "check your understanding" questions, by the ids lesson.json gives them.
MODULE_CHECKS = {
    "core_skill",
    "tokens_to_words",
    "one_at_a_time",
    "training_vs_inference",
    "parallel_or_sequential",
    "ttft_and_tpot",
}
# Module 00's key terms, as the material lists them ("input/output tokens" is two terms here).
KEY_TERMS = {
    "LLM", "parameter", "token", "vocabulary", "tokenization", "context window", "input tokens",
    "output tokens", "autoregressive generation", "sampling", "temperature", "top-p", "top-k",
    "inference", "training", "prefill", "decode", "TTFT", "TPOT",
}  # fmt: skip


def test_every_module_check_and_key_term_is_asked_by_a_question():
    assert {c.id for c in TEXTS.lesson.checks} == MODULE_CHECKS
    assert set(TEXTS.lesson.key_terms) == KEY_TERMS
    for term in KEY_TERMS:
        assert TEXTS.glossary.entry(term) is not None, term  # defined where the learner can look it up
    asked = {c for q in TEXTS.questions for c in q.checks}
    checked = {t for q in TEXTS.questions for t in q.terms}
    assert asked == MODULE_CHECKS and checked == KEY_TERMS


def test_the_checks_are_asked_in_full():
    """Check 4 has two halves (the difference, which one this is about), check 6 two numbers and
    the pause: each half has its question."""
    by_check: dict[str, set[str]] = {}
    for q in TEXTS.questions:
        for c in q.checks:
            by_check.setdefault(c, set()).add(q.id)
    assert {"train_vs_infer", "which_here"} <= by_check["training_vs_inference"]
    assert {"pause", "tpot_seconds"} <= by_check["ttft_and_tpot"]
    pause = next(q for q in TEXTS.questions if q.id == "pause")
    assert "TTFT" in pause.text and "TPOT" in pause.text and "wait" in pause.text
    by_term: dict[str, set[str]] = {}
    for q in TEXTS.questions:
        for t in q.terms:
            by_term.setdefault(t, set()).add(q.id)
    assert "top_k" in by_term["top-k"] and "input_output" in by_term["output tokens"]
    assert "tpot_seconds" in by_term["TPOT"]
