"""Saying something to a screen reader without moving focus: Qt's accessibility announcement,
through one queue for the whole application.

A stage change, a tour step, a Predict reveal or a question's verdict only renames labels that do
not have focus, and a screen reader says nothing about a label it is not on. An announcement
(``QAccessibleAnnouncementEvent``, Qt 6.8; AT-SPI's ``object:announcement``) is read out whatever
has focus. Keep each short, from the assets' words: the whole frame is the diagram's description
(explainer/frames/describe.py).

Why a queue: one action often has two or three things to say (a question's verdict, the tour step
it completes, then "Lesson 4 complete"). Sent together, a screen reader speaks only the last:
each announcement cuts the one being read. So every announcement waits its turn here, and is
sent

- in the order asked, one at most per turn of the event loop (a timer's turn each);
- once the one before has had time to be read whole: ``speaking_ms`` of its text, its length at
  a screen reader's default voice (about 180 words a minute, some 15 characters a second) plus
  a pause. From the length, not a fixed gap: a fixed gap long
  enough for the tour's longest step would hold every short "Tokens, pass 2 of 12" back as
  long, and one short enough for those would cut the step's text;
- sooner when what is being read no longer needs its time: the learner pressed a key (not a
  modifier alone) or a mouse button (a screen reader stops reading at a key press; Ctrl is the
  first half of a shortcut, whose action comes with its key), or a newer message of the same channel
  came (the tour's next step makes the last one's text out of date). A newer message of a
  channel also drops one of its channel still waiting, and takes its place at the end of the
  line: what it says is news now, after what was asked before it;
- and never within MIN_GAP_MS of the one before, so an AT-SPI client hears two events, not one.

An assertive message (an error the learner must hear now) goes first and does not wait for the
one being read. A message may name a widget whose focus makes it needless (``unless_focus_in``:
a question's answer controls say the question themselves): then it is dropped at its turn if
the focus is there. A message whose widget is gone by its turn is dropped: it was about
something no longer on screen.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

PAUSE_MS = 400  # between two messages, as between two sentences
MS_PER_CHARACTER = 65  # about 15 characters a second: a screen reader's default rate
MIN_GAP_MS = 120  # the least time between two messages, whatever ends the wait
# the events that stop a screen reader's speech: the learner's key presses (a window shortcut's
# key reaches the focus widget only as ShortcutOverride) and mouse presses
_INPUT = frozenset({QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride, QEvent.Type.MouseButtonPress})
_MODIFIERS = frozenset(
    {Qt.Key.Key_Control, Qt.Key.Key_Shift, Qt.Key.Key_Alt, Qt.Key.Key_AltGr, Qt.Key.Key_Meta, Qt.Key.Key_Super_L}
)


def speaking_ms(text: str) -> float:
    """How long a screen reader takes to read ``text`` at its default rate, and pause after."""
    return PAUSE_MS + MS_PER_CHARACTER * len(text)


@dataclass
class _Message:
    source: QObject
    text: str
    assertive: bool
    channel: object
    unless_focus_in: QWidget | None
    drops: tuple[object, ...] = ()  # other channels whose waiting messages this one makes out of date


class Announcements(QObject):
    """The application's queue (see the module's docstring); :func:`announce` puts into it."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pace = 1.0  # a factor on every wait (tests make it small: the order and the turns stay)
        self._waiting: list[_Message] = []
        self._reading: _Message | None = None  # the last sent, while its time runs
        self._free_at = 0.0  # (time.monotonic) when the next may be sent
        self._last_sent = -1.0  # (time.monotonic) when the last was sent
        # to the learner's keys and clicks: only while a message is read or waits (then one Python
        # call per event of the application; the rest of the time, none)
        self._listening = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)  # (a coarse timer may fire 5 % early: into the last word)
        self._timer.timeout.connect(self._send_next)

    def say(self, message: _Message) -> None:
        now = time.monotonic()
        if message.assertive:
            self._waiting.insert(0, message)
            self._free_at = now
        else:
            stale = (message.channel, *message.drops)
            self._waiting = [m for m in self._waiting if m.channel not in stale or m.assertive]
            self._waiting.append(message)
            if self._reading is not None and self._reading.channel == message.channel:
                self._free_at = min(self._free_at, now)  # (what it said is out of date)
        self._schedule()

    def idle(self) -> bool:
        """Nothing waits to be said."""
        return not self._waiting

    def reading(self) -> bool:
        """The last said has not had its time to be read yet (nor been cut by a key)."""
        return time.monotonic() < self._free_at

    def silent(self) -> bool:
        """Nothing waits, and the last said has had its time to be read."""
        return not self._waiting and not self.reading()

    def clear(self) -> None:
        """Forget what waits (the tests: nothing said into the next test)."""
        self._waiting.clear()
        self._reading = None
        self._free_at = 0.0
        self._schedule()

    def _schedule(self) -> None:
        now = time.monotonic()
        if not self._waiting:  # the timer only to stop listening once the last has had its time
            reading = self._free_at > now
            self._listen(reading)
            if reading:
                self._timer.start(math.ceil((self._free_at - now) * 1000))
            else:
                self._timer.stop()
            return
        self._listen(True)
        at = max(self._free_at, self._last_sent + MIN_GAP_MS * self.pace / 1000)
        self._timer.start(max(0, math.ceil((at - now) * 1000)))  # (0: the next turn, never this one)

    def _send_next(self) -> None:
        while self._waiting:
            message = self._waiting.pop(0)
            if not shiboken6.isValid(message.source):
                continue  # its widget is gone: what it said is no longer on screen
            if _said_by_focus(message.unless_focus_in):
                continue  # the focused control says it itself
            _send(message)
            now = time.monotonic()
            self._reading, self._last_sent = message, now
            self._free_at = now + speaking_ms(message.text) * self.pace / 1000
            break
        self._schedule()

    def _listen(self, on: bool) -> None:
        app = QCoreApplication.instance()
        if on == self._listening or app is None:
            return
        self._listening = on
        if on:
            app.installEventFilter(self)
        else:
            app.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _INPUT and self._reading is not None and not _modifier_alone(event):
            now = time.monotonic()
            if self._free_at > now:  # the screen reader stopped reading at the press
                self._free_at = now
                self._schedule()
        return False


def _modifier_alone(event: QEvent) -> bool:
    """Ctrl, Shift, Alt pressed alone: the first half of a shortcut (Ctrl+J), whose key ends the
    wait once its action is done; ended at the Ctrl, the next message went before the action and
    said what the control the action focuses says itself."""
    return isinstance(event, QKeyEvent) and event.key() in _MODIFIERS


def _said_by_focus(holder: QWidget | None) -> bool:
    """The focus is in ``holder``, whose controls say what a message would."""
    focus = QApplication.focusWidget()
    if holder is None or focus is None or not shiboken6.isValid(holder):
        return False
    return focus is holder or holder.isAncestorOf(focus)


def _send(message: _Message) -> None:
    event = QAccessibleAnnouncementEvent(message.source, message.text)
    event.setPoliteness(
        QAccessible.AnnouncementPoliteness.Assertive if message.assertive else QAccessible.AnnouncementPoliteness.Polite
    )
    QAccessible.updateAccessibility(event)


_queue: list[Announcements] = []  # the application's one queue, made when first used


def announcements() -> Announcements:
    """The application's queue."""
    app = QCoreApplication.instance()
    if not _queue or not shiboken6.isValid(_queue[0]) or _queue[0].parent() is not app:
        _queue[:] = [Announcements(app)]
    return _queue[0]


def announce(
    source: QObject,
    text: str,
    assertive: bool = False,
    channel: object | None = None,
    unless_focus_in: QWidget | None = None,
    drops: tuple[object, ...] = (),
) -> None:
    """Have assistive technology read ``text`` out, as said by ``source`` (a widget on screen),
    in its turn (see the module's docstring). Polite by default: it waits for what is being read
    to end; ``assertive`` goes first and interrupts it. ``channel``: what a newer message
    replaces (by default, what ``source`` last said); ``drops``: other channels whose messages
    still waiting it makes out of date (the tour's next step: the last step's question)."""
    text = " ".join(text.split())
    if not text:
        return
    key = channel if channel is not None else source
    announcements().say(_Message(source, text, assertive, key, unless_focus_in, drops))


def sentence(text: str) -> str:
    """``text`` ended as a sentence, for joining headings into one announcement: "Why does a
    chatbot pause?" stays as it is, "Step 3 of 46" gets its full stop."""
    text = text.strip()
    return text if not text or text[-1] in ".?!…:" else text + "."
