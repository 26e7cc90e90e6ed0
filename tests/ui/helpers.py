"""Driving the window the way a user does: typing, clicking, pressing keys."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from explainer.inference.events import GenerationFinished
from explainer.stages import Cursor, Stage

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractScrollArea


def settle_layout(qtbot, widget, timeout: int = 5000) -> None:
    """Wait until the layout of ``widget`` and everything in it has settled: Qt's posted layout
    passes run, and the geometry and visibility of every widget in it read the same over two
    passes in a row (a pass can post another: a scroll bar shown narrows its neighbours). A
    condition, not a fixed time: the check runs as soon as the layout is done, and a slow
    machine waits as long as it needs."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QWidget

    def shape() -> list[object]:
        window = widget.window()
        return [window.frameGeometry()] + [(c.geometry(), c.isVisible()) for c in widget.findChildren(QWidget)]

    last: list[list[object]] = []

    def stable() -> bool:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        QCoreApplication.processEvents()
        now = shape()
        same = bool(last) and now == last[0]
        last[:] = [now]
        return same

    qtbot.waitUntil(stable, timeout=timeout)


def type_into(qtbot, widget, text: str) -> None:
    """Type ``text`` key by key; text beyond ASCII, which Qt's test keys cannot type (an input
    method composes it), arrives as one input method commit, as a phone's or a desktop's does."""
    widget.setFocus()
    widget.clear()
    if text.isascii():
        qtbot.keyClicks(widget, text)
        return
    from PySide6.QtGui import QInputMethodEvent
    from PySide6.QtWidgets import QApplication

    event = QInputMethodEvent()
    event.setCommitString(text)
    QApplication.sendEvent(widget, event)


def click(qtbot, widget) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    settle()


def set_chat(qtbot, w, on: bool) -> None:
    if w.controls.chat.isChecked() != on:
        click(qtbot, w.controls.chat)
    assert w.controls.chat.isChecked() == on


def generate(qtbot, w, prompt: str, max_new_tokens: int = 3, chat: bool = False, timeout: int = 60_000):
    """Type the prompt, set max new tokens, click Generate, wait for the whole trace."""
    type_into(qtbot, w.prompt, prompt)
    type_into(qtbot, w.sampling.max_new_tokens, str(max_new_tokens))
    set_chat(qtbot, w, chat)
    with wait_event(qtbot, w.controller, GenerationFinished, timeout=timeout) as finished:
        click(qtbot, w.generate_button)
    assert not w.banner.isVisible(), w.banner.text()
    qtbot.waitUntil(lambda: w.trace is finished.event.trace and not w.generating)
    return finished.event.trace


def open_file(qtbot, w, path) -> None:
    """File > Open on ``path``, waited for: the file is read in a thread and shown once read
    (explainer/ui/file_reader.py)."""
    w.files.open_trace(str(path))
    qtbot.waitUntil(lambda: not w.files.reading, timeout=30_000)


def press(qtbot, w, key, times: int = 1, target=None) -> None:
    """Press ``key`` as a person does: the event loop turns between two presses, so what the
    window does in the turn after one (the lesson hears of a frame then, ui/next_turn.py) is
    done before the next."""
    for _ in range(times):
        qtbot.keyClick(target or w.view, key)
        settle(w)


def settle(w=None) -> None:
    """What a window does in the turn after a move, done now (every window's when ``w`` is
    None): the lesson hears of the frame shown in a turn of its own (ui/next_turn.py), and a
    person's next key press comes after that turn; qtbot's presses come at once."""
    from PySide6.QtWidgets import QApplication

    for window in [w] if w is not None else QApplication.topLevelWidgets():
        frames = getattr(getattr(window, "lesson", None), "frames", None)
        if frames is not None:
            frames.settle()


def forward_to(qtbot, w, step: int, stage: Stage, limit: int = 300) -> None:
    """Press Right (on the diagram) until the cursor is at (step, stage)."""
    want = Cursor(step, stage)
    for _ in range(limit):
        if w.position == want:
            return
        before = w.position
        press(qtbot, w, Qt.Key.Key_Right)
        assert w.position != before, f"Right did not move from {before} (want {want})"
    raise AssertionError(f"never reached {want}")


def smallest_text_px(scene, view) -> float:
    """The smallest text the illustration shows, in pixels on screen: each visible text item's
    font size in scene units, times its own scale in the scene, times the view's scale."""
    from PySide6.QtWidgets import QGraphicsSimpleTextItem, QGraphicsTextItem

    sizes: list[float] = []
    for item in scene.items():
        if not isinstance(item, QGraphicsSimpleTextItem | QGraphicsTextItem) or not item.isVisible():
            continue
        text = item.text() if isinstance(item, QGraphicsSimpleTextItem) else item.toPlainText()
        if not text.strip() or item.effectiveOpacity() == 0:
            continue
        f = item.font()
        px = f.pixelSize() if f.pixelSize() > 0 else f.pointSizeF() * 96 / 72
        sizes.append(px * item.sceneTransform().m22() * view.transform().m22())
    assert sizes, "no text in the scene"
    return min(sizes)


def visible_horizontal_scrollbars(widget) -> list[QAbstractScrollArea]:
    """The horizontal scroll bars shown inside ``widget`` (a dock clipped by its width has one)."""
    from PySide6.QtWidgets import QAbstractScrollArea

    return [
        a for a in widget.findChildren(QAbstractScrollArea) if a.isVisible() and a.horizontalScrollBar().isVisible()
    ]


def last_line_of_fresh_python(script: str, *args: str, timeout: float = 120, **env: str) -> str:
    """Run ``script`` (with ``args``) in a fresh interpreter, offscreen, with ``env`` added;
    its last line of output. For what start-up imports or does: this test process has
    imported everything already. Its settings are the session's (tests/conftest.py,
    own_user_folders), as on a first start: the window a learner saved on this machine is not
    the test's."""
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **env},
        timeout=timeout,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]


class _Caught:
    """What :func:`wait_event` caught: ``.event`` once the wait is over."""

    def __init__(self, blocker) -> None:
        self._blocker = blocker

    @property
    def event(self):
        return self._blocker.args[0]


@contextlib.contextmanager
def wait_event(qtbot, controller, kind: type, timeout: int = 60_000):
    """Wait, around the block, for the controller's next event of ``kind`` (its stream carries
    every kind of event; a stale run's never reach it)."""
    with qtbot.waitSignal(
        controller.events, timeout=timeout, check_params_cb=lambda event: isinstance(event, kind)
    ) as blocker:
        yield _Caught(blocker)
