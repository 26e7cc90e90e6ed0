"""Both ends of the export's progress seam: what `--progress json` writes is what the app's
export dialog reads, and the terminal's bar and the dialog tell the same time left."""

from __future__ import annotations

import io

import pytest

from explainer.commands.output import JsonProgress, ProgressPrinter
from explainer.export.progress_lines import Progress, read_line, seconds_left


@pytest.mark.parametrize("phase", ["writing run.gif", "drawing stage 3 of 13", "écrire « run » 😀"])
def test_every_line_the_command_writes_reads_back_as_what_it_said(phase):
    stream = io.StringIO()
    report = JsonProgress(stream)
    for fraction in (0.0, 0.123456, 0.5, 1.0):
        report(phase, fraction)
    lines = stream.getvalue().splitlines(keepends=True)
    assert [read_line(line) for line in lines] == [
        Progress(phase, 0.0),
        Progress(phase, 0.1235),
        Progress(phase, 0.5),
        Progress(phase, 1.0),
    ]


def test_the_terminal_bar_says_the_time_left_the_dialog_would_say():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    now = [0.0]
    stream = Tty()
    bar = ProgressPrinter(stream, clock=lambda: now[0])
    bar("writing run.mp4", 0.0)
    for seconds, fraction in [(0.5, 0.05), (7.0, 0.4), (19.0, 0.9)]:
        now[0] = seconds
        bar("writing run.mp4", fraction)
        line = stream.getvalue().split("\r")[-1]
        left = seconds_left(fraction, seconds)
        if left is None:
            assert "left" not in line
        else:
            assert f"about {left:.0f} s left" in line
