"""Saving and opening recorded runs and lessons, and exporting the illustration, from the window.

A saved trace is everything a run recorded: opening it steps through exactly that run without
the model (and `explainer export --trace` draws figures from it). A lesson file is the same
trace with where the instructor was (the tour's step, the stage on screen): opening it puts the
learner there, offline. Either is checked in full before anything on screen changes; what a
lesson file holds, and how it is read, is :mod:`explainer.lesson.lesson_file`'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QFileDialog

from explainer.content.texts import TourScript
from explainer.engine.trace import Trace
from explainer.engine.trace_file import save_trace
from explainer.errors import ExplainerError
from explainer.lesson.lesson_file import OpenedRun, open_run, save_lesson
from explainer.lesson.place import LessonPlace
from explainer.lesson.state import LessonState
from explainer.lesson.tour import TourState
from explainer.ui.file_reader import FileReader
from explainer.ui.stepper import RunOnScreen
from explainer.ui.window_host import WindowHost

if TYPE_CHECKING:
    from explainer.ui.export_process import RunExport


class Resumable(Protocol):
    """The lesson, as a file needs it: its tour's state to save, a saved one to resume at."""

    @property
    def state(self) -> LessonState: ...
    @property
    def tour(self) -> TourScript: ...

    def resume_at(self, state: TourState) -> None: ...


class FilesHost(RunOnScreen, WindowHost, Protocol):
    """What saving and opening read of the window beyond the run on screen, and tell it: the
    lesson, the theme an export is drawn in, and the window's messages (its dialogs are the
    window's children)."""

    @property
    def lesson(self) -> Resumable: ...
    @property
    def theme_name(self) -> str: ...

    def word(self, section: str, key: str) -> str: ...
    def show_recorded(self, trace: Trace) -> None: ...
    def show_error(self, message: str, hint: str = "") -> None: ...
    def remember_file(self, path: str) -> None: ...
    def set_activity(self, text: str) -> None: ...


class RunFiles:
    def __init__(self, window: FilesHost) -> None:
        self.window = window
        self.exporting: RunExport | None = None  # the run's last export (File > Export the run…)
        self.reader = FileReader(window.qt_window)

    def save_trace_dialog(self) -> None:
        self._ask_where("save_trace", "explainer-run.trace", self.save_trace)

    def save_lesson_dialog(self) -> None:
        self._ask_where("save_lesson", "explainer.lesson", self.save_lesson)

    def _ask_where(self, what: str, name: str, save: Callable[[str], None]) -> None:
        """Ask where to save (app.json files.<what> is the dialog's title, <what>_filter its filter)."""
        w = self.window
        if not w.stepper.ready or w.generating:
            return
        path, _ = QFileDialog.getSaveFileName(
            w.qt_window, w.word("files", what), name, w.word("files", f"{what}_filter")
        )
        if path:
            save(path)

    def save_trace(self, path: str) -> None:
        """Write the recorded run (atomically); `explainer export --trace` reads it too."""
        self._save(path, "trace", lambda trace: save_trace(trace, path))

    def save_lesson(self, path: str) -> None:
        """Write the run with the tour's step and the stage on screen (atomically): a lesson to
        replay offline from where it was saved."""
        w = self.window
        if w.position is None:
            return
        session = w.lesson
        place = LessonPlace(session.state.tour, w.position)
        self._save(path, "lesson", lambda trace: save_lesson(trace, path, place, session.tour))

    def _save(self, path: str, what: str, write: Callable[[Trace], object]) -> None:
        w = self.window
        if w.trace is None:
            return
        try:
            write(w.trace)
        except ExplainerError as exc:
            w.show_error(w.word("window", f"save_failed_{what}").format(error=exc.message), exc.hint)
            return
        w.remember_file(path)
        w.set_activity(w.word("window", "saved").format(path=path))

    def open_trace_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window.qt_window,
            self.window.word("files", "open"),
            "",
            self.window.word("files", "open_filter"),
        )
        if path:
            self.open_trace(path)

    def open_trace(self, path: str) -> None:
        """Step through a saved run from its first stage, or a lesson from where it was saved;
        nothing is recomputed. The file is read and checked in a thread (ui/file_reader.py), and
        shown once read; a file that does not read (or whose lesson record does not fit its run)
        changes nothing on screen."""
        w = self.window
        script = w.texts.tour
        w.set_activity(w.word("window", "opening").format(path=path))
        self.reader.read(lambda: open_run(path, script), lambda outcome: self._show_opened(path, outcome))

    @property
    def reading(self) -> bool:
        """Whether a file is being read (it shows when read)."""
        return self.reader.busy

    def _show_opened(self, path: str, outcome: OpenedRun | ExplainerError) -> None:
        w = self.window
        if isinstance(outcome, ExplainerError):
            what = "lesson" if path.lower().endswith(".lesson") else "trace"
            w.show_error(w.word("window", f"open_failed_{what}").format(error=outcome.message), outcome.hint)
            return
        opened = outcome
        trace = opened.trace
        w.show_recorded(trace)
        w.remember_file(path)
        if opened.place is not None:
            w.stepper.show(opened.place.cursor)
            w.lesson.resume_at(opened.place.tour)
        n = len(trace.steps)
        w.set_activity(w.word("window", "opened_one" if n == 1 else "opened").format(path=path, n=n))

    def export_dialog(self) -> None:
        w = self.window
        if not w.stepper.ready:
            return
        path, _ = QFileDialog.getSaveFileName(
            w.qt_window, w.word("files", "export"), "explainer.svg", w.word("files", "export_filter")
        )
        if path:
            self.export(path)

    def export(self, path: str) -> None:
        """Write the current frame as SVG or PNG (by the file name) with the same code as
        `explainer export`: the end state of the current stage in a fresh scene, so a running
        animation is never caught halfway, and the controls are not part of the picture."""
        from explainer.export.figure import export_figure

        w = self.window
        w.stepper.finish_animation()
        if w.trace is None or w.position is None:
            return
        try:
            export_figure(w.trace, w.position, path, theme=w.theme_name, timings=True, vocabulary=w.vocabulary)
        except ExplainerError as exc:
            w.show_error(w.word("window", "export_failed").format(error=exc.message), exc.hint)
            return
        w.set_activity(w.word("window", "exported").format(path=path))

    def export_run_dialog(self) -> None:
        """File > Export the run…: where, and as what (the filter's kind when the name has none)."""
        w = self.window
        if not w.stepper.ready or w.generating:
            return
        if self.exporting is not None and self.exporting.running:
            self.exporting.dialog.raise_()  # one at a time: the one under way comes forward
            return
        path, chosen = QFileDialog.getSaveFileName(
            w.qt_window, w.word("files", "export_run"), "explainer-run.html", w.word("files", "export_run_filter")
        )
        if path:
            self.export_run(with_kind(path, chosen))

    def export_run(self, path: str, lesson: bool = False) -> None:
        """Write the whole recorded run as a web page, a slide deck, a video or a GIF (by the
        file name) with `explainer export` in a child process, in the window's theme, with the
        measured times the window shows. The window stays usable; a progress dialog shows how
        far it is and cancels it (explainer/ui/export_process.py). ``lesson``: the guided lesson
        on the run instead (`explainer export --lesson`), as a web page or a SCORM package; the
        child loads the run's model to record what the page offers, never the window's thread."""
        from explainer.ui.export_process import start_export

        w = self.window
        w.stepper.finish_animation()
        if w.trace is None or w.generating or (self.exporting is not None and self.exporting.running):
            return
        if self.exporting is not None:
            self.exporting.deleteLater()
        self.exporting = start_export(w, w.trace, path, lesson)

    def export_lesson_dialog(self) -> None:
        """File > Export the lesson for the web…: a web page or, for a course's LMS, a SCORM package."""
        w = self.window
        if not w.stepper.ready or w.generating:
            return
        if self.exporting is not None and self.exporting.running:
            self.exporting.dialog.raise_()
            return
        path, chosen = QFileDialog.getSaveFileName(
            w.qt_window, w.word("files", "export_lesson"), "lesson.html", w.word("files", "export_lesson_filter")
        )
        if path:
            self.export_run(with_kind(path, chosen), lesson=True)

    def shutdown(self) -> None:
        """The window is closing: an export under way is stopped, its half-written file removed;
        a file being read is waited for, and not shown."""
        if self.exporting is not None:
            self.exporting.abort()
        self.reader.shutdown()


def with_kind(path: str, chosen_filter: str) -> str:
    """``path``, with the extension of the filter chosen in the dialog when it has none of its own
    (a name typed without ``.gif`` is a GIF when the GIF filter was chosen)."""
    if Path(path).suffix:
        return path
    found = re.search(r"\*(\.\w+)", chosen_filter)
    return path + found.group(1) if found else path
