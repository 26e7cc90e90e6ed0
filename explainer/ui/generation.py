"""Generate and Stop, and what the window shows as a run arrives or a saved one is opened.

Generate checks the inputs first (nothing on screen is cleared by a mistake), then asks the
controller to run the model in its process; each step arrives as a trace snapshot that the
stepper's walk grows with, and the finished trace replaces the last snapshot. A saved run goes
the same way, complete at once, without the model.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsView

from explainer.diagram.scene import LifecycleScene
from explainer.engine.trace import Trace
from explainer.inference.events import Activity, GenerationFinished, PromptProgress, StepReady
from explainer.inference.requests import GenerationRequest
from explainer.ui.announce import announce
from explainer.ui.build_dialog import ErrorBanner
from explainer.ui.compact import CompactControls
from explainer.ui.controller import EngineController
from explainer.ui.prompt_panel import PromptPanel
from explainer.ui.sampling_panel import SettingsError
from explainer.ui.stage_announcer import StageAnnouncer
from explainer.ui.status import StatusLine
from explainer.ui.stepper import RunOnScreen
from explainer.ui.your_turn import Runs


class GenerationHost(RunOnScreen, Protocol):
    """What a run reads and tells of the window beyond the run on screen."""

    @property
    def controls(self) -> PromptPanel: ...
    @property
    def banner(self) -> ErrorBanner: ...
    @property
    def compact(self) -> CompactControls: ...
    @property
    def runs(self) -> Runs: ...
    @property
    def scene(self) -> LifecycleScene: ...
    @property
    def status(self) -> StatusLine: ...
    @property
    def controller(self) -> EngineController: ...
    @property
    def view(self) -> QGraphicsView: ...

    def word(self, section: str, key: str) -> str: ...
    def set_activity(self, text: str) -> None: ...
    def show_error(self, message: str, hint: str = "") -> None: ...


class Generation:
    def __init__(self, window: GenerationHost, announcer: StageAnnouncer) -> None:
        self.window, self.announcer = window, announcer
        c = window.controller  # what it says of a run, to what shows it
        c.on(PromptProgress, lambda e: self.on_prompt_progress(e.read, e.total))
        c.on(StepReady, lambda e: self.on_step_ready(e.trace))
        c.on(GenerationFinished, lambda e: self.on_finished(e.trace))

    def generate(self) -> None:
        """Check the inputs, then ask the controller to run the model (nothing is cleared on error)."""
        w, c = self.window, self.window.controls
        w.banner.hide()
        prompt = c.prompt.toPlainText()
        try:
            settings = c.sampling.settings()
        except SettingsError as exc:
            w.show_error(exc.message, exc.hint)
            if w.compact.active:  # the settings are in the folded bar's popup: open it
                w.compact.open_sampling()
            c.sampling.mark_invalid(exc.field)
            return
        if not prompt.strip():
            w.show_error(w.word("window", "empty_prompt"), w.word("window", "empty_prompt_hint"))
            c.prompt.setFocus()
            return
        # the focus to the illustration first (Space steps right away): a control the new run
        # disables (a What if? slider) would otherwise pass it along the Tab chain as it goes
        w.view.setFocus(Qt.FocusReason.OtherFocusReason)
        w.runs.forget()
        self.announcer.forget()  # a new run: its first stage is news
        w.stepper.start_generation()
        w.scene.show_empty(w.word("window", "reading"))
        w.status.show_metrics(None)
        w.controller.generate(GenerationRequest(prompt, settings, c.chat.isChecked()))
        w.set_activity(w.word("activity", Activity.GENERATING.value))

    def stop(self) -> None:
        w = self.window
        if w.generating:
            w.controller.cancel()
            w.stepper.stop_generation()
            w.status.show_reading(None)
            if w.trace is None:  # stopped while the prompt was being read: nothing recorded
                w.scene.show_empty(w.word("window", "stopped_reading"))
                w.set_activity(w.word("window", "stopped_reading"))
            else:
                w.set_activity(w.word("window", "stopped"))

    def on_prompt_progress(self, read: int, total: int) -> None:
        """A long prompt is read in chunks (prefill): say how far it is, in the status bar and on
        the canvas, so a 40-second read does not look like a hang."""
        text = self.window.status.show_reading((read, total))
        if self.window.trace is None and read < total:
            self.window.scene.show_empty(text)

    def show_recorded(self, trace: Trace) -> None:
        """Step through a finished run (a saved one) from its first stage, as if just generated."""
        w, c = self.window, self.window.controls
        if w.generating:
            self.stop()
        w.banner.hide()
        c.prompt.setPlainText(trace.prompt)
        c.chat.setChecked(trace.chat)
        c.sampling.set_settings(trace.settings)  # Generate would then redo this very run
        w.runs.forget()
        self.announcer.forget()
        w.stepper.start_generation()  # forget the current run ...
        w.stepper.finish(trace)  # ... and take the saved one, complete, at its first frame
        w.status.show_metrics(trace)

    def on_step_ready(self, trace: Trace) -> None:
        if len(trace.steps) == 1:
            self.window.status.show_reading(None)
        self.window.stepper.add_snapshot(trace)
        self.window.status.show_metrics(trace)

    def on_finished(self, trace: Trace) -> None:
        w = self.window
        w.stepper.finish(trace)
        w.status.show_metrics(trace)
        n = len(trace.steps)
        why = w.word("stop_reasons", trace.stop_reason) if trace.stop_reason else ""
        done = w.word("window", "done_one" if n == 1 else "done").format(n=n, why=why)
        w.set_activity(done)
        announce(w.status.activity, done)  # the run's end, heard wherever the focus is
