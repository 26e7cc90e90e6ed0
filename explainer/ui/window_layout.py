"""The window's layout as the learner left it: restored once every part is made, kept on quitting.

Restoring is the build's last step, in an order that matters:

1. the docks and bars as they were left (``AppSettings.restore_docks``), while the narrow
   window's fold is held: the layout kept is the unfolded one, and restoring the Lesson dock
   would otherwise fold the controls midway, a fold the rest of the restore then undoes
   (ui/compact.py, ``restoring``);
2. class mode's panel placed by the room's layout: a layout an earlier version saved while class
   mode was on shows its panel, which class mode off hides;
3. the controls folded if the window is narrow (it was shown before the fold was made);
4. the keyboard in the prompt, first in the Tab order, as when the window was shown whole (a part
   made in a turn of its own may have taken the focus);
5. the commands enabled or not for what is on screen, now that every one is made.

Kept on quitting: outside presenter mode only (its full screen is not a layout to keep), and
unfolded, so that a wider window next time opens with the Controls dock where it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit

from explainer.ui.window_host import WindowHost

if TYPE_CHECKING:
    from explainer.ui.classroom.mode import ClassMode
    from explainer.ui.command_state import CommandState
    from explainer.ui.compact import CompactControls
    from explainer.ui.presenter import PresenterMode
    from explainer.ui.settings import AppSettings


class LayoutHost(WindowHost, Protocol):
    """What restoring and keeping the layout touch of the window."""

    @property
    def settings(self) -> AppSettings: ...
    @property
    def compact(self) -> CompactControls: ...
    @property
    def class_mode(self) -> ClassMode: ...
    @property
    def presenter(self) -> PresenterMode: ...
    @property
    def prompt(self) -> QPlainTextEdit: ...
    @property
    def commands(self) -> CommandState: ...


def restore_layout(window: LayoutHost) -> None:
    """The window as it was left, its parts all made (the order: see the module docstring)."""
    with window.compact.restoring():
        window.settings.restore_docks(window.qt_window)
    window.class_mode.place()
    window.compact.update()
    if window.prompt.isVisibleTo(window.qt_window):
        window.prompt.setFocus(Qt.FocusReason.OtherFocusReason)
    window.commands.refresh()


def keep_layout(window: LayoutHost) -> None:
    """The layout saved as the learner leaves it, unless presenter mode is on (presenter mode
    itself is the question here: its full screen hides every dock and bar)."""
    if window.presenter.active:
        return
    window.compact.set_compact(False)
    window.settings.save_window(window.qt_window)
