"""The events the page reports to the tour, each kind with every value it can take, and how the
page writes one (rules.js ``conditionMet``): the conformance fixture's events (conformance.py,
conformance_sessions.py)."""

from __future__ import annotations

from typing import Any

from explainer.content.texts import LessonTexts
from explainer.lesson.tour import (
    Answered,
    Branched,
    Generated,
    LessonComplete,
    Predicted,
    SettingChanged,
    StageShown,
    TourEvent,
    WhatIfChanged,
)
from explainer.stages import Stage

SETTING_NAMES = ("temperature", "top_k", "top_p", "greedy", "seed", "max_new_tokens", "prompt")


def tour_events(texts: LessonTexts) -> list[TourEvent]:
    """Every event the page can report, each kind with every value it can take."""
    out: list[TourEvent] = [
        StageShown(stage, phase, last) for stage in Stage for phase in ("prefill", "decode") for last in (False, True)
    ]
    out += [SettingChanged(name, running) for name in SETTING_NAMES for running in (False, True)]
    out += [Generated(), Predicted(False), Predicted(True), Branched(False), Branched(True), LessonComplete()]
    out += [WhatIfChanged(name) for name in ("temperature", "top_k", "top_p")]
    out += [Answered(q.id, ok) for q in texts.questions for ok in (False, True)]
    return out


def event_data(e: TourEvent) -> dict[str, Any]:
    """An event as the page reports it (rules.js conditionMet)."""
    match e:
        case StageShown():
            return {"kind": "stage", "stage": e.stage.value, "phase": e.phase, "last": e.last}
        case SettingChanged():
            return {"kind": "setting", "name": e.name, "running": e.running}
        case Generated():
            return {"kind": "generated"}
        case Predicted():
            return {"kind": "predicted", "correct": e.correct}
        case WhatIfChanged():
            return {"kind": "whatif", "name": e.name}
        case Answered():
            return {"kind": "answered", "question": e.question, "correct": e.correct}
        case Branched():
            return {"kind": "branched", "from_top": e.from_top}
        case LessonComplete():
            return {"kind": "complete"}
