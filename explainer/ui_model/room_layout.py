"""What goes on which screen in a lecture: one value every part of the window reads.

A lecture runs on a laptop and a projector. With two screens side by side (extended, not
mirrored), presenter mode puts the audience view (the illustration, the class panel, the task
band) full screen on the projector, and a console on the laptop's own screen holds what only
the instructor sees: the tour step as speaker notes, the clock, the queue with the students'
texts and the moderation. With one screen, or two showing the same picture (mirrored), the room
sees everything the laptop shows: presenter mode is the audience view alone, and the private
parts open only in a window the instructor asks for, which warns that the room sees it.

Before this value the rule was spread over the class panel, the queue panel and the lesson's
projector note, each asking "is presenter mode on?". Now :func:`room_layout` decides once, from
presenter mode, the screens Qt reports and the projector the instructor chose, and each part
reads where it belongs (:class:`Place`). Qt-free: the screens come in as plain records.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(kw_only=True, frozen=True, slots=True)
class ScreenInfo:
    """A screen as Qt reports it (QScreen): its name and where it lies on the desktop."""

    name: str
    x: int
    y: int
    width: int
    height: int
    primary: bool = False
    desktop: int = 0  # screens of one desktop share a number; X11's separate screens each have one

    @property
    def area(self) -> int:
        return self.width * self.height


class Place(enum.Enum):
    """Where a part of the window is shown."""

    HIDDEN = "hidden"
    WINDOW = "window"  # in the normal window (docks, tabs), as the instructor arranged it
    AUDIENCE = "audience"  # on the projected audience view (presenter mode)
    CONSOLE = "console"  # in the presenter console, on the laptop's screen only
    ON_REQUEST = "on_request"  # in a console window the instructor opens, warned that the room sees it


@dataclass(frozen=True, slots=True)
class RoomLayout:
    """One decision: presenter mode or not, on one screen or two, and where each part goes."""

    presenting: bool
    projector: ScreenInfo | None  # the audience view's screen (two screens, presenting)
    laptop: ScreenInfo | None  # the console's screen (two screens, presenting)
    class_on: bool

    @property
    def two_screens(self) -> bool:
        return self.projector is not None

    @property
    def class_panel(self) -> Place:
        """The QR code, the room code, the vote count and the reveal: for the room to see."""
        if not self.class_on:
            return Place.HIDDEN
        return Place.AUDIENCE if self.presenting else Place.WINDOW

    @property
    def queue(self) -> Place:
        """The queue's timeline and figures: numbers and times, never a student's text (see
        ``private``), so the room may watch the server at work."""
        return Place.AUDIENCE if self.presenting and self.class_on else Place.WINDOW

    @property
    def private(self) -> Place:
        """The students' texts and the moderation (approve, decline, blocked words)."""
        return Place.CONSOLE if self.presenting and self.two_screens else Place.ON_REQUEST

    @property
    def lesson(self) -> Place:
        """The Lesson dock: in the window, hidden in presenter mode (the room sees its task as
        the band, the presenter its words as notes); what it opens meanwhile waits there."""
        return Place.HIDDEN if self.presenting else Place.WINDOW

    @property
    def task_band(self) -> Place:
        """The tour step's task as a band over the illustration (the lesson dock is hidden)."""
        return Place.AUDIENCE if self.presenting else Place.HIDDEN

    @property
    def speaker_notes(self) -> Place:
        """The tour step's words, the next step and a question for the room, for the presenter."""
        return Place.CONSOLE if self.presenting and self.two_screens else Place.ON_REQUEST


def mirrored(screens: Sequence[ScreenInfo]) -> bool:
    """Two or more screens that show the same part of one desktop: one picture, cloned."""
    return len(screens) > 1 and len({(s.desktop, s.x, s.y) for s in screens}) == 1


def default_projector(screens: Sequence[ScreenInfo]) -> ScreenInfo | None:
    """The screen the room most likely sees: the largest that is not the primary one (a laptop
    keeps its own panel primary); None with one screen or a mirrored pair."""
    if len(screens) < 2 or mirrored(screens):
        return None
    others = [s for s in screens if not s.primary] or list(screens[1:])
    return max(others, key=lambda s: (s.area, s.name))


def room_layout(
    presenting: bool, screens: Sequence[ScreenInfo], chosen: str | None = None, class_on: bool = False
) -> RoomLayout:
    """The layout for presenter mode on or off, over ``screens`` (Qt's order), with the projector
    the instructor chose by name (``chosen``; the default when it is not among them)."""
    projector = next((s for s in screens if s.name == chosen), None) if chosen else None
    if projector is None or mirrored(screens):
        projector = default_projector(screens)
    if not presenting or projector is None:
        return RoomLayout(presenting, None, None, class_on)
    laptop = next((s for s in screens if s.primary and s != projector), None)
    laptop = laptop or next(s for s in screens if s != projector)
    return RoomLayout(presenting, projector, laptop, class_on)
