"""What a screen reader is told, recorded in the test's process: every announcement the window
sends and every move of the focus, in order, as AT-SPI's bridge gets them.

An announcement is caught where Qt hands it to the platform (QAccessible.updateAccessibility);
a focus move where Qt reports it (QApplication.focusChanged: Qt tells assistive technology of
each, with the control's name and description, which are recorded as the control had them then;
a focus taken off and given nowhere is recorded too: Qt reports it as a move to the control that
lost it, so a screen reader hears that control again).
Each announcement also records whether the event loop turned since the one before: two sent in
one turn reach a screen reader together, and it speaks only the last.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QAccessibleEvent
from PySide6.QtWidgets import QApplication, QWidget

from explainer.ui.announce import announcements


@dataclass(frozen=True)
class Said:
    source: QObject
    text: str
    at: float  # time.monotonic()
    same_turn: bool  # sent in the same turn of the event loop as the announcement before it
    speaker: str = ""  # the source's accessible name then: AT-SPI gives the event as that object's


@dataclass(frozen=True)
class Focused:
    widget: QWidget | None  # None: the focus taken off a control (QWidget.clearFocus), with nowhere to go
    name: str
    description: str
    at: float

    @property
    def text(self) -> str:
        """What a screen reader reads of the control it lands on: its name, then its description."""
        return f"{self.name} {self.description}"


@dataclass
class Listener:
    """The record (``events``), and the announcements alone as (source, text) pairs (``said``)."""

    events: list[Said | Focused] = field(default_factory=list)
    _turned: bool = True

    def __iter__(self) -> Iterator[tuple[QObject, str]]:
        """What was said, as (source, text) pairs."""
        return iter(self.said())

    def said(self) -> list[tuple[QObject, str]]:
        return [(e.source, e.text) for e in self.events if isinstance(e, Said)]

    def texts(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, Said)]

    def focus(self) -> list[Focused]:
        return [e for e in self.events if isinstance(e, Focused)]

    def clear(self) -> None:
        self.events.clear()

    def quiet(self, qtbot) -> None:
        """What was queued before now said, then forgotten: the record starts afresh."""
        self.wait(qtbot)
        self.clear()

    def wait(self, qtbot, timeout: int = 10_000) -> None:
        """Until the window has said everything it has queued, and the last of it has had its
        time to be read, as a listener waits before the next key (a condition, not a time)."""
        qtbot.waitUntil(announcements().silent, timeout=timeout)

    def announced(self, event: QAccessibleEvent) -> None:
        assert isinstance(event, QAccessibleAnnouncementEvent)
        iface = QAccessible.queryAccessibleInterface(event.object())
        speaker = (iface.text(QAccessible.Text.Name) if iface is not None else "") or ""
        self.events.append(Said(event.object(), event.message(), time.monotonic(), not self._turned, speaker))
        self._turned = False
        QTimer.singleShot(0, self._turn)  # (runs once the event loop turns)

    def _turn(self) -> None:
        self._turned = True

    def moved(self, old: QWidget | None, new: QWidget | None) -> None:
        if new is None:  # the focus taken off: Qt tells the control that lost it, as if it got it
            if old is not None:
                self.events.append(Focused(None, "", "", time.monotonic()))
            return
        iface = QAccessible.queryAccessibleInterface(new)
        name = iface.text(QAccessible.Text.Name) if iface is not None else ""
        description = iface.text(QAccessible.Text.Description) if iface is not None else ""
        self.events.append(Focused(new, name or "", description or "", time.monotonic()))


def listen(monkeypatch) -> Iterator[Listener]:
    """A Listener from now on (a fixture's body: ``yield from listen(monkeypatch)``)."""
    out = Listener()
    real = QAccessible.updateAccessibility

    def update(event: QAccessibleEvent) -> None:
        if event.type() == QAccessible.Event.Announcement:
            out.announced(event)
        real(event)

    monkeypatch.setattr(QAccessible, "updateAccessibility", update)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    app.focusChanged.connect(out.moved)
    yield out
    app.focusChanged.disconnect(out.moved)
