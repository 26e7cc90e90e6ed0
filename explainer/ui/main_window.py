"""The main window: the diagram, the control panel, the transport bar, banners, status.

The window builds its parts and wires them together; what they do is in modules of their own:
Generate and the run arriving (ui/generation.py), the model's events (ui/model_events.py), the
commands and menus from the action table (ui/actions.py), the settings through their schema
(ui/settings.py). The Stepper walks the recorded trace, so stepping never reruns the model.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QWidget

from explainer.content.assets import load_texts
from explainer.content.texts import LessonTexts
from explainer.diagram.theme import THEMES, system_theme_name
from explainer.stages import Cursor
from explainer.ui.screen_fit import keep_on_screen_settled, open_place, open_size
from explainer.ui.settings import AppSettings
from explainer.ui.style import palette_for, use_focus_ring_style
from explainer.ui_model.actions import THEME_CHOICES, MenuId

if TYPE_CHECKING:
    from explainer.engine.trace import Trace
    from explainer.illustration.vocab import Vocabulary
    from explainer.illustration.walk import Walk
    from explainer.ui.classroom.mode import ClassMode
    from explainer.ui.compact import CompactControls
    from explainer.ui.controller import EngineController
    from explainer.ui.lecture import Lecture
    from explainer.ui.transport import TransportBar


class MainWindow(QMainWindow):
    presenter_changed = Signal(bool)
    frame_shown = Signal(Cursor)  # the cursor just shown
    # made in _build and read by lambdas made before them
    lecture: Lecture
    transport: TransportBar

    def __init__(
        self,
        controller: EngineController | Callable[[], EngineController] | None = None,
        parent: QWidget | None = None,
        texts: LessonTexts | None = None,
        model: str | None = None,
        in_turns: bool = False,
    ) -> None:
        """``texts``: the words to show (the installed language's by default; a test passes a
        pseudo-locale to find any word still written in the code). ``model``: the model to load
        (`explainer --model NAME`); by default the one shown last, else the default model.
        ``controller``: the engine's controller, or what makes it (the build's last part).

        ``in_turns``: build only the window's frame now (its title, place, size, colours and a
        line saying what comes), and the rest with :meth:`build_in_turns` once it is on screen,
        as `explainer` does; otherwise the whole window now (tests, the benches' peers)."""
        super().__init__(parent)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            use_focus_ring_style(app)  # (also when a test or a host made the application)
        self.texts = texts or load_texts()
        self.setWindowTitle(self.word("window", "title"))
        self.resize(open_size(self))  # the whole screen (ui/screen_fit.py)
        open_place(self)
        self._closed = False
        self.built = False
        self.theme_choice, self.theme_name = "system", system_theme_name()
        self.text_scale = 1.0  # View > Text size (ui/text_size.py), read by the theme shown
        self.settings = AppSettings()
        self.setPalette(palette_for(THEMES[self.theme_name], self.palette()))
        self.setCentralWidget(QLabel(self.word("window", "starting"), alignment=Qt.AlignmentFlag.AlignCenter))
        self.settings.restore_geometry(self)
        self._parts: Generator[None, None, None] = self._build(controller, model)
        if not in_turns:
            for _ in self._parts:
                pass

    def build_in_turns(self, built: Callable[[], object]) -> None:
        """Build the rest of the window without holding the event loop: its parts' modules are
        imported in a thread (ui/background_import.py), then each part is made in a turn of
        the event loop of its own (ui/build_in_turns.py); ``built`` runs once all are made."""
        from explainer.ui.build_in_turns import build_in_turns

        build_in_turns(self, self._parts, lambda: self.built and built())

    def _build(
        self, controller: EngineController | Callable[[], EngineController] | None, model: str | None
    ) -> Generator[None, None, None]:
        """The window's parts, one per step (a step takes a few milliseconds once the modules
        are imported: the first frame's 16 ms are not held up by any of them)."""
        from explainer.ui import window_parts as parts

        yield from self._build_diagram()
        self.stepper = parts.Stepper(self.scene, self)
        self.presenter = parts.PresenterMode(self, self, lambda on: self.lecture.plan(on))
        self.lecture = parts.Lecture(self.settings, lambda: self.presenter.active, self)  # the room layout
        self.presenter_changed.connect(self.lecture.refresh)
        self.lecture.screens_changed.connect(lambda: self.presenter.refit(self.lecture.plan(True)))
        self.files = parts.RunFiles(self, self)
        yield
        self.controls = parts.PromptPanel(self.texts)
        self.prompt, self.sampling = self.controls.prompt, self.controls.sampling
        self.generate_button = self.controls.generate_button
        yield
        self.control_dock = parts.control_dock(self, self.controls, self.word("window", "controls"))
        # every command and menu, by id (ui/actions.py)
        self.registry = parts.ActionRegistry(self, self.texts, self.settings)
        parts.build_actions(self, self, self.registry)
        self.theme_actions = {c: self.registry[f"theme_{c}"] for c in THEME_CHOICES}
        yield
        yield from self._build_central()
        yield
        self.recent = parts.RecentMenu(self.registry.menu(MenuId.RECENT), self.settings, self.files.open_trace)
        self.status = parts.StatusLine(self.statusBar(), self.texts)
        self.commands = parts.CommandState(
            self.registry,
            parts.transport_icons(self),
            self.stepper,
            self.transport,
            self.controls.stop_button,
            self.texts,
        )
        self.announcer = parts.StageAnnouncer(self.view, self)
        self.run = parts.Generation(self, self.announcer)
        yield
        # last of the parts that can fail: a worker thread started before a failure would outlive the window
        made = controller() if callable(controller) else controller
        self.controller = made or parts.EngineController(parent=self, model=parts.first_model(self.settings, model))
        self.model_events = parts.ModelEvents(self, self, self.registry)
        self.runs = parts.Runs(self, self)  # "Your turn": the model's run and the learner's branch
        self._wire_controls()
        self._wire_controller()
        self._wire_views()
        yield
        yield from self._build_lesson()
        yield from self._build_view_settings()
        # the focused control keeps the keys it uses (ui/focus_keys.py)
        self._keys = parts.FocusKeys(self, home=self.view)
        QApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme)
        self.apply_theme("system")
        yield
        self.registry.fill_menus()  # every action is made: the menus list them (ui_model/actions.py)
        yield
        self.scene.show_empty(self.word("window", "welcome"))
        yield
        with self.compact.restoring():  # (the saved layout is the unfolded one: ui/compact.py)
            self.settings.restore_docks(self)
        self.class_mode.place()  # (a layout saved while class mode was on by an earlier version shows its panel)
        self.compact.update()  # fold the controls if the window is narrow (it was shown before this part was made)
        if self.prompt.isVisibleTo(self):  # the keyboard to the prompt, first in the Tab order, as when the
            self.prompt.setFocus(Qt.FocusReason.OtherFocusReason)  # window was shown whole (a part took it)
        self.commands.refresh()
        yield
        self.view.setUpdatesEnabled(True)
        self.built = True

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

    @property
    def vocabulary(self) -> Vocabulary | None:
        """Labels of token ids, once a model is loaded."""
        return self.model_events.vocabulary

    # --- building -------------------------------------------------------------------------

    def _build_diagram(self) -> Iterator[None]:
        from explainer.ui import window_parts as parts

        self.scene = parts.LifecycleScene(self.texts, THEMES[self.theme_name], interactive=True)
        yield
        parts.install_diagram_role()  # read as an image with the frame as its description, not a filler
        self.view = parts.DiagramView(self.scene)
        self.view.setObjectName("diagram")
        self.view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.view.setAccessibleName(self.word("access", "diagram"))  # its description: the frame in words
        self.view.viewport().setAccessibleName(self.word("access", "diagram"))
        yield

    def _build_central(self) -> Iterator[None]:
        from explainer.ui import window_parts as parts

        # its first paint (every text's first rendering) once the window is laid out as the learner
        # left it, in a turn of its own: painted earlier, it was painted again at the restored size
        self.view.setUpdatesEnabled(False)
        central = parts.Central(self.view, self.registry.actions, self.texts)
        self.setCentralWidget(central)
        c = self.central = central
        self.banner, self.build_panel, self.transport = c.banner, c.build_panel, c.transport
        self.answer_view, self.describe_view, self.chart_table = c.answer_view, c.describe_view, c.chart_table
        panels = (self.describe_view, self.chart_table)
        self.view_toggles = parts.ViewToggles(self.registry, self.scene, self.view, panels, self.texts)
        self.registry.adopt("controls", self.control_dock.toggleViewAction())
        yield

    def _build_lesson(self) -> Iterator[None]:
        """The Lesson dock (tour, predict, what if?, questions, glossary, lesson complete), its
        keys and menu entries, wired to this window in one call: the window does not know the
        lesson's parts, and the lesson only listens to the window's signals and reads the trace
        it recorded. Before restore_docks, so the dock's place is restored with the layout."""
        from explainer.ui import window_parts as parts

        sections = yield from parts.made_sections(self.texts)
        dock = parts.LessonDock(self.texts, self, sections)
        yield
        self.lesson = parts.install_lesson(self, self, dock)
        yield
        self.queue_panel = parts.install_queue(self, self, self.lesson.dock)  # class mode's queue (ui/queue_install.py)
        self.compact: CompactControls = parts.CompactControls(
            self, self, self.lesson.dock, lambda: self.presenter.active
        )  # a narrow window: ui/compact.py
        yield
        self.class_mode: ClassMode = parts.install_class(self, self, self.registry, self.lesson.names)  # ui/classroom/
        self.class_mode.changed.connect(self.lecture.refresh)
        self.lecture.follow_class(lambda: self.class_mode.active)
        self.console = parts.Console(self, self, self.registry)  # the presenter's own window (ui/console_install.py)
        yield

    def _build_view_settings(self) -> Iterator[None]:
        """View > Text size and Animations, both remembered (ui/text_size.py, ui/motion.py);
        Motion also saves the transport's speed and gives the stepper the one in effect."""
        from explainer.ui import window_parts as parts

        self.motion = parts.Motion(self.registry.add("animations"), self.settings, self.transport, self.stepper)
        yield
        text_size_menu = self.registry.menu(MenuId.TEXT_SIZE)
        self.text_size = parts.TextSize(self, self.settings, self.texts, self._set_text_scale, text_size_menu)
        yield

    # --- wiring ---------------------------------------------------------------------------

    def _wire_controls(self) -> None:
        c = self.controls
        c.generate_requested.connect(self.generate)
        c.stop_requested.connect(self.stop_generation)
        c.example_chosen.connect(lambda: self.banner.hide())
        self.build_panel.build_requested.connect(self.model_events.on_build_requested)

    def _wire_controller(self) -> None:
        """What the controller reports, to the part of the window that shows it."""
        from explainer.ui.window_parts import Activity, ev

        c, m, run = self.controller, self.model_events, self.run
        c.on(ev.ModelLoading, lambda _e: self.set_activity(self.word("activity", Activity.LOADING.value)))
        c.on(ev.ModelReady, lambda e: m.on_ready(e.model))
        c.on(ev.ModelMissing, lambda e: m.on_missing(e.message))
        c.on(ev.ModelAdded, lambda e: m.on_added(e.name, e.reused))
        c.on(ev.ModelChanged, lambda e: m.on_changed(e.name, e.files, e.command))
        c.on(ev.BuildProgress, lambda e: self.build_panel.set_progress(e.phase, e.fraction))
        c.on(ev.PromptProgress, lambda e: run.on_prompt_progress(e.read, e.total))
        c.on(ev.StepReady, lambda e: run.on_step_ready(e.trace))
        c.on(ev.GenerationFinished, lambda e: run.on_finished(e.trace))
        c.on(ev.Failed, lambda e: m.on_error(e.message, e.hint))
        c.on(ev.BusyChanged, lambda e: m.on_busy(e.busy))
        c.on(ev.ActivityChanged, lambda e: m.on_activity(e.activity))

    def _wire_views(self) -> None:
        self.scene.candidate_activated.connect(self.runs.pick)  # a bar clicked at the sampling stage
        self.scene.frame_changed.connect(self.view_toggles.describe_frame)
        st = self.stepper
        st.frame_shown.connect(self.announcer.on_frame_shown)
        st.swapped.connect(self.status.show_metrics)  # the times of the run on screen (Your turn)
        st.changed.connect(self.commands.refresh)
        st.changed.connect(self._show_answer)
        st.frame_shown.connect(self.frame_shown)
        st.frame_shown.connect(self._show_answer)
        st.playing_changed.connect(self.commands.on_playing)
        st.waiting.connect(lambda: self.set_activity(self.word("window", "waiting")))

    # --- what the window's helpers ask of it --------------------------------------------------

    def generate(self) -> None:
        self.run.generate()

    def stop_generation(self) -> None:
        self.run.stop()

    def show_recorded(self, trace: Trace) -> None:
        self.run.show_recorded(trace)

    def private_parent(self) -> QWidget:
        """Where a window with a student's text opens: the presenter console when it is shown."""
        return self.console.parent_for_private() or self

    def show_error(self, message: str, hint: str = "") -> None:
        self.banner.show_error(message, hint)

    def set_activity(self, text: str) -> None:
        self.status.activity.setText(text)

    def remember_file(self, path: str) -> None:
        """A run saved or opened: first in File > Open recent."""
        self.recent.remember(path)

    def focus_area(self, forward: bool) -> None:
        """F6 / Shift+F6 (ui/window_areas.py)."""
        from explainer.ui.window_parts import focus_area

        focus_area(self, forward)

    def apply_theme(self, choice: str, remember: bool = True) -> None:
        """View > Theme: 'system', 'light', 'dark' or 'projector' (ui/window_theme.py)."""
        from explainer.ui.window_parts import apply_theme

        apply_theme(self, self, choice, remember)

    def _on_system_scheme(self, *_args: object) -> None:
        if self.theme_choice == "system" and not self.presenter.active:
            self.apply_theme("system")

    def _set_text_scale(self, scale: float) -> None:
        self.text_scale = scale
        self.compact.fit_text()

    # --- state shown -------------------------------------------------------------------------

    def _show_answer(self) -> None:
        self.central.show_answer(self.scene.frame, self.trace)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        keep_on_screen_settled(self)  # now that the title bar's size is known, and once laid out

    # --- shutdown ------------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        self.hide()  # gone at once, even if a model load (seconds) must finish before the join
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop playing and animating, cancel the generation and join the worker thread. A
        window closed before it was built stops its build (nothing of it runs yet)."""
        if self._closed:
            return
        self._closed = True
        if not self.built:
            self._parts.close()
            self.settings.sync()
            made = getattr(self, "controller", None)  # (made in the build's later parts)
            if made is not None:
                made.shutdown()
            return
        self.class_mode.stop()  # the class page closes with the app; its panel's dock is not kept open
        if not self.presenter.active:  # presenter mode's full screen is not the layout to keep
            self.compact.set_compact(False)  # the layout kept is the unfolded one
            self.settings.save_window(self)
        self.settings.sync()
        self.stepper.stop()
        self.files.shutdown()
        self.controller.shutdown()
        with contextlib.suppress(RuntimeError, TypeError):
            QApplication.styleHints().colorSchemeChanged.disconnect(self._on_system_scheme)
