"""Every text of the lesson in the order a learner following the tour meets it.

Each step's words (all their variants, filled from a real run), the caption, title and name of
the stage where the step sends the learner to one, the words of the tab the step points the
learner at, and the questions where the tour asks them (those no step asks, at the step that
asks for every question right). A text read is linked when its glossary terms are links (the
tour's text, a caption, a question and its explanation) and plain otherwise (a task, an option,
the feedback on a wrong answer).
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.content.assets import load_texts
from explainer.content.texts import ConditionKind, TourStep
from explainer.engine.trace import Trace
from explainer.lesson.facts import fill, lesson_fields
from explainer.lesson.questions import Question, build_questions
from explainer.stages import Cursor, Stage
from tests.support.lesson import caption_at, names_for

TEXTS = load_texts()
TOUR = TEXTS.tour

# the tabs and panels a step points the learner at: their words are read there
POINTED = {
    "choose-game": (("ui", "predict_hint"),),
    "choose-temperature": (("ui", "whatif_intro"), ("ui", "whatif_legend")),
    "req-server": (("request", "title"), ("request", "queue")),
    "scale-memory": (("scale", "title"), ("labels", "weights_only")),
}


@dataclass(frozen=True)
class Read:
    """One text a learner reads at a step; ``linked``: its glossary terms are links."""

    step: int
    where: str
    text: str
    linked: bool


def _question_texts(i: int, q: Question) -> list[Read]:
    out = [Read(i, f"{q.id}.text", q.text, True)]
    out += [Read(i, f"{q.id}.option", o, False) for o in (*q.options, *q.items)]
    out += [Read(i, f"{q.id}.why", w, False) for w in q.why_wrong if w]
    out += [Read(i, f"{q.id}.mistake", s.why, False) for s in q.mistakes]
    return [*out, Read(i, f"{q.id}.explanation", q.explanation, True)]


def _stage_texts(i: int, step: TourStep, trace: Trace) -> list[Read]:
    """Where the step sends the learner to a stage: its caption, title and name there."""
    done = step.done
    if done.kind is not ConditionKind.STAGE or done.stage is None:
        return []
    at = len(trace.steps) - 1 if done.last else 1 if done.phase == "decode" else 0
    cursor = Cursor(0 if done.stage is Stage.PRETRAINING else at, done.stage)
    name = TEXTS.app_text("stages", done.stage.value)
    return [
        Read(i, f"{step.id}.caption", caption_at(trace, cursor), True),
        Read(i, f"{step.id}.title", TEXTS.title(done.stage), False),
        Read(i, f"{step.id}.stage name", name, False),
    ]


def walk(trace: Trace) -> list[Read]:
    """Every text of the lesson in the order a learner following the tour meets it."""
    names = names_for(trace)
    fields = {**lesson_fields(TEXTS, trace, None, names), "goals": "9 of 16 goals shown"}
    questions = {q.id: q for q in build_questions(TEXTS, trace, None, names)}
    asked = {s.done.question for s in TOUR.steps if s.done.kind is ConditionKind.QUESTION}
    out: list[Read] = []
    for i, step in enumerate(TOUR.steps):
        for key in ("text", "text_run", "text_guessing", "text_open"):
            template = getattr(step, key)
            if template is not None:
                filled = fill(template, fields)
                assert filled is not None, (step.id, key)
                out.append(Read(i, f"{step.id}.{key}", filled, True))
        out += [Read(i, f"{step.id}.do", d, False) for d in (step.do, step.do_run) if d]
        out += _stage_texts(i, step, trace)
        out += [Read(i, f"{step.id}: {s}.{k}", TEXTS.text(s, k), False) for s, k in POINTED.get(step.id, ())]
        if step.done.kind is ConditionKind.QUESTION and step.done.question is not None:
            out += _question_texts(i, questions[step.done.question])
        if step.done.kind is ConditionKind.COMPLETE:  # "answer every question right": the rest
            for qid, q in questions.items():
                if qid not in asked:
                    out += _question_texts(i, q)
    return out
