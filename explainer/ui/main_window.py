"""The main window: the diagram, the control panel, the transport bar, banners, status.

The window wires things together and holds no model logic: the controller runs the engine in
its worker thread; the Stepper walks the recorded trace (`scene.show_frame(trace, cursor)`),
so stepping back and forth never reruns the model; only Generate does. While a generation
runs, each new step arrives as a trace snapshot, the walk grows with it, and Play follows.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QProgressBar,
    QScrollArea,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from explainer.diagram.scene import LifecycleScene
from explainer.diagram.theme import THEMES, system_theme_name
from explainer.diagram.view import DiagramView
from explainer.errors import ExplainerError
from explainer.lesson import vocab
from explainer.lesson.glossary import define
from explainer.lesson.stages import Stage
from explainer.ui.build_dialog import BuildPanel, ErrorBanner
from explainer.ui.controller import EngineController
from explainer.ui.presenter import PresenterMode
from explainer.ui.prompt_panel import PromptPanel
from explainer.ui.sampling_panel import SettingsError
from explainer.ui.stepper import Stepper
from explainer.ui.style import TextKeyGuard, palette_for, qcolor
from explainer.ui.transport import TransportBar

STAGE_NAMES = {
    Stage.PRETRAINING: "Pretraining", Stage.TOKENS: "Tokens", Stage.EMBEDDINGS: "Embeddings",
    Stage.LAYERS: "Layers", Stage.PROBABILITIES: "Probabilities", Stage.SAMPLING: "Sampling",
    Stage.APPEND: "Append",
}
STOP_REASONS = {"eos": "the model chose end-of-text", "max_tokens": "max new tokens reached",
                "context": "the context window is full"}
WELCOME = "Type a prompt (or pick an example) and press Generate"


class MainWindow(QMainWindow):
    presenter_changed = Signal(bool)
    frame_shown = Signal(object)  # the Cursor just shown

    def __init__(self, controller: EngineController | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("explainer — how a language model writes")
        self.resize(1440, 900)
        self._closed = False
        self.theme_choice = "system"
        self.theme_name = system_theme_name()

        self.scene = LifecycleScene(THEMES[self.theme_name])
        self.scene.set_interactive(True)
        self.view = DiagramView(self.scene)
        self.view.setObjectName("diagram")
        self.view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.stepper = Stepper(self.scene, self)
        self.presenter = PresenterMode(self)

        self._build_actions()
        self._build_controls()
        self._build_central()
        self._build_menus()
        self._build_status()
        # last: a worker thread started before a failure above would outlive the window
        self.controller = controller or EngineController(parent=self)
        self._connect()

        self._guard = TextKeyGuard(self)
        for field in self.findChildren(QLineEdit) + self.findChildren(QPlainTextEdit):
            field.installEventFilter(self._guard)  # on the fields only: no Python call per app event
        QApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme)

        self.stepper.set_speed(self.transport.speed_factor())
        self.apply_theme("system")
        self.scene.show_empty(WELCOME)
        self._refresh()

    # --- what tests and the bench read ------------------------------------------------

    @property
    def trace(self):
        return self.stepper.trace

    @property
    def lesson(self):
        return self.stepper.lesson

    @property
    def cursor(self):
        return self.stepper.cursor

    @property
    def playing(self) -> bool:
        return self.stepper.playing

    @property
    def generating(self) -> bool:
        return self.stepper.generating

    # --- building -------------------------------------------------------------------------

    def _action(self, name: str, text: str, keys, slot, tip: str = "") -> QAction:
        a = QAction(text, self)
        a.setObjectName(name)
        seqs: list[QKeySequence] = []
        for k in keys:  # a standard key may repeat an explicit one, which Qt calls ambiguous
            for seq in (QKeySequence.keyBindings(k) if isinstance(k, QKeySequence.StandardKey) else [QKeySequence(k)]):
                if seq not in seqs:
                    seqs.append(seq)
        if seqs:
            a.setShortcuts(seqs)
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            shown = " / ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in seqs)
            a.setToolTip(f"{tip} ({shown})" if shown else tip)
        a.triggered.connect(slot)
        self.addAction(a)  # on the window: works with the menu bar and the controls hidden
        self.actions_by_name[name] = a
        return a

    def _build_actions(self) -> None:
        self.actions_by_name: dict[str, QAction] = {}
        K, C, st = Qt.Key, Qt.KeyboardModifier.ControlModifier, self.stepper
        self._action("next", "Next stage", [K.Key_Space, K.Key_Right, K.Key_PageDown], st.forward, "Next stage")
        self._action("prev", "Previous stage", [K.Key_Left, K.Key_PageUp, K.Key_Backspace], st.back, "Previous stage")
        self._action("next_token", "Next token", [K.Key_N, K.Key_Down], st.next_token,
                     "Jump to the next token being appended")
        self._action("play", "Play", [K.Key_P], st.toggle_play, "Play / pause")
        self._action("reset", "Reset", [K.Key_Home], st.reset, "Back to the start")
        self._action("generate", "Generate", [QKeySequence(C | K.Key_Return), QKeySequence(C | K.Key_Enter)],
                     self.generate, "Run the model on the prompt")
        self._action("stop", "Stop", [], self.stop_generation, "Stop the generation (what is recorded stays)")
        self._action("presenter", "Presenter mode", [K.Key_F11], self.presenter.toggle,
                     "Full screen, large type, high contrast, controls hidden")
        self.actions_by_name["presenter"].setCheckable(True)
        self.presenter_changed.connect(self.actions_by_name["presenter"].setChecked)
        self._action("leave_presenter", "Leave presenter mode", [K.Key_Escape], self.presenter.leave)
        self._action("zoom_in", "Zoom in", [QKeySequence.StandardKey.ZoomIn, QKeySequence(C | K.Key_Equal),
                                            QKeySequence(C | K.Key_Plus)], lambda: self.view.zoom_in())
        self._action("zoom_out", "Zoom out", [QKeySequence.StandardKey.ZoomOut, QKeySequence(C | K.Key_Minus)],
                     lambda: self.view.zoom_out())
        self._action("zoom_reset", "Fit to window", [QKeySequence(C | K.Key_0)], lambda: self.view.reset_zoom())
        self._action("export", "Export illustration…", [QKeySequence(C | K.Key_E)], self.export_dialog,
                     "Save the current frame as SVG or PNG")
        self._action("save_trace", "Save trace…", [QKeySequence(C | K.Key_S)], self.save_trace_dialog,
                     "Save everything this run recorded, to reopen or export later without the model")
        self._action("open_trace", "Open trace…", [QKeySequence(C | K.Key_O)], self.open_trace_dialog,
                     "Step through a saved run; the model is not run again")
        self._action("quit", "Quit", [QKeySequence.StandardKey.Quit], self.close)
        sp = QStyle.StandardPixmap
        self._icons = {name: self.style().standardIcon(pix) for name, pix in (
            ("reset", sp.SP_MediaSkipBackward), ("prev", sp.SP_MediaSeekBackward), ("play", sp.SP_MediaPlay),
            ("pause", sp.SP_MediaPause), ("next", sp.SP_MediaSeekForward), ("next_token", sp.SP_MediaSkipForward),
            ("stop", sp.SP_MediaStop))}
        for name, icon in self._icons.items():
            if name in self.actions_by_name:
                self.actions_by_name[name].setIcon(icon)

    def _build_controls(self) -> None:
        self.controls = PromptPanel()
        c = self.controls
        self.prompt, self.chat, self.sampling = c.prompt, c.chat, c.sampling
        self.generate_button, self.stop_button, self.example_buttons = c.generate_button, c.stop_button, c.example_buttons
        c.generate_requested.connect(self.generate)
        c.stop_requested.connect(self.stop_generation)
        c.example_chosen.connect(lambda: self.banner.hide())
        scroll = QScrollArea()
        scroll.setWidget(c)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.control_dock = QDockWidget("Controls", self)
        self.control_dock.setObjectName("controls")
        self.control_dock.setWidget(scroll)
        self.control_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                                      | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.control_dock.setMinimumWidth(300)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.control_dock)

    def _build_central(self) -> None:
        central = QWidget()
        col = QVBoxLayout(central)
        col.setContentsMargins(6, 6, 6, 0)
        col.setSpacing(6)
        self.banner = ErrorBanner()
        self.build_panel = BuildPanel()
        self.build_panel.build_requested.connect(self._on_build_requested)
        col.addWidget(self.banner)
        col.addWidget(self.build_panel)
        col.addWidget(self.view, 1)
        self.transport = TransportBar(self.actions_by_name)
        self.transport.speed_changed.connect(self.stepper.set_speed)
        col.addWidget(self.transport)
        self.setCentralWidget(central)

    def _build_menus(self) -> None:
        a = self.actions_by_name
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        file_menu.addAction(a["open_trace"])
        file_menu.addAction(a["save_trace"])
        file_menu.addSeparator()
        file_menu.addAction(a["export"])
        file_menu.addSeparator()
        file_menu.addAction(a["quit"])
        run = mb.addMenu("&Run")
        for name in ("generate", "stop", None, "prev", "next", "next_token", "play", "reset"):
            run.addSeparator() if name is None else run.addAction(a[name])
        view = mb.addMenu("&View")
        theme_menu = view.addMenu("Theme")
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for key, label in (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark"),
                           ("projector", "Projector (high contrast)")):
            t = QAction(label, self, checkable=True)
            t.setObjectName(f"theme_{key}")
            t.triggered.connect(lambda _c=False, k=key: self.apply_theme(k))
            self.theme_group.addAction(t)
            theme_menu.addAction(t)
            self.theme_actions[key] = t
        view.addAction(a["presenter"])
        view.addSeparator()
        for name in ("zoom_in", "zoom_out", "zoom_reset"):
            view.addAction(a[name])
        view.addSeparator()
        view.addAction(self.control_dock.toggleViewAction())

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.busy_bar = QProgressBar()
        self.busy_bar.setObjectName("busy")
        self.busy_bar.setRange(0, 0)  # indeterminate
        self.busy_bar.setMaximumSize(120, 14)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        self.activity = QLabel("Starting…")
        self.activity.setObjectName("activity")
        self.metrics = QLabel("")
        self.metrics.setObjectName("metrics")
        self.metrics.setToolTip("\n".join(f"{t}: {define(t) or ''}" for t in ("TTFT", "TPOT")))
        self.model_label = QLabel("")
        self.model_label.setObjectName("model")
        sb.addWidget(self.busy_bar)
        sb.addWidget(self.activity, 1)
        sb.addPermanentWidget(self.metrics)
        sb.addPermanentWidget(self.model_label)

    def _connect(self) -> None:
        c = self.controller
        c.model_loading.connect(lambda: self._set_activity("Loading the model…"))
        c.model_ready.connect(self._on_model_ready)
        c.model_missing.connect(self._on_model_missing)
        c.build_progress.connect(self.build_panel.set_progress)
        c.step_ready.connect(self._on_step_ready)
        c.generation_finished.connect(self._on_generation_finished)
        c.error.connect(self._on_error)
        c.busy_changed.connect(self._on_busy)
        c.activity_changed.connect(lambda what: what and self._set_activity(what))
        st = self.stepper
        st.changed.connect(self._refresh)
        st.frame_shown.connect(self.frame_shown)
        st.playing_changed.connect(self._on_playing)
        st.waiting.connect(lambda: self._set_activity("Waiting for the model's next token…"))

    # --- themes ----------------------------------------------------------------------

    def apply_theme(self, choice: str, remember: bool = True) -> None:
        """Apply 'system', 'light', 'dark' or 'projector' to the scene and the widgets."""
        name = system_theme_name() if choice == "system" else choice
        if remember:
            self.theme_choice = choice
            if choice in getattr(self, "theme_actions", {}):
                self.theme_actions[choice].setChecked(True)
        self.theme_name = name
        theme = THEMES[name]
        self.scene.set_theme(theme)
        self.view.setBackgroundBrush(qcolor(theme.background))
        self.setPalette(palette_for(theme, self.palette()))

    def _on_system_scheme(self, *_args) -> None:
        if self.theme_choice == "system" and not self.presenter.active:
            self.apply_theme("system")

    # --- generation ------------------------------------------------------------------

    def use_example(self, text: str, chat: bool) -> None:
        self.controls.use_example(text, chat)

    def generate(self) -> None:
        """Check the inputs, then ask the controller to run the model (nothing is cleared on error)."""
        self.banner.hide()
        prompt = self.prompt.toPlainText()
        try:
            settings = self.sampling.settings()
        except SettingsError as exc:
            self.show_error(exc.message, exc.hint)
            self.sampling.mark_invalid(exc.field)
            return
        if not prompt.strip():
            self.show_error("the prompt is empty", "type some text for the model to continue, or pick an example")
            self.prompt.setFocus()
            return
        self.stepper.start_generation()
        self.scene.show_empty("Reading the prompt…")
        self.metrics.setText("")
        self.controller.generate(prompt, settings, self.chat.isChecked())
        self._set_activity("Generating…")
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)  # Space steps right away

    def stop_generation(self) -> None:
        if self.generating:
            self.controller.cancel()
            self.stepper.stop_generation()
            self._set_activity("Stopped; what was recorded can still be stepped through")

    def _on_step_ready(self, trace) -> None:
        self.stepper.add_snapshot(trace)
        self._show_metrics(trace)

    def _on_generation_finished(self, trace) -> None:
        self.stepper.finish(trace)
        self._show_metrics(trace)
        n = len(trace.steps)
        why = STOP_REASONS.get(trace.stop_reason or "", "")
        self._set_activity(f"Done: {n} token{'s' if n != 1 else ''} ({why}). Step through with → / Space.")

    def _show_metrics(self, trace) -> None:
        ttft, tpot = trace.ttft_s, trace.tpot_s
        parts = [f"TTFT {ttft * 1000:.0f} ms"] if ttft is not None else []
        parts.append(f"TPOT {tpot * 1000:.1f} ms" if tpot is not None else "TPOT –")
        parts.append(trace.model.provider)
        self.metrics.setText("  ·  ".join(parts))

    # --- model, build, errors ------------------------------------------------------------

    def _on_model_ready(self, info: dict) -> None:
        self.build_panel.hide()
        self.scene.set_model_info(info)  # the empty frame shows the real sizes, not placeholders
        pieces = self.controller.pieces
        if pieces:
            vocab.set_piece_source(lambda i: pieces[i] if 0 <= i < len(pieces) else f"#{i}")
        self.model_label.setText(f"  |  {info['name']} · {info['n_params'] / 1e6:.0f} M parameters")
        if not self.generating:
            self._set_activity("Model ready. " + WELCOME + ".")

    def _on_model_missing(self, message: str) -> None:
        self.build_panel.offer(message)
        self.model_label.setText("model not built")
        self._set_activity("The model is not built yet")

    def _on_build_requested(self) -> None:
        self.banner.hide()
        self.controller.build_model()

    def _on_error(self, message: str, hint: str) -> None:
        self.stepper.stop_generation()  # an error ends the generation it belongs to (if any)
        self.show_error(message, hint)
        if self.build_panel.isVisible() and not self.build_panel.button.isEnabled():
            self.build_panel.failed()
        if self.trace is None:
            self.scene.show_empty(WELCOME)
        self._set_activity("")

    def show_error(self, message: str, hint: str = "") -> None:
        self.banner.show_error(message, hint)

    def _on_busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        if not busy and not self.generating and self.activity.text().endswith("…"):
            self._set_activity("")

    def _set_activity(self, text: str) -> None:
        self.activity.setText(text)

    # --- state shown -------------------------------------------------------------------------

    def _on_playing(self, on: bool) -> None:
        play = self.actions_by_name["play"]
        play.setText("Pause" if on else "Play")
        play.setIcon(self._icons["pause" if on else "play"])

    def _refresh(self) -> None:
        st, a = self.stepper, self.actions_by_name
        ready = st.ready
        if ready:
            c = st.cursor
            more = "…" if st.generating else ""
            phase = "reading the prompt" if c.step == 0 else "one new token"
            self.transport.set_position(f"Token {c.step + 1} of {len(st.trace.steps)}{more}  ·  "
                                        f"{STAGE_NAMES.get(c.stage, str(c.stage))}  ({phase})")
        else:
            self.transport.set_position("")
        a["prev"].setEnabled(ready and st.lesson.prev(st.cursor) is not None)
        for name in ("next", "next_token", "play", "reset", "export"):
            a[name].setEnabled(ready)
        a["save_trace"].setEnabled(ready and not st.generating)
        a["stop"].setEnabled(st.generating)
        self.stop_button.setEnabled(st.generating)

    # --- saved traces ----------------------------------------------------------------------

    def save_trace_dialog(self) -> None:
        if not self.stepper.ready or self.generating:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save the recorded run", "explainer-trace.json",
                                              "Trace (*.json)")
        if path:
            self.save_trace(path)

    def save_trace(self, path: str) -> None:
        """Write the recorded run (atomically); `explainer export --trace` reads it too."""
        if self.trace is None:
            return
        try:
            self.trace.save(path)
        except ExplainerError as exc:
            self.show_error(f"could not save the trace: {exc.message}", exc.hint)
            return
        self._set_activity(f"Saved {path}")

    def open_trace_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a recorded run", "", "Trace (*.json)")
        if path:
            self.open_trace(path)

    def open_trace(self, path: str) -> None:
        """Step through a saved run from its first stage; nothing is recomputed."""
        from explainer.engine.trace import Trace

        try:
            trace = Trace.load(path)
        except ExplainerError as exc:
            self.show_error(f"could not open the trace: {exc.message}", exc.hint)
            return
        if self.generating:
            self.stop_generation()
        self.banner.hide()
        self.prompt.setPlainText(trace.prompt)
        self.chat.setChecked(trace.chat)
        self.sampling.set_settings(trace.settings)  # Generate would then redo this very run
        self.stepper.start_generation()  # forget the current run ...
        self.stepper.finish(trace)  # ... and take the saved one, complete, at its first frame
        self._show_metrics(trace)
        self._set_activity(f"Opened {path}: {len(trace.steps)} recorded tokens. Step through with → / Space.")

    # --- export ----------------------------------------------------------------------------

    def export_dialog(self) -> None:
        if not self.stepper.ready:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export the illustration", "explainer.svg",
                                              "SVG image (*.svg);;PNG image (*.png)")
        if path:
            self.export(path)

    def export(self, path: str) -> None:
        """Write the current frame as SVG or PNG (by the file name) with the same code as
        `explainer export`: the end state of the current stage in a fresh scene, so a running
        animation is never caught halfway, and the controls are not part of the picture."""
        from explainer.export.figure import export_figure

        self.stepper.finish_animation()
        if self.trace is None or self.cursor is None:
            return
        try:
            export_figure(self.trace, self.cursor, path, theme=self.theme_name, timings=True)
        except ExplainerError as exc:
            self.show_error(f"could not export: {exc.message}", exc.hint)
            return
        self._set_activity(f"Exported {path}")

    # --- shutdown ------------------------------------------------------------------------------

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        self.hide()  # gone at once, even if a model load (seconds) must finish before the join
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop playing and animating, cancel the generation and join the worker thread."""
        if self._closed:
            return
        self._closed = True
        self.stepper.stop()
        self.controller.shutdown()
        try:
            QApplication.styleHints().colorSchemeChanged.disconnect(self._on_system_scheme)
        except (RuntimeError, TypeError):
            pass
