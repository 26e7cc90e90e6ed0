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
