"""The main window: the diagram, the control panel, the transport bar, banners, status.

The window builds its parts and wires them together; what they do is in modules of their own:
Generate and the run arriving (ui/generation.py), the model's events (ui/model_events.py), the
commands and menus from the action table (ui/actions.py), the settings through their schema
(ui/settings.py), the theme and the desktop's colour scheme (ui/window_theme.py), the layout
restored and kept (ui/window_layout.py), the order things stop in (ui/window_close.py). Each
part takes the window once, as ``window`` (ui/window_host.py). The Stepper walks the recorded
trace, so stepping never reruns the model.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from explainer.content.assets import load_texts
from explainer.content.texts import LessonTexts
from explainer.diagram.theme import THEMES
from explainer.stages import Cursor
from explainer.ui.screen_fit import keep_on_screen_settled, open_place, open_size
from explainer.ui.settings import AppSettings
from explainer.ui.style import use_focus_ring_style
from explainer.ui.window_close import close_parts, stop_build
from explainer.ui.window_face import WindowFace
from explainer.ui.window_theme import WindowTheme
from explainer.ui_model.actions import MenuId

if TYPE_CHECKING:
    from explainer.ui.classroom.mode import ClassMode
    from explainer.ui.compact import CompactControls
    from explainer.ui.controller import EngineController
    from explainer.ui.lecture import Lecture
    from explainer.ui.transport import TransportBar


class MainWindow(WindowFace):
    """The window's build and wiring; what it answers its parts is its base's (ui/window_face.py)."""

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
        self.theme = WindowTheme(self)  # the first frame's colours: the desktop's scheme
        self.text_scale = 1.0  # View > Text size (ui/text_size.py), read by the theme shown
        self.settings = AppSettings()
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
        """The window's parts, one per step (once the modules are imported, each step is short
        enough that no frame waits for it)."""
        from explainer.ui import window_parts as parts

        yield from self._build_diagram()
        self.stepper = parts.Stepper(self.scene, self)
        self.presenter = parts.PresenterMode(self, lambda on: self.lecture.plan(on))
        self.lecture = parts.Lecture(self.settings, lambda: self.presenter.active, self)  # the room layout
        self.presenter_changed.connect(self.lecture.refresh)
        self.lecture.screens_changed.connect(lambda: self.presenter.refit(self.lecture.plan(True)))
        self.files = parts.RunFiles(self)
        yield
        self.controls = parts.PromptPanel(self.texts)
        self.prompt, self.sampling = self.controls.prompt, self.controls.sampling
        self.generate_button = self.controls.generate_button
        yield
        self.control_dock = parts.control_dock(self, self.controls, self.word("window", "controls"))
        # every command and menu, by id (ui/actions.py)
        self.registry = parts.ActionRegistry(self, self.texts, self.settings)
        parts.build_actions(self)
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
        yield
        # last of the parts that can fail: a worker thread started before a failure would outlive the window
        made = controller() if callable(controller) else controller
        self.controller = made or parts.EngineController(parent=self, model=parts.first_model(self.settings, model))
        self.model_events = parts.ModelEvents(self)  # each listens to the controller for what it shows
        self.run = parts.Generation(self, self.announcer)
        self.runs = parts.Runs(self)  # "Your turn": the model's run and the learner's branch
        self._wire_controls()
        self._wire_views()
        yield
        yield from self._build_lesson()
        yield from self._build_view_settings()
        # the focused control keeps the keys it uses (ui/focus_keys.py)
        self._keys = parts.FocusKeys(self, home=self.view)
        self.theme.follow_system()
        yield
        self.registry.fill_menus()  # every action is made: the menus list them (ui_model/actions.py)
        yield
        self.scene.show_empty(self.word("window", "welcome"))
        yield
        parts.restore_layout(self)  # as the learner left it, the keyboard in the prompt (ui/window_layout.py)
        yield
        self.view.setUpdatesEnabled(True)
        self.built = True

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
        self.lesson = parts.install_lesson(self, dock)
        yield
        self.queue_panel = parts.install_queue(self, self.lesson.dock)  # class mode's queue (ui/queue_install.py)
        # a narrow window folds its controls (ui/compact.py), never in presenter mode's full screen
        self.compact: CompactControls = parts.CompactControls(self, self.lesson.dock, lambda: self.presenter.active)
        yield
        self.class_mode: ClassMode = parts.install_class(self, self.lesson.names)  # ui/classroom/
        self.class_mode.changed.connect(self.lecture.refresh)
        self.lecture.follow_class(lambda: self.class_mode.active)
        self.console = parts.Console(self)  # the presenter's own window (ui/console_install.py)
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

    # --- what the window does itself ------------------------------------------------------

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
        """Stop everything the window started, once, in the order ui/window_close.py gives; a
        window closed before it was built stops its build (nothing of it runs yet)."""
        if self._closed:
            return
        self._closed = True
        if self.built:
            close_parts(self)
        else:  # (the controller is made in the build's later parts)
            stop_build(self._parts, self.settings, getattr(self, "controller", None))
