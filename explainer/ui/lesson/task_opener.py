"""Taking the learner to where a task is: the lesson section that holds it opened, its question
shown, the illustration at the frame it is about, a hidden control shown and focused.

Apart from the session (session.py), which decides *what* the task is from the learner's record,
because this is only the dock and the window doing it, the same for a tour step's task (on
arriving, and Ctrl+J "Go to the task") and for "Show me"'s answer (show_me.py). Where the room's
layout hides the dock (presenter mode), the section is chosen, nothing is shown or focused.
"""

from __future__ import annotations

from typing import Protocol

from explainer.content.texts import ConditionKind
from explainer.lesson.tour import TourView
from explainer.ui.lecture import Lecture
from explainer.ui.lesson.dock import LessonDock
from explainer.ui.lesson.pointer import TourPointer
from explainer.ui.lesson.show_me import Section, ShowMe
from explainer.ui.stepper import Stepper
from explainer.ui_model.room_layout import Place

# the section holding a step's task, for the tasks that are not a question
SECTION_OF = {
    ConditionKind.GAME: Section.PREDICT,
    ConditionKind.WHATIF: Section.WHATIF,
    ConditionKind.BRANCH: Section.YOUR_TURN,
}


class TaskHost(Protocol):
    """What of the window taking the learner somewhere needs: its stepper and the room's layout."""

    @property
    def stepper(self) -> Stepper: ...
    @property
    def lecture(self) -> Lecture: ...


class TaskOpener:
    def __init__(self, window: TaskHost, dock: LessonDock, pointer: TourPointer) -> None:
        self.window, self.dock, self.pointer = window, dock, pointer

    def _shown(self) -> bool:
        """Whether the dock is on screen in the room's layout (not in presenter mode)."""
        return self.window.lecture.layout.lesson is Place.WINDOW

    def open_task(self, view: TourView, next_question: str | None, arriving: bool) -> None:
        """The section holding the step's task opened, with its question (``next_question``, the
        check step's next question still to answer, before the step's own). Not ``arriving``
        (Ctrl+J): a question already shown is kept as it is (with what was typed)."""
        kind, show = view.done.kind, self._shown()
        if kind in (ConditionKind.QUESTION, ConditionKind.COMPLETE) and view.done.question is not None:
            wanted, card = next_question or view.done.question, self.dock.questions.card
            if arriving or self.dock.section() is not Section.QUESTIONS or card is None or card.question.id != wanted:
                self.dock.open_section(Section.QUESTIONS, show)
                self.dock.questions.open(wanted)
        elif kind in SECTION_OF:
            self.dock.open_section(SECTION_OF[kind], show)

    def show_me(self, help_: ShowMe) -> None:
        """Do what "Show me" found: step to its frame, open its section and question, and show
        and focus its control."""
        if help_.cursor is not None:
            self.window.stepper.show(help_.cursor)
        show = self._shown()
        if help_.section is not None:
            self.dock.open_section(help_.section, show)
            if help_.question is not None:
                self.dock.questions.open(help_.question)
        if show and help_.control is not None:
            self.pointer.reveal(help_.control)
            self.pointer.controls[help_.control]().setFocus()
