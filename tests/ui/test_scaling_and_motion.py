"""Text that scales and motion that can be turned off (WCAG 1.4.4, 1.4.10, 2.3.3).

- With QT_SCALE_FACTOR=1.5, a 1920 x 1080 screen offers 1280 x 720 device-independent pixels:
  the window opens inside them (the screen's available area is faked: conftest.py desktop).
- View > Text size enlarges the illustration's smallest text, is saved and restored, and at
  150 and 200 %, on a 1366 x 768 laptop and a 1920 x 1080 desktop, no dock scrolls sideways and
  the window and its transport fit the screen (that the illustration's own text fits its panels
  at those sizes is tests/diagram/test_text_in_panels.py).
- View > Animations is saved; off, a step shows its end state at once; where the desktop prefers
  reduced motion (faked through EXPLAINER_REDUCE_MOTION), it starts off. The speed is saved too.
"""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QMenu, QWidget

from explainer.stages import Cursor, Stage
from explainer.ui import motion
from explainer.ui_model.settings_schema import ANIMATIONS
from tests.ui.helpers import generate, settle_layout, smallest_text_px, visible_horizontal_scrollbars

LAPTOP, DESKTOP = QRect(0, 0, 1366, 768), QRect(0, 0, 1920, 1080)
SCALED_1080P = QRect(0, 0, 1280, 720)  # 1920 x 1080 at QT_SCALE_FACTOR=1.5, in device-independent px


@pytest.mark.parametrize("lesson", [True, False], ids=["lesson open", "lesson closed"])
def test_at_scale_factor_1_5_the_window_fits_a_1080p_screen(qtbot, make_window, shared_engine, desktop, lesson):
    desktop.area = SCALED_1080P
    w = make_window(lambda: shared_engine, load=False)
    w.lesson.dock.setVisible(lesson)
    settle_layout(qtbot, w)  # (it widened the window past the screen before)
    assert SCALED_1080P.contains(w.frameGeometry()), w.frameGeometry()
    next_button = w.transport.buttons["next"]
    corner = next_button.mapTo(w, next_button.rect().bottomRight())
    assert w.rect().contains(corner)  # Next and the transport are on the screen


def _view_menu_has(w, name: str) -> bool:
    view = w.menuBar().findChild(QMenu, "view_menu")
    return any(a.objectName() == name or (a.menu() and a.menu().objectName() == name) for a in view.actions())


def test_text_size_enlarges_the_diagrams_smallest_text_and_is_remembered(qtbot, make_window, shared_engine):
    w = make_window(lambda: shared_engine)
    assert _view_menu_has(w, "text_size") and w.text_size.percent == 100
    generate(qtbot, w, "The capital of France is", max_new_tokens=2)
    w.stepper.show(Cursor(1, Stage.PROBABILITIES))
    w.scene.settle()
    before = smallest_text_px(w.scene, w.view)
    w.text_size.actions[150].trigger()
    w.scene.settle()
    after = smallest_text_px(w.scene, w.view)
    assert w.scene.theme.text_scale == 1.5
    assert after >= 1.4 * before, (before, after)
    w.close()
    again = make_window(lambda: shared_engine, load=False)
    assert again.text_size.percent == 150 and again.text_size.actions[150].isChecked()
    assert again.scene.theme.text_scale == 1.5


@pytest.mark.parametrize("area", [LAPTOP, DESKTOP], ids=["1366x768", "1920x1080"])
@pytest.mark.parametrize("percent", [100, 150, 200])
def test_at_large_text_no_dock_scrolls_sideways(
    qtbot, make_window, shared_engine, generate_calls, desktop, percent, area
):
    """On a laptop and a desktop, the window filling the screen: the docks reflow (no sideways
    scroll bar in any lesson tab), the transport is on the window and the window on the screen."""
    desktop.area = area
    w = make_window(lambda: shared_engine)
    w.text_size.set_percent(percent)
    w.resize(area.size() - (w.frameGeometry().size() - w.size()))  # (as maximised)
    w.lesson.dock.show()
    generate(qtbot, w, "Once upon a time", max_new_tokens=2)
    w.scene.settle()
    settle_layout(qtbot, w)
    tabs = w.lesson.dock.tabs
    for i in range(tabs.count()):
        if not tabs.isTabVisible(i):
            continue
        tabs.setCurrentIndex(i)
        settle_layout(qtbot, w)
        for dock in (w.control_dock, w.lesson.dock):
            if dock.isVisible():
                assert visible_horizontal_scrollbars(dock) == [], (percent, dock.objectName(), tabs.tabText(i))
    assert desktop.area.contains(w.frameGeometry())
    for widget in w.transport.findChildren(QWidget):
        if widget.isVisible():
            corner = widget.mapTo(w, widget.rect().bottomRight())
            assert w.rect().contains(corner), (percent, widget.objectName() or type(widget).__name__)


def test_animations_off_is_remembered_and_steps_show_their_end_state_at_once(qtbot, make_window, shared_engine):
    w = make_window(lambda: shared_engine, speed=1.0)  # Normal speed: stepping animates
    assert _view_menu_has(w, "animations") and w.motion.animations
    generate(qtbot, w, "The capital of France is", max_new_tokens=2)
    w.stepper.show(Cursor(0, Stage.TOKENS))
    w.scene.finish_animation()
    w.stepper.forward()
    assert w.scene.is_animating()  # on: the step animates
    w.scene.finish_animation()
    w.motion.action.trigger()  # View > Animations: off
    assert not w.motion.animations and w.transport.speed_factor() == 1.0  # the speed is kept
    for _ in range(4):
        w.stepper.forward()
        assert not w.scene.is_animating()  # the end state, at once
    w.close()
    again = make_window(lambda: shared_engine, load=False, speed=None)
    assert not again.motion.animations and again.stepper.speed == 0.0


def test_the_speed_is_remembered(qtbot, make_window, shared_engine):
    w = make_window(lambda: shared_engine, load=False, speed=None)
    assert w.transport.speed_factor() == 1.0  # Normal on a first start
    w.transport.set_speed(0.0)  # Instant
    w.close()
    again = make_window(lambda: shared_engine, load=False, speed=None)
    assert again.transport.speed_factor() == 0.0 and again.stepper.speed == 0.0


@pytest.mark.parametrize("prefers", ["1", "0"])
def test_where_the_desktop_prefers_reduced_motion_animations_start_off(
    qtbot, make_window, shared_engine, monkeypatch, prefers
):
    monkeypatch.setenv(motion.ENV, prefers)
    w = make_window(lambda: shared_engine, load=False, speed=None)
    reduced = prefers == "1"
    assert w.motion.animations is not reduced
    assert (w.stepper.speed == 0.0) is reduced
    w.motion.set_animations(True)  # the learner's own choice wins over the desktop's next time
    w.close()
    again = make_window(lambda: shared_engine, load=False, speed=None)
    assert again.motion.animations


@pytest.mark.parametrize("gnome_off", [True, False])
def test_the_gnome_switch_is_read_when_no_variable_says(
    qtbot, make_window, shared_engine, monkeypatch, gnome_off: bool
):
    """GNOME is asked on a thread (the window does not wait for gsettings) and its answer applies
    when it comes; it is not saved as the learner's choice."""
    monkeypatch.delenv(motion.ENV, raising=False)
    asked = threading.Event()

    def gnome() -> bool:
        asked.set()
        return gnome_off

    monkeypatch.setattr(motion, "_gnome_animations_off", gnome)
    w = make_window(lambda: shared_engine, load=False, speed=None)
    qtbot.waitUntil(asked.is_set)
    qtbot.waitUntil(lambda: w.motion.animations is not gnome_off and (w.stepper.speed == 0.0) is gnome_off)
    assert w.settings.get(ANIMATIONS) is None


def test_a_choice_made_before_gnome_answers_wins(qtbot, make_window, shared_engine, monkeypatch):
    monkeypatch.delenv(motion.ENV, raising=False)
    go = threading.Event()

    def slow_gnome() -> bool:
        go.wait(10)
        return True  # "reduce animations"

    monkeypatch.setattr(motion, "_gnome_animations_off", slow_gnome)
    w = make_window(lambda: shared_engine, load=False, speed=None)
    w.motion.set_animations(True)  # the learner's choice, before the desktop's answer
    w.motion.set_animations(False)
    w.motion.set_animations(True)
    with qtbot.waitSignal(w.motion._answer.reduced, timeout=10_000):  # GNOME's answer has come
        go.set()
    assert w.motion.animations and w.settings.get(ANIMATIONS) is True
