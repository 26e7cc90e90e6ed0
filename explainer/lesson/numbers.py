"""Reading a number the way a learner types it, and saying how far off it is.

Pure and Qt-free. Accepted: digits with thousands separators (``3,000``, ``3 000``, thin or
no-break spaces), a decimal point, an exponent (``3.0e3``), a ``k`` or ``m`` suffix (``3k``,
``1.5m``), and a leading "about" word or sign (``about``, ``around``, ``roughly``, ``approx``,
``~``, ``≈``). The hedges only say the learner estimates; the number is read as written.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal

_HEDGE = re.compile(r"^(?:about|around|roughly|approximately|approx\.?|circa|ca\.?|~|≈|±)\s*", re.IGNORECASE)
_SPACES = re.compile(r"[ \u00a0\u202f\u2009_']")
_NUMBER = re.compile(r"^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:e([+-]?\d+))?([km]?)$", re.IGNORECASE)
_GROUPED = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?")
_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6}


def parse_number(text: str) -> float | None:
    """The number in ``text``, or None when it does not read as one."""
    t = text.strip()
    while True:  # "about ~3000" is still 3000
        stripped = _HEDGE.sub("", t, count=1)
        if stripped == t:
            break
        t = stripped.strip()
    t = _SPACES.sub("", t)
    if "," in t:
        if not _GROUPED.match(t):  # "3,00" or "30,00,0": not a thousands separator
            return None
        t = t.replace(",", "")
    m = _NUMBER.match(t)
    if m is None:
        return None
    sign, digits, exponent, suffix = m.groups()
    try:
        value = float(digits) * 10.0 ** int(exponent or 0) * _SUFFIX[suffix.lower()]
    except OverflowError:
        return None
    if not math.isfinite(value):
        return None
    return -value if sign == "-" else value


def as_typed(value: float) -> str:
    """A number the learner gave, written back to them with every digit they gave and thousands
    separators: 2456 -> "2,456", "3k" -> "3,000", 0.0203 -> "0.0203", "2.50" -> "2.5". Feedback
    quotes this, never a number of its own that the learner's merely came close to."""
    if not math.isfinite(value):
        return str(value)
    exact = Decimal(repr(value))  # the shortest decimal that reads back as this float: what was typed
    if abs(value) >= 1e15 or (value and abs(value) < 1e-6):  # (written out, such a number is a wall of digits)
        return f"{value:.6g}"
    text = format(exact, ",f")
    return text.rstrip("0").rstrip(".") if "." in text else text


@dataclass(frozen=True)
class Distance:
    """How a given number stands to the target: within the tolerance, or how far above or below."""

    within: bool
    high: bool  # above the target (meaningless when within)
    off: float  # |given - target|
    off_rel: float  # off / |target| (inf when the target is 0 and given is not)


def distance(given: float, target: float, tolerance: float) -> Distance:
    """``tolerance`` is relative (0.1 = within 10 %); the edge counts as within."""
    off = abs(given - target)
    limit = tolerance * abs(target) * (1 + 1e-9) + 1e-9
    rel = off / abs(target) if target else (0.0 if off == 0 else math.inf)
    return Distance(off <= limit, given > target, off, rel)
