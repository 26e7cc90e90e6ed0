"""The presenter console wired into the window: where and when it shows, and what feeds it.

With two screens and presenter mode on, the room layout (ui/lecture.py) puts the console on the
laptop's screen; leaving presenter mode, or a projector unplugged, closes it. With one screen
(or mirrored ones) it opens only from View > Presenter console…, and says that the room may see
it. It is fed by the lesson (the tour step, each time the step as shown changes), class mode
(the vote's count, the queue's lives), the lecture (the screens) and a one-second clock of its
own; what the instructor does in it goes back to class mode (approve, decline, moderation on or
off, the blocked words) and the lecture (the projector chosen). The window's stepping actions are
added to the console, so the clicker steps the illustration whichever window has the focus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget

from explainer.content.texts import LessonTexts
from explainer.lesson.tour import tour_view
from explainer.ui.actions import ActionRegistry
from explainer.ui.classroom.mode import ClassMode
from explainer.ui.lecture import Lecture
from explainer.ui.screens import put_on
from explainer.ui.settings import AppSettings
from explainer.ui.window_host import WindowHost
from explainer.ui_model import settings_schema as S
from explainer.ui_model.actions import MenuId
from explainer.ui_model.room_layout import Place, RoomLayout

if TYPE_CHECKING:
    from explainer.ui.lesson.session import LessonSession
    from explainer.ui.presenter_console import PresenterConsole

# the window's commands that keep working from the console: the clicker's and the presenter's
STEPPING = ("next", "prev", "next_token", "play", "blank", "presenter", "leave_presenter", "class_pick")
REFRESH_MS = 100  # the queue's lists redrawn at most this often (a burst of prompts is one redraw)


class ConsoleHost(WindowHost, Protocol):
    """What the console reads of the window: the room's layout, class mode and the lesson that
    feed it, the registry its commands join (and the ``qt_window`` that owns it)."""

    @property
    def texts(self) -> LessonTexts: ...
    @property
    def settings(self) -> AppSettings: ...
    @property
    def lecture(self) -> Lecture: ...
    @property
    def registry(self) -> ActionRegistry: ...
    @property
    def class_mode(self) -> ClassMode: ...
    @property
    def lesson(self) -> LessonSession: ...


class Console(QObject):
    """The console's life in the window (see the module docstring)."""

    def __init__(self, window: ConsoleHost) -> None:
        super().__init__(window.qt_window)
        self.window = window
        registry = window.registry
        self.view: PresenterConsole | None = None
        self.requested = False  # opened from the View menu (one screen: the room may see it)
        self._lives = QTimer(self)
        self._lives.setSingleShot(True)
        self._lives.setInterval(REFRESH_MS)
        self._lives.timeout.connect(self._show_lives)
        mode = window.class_mode
        window.lecture.changed.connect(self.place)
        window.lecture.screens_changed.connect(self._show_screens)
        window.lesson.step_shown.connect(self._show_step)
        mode.panel_changed.connect(self._show_vote)
        mode.changed.connect(lambda _on: self._refresh())
        mode.queue_changed.connect(self._lives.start)
        registry.add("console", self.open)
        self.projector_menu = registry.menu(MenuId.PROJECTOR)
        self.projector_menu.aboutToShow.connect(self._fill_projector_menu)

    # --- when and where ----------------------------------------------------------------------

    def open(self) -> None:
        """View > Presenter console…: the console now, wherever the layout would not show it."""
        self.requested = True
        self._show(self.window.lecture.layout)

    def place(self, layout: RoomLayout) -> None:
        """Shown on the laptop's screen with two screens in presenter mode; otherwise only as asked."""
        if layout.private is Place.CONSOLE:
            self._show(layout)
        elif self.view is not None and self.view.isVisible() and not self.requested:
            self.view.close()
        elif self.view is not None and self.view.isVisible():
            self.view.set_private_warning(True)

    def _show(self, layout: RoomLayout) -> None:
        console = self._made()
        console.set_private_warning(layout.private is not Place.CONSOLE)
        if layout.laptop is not None:
            if not console.isVisible():
                console.restart_clock()
            console.show()
            put_on(console, layout.laptop)
            console.showMaximized()
        else:
            console.show()
        console.raise_()
        self._refresh()

    def _made(self) -> PresenterConsole:
        if self.view is None:
            from explainer.ui.presenter_console import PresenterConsole

            view = self.view = PresenterConsole(self.window.texts, self.window.qt_window)
            view.addActions([self.window.registry[name] for name in STEPPING])
            view.projector_chosen.connect(self.window.lecture.choose_projector)
            view.closed.connect(self._closed)
            m = view.moderation
            m.approve_requested.connect(self._approve)
            m.decline_requested.connect(self._decline)
            m.moderated_changed.connect(self._moderate)
            m.blocked_requested.connect(self._edit_blocked)
        return self.view

    def _closed(self) -> None:
        self.requested = False

    def parent_for_private(self) -> QWidget | None:
        """The console, when it is shown: a student's text opens over it, not over the projector."""
        return self.view if self.view is not None and self.view.isVisible() else None

    def _fill_projector_menu(self) -> None:
        """View > Projector: each screen, the one presenter mode fills ticked (one screen: said)."""
        menu, lecture, texts = self.projector_menu, self.window.lecture, self.window.texts
        menu.clear()
        screens, chosen = lecture.screens(), lecture.projector()
        if len(screens) < 2:
            menu.addAction(texts.app_text("console", "projector_one")).setEnabled(False)
            return
        for s in screens:
            label = texts.app_text("console", "screen").format(name=s.name, width=s.width, height=s.height)
            action = menu.addAction(label)
            action.setCheckable(True)
            action.setChecked(chosen is not None and s.name == chosen.name)
            action.triggered.connect(lambda _c=False, name=s.name: lecture.choose_projector(name))

    # --- what it shows ------------------------------------------------------------------------

    def _refresh(self) -> None:
        if self.view is None or not self.view.isVisible():
            return
        self.view.moderation.set_moderated(self.window.class_mode.moderated)
        self._show_screens()
        self._show_step()
        self._show_vote()
        self._show_lives()

    def _show_screens(self) -> None:
        if self.view is not None:
            lecture = self.window.lecture
            self.view.show_screens(lecture.screens(), lecture.projector())

    def _show_step(self) -> None:
        if self.view is None or not self.view.isVisible():
            return
        session = self.window.lesson
        view = session.view
        texts = self.window.texts
        following = None
        if view is not None and not view.last:
            following = tour_view(texts, session.state.tour.next(texts.tour), session.fields)
        self.view.show_step(view, following)

    def _show_vote(self) -> None:
        if self.view is not None and self.view.isVisible():
            mode = self.window.class_mode
            self.view.show_vote(mode.panel.count_text(), mode.active)

    def _show_lives(self) -> None:
        if self.view is not None and self.view.isVisible():
            queue = self.window.class_mode.queue
            self.view.moderation.show_lives(queue.lives() if queue is not None else ())

    # --- what the instructor does ---------------------------------------------------------------

    def _approve(self, number: int) -> None:
        queue = self.window.class_mode.queue
        if queue is not None:
            queue.approve(number)

    def _decline(self, number: int) -> None:
        queue = self.window.class_mode.queue
        if queue is not None:
            queue.decline(number)

    def _moderate(self, on: bool) -> None:
        self.window.class_mode.set_moderated(on)
        self.window.settings.set(S.CLASS_MODERATED, on)

    def _edit_blocked(self) -> None:
        from explainer.ui.blocked_words import edit_blocked_words

        w = self.window
        edit_blocked_words(self.view or w.qt_window, w.texts, w.settings, w.class_mode.set_blocked)
