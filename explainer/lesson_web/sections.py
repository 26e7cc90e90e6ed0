"""The lesson's reference sections as the page's data: the glossary, the Request and Sizes tabs,
and the words of "Lesson complete", each from the lesson's own code, as the app's tabs show them.

- the glossary: every key term, its definition and its example filled with this model's numbers;
- Request (chapter 7): :func:`~explainer.lesson.facts.request_lifecycle` with the run's times;
- Sizes (chapter 8): :func:`~explainer.lesson.facts.scale_rows` for the run's model;
- completion: :func:`~explainer.lesson.completion.completion`'s fixed parts (the title, the recap,
  the next lesson and its link). Its score lines depend on the learner's answers, so the page
  fills their templates (lesson.json ``completion``) with the same rules (rules.js).
"""

from __future__ import annotations

from typing import Any

from explainer.content.texts import LessonTexts
from explainer.engine.trace import ModelInfo, Trace
from explainer.lesson.completion import completion
from explainer.lesson.facts import model_fields, request_lifecycle, scale_rows
from explainer.lesson.game import GameState
from explainer.lesson.questions import Question, QuizState


def glossary_data(texts: LessonTexts, model: ModelInfo) -> list[dict[str, str]]:
    fields = model_fields(texts, model)
    return [
        {"term": e.term, "definition": e.definition, "example": e.example_for(fields)} for e in texts.glossary.entries
    ]


def request_data(texts: LessonTexts, trace: Trace) -> dict[str, Any]:
    items = request_lifecycle(texts, trace)
    return {
        "title": texts.text("request", "title"),
        "items": [
            {"title": i.title, "text": i.text, "label": i.label, "value": i.value, "timing": i.timing, "share": i.share}
            for i in items
        ],
    }


def sizes_data(texts: LessonTexts, model: ModelInfo) -> dict[str, Any]:
    high, low = texts.lesson.bits
    t = texts.text
    rows = scale_rows(model, texts)
    return {
        "title": t("scale", "title"),
        "heads": [
            t("scale", "head_model"),
            t("scale", "head_params"),
            t("scale", "head_bits").format(bits=high),
            t("scale", "head_bits").format(bits=low),
            t("scale", "head_times"),
        ],
        "rows": [{"cells": [r.label, *r.cells], "this": r.this_model} for r in rows],
        "label": t("labels", rows[0].provenance.value),
        "note": t("labels", "weights_only"),
    }


def completion_data(texts: LessonTexts, questions: tuple[Question, ...]) -> dict[str, Any]:
    """The completion page's fixed parts (its score lines are the page's: see the module docstring)."""
    c = completion(texts, QuizState(), questions, GameState())
    return {
        "title": c.title,
        "recap": list(c.recap),
        "next_title": c.next_title,
        "next_text": c.next_text,
        "next_url": c.next_url,
        "next_how": c.next_how,
    }
