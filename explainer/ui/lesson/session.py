"""The learner's progress through the lesson, and what moves it.

One object owns the learner's record, a :class:`~explainer.lesson.state.LessonState` (where the
tour is, the quiz, the game's score and this run's rounds played): it turns what happens in the
window into the state's events (every frame shown, a setting changed, a run finished, a round
played, a slider moved, a question answered), stores the new state in the app's settings the
moment it changes (ui/lesson/record.py: the lesson resumes where it was left, even after a
crash), and gives it to the sections to show. The sections keep no copy of their own to fall out of
step. It reads only what the window already has (the recorded trace, the loaded
model's description and vocabulary): the GUI thread never waits on the model here.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, Signal

from explainer.content.texts import ConditionKind
from explainer.engine.trace import ModelInfo, Trace
from explainer.illustration.vocab import TokenNames
from explainer.illustration.walk import Walk
from explainer.lesson.completion import completion, next_question, unfinished
from explainer.lesson.facts import lesson_fields, model_fields
from explainer.lesson.game import Round, Rounds, reveal
from explainer.lesson.questions import Question, Verdict, build_questions
from explainer.lesson.state import LessonState
from explainer.lesson.tour import (
    Answered,
    Branched,
    Generated,
    Predicted,
    SettingChanged,
    StageShown,
    TourEvent,
    TourState,
    TourView,
    WhatIfChanged,
    finished_text,
    tour_view,
)
from explainer.stages import Cursor, Stage
from explainer.ui.lecture import Lecture
from explainer.ui.lesson.dock import LessonDock
from explainer.ui.lesson.pointer import TourPointer
from explainer.ui.lesson.projector_note import ProjectorNote
from explainer.ui.lesson.record import keep_record, restore_record
from explainer.ui.lesson.show_me import Pointing, Section, ShowMe, pointing, show_me
from explainer.ui.lesson.task_opener import TaskOpener
from explainer.ui.next_turn import NextTurn
from explainer.ui.settings import AppSettings
from explainer.ui.stepper import RunOnScreen
from explainer.ui_model.room_layout import Place


class LessonHost(RunOnScreen, Protocol):
    """What the lesson reads of the window beyond the run on screen: the settings it saves into,
    the walk over the run, and the room's layout (whether its dock is on screen, whether its
    task shows over the illustration). Nothing else of the window is the lesson's business."""

    @property
    def settings(self) -> AppSettings: ...
    @property
    def walk(self) -> Walk | None: ...
    @property
    def lecture(self) -> Lecture: ...


class LessonSession(QObject):
    # the record changed: whether a guess is open at the cursor on screen (answer_open) may have
    answer_changed = Signal()
    step_shown = Signal()  # the tour's step as shown changed (the presenter console's notes follow)

    def __init__(
        self, window: LessonHost, dock: LessonDock, pointer: TourPointer, note: ProjectorNote | None = None
    ) -> None:
        """``note``: the step's task over the illustration in presenter mode (None: not shown)."""
        super().__init__(dock)  # (it lives as long as the dock it drives)
        self.window, self.dock, self.pointer, self.note = window, dock, pointer, note
        self.opener = TaskOpener(window, dock, pointer)
        self.texts = window.texts
        self.tour = self.texts.tour
        self.completed = False  # the completion page was shown in this session
        self.questions: tuple[Question, ...] = ()
        self.state = restore_record(window.settings, self.tour)
        self._push()
        self.rounds = Rounds()  # the rounds of the run on screen, made once per pass
        self.model: ModelInfo | None = None
        self.fields: dict[str, str] = {}
        self.view: TourView | None = None
        self._names = TokenNames()
        self._had_trace = False
        self._shown: tuple[TourView | None, bool, str] | None = None
        self.frames = NextTurn(self.on_frame_shown, self)  # frames shown, heard a turn later (ui/next_turn.py)
        d = dock
        d.tour.next_clicked.connect(self.next)
        d.tour.back_clicked.connect(self.back)
        d.tour.show_me_clicked.connect(self.show_me)
        d.tour.finish_clicked.connect(self.finish)
        d.tour.restart_clicked.connect(self.restart)
        d.predict.picked.connect(self._on_picked)
        d.whatif.changed.connect(lambda name: self.observe(WhatIfChanged(name)))
        d.questions.answered.connect(self._on_answered)
        d.visibilityChanged.connect(lambda _shown: self.answer_changed.emit())
        self._rebuild()
        self.dock.show_complete_tab(False)  # (until the lesson is complete in this session)
        self._refresh(moved=False)

    # --- what the lesson reads of the window ---------------------------------------

    @property
    def trace(self) -> Trace | None:
        return self.window.trace

    def names(self) -> TokenNames:
        """Token labels for the current trace (the loaded model's vocabulary, once it is known)."""
        vocabulary = self.window.vocabulary
        if self._names.vocabulary is not vocabulary:
            self._names = TokenNames(vocabulary)
        if self.trace is not None:
            self._names.use(self.trace)
        return self._names

    def _rebuild(self) -> None:
        """The run's numbers for the tour and the questions (after a run or the model arrives)."""
        trace = self.trace if not self.window.generating else None
        names = self.names()
        self.fields = lesson_fields(self.texts, trace, self.model, names)
        self.questions = build_questions(self.texts, trace, self.model, names)
        self.dock.questions.set_questions(self.questions)
        self.dock.request.show_run(trace)
        self.dock.scale.show_model(self.model if self.model is not None else trace.model if trace else None)
        if self.completed:  # (the score counts the questions of this run)
            self.show_completion(open_it=False)

    # --- what the window reports ---------------------------------------------------

    def on_model_ready(self, info: ModelInfo) -> None:
        self.model = info
        self.dock.glossary.set_model_fields(model_fields(self.texts, info))
        self._rebuild()
        self._refresh(moved=False)

    def on_changed(self) -> None:
        """The stepper changed; a new run (the trace gone) forgets the passes played."""
        has = self.trace is not None
        if self._had_trace and not has:
            self.rounds.clear()
            self.dock.predict.new_run()
            self._keep(self.state.new_run())
            self.dock.whatif.update_for(None, None, self.names())
            self.dock.request.show_run(None)
        self._had_trace = has

    def on_frame_shown(self, cursor: Cursor) -> None:
        trace = self.trace
        if trace is None:
            return
        last = not self.window.generating and trace.stop_reason is not None and cursor.step == len(trace.steps) - 1
        names = self.names()
        self._update_predict(trace, cursor)
        self.dock.whatif.update_for(trace, cursor, names)
        self.observe(StageShown(cursor.stage, "prefill" if cursor.step == 0 else "decode", last))

    def on_run_finished(self, trace: Trace) -> None:
        if self.model is None:
            self.model = trace.model
        self._rebuild()
        self.observe(Generated())
        self._maybe_complete()  # (the live questions can be asked now: answered before, they count)
        if self.window.position is not None:  # the final snapshot: offer what the cursor shows
            self._update_predict(trace, self.window.position)
            self.dock.whatif.update_for(trace, self.window.position, self.names())

    def on_run_swapped(self, trace: Trace) -> None:
        """Another recorded run is on screen ("Your turn"'s switch between the model's run and
        the learner's): the rounds and plays were of the other run's passes."""
        self.rounds.clear()
        self.dock.predict.new_run()
        self._keep(self.state.new_run())
        self._rebuild()

    def on_branched(self, trace: Trace) -> None:
        """A "Your turn" run was recorded: the tour learns whether the pick was the top token."""
        if trace.branch is None:
            return
        # the two endings side by side (presenter mode: the tab waits in the hidden dock)
        self.dock.open_section(Section.YOUR_TURN, self.in_window())
        s = trace.steps[trace.branch.step].sampling
        self.observe(Branched(from_top=len(s.raw.ids) > 0 and int(s.raw.ids[0]) == s.chosen.id))

    def on_setting(self, name: str) -> None:
        self.observe(SettingChanged(name, self.window.generating))

    def _offer(self, trace: Trace, cursor: Cursor) -> Round | None:
        """The round offered at the cursor: at the layers stage (where the chart is not drawn
        yet) of a pass not played this run, when it recorded enough candidates to make one."""
        if cursor.stage is not Stage.LAYERS or not 0 <= cursor.step < len(trace.steps):
            return None
        if self.state.play_at(cursor.step) is not None:
            return None
        return self.rounds.at(self.texts, trace, cursor.step, self.names())

    def answer_open(self, trace: Trace, cursor: Cursor) -> bool:
        """Whether a guess is open at the cursor (a round offered, not yet answered): then
        nothing in the illustration may name the answer. The scene asks before it draws a frame
        (install.py passes this in), so it holds from the frame's first picture; a pick steps to
        the chart, and leaving the stage or the pass closes it. With the lesson hidden (closed, or
        presenter mode) no round is on screen, so nothing is hidden either."""
        if trace is not self.trace or self.dock.isHidden():  # (another run than the rounds are of)
            return False
        return self._offer(trace, cursor) is not None

    def _guessing(self) -> bool:
        """A guess is open at the frame on screen (the tour then names no pick)."""
        trace, cursor = self.trace, self.window.position
        return trace is not None and cursor is not None and self.answer_open(trace, cursor)

    def _update_predict(self, trace: Trace, cursor: Cursor) -> None:
        """The game at the cursor: the pass's reveal if it was played this run, else its round."""
        played = self.state.play_at(cursor.step) if cursor.step < len(trace.steps) else None
        offer = self._offer(trace, cursor) if played is None else None
        self.dock.predict.update_for(trace, cursor, offer, played)

    def _on_picked(self, rnd: Round, pick_id: int) -> None:
        """A round played: scored and recorded, told to the tour, then the window steps to the
        pass's probabilities, where the learner sees the real chart."""
        trace = self.trace
        if trace is None:
            return
        result = reveal(self.texts, trace, rnd, pick_id, self.names())
        played = self.state.played(rnd, result)
        if played == self.state:  # (the pass was played already: the widgets offer it once)
            return
        self._set(played.tour_event(self.tour, Predicted(result.correct)), moved=False)
        self.window.stepper.show(Cursor(rnd.step, Stage.PROBABILITIES))

    def _on_answered(self, question_id: str, verdict: Verdict) -> None:
        answered = self.state.answer(question_id, verdict)
        self._set(answered.tour_event(self.tour, Answered(question_id, verdict.correct)), moved=False)
        self._maybe_complete()

    def observe(self, event: TourEvent) -> None:
        """Report what the learner did to the tour (it may complete the current step)."""
        new = self.state.tour_event(self.tour, event)
        if new != self.state:
            self._set(new, moved=False)
        else:
            self._refresh(moved=False)  # (what "Show me" can do depends on the cursor)

    # --- the tour ----------------------------------------------------------------------

    def next(self) -> None:
        """Next step (always allowed: a tour must never trap anyone); past the last: finished."""
        if self.state.tour.finished(self.tour):
            return
        self._set(self.state.next(self.tour), moved=True)
        self._maybe_complete()

    def back(self) -> None:
        self._set(self.state.back(self.tour), moved=True)

    def restart(self) -> None:
        self._set(self.state.restart(), moved=True)

    def go_to(self, index: int) -> None:
        self._set(self.state.go_to(self.tour, index), moved=True)

    def resume_at(self, state: TourState) -> None:
        """A lesson file was opened: the tour continues at its step, and the lesson is in view."""
        self.dock.show()
        self._set(self.state.resumed_at(state), moved=True)

    def finish(self) -> None:
        """ "Finish the lesson". Complete (every outcome shown): the tour is done and the
        completion page opens. Not yet: the tour lists the outcomes still open and the learner is
        taken to the first of them, its question (or, when it cannot be asked yet, the tour step
        that teaches it)."""
        todo = unfinished(self.texts, self.state, self.questions)
        if todo is None:
            self._set(self.state.go_to(self.tour, len(self.tour.steps)), moved=True)
            self.show_completion()
            return
        if todo.question is not None:
            self.dock.open_section(Section.QUESTIONS)
            self.dock.questions.open(todo.question)
        elif todo.tour_step is not None:
            self.go_to(todo.tour_step)
        self.dock.tour.show_open(todo.text)

    def show_me(self) -> None:
        help_ = self._show_me()
        if help_ is not None:
            self.opener.show_me(help_)

    def _show_me(self) -> ShowMe | None:
        view = self.view
        if view is not None and view.needs_run:
            return ShowMe(control="prompt")
        found = show_me(view, self.window.walk, self.window.position)
        if found is None or found == ShowMe():
            return None
        return found

    def set_state(self, state: LessonState, moved: bool = False) -> None:
        """Replace the whole record (what a test or the screenshots script sets up); ``moved``
        as for the tour's own moves."""
        self._set(state, moved)

    def _set(self, state: LessonState, moved: bool) -> None:
        self._keep(state.told_complete(self.texts, self.questions))
        self._refresh(moved)

    def _keep(self, state: LessonState) -> None:
        """The new record: saved at once (ui/lesson/record.py) and shown by the sections."""
        self.state = state
        keep_record(self.window.settings, state, self.tour)
        self._push()
        self.answer_changed.emit()

    def _push(self) -> None:
        self.dock.questions.show_quiz(self.state.quiz)
        if self.dock.tour.showing_open:  # "Not finished yet" on screen: it follows the answers
            todo = unfinished(self.texts, self.state, self.questions)
            if todo is not None:
                self.dock.tour.show_open(todo.text)
            else:  # complete: the step's own text again
                self._shown = None
        self.dock.predict.show_state(self.state)
        if self.completed:  # the page shown keeps the current score
            self.show_completion(open_it=False)

    def _refresh(self, moved: bool) -> None:
        """Show the step and point at its target; ``moved``: the learner just arrived at it, so
        a hidden control is shown and the section holding the task is opened."""
        goals = self.state.goals(self.texts, self.questions)
        self.view = view = tour_view(self.texts, self.state.tour, self.fields, self._guessing(), goals)
        # once the tour is behind the learner: where Finish leads, or that the lesson is complete
        ended = finished_text(self.texts, self.state.complete(self.texts, self.questions)) if view is None else ""
        shown = (view, self._show_me() is not None, ended)
        if moved or shown != self._shown:  # (a frame shown changes nothing most of the time)
            was_open = self.dock.tour.showing_open and not moved
            self._shown = shown
            self.dock.tour.show_view(*shown)
            todo = unfinished(self.texts, self.state, self.questions) if was_open else None
            if todo is not None:  # "Not finished yet" stays until the learner moves, or is done
                self.dock.tour.show_open(todo.text)
            reveal = moved and self.in_window()
            self.pointer.point(pointing(view.target) if view is not None else Pointing(), reveal=reveal)
            self.show_note()
        if moved:
            self.open_task()

    def open_task(self, arriving: bool = True) -> None:
        """The section holding the step's task opened (its question shown): on arriving at the
        step, and on Ctrl+J "Go to the task" (``arriving`` False), which a step the app reopened
        at needs too; then a question already shown is kept as it is (with what was typed)."""
        view = self.view
        if view is None:
            return
        # the check step opens the next question still to answer: the closing one comes last
        complete = view.done.kind is ConditionKind.COMPLETE and view.done.question is not None
        question = next_question(self.texts, self.state, self.questions) if complete else None
        self.opener.open_task(view, question, arriving)

    def in_window(self) -> bool:
        """Whether the room's layout shows the Lesson dock (not in presenter mode: what the lesson
        opens then waits in the hidden dock, and a control it points at is not revealed)."""
        return self.window.lecture.layout.lesson is Place.WINDOW

    def show_note(self) -> None:
        """The step's task over the illustration where the room's layout puts the task band
        (the audience view in presenter mode; else hidden)."""
        if self.note is not None:
            shown = self.window.lecture.layout.task_band is Place.AUDIENCE
            self.note.show_step(self.view, shown, self.pointer.scene.theme)
        self.step_shown.emit()

    # --- lesson complete -------------------------------------------------------------

    def _maybe_complete(self) -> None:
        """Every outcome shown: the lesson is complete (the tour is told, and the page opens once)."""
        told = self.state.told_complete(self.texts, self.questions)
        if told != self.state:
            self._set(told, moved=False)
        if not self.completed and self.state.complete(self.texts, self.questions):
            self.show_completion()

    def show_completion(self, open_it: bool = True) -> None:
        value = completion(self.texts, self.state.quiz, self.questions, self.state.game)
        self.completed = True
        self.dock.completion.show_completion(value)
        if open_it:
            self.dock.open_section(Section.COMPLETE, self.in_window())
