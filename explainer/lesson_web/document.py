"""The lesson's document: everything the page knows of the lesson and the run, in one JSON value.

Built from one recorded run by the lesson's own code (see the package's docstring): the tour, the
questions, the passes, the sections, the words. Beside the replay's data (export/web_run.py: the
drawings and the frames' words), the document adds per frame the pass and stage it shows and its
chart as a table, and the rectangles a tour step outlines.

Its ``id`` is a digest of the whole document: a learner's progress saved by the page names the
export it belongs to, so progress kept for another export (another run, another version of the
lesson) is recognised and not applied to this one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.export.web_run import RunData
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import answer_text, lesson_fields, settings_text
from explainer.lesson.questions import build_questions
from explainer.lesson_web.logits import label_tables, pack_json, pack_scores
from explainer.lesson_web.passes import chart_tables, passes_data
from explainer.lesson_web.quiz_data import number_reading, questions_data
from explainer.lesson_web.recorded import YOUR_TURN_PASSES, Recorded
from explainer.lesson_web.sections import completion_data, glossary_data, request_data, sizes_data
from explainer.lesson_web.tour_data import tour_data
from explainer.lesson_web.words import cut_words, page_words
from explainer.stages import Stage

DOCUMENT_VERSION = 1
WHATIF_PASSES = 16  # the passes whose scores the page keeps for what-if (README: the page's size)


@dataclass(frozen=True)
class LessonDocument:
    """The document, and the blocks the page inflates only when asked: each pass's scores
    (``scores[i]``) and the tables of labels (``labels``)."""

    data: dict[str, Any]
    scores: list[str | None]  # (the first WHATIF_PASSES passes')
    labels: list[str]

    @property
    def id(self) -> str:
        return str(self.data["id"])


def outline_rects(texts: LessonTexts) -> dict[str, list[float]]:
    """Each panel's rectangle on the canvas, as a tour step's outline takes it in (the arrows:
    around what they draw and the panels they join), from a scene laid out as the app's."""
    from explainer.diagram.placement import panel_rect
    from explainer.diagram.scene import LifecycleScene
    from explainer.diagram.theme import THEMES

    scene = LifecycleScene(texts, THEMES["light"])
    out = {}
    for name in scene.panels:
        r = panel_rect(name, scene.panels)
        out[name] = [round(r.x(), 1), round(r.y(), 1), round(r.width(), 1), round(r.height(), 1)]
    return out


def _frames(run: RunData, tables: list[int]) -> list[dict[str, Any]]:
    """Per frame of the replay (those of the run's cursors first, then the held-back ones):
    the pass and stage it shows, and the number of its chart's table."""
    held = run.data.get("hidden", [])
    shots = [*run.cursors, *(c for c, h in zip(run.cursors, held) if h is not None)]
    return [{"step": c.step, "stage": c.stage.value, "chart": tables[i]} for i, c in enumerate(shots)]


def lesson_document(
    texts: LessonTexts, trace: Trace, names: TokenNames, recorded: Recorded, run: RunData
) -> LessonDocument:
    model = trace.model
    fields = lesson_fields(texts, trace, model, names)
    questions = build_questions(texts, trace, model, names)
    whatif_passes = min(WHATIF_PASSES, len(trace.steps))
    words = page_words(texts, trace, recorded.cut, recorded.cut_setting, whatif_passes)
    tables, table_of = chart_tables(texts, run.frames)
    labels, label_table = label_tables(trace, names, whatif_passes)
    data: dict[str, Any] = {
        "version": DOCUMENT_VERSION,
        "language": texts.language,
        "title": texts.lesson.title,
        "run": {
            "model": model.name,
            "steps": len(trace.steps),
            "stopped": trace.stop_reason is not None,
            "settings": {
                "temperature": trace.settings.temperature,
                "top_k": trace.settings.top_k,
                "top_p": trace.settings.top_p,
            },
            "whatif_passes": whatif_passes,
            "your_turn_passes": min(YOUR_TURN_PASSES, len(trace.steps)),
        },
        "frames": _frames(run, table_of),
        "charts": tables,
        "outlines": outline_rects(texts),
        "canvas": [1600, 800],
        "tour": tour_data(texts, fields, words["web"]["tour"]),
        "questions": questions_data(questions),
        "outcomes": [{"id": o.id, "text": o.text} for o in texts.lesson.outcomes],
        "passes": passes_data(texts, trace, names, recorded, whatif_passes, label_table),
        "cut": {
            "setting": recorded.cut_setting,
            "name": cut_words(texts, recorded.cut_setting),
            "settings": settings_text(texts, recorded.cut.settings),
            "answer": answer_text(recorded.cut).strip(),
            "first": answer_text(trace).strip(),
        },
        "glossary": glossary_data(texts, model),
        "request": request_data(texts, trace),
        "sizes": sizes_data(texts, model),
        "completion": completion_data(texts, questions),
        "numbers": number_reading(),
        "words": words,
        "stages": [s.value for s in Stage],
    }
    digest = hashlib.sha256(json.dumps([data, run.data], sort_keys=True, ensure_ascii=False).encode("utf-8"))
    data["id"] = digest.hexdigest()[:16]
    scores = [pack_scores(s.logits) if s.logits is not None else None for s in trace.steps[:whatif_passes]]
    return LessonDocument(data, scores, [pack_json(t) for t in labels])
