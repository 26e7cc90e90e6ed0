"""The main window: the diagram, the control panel, the transport bar, banners, status.

The window wires things together and holds no model logic: the controller runs the engine in
its worker thread; the Stepper walks the recorded trace (`scene.show_frame(trace, cursor)`),
so stepping back and forth never reruns the model; only Generate does. While a generation
runs, each new step arrives as a trace snapshot, the walk grows with it, and Play follows.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from explainer.content.assets import load_texts
from explainer.content.texts import LessonTexts
from explainer.diagram.scene import LifecycleScene
from explainer.diagram.theme import THEMES, system_theme_name
from explainer.diagram.view import DiagramView
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.frames import panels as F
from explainer.frames.chart_table import chart_table
from explainer.frames.describe import describe
from explainer.illustration.vocab import Vocabulary, vocabulary_from_labels
from explainer.illustration.walk import Walk
from explainer.stages import Cursor
from explainer.ui.accessible_role import install_diagram_role
from explainer.ui.actions import ActionRegistry, build_actions, transport_icons
from explainer.ui.announce import announce
from explainer.ui.answer_view import AnswerView
from explainer.ui.build_dialog import BuildPanel, ErrorBanner
from explainer.ui.chart_table_view import ChartTableView
from explainer.ui.compact import CompactControls
from explainer.ui.controller import EngineController
from explainer.ui.describe_view import DescribeView
from explainer.ui.focus_areas import Area, cycle, first_control
from explainer.ui.focus_keys import FocusKeys
from explainer.ui.lesson.install import install_lesson, task_control
from explainer.ui.model_menu import ModelMenu
from explainer.ui.motion import Motion
from explainer.ui.presenter import PresenterMode
from explainer.ui.prompt_panel import PromptPanel
from explainer.ui.run_files import RunFiles
from explainer.ui.sampling_panel import SettingsError
from explainer.ui.screen_fit import keep_on_screen_settled, open_place, open_size
from explainer.ui.settings import AppSettings
from explainer.ui.status import StatusLine, position_text
from explainer.ui.stepper import Stepper
from explainer.ui.style import palette_for, qcolor, use_focus_ring_style
from explainer.ui.text_size import TextSize
from explainer.ui.transport import TransportBar
from explainer.ui.worker import Activity, GenerationRequest, LoadedModel
from explainer.ui.your_turn import Runs
from explainer.ui_model import settings_schema as S
from explainer.ui_model.actions import THEME_CHOICES, MenuId


class MainWindow(QMainWindow):
    presenter_changed = Signal(bool)
    frame_shown = Signal(Cursor)  # the cursor just shown

    def __init__(
        self,
        controller: EngineController | None = None,
        parent: QWidget | None = None,
        texts: LessonTexts | None = None,
        model: str | None = None,
    ) -> None:
        """``texts``: the words to show (the installed language's by default; a test passes a
        pseudo-locale to find any word still written in the code). ``model``: the model to load
        (`explainer --model NAME`); by default the one shown last, else the default model."""
        super().__init__(parent)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            use_focus_ring_style(app)  # (also when a test or a host made the application)
        self.texts = texts or load_texts()
        self.setWindowTitle(self.word("window", "title"))
        self.resize(open_size(self))  # the whole screen (ui/screen_fit.py)
        open_place(self)
        self._closed = False
        self.theme_choice = "system"
        self.theme_name = system_theme_name()
        self.text_scale = 1.0  # View > Text size (ui/text_size.py), read by the theme shown
        self.vocabulary: Vocabulary | None = None  # labels of token ids, once a model is loaded
        self.settings = AppSettings()

        self.scene = LifecycleScene(self.texts, THEMES[self.theme_name])
        self.scene.set_interactive(True)
        install_diagram_role()  # read as an image with the frame as its description, not a filler
        self.view = DiagramView(self.scene)
        self.view.setObjectName("diagram")
        self.view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.view.setAccessibleName(self.word("access", "diagram"))  # its description: the frame in words
        self.view.viewport().setAccessibleName(self.word("access", "diagram"))
        self._announced: tuple[int, str] | None = None  # the pass and stage last announced
        self.stepper = Stepper(self.scene, self)
        self.presenter = PresenterMode(self, self)
        self.files = RunFiles(self, self)

        self._build_controls()
        self.registry = ActionRegistry(self, self.texts)  # every command and menu, by id (ui/actions.py)
        build_actions(self, self, self.registry)
        self.actions_by_name: dict[str, QAction] = self.registry.actions
        self.theme_actions = {c: self.registry[f"theme_{c}"] for c in THEME_CHOICES}
        self.recent_menu = self.registry.menu(MenuId.RECENT)
        self._icons = transport_icons(self)
        for name, icon in self._icons.items():
            if name in self.actions_by_name:
                self.actions_by_name[name].setIcon(icon)
        self._build_central()
        self._build_describe_toggle()
        self._fill_recent(self.settings.recent_files())
        self.status = StatusLine(self.statusBar(), self.texts)
        self.busy_bar, self.activity, self.metrics = self.status.busy_bar, self.status.activity, self.status.metrics
        self.model_label = self.status.model_label
        # last: a worker thread started before a failure above would outlive the window
        self.controller = controller or EngineController(parent=self, model=self._first_model(model))
        open_gguf = self.registry.add("open_gguf", self.open_gguf_dialog)
        self.model_menu = ModelMenu(self.registry.menu(MenuId.MODEL), open_gguf, self)
        self._loaded_model: str | None = None  # the model of the last model_ready
        self.runs = Runs(self, self)  # "Your turn": the model's run and the learner's branch
        self._connect()
        self._build_lesson()

        clicker = self.actions_by_name["clicker_tokens"]
        clicker.setChecked(bool(self.settings.get(S.CLICKER_TOKENS)))
        clicker.toggled.connect(lambda on: self.settings.set(S.CLICKER_TOKENS, bool(on)))
        self._keys = FocusKeys(self, home=self.view)  # the focused control keeps the keys it uses (ui/focus_keys.py)
        QApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme)

        self._build_view_settings()
        self.apply_theme("system")
        self.registry.fill_menus()  # every action is made: the menus list them (ui_model/actions.py)
        self.scene.show_empty(self.word("window", "welcome"))
        self.settings.restore_window(self)
        self._refresh()

    def word(self, section: str, key: str) -> str:
        """One of the window's own words (app.json)."""
        return self.texts.app_text(section, key)

    # --- what tests and the bench read ------------------------------------------------

    @property
    def trace(self) -> Trace | None:
        return self.stepper.trace

    @property
    def walk(self) -> Walk | None:
        return self.stepper.walk

    @property
    def position(self) -> Cursor | None:
        """Where the illustration is: the cursor on screen (None before the first pass)."""
        return self.stepper.cursor

    @property
    def playing(self) -> bool:
        return self.stepper.playing

    @property
    def generating(self) -> bool:
        return self.stepper.generating

    # --- building -------------------------------------------------------------------------

    def _build_controls(self) -> None:
        self.controls = PromptPanel(self.texts)
        c = self.controls
        self.prompt, self.chat, self.sampling = c.prompt, c.chat, c.sampling
        self.generate_button, self.stop_button, self.example_buttons = (
            c.generate_button,
            c.stop_button,
            c.example_buttons,
        )
        c.generate_requested.connect(self.generate)
        c.stop_requested.connect(self.stop_generation)
        c.example_chosen.connect(lambda: self.banner.hide())
        scroll = QScrollArea()
        scroll.setWidget(c)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a frame only: Tab goes to the controls in it
        self.control_dock = QDockWidget(self.word("window", "controls"), self)
        self.control_dock.setObjectName("controls")
        self.control_dock.setWidget(scroll)
        self.control_dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        # never narrower than its controls need (a check box does not wrap): no sideways scrolling
        bar = scroll.verticalScrollBar().sizeHint().width()
        self.control_dock.setMinimumWidth(max(300, c.minimumSizeHint().width() + bar))
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.control_dock)

    def _build_central(self) -> None:
        central = QWidget()
        col = QVBoxLayout(central)
        col.setContentsMargins(6, 6, 6, 0)
        col.setSpacing(6)
        self.banner = ErrorBanner(self.texts)
        self.build_panel = BuildPanel(self.texts)
        self.build_panel.build_requested.connect(self._on_build_requested)
        col.addWidget(self.banner)
        col.addWidget(self.build_panel)
        col.addWidget(self.view, 1)
        self.answer_view = AnswerView(self.texts)
        col.addWidget(self.answer_view)
        self.describe_view = DescribeView(self.texts)  # View > Describe this frame
        self.describe_view.setVisible(self.settings.get(S.DESCRIBE))
        col.addWidget(self.describe_view)
        self.chart_table = ChartTableView(self.texts)  # View > Chart as a table
        self.chart_table.setVisible(self.settings.get(S.CHART_TABLE))
        col.addWidget(self.chart_table)
        self.transport = TransportBar(self.actions_by_name, self.texts)
        col.addWidget(self.transport)
        self.setCentralWidget(central)

    def _connect(self) -> None:
        c = self.controller
        c.model_loading.connect(lambda: self.set_activity(self.word("activity", Activity.LOADING.value)))
        c.model_ready.connect(self._on_model_ready)
        c.model_missing.connect(self._on_model_missing)
        c.model_added.connect(self._on_model_added)
        c.build_progress.connect(self.build_panel.set_progress)
        c.prompt_progress.connect(self._on_prompt_progress)
        c.step_ready.connect(self._on_step_ready)
        c.generation_finished.connect(self._on_generation_finished)
        c.error.connect(self._on_error)
        c.busy_changed.connect(self._on_busy)
        c.activity_changed.connect(self._on_activity)
        self.scene.candidate_activated.connect(self.runs.pick)  # a bar clicked at the sampling stage
        self.scene.frame_changed.connect(self._describe_frame)
        st = self.stepper
        st.frame_shown.connect(self._announce_stage)
        st.swapped.connect(self.status.show_metrics)  # the times of the run on screen (Your turn)
        st.changed.connect(self._refresh)
        st.changed.connect(self._show_answer)
        st.frame_shown.connect(self.frame_shown)
        st.frame_shown.connect(self._show_answer)
        st.playing_changed.connect(self._on_playing)
        st.waiting.connect(lambda: self.set_activity(self.word("window", "waiting")))

    def _view_toggle(self, name: str, view: QWidget, show: Callable[[bool], None]) -> QAction:
        """A checkable View action that shows or hides ``view``, checked as it is now."""
        action = self.registry.add(name)
        action.setChecked(not view.isHidden())
        action.toggled.connect(show)
        return action

    def _build_describe_toggle(self) -> None:
        """View > Describe this frame: the frame in words under the illustration, kept on or off;
        View > Chart as a table likewise."""
        self._view_toggle("describe", self.describe_view, self.show_description)
        self._view_toggle("chart_table", self.chart_table, self.show_chart_table)
        self.registry.adopt("controls", self.control_dock.toggleViewAction())

    def show_description(self, on: bool) -> None:
        self.describe_view.setVisible(on)
        self.settings.set(S.DESCRIBE, bool(on))
        if on:
            self._describe_frame()

    def show_chart_table(self, on: bool) -> None:
        """View > Chart as a table: the chart's candidates one per row (ui/chart_table_view.py)."""
        self.chart_table.setVisible(on)
        self.settings.set(S.CHART_TABLE, bool(on))
        if on:
            self._describe_frame()

    # --- what assistive technology reads (frames/describe.py, ui/announce.py) -------------

    def _describe_frame(self) -> None:
        """The frame on screen in words: the diagram's accessible description and, when shown,
        the Describe this frame panel (the same text)."""
        text = describe(self.scene.frame, self.texts)
        if self.view.accessibleDescription() != text:
            self.view.setAccessibleDescription(text)
        if self.describe_view.isVisible():
            self.describe_view.show_text(text)
        if not self.chart_table.isHidden():
            self.chart_table.show_table(chart_table(self.scene.frame))

    def _announce_stage(self, cursor: Cursor) -> None:
        """A new stage or pass on screen: said in a few words, whatever has focus (the rest is the
        diagram's description)."""
        trace = self.trace
        key = (cursor.step, cursor.stage.value)
        if trace is None or key == self._announced:
            return
        self._announced = key
        stage, n = self.word("stages", cursor.stage.value), cursor.step + 1
        if self.generating:  # the run's length is not known yet: "pass 1 of 1" would be wrong
            announce(self.view, self.word("access", "stage_so_far").format(stage=stage, n=n))
        else:
            announce(self.view, self.word("access", "stage").format(stage=stage, n=n, total=len(trace.steps)))

    # --- the lesson (explainer/ui/lesson) -------------------------------------------------

    def _build_lesson(self) -> None:
        """The Lesson dock (tour, predict, what if?, questions, glossary, lesson complete), its
        keys and menu entries, wired to this window in one call: the window does not know the
        lesson's parts, and the lesson only listens to the window's signals and reads the trace
        it recorded. Before restore_window, so the dock's place is restored with the layout."""
        self.lesson = install_lesson(self, self)
        self.compact = CompactControls(
            self, self, self.lesson.dock, lambda: self.presenter.active
        )  # a narrow window: ui/compact.py

    def focus_area(self, forward: bool) -> None:
        """F6 / Shift+F6: the controls (their dock, or the bar they fold into), the illustration,
        the lesson (landing on the current task's control): ui/focus_areas.py."""
        areas: list[Area] = [
            (lambda: self.compact.bar if self.compact.active else self.control_dock, first_control),
            (lambda: self.view, first_control),
            (lambda: self.lesson.dock, lambda _dock: task_control(self.lesson, in_dock=True)),
        ]
        cycle(areas, forward)

    def _build_view_settings(self) -> None:
        """View > Text size and View > Animations, both remembered (ui/text_size.py, ui/motion.py);
        Motion also saves the transport's speed and gives the stepper the one in effect."""
        self.motion = Motion(self.registry.add("animations"), self.settings, self.transport, self.stepper)
        text_size_menu = self.registry.menu(MenuId.TEXT_SIZE)
        self.text_size = TextSize(self, self.settings, self.texts, self._set_text_scale, text_size_menu)

    def _set_text_scale(self, scale: float) -> None:
        self.text_scale = scale
        self.compact.fit_text()

    # --- themes ----------------------------------------------------------------------

    def apply_theme(self, choice: str, remember: bool = True) -> None:
        """Apply 'system', 'light', 'dark' or 'projector' to the scene and the widgets."""
        name = system_theme_name() if choice == "system" else choice
        if remember:
            self.theme_choice = choice
            if choice in getattr(self, "theme_actions", {}):
                self.theme_actions[choice].setChecked(True)
        self.theme_name = name
        theme = self.compact.shown_theme()
        self.scene.set_theme(theme)
        self.view.setBackgroundBrush(qcolor(theme.background))
        self.setPalette(palette_for(theme, self.palette()))

    def _on_system_scheme(self, *_args: object) -> None:
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
            if self.compact.active:  # the settings are in the folded bar's popup: open it
                self.compact.open_sampling()
            self.sampling.mark_invalid(exc.field)
            return
        if not prompt.strip():
            self.show_error(self.word("window", "empty_prompt"), self.word("window", "empty_prompt_hint"))
            self.prompt.setFocus()
            return
        self.runs.forget()
        self._announced = None  # a new run: its first stage is news
        self.stepper.start_generation()
        self.scene.show_empty(self.word("window", "reading"))
        self.status.show_metrics(None)
        self.controller.generate(GenerationRequest(prompt, settings, self.chat.isChecked()))
        self.set_activity(self.word("activity", Activity.GENERATING.value))
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)  # Space steps right away

    def stop_generation(self) -> None:
        if self.generating:
            self.controller.cancel()
            self.stepper.stop_generation()
            self.status.show_reading(None)
            if self.trace is None:  # stopped while the prompt was being read: nothing recorded
                self.scene.show_empty(self.word("window", "stopped_reading"))
                self.set_activity(self.word("window", "stopped_reading"))
            else:
                self.set_activity(self.word("window", "stopped"))

    def _on_prompt_progress(self, read: int, total: int) -> None:
        """A long prompt is read in chunks (prefill): say how far it is, in the status bar and on
        the canvas, so a 40-second read does not look like a hang."""
        text = self.status.show_reading((read, total))
        if self.trace is None and read < total:
            self.scene.show_empty(text)

    def show_recorded(self, trace: Trace) -> None:
        """Step through a finished run (a saved one) from its first stage, as if just generated."""
        if self.generating:
            self.stop_generation()
        self.banner.hide()
        self.prompt.setPlainText(trace.prompt)
        self.chat.setChecked(trace.chat)
        self.sampling.set_settings(trace.settings)  # Generate would then redo this very run
        self.runs.forget()
        self._announced = None
        self.stepper.start_generation()  # forget the current run ...
        self.stepper.finish(trace)  # ... and take the saved one, complete, at its first frame
        self.status.show_metrics(trace)

    def _on_step_ready(self, trace: Trace) -> None:
        if len(trace.steps) == 1:
            self.status.show_reading(None)
        self.stepper.add_snapshot(trace)
        self.status.show_metrics(trace)

    def _on_generation_finished(self, trace: Trace) -> None:
        self.stepper.finish(trace)
        self.status.show_metrics(trace)
        n = len(trace.steps)
        why = self.word("stop_reasons", trace.stop_reason) if trace.stop_reason else ""
        self.set_activity(self.word("window", "done_one" if n == 1 else "done").format(n=n, why=why))

    # --- model, build, errors ------------------------------------------------------------

    def _first_model(self, asked: str | None) -> str:
        """The model asked for, else the one shown last if it is still known, else the default."""
        from explainer.model.catalog import is_known
        from explainer.model.manifest import DEFAULT_MODEL

        if asked:
            return asked
        saved = self.settings.model_name()
        return saved if saved and is_known(saved) else DEFAULT_MODEL

    def current_model(self) -> str:
        return self.controller.model_name

    def choose_model(self, name: str) -> None:
        """Model > a built model: load it in the worker (what is on screen stays until it is ready)."""
        if name == self.controller.model_name and self._loaded_model == name:
            return
        self.stop_generation()
        self.banner.hide()
        self.set_activity(self.word("window", "switching").format(name=name))
        self.controller.select_model(name)

    def open_gguf_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.word("files", "open_gguf"), "", self.word("files", "open_gguf_filter")
        )
        if path:
            self.add_model_file(path)

    def add_model_file(self, path: str) -> None:
        """Build a GGUF into the cache in the worker, with the build panel's progress, and switch to it."""
        self.stop_generation()
        self.banner.hide()
        self.build_panel.show_adding(os.path.basename(path))
        self.controller.add_gguf(path)

    def _on_model_added(self, name: str, reused: bool) -> None:
        self.set_activity(self.word("window", "model_reused" if reused else "model_added").format(name=name))

    def _forget_run(self) -> None:
        """The run on screen was another model's: its token ids mean nothing to this one's vocabulary."""
        if self.trace is not None or self.generating:
            self.runs.forget()
            self.stepper.start_generation()
            self.stepper.stop_generation()
            self.status.show_metrics(None)
            self.scene.show_empty(self.word("window", "welcome"))

    def _on_model_ready(self, model: LoadedModel) -> None:
        if self._loaded_model is not None and model.name != self._loaded_model:
            self._forget_run()
        self._loaded_model = model.name
        self.settings.set_model_name(model.name)
        self.build_panel.adding = False
        self.model_menu.check(model.name)
        self.build_panel.hide()
        self.vocabulary = vocabulary_from_labels(model.vocabulary)
        self.scene.set_vocabulary(self.vocabulary)
        self.scene.set_model_info(model.info)  # the empty frame shows the real sizes, not placeholders
        self.status.show_model(model.info)
        if not self.generating:
            self.set_activity(self.word("window", "model_ready").format(welcome=self.word("window", "welcome")))

    def _on_model_missing(self, message: str) -> None:
        from explainer.illustration.formatting import byte_size
        from explainer.model.manifest import load_manifest

        try:
            m = load_manifest(self.controller.model_name)
            name, size = m.display_name, byte_size(m.source.gguf_size)
        except ExplainerError:  # (a name without a manifest): the offer still reads
            name, size = self.controller.model_name, "?"
        self.build_panel.offer(message, name, size)
        self.status.show_model(None)
        self.set_activity(self.word("window", "not_built"))

    def _on_build_requested(self) -> None:
        self.banner.hide()
        self.controller.build_model()

    def _on_error(self, message: str, hint: str) -> None:
        self.stepper.stop_generation()  # an error ends the generation it belongs to (if any)
        self.runs.failed()  # ... or the pick it belongs to
        self.show_error(message, hint)
        if self.build_panel.adding:  # a GGUF that could not be built: the banner says why
            self.build_panel.hide()
            self.build_panel.adding = False
        elif self.build_panel.isVisible() and not self.build_panel.button.isEnabled():
            self.build_panel.failed()
        if self.trace is None:
            self.scene.show_empty(self.word("window", "welcome"))
        self.set_activity("")

    def show_error(self, message: str, hint: str = "") -> None:
        self.banner.show_error(message, hint)

    def _on_busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        if not busy and not self.generating and self.activity.text().endswith("…"):
            self.set_activity("")

    def remember_file(self, path: str) -> None:
        """A run saved or opened: first in File > Open recent."""
        self._fill_recent(self.settings.add_recent(path))

    def _fill_recent(self, paths: list[str]) -> None:
        self.recent_menu.clear()
        for path in paths:
            action = self.recent_menu.addAction(os.path.basename(path))
            action.setToolTip(path)
            action.triggered.connect(lambda _c=False, p=path: self.files.open_trace(p))
        self.recent_menu.setEnabled(bool(paths))

    def set_activity(self, text: str) -> None:
        self.activity.setText(text)

    def _on_activity(self, what: Activity) -> None:
        if what is not Activity.IDLE:
            self.set_activity(self.word("activity", what.value))

    # --- state shown -------------------------------------------------------------------------

    def _on_playing(self, on: bool) -> None:
        play = self.actions_by_name["play"]
        play.setText(self.word("actions", "pause" if on else "play"))
        play.setIcon(self._icons["pause" if on else "play"])

    def _refresh(self) -> None:
        st, a = self.stepper, self.actions_by_name
        ready = st.ready
        self.transport.set_position(position_text(self.texts, st.trace, st.cursor, st.generating))
        a["prev"].setEnabled(
            ready and st.walk is not None and st.cursor is not None and st.walk.prev(st.cursor) is not None
        )
        for name in ("next", "next_token", "play", "reset", "export"):
            a[name].setEnabled(ready)
        a["save_trace"].setEnabled(ready and not st.generating)
        a["export_run"].setEnabled(ready and not st.generating)
        a["save_lesson"].setEnabled(ready and not st.generating)
        a["stop"].setEnabled(st.generating)
        self.stop_button.setEnabled(st.generating)

    def _show_answer(self) -> None:
        """The whole text at the frame on screen, under the illustration (ui/answer_view.py)."""
        trace = self.trace
        self.answer_view.show_tokens(
            self.scene.frame[F.TOKENS] if trace is not None else None, bool(trace and trace.chat)
        )

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        keep_on_screen_settled(self)  # now that the title bar's size is known, and once laid out

    # --- shutdown ------------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        self.hide()  # gone at once, even if a model load (seconds) must finish before the join
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop playing and animating, cancel the generation and join the worker thread."""
        if self._closed:
            return
        self._closed = True
        if not self.presenter.active:  # presenter mode's full screen is not the layout to keep
            self.compact.set_compact(False)  # the layout kept is the unfolded one
            self.settings.save_window(self)
        self.settings.sync()
        self.stepper.stop()
        self.files.shutdown()
        self.controller.shutdown()
        with contextlib.suppress(RuntimeError, TypeError):
            QApplication.styleHints().colorSchemeChanged.disconnect(self._on_system_scheme)
