"""The tour step's task in presenter mode: a note on the illustration, in projector type.

Presenter mode hides the Lesson dock (and it stays hidden: its 13 px text cannot be read from
the back of a hall). The current step's task is written in a band of its own above the
illustration instead (the illustration fits in the room below it: written over the title, the
note hid the title and the word "pass"), in the
projector theme's colours and at least 18 px; a step that needs the dock's widgets (a question,
the game, a slider, the prompt) adds that presenter mode has to be left to answer. A "press
Next" step shows no note (the title is back). The tour's keys (Alt+→ / Alt+←) keep working,
so the note has no buttons.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QBoxLayout, QGraphicsView, QLabel

from explainer.content.texts import ConditionKind
from explainer.diagram.theme import Theme
from explainer.lesson.tour import TourView

NOTE_PX = 22  # screen pixels: the note is a widget, drawn unscaled
MIN_NOTE_PX = 18
# the steps answered with the dock's widgets (or the Controls'), which presenter mode hides
NEEDS_WIDGETS = frozenset(
    {
        ConditionKind.QUESTION,
        ConditionKind.COMPLETE,
        ConditionKind.GAME,
        ConditionKind.WHATIF,
        ConditionKind.GENERATE,
        ConditionKind.SETTING,
    }
)


def note_text(view: TourView, leave_note: str) -> str:
    """What the note says for a step: where the tour is, the task, and (for a step answered in
    the dock) that presenter mode has to be left first."""
    lines = [" · ".join(t for t in (view.progress.text, view.do) if t)]
    if view.done.kind in NEEDS_WIDGETS and not view.complete:
        lines.append(leave_note)
    return "\n".join(line for line in lines if line)


class ProjectorNote(QLabel):
    """A band above ``view`` (in the layout that holds it), shown only while presenter mode is on."""

    def __init__(self, view: QGraphicsView, leave_note: str) -> None:
        holder = view.parentWidget()
        super().__init__(holder)
        self.setObjectName("projector_note")
        self.view, self.leave_note = view, leave_note
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        layout = holder.layout() if holder is not None else None
        if isinstance(layout, QBoxLayout) and layout.indexOf(view) >= 0:
            layout.insertWidget(layout.indexOf(view), self)  # its own band: the view fits below it
        self.hide()

    def show_step(self, step: TourView | None, presenting: bool, theme: Theme) -> None:
        if not presenting or step is None or step.done.kind is ConditionKind.NEXT:
            self.hide()
            return
        self.setStyleSheet(
            f"QLabel#projector_note {{ background: {theme.background}; color: {theme.foreground};"
            f" border: 3px solid {theme.accent}; padding: 4px 14px; font-family: '{theme.font_family}';"
            f" font-size: {NOTE_PX}px; }}"
        )
        self.setText(note_text(step, self.leave_note))
        self.show()
