"""The window's colour policy (ui/window_theme.py): 'system' follows the desktop's scheme as it
changes, a fixed choice does not, and presenter mode's projector theme stays on screen through a
change until presenter mode ends and the choice is applied again."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

import explainer.ui.window_theme as window_theme


@pytest.fixture
def desktop_scheme(monkeypatch):
    """``set(name)``: the desktop's scheme turns ``name`` ('light' or 'dark'), said as Qt says it."""

    def set_scheme(name: str) -> None:
        monkeypatch.setattr(window_theme, "system_theme_name", lambda: name)
        scheme = Qt.ColorScheme.Dark if name == "dark" else Qt.ColorScheme.Light
        QApplication.styleHints().colorSchemeChanged.emit(scheme)

    return set_scheme


def test_system_follows_the_desktop_and_a_fixed_choice_does_not(make_window, desktop_scheme):
    w = make_window(load=False)
    assert w.theme_choice == "system"
    desktop_scheme("dark")
    assert w.theme_name == "dark" and w.scene.theme.name == "dark"
    desktop_scheme("light")
    assert w.theme_name == "light" and w.scene.theme.name == "light"
    w.registry["theme_dark"].trigger()
    desktop_scheme("light")
    assert (w.theme_choice, w.theme_name) == ("dark", "dark")


def test_presenter_mode_keeps_the_projector_colours_through_a_change(make_window, desktop_scheme):
    w = make_window(load=False)
    desktop_scheme("light")
    w.presenter.enter()
    desktop_scheme("dark")
    assert w.theme_name == "projector" and w.theme_choice == "system"
    w.presenter.leave()
    assert w.theme_name == "dark"  # the choice applied again: the desktop's scheme as it is now
    desktop_scheme("light")
    assert w.theme_name == "light"


def test_a_closed_window_no_longer_follows(make_window, desktop_scheme):
    w = make_window(load=False)
    desktop_scheme("light")
    w.close()
    desktop_scheme("dark")  # (a window closed must not be touched: its parts are going)
    assert w.theme_name == "light"


def test_a_window_destroyed_unclosed_no_longer_follows(qtbot, desktop_scheme):
    """The desktop's signal is the application's: a window destroyed without being closed (a
    test's, a host's) must not be reached through it, its parts gone."""
    import shiboken6

    from explainer.ui.controller import EngineController
    from explainer.ui.main_window import MainWindow

    w = MainWindow(EngineController())
    w.controller.shutdown()  # (its worker thread; the window itself is not closed)
    shiboken6.delete(w)
    desktop_scheme("dark")  # an exception in the slot would fail the test (pytest-qt)
