"""Saying something to a screen reader without moving focus: Qt's accessibility announcement.

A stage change, a tour step, a Predict reveal or a question's verdict only renames labels that do
not have focus, and a screen reader says nothing about a label it is not on. An announcement
(``QAccessibleAnnouncementEvent``, Qt 6.8; AT-SPI's ``object:announcement``) is read out whatever
has focus. Keep each short, from the assets' words: the whole frame is the diagram's description
(explainer/frames/describe.py).
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent


def announce(source: QObject, text: str, assertive: bool = False) -> None:
    """Have assistive technology read ``text`` out, as said by ``source`` (a widget on screen).
    Polite by default: it waits for what is being read to end; ``assertive`` interrupts it."""
    text = " ".join(text.split())
    if not text:
        return
    event = QAccessibleAnnouncementEvent(source, text)
    event.setPoliteness(
        QAccessible.AnnouncementPoliteness.Assertive if assertive else QAccessible.AnnouncementPoliteness.Polite
    )
    QAccessible.updateAccessibility(event)


def sentence(text: str) -> str:
    """``text`` ended as a sentence, for joining headings into one announcement: "Why does a
    chatbot pause?" stays as it is, "Step 3 of 46" gets its full stop."""
    text = text.strip()
    return text if not text or text[-1] in ".?!…:" else text + "."
