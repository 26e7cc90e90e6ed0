"""The tour's panel: the chapter, "step n of N", the step's text, the task, and the buttons.

It shows a :class:`~explainer.lesson.tour.TourView` and reports presses; the session decides
what they do (the tour is a pure state machine in :mod:`explainer.lesson.tour`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from explainer.content.texts import ConditionKind, LessonTexts
from explainer.illustration.spoken import spoken_marks
from explainer.lesson.tour import TourView
from explainer.ui.announce import announce, sentence
from explainer.ui.lesson.keys import TOUR_BACK, TOUR_NEXT, key_text
from explainer.ui.lesson.links import LinkedLabel
from explainer.ui.lesson.questions_section import QUESTION_SAID


class TourSection(QWidget):
    back_clicked = Signal()
    next_clicked = Signal()
    show_me_clicked = Signal()
    finish_clicked = Signal()
    restart_clicked = Signal()
    term_activated = Signal(str)

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        # the tour's announcements come from this panel, and AT-SPI names the panel with each
        self.setAccessibleName(texts.app_text("access", "tour_panel"))
        ui = self._ui
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        top = QHBoxLayout()
        self.chapter = QLabel()
        self.chapter.setObjectName("tour_chapter")
        self.chapter.setWordWrap(True)
        bold = self.chapter.font()
        bold.setBold(True)
        bold.setPointSizeF(bold.pointSizeF() * 1.1)
        self.chapter.setFont(bold)
        self.progress = QLabel()
        self.progress.setObjectName("tour_progress")
        self.progress.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.chapter, 1)
        top.addWidget(self.progress)
        col.addLayout(top)

        self.text = LinkedLabel(texts.glossary)
        self.text.setObjectName("tour_text")
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.text.setContentsMargins(0, 4, 4, 4)
        self.text.term_activated.connect(self.term_activated)
        scroll = QScrollArea()
        scroll.setWidget(self.text)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # (a frame for the text: it takes no focus of its own)
        col.addWidget(scroll, 1)

        self.task = QLabel()
        self.task.setObjectName("tour_task")
        self.task.setWordWrap(True)
        self.task.setFrameShape(QFrame.Shape.StyledPanel)
        self.task.setMargin(6)
        col.addWidget(self.task)

        row = QHBoxLayout()
        self.back_button = QPushButton(ui("back"))
        self.back_button.setToolTip(ui("back_tip").format(keys=key_text(TOUR_BACK)))
        self.show_me_button = QPushButton(ui("show_me"))
        self.show_me_button.setToolTip(ui("show_me_tip"))
        self.restart_button = QPushButton(ui("restart"))
        self.finish_button = QPushButton(ui("finish"))
        self.finish_button.setToolTip(ui("finish_tip"))
        self.next_button = QPushButton(ui("next"))
        self.next_button.setToolTip(ui("next_tip").format(keys=key_text(TOUR_NEXT)))
        for b in (self.back_button, self.show_me_button, self.restart_button, self.finish_button, self.next_button):
            b.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click leaves the focus where it was (the diagram)
        row.addWidget(self.back_button)
        row.addWidget(self.show_me_button)
        row.addStretch(1)
        row.addWidget(self.restart_button)
        row.addWidget(self.finish_button)
        row.addWidget(self.next_button)
        col.addLayout(row)
        self.back_button.clicked.connect(self.back_clicked)
        self.next_button.clicked.connect(self.next_clicked)
        self.show_me_button.clicked.connect(self.show_me_clicked)
        self.finish_button.clicked.connect(self.finish_clicked)
        self.restart_button.clicked.connect(self.restart_clicked)
        self.restart_button.hide()  # (shown at the end only; hidden now, so the row is not wider at start)
        self.finish_button.hide()

    _told: tuple[str, str] | None = None  # the step and task last announced
    showing_open = False  # "Not finished yet" is shown in place of the step's text
    _told_open: str = ""  # the "Not finished yet" list last announced

    def _ui(self, key: str) -> str:
        return self.texts.text("ui", key)

    def show_open(self, text: str) -> None:
        """What "Finish the lesson" found still open, in place of the step's text until the tour
        shows another step (the heading and the task stay: they are where the learner is). Read
        out once, as shown: it appears because the learner pressed Finish, away from the focus."""
        self.text.set_linked(text)
        self.showing_open = True
        if text != self._told_open:
            self._told_open = text
            announce(self, self._spoken(text))

    def _spoken(self, text: str) -> str:
        """A text as shown, with its marks (␣, ↵) said as words for a screen reader."""
        return spoken_marks(text, self.texts.describe)

    def show_view(self, view: TourView | None, can_show_me: bool, finished: str) -> None:
        """The current step (None: the tour is finished, and ``finished`` says what now:
        lesson/tour.py finished_text)."""
        self.showing_open = False
        self._told_open = ""  # (the step's own text is shown again)
        if view is None:
            self.chapter.setText(self.texts.text("tour", "finished"))
            self.progress.setText("")
            self.text.set_linked(finished)
            told = (self.chapter.text(), finished)
            if told != self._told:
                self._told = told
                access = self.texts.app_text("access", "tour_end")
                announce(self, access.format(chapter=sentence(told[0]), text=self._spoken(self.text.plain)))
            self.task.setVisible(False)
            for b, on in (
                (self.back_button, True),
                (self.show_me_button, False),
                (self.restart_button, True),
                (self.finish_button, True),
                (self.next_button, False),
            ):
                b.setVisible(on)
            return
        self.chapter.setText(view.progress.chapter_text)
        self.progress.setText(view.progress.text)
        self.text.set_linked(view.text)
        self.task.setVisible(True)
        key = "task_done" if view.complete and view.done.kind is not ConditionKind.NEXT else "task"
        self.task.setText(self._ui(key).format(do=view.do))
        self.task.setProperty("complete", view.complete)
        self.back_button.setVisible(True)
        self.back_button.setEnabled(not view.first)
        self.show_me_button.setVisible(True)
        self.show_me_button.setEnabled(can_show_me)
        self.restart_button.setVisible(False)
        self.finish_button.setVisible(view.last)
        self.next_button.setVisible(True)
        self.next_button.setDefault(view.complete)
        told = (view.progress.text, self.task.text())
        if told == self._told:
            return
        said = self.texts.app_text
        if self._told is not None and told[0] == self._told[0]:  # the same step, its task just done
            announce(self, said("access", "tour").format(progress=told[0], task=told[1]))
        else:  # another step: where it is, and all it says, in the words shown
            words = said("access", "tour_step").format(
                chapter=sentence(self.chapter.text()), progress=told[0], text=self._spoken(view.text), task=told[1]
            )
            announce(self, words, drops=(QUESTION_SAID,))  # (the last step's question, not said yet: left behind)
        self._told = told
