"""Class mode in the window: the server, the class's queue, the projected panel and the rounds.

:class:`ClassMode` owns the :class:`~explainer.classroom.queue.ClassQueue`, the
:class:`~explainer.classroom.server.ClassServer` and the adapter that brings the server's events
into the GUI thread. :meth:`ClassMode.start` binds the server (it blocks only until the socket is
bound, at most the server's START_TIMEOUT_S) and hands the queue to the worker (``controller.serve_class``);
:meth:`ClassMode.stop` closes the server and every connection and takes the queue back. Quitting
the app stops it too.

While it runs, each frame the stepper shows goes through the class's rounds
(:mod:`explainer.classroom.rounds`): a pass's layers stage offers its round to the phones, the next
press reveals it, and a revealed pass shows its reveal again. After a reveal, :meth:`class_pick`
makes the class's most-voted token the pick of a Your-turn branch ("picked by the class").

The panel lives in a dock at the window's right ("class_panel_dock"), shown while class mode is
on, in presenter mode as one of the presenter layout's panels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, assert_never

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QDialog, QDockWidget, QWidget

from explainer.classroom.blocked import BlockedWords
from explainer.classroom.events import (
    Listening,
    PhonesChanged,
    RoundResult,
    ServerEvent,
    StartFailed,
    Stopped,
    VotesChanged,
)
from explainer.classroom.queue import ClassQueue
from explainer.classroom.room import Limits
from explainer.classroom.rounds import ClassRounds, Close, Offer, Reveal, Show, favourite_of, offer_of, probs_of
from explainer.content.texts import LessonTexts
from explainer.diagram.scene import LifecycleScene
from explainer.engine.trace import Trace
from explainer.illustration.vocab import TokenNames
from explainer.lesson.game import Round, Rounds
from explainer.stages import Cursor, Predictor, Stage
from explainer.ui.actions import ActionRegistry
from explainer.ui.class_serving import DEFAULT_CLASS_BATCH
from explainer.ui.classroom.adapter import EventAdapter
from explainer.ui.classroom.panel import ClassPanel, PanelState
from explainer.ui.controller import EngineController
from explainer.ui.lecture import Lecture
from explainer.ui.settings import AppSettings
from explainer.ui.stepper import Stepper
from explainer.ui.window_host import WindowHost
from explainer.ui.your_turn import Runs
from explainer.ui_model.room_layout import Place

if TYPE_CHECKING:
    from explainer.classroom.server import (
        ClassServer,  # (aiohttp: imported when class mode starts, not with the window)
    )

PANEL_SHARE = 0.3  # the panel's share of the window's width: the illustration keeps the rest
WINDOW_SHARE = 0.45  # in the normal window, its share of the height of the column it shares with the controls


class ClassHost(WindowHost, Protocol):
    """What class mode reads of the window: the run on screen, the room's layout its panel
    follows (a dock of the ``qt_window``), the registry its commands join, the settings that
    remember the instructor's choices."""

    @property
    def texts(self) -> LessonTexts: ...
    @property
    def settings(self) -> AppSettings: ...
    @property
    def registry(self) -> ActionRegistry: ...
    @property
    def stepper(self) -> Stepper: ...
    @property
    def scene(self) -> LifecycleScene: ...
    @property
    def controller(self) -> EngineController: ...
    @property
    def lecture(self) -> Lecture: ...
    @property
    def control_dock(self) -> QDockWidget: ...
    @property
    def runs(self) -> Runs: ...
    @property
    def trace(self) -> Trace | None: ...
    @property
    def generating(self) -> bool: ...

    def set_activity(self, text: str) -> None: ...
    def word(self, section: str, key: str) -> str: ...


class ClassMode(QObject):
    """Class mode's state and its parts (see the module docstring)."""

    changed = Signal(bool)  # on / off
    panel_changed = Signal()  # the panel shows something new (tests wait on it)
    # a request of the class's queue changed state (arrived, held, approved, ran...): emitted in whichever
    # thread changed it, so a receiver in the GUI thread hears it queued, never blocking that thread
    queue_changed = Signal()
    round_revealed = Signal(object)  # (trace, step, round, result) at each reveal, shown again too

    def __init__(
        self,
        window: ClassHost,
        names: Callable[[], TokenNames],
        *,
        batch: int = DEFAULT_CLASS_BATCH,
        moderated: bool = True,
        blocked: BlockedWords | None = None,
        address: tuple[str, int] | None = None,
    ) -> None:
        """``batch``, ``moderated``, ``blocked`` and ``address``: as the instructor last chose
        (ui/classroom/install.py reads them from the settings)."""
        super().__init__(window.qt_window)
        self.window, self.names = window, names
        self.adapter = EventAdapter(self)
        self.adapter.arrived.connect(self._on_event)
        self.queue: ClassQueue | None = None
        self.server: ClassServer | None = None
        self.listening: Listening | None = None
        self.rounds = ClassRounds()
        self.batch = batch  # class requests decoded together (the start dialog's)
        self.moderated = moderated  # each prompt held for the instructor's approval (the start dialog's)
        self.blocked = blocked or BlockedWords()  # the instructor's blocked words (ui/blocked_words.py)
        self.last_address = address  # where it last listened: the start dialog offers it
        self._memo = Rounds()  # Predict's rounds of the run on screen: the same four, the same order
        self.last: tuple[Trace, int, Round, RoundResult] | None = None  # the reveal the class may pick from
        self.panel = ClassPanel(window.texts, lambda: window.scene.theme)
        self.dock = QDockWidget(window.word("class", "mode"), window.qt_window)
        self.dock.setObjectName("class_panel_dock")
        self.dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.dock.setWidget(self.panel)
        self.dock.setTitleBarWidget(QWidget())  # (the panel says what it is, in type the hall reads)
        window.qt_window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.hide()
        st = window.stepper
        st.frame_shown.connect(self.on_frame_shown)
        st.changed.connect(self._on_stepper_changed)
        st.swapped.connect(lambda *_a: self._new_run())
        window.lecture.changed.connect(lambda _layout: self.place())
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)
        self._had_trace = False
        self.dialog: QDialog | None = None  # the start dialog while it is open

    @property
    def active(self) -> bool:
        return self.server is not None

    # --- starting and stopping ----------------------------------------------------------------

    def start(self, bind: str, port: int, limits: Limits | None = None) -> Listening | StartFailed:
        """Serve the class page on ``bind``:``port`` (0: any free port). ``limits``: the room's
        (the defaults suit a lecture hall; `bench --class`, whose phones share one address, raises
        the per-address ones)."""
        self.stop()
        queue = ClassQueue(moderated=self.moderated, blocked=self.blocked)
        # (a token streamed changes no list the app shows by its lives: only a request's state does)
        queue.listen(lambda change: self.queue_changed.emit() if change.token is None else None)
        from explainer.classroom.server import ClassServer  # (aiohttp: not the first window's import)

        server = ClassServer(queue, self.adapter.on_event, limits=limits)
        outcome = server.start(bind, port)
        if isinstance(outcome, StartFailed):
            queue.close()
            return outcome
        self.queue, self.server, self.listening = queue, server, outcome
        self.last_address = (bind, port)
        self._serve(queue)
        self.window.scene.set_answer_rule(Predictor.CLASS, self.vote_open_at)  # the projector keeps the answer back
        self.panel.show_state(PanelState(url=outcome.url, room=outcome.room))
        self.place()
        self.window.set_activity(self.window.word("class", "started").format(url=outcome.url))
        self.changed.emit(True)
        if self.window.trace is not None and self.window.stepper.cursor is not None:
            self.on_frame_shown(self.window.stepper.cursor)  # a pass's layers on screen already: its round
        return outcome

    def stop(self) -> None:
        """Close the server and every connection; the class's queue is dropped. Idempotent."""
        server, queue = self.server, self.queue
        if server is None:
            return
        self.server, self.queue, self.listening = None, None, None
        self._serve(None)
        self.window.scene.set_answer_rule(Predictor.CLASS, None)
        server.stop()
        if queue is not None:
            queue.close()
        self.rounds = ClassRounds()
        self.last = None
        self.panel.show_state(PanelState())
        self.place()
        self.window.set_activity(self.window.word("class", "stopped"))
        self.changed.emit(False)

    def ask_to_start(self, chosen: Callable[[int, bool], None]) -> QDialog:
        """The start dialog (View > Class mode), made with the choices it offers: the batch, the
        moderation and the last address; Start there starts class mode. ``chosen``: told the
        batch and the moderation chosen, once they are this mode's. The caller opens it."""
        from explainer.ui.classroom.start_dialog import StartDialog

        def choose(batch: int, moderated: bool) -> None:
            self.batch = batch
            self.set_moderated(moderated)
            chosen(batch, moderated)

        self.dialog = StartDialog(
            self.window.texts,
            self.start,
            parent=self.window.qt_window,
            batch=self.batch,
            on_chosen=choose,
            moderated=self.moderated,
            address=self.last_address,
        )
        return self.dialog

    def set_moderated(self, on: bool) -> None:
        """Hold each prompt for approval, or not (turned off, the held ones join the queue)."""
        self.moderated = on
        if self.queue is not None:
            self.queue.set_moderated(on)

    def set_blocked(self, blocked: BlockedWords) -> None:
        self.blocked = blocked
        if self.queue is not None:
            self.queue.set_blocked(blocked)

    def _serve(self, queue: ClassQueue | None) -> None:
        self.window.controller.serve_class(queue, self.batch)  # (the worker's side of the queue)

    def place(self) -> None:
        """The panel where the room layout puts it (ui/lecture.py): on the audience view in
        presenter mode, beside the illustration at the left of the normal window (under the
        controls: the Lesson dock fills the right one's height, and a second dock there was left
        with no room at all), hidden while class mode is off."""
        where = self.window.lecture.layout.class_panel
        if where is Place.HIDDEN or not self.active:
            self.dock.hide()
            return
        w = self.window.qt_window
        if where is Place.AUDIENCE:
            if w.dockWidgetArea(self.dock) is not Qt.DockWidgetArea.RightDockWidgetArea:
                w.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
            self.dock.show()
            w.resizeDocks([self.dock], [round(w.width() * PANEL_SHARE)], Qt.Orientation.Horizontal)
        else:
            controls = self.window.control_dock
            self.dock.show()
            if controls.isVisible() and w.dockWidgetArea(controls) is Qt.DockWidgetArea.LeftDockWidgetArea:
                w.splitDockWidget(controls, self.dock, Qt.Orientation.Vertical)
            else:
                w.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)
            # given its height once the layout has it (a dock split in without one was never laid
            # out at all, and a height given in the same turn as the split is not kept)
            QTimer.singleShot(0, self._give_height)
        self.panel.update()

    def _give_height(self) -> None:
        w = self.window.qt_window
        if self.dock.isVisible() and w.dockWidgetArea(self.dock) is Qt.DockWidgetArea.LeftDockWidgetArea:
            w.resizeDocks([self.dock], [round(w.height() * WINDOW_SHARE)], Qt.Orientation.Vertical)

    # --- the rounds -------------------------------------------------------------------------------

    def vote_open_at(self, trace: Trace, cursor: Cursor) -> bool:
        """Whether the class votes on the pass under ``cursor``: then nothing on the projected
        screen may name the favourite (the scene asks before it draws each frame, so the answer
        is held back from the vote's first picture, before the round reaches the phones). As
        :meth:`ClassRounds.at` decides: a pass's layers stage, not revealed yet in this run,
        with a round to offer."""
        if self.server is None or trace is not self.window.trace or cursor.stage is not Stage.LAYERS:
            return False
        if not 0 <= cursor.step < len(trace.steps) or self.rounds.result_at(cursor.step) is not None:
            return False
        return self._memo.at(self.window.texts, trace, cursor.step, self.names()) is not None

    def _on_stepper_changed(self) -> None:
        has = self.window.trace is not None
        if self._had_trace and not has:  # a new run began: its passes are voted afresh
            self._new_run()
        self._had_trace = has

    def _new_run(self) -> None:
        if self.rounds.open is not None and self.server is not None:
            self.server.withdraw_round()
        self.rounds.new_run()
        self._memo.clear()
        self.last = None  # (the class can no longer pick from a run that is gone)
        if self.active:
            self.panel.change(offer=None, reveal=None)  # the last run's reveal goes with it

    def on_frame_shown(self, cursor: Cursor) -> None:
        trace, server = self.window.trace, self.server
        if server is None or trace is None or not 0 <= cursor.step < len(trace.steps):
            return
        rnd = self._memo.at(self.window.texts, trace, cursor.step, self.names())
        for move in self.rounds.at(cursor, rnd):
            match move:
                case Close():
                    server.withdraw_round()
                    self.panel.change(offer=None)
                case Offer(_step, _round, offer):
                    server.offer(offer)
                    self.panel.change(offer=offer, voted=0, reveal=None)
                case Reveal(step, round_, offer):
                    result = server.result(offer.round_id, probs_of(round_), favourite_of(round_))
                    server.reveal(result)
                    self.rounds.revealed(step, result)
                    self._revealed(trace, step, round_, offer.round_id, result)
                case Show(step, round_, result):
                    shown = self.panel.state.reveal
                    if shown is None or shown[1].round_id != result.round_id:  # (once per return, not per frame)
                        server.reveal(result)  # the phones show that pass's reveal again, each its own vote
                    self._revealed(trace, step, round_, result.round_id, result)
                case _:
                    assert_never(move)
        self.panel_changed.emit()

    def _revealed(self, trace: Trace, step: int, rnd: Round, round_id: int, result: RoundResult) -> None:
        self.last = (trace, step, rnd, result)
        self.round_revealed.emit(self.last)  # (the class's results: ui/classroom/results_export.py)
        self.panel.change(offer=None, reveal=(offer_of(rnd, round_id), result))

    def _on_event(self, event: ServerEvent) -> None:
        if self.server is None:
            return
        match event:
            case PhonesChanged(joined):
                self.panel.change(phones=joined)
            case VotesChanged(round_id, voted, joined):
                offer = self.panel.state.offer
                if offer is not None and offer.round_id == round_id:
                    self.panel.change(voted=voted, joined=joined)
            case Listening() | StartFailed() | Stopped():
                return  # (said by start() and stop() themselves)
            case _:
                assert_never(event)
        self.panel_changed.emit()

    # --- the class is the sampler -------------------------------------------------------------

    def can_pick(self) -> bool:
        return self.last is not None and self.last[3].class_pick is not None and not self.window.generating

    def class_pick(self) -> bool:
        """The class's most-voted token of the last reveal becomes the pick: the model continues
        from it as a Your-turn branch labelled "picked by the class"; False when there is none."""
        if not self.can_pick():
            self.window.set_activity(self.window.word("class", "nothing_to_pick"))
            return False
        assert self.last is not None
        trace, step, rnd, result = self.last
        assert result.class_pick is not None
        if rnd.candidates[result.class_pick].id == trace.steps[step].sampling.chosen.id:
            # the class chose what the model chose: a branch would be the same run again
            self.window.set_activity(self.window.word("class", "same_pick"))
            return False
        runs = self.window.runs
        model_run = runs.model_run if trace.branch is not None and runs.model_run is not None else trace
        shown = self.window.trace
        if shown is not None and shown.branch is None and len(shown.steps) >= len(model_run.steps):
            model_run = shown  # (the run's last snapshot: the same run, recorded to its end)
        assert result.class_pick is not None
        return runs.pick_for_class(model_run, step, rnd.candidates[result.class_pick].id)
