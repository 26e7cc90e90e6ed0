"""The parts the main window delegates to (ui/generation.py, ui/model_events.py), tried on a small
window of the real parts they read and tell (the controls, the banner, the build panel, the status
line, the scene, the stepper, the folded bar): no model, no worker. What the user would see is
read back from those widgets. The model's side (the controller, the runs) and the stage announcer
are autospec'd from their classes, so a call they do not have, or with the wrong arguments, fails;
and mypy holds the window to the Protocols the helpers name."""

from __future__ import annotations

from unittest.mock import create_autospec

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QVBoxLayout, QWidget

from explainer.content.assets import load_texts
from explainer.diagram.scene import LifecycleScene
from explainer.diagram.view import DiagramView
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Trace
from explainer.illustration.vocab import Vocabulary
from explainer.inference.events import Activity
from explainer.inference.requests import GenerationRequest
from explainer.stages import Cursor
from explainer.ui.actions import ActionRegistry
from explainer.ui.build_dialog import BuildPanel, ErrorBanner
from explainer.ui.compact import CompactControls
from explainer.ui.controller import EngineController
from explainer.ui.generation import Generation
from explainer.ui.model_events import ModelEvents
from explainer.ui.prompt_panel import PromptPanel
from explainer.ui.settings import AppSettings
from explainer.ui.stage_announcer import StageAnnouncer
from explainer.ui.status import StatusLine
from explainer.ui.stepper import Stepper
from explainer.ui.your_turn import Runs
from tests.support.readback import caption_text

TEXTS = load_texts()
LOADED = "smollm2-135m-instruct"


class HelperWindow(QMainWindow):
    """What GenerationHost, ModelEventsHost and CompactHost name, made of the window's real parts."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = TEXTS
        self.theme_name = "light"
        self.text_scale = 1.0
        self.vocabulary: Vocabulary | None = None
        self.scene = LifecycleScene(TEXTS)
        self.view = DiagramView(self.scene)
        self.banner = ErrorBanner(TEXTS)
        self.build_panel = BuildPanel(TEXTS)
        central = QWidget()
        column = QVBoxLayout(central)
        for part in (self.banner, self.build_panel, self.view):
            column.addWidget(part)
        self.setCentralWidget(central)
        self.controls = PromptPanel(TEXTS)
        self.control_dock = QDockWidget("Controls", self)
        self.control_dock.setWidget(self.controls)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.control_dock)
        self.lesson_dock = QDockWidget("Lesson", self)
        self.lesson_dock.setWidget(QWidget())
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.lesson_dock)
        self.compact = CompactControls(self, self.lesson_dock, lambda: False)
        self.status = StatusLine(self.statusBar(), TEXTS)
        self.stepper = Stepper(self.scene, self)
        self.settings = AppSettings()  # (a folder of the test's own: tests/conftest.py)
        self.registry = ActionRegistry(self, TEXTS, self.settings)
        self.controller = create_autospec(EngineController, instance=True)
        self.controller.model_name = LOADED
        self.runs = create_autospec(Runs, instance=True)
        self.announcer = create_autospec(StageAnnouncer, instance=True)
        self.run = Generation(self, self.announcer)

    @property
    def qt_window(self) -> QMainWindow:
        return self

    @property
    def trace(self) -> Trace | None:
        return self.stepper.trace

    @property
    def position(self) -> Cursor | None:
        return self.stepper.cursor

    @property
    def generating(self) -> bool:
        return self.stepper.generating

    def word(self, section: str, key: str) -> str:
        return self.texts.app_text(section, key)

    def set_activity(self, text: str) -> None:
        self.status.activity.setText(text)

    def show_error(self, message: str, hint: str = "") -> None:
        self.banner.show_error(message, hint)

    def stop_generation(self) -> None:
        self.run.stop()


@pytest.fixture
def w(qtbot) -> HelperWindow:
    window = HelperWindow()
    qtbot.addWidget(window)
    window.resize(1600, 900)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    return window


def banner_says(w: HelperWindow, message: str, hint: str) -> bool:
    """The banner is up with this message and hint (it starts each with a capital)."""
    said = (w.banner.message.text(), w.banner.hint.text())
    return w.banner.isVisible() and said == (message[:1].upper() + message[1:], hint[:1].upper() + hint[1:])


def test_generate_asks_the_controller_for_the_prompt_with_its_settings(qtbot, w):
    settings = SamplingSettings(temperature=0.7, top_k=40, top_p=0.9, seed=3, max_new_tokens=12)
    w.controls.prompt.setPlainText("The capital of France is")
    w.controls.chat.setChecked(True)
    w.controls.sampling.set_settings(settings)
    w.show_error("an earlier mistake")
    w.run.generate()
    w.controller.generate.assert_called_once_with(GenerationRequest("The capital of France is", settings, True))
    assert not w.banner.isVisible()  # the earlier message is gone
    assert w.generating and caption_text(w.scene) == w.word("window", "reading")
    assert w.status.activity.text() == w.word("activity", Activity.GENERATING.value)
    qtbot.waitUntil(w.view.hasFocus)  # Space steps right away
    w.runs.forget.assert_called_once()  # the last run's pick is forgotten
    w.announcer.forget.assert_called_once()  # a new run: its first stage is said again


@pytest.mark.qt_log_ignore(  # the offscreen platform's words on showing the bar's popup
    r"This plugin does not support (raise\(\)|grabbing the keyboard|propagateSizeHints\(\))"
)
def test_an_empty_prompt_or_a_bad_setting_runs_nothing_and_says_why(qtbot, w):
    w.controls.prompt.setPlainText("   ")
    w.run.generate()
    assert banner_says(w, w.word("window", "empty_prompt"), w.word("window", "empty_prompt_hint"))
    qtbot.waitUntil(w.controls.prompt.hasFocus)  # where to type it
    assert not w.generating
    # a setting that is not a number, while the settings are folded into the bar's popup
    w.controls.prompt.setPlainText("Hello")
    w.controls.sampling.greedy.setChecked(False)  # sampled: its settings are read
    top_k = w.controls.sampling.fields()["top_k"]
    top_k.setText("many")
    w.compact.set_compact(True)
    w.run.generate()
    assert w.banner.isVisible() and "many" in w.banner.text()
    assert w.compact.popup.isVisible() and w.compact.popup.isAncestorOf(top_k)  # opened to show it
    assert top_k.property("invalid") is True
    qtbot.waitUntil(top_k.hasFocus)
    assert not w.generating
    w.controller.generate.assert_not_called()
    w.compact.popup.hide()


def events_of(w: HelperWindow) -> ModelEvents:
    return ModelEvents(w)


def test_a_gguf_that_fails_to_build_closes_its_progress_and_the_banner_says_why(w):
    events = events_of(w)
    events.add_model_file("/home/someone/notes.gguf")
    w.controller.add_gguf.assert_called_once_with("/home/someone/notes.gguf")
    assert w.build_panel.isVisible() and w.build_panel.adding and "notes.gguf" in w.build_panel.message.text()
    events.on_error("not a GGUF", "pick a .gguf file")
    assert banner_says(w, "not a GGUF", "pick a .gguf file")
    assert not w.build_panel.isVisible() and not w.build_panel.adding
    assert caption_text(w.scene) == w.word("window", "welcome") and w.status.activity.text() == ""
    w.runs.failed.assert_called_once()  # (or the pick it belonged to)


def test_choosing_the_model_already_loaded_does_nothing(w):
    events = events_of(w)
    events.loaded = LOADED
    w.controls.prompt.setPlainText("Once upon a time")
    w.run.generate()
    w.show_error("an earlier mistake")
    events.choose_model(LOADED)
    w.controller.select_model.assert_not_called()
    w.controller.cancel.assert_not_called()
    assert w.generating and w.banner.isVisible()  # nothing changed
    events.choose_model("gemma3-270m")
    w.controller.cancel.assert_called_once()  # the run under way is stopped first
    assert not w.generating and not w.banner.isVisible()
    assert w.status.activity.text() == w.word("window", "switching").format(name="gemma3-270m")
    w.controller.select_model.assert_called_once_with("gemma3-270m")
