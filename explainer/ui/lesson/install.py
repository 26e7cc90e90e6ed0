"""Putting the lesson into the main window: the dock, its keys and menu entries, the wiring.

The one function the window calls (``MainWindow._build_lesson``). Everything the lesson needs
from the window is connected here, to signals the window already has: frames shown, the run
finished, the model loaded, the sampling fields edited, the theme changed (a palette change).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QDockWidget, QGraphicsView, QMainWindow, QPlainTextEdit, QPushButton, QWidget

from explainer.content.texts import ConditionKind
from explainer.diagram.scene import LifecycleScene
from explainer.inference.events import LoadedModel, ModelReady
from explainer.stages import Predictor
from explainer.ui.actions import ActionRegistry
from explainer.ui.announce import announce
from explainer.ui.controller import EngineController
from explainer.ui.focus_areas import first_control, takes_focus
from explainer.ui.lesson.dock import DOCK_WIDTH, LessonDock
from explainer.ui.lesson.pointer import TourPointer, scroll_into_view
from explainer.ui.lesson.projector_note import ProjectorNote
from explainer.ui.lesson.session import LessonHost, LessonSession
from explainer.ui.lesson.show_me import POINTED_SECTIONS, Section
from explainer.ui.next_turn import NextTurn
from explainer.ui.sampling_panel import SamplingPanel
from explainer.ui.window_host import WindowHost
from explainer.ui.your_turn import Runs, Which


class LessonInstallHost(LessonHost, WindowHost, Protocol):
    """What putting the lesson in needs beyond what the session reads: the controls a tour step
    points at, the scene it outlines, the signals it listens to, the window's actions by id (and
    its ``qt_window``, which the dock joins)."""

    @property
    def scene(self) -> LifecycleScene: ...
    @property
    def prompt(self) -> QPlainTextEdit: ...
    @property
    def generate_button(self) -> QPushButton: ...
    @property
    def sampling(self) -> SamplingPanel: ...
    @property
    def control_dock(self) -> QDockWidget: ...
    @property
    def controller(self) -> EngineController: ...
    @property
    def registry(self) -> ActionRegistry: ...
    @property
    def view(self) -> QGraphicsView: ...
    @property
    def runs(self) -> Runs: ...

    def word(self, section: str, key: str) -> str: ...


class _ThemeWatch(QObject):
    """The window's palette changes with its theme: recolour what the lesson paints itself. A
    child of the window, which keeps it (no reference of ours is needed)."""

    def __init__(self, window: QMainWindow, scene: LifecycleScene, session: LessonSession) -> None:
        super().__init__(window)
        self.window, self.scene, self.session = window, scene, session
        window.installEventFilter(self)
        self.apply()

    def apply(self) -> None:
        theme = self.scene.theme
        self.session.dock.whatif.set_theme(theme)
        self.session.pointer.refresh()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.window and event.type() == QEvent.Type.PaletteChange:
            self.apply()
        return False


def _reveal(window: LessonInstallHost, dock: LessonDock, controls: dict[str, QWidget], name: str) -> None:
    """Make a control the tour points at visible (its dock shown, scrolled into view). A control
    the window has moved out of its dock (the folded bar of a narrow window, ui/compact.py)
    leaves the dock as it is: showing it would bring back an empty dock beside the bar. A tab of
    the lesson (the request's life, the sizes) is opened."""
    if name in POINTED_SECTIONS:
        dock.open_section(Section(name))
        return
    holder = dock if name == "lesson" else window.control_dock
    if holder is dock or holder.isAncestorOf(controls[name]):
        holder.show()
        holder.raise_()
    scroll_into_view(controls[name])


def install_lesson(window: LessonInstallHost, dock: LessonDock) -> LessonSession:
    """Put the lesson into ``window``: its dock, its actions and menu entries, its wiring.
    ``dock``: the Lesson dock, made already (the window builds it in a turn of its own)."""
    texts = window.texts
    ui = texts.lesson.strings["ui"]
    qt_window = window.qt_window
    qt_window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    qt_window.resizeDocks([dock], [DOCK_WIDTH], Qt.Orientation.Horizontal)
    controls: dict[str, QWidget] = {
        "prompt": window.prompt,
        "generate": window.generate_button,
        "sampling": window.sampling,
        "lesson": dock.splitter,
        **{section.value: dock.pages[section] for section in POINTED_SECTIONS},
    }
    pointer = TourPointer(
        window.scene,
        {name: _getter(w) for name, w in controls.items()},
        lambda name: _reveal(window, dock, controls, name),
        lambda: QColor(window.scene.theme.accent),
    )
    session = LessonSession(window, dock, pointer, ProjectorNote(window.view, ui["presenter_answer"]))

    # keys and menu entries (their keys and places: explainer/ui_model/actions.py)
    toggle = dock.toggleViewAction()
    window.registry.adopt("lesson", toggle)
    toggle.triggered.connect(lambda shown: _say_shown(qt_window, dock, shown))  # (F1, or the menu)
    window.registry.add("tour_next", session.next)
    window.registry.add("tour_back", session.back)
    window.registry.add("go_to_task", lambda: focus_task(session))

    _connect_reports(window, dock, session)
    _connect_your_turn(window, dock, session)
    dock.predict.send_focus_after_pick(lambda: _after_pick(session, window))
    dock.whatif.send_focus_after_unbind(lambda: window.view)
    _ThemeWatch(qt_window, window.scene, session)  # (a child of the window: it lives as long)
    window.lecture.changed.connect(lambda _layout: session.show_note())  # (presenter mode on or off)
    return session


def _connect_reports(window: LessonInstallHost, dock: LessonDock, session: LessonSession) -> None:
    """What the window reports, to the session: frames shown, runs, the model, terms clicked
    and every setting the learner changes."""
    st = window.stepper
    st.frame_shown.connect(session.frames.later)  # the game's question and buttons after the diagram's
    st.finished.connect(session.on_run_finished)
    st.changed.connect(session.on_changed)
    # an open guess: nothing drawn names the answer
    window.scene.set_answer_rule(Predictor.LEARNER, session.answer_open)
    session.answer_changed.connect(window.scene.answer_changed)
    # in an event-loop turn of its own: rebuilding the questions and the scale for the new model,
    # with the window's own work in the same turn, made the model's arrival a stall
    # (a timer's turn, ui/next_turn.py: a zero-delay call was handled in the same pass)
    arrivals: NextTurn[LoadedModel] = NextTurn(lambda model: _model_ready(session, model), session)
    window.controller.on(ModelReady, lambda event: arrivals.later(event.model))
    window.scene.term_activated.connect(  # (a term clicked in presenter mode waits in the hidden dock)
        lambda term: dock.open_glossary(term, show=session.in_window())
    )
    sampling = window.sampling
    sampling.greedy.toggled.connect(lambda _on: session.on_setting("greedy"))
    for name, field in sampling.fields().items():
        field.textEdited.connect(lambda _text, n=name: session.on_setting(n))
    window.prompt.textChanged.connect(lambda: session.on_setting("prompt"))


def _connect_your_turn(window: LessonInstallHost, dock: LessonDock, session: LessonSession) -> None:
    """ "Your turn": the picker and the endings, and the tour's step that asks for a pick."""
    st = window.stepper
    runs, your_turn = window.runs, dock.your_turn

    def show_your_turn() -> None:
        your_turn.update_for(runs, window.trace, window.position, session.names())

    your_turn.pick_requested.connect(runs.pick)
    your_turn.run_chosen.connect(lambda which: runs.show(Which(which)))
    runs.changed.connect(show_your_turn)
    runs.branched.connect(session.on_branched)
    st.frame_shown.connect(lambda _cursor: show_your_turn())
    st.finished.connect(lambda _trace: show_your_turn())  # (a run ending at a sampling stage can be picked from)
    st.changed.connect(lambda: show_your_turn() if window.trace is None else None)
    st.swapped.connect(session.on_run_swapped)
    show_your_turn()


def _after_pick(session: LessonSession, window: LessonInstallHost) -> QWidget | None:
    """Where the focus goes when a Predict pick takes the options away: the tour's Next when the
    pick did the step's task (what the learner does next), else the illustration, which steps
    on to the chart the guess is checked against."""
    tour, next_button = session.state.tour, session.dock.tour.next_button
    step = tour.step(session.tour)
    done = step is not None and step.done.kind is ConditionKind.GAME and tour.can_advance(session.tour)
    return next_button if done and takes_focus(next_button) else window.view


def task_control(session: LessonSession, in_dock: bool = False) -> QWidget | None:
    """The control the current task is done with: the tour's Next once the task is done (or is
    "Press Next"), else what the tour step points at (the prompt, Generate, a tab of the
    lesson), else the first control of the lesson's open tab (a question's answer, the pick, a
    slider; the prompt when the question is about a run not made yet), else the tour's own
    buttons. ``in_dock``: only a control of the lesson dock (F6 into the lesson)."""
    dock, pointer = session.dock, session.pointer
    pointed = pointer.widget()
    if pointed is not None and in_dock and not dock.isAncestorOf(pointed):
        pointed = None
    view = session.view
    if view is not None and view.complete and takes_focus(dock.tour.next_button):
        return dock.tour.next_button  # done (an answered question's options are not the task any more)
    if pointed is dock.splitter:
        pointed = None  # the whole lesson: its open tab holds the task (a question's answer)
    for area in (pointed, dock.tabs.currentWidget(), dock.tour):
        if area is dock.questions and dock.questions.card is not None:
            card = dock.questions.card
            if not card.question.available and not in_dock:  # about a run there is none of yet:
                prompt = pointer.controls["prompt"]()  # the task starts at the prompt, then Generate
                if takes_focus(prompt):
                    return prompt
            area = card  # the question's own answer, not the quiz's Previous / Next
        if area is not None and area.isVisible():
            found = first_control(area)
            if found is not None:
                return found
    return None


def focus_task(session: LessonSession) -> None:
    """Ctrl+J: the focus on the current task's control, the lesson shown if it was closed
    (not in presenter mode: there the dock stays hidden)."""
    dock = session.dock
    if not session.in_window():  # (presenter mode: the dock stays hidden)
        return
    if not dock.isVisible():
        dock.show()
        dock.raise_()
    view = session.view
    if view is None or not view.complete:
        session.open_task(arriving=False)  # (a step the app reopened at has not opened its section)
    target = task_control(session)
    if target is not None:
        scroll_into_view(target)
        target.setFocus(Qt.FocusReason.ShortcutFocusReason)


def _say_shown(window: QMainWindow, dock: LessonDock, shown: bool) -> None:
    """F1 shows or hides the lesson: said, since nothing under the focus changes (shown, with
    where the tour is)."""
    word = dock.texts.app_text
    if not shown:
        announce(window, word("access", "lesson_hidden"), channel=dock)
        return
    where = dock.tour.progress.text() or dock.tour.chapter.text()
    announce(window, word("access", "lesson_shown").format(where=where), channel=dock)


def _getter(widget: QWidget) -> Callable[[], QWidget]:
    return lambda: widget


def _model_ready(session: LessonSession, model: LoadedModel) -> None:
    session.on_model_ready(model.info)
