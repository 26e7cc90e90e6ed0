"""What a tour step points at, and where its "Show me" button takes the learner.

Pure decisions over the tour's data and the recorded walk (no widgets), so they are easy to
test and the pointer and the dock stay thin:

- :func:`pointing`: a step's target as what to outline: a panel of the illustration (a stage
  points at the panel that shows it, the first of its SPOTLIGHT group, frames/panels.py) or a control
  of the window;
- :func:`show_me`: the help a step offers: the cursor that shows what it talks about (never
  forced on the learner: the button steps there), the lesson section that holds its task (a
  question, the game, the what-if sliders), or the control to use.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from explainer.content.texts import Condition, ConditionKind, Target, TargetKind
from explainer.frames.panels import SPOTLIGHT
from explainer.illustration.walk import Walk
from explainer.lesson.tour import TourView
from explainer.stages import Cursor, Stage


class Section(StrEnum):
    """The lesson dock's tabs (the tour sits above them)."""

    PREDICT = "predict"
    WHATIF = "whatif"
    YOUR_TURN = "your_turn"  # pick the token yourself, compare the endings (ui/lesson/your_turn_section.py)
    QUESTIONS = "questions"
    GLOSSARY = "glossary"
    REQUEST = "request"  # the life of a request, with the run's numbers (chapter 7)
    SCALE = "scale"  # the model-size table (chapter 8)
    COMPLETE = "complete"
    QUEUE = "queue"  # the class's queue, while class mode has one (ui/queue_install.py)


# the tabs a tour step may point at as a control (content/tour_json.py CONTROLS)
POINTED_SECTIONS = (Section.REQUEST, Section.SCALE)


@dataclass(frozen=True)
class Pointing:
    panel: str | None = None  # a panel of the illustration (scene.set_highlight)
    control: str | None = None  # a control of the window (content.tour_json.CONTROLS)


@dataclass(frozen=True)
class ShowMe:
    cursor: Cursor | None = None  # where to step the illustration
    section: Section | None = None  # which section of the dock to open
    question: str | None = None  # the question to open there
    control: str | None = None  # the control to reveal and focus


def stage_panel(stage: Stage) -> str:
    """The panel that shows a stage (the first of its spotlight group)."""
    return SPOTLIGHT[stage][0]


def pointing(target: Target | None) -> Pointing:
    if target is None:
        return Pointing()
    if target.kind is TargetKind.PANEL:
        return Pointing(panel=target.name)
    if target.kind is TargetKind.STAGE:
        return Pointing(panel=stage_panel(Stage(target.name)))
    return Pointing(control=target.name)


def _panel_stage(panel: str) -> Stage | None:
    """The first stage that lights ``panel`` (None: a panel of every stage, like the header)."""
    return next((stage for stage, names in SPOTLIGHT.items() if panel in names), None)


def stage_cursor(condition: Condition, lesson: Walk | None, cursor: Cursor | None) -> Cursor | None:
    """A recorded cursor that shows ``condition``'s stage: the pass it names (the prefill, a
    decode pass, the last one), else the pass under the cursor. None when not recorded."""
    stage = condition.stage
    if stage is None or lesson is None or lesson.n_steps == 0:
        return None
    if stage is Stage.PRETRAINING:
        return lesson.first()
    here = cursor.step if cursor is not None else 0
    if condition.last:
        step = lesson.n_steps - 1
    elif condition.phase == "prefill":
        step = 0
    elif condition.phase == "decode":
        step = max(1, here)
    else:
        step = here
    found = Cursor(step, stage)
    return found if lesson.is_available(found) else None


def show_me(view: TourView | None, lesson: Walk | None, cursor: Cursor | None) -> ShowMe | None:
    """The help the step offers, or None (a step about a panel drawn at every stage)."""
    if view is None:
        return None
    done, target = view.done, view.target
    if done.kind is ConditionKind.QUESTION or done.kind is ConditionKind.COMPLETE:
        return ShowMe(section=Section.QUESTIONS, question=done.question)
    if done.kind is ConditionKind.GAME:
        return ShowMe(
            stage_cursor(Condition(kind=ConditionKind.STAGE, stage=Stage.LAYERS), lesson, cursor), Section.PREDICT
        )
    if done.kind is ConditionKind.WHATIF:
        return ShowMe(
            stage_cursor(Condition(kind=ConditionKind.STAGE, stage=Stage.SAMPLING), lesson, cursor), Section.WHATIF
        )
    if done.kind is ConditionKind.BRANCH:
        return ShowMe(
            stage_cursor(Condition(kind=ConditionKind.STAGE, stage=Stage.SAMPLING), lesson, cursor), Section.YOUR_TURN
        )
    if done.kind is ConditionKind.STAGE:
        return ShowMe(stage_cursor(done, lesson, cursor))
    if done.kind is ConditionKind.SETTING:
        return ShowMe(control="sampling")
    if done.kind is ConditionKind.GENERATE:
        return ShowMe(control="prompt")
    if target.kind is TargetKind.CONTROL:
        if target.name in POINTED_SECTIONS:
            return ShowMe(section=Section(target.name))
        return ShowMe(control=target.name) if target.name != "lesson" else None
    stage = Stage(target.name) if target.kind is TargetKind.STAGE else _panel_stage(target.name)
    if stage is None:
        return None
    found = stage_cursor(Condition(kind=ConditionKind.STAGE, stage=stage), lesson, cursor)
    return ShowMe(found) if found is not None else None
