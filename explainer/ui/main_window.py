"""The main window: prompt and sampling controls, the diagram, the transport bar, banners.

Stepping is a walk over the recorded Trace with a lesson Cursor: every move calls
`scene.show_frame(trace, cursor, animate)`. Nothing here reruns the model; only the Generate
button (through the controller's worker thread) does. While a generation runs, each new step
arrives as a trace snapshot and the lesson simply grows, so the user can already step through
what is recorded and Play follows the generation as it goes.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QStyle,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from explainer.diagram.scene import LifecycleScene
from explainer.diagram.theme import THEMES, system_theme_name
from explainer.diagram.view import DiagramView
from explainer.errors import ExplainerError
from explainer.lesson import vocab
from explainer.lesson.glossary import define
from explainer.lesson.stages import Cursor, Lesson, Stage
from explainer.ui.build_dialog import BuildPanel, ErrorBanner
from explainer.ui.controller import EngineController
from explainer.ui.presenter import PresenterMode
from explainer.ui.sampling_panel import SamplingPanel, SettingsError
from explainer.ui.transport import TransportBar

# (button label, prompt, chat mode)
EXAMPLES: list[tuple[str, str, bool]] = [
    ("The capital of France is", "The capital of France is", False),
    ("Once upon a time", "Once upon a time", False),
    ("What is 2+2? (chat)", "What is 2+2?", True),
    ("Write a haiku about the sea (chat)", "Write a haiku about the sea", True),
]

STAGE_NAMES = {
    Stage.PRETRAINING: "Pretraining",
    Stage.TOKENS: "Tokens",
    Stage.EMBEDDINGS: "Embeddings",
    Stage.LAYERS: "Layers",
    Stage.PROBABILITIES: "Probabilities",
    Stage.SAMPLING: "Sampling",
    Stage.APPEND: "Append",
}

PLAY_DWELL_MS = 900  # pause on each stage while playing, at speed 1 (divided by the speed)
INSTANT_DWELL_MS = 400  # pause per stage when playing at "Instant"
WELCOME = "Type a prompt (or pick an example) and press Generate"

# Keys a focused text field keeps even though the window binds them (Space, arrows, Page keys,
# Home, Backspace, letters): everything without Ctrl/Alt/Meta, except these.
_WINDOW_KEYS = {Qt.Key.Key_Escape, Qt.Key.Key_F11}
_TEXT_INPUTS = (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)


def _qcolor(value) -> QColor:
    return value if isinstance(value, QColor) else QColor(value)


def _is_text_input(obj) -> bool:
    if isinstance(obj, _TEXT_INPUTS):
        return not getattr(obj, "isReadOnly", lambda: False)()
    return False


class _TextKeyGuard(QObject):
    """Lets a focused text field keep the plain keys (Space, arrows, Page keys, Home, P...).

    The transport shortcuts are window-wide (so they work whatever has focus, the diagram
    included); accepting the ShortcutOverride here hands these keys to the text field instead,
    so typing "a happy person" in the prompt never steps the diagram."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if event.type() == QEvent.Type.ShortcutOverride and _is_text_input(obj):
            command = (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
                       | Qt.KeyboardModifier.MetaModifier)
            if not (event.modifiers() & command) and event.key() not in _WINDOW_KEYS:
                event.accept()
                return True
        return False


class MainWindow(QMainWindow):
    presenter_changed = Signal(bool)
    frame_shown = Signal(object)  # the Cursor just shown

    def __init__(self, controller: EngineController | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("explainer — how a language model writes")
        self.resize(1440, 900)
        self.trace = None
        self.lesson: Lesson | None = None
        self.cursor: Cursor | None = None
        self.playing = False
        self.generating = False
        self._waiting_for_step = False
        self._closed = False
        self.theme_choice = "system"
        self.theme_name = system_theme_name()

        self.scene = LifecycleScene(THEMES[self.theme_name])
        self.view = DiagramView(self.scene)
        self.view.setObjectName("diagram")
        self.view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.presenter = PresenterMode(self)

        self._play_timer = QTimer(self)
        self._play_timer.setSingleShot(True)
        self._play_timer.timeout.connect(self._play_step)

        self._build_actions()
        self._build_controls()
        self._build_central()
        self._build_menus()
        self._build_status()
        # last: a worker thread started before a failure above would outlive the window
        self.controller = controller or EngineController(parent=self)
        self._connect_controller()

        self._guard = _TextKeyGuard(self)
        for field in self.findChildren(QLineEdit) + self.findChildren(QPlainTextEdit):
            field.installEventFilter(self._guard)  # on the fields only: no Python call per app event
        hints = QApplication.styleHints()
        hints.colorSchemeChanged.connect(self._on_system_scheme)

        self.scene.animation_finished.connect(self._on_animation_finished)
        self.transport.speed_changed.connect(self._on_speed)
        self._on_speed(self.transport.speed_factor())
        self.apply_theme("system")
        self.scene.show_empty(WELCOME)
        self._update_actions()

    # ------------------------------------------------------------------ building

    def _action(self, name: str, text: str, keys, slot, tip: str = "") -> QAction:
        a = QAction(text, self)
        a.setObjectName(name)
        if keys:
            seqs: list[QKeySequence] = []
            for k in keys:  # standard keys may repeat an explicit one: Qt calls that ambiguous
                for seq in (QKeySequence.keyBindings(k) if isinstance(k, QKeySequence.StandardKey) else [QKeySequence(k)]):
                    if seq not in seqs:
                        seqs.append(seq)
            keys = seqs
            a.setShortcuts(seqs)
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            a.setToolTip(f"{tip} ({' / '.join(QKeySequence(k).toString(QKeySequence.SequenceFormat.NativeText) for k in keys)})"
                         if keys else tip)
        a.triggered.connect(slot)
        self.addAction(a)  # window-level: works with the menu bar and controls hidden
        self.actions_by_name[name] = a
        return a

    def _build_actions(self) -> None:
        self.actions_by_name: dict[str, QAction] = {}
        K = Qt.Key
        C = Qt.KeyboardModifier.ControlModifier
        self._action("next", "Next stage", [K.Key_Space, K.Key_Right, K.Key_PageDown], self.step_forward,
                     "Next stage")
        self._action("prev", "Previous stage", [K.Key_Left, K.Key_PageUp, K.Key_Backspace], self.step_back,
                     "Previous stage")
        self._action("next_token", "Next token", [K.Key_N, K.Key_Down], self.next_token,
                     "Jump to the next token being appended")
        self._action("play", "Play", [K.Key_P], self.toggle_play, "Play / pause")
        self._action("reset", "Reset", [K.Key_Home], self.reset, "Back to the start")
        self._action("generate", "Generate", [QKeySequence(C | K.Key_Return), QKeySequence(C | K.Key_Enter)],
                     self.generate, "Run the model on the prompt")
        self._action("stop", "Stop", [], self.stop_generation, "Stop the generation (what is recorded stays)")
        self._action("presenter", "Presenter mode", [K.Key_F11], self.presenter.toggle,
                     "Full screen, large type, high contrast, controls hidden")
        self.actions_by_name["presenter"].setCheckable(True)
        self._action("leave_presenter", "Leave presenter mode", [K.Key_Escape], self.presenter.leave)
        self._action("zoom_in", "Zoom in", [QKeySequence.StandardKey.ZoomIn, QKeySequence(C | K.Key_Equal),
                                            QKeySequence(C | K.Key_Plus)], lambda: self.view.zoom_in())
        self._action("zoom_out", "Zoom out", [QKeySequence.StandardKey.ZoomOut, QKeySequence(C | K.Key_Minus)],
                     lambda: self.view.zoom_out())
        self._action("zoom_reset", "Fit to window", [QKeySequence(C | K.Key_0)], lambda: self.view.reset_zoom())
        self._action("export", "Export illustration…", [QKeySequence(C | K.Key_E)], self.export_dialog,
                     "Save the current frame as SVG or PNG")
        self._action("quit", "Quit", [QKeySequence.StandardKey.Quit], self.close)
        self.presenter_changed.connect(self.actions_by_name["presenter"].setChecked)
        sp = QStyle.StandardPixmap
        self._icons = {name: self.style().standardIcon(pix) for name, pix in (
            ("reset", sp.SP_MediaSkipBackward), ("prev", sp.SP_MediaSeekBackward), ("play", sp.SP_MediaPlay),
            ("pause", sp.SP_MediaPause), ("next", sp.SP_MediaSeekForward), ("next_token", sp.SP_MediaSkipForward),
            ("stop", sp.SP_MediaStop))}
        for name, icon in self._icons.items():
            if name in self.actions_by_name:
                self.actions_by_name[name].setIcon(icon)

    def _build_controls(self) -> None:
        panel = QWidget()
        col = QVBoxLayout(panel)
        col.setContentsMargins(10, 10, 10, 10)
        col.addWidget(QLabel("<b>Prompt</b>"))
        self.prompt = QPlainTextEdit()
        self.prompt.setObjectName("prompt")
        self.prompt.setPlaceholderText("Type what the model should continue…")
        self.prompt.setPlainText("The capital of France is")
        self.prompt.setTabChangesFocus(True)
        self.prompt.setMinimumHeight(70)
        self.prompt.setMaximumHeight(120)
        col.addWidget(self.prompt)
        self.chat = QCheckBox("Chat mode (wrap the prompt as a user message)")
        self.chat.setObjectName("chat")
        self.chat.setToolTip("Puts the prompt inside the model's chat template, so it answers instead of continuing the text")
        col.addWidget(self.chat)
        row = QWidget()
        buttons = QVBoxLayout(row)
        buttons.setContentsMargins(0, 0, 0, 0)
        self.generate_button = QPushButton("Generate")
        self.generate_button.setObjectName("generate")
        self.generate_button.setDefault(True)
        self.generate_button.setMinimumHeight(40)
        f = self.generate_button.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.generate_button.setFont(f)
        self.generate_button.setToolTip("Run the model on the prompt (Ctrl+Enter)")
        self.generate_button.clicked.connect(self.generate)
        self.generate_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("stop")
        self.stop_button.clicked.connect(self.stop_generation)
        self.stop_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        buttons.addWidget(self.generate_button)
        buttons.addWidget(self.stop_button)
        col.addWidget(row)

        col.addSpacing(6)
        col.addWidget(QLabel("<b>Examples</b>"))
        self.example_buttons: list[QPushButton] = []
        for label, text, chat in EXAMPLES:
            b = QPushButton(label)
            b.setObjectName("example")
            b.setFlat(False)
            b.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            b.setToolTip(f"Use this prompt{' in chat mode' if chat else ''}")
            b.clicked.connect(lambda _c=False, t=text, ch=chat: self.use_example(t, ch))
            col.addWidget(b)
            self.example_buttons.append(b)

        col.addSpacing(6)
        self.sampling = SamplingPanel()
        col.addWidget(self.sampling)
        col.addStretch(1)

        scroll = QScrollArea()
        scroll.setWidget(panel)
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
        col.addWidget(self.transport)
        self.setCentralWidget(central)

    def _build_menus(self) -> None:
        a = self.actions_by_name
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        file_menu.addAction(a["export"])
        file_menu.addSeparator()
        file_menu.addAction(a["quit"])
        run = mb.addMenu("&Run")
        run.addAction(a["generate"])
        run.addAction(a["stop"])
        run.addSeparator()
        for name in ("prev", "next", "next_token", "play", "reset"):
            run.addAction(a[name])
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
        view.addAction(a["zoom_in"])
        view.addAction(a["zoom_out"])
        view.addAction(a["zoom_reset"])
        view.addSeparator()
        view.addAction(self.control_dock.toggleViewAction())

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.busy_bar = QProgressBar()
        self.busy_bar.setObjectName("busy")
        self.busy_bar.setRange(0, 0)  # indeterminate
        self.busy_bar.setMaximumWidth(120)
        self.busy_bar.setMaximumHeight(14)
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

    def _connect_controller(self) -> None:
        c = self.controller
        c.model_loading.connect(lambda: self._set_activity("Loading the model…"))
        c.model_ready.connect(self._on_model_ready)
        c.model_missing.connect(self._on_model_missing)
        c.build_progress.connect(self.build_panel.set_progress)
        c.step_ready.connect(self._on_step_ready)
        c.generation_finished.connect(self._on_generation_finished)
        c.generation_cancelled.connect(self._on_generation_cancelled)
        c.error.connect(self._on_error)
        c.busy_changed.connect(self._on_busy)
        c.activity_changed.connect(lambda what: what and self._set_activity(what))

    # ------------------------------------------------------------------ themes

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
        bg, fg = _qcolor(theme.background), _qcolor(theme.foreground)
        self.view.setBackgroundBrush(bg)
        pal = QPalette(self.palette())
        panel = _qcolor(theme.panel)
        if name == "light":
            panel = panel.darker(102)
        muted = _qcolor(theme.muted)
        R, G = QPalette.ColorRole, QPalette.ColorGroup
        for group in (G.Active, G.Inactive):
            for role, color in ((R.Window, panel), (R.WindowText, fg), (R.Base, bg), (R.AlternateBase, panel),
                                (R.Text, fg), (R.Button, panel), (R.ButtonText, fg), (R.ToolTipBase, bg),
                                (R.ToolTipText, fg), (R.Highlight, _qcolor(theme.accent)),
                                (R.HighlightedText, _qcolor(theme.accent_text)), (R.PlaceholderText, muted)):
                pal.setColor(group, role, color)
        for role, color in ((R.Window, panel), (R.WindowText, muted), (R.Base, panel), (R.Text, muted),
                            (R.Button, panel), (R.ButtonText, muted)):
            pal.setColor(G.Disabled, role, color)
        self.setPalette(pal)

    def _on_system_scheme(self, *_args) -> None:
        if self.theme_choice == "system" and not self.presenter.active:
            self.apply_theme("system")

    # ------------------------------------------------------------------ generation

    def use_example(self, text: str, chat: bool) -> None:
        self.prompt.setPlainText(text)
        self.chat.setChecked(chat)
        self.banner.hide()

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
        self.set_playing(False)
        self._stop_animation()
        self.trace, self.lesson, self.cursor = None, None, None
        self.generating = True
        self._waiting_for_step = False
        self.scene.show_empty("Reading the prompt…")
        self.metrics.setText("")
        self.controller.generate(prompt, settings, self.chat.isChecked())
        self._set_activity("Generating…")
        self._update_actions()
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)  # Space steps right away

    def stop_generation(self) -> None:
        if self.generating:
            self.controller.cancel()
            self.generating = False
            self._set_activity("Stopped; what was recorded can still be stepped through")
            self._update_actions()

    def _on_step_ready(self, trace) -> None:
        self._set_trace(trace)
        if self.cursor is None:
            self._show(self.lesson.first(), animate=False)
        elif self.playing and self._waiting_for_step:
            self._waiting_for_step = False
            self._play_step()
        else:
            self._update_position()

    def _on_generation_finished(self, trace) -> None:
        self.generating = False
        self._set_trace(trace)
        if self.cursor is None:
            self._show(self.lesson.first(), animate=False)
        elif not self.scene.is_animating():
            self.scene.show_frame(self.trace, self.cursor, animate=False)  # final counters, stop reason
        if self.playing and self._waiting_for_step:
            self._waiting_for_step = False
            self._play_step()
        n = len(trace.steps)
        why = {"eos": "the model chose end-of-text", "max_tokens": "max new tokens reached",
               "context": "the context window is full"}.get(trace.stop_reason or "", "")
        self._set_activity(f"Done: {n} token{'s' if n != 1 else ''} ({why}). Step through with → / Space.")
        self._update_position()
        self._update_actions()

    def _on_generation_cancelled(self) -> None:
        if not self.controller.generating:
            self.generating = False
            self._update_actions()

    def _set_trace(self, trace) -> None:
        self.trace = trace
        if self.lesson is None:
            self.lesson = Lesson(trace)
        else:
            self.lesson.set_trace(trace)
        ttft, tpot = trace.ttft_s, trace.tpot_s
        parts = []
        if ttft is not None:
            parts.append(f"TTFT {ttft * 1000:.0f} ms")
        parts.append(f"TPOT {tpot * 1000:.1f} ms" if tpot is not None else "TPOT –")
        parts.append(trace.model.provider)
        self.metrics.setText("  ·  ".join(parts))
        self._update_actions()

    # ------------------------------------------------------------------ model / errors

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
        self.generating = False  # every error ends the generation it belongs to (if any)
        self.show_error(message, hint)
        if self.build_panel.isVisible() and not self.build_panel.button.isEnabled():
            self.build_panel.failed()
        if self.trace is None:
            self.scene.show_empty(WELCOME)
        self._set_activity("")
        self._update_actions()

    def show_error(self, message: str, hint: str = "") -> None:
        self.banner.show_error(message, hint)

    def _on_busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        if not busy and not self.generating and self.activity.text().endswith("…"):
            self._set_activity("")

    def _set_activity(self, text: str) -> None:
        self.activity.setText(text)

    # ------------------------------------------------------------------ stepping

    def _ready(self) -> bool:
        return self.trace is not None and self.lesson is not None and self.cursor is not None

    def _show(self, cursor: Cursor, animate: bool) -> None:
        self.cursor = cursor
        self.scene.show_frame(self.trace, cursor, animate=animate and self.transport.speed_factor() > 0)
        self._update_position()
        self._update_actions()
        self.frame_shown.emit(cursor)
        if self.playing:
            self._schedule_play()

    def _stop_animation(self) -> None:
        if self.scene.is_animating():
            self.scene.finish_animation()

    def step_forward(self) -> None:
        if not self._ready():
            return
        self._stop_animation()
        nxt = self.lesson.next(self.cursor)
        if nxt is None:
            if self.generating:
                self._set_activity("Waiting for the model's next token…")
            return
        self._show(nxt, animate=True)

    def step_back(self) -> None:
        if not self._ready():
            return
        self.set_playing(False)
        self._stop_animation()
        prev = self.lesson.prev(self.cursor)
        if prev is not None:
            self._show(prev, animate=False)

    def next_token(self) -> None:
        if not self._ready():
            return
        self._stop_animation()
        nxt = self.lesson.next_token(self.cursor)
        if nxt is not None:
            self._show(nxt, animate=True)

    def reset(self) -> None:
        if not self._ready():
            return
        self.set_playing(False)
        self._stop_animation()
        self._show(self.lesson.first(), animate=False)

    def show_last(self) -> None:
        """Jump to the end of what is recorded (used by export and tests)."""
        if self._ready():
            self._stop_animation()
            self._show(self.lesson.last(), animate=False)

    # ------------------------------------------------------------------ play

    def toggle_play(self) -> None:
        self.set_playing(not self.playing)

    def set_playing(self, on: bool) -> None:
        if on and not self._ready():
            return
        if on == self.playing:
            return
        self.playing = on
        self._waiting_for_step = False
        play = self.actions_by_name["play"]
        play.setText("Pause" if on else "Play")
        play.setIcon(self._icons["pause" if on else "play"])
        if not on:
            self._play_timer.stop()
            return
        if self.lesson.is_finished(self.cursor):
            self._show(self.lesson.first(), animate=False)
        else:
            self._play_step()

    def dwell_ms(self) -> int:
        speed = self.transport.speed_factor()
        return INSTANT_DWELL_MS if speed <= 0 else int(PLAY_DWELL_MS / speed)

    def _schedule_play(self) -> None:
        if not self.playing:
            return
        if self.scene.is_animating():
            return  # _on_animation_finished schedules the next stage
        self._play_timer.start(self.dwell_ms())

    def _on_animation_finished(self) -> None:
        if self.playing and not self._play_timer.isActive():
            self._play_timer.start(self.dwell_ms())

    def _play_step(self) -> None:
        if not self.playing or not self._ready():
            return
        nxt = self.lesson.next(self.cursor)
        if nxt is None:
            if self.generating:
                self._waiting_for_step = True  # _on_step_ready continues
                self._set_activity("Waiting for the model's next token…")
            else:
                self.set_playing(False)
            return
        self._show(nxt, animate=True)

    def _on_speed(self, factor: float) -> None:
        self.scene.set_speed(factor)

    # ------------------------------------------------------------------ state shown

    def _update_position(self) -> None:
        if not self._ready():
            self.transport.set_position("")
            return
        n = len(self.trace.steps)
        more = "…" if self.generating else ""
        c = self.cursor
        phase = "reading the prompt" if c.step == 0 else "one new token"
        self.transport.set_position(
            f"Token {c.step + 1} of {n}{more}  ·  {STAGE_NAMES.get(c.stage, str(c.stage))}  ({phase})"
        )

    def _update_actions(self) -> None:
        a = self.actions_by_name
        ready = self._ready()
        a["prev"].setEnabled(ready and self.lesson.prev(self.cursor) is not None)
        a["next"].setEnabled(ready)
        a["next_token"].setEnabled(ready)
        a["play"].setEnabled(ready)
        a["reset"].setEnabled(ready)
        a["export"].setEnabled(ready)
        a["stop"].setEnabled(self.generating)
        self.stop_button.setEnabled(self.generating)

    # ------------------------------------------------------------------ export

    def export_dialog(self) -> None:
        if not self._ready():
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export the illustration", "explainer.svg",
                                              "SVG image (*.svg);;PNG image (*.png)")
        if path:
            self.export(path)

    def export(self, path: str) -> None:
        from explainer.diagram import render

        self._stop_animation()
        try:
            if path.lower().endswith(".png"):
                render.render_scene_png(self.scene, path)
            else:
                c = self.cursor
                render.render_scene_svg(self.scene, path, title=f"{self.trace.prompt!r}: token {c.step + 1}, {c.stage.value}",
                                        description="How a language model writes, one step of the loop (explainer)")
        except (OSError, ExplainerError) as exc:
            msg, hint = (exc.message, exc.hint) if isinstance(exc, ExplainerError) else (str(exc), "choose another folder")
            self.show_error(f"could not export: {msg}", hint)
            return
        self._set_activity(f"Exported {path}")

    # ------------------------------------------------------------------ shutdown

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        self.hide()  # gone at once, even if a model load (seconds) must finish before the join
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop playing and animating, cancel generation and join the worker thread."""
        if self._closed:
            return
        self._closed = True
        self._play_timer.stop()
        self.playing = False
        self._stop_animation()
        self.controller.shutdown()
        if QApplication.instance() is not None:
            try:
                QApplication.styleHints().colorSchemeChanged.disconnect(self._on_system_scheme)
            except (RuntimeError, TypeError):
                pass
