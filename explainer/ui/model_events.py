"""The model's side of the window: which model to load, switching, adding a GGUF, building the
default one, and what the window shows when the worker says a model is ready, missing, added,
busy or failed.

What is on screen stays until the new model is ready; a run recorded with another model is then
forgotten (its token ids mean nothing to the new vocabulary).
"""

from __future__ import annotations

import os
from typing import Protocol

from PySide6.QtWidgets import QFileDialog

from explainer.diagram.scene import LifecycleScene
from explainer.errors import ExplainerError
from explainer.illustration.vocab import Vocabulary, vocabulary_from_labels
from explainer.inference import events as ev
from explainer.inference.events import Activity, LoadedModel
from explainer.ui.actions import ActionRegistry
from explainer.ui.build_dialog import BuildPanel, ErrorBanner
from explainer.ui.controller import EngineController
from explainer.ui.model_menu import ModelMenu
from explainer.ui.settings import AppSettings
from explainer.ui.status import StatusLine
from explainer.ui.stepper import RunOnScreen
from explainer.ui.window_host import WindowHost
from explainer.ui.your_turn import Runs
from explainer.ui_model.actions import MenuId


def first_model(settings: AppSettings, asked: str | None) -> str:
    """The model asked for, else the one shown last if it is still known, else the default."""
    from explainer.model.catalog import is_known
    from explainer.model.manifest import DEFAULT_MODEL

    if asked:
        return asked
    saved = settings.model_name()
    return saved if saved and is_known(saved) else DEFAULT_MODEL


class ModelEventsHost(RunOnScreen, WindowHost, Protocol):
    """What the model's side reads of the window: the controller it listens to, the registry its
    commands join, the banner, build panel and status line it shows on, the run it forgets."""

    @property
    def controller(self) -> EngineController: ...
    @property
    def registry(self) -> ActionRegistry: ...
    @property
    def settings(self) -> AppSettings: ...
    @property
    def banner(self) -> ErrorBanner: ...
    @property
    def build_panel(self) -> BuildPanel: ...
    @property
    def status(self) -> StatusLine: ...
    @property
    def scene(self) -> LifecycleScene: ...
    @property
    def runs(self) -> Runs: ...

    def word(self, section: str, key: str) -> str: ...
    def set_activity(self, text: str) -> None: ...
    def show_error(self, message: str, hint: str = "") -> None: ...
    def stop_generation(self) -> None: ...


class ModelEvents:
    """Owns the Model menu, the model last loaded and its vocabulary."""

    def __init__(self, window: ModelEventsHost) -> None:
        self.window = window
        self.loaded: str | None = None  # the model of the last model_ready
        self.vocabulary: Vocabulary | None = None  # labels of token ids, once a model is loaded
        open_gguf = window.registry.add("open_gguf", self.open_gguf_dialog)
        self.menu = ModelMenu(window.registry.menu(MenuId.MODEL), open_gguf, self)
        window.build_panel.build_requested.connect(self.on_build_requested)
        self._listen(window.controller)

    def _listen(self, c: EngineController) -> None:
        """What the controller says of the model, to the part of the window that shows it."""
        w = self.window
        c.on(ev.ModelLoading, lambda _e: w.set_activity(w.word("activity", Activity.LOADING.value)))
        c.on(ev.ModelReady, lambda e: self.on_ready(e.model))
        c.on(ev.ModelMissing, lambda e: self.on_missing(e.message))
        c.on(ev.ModelAdded, lambda e: self.on_added(e.name, e.reused))
        c.on(ev.ModelChanged, lambda e: self.on_changed(e.name, e.files, e.command))
        c.on(ev.BuildProgress, lambda e: w.build_panel.set_progress(e.phase, e.fraction))
        c.on(ev.Failed, lambda e: self.on_error(e.message, e.hint))
        c.on(ev.BusyChanged, lambda e: self.on_busy(e.busy))
        c.on(ev.ActivityChanged, lambda e: self.on_activity(e.activity))

    def word(self, section: str, key: str) -> str:
        return self.window.word(section, key)

    def current_model(self) -> str:
        return self.window.controller.model_name

    def choose_model(self, name: str) -> None:
        """Model > a built model: load it in the worker (what is on screen stays until it is ready)."""
        w = self.window
        if name == w.controller.model_name and self.loaded == name:
            return
        w.stop_generation()
        w.banner.hide()
        w.set_activity(w.word("window", "switching").format(name=name))
        w.controller.select_model(name)

    def open_gguf_dialog(self) -> None:
        word = self.window.word
        path, _ = QFileDialog.getOpenFileName(
            self.window.qt_window, word("files", "open_gguf"), "", word("files", "open_gguf_filter")
        )
        if path:
            self.add_model_file(path)

    def add_model_file(self, path: str) -> None:
        """Build a GGUF into the cache in the worker, with the build panel's progress, and switch to it."""
        self.window.stop_generation()
        self.window.banner.hide()
        self.window.build_panel.show_adding(os.path.basename(path))
        self.window.controller.add_gguf(path)

    def on_added(self, name: str, reused: bool) -> None:
        w = self.window
        w.set_activity(w.word("window", "model_reused" if reused else "model_added").format(name=name))

    def _forget_run(self) -> None:
        """The run on screen was another model's: its token ids mean nothing to this one's vocabulary."""
        w = self.window
        if w.trace is not None or w.generating:
            w.runs.forget()
            w.stepper.start_generation()
            w.stepper.stop_generation()
            w.status.show_metrics(None)
            w.scene.show_empty(w.word("window", "welcome"))

    def on_ready(self, model: LoadedModel) -> None:
        w = self.window
        if self.loaded is not None and model.name != self.loaded:
            self._forget_run()
        self.loaded = model.name
        w.settings.set_model_name(model.name)
        self.menu.check(model.name)
        w.build_panel.dismiss()
        self.vocabulary = vocabulary_from_labels(model.vocabulary)
        w.scene.set_vocabulary(self.vocabulary)
        w.scene.set_model_info(model.info)  # the empty frame shows the real sizes, not placeholders
        w.status.show_model(model.info)
        if not w.generating:
            w.set_activity(w.word("window", "model_ready").format(welcome=w.word("window", "welcome")))

    def on_changed(self, name: str, files: tuple[str, ...], command: str) -> None:
        """The loaded model's weights were hashed after the load and differ from its build's:
        the banner names the files and the command that rebuilds it (a model switched away
        from meanwhile is not the one on screen, so it says nothing)."""
        if name != self.loaded:
            return
        word = self.window.word
        key = "model_changed" if len(files) == 1 else "model_changed_many"
        message = word("banners", key).format(files=", ".join(files), model=name)
        self.window.show_error(message, word("banners", "model_changed_hint").format(command=command))

    def on_missing(self, message: str) -> None:
        from explainer.illustration.formatting import byte_size
        from explainer.model.manifest import load_manifest

        w = self.window
        try:
            m = load_manifest(w.controller.model_name)
            name, size = m.display_name, byte_size(m.source.gguf_size)
        except ExplainerError:  # (a name without a manifest): the offer still reads
            name, size = w.controller.model_name, "?"
        w.build_panel.offer(message, name, size)
        w.status.show_model(None)
        w.set_activity(w.word("window", "not_built"))

    def on_build_requested(self) -> None:
        self.window.banner.hide()
        self.window.controller.build_model()

    def on_error(self, message: str, hint: str) -> None:
        w, panel = self.window, self.window.build_panel
        w.stepper.stop_generation()  # an error ends the generation it belongs to (if any)
        w.runs.failed()  # ... or the pick it belongs to
        w.show_error(message, hint)
        if panel.adding:  # a GGUF that could not be built: the banner says why
            panel.dismiss()
        elif panel.isVisible() and not panel.button.isEnabled():
            panel.failed()
        if w.trace is None:
            w.scene.show_empty(w.word("window", "welcome"))
        w.set_activity("")

    def on_busy(self, busy: bool) -> None:
        w = self.window
        w.status.busy_bar.setVisible(busy)
        if not busy and not w.generating and w.status.activity.text().endswith("…"):
            w.set_activity("")

    def on_activity(self, what: Activity) -> None:
        if what is not Activity.IDLE:
            self.window.set_activity(self.window.word("activity", what.value))
