"""The lines an export prints about its progress, and how the app reads them back.

`explainer export --progress json` runs as a child of the window (File > Export the run…). The
command writes one `Progress` per line; the window's dialog reads each line back into the same
type, and both ends say how much time is left with the one `seconds_left` here, so the bar in a
terminal and the dialog in the app give the same estimate for the same pace. Writing and
reading live in one Qt-free module so that mypy sees both ends of this seam and a change to the
line's shape cannot reach only one of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

LEFT_AFTER_S = 1.0  # no "about N s left" before a phase has run this long: the guess is noise


@dataclass(frozen=True, slots=True)
class Progress:
    """How far the phase named is, from 0 to 1."""

    phase: str
    fraction: float

    def line(self) -> str:
        """The JSON line the command prints for it (rounded: the pipe carries no noise digits)."""
        return json.dumps({"progress": self.phase, "fraction": round(self.fraction, 4)}) + "\n"


@dataclass(frozen=True, slots=True)
class Said:
    """A line of the command's own words: ``error: ...`` (``error`` True) or a hint under it."""

    text: str
    error: bool


def read_line(line: str) -> Progress | Said | None:
    """What one line the command printed means to the window (None: nothing to show)."""
    text = line.rstrip("\r\n")
    if text.startswith("{"):
        try:
            data = json.loads(text)
            return Progress(str(data["progress"]), float(data["fraction"]))
        except (ValueError, KeyError, TypeError):
            return None
    if text.startswith("error:"):
        return Said(text.removeprefix("error:").strip(), True)
    if text.startswith("  ") and text.strip():
        return Said(text.strip(), False)
    return None


def seconds_left(fraction: float, elapsed: float, since: float = 0.0) -> float | None:
    """The time the rest will take at the pace since the phase's first report (at ``since``:
    the window hears of a phase only after its first frame, so its first line is already past
    0); None while the guess means nothing."""
    if not since < fraction < 1 or elapsed < LEFT_AFTER_S:
        return None
    return elapsed * (1 - fraction) / (fraction - since)
