"""The guided tour as the page's data: each step's words filled with the run's numbers, what
completes it, what it outlines, and where its "Show me" goes.

The words are tour.json's, filled by the lesson's own :func:`~explainer.lesson.facts.fill` with
the run's fields, as :func:`~explainer.lesson.tour.tour_view` fills them; only ``{goals}`` (how
many goals the learner has shown, which changes as they answer) is left for the page: each text is
shipped split at ``{goals}``, its pieces filled, and the page joins them with the goals in words.

Three kinds of step need the app (a run, a setting changed and a run, Your turn's pick). Their
web versions (lesson_web.json ``tour``) say what the page offers instead, what was recorded, and
keep the step's condition: the page reports the same events when the learner uses what was
recorded (the recorded run, the second run, a recorded continuation), and the same rules decide.

"Show me" is the app's (ui/lesson/show_me.py) in the page's terms: a stage of the run to step
to, resolved by the page against the pass on screen, and the section holding the task.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from explainer.content.texts import Condition, ConditionKind, LessonTexts, Target, TargetKind, TourStep
from explainer.frames.panels import SPOTLIGHT
from explainer.lesson.facts import fill
from explainer.stages import Stage

GOALS = "{goals}"
WEB_KINDS = (ConditionKind.GENERATE, ConditionKind.SETTING, ConditionKind.BRANCH)  # steps with a web version
SECTIONS = ("request", "scale")  # the controls a step may point at that are tabs of the page


def split_filled(template: str | None, fields: dict[str, str]) -> list[str | None] | None:
    """``template`` filled piece by piece around ``{goals}`` (None: no such text). A piece the run
    cannot fill is None: the page then shows the tour's "needs a run" text, as the app does."""
    if template is None:
        return None
    return [fill(piece, fields) for piece in template.split(GOALS)]


def condition_data(c: Condition) -> dict[str, Any]:
    return {
        "kind": c.kind.value,
        "stage": c.stage.value if c.stage is not None else None,
        "phase": c.phase,
        "last": c.last,
        "names": list(c.names),
        "question": c.question,
        "run": c.run,
    }


def _panel_stage(panel: str) -> Stage | None:
    """The first stage that lights ``panel`` (None: a panel of every stage, like the header)."""
    return next((stage for stage, names in SPOTLIGHT.items() if panel in names), None)


def outline(target: Target) -> dict[str, str]:
    """What the step outlines: a panel of the illustration (a stage: the panel that shows it), the
    caption under it, or a part of the page (the lesson, a tab, the recorded run)."""
    if target.kind is TargetKind.PANEL:
        return {"caption": "caption"} if target.name == "caption" else {"panel": target.name}
    if target.kind is TargetKind.STAGE:
        return {"panel": SPOTLIGHT[Stage(target.name)][0]}
    return {"part": target.name if target.name in (*SECTIONS, "lesson") else "recorded"}


def _stage(stage: Stage, phase: str | None = None, last: bool = False) -> dict[str, Any]:
    return {"stage": stage.value, "phase": phase, "last": last}


def show_me(step: TourStep) -> dict[str, Any] | None:
    """Where "Show me" takes the learner (ui/lesson/show_me.py's rules, in the page's sections)."""
    done, target = step.done, step.target
    k = done.kind
    if k in (ConditionKind.QUESTION, ConditionKind.COMPLETE):
        return {"section": "questions", "question": done.question}
    if k is ConditionKind.GAME:
        return {"section": "predict", **_stage(Stage.LAYERS)}
    if k is ConditionKind.WHATIF:
        return {"section": "whatif", **_stage(Stage.SAMPLING)}
    if k is ConditionKind.BRANCH:  # (the first pass: the page recorded continuations at the first ones only)
        return {"section": "your_turn", **_stage(Stage.SAMPLING, "prefill")}
    if k is ConditionKind.STAGE and done.stage is not None:
        return _stage(done.stage, done.phase, done.last)
    if k is ConditionKind.SETTING:
        return {"section": "your_turn", "part": "cut"}
    if k is ConditionKind.GENERATE:
        return {"part": "use_run"}
    if target.kind is TargetKind.CONTROL:
        return {"section": target.name} if target.name in SECTIONS else None
    stage = Stage(target.name) if target.kind is TargetKind.STAGE else _panel_stage(target.name)
    return _stage(stage) if stage is not None else None


def web_step(step: TourStep, web: dict[str, str]) -> TourStep:
    """The step as the page shows it: the steps that need the app in their web versions' words
    (``web``, see tour_words), and, since the page always has its recorded run on screen, the
    words a step has for a run on screen (``text_run``, ``do_run``) in place of its own, as the
    app shows them once a run is made."""
    kind = step.done.kind
    if kind is ConditionKind.GENERATE:
        return replace(step, text=web["generate_text"], do=web["generate_do"], text_run=None, do_run=None)
    if kind is ConditionKind.SETTING:
        step = replace(step, do=web["setting_do"], do_run=None)
    elif kind is ConditionKind.BRANCH:
        return replace(step, text=web["branch_text"], do=web["branch_do"], text_run=None, do_run=None)
    return replace(
        step,
        text=step.text_run if step.text_run is not None else step.text,
        do=step.do_run if step.do_run is not None else step.do,
        text_run=None,
        do_run=None,
    )


def step_data(texts: LessonTexts, step: TourStep, fields: dict[str, str], web: dict[str, str]) -> dict[str, Any]:
    """One step for the page; ``web``: the web versions' words, already filled (see tour_words)."""
    kind = step.done.kind
    step = web_step(step, web)
    chapter = next(i for i, c in enumerate(texts.tour.chapters) if c.id == step.chapter)
    return {
        "id": step.id,
        "chapter": chapter,
        "text": split_filled(step.text, fields),
        "text_guessing": split_filled(step.text_guessing, fields),
        "text_open": split_filled(step.text_open, fields),
        "do": step.do,
        "done": condition_data(step.done),
        "outline": outline(step.target),
        "outcomes": list(step.outcomes),
        "web": kind.value if kind in WEB_KINDS else None,
        "show": show_me(step),
    }


def tour_data(texts: LessonTexts, fields: dict[str, str], web: dict[str, str]) -> dict[str, Any]:
    tour = texts.tour
    return {
        "chapters": [{"id": c.id, "title": c.title} for c in tour.chapters],
        "steps": [step_data(texts, s, fields, web) for s in tour.steps],
    }
