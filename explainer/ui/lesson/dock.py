"""The Lesson dock, beside the illustration: the tour on top, the other sections as tabs below.

Chapters 7 and 8 of the tour point at two of the tabs (the request's life with the run's numbers,
the model sizes), so the numbers stay in view while their steps run.

The tour stays in view while the learner does what a step asks in a tab below it (answer a
question, play a round, move a slider), so nobody has to switch back and forth to read the next
instruction. The completion page is a tab that appears once the lesson is complete.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import NamedTuple

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QScrollArea, QSplitter, QTabWidget, QWidget

from explainer.content.texts import LessonTexts
from explainer.ui.focus_areas import holds_focus, takes_focus
from explainer.ui.lesson.completion_section import CompletionSection
from explainer.ui.lesson.glossary_section import GlossarySection
from explainer.ui.lesson.predict_section import PredictSection
from explainer.ui.lesson.questions_section import QuestionsSection
from explainer.ui.lesson.request_section import RequestSection
from explainer.ui.lesson.scale_section import ScaleSection
from explainer.ui.lesson.show_me import Section
from explainer.ui.lesson.tab_bar import FittingTabBar
from explainer.ui.lesson.tour_section import TourSection
from explainer.ui.lesson.whatif_section import WhatIfSection
from explainer.ui.lesson.your_turn_section import YourTurnSection

DOCK_WIDTH = 400
TOUR_HEIGHT = 255  # the tour's box at least: a step's text and its task
TOUR_SHARE = 0.66  # ... and at most this share of the dock's height, the tabs keeping the rest


class _Page(QScrollArea):
    """A tab's page: its section, in a scroll area. It takes the section in when its tab is first
    shown (fill): laying out and polishing the sections of tabs nobody has opened yet held up
    the window's first paint. Until then the section is a hidden child of the page, so
    what the lesson writes into it meanwhile is kept, and drawn when the tab opens."""

    def __init__(self, section: QWidget) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        # a frame only: Tab goes to the section's own controls, and the area scrolls to show them
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._waiting: QWidget | None = section
        section.setParent(self)
        section.hide()

    def fill(self) -> None:
        if self._waiting is not None:
            section, self._waiting = self._waiting, None
            self.setWidget(section)  # (shows it)


class Sections(NamedTuple):
    """The dock's sections, made before the dock (a window built in turns makes one a turn)."""

    tour: TourSection
    predict: PredictSection
    whatif: WhatIfSection
    your_turn: YourTurnSection
    questions: QuestionsSection
    glossary: GlossarySection
    request: RequestSection
    scale: ScaleSection
    completion: CompletionSection


def made_sections(texts: LessonTexts) -> Generator[None, None, Sections]:
    """Make the sections, one per step (all at once, they held the event loop of a window built
    in turns past a frame's time: ui/build_in_turns.py)."""
    tour = TourSection(texts)
    yield
    predict = PredictSection(texts)
    yield
    whatif = WhatIfSection(texts)
    yield
    your_turn = YourTurnSection(texts)
    yield
    questions = QuestionsSection(texts)
    yield
    glossary = GlossarySection(texts)
    yield
    request = RequestSection(texts)
    yield
    scale = ScaleSection(texts)
    yield
    return Sections(tour, predict, whatif, your_turn, questions, glossary, request, scale, CompletionSection(texts))


def sections_now(texts: LessonTexts) -> Sections:
    """All the sections at once."""
    steps = made_sections(texts)
    while True:
        try:
            next(steps)
        except StopIteration as made:
            return made.value  # type: ignore[no-any-return]


class LessonDock(QDockWidget):
    def __init__(self, texts: LessonTexts, parent: QWidget | None = None, sections: Sections | None = None) -> None:
        """``sections``: made already (:func:`made_sections`), else made here."""
        super().__init__(texts.text("ui", "dock_title"), parent)
        self.setObjectName("lesson")  # (the window's saved layout knows docks by name)
        self.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.setMinimumWidth(320)
        self.texts = texts
        made = sections or sections_now(texts)
        self.tour, self.predict, self.whatif, self.your_turn = made.tour, made.predict, made.whatif, made.your_turn
        self.questions, self.glossary, self.request = made.questions, made.glossary, made.request
        self.scale, self.completion = made.scale, made.completion
        self.queue_page = QWidget()  # the Queue view goes here once class mode starts (ui/queue_install.py)
        self.queue_page.setObjectName("lesson_queue_page")
        self.tabs = QTabWidget()
        self.tabs.setObjectName("lesson_tabs")
        self.tabs.setAccessibleName(texts.app_text("access", "lesson_tabs"))  # focusable: AT-SPI reads it
        self.tabs.setDocumentMode(True)
        self.tabs.setTabBar(FittingTabBar())  # (before the tabs: every one in view on a laptop)
        self.tabs.setUsesScrollButtons(True)
        self._index: dict[Section, int] = {}
        self._labels: dict[Section, str] = {}
        self.pages: dict[Section, QWidget] = {}
        unpaged = (Section.QUESTIONS, Section.GLOSSARY, Section.QUEUE)  # (these scroll as they need)
        for section, widget, key in (
            (Section.PREDICT, self.predict, "tab_predict"),
            (Section.WHATIF, self.whatif, "tab_whatif"),
            (Section.YOUR_TURN, self.your_turn, ""),
            (Section.QUESTIONS, self.questions, "tab_questions"),
            (Section.GLOSSARY, self.glossary, "tab_glossary"),
            (Section.REQUEST, self.request, "tab_request"),
            (Section.SCALE, self.scale, "tab_scale"),
            (Section.COMPLETE, self.completion, "tab_complete"),
            (Section.QUEUE, self.queue_page, ""),
        ):
            label = texts.text("ui", key) if key else texts.app_text(section.value, "tab")
            widget.setAccessibleName(label)  # its announcements come from it: AT-SPI names it with each
            page = widget if section in unpaged else _Page(widget)
            self._index[section] = self.tabs.addTab(page, label)
            self.pages[section] = page
            self._labels[section] = label
        self._show_tab(Section.COMPLETE, False)
        self._show_tab(Section.QUEUE, False)
        self.tabs.currentChanged.connect(self._fill)
        self._fill(self.tabs.currentIndex())
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("lesson_splitter")
        self.splitter.addWidget(self.tour)
        self.splitter.addWidget(self.tabs)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([TOUR_HEIGHT, 900 - TOUR_HEIGHT])  # room for a step's text and its task
        self.setWidget(self.splitter)
        self.tour.term_activated.connect(self.open_glossary)
        # the tour's box grows with its text (the "Not finished" list of goals was read through
        # a 4-line window) and gives the room back for a short step; after the layout settles
        self.tour.text.shown.connect(lambda: QTimer.singleShot(0, self, self.fit_tour))
        self.questions.term_activated.connect(self.open_glossary)
        self.glossary.term_activated.connect(self.open_glossary)

    def fit_tour(self) -> None:
        """The tour's box as tall as its text needs, between TOUR_HEIGHT and TOUR_SHARE of the
        dock (past that it scrolls)."""
        sizes = self.splitter.sizes()
        total = sum(sizes)
        scroll = self.tour.text.parentWidget()
        if total <= 0 or scroll is None or not self.tour.isVisible():
            return
        width = scroll.width()
        chrome = self.tour.height() - scroll.height()  # the heading, the task, the buttons, margins
        needed = self.tour.text.heightForWidth(width) + chrome + 2
        top = min(max(needed, TOUR_HEIGHT), int(total * TOUR_SHARE))
        if top != sizes[0]:
            self.splitter.setSizes([top, total - top])

    def _fill(self, index: int) -> None:
        page = self.tabs.widget(index)
        if isinstance(page, _Page):
            page.fill()

    def section(self) -> Section:
        """The tab shown now."""
        page = self.tabs.currentWidget()
        return next(s for s, p in self.pages.items() if p is page)

    def open_section(self, section: Section, show: bool = True) -> None:
        """Show the tab (and the dock, if it was closed, unless ``show`` is False: presenter mode
        keeps the dock hidden and only chooses the tab it comes back with)."""
        self._show_tab(section, True)
        page = self.pages[section]
        if page is not self.tabs.currentWidget() and holds_focus(self.tabs.currentWidget()):
            self._switch_from_focus(page)
        else:
            self.tabs.setCurrentWidget(page)
        if not show:
            return
        if not self.isVisible():
            self.show()
        self.raise_()

    def _switch_from_focus(self, page: QWidget) -> None:
        """The tab switched under the focus (Next, or Alt+Right, to a step whose task is in
        another tab). Left to Qt, the focus went into the incoming page: to a control of it,
        else to the page itself, an unnamed frame (a screen reader heard "panel"), through the
        prompt and the illustration on the way as the old page hid. It goes to the tour's Next
        first, in one move: what the learner just pressed, or the key to press next. (The
        sections' bar only when the tour has no Next, at its end: given the focus as its tab
        changes, it was heard by a tab's name AT-SPI held from before.)"""
        target = self.tour.next_button if takes_focus(self.tour.next_button) else self.tabs.tabBar()
        if takes_focus(target):
            target.setFocus(Qt.FocusReason.OtherFocusReason)  # (none left in the old page for Qt to move)
        self.tabs.setCurrentWidget(page)

    def open_glossary(self, term: str, show: bool = True) -> None:
        self.glossary.open_at(term)
        self.open_section(Section.GLOSSARY, show)

    def show_complete_tab(self, on: bool) -> None:
        self._show_tab(Section.COMPLETE, on)

    def show_queue_tab(self, on: bool) -> None:
        self._show_tab(Section.QUEUE, on)

    def _show_tab(self, section: Section, on: bool) -> None:
        """A hidden tab is taken off the bar, not only hidden: Qt still lists a tab hidden with
        setTabVisible to assistive technology, and a screen reader would read "Done" out. Only the
        last tabs (Complete, Queue) are ever hidden, so the others keep their indices; a tab shown
        again goes after those before it that are there."""
        there = self.tabs.indexOf(self.pages[section])
        if on and there < 0:
            before = [s for s, i in self._index.items() if i < self._index[section]]
            at = sum(1 for s in before if self.tabs.indexOf(self.pages[s]) >= 0)
            self.tabs.insertTab(at, self.pages[section], self._labels[section])
        elif not on and there >= 0:
            self.tabs.removeTab(there)
