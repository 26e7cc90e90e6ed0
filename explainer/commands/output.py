"""What the commands print: progress on stderr, JSON on stdout, sizes a person reads.

Results go to stdout and everything else to stderr, so `explainer ... --json | jq` and
`explainer tokenize ... | head` see only the result.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from explainer.export.progress_lines import Progress, seconds_left


class ProgressPrinter:
    """``progress(phase, fraction)`` callback printing to stderr.

    On a terminal it redraws one line per phase; otherwise it prints a line when a
    phase starts and at every 25 %.
    """

    BAR = 24

    def __init__(self, stream: Any = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.phase: str | None = None
        self.started = 0.0
        self.last_step = -1
        self.open_line = False

    def __call__(self, phase: str, fraction: float) -> None:
        pct = max(0.0, min(1.0, float(fraction))) * 100
        if phase != self.phase:
            self.end_line()
            self.phase = phase
            self.started = self.clock()
            self.last_step = -1
        if self.tty:
            filled = round(self.BAR * pct / 100)
            bar = "#" * filled + "-" * (self.BAR - filled)
            elapsed = self.clock() - self.started
            seconds = seconds_left(pct / 100, elapsed)
            left = f", about {seconds:.0f} s left" if seconds is not None else ""
            self.stream.write(f"\r{phase}: [{bar}] {pct:5.1f}%{left}\x1b[K")
            self.open_line = True
            if pct >= 100:
                self.end_line()
        else:
            step = int(pct // 25)
            if step != self.last_step:
                self.last_step = step
                self.stream.write(f"{phase}: {pct:.0f}%\n")
        self.stream.flush()

    def end_line(self) -> None:
        if self.open_line:
            self.stream.write("\n")
            self.stream.flush()
            self.open_line = False

    def log(self, message: str) -> None:
        self.end_line()
        self.stream.write(message + "\n")
        self.stream.flush()


class JsonProgress:
    """``progress(phase, fraction)`` as one JSON object per line on stderr, for a program that
    runs the command and shows its own bar (the app's export dialog): at most one line per
    whole percent, so a long export does not flood the pipe."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.last: tuple[str, int] | None = None

    def __call__(self, phase: str, fraction: float) -> None:
        pct = int(max(0.0, min(1.0, float(fraction))) * 100)
        if (phase, pct) != self.last:
            self.last = (phase, pct)
            self.stream.write(Progress(phase, fraction).line())
            self.stream.flush()


def progress_for(kind: str) -> Callable[[str, float], None]:
    """``--progress``: auto (a bar on a terminal, a few lines otherwise), json, or none."""
    if kind == "json":
        return JsonProgress()
    if kind == "none":
        return lambda phase, fraction: None
    return ProgressPrinter()


def terminate_as_interrupt() -> None:
    """SIGTERM (the app's Cancel, a session ending) ends the command as Ctrl-C does: the file
    being written is removed, the old one kept, and the exit status is 130."""
    import signal

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    with contextlib.suppress(ValueError):  # not the main thread (a test calling run())
        signal.signal(signal.SIGTERM, interrupt)


class ReadingProgress:
    """``on_progress(read, total)`` for a prompt's prefill: on a terminal, once reading has taken
    more than a second, one line redrawn per chunk ("reading the prompt: 2,048 / 8,161 tokens,
    about 30 s left"), erased when the prompt is read so the answer starts on a clean line.
    Short prompts and redirected output print nothing."""

    AFTER_S = 1.0

    def __init__(self, stream: Any = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.started: float | None = None
        self.shown = False

    def __call__(self, read: int, total: int) -> None:
        now = self.clock()
        if read == 0 or self.started is None:
            self.started = now
        elapsed = now - self.started
        if not self.tty or (elapsed < self.AFTER_S and not self.shown):
            return
        if read >= total:
            self.stream.write("\r\x1b[K")  # done: the line goes, the answer follows
        else:
            left = f", about {(total - read) * elapsed / read:.0f} s left" if read else ""
            self.stream.write(f"\rreading the prompt: {read:,} / {total:,} tokens{left}\x1b[K")
            self.shown = True
        self.stream.flush()


def print_json(data: Any) -> None:
    """Pretty JSON as UTF-8 whatever the locale, so token texts print as themselves."""
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover
