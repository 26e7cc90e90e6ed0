"""Closing the window: what stops, and in which order.

The window hides first (``MainWindow.closeEvent``), so what follows never shows; then:

1. class mode stops: the phones are told the session ended, and its panel's dock is hidden
   before the layout is kept, so it does not open with the next start;
2. the layout is kept (ui/window_layout.py) and the settings written to disk, before anything
   below could take long or fail;
3. the stepper stops playing and animating, so no timer fires into a window going away;
4. an export under way is stopped (its half-written file removed) and a file being read is
   waited for (ui/run_files.py);
5. the worker is joined and the model's process ended, last: it may wait for a model load to
   finish (``EngineController.shutdown``);
6. the desktop's colour scheme is no longer followed (ui/window_theme.py).

A window closed before it was built stops its build instead (:func:`stop_build`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Protocol

from explainer.ui.window_layout import LayoutHost, keep_layout

if TYPE_CHECKING:
    from explainer.ui.controller import EngineController
    from explainer.ui.run_files import RunFiles
    from explainer.ui.settings import AppSettings
    from explainer.ui.stepper import Stepper
    from explainer.ui.window_theme import WindowTheme


class CloseHost(LayoutHost, Protocol):
    """What closing stops, beyond the layout it keeps."""

    @property
    def stepper(self) -> Stepper: ...
    @property
    def files(self) -> RunFiles: ...
    @property
    def controller(self) -> EngineController: ...
    @property
    def theme(self) -> WindowTheme: ...


def close_parts(window: CloseHost) -> None:
    """Stop what the built window runs (the order: see the module docstring)."""
    window.class_mode.stop()
    keep_layout(window)
    window.settings.sync()
    window.stepper.stop()
    window.files.shutdown()
    window.controller.shutdown()
    window.theme.stop()


def stop_build(parts: Generator[None, None, None], settings: AppSettings, controller: EngineController | None) -> None:
    """A window closed before its build ended: the build stops where it is (none of its parts
    runs yet), the settings are written, and a controller made already is shut down."""
    parts.close()
    settings.sync()
    if controller is not None:
        controller.shutdown()
