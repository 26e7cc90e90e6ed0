"""No comment or docstring in explainer/ holds a measured time.

Comments say why, not how fast: a time measured on one machine goes stale where nobody measures
it again. The figures behind the code's choices live in README's Measured figures ("The figures
behind the code's choices"), and the code keeps the reason in words. A few times in the code's
text are not measurements (a frame's length, a stated limit, an example of what is shown); they
are named here, each with why, so that a new one is a decision, not an accident.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator

from tests.support.package import PACKAGE, modules

# a number with a unit of time: "41 ms", "0.2 s", "2-4 ms", "1,385 ms", "12 µs"
TIME = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?:\s?[–-]\s?\d[\d,]*(?:\.\d+)?)?\s?(?:ms|µs|s)\b")

NOT_MEASURED = {
    ("bench/classroom.py", "1 ms"): "the heartbeat's period, which the bench sets",
    ("bench/classroom.py", "16 ms"): "a 60 Hz frame, the threshold the bench counts blocks against",
    ("bench/gui.py", "1 ms"): "the heartbeat's period",
    ("bench/gui.py", "16 ms"): "a 60 Hz frame",
    ("bench/stalls.py", "1 ms"): "the heartbeat's period",
    ("bench/stalls.py", "16 ms"): "a 60 Hz frame",
    ("bench/stepping.py", "1 ms"): "the heartbeat's period",
    ("classroom/room.py", "2 s"): "a stated limit (Limits.channel_rate)",
    ("commands/output.py", "30 s"): "an example of the progress line",
    ("diagram/items/counters.py", "1,385 ms"): "an example of a counter's line",
    ("export/gif.py", "655.35 s"): "the GIF format's longest frame",
    ("export/gif.py", "100 s"): "the GIF format's unit (1/100 s)",
    ("illustration/formatting.py", "114327 ms"): "an example of what is not shown",
    ("lesson/facts.py", "41 ms"): "an example of a sentence the lesson writes",
    ("ui/next_turn.py", "16 ms"): "a 60 Hz frame",
}


def texts(source: str) -> Iterator[tuple[int, str]]:
    """Each comment, and each line of each docstring, with its line number."""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                first = node.body[0].lineno
                for i, line in enumerate(doc.splitlines()):
                    yield first + i, line


def times_in(source: str, name: str) -> list[str]:
    """Every time in ``source``'s comments and docstrings that NOT_MEASURED does not name."""
    return [
        f"explainer/{name}:{line}: {found.group(0)!r} in {text.strip()!r}"
        for line, text in texts(source)
        for found in TIME.finditer(text)
        if (name, found.group(0)) not in NOT_MEASURED
    ]


def test_no_comment_or_docstring_holds_a_measured_time():
    found = [place for name, source in modules() for place in times_in(source, name)]
    assert not found, "move these figures to README's Measured figures, keep the reason in words:\n" + "\n".join(found)


def test_every_allowed_time_is_still_there():
    """An entry of NOT_MEASURED whose text is gone is taken out, so the list stays short."""
    unused = []
    for name, time in NOT_MEASURED:
        source = (PACKAGE / name).read_text(encoding="utf-8")
        if not any(found.group(0) == time for _, text in texts(source) for found in TIME.finditer(text)):
            unused.append(f"{name}: {time}")
    assert not unused, unused


def test_the_check_finds_a_time_in_a_comment_and_a_docstring_but_not_in_code():
    source = (
        'def f():\n    """Reading it took 0.25 s on 2 cores."""\n'
        "    x = 1  # a 12-20 ms stall\n"
        '    return "took 7 ms"  # (a string of the code is not a comment)\n'
    )
    found = times_in(source, "a.py")
    assert [f.split(": ", 1)[1].split(" in ")[0] for f in found] == ["'12-20 ms'", "'0.25 s'"]
