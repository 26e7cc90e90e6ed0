"""Lesson files on disk: the recorded run with where the instructor was, written and read back.

A lesson file is a trace file (:mod:`explainer.engine.trace_file`) with one more record, the
place (:mod:`explainer.lesson.place`: the tour's step, the stage on screen). Writing and reading
it are here, without Qt, so the window only asks where to save and shows what was opened, and
a test reads a lesson file the way the app does without a window.

What the file carries of the learner's record (:class:`explainer.lesson.state.LessonState`) is
its tour position only, on purpose: a lesson an instructor shares must not change a learner's
answers or score, so the quiz and the game stay out of it. Files saved before this module are
the same format and read the same.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from explainer.content.texts import TourScript
from explainer.engine.trace import Trace
from explainer.engine.trace_file import open_trace_file, save_trace
from explainer.lesson.place import LessonPlace, place_record, read_place


@dataclass(frozen=True)
class OpenedRun:
    """A trace or lesson file, read and checked in full."""

    trace: Trace
    place: LessonPlace | None  # None: a plain trace file (it starts at the first stage)


def save_lesson(trace: Trace, path: str | os.PathLike[str], place: LessonPlace, script: TourScript) -> Path:
    """Write the run with its place (atomically: a reader sees the old file or the new one)."""
    return save_trace(trace, path, lesson=place_record(place, script))


def open_run(path: str | os.PathLike[str], script: TourScript) -> OpenedRun:
    """Read a trace or a lesson file; the place, if any, is checked against its own run. Any
    failure is an :class:`~explainer.errors.ExplainerError` naming what is wrong, before anything
    is shown: a file that does not read, or a place that does not fit its run, opens nothing."""
    opened = open_trace_file(path)
    place = None if opened.lesson is None else read_place(opened.lesson, script, opened.trace)
    return OpenedRun(opened.trace, place)
