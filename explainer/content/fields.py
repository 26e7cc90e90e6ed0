"""The ``{fields}`` the lesson's texts may name, as the loader checks them.

:mod:`explainer.lesson.facts` fills these from the run and the model; the loader
(:mod:`explainer.content.assets`) refuses a text naming any other, naming the file and the key,
so a typo in a template is found when the app starts rather than in the middle of a lesson.
The names live here, below both, because the loader must not import the lesson that fills them.
"""

from __future__ import annotations

from explainer.content.texts import LessonInfo

MODEL_FIELDS = (
    "model",
    "params",
    "layers",
    "d_model",
    "heads",
    "vocab",
    "context",
    "context_words",
    "device",
    "mem_high",
    "mem_low",
    "bits_high",
    "bits_low",
    "rule_chars",
    "rule_words",
)
TRACE_FIELDS = (
    "prompt",
    "n_prompt",
    "n_chars",
    "n_words",
    "chars_per_token",
    "words_per_token",
    "est_from_chars",
    "est_from_words",
    "n_out",
    "answer",
    "ttft",
    "tpot",
    "tokens_per_s",
    "words_per_s",
    "prefill",
    "first_pick",
    "decode_total",
    "n_decode",
    "stop",
    "first",
    "top",
    "top_pct",
    "second",
    "second_pct",
    "lens_layer",
    "settings",
    "used",
    "total",
)


def field_names(lesson: LessonInfo) -> frozenset[str]:
    """Every field :func:`lesson_fields` can fill (the reference models add theirs)."""
    refs = {f"{kind}_{r.id}" for r in lesson.reference for kind in ("mem_high", "mem_low", "times")}
    return frozenset(MODEL_FIELDS) | frozenset(TRACE_FIELDS) | refs
