"""What the main window answers its parts: the members their Protocols name.

Each part of the window reads it through a small Protocol of its own (ui/window_host.py).
MainWindow (ui/main_window.py) makes the parts and wires them together; this class, its base,
holds the members those Protocols, the tests and the bench read or call, each answered by the
part that owns it: the run on screen by the stepper, the vocabulary by the model's side, a
message by the banner or the status line, Generate by the run, the theme by the window's theme.
So a part's Protocol can be checked against one short list, and a stand-in for it
(tests/ui/test_seams.py) needs only the few members its part names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

if TYPE_CHECKING:
    from explainer.content.texts import LessonTexts
    from explainer.diagram.view import DiagramView
    from explainer.engine.trace import Trace
    from explainer.illustration.vocab import Vocabulary
    from explainer.illustration.walk import Walk
    from explainer.stages import Cursor
    from explainer.ui.build_dialog import ErrorBanner
    from explainer.ui.compact import CompactControls
    from explainer.ui.console_install import Console
    from explainer.ui.generation import Generation
    from explainer.ui.lesson.session import LessonSession
    from explainer.ui.model_events import ModelEvents
    from explainer.ui.recent_menu import RecentMenu
    from explainer.ui.status import StatusLine
    from explainer.ui.stepper import Stepper
    from explainer.ui.window_theme import WindowTheme


class WindowFace(QMainWindow):
    """The window's members for its parts (see the module docstring); MainWindow makes the parts."""

    texts: LessonTexts
    theme: WindowTheme
    stepper: Stepper
    model_events: ModelEvents
    run: Generation
    banner: ErrorBanner
    status: StatusLine
    recent: RecentMenu
    console: Console
    compact: CompactControls  # (these four: the areas F6 moves through)
    control_dock: QDockWidget
    view: DiagramView
    lesson: LessonSession

    def word(self, section: str, key: str) -> str:
        """One of the window's own words (app.json)."""
        return self.texts.app_text(section, key)

    # --- what the parts read ---------------------------------------------------------------------

    @property
    def qt_window(self) -> QMainWindow:
        """The window as its parts reach Qt's API (ui/window_host.py): itself."""
        return self

    @property
    def theme_name(self) -> str:
        """The theme shown now (ui/window_theme.py)."""
        return self.theme.name

    @property
    def theme_choice(self) -> str:
        """The learner's View > Theme choice: 'system' or a theme's name."""
        return self.theme.choice

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
    def generating(self) -> bool:
        return self.stepper.generating

    @property
    def vocabulary(self) -> Vocabulary | None:
        """Labels of token ids, once a model is loaded."""
        return self.model_events.vocabulary

    # --- what the parts ask of it ----------------------------------------------------------------

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
        from explainer.ui.window_areas import focus_area

        focus_area(self, forward)

    def apply_theme(self, choice: str, remember: bool = True) -> None:
        """View > Theme: 'system', 'light', 'dark' or 'projector' (ui/window_theme.py)."""
        self.theme.apply(choice, remember)
