"""The window's helpers work against what their Protocol names, not against MainWindow: each is
tried here with a small stand-in window, the way a new helper can be tested without the app."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGraphicsView, QMainWindow, QWidget

from explainer.content.assets import load_texts
from explainer.content.texts import TourScript
from explainer.diagram.scene import LifecycleScene
from explainer.engine.trace import Trace
from explainer.illustration.vocab import Vocabulary
from explainer.lesson.state import LessonState
from explainer.lesson.tour import TourState
from explainer.stages import Cursor
from explainer.ui.presenter import PresenterMode
from explainer.ui.run_files import RunFiles
from explainer.ui.stepper import Stepper


class LessonStandIn:
    """What Resumable names: the tour's state a file saves, and the saved states resumed at."""

    def __init__(self, tour: TourScript) -> None:
        self.state = LessonState()
        self.tour = tour
        self.resumed: list[TourState] = []

    def resume_at(self, state: TourState) -> None:
        self.resumed.append(state)


class StandIn(QMainWindow):
    """Only what PresenterHost and FilesHost name; everything a helper tells it is recorded."""

    presenter_changed = Signal(bool)

    def __init__(self) -> None:
        super().__init__()
        self.texts = load_texts()
        self.theme_choice = "light"
        self.theme_name = "light"
        self.scene = LifecycleScene(self.texts)
        self.view = QGraphicsView(self.scene)
        self.transport = QWidget(self)
        self.answer_view = QWidget(self)
        self.setCentralWidget(self.view)
        self.themes: list[tuple[str, bool]] = []
        self.errors: list[str] = []
        self.shown: list[object] = []
        self.trace: Trace | None = None
        self.position: Cursor | None = None
        self.generating = False
        self.vocabulary: Vocabulary | None = None
        self.stepper = Stepper(self.scene, self)
        self.lesson = LessonStandIn(self.texts.tour)

    @property
    def qt_window(self) -> QMainWindow:
        return self

    def apply_theme(self, choice: str, remember: bool = True) -> None:
        self.themes.append((choice, remember))
        if remember:
            self.theme_choice = choice

    def word(self, section: str, key: str) -> str:
        return self.texts.app_text(section, key)

    def show_error(self, message: str, hint: str = "") -> None:
        self.errors.append(message)

    def show_recorded(self, trace: object) -> None:
        self.shown.append(trace)

    def remember_file(self, path: str) -> None:
        self.shown.append(path)

    def set_activity(self, text: str) -> None:
        pass


def test_presenter_mode_needs_only_its_host(qtbot):
    w = StandIn()
    qtbot.addWidget(w)
    w.show()
    changes: list[bool] = []
    w.presenter_changed.connect(changes.append)
    mode = PresenterMode(w)
    mode.enter()
    assert w.themes[-1] == ("projector", False) and w.scene.spotlight and not w.transport.isVisible()
    assert w.menuBar().isHidden() and w.isFullScreen() and not w.answer_view.isVisible()
    mode.leave()
    assert w.themes[-1] == ("light", True) and not w.scene.spotlight and w.transport.isVisible()
    assert w.answer_view.isVisible()
    assert changes == [True, False] and not w.isFullScreen()


def test_a_file_that_is_not_a_run_changes_nothing(qtbot, tmp_path):
    w = StandIn()
    qtbot.addWidget(w)
    bad = tmp_path / "notes.trace"
    bad.write_text("not a recorded run", encoding="utf-8")
    files = RunFiles(w)
    files.open_trace(str(bad))
    qtbot.waitUntil(lambda: not files.reading)
    assert len(w.errors) == 1 and w.shown == []
    assert w.errors[0].startswith(w.word("window", "open_failed_trace").split("{")[0])
