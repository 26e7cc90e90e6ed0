"""The window's helpers against stand-ins for what their Protocols name, without the model and
without the window, as ndv tests its controllers: "Your turn" (YourTurnHost) with a
MagicMock(spec=EngineController) for the worker, and the Model menu (ModelChooser) with a
MagicMock(spec=ModelChooser). What each asks of the window is read back from the stand-in."""

from __future__ import annotations

from dataclasses import dataclass, field
from unittest.mock import MagicMock

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu, QWidget

from explainer.content.assets import load_texts
from explainer.content.texts import LessonTexts
from explainer.engine.trace import Branch, Trace
from explainer.illustration.vocab import Vocabulary
from explainer.inference.events import BranchFinished
from explainer.inference.requests import BranchRequest
from explainer.model.manifest import DEFAULT_MODEL
from explainer.stages import Cursor, Stage
from explainer.ui.compact import CompactControls, CompactHost
from explainer.ui.controller import EngineController
from explainer.ui.model_menu import ModelChooser, ModelMenu
from explainer.ui.stepper import Stepper
from explainer.ui.your_turn import Runs, Which, YourTurnHost
from tests.engine.test_trace import make_trace

TEXTS = load_texts()


@dataclass
class YourTurnStandIn:
    """Only what YourTurnHost names: the run on screen is plain data, the stepper and the
    controller are spec'd mocks, and the status line is a list of what it was told."""

    trace: Trace | None
    position: Cursor | None
    generating: bool = False
    vocabulary: Vocabulary | None = None
    texts: LessonTexts = TEXTS
    stepper: MagicMock = field(default_factory=lambda: MagicMock(spec=Stepper))
    controller: MagicMock = field(default_factory=lambda: MagicMock(spec=EngineController))
    activity: list[str] = field(default_factory=list)
    qt_window: QMainWindow = field(default_factory=QMainWindow)  # (what Runs is a child of)

    def set_activity(self, text: str) -> None:
        self.activity.append(text)

    def word(self, section: str, key: str) -> str:
        return self.texts.app_text(section, key)

    def branch_finished(self, trace: Trace) -> None:
        """What the controller's event stream delivers when a branch is done (the handler Runs
        subscribed to BranchFinished with)."""
        (handler,) = [c.args[1] for c in self.controller.on.call_args_list if c.args[0] is BranchFinished]
        handler(BranchFinished(1, trace))


def a_branch_of(run: Trace, step: int, token_id: int) -> Trace:
    branch = make_trace(len(run.steps))
    branch.branch = Branch(step, run.steps[step].sampling.chosen)
    return branch


def stand_in(trace: Trace | None, position: Cursor | None, generating: bool = False) -> tuple[YourTurnStandIn, Runs]:
    host = YourTurnStandIn(trace, position, generating)
    typed: YourTurnHost = host  # (the stand-in is what the Protocol names)
    return host, Runs(typed)


def test_a_pick_asks_the_worker_for_the_branch_and_shows_it_once_recorded(qtbot):
    run = make_trace(4)
    host, runs = stand_in(trace=run, position=Cursor(1, Stage.SAMPLING))
    assert runs.can_pick() and runs.showing is Which.MODEL
    with qtbot.waitSignal(runs.changed, timeout=1000):
        assert runs.pick(5)
    host.controller.branch.assert_called_once_with(BranchRequest(run, 1, 5))
    assert runs.pending == (1, 5) and not runs.can_pick()  # one road at a time
    assert host.activity == [host.word("your_turn", "running")]
    branch = a_branch_of(run, 1, 5)
    with qtbot.waitSignal(runs.branched, timeout=1000) as branched:
        host.branch_finished(branch)
    assert branched.args == [branch]
    assert runs.pending is None and runs.model_run is run and runs.your_run is branch
    host.stepper.swap.assert_called_once_with(branch, Cursor(1, Stage.SAMPLING))  # opened at the pick
    assert host.activity[-1] == host.word("your_turn", "ready")


@pytest.mark.parametrize(
    "why, with_a_run, position, generating",
    [
        ("the model is still writing", True, Cursor(1, Stage.SAMPLING), True),
        ("not at a sampling stage", True, Cursor(1, Stage.PROBABILITIES), False),
        ("past the run's end", True, Cursor(9, Stage.SAMPLING), False),
        ("no run on screen", False, Cursor(1, Stage.SAMPLING), False),
    ],
)
def test_no_pick_is_made_where_none_can_be(why, with_a_run, position, generating):
    host, runs = stand_in(make_trace(4) if with_a_run else None, position, generating)
    assert not runs.can_pick(), why
    assert not runs.pick(5)
    host.controller.branch.assert_not_called()
    assert runs.pending is None and host.activity == []


def test_a_branch_is_not_picked_from_again():
    run = make_trace(4)
    host, runs = stand_in(trace=a_branch_of(run, 1, 5), position=Cursor(2, Stage.SAMPLING))
    assert not runs.pick(3)
    host.controller.branch.assert_not_called()


def test_switching_runs_replays_them_and_never_runs_the_model(qtbot):
    run = make_trace(4)
    host, runs = stand_in(trace=run, position=Cursor(1, Stage.SAMPLING))
    runs.pick(5)
    branch = a_branch_of(run, 1, 5)
    host.generating = True  # a branch that arrives while the model writes is kept, not shown
    host.branch_finished(branch)
    host.stepper.swap.assert_not_called()
    runs.show(Which.YOURS)  # nor can it be switched to meanwhile
    host.stepper.swap.assert_not_called()
    host.generating = False
    host.position = Cursor(2, Stage.LAYERS)
    runs.show(Which.YOURS)
    host.stepper.swap.assert_called_once_with(branch, Cursor(2, Stage.LAYERS))  # the same place
    assert host.activity[-1] == host.word("your_turn", "showing_yours")
    host.trace = branch
    assert runs.showing is Which.YOURS
    runs.show(Which.MODEL)
    host.stepper.swap.assert_called_with(run, Cursor(2, Stage.LAYERS))
    assert host.controller.branch.call_count == 1  # the one pick; switching ran nothing


def test_a_branch_nobody_waits_for_changes_nothing(qtbot):
    run = make_trace(4)
    host, runs = stand_in(trace=run, position=Cursor(1, Stage.SAMPLING))
    with qtbot.assertNotEmitted(runs.branched):
        host.branch_finished(a_branch_of(run, 1, 5))  # a stale one, or a plain run's
    assert runs.your_run is None and host.activity == []
    host.stepper.swap.assert_not_called()


def test_a_new_run_forgets_the_pair(qtbot):
    run = make_trace(4)
    _, runs = stand_in(trace=run, position=Cursor(1, Stage.SAMPLING))
    runs.pick(5)
    with qtbot.waitSignal(runs.changed, timeout=1000):
        runs.forget()
    assert (runs.model_run, runs.your_run, runs.pending) == (None, None, None)
    with qtbot.assertNotEmitted(runs.changed):
        runs.forget()  # (nothing to forget: no refresh)


# --- the Model menu (ModelChooser) -----------------------------------------------------------


def model_host(current: str) -> MagicMock:
    host = MagicMock(spec=ModelChooser)
    host.word.side_effect = TEXTS.app_text
    host.current_model.return_value = current
    return host


def test_the_model_menu_lists_the_built_models_and_asks_the_host_to_switch(qtbot, fake_built_model):
    window = QMainWindow()
    qtbot.addWidget(window)
    host = model_host(DEFAULT_MODEL)
    open_gguf = QAction("Open model (GGUF)…", window)  # (the action table's, made by the registry)
    menu = ModelMenu(QMenu(window), open_gguf, host)
    assert menu.models == {}  # read when the menu opens, not when the window is made
    menu.refresh()
    action = menu.models[DEFAULT_MODEL]
    assert action.isChecked() and action.isEnabled()
    assert "TINY" in action.text() or DEFAULT_MODEL in action.toolTip()
    action.trigger()
    host.choose_model.assert_called_once_with(DEFAULT_MODEL)
    assert menu.menu.actions()[-1] is open_gguf  # listed last, after the built models
    host.current_model.return_value = "another"
    menu.refresh()  # the one loaded is checked, whichever it is
    assert not menu.models[DEFAULT_MODEL].isChecked()


# --- an export's child process (ExportHost) --------------------------------------------------


def test_an_export_that_fails_tells_the_host_why(qtbot, tmp_path):
    """The real child process (`python -m explainer export`), a host that is only a spec'd mock:
    a folder that is not there fails the export, and the host shows the error, not a success."""
    from explainer.ui.export_process import ExportHost, start_export

    host = MagicMock(spec=ExportHost)
    host.word.side_effect = TEXTS.app_text
    host.theme_name = "light"
    host.qt_window = QMainWindow()  # (the progress dialog's parent)
    qtbot.addWidget(host.qt_window)
    export = start_export(host, make_trace(2), str(tmp_path / "no such folder" / "run.svg"))
    assert export is not None and export.running
    host.set_activity.assert_called_once_with(TEXTS.app_text("window", "exporting_run").format(name="run.svg"))
    qtbot.waitUntil(lambda: not export.running, timeout=60_000)
    host.show_error.assert_called_once()
    failed = TEXTS.app_text("window", "export_failed").split("{")[0]
    assert host.show_error.call_args.args[0].startswith(failed)
    assert not (tmp_path / "no such folder").exists()


# --- folding the controls (CompactHost) -------------------------------------------------------


class CompactStandIn(QMainWindow):
    """Only what CompactHost names: the real controls in a dock of their own, a scene and its
    view; no model, no lesson, no menus."""

    compact: CompactControls  # the helper under test, made by the fixture on this stand-in

    def __init__(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QDockWidget

        from explainer.diagram.scene import LifecycleScene
        from explainer.diagram.view import DiagramView
        from explainer.ui.prompt_panel import PromptPanel

        super().__init__()
        self.texts = TEXTS
        self.scene = LifecycleScene(TEXTS)
        self.view = DiagramView(self.scene)
        self.setCentralWidget(self.view)
        self.controls = PromptPanel(TEXTS)
        self.control_dock = QDockWidget("Controls", self)
        self.control_dock.setWidget(self.controls)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.control_dock)
        self.lesson = QDockWidget("Lesson", self)
        self.lesson.setWidget(QWidget())
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.lesson)
        self.theme_name = "light"
        self.text_scale = 1.0
        self.presenting = False

    @property
    def qt_window(self) -> QMainWindow:
        return self

    def word(self, section: str, key: str) -> str:
        return self.texts.app_text(section, key)


@pytest.fixture
def compact_window(qtbot):
    w = CompactStandIn()
    qtbot.addWidget(w)
    host: CompactHost = w
    w.compact = CompactControls(host, w.lesson, lambda: w.presenting)
    w.resize(1600, 900)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_a_narrow_window_folds_the_controls_into_a_bar_and_a_wide_one_unfolds_them(qtbot, compact_window):
    w = compact_window
    c = w.controls
    assert not w.compact.active and w.control_dock.isVisible()
    with qtbot.waitSignal(w.compact.folded, timeout=2000) as folded:
        w.resize(1366, 768)
    assert folded.args == [True] and w.compact.active
    assert not w.control_dock.isVisible() and w.compact.bar.isVisible()
    for widget in (c.prompt, c.generate_button, c.stop_button):
        assert w.compact.bar.isAncestorOf(widget)
    with qtbot.waitSignal(w.compact.folded, timeout=2000) as unfolded:
        w.lesson.hide()  # the lesson closed: room enough for the dock again
    assert unfolded.args == [False] and w.control_dock.isVisible() and not w.compact.bar.isVisible()
    layout = c.layout()
    order = [layout.indexOf(x) for x in (c.prompt, c.chat, c.generate_button, c.stop_button, c.sampling)]
    assert order == sorted(order) and -1 not in order  # back in their dock, in their order


def test_presenter_mode_folds_nothing(qtbot, compact_window):
    w = compact_window
    w.presenting = True  # its full screen hides and restores the docks itself
    with qtbot.assertNotEmitted(w.compact.folded):
        w.resize(1366, 768)
    assert not w.compact.active
