"""The guided tour: where the learner is, what completes a step, and the step as shown.

The tour's words and structure are data (tour.json, parsed into
:class:`~explainer.content.texts.TourScript`); this module is the small state machine over it:

- :class:`TourState` is the position (a step index) and whether the current step's condition
  has been met. It is a frozen value: :meth:`TourState.next`, :meth:`~TourState.back`,
  :meth:`~TourState.observe` return new states, so the UI keeps one and replaces it, and tests
  walk the whole tour without a window.
- The UI reports what the learner did as events (:class:`StageShown`, :class:`SettingChanged`,
  :class:`Generated`, :class:`Predicted`, :class:`WhatIfChanged`, :class:`Answered`,
  :class:`Branched` (a "Your turn" run was recorded), and
  :class:`LessonComplete`, which the learner's record reports while every outcome is shown);
  :func:`condition_met` says whether an event completes a step's condition. The learner may
  always press Next (a tour must never trap anyone); :meth:`TourState.can_advance` tells the UI
  whether the step's task is done, to stress the button or show a tick.
- :meth:`TourState.to_dict` / :meth:`TourState.from_dict` keep the position in QSettings or in a
  lesson file. The step's id is stored beside its index, so a position survives a tour that
  gained or lost steps; anything unreadable, or an index beyond the end, falls back sensibly
  rather than failing.
- :func:`tour_view` is the step as shown: its text filled with the live run's numbers (or the
  "generate first" text when the run cannot fill it yet), the chapter, the progress, what to
  highlight and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from explainer.content.texts import Chapter, Condition, ConditionKind, LessonTexts, Target, TourScript, TourStep
from explainer.lesson.facts import fill, has_run
from explainer.stages import Stage

STATE_VERSION = 1


# ------------------------------------------------------------------ what the learner did


@dataclass(frozen=True)
class StageShown:
    """The illustration now shows ``stage`` of a pass of ``phase``; ``last``: the last recorded pass."""

    stage: Stage
    phase: str = "prefill"
    last: bool = False


@dataclass(frozen=True)
class SettingChanged:
    """A sampling setting (or the prompt) was changed: temperature, top_k, top_p, greedy, seed,
    max_new_tokens, prompt. ``running``: while a run was going on (which keeps its settings, so
    the change shows only in the next run)."""

    name: str
    running: bool = False


@dataclass(frozen=True)
class Generated:
    """A run finished (or a recorded one was opened)."""


@dataclass(frozen=True)
class Predicted:
    """A round of the prediction game was played."""

    correct: bool = False


@dataclass(frozen=True)
class WhatIfChanged:
    """A what-if slider was moved: temperature, top_k or top_p."""

    name: str


@dataclass(frozen=True)
class Answered:
    """A question was answered (``correct`` False: a wrong try)."""

    question: str
    correct: bool


@dataclass(frozen=True)
class Branched:
    """ "Your turn": the model continued from a token the learner picked (a run was recorded).
    ``from_top``: the pick was the chart's top candidate, which gives no other road to compare."""

    from_top: bool


@dataclass(frozen=True)
class LessonComplete:
    """Every outcome of the lesson is shown (LessonState.outcomes_shown): reported with every
    change of the record while it holds, so a step that waits for it is done on arrival too."""


TourEvent = StageShown | SettingChanged | Generated | Predicted | WhatIfChanged | Answered | Branched | LessonComplete


def _names_setting(condition: Condition, event: TourEvent) -> bool:
    return isinstance(event, SettingChanged) and (not condition.names or event.name in condition.names)


def condition_met(condition: Condition, event: TourEvent) -> bool:
    """Whether ``event`` completes ``condition`` (a NEXT condition is met by the Next button only;
    a SETTING condition with ``run`` by two events, which :meth:`TourState.observe` follows)."""
    k = condition.kind
    if k is ConditionKind.STAGE:
        return (
            isinstance(event, StageShown)
            and event.stage is condition.stage
            and (condition.phase is None or event.phase == condition.phase)
            and (event.last or not condition.last)
        )
    if k is ConditionKind.SETTING:
        return not condition.run and _names_setting(condition, event)
    if k is ConditionKind.WHATIF:
        return isinstance(event, WhatIfChanged) and (not condition.names or event.name in condition.names)
    if k is ConditionKind.GENERATE:
        return isinstance(event, Generated)
    if k is ConditionKind.GAME:
        return isinstance(event, Predicted)
    if k is ConditionKind.QUESTION:
        return isinstance(event, Answered) and event.question == condition.question and event.correct
    if k is ConditionKind.COMPLETE:
        return isinstance(event, LessonComplete)
    if k is ConditionKind.BRANCH:
        return isinstance(event, Branched) and not event.from_top
    return False


# ------------------------------------------------------------------ where the learner is


@dataclass(frozen=True)
class TourState:
    """A position in the tour. ``index == len(steps)`` means the tour is finished."""

    index: int = 0
    done: bool = False  # the current step's condition has been met
    # a SETTING condition with ``run``: how many finished runs it still waits for (0: no change
    # seen yet; 1: changed, the next run to finish has it; 2: changed during a run, which does not)
    runs_to_go: int = 0

    def step(self, tour: TourScript) -> TourStep | None:
        return tour.steps[self.index] if 0 <= self.index < len(tour.steps) else None

    def chapter(self, tour: TourScript) -> Chapter | None:
        step = self.step(tour)
        return tour.chapter(step.chapter) if step is not None else None

    def finished(self, tour: TourScript) -> bool:
        return self.index >= len(tour.steps)

    def can_advance(self, tour: TourScript) -> bool:
        """The step's task is done (a "press Next" step always is)."""
        step = self.step(tour)
        return step is not None and (self.done or step.done.kind is ConditionKind.NEXT)

    def observe(self, tour: TourScript, event: TourEvent) -> TourState:
        """The state after the learner did something (marks the step done when it completes it)."""
        step = self.step(tour)
        if step is None or self.done:
            return self
        if step.done.kind is ConditionKind.SETTING and step.done.run:
            return self._setting_then_run(step.done, event)
        return replace(self, done=True) if condition_met(step.done, event) else self

    def _setting_then_run(self, condition: Condition, event: TourEvent) -> TourState:
        """A setting the condition names changed, then a run made with it finished."""
        if isinstance(event, SettingChanged) and _names_setting(condition, event):
            return replace(self, runs_to_go=2 if event.running else 1)
        if isinstance(event, Generated) and self.runs_to_go:
            left = self.runs_to_go - 1
            return replace(self, done=left == 0, runs_to_go=left)
        return self

    def next(self, tour: TourScript) -> TourState:
        return TourState(min(self.index + 1, len(tour.steps)))

    def back(self, tour: TourScript) -> TourState:
        return TourState(max(0, min(self.index, len(tour.steps)) - 1)) if self.index > 0 else self

    def go_to(self, tour: TourScript, index: int) -> TourState:
        return TourState(max(0, min(index, len(tour.steps))))

    def go_to_chapter(self, tour: TourScript, chapter_id: str) -> TourState:
        """The first step of a chapter (unchanged for an unknown chapter)."""
        i = next((i for i, s in enumerate(tour.steps) if s.chapter == chapter_id), None)
        return self if i is None else TourState(i)

    def to_dict(self, tour: TourScript) -> dict[str, Any]:
        """A small JSON-able dict for QSettings or a lesson file."""
        step = self.step(tour)
        return {"version": STATE_VERSION, "index": self.index, "step": step.id if step else None, "done": self.done}

    @classmethod
    def from_dict(cls, data: object, tour: TourScript) -> TourState:
        """Restore a stored position, tolerantly: the step id wins if the tour still has it, else
        the index (clamped to the tour, so one beyond the end reads as finished); anything
        unreadable starts from the beginning."""
        if not isinstance(data, dict):
            return cls()
        step_id = data.get("step")
        done = data.get("done") is True
        if isinstance(step_id, str):
            i = tour.index_of(step_id)
            if i is not None:
                return cls(i, done)
        index = data.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            return cls(max(0, min(index, len(tour.steps))))
        return cls()


# ------------------------------------------------------------------ the step as shown


@dataclass(frozen=True)
class Progress:
    index: int  # 0-based step
    total: int
    chapter_index: int  # 0-based chapter
    chapters: int
    text: str  # "Step 5 of 38"
    chapter_text: str  # "Chapter 2 of 9: Trained once, used every time"


@dataclass(kw_only=True, frozen=True)
class TourView:
    """What the lesson panel shows for the current step."""

    step_id: str
    chapter: Chapter
    text: str  # filled with the run's numbers, or the "generate first" text
    do: str  # what the learner is asked to do
    target: Target  # what to highlight in the live window
    done: Condition  # what completes the step (data the UI checks)
    complete: bool  # the condition is met (or it is a "press Next" step)
    needs_run: bool  # the text needs numbers from a run that is not there yet
    progress: Progress
    outcomes: tuple[str, ...]
    first: bool
    last: bool


def progress(texts: LessonTexts, state: TourState) -> Progress:
    tour = texts.tour
    n = len(tour.steps)
    i = min(state.index, n - 1)
    step = tour.steps[i]
    ci = next(j for j, c in enumerate(tour.chapters) if c.id == step.chapter)
    chapter = tour.chapters[ci]
    return Progress(
        i,
        n,
        ci,
        len(tour.chapters),
        texts.text("tour", "progress").format(n=i + 1, total=n),
        texts.text("tour", "chapter").format(n=ci + 1, total=len(tour.chapters), title=chapter.title),
    )


def finished_text(texts: LessonTexts, complete: bool) -> str:
    """What the tour says once its last step is behind it: where "Finish the lesson" leads,
    the goals still to show, or, the lesson complete, the score and what comes next."""
    return texts.text("ui", "tour_finished_complete" if complete else "tour_finished")


def goals_text(texts: LessonTexts, goals: tuple[int, int]) -> str:
    """The goals shown so far, in words: "9 of 16 goals shown"."""
    return texts.text("completion", "goals").format(shown=goals[0], total=goals[1])


def tour_view(
    texts: LessonTexts,
    state: TourState,
    fields: dict[str, str],
    guessing: bool = False,
    goals: tuple[int, int] | None = None,
) -> TourView | None:
    """The current step as shown, with ``fields`` from :func:`explainer.lesson.facts.lesson_fields`;
    None once the tour is finished. ``guessing``: a guess is open in Predict, so a step whose
    text names what the model picks shows its ``text_guessing`` instead (the game stays fair).
    ``goals``: (shown, total) from the learner's record (LessonState.goals; None: none shown),
    for the texts that say how far the learner is; a step with a ``text_open`` shows it until
    every goal is shown (no praise before the lesson is complete). With a run on screen (its
    fields in ``fields``), a step with a ``text_run`` and ``do_run`` shows those, and a step that
    asks for a run is done: the words never ask for what the screen already shows."""
    tour = texts.tour
    step = state.step(tour)
    if step is None:
        return None
    chapter = tour.chapter(step.chapter)
    assert chapter is not None  # assets.py checked every step's chapter
    shown, total = goals if goals is not None else (0, len(texts.lesson.outcomes))
    ran = has_run(fields)
    template = step.text_run if ran and step.text_run is not None else step.text
    if guessing and step.text_guessing is not None:
        template = step.text_guessing
    if step.text_open is not None and shown < total:
        template = step.text_open
    text = fill(template, {**fields, "goals": goals_text(texts, (shown, total))})
    return TourView(
        step_id=step.id,
        chapter=chapter,
        text=text if text is not None else texts.text("tour", "needs_run"),
        do=step.do_run if ran and step.do_run is not None else step.do,
        target=step.target,
        done=step.done,
        complete=state.can_advance(tour) or (ran and step.done.kind is ConditionKind.GENERATE),
        needs_run=text is None,
        progress=progress(texts, state),
        outcomes=step.outcomes,
        first=state.index == 0,
        last=state.index == len(tour.steps) - 1,
    )
