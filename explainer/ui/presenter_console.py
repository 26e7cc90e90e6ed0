"""The presenter console: the instructor's own window, on the laptop's screen.

Slide tools give the presenter a console of their own while the projector shows only the
slides; an instructor expects the same here. With two screens, presenter mode shows it on the
laptop's screen (the room layout, ui/lecture.py) and the audience view fills the projector. It
holds what the room must not see, or need not: the tour step as speaker notes (its words, its
task, a question to ask the room, and a look at the next step), the clock and the time since
presenter mode began, the vote's count, the students' prompts with their texts and their
moderation (ui/moderation_view.py), the projector's screen, and the keys. (The queue's timeline,
numbers and times only, stays on the audience view, where the room watches the server work.)
The clicker's keys step the illustration from here too: the window's stepping actions are added
to this window, so their shortcuts work whichever window has the focus.

With one screen, or mirrored screens, the room sees whatever the laptop shows: the console then
opens only when the instructor asks (View > Presenter console…), and says at its top that the
room may see it.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTime, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explainer.content.texts import LessonTexts
from explainer.lesson.tour import TourView
from explainer.ui.moderation_view import ModerationView
from explainer.ui_model.room_layout import ScreenInfo


def _label(name: str, bold: bool = False) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)  # (texts from the lesson and the students: never markup)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByKeyboard)
    label.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a screen reader's user reaches each by Tab
    if bold:
        f = label.font()
        f.setBold(True)
        label.setFont(f)
    return label


def _scale(label: QLabel, factor: float) -> None:
    f = label.font()
    f.setPointSizeF(f.pointSizeF() * factor)
    label.setFont(f)


class PresenterConsole(QWidget):
    """The console window (see the module docstring)."""

    projector_chosen = Signal(object)  # a screen's name, or None for the default
    closed = Signal()

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("presenter_console")
        self.texts = texts
        self.setWindowTitle(self.word("title"))
        self.began = time.monotonic()
        col = QVBoxLayout(self)
        self.warning = _label("console_warning", bold=True)
        self.warning.setText(self.word("warning"))
        col.addWidget(self.warning)
        top = QHBoxLayout()
        self.clock = _label("console_clock", bold=True)
        self.elapsed = _label("console_elapsed")
        self.elapsed.setWordWrap(False)
        _scale(self.clock, 1.8)
        _scale(self.elapsed, 1.2)
        self.projector = QComboBox()
        self.projector.setObjectName("console_projector")
        self.projector.setAccessibleName(self.word("projector"))
        self.projector.setToolTip(self.word("projector_tip"))
        self.projector.activated.connect(lambda i: self.projector_chosen.emit(self.projector.itemData(i)))
        projector_label = QLabel(self.word("projector"))
        projector_label.setBuddy(self.projector)
        for widget in (self.clock, self.elapsed):
            top.addWidget(widget)
        top.addStretch(1)
        top.addWidget(projector_label)
        top.addWidget(self.projector)
        col.addLayout(top)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self._notes())
        split.addWidget(self._class_side())
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([600, 400])  # (the notes first: they are read at a glance while speaking)
        col.addWidget(split, 1)
        self.keys = _label("console_keys")
        self.keys.setText(self.word("keys") + ": " + self.word("keys_text"))
        col.addWidget(self.keys)
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._tick()
        self.resize(1100, 700)

    def word(self, key: str) -> str:
        return self.texts.app_text("console", key)

    # --- its parts ------------------------------------------------------------------------------

    def _notes(self) -> QWidget:
        box = QWidget()
        col = QVBoxLayout(box)
        col.addWidget(QLabel(f"<b>{self.word('now')}</b>"))
        self.chapter = _label("console_chapter", bold=True)
        self.step = _label("console_step")
        self.task = _label("console_task", bold=True)
        self.ask = _label("console_ask")
        for label in (self.chapter, self.step, self.task, self.ask):
            _scale(label, 1.25)  # speaker notes: read from a step away
        for widget in (self.chapter, self.step, self.task, self.ask):
            col.addWidget(widget)
        col.addSpacing(12)
        col.addWidget(QLabel(f"<b>{self.word('next')}</b>"))
        self.next_step = _label("console_next")
        col.addWidget(self.next_step)
        col.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(box)
        return scroll

    def _class_side(self) -> QWidget:
        box = QWidget()
        col = QVBoxLayout(box)
        col.addWidget(QLabel(f"<b>{self.word('vote')}</b>"))
        self.vote = _label("console_vote", bold=True)
        col.addWidget(self.vote)
        col.addWidget(QLabel(f"<b>{self.word('moderation')}</b>"))
        self.moderation = ModerationView(self.texts)
        col.addWidget(self.moderation, 1)
        return box

    # --- what it shows ------------------------------------------------------------------------

    def set_private_warning(self, shown: bool) -> None:
        """The line saying the room may see this window (one screen, or mirrored ones)."""
        self.warning.setVisible(shown)

    def show_step(self, view: TourView | None, next_view: TourView | None) -> None:
        """The tour step as speaker notes, and the step after it."""
        if view is None:
            for label in (self.chapter, self.task, self.ask):
                label.clear()
            self.step.setText(self.word("no_step"))
            self.next_step.clear()
            return
        self.chapter.setText(f"{view.progress.chapter_text} · {view.progress.text}")
        self.step.setText(view.text)
        self.task.setText(self.texts.app_text("console", "task").format(task=view.do) if view.do else "")
        ask = view.chapter.ask
        self.ask.setText(self.texts.app_text("console", "ask").format(ask=ask) if ask else "")
        if next_view is None:
            self.next_step.setText(self.word("next_none"))
        else:
            self.next_step.setText(f"{next_view.progress.chapter_text}\n{next_view.text}")

    def show_vote(self, count: str, class_on: bool) -> None:
        self.vote.setText(count or (self.word("no_vote") if class_on else self.word("class_off")))

    def show_screens(self, screens: list[ScreenInfo], projector: ScreenInfo | None) -> None:
        """The projector list: each screen by name and size (one screen: said so)."""
        self.projector.blockSignals(True)
        self.projector.clear()
        if len(screens) < 2:
            self.projector.addItem(self.word("projector_one"), None)
        for s in screens if len(screens) > 1 else ():
            label = self.texts.app_text("console", "screen").format(name=s.name, width=s.width, height=s.height)
            self.projector.addItem(label, s.name)
            if projector is not None and s.name == projector.name:
                self.projector.setCurrentIndex(self.projector.count() - 1)
        self.projector.setEnabled(len(screens) > 1)
        self.projector.blockSignals(False)

    def _tick(self) -> None:
        now = QTime.currentTime().toString("HH:mm")
        self.clock.setText(self.texts.app_text("console", "clock").format(time=now))
        seconds = int(time.monotonic() - self.began)
        span = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        self.elapsed.setText(self.texts.app_text("console", "elapsed").format(time=span))

    def restart_clock(self) -> None:
        """The time since presenter mode began counts from now."""
        self.began = time.monotonic()
        self._tick()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._ticker.start()  # (the clock runs while the console is shown)

    def closeEvent(self, event: QCloseEvent) -> None:
        self._ticker.stop()
        self.closed.emit()
        super().closeEvent(event)
