"""The class's queue in the window: the Queue tab of the Lesson dock, the presenter panel, the
Request tab's live queue row, and the private opening of one request.

Everything waits for class mode: the controller says when it serves a queue
(EngineController.class_served), and only then is the Queue view made (it imports pyqtgraph,
which the first window never waits for). One view serves both places: the Queue tab while the
window is as usual, the presenter panel (a dock at the bottom, "class_queue") where the room's
layout puts the queue on the audience view (presenter mode with class mode on: ui/lecture.py),
where the Lesson dock is hidden. Presenter mode saves and restores every dock's visibility, and
this panel's is set again after it did (the layout changes once presenter mode has), so the
panel is only there in that layout.

The class's requests use the sampling panel's settings: they are handed to the controller each
time the panel changes (the worker cannot read a widget).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDialog, QDockWidget, QVBoxLayout, QWidget

from explainer.classroom.queue import ClassQueue
from explainer.classroom.timeline import summary
from explainer.content.texts import LessonTexts
from explainer.diagram.theme import THEMES
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.ui.controller import EngineController
from explainer.ui.lecture import Lecture
from explainer.ui.lesson.dock import LessonDock
from explainer.ui.sampling_panel import SamplingPanel
from explainer.ui.window_host import WindowHost
from explainer.ui_model.room_layout import Place

if TYPE_CHECKING:
    from explainer.ui.queue_view import QueueView

PANEL_SHARE = 0.34  # the presenter panel's share of the screen's height: the illustration keeps the rest


class QueueHost(WindowHost, Protocol):
    """What the queue needs of the window (its presenter panel is a dock of the ``qt_window``)."""

    @property
    def controller(self) -> EngineController: ...
    @property
    def texts(self) -> LessonTexts: ...
    @property
    def theme_name(self) -> str: ...
    @property
    def sampling(self) -> SamplingPanel: ...
    @property
    def lecture(self) -> Lecture: ...

    def show_recorded(self, trace: Trace) -> None: ...
    def private_parent(self) -> QWidget: ...


class QueuePanel(QObject):
    """The queue's places in the window (see the module docstring)."""

    def __init__(self, window: QueueHost, dock: LessonDock) -> None:
        qt_window = window.qt_window
        super().__init__(qt_window)
        self.window, self.dock = window, dock
        self.view: QueueView | None = None
        self.queue: ClassQueue | None = None
        self.dialog: QDialog | None = None  # the request open now (ui/queue_open.py)
        QVBoxLayout(dock.queue_page).setContentsMargins(0, 0, 0, 0)
        self.presenter_dock = QDockWidget(window.texts.app_text("queue", "title"), qt_window)
        self.presenter_dock.setObjectName("class_queue")
        self.presenter_dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.presenter_dock.setWidget(QWidget())
        self.presenter_dock.setTitleBarWidget(QWidget())  # (no title bar: the view's own line says what it is)
        qt_window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.presenter_dock)
        self.presenter_dock.hide()
        window.controller.class_served.connect(self.serve)
        window.lecture.changed.connect(lambda _layout: self._place())
        window.sampling.changed.connect(self._settings_changed)

    def _settings_changed(self) -> None:
        with contextlib.suppress(ExplainerError):  # a half-typed value: the class keeps the last valid ones
            self.window.controller.set_class_settings(self.window.sampling.settings())

    def _made_view(self) -> QueueView:
        if self.view is None:
            from explainer.ui.queue_view import QueueView  # (pyqtgraph: only once class mode starts)

            self.view = QueueView(
                self.window.texts, THEMES[self.window.theme_name], theme_source=lambda: THEMES[self.window.theme_name]
            )
            self.view.redrawn.connect(self._redrawn)
            self.view.open_requested.connect(self.open_request)
        return self.view

    def serve(self, queue: ClassQueue | None) -> None:
        """Class mode started with ``queue`` (None: it stopped; the last queue's lives stay drawn)."""
        self.queue = queue
        if queue is not None:
            self._made_view().watch(queue)
            self._show_tab()
        elif self.view is not None:
            self.view.watch(None)
        self._place()

    def _show_tab(self) -> None:
        """The Queue tab, the Lesson dock widened by its width the first time: the other tabs fit
        the dock's bar without scroll arrows (ui/lesson/tab_bar.py), and so does this one. Where
        the list of requests needs more (its nine columns, on a laptop's narrower dock), the dock
        is widened to show every column whole: the illustration, which scales, gives the room."""
        tabs = self.dock.tabs
        if tabs.indexOf(self.dock.queue_page) >= 0:
            return
        self.dock.show_queue_tab(True)
        extra = tabs.tabBar().tabSizeHint(tabs.indexOf(self.dock.queue_page)).width()
        page = tabs.currentWidget()
        if self.view is not None and page is not None:
            extra = max(extra, self.view.list_width() - page.width())
        if self.dock.isVisible() and not self.dock.isFloating():
            self.window.qt_window.resizeDocks([self.dock], [self.dock.width() + extra], Qt.Orientation.Horizontal)

    def _place(self) -> None:
        """The view in the presenter panel (the room's layout puts the queue on the audience view:
        presenter mode, class mode on) or in the Queue tab."""
        view = self.view
        if view is None:
            return
        presenting = self.window.lecture.layout.queue is Place.AUDIENCE
        home = self.presenter_dock if presenting else self.dock.queue_page
        if presenting:
            if view.parentWidget() is not self.presenter_dock:
                self.presenter_dock.setWidget(view)
            height = int(self.window.qt_window.height() * PANEL_SHARE)
            self.presenter_dock.show()
            self.window.qt_window.resizeDocks([self.presenter_dock], [height], Qt.Orientation.Vertical)
        else:
            self.presenter_dock.hide()
            layout = home.layout()
            if view.parentWidget() is not home and layout is not None:
                if self.presenter_dock.widget() is view:
                    self.presenter_dock.setWidget(QWidget())  # (takes the view back out of the dock)
                layout.addWidget(view)
                view.show()
        view.set_theme(THEMES[self.window.theme_name])
        view.set_wide(presenting)

    def _redrawn(self) -> None:
        """The Request tab's queue row, from the lives just drawn."""
        queue = self.queue or (self.view.queue if self.view is not None else None)
        self.dock.request.show_queue(summary(queue.lives()) if queue is not None else None)

    def open_request(self, number: int) -> None:
        """The instructor's private look at one request (ui/queue_open.py)."""
        queue = self.view.queue if self.view is not None else None
        life = queue.life(number) if queue is not None else None
        if life is None:
            return
        from explainer.ui.queue_open import RequestDialog

        # (over the presenter console when it is up: never on the projector)
        dialog = RequestDialog(life, self.window.texts, self.window.show_recorded, self.window.private_parent())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.open()


def install_queue(window: QueueHost, dock: LessonDock) -> QueuePanel:
    """The queue's places, wired to the window (before the window's layout is restored)."""
    return QueuePanel(window, dock)
