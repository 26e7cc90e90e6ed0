"""Every numeric option's range, checked when the command line is read and stated in --help.

One mechanism for all of them (the fault sweep found flags that took -1 or 10^23 and hung):
:func:`ranged` makes the argparse ``type`` that reads a whole or real number, refuses NaN, the
infinities and anything outside [lo, hi] with the range in its message, and :func:`span`
writes that range for the option's help, so the help and the check cannot disagree.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def span(lo: float, hi: float, *, above_lo: bool = False) -> str:
    """The range as --help says it: "1 to 4,096", "greater than 0, at most 1"."""
    if above_lo:
        return f"greater than {_figure(lo)}, at most {_figure(hi)}"
    return f"{_figure(lo)} to {_figure(hi)}"


def _figure(value: float) -> str:
    """1000000 as "1,000,000" (never "1e+06"), 0.25 as "0.25"."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def ranged(kind: type[int] | type[float], lo: float, hi: float, *, above_lo: bool = False) -> Callable[[str], float]:
    """An argparse type: ``kind`` (int or float) within [lo, hi] ((lo, hi] with ``above_lo``)."""
    word = "a whole number" if kind is int else "a number"

    def parse(text: str) -> float:
        try:
            value = kind(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {word}: {text!r}") from None
        inside = lo < value <= hi if above_lo else lo <= value <= hi
        if not math.isfinite(value) or not inside:
            raise argparse.ArgumentTypeError(f"use {span(lo, hi, above_lo=above_lo)}, not {text.strip()}")
        return value

    parse.__name__ = kind.__name__  # (argparse names the type in its "invalid ... value" message)
    parse.bounds = (kind, lo, hi, above_lo)  # type: ignore[attr-defined]  # (what tests read back)
    return parse
