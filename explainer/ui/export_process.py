"""File > Export the run…: `explainer export` of the run on screen, in a child process, with a
progress dialog the learner can cancel.

Drawing every stage of a run into a GIF, a clip, a slide deck or a web page takes seconds to
minutes. Doing it in the window's thread would freeze the window for that long, and a thread
of our own could not be stopped halfway through a frame. A child process runs the very command
a terminal runs (so the file is the same), reports progress as JSON lines
(``--progress json``: explainer/commands/output.py), and SIGTERM stops it cleanly: the command
removes the file it was writing and exits 130. The window only reads lines as they come.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QProcess, Qt, QTimer
from PySide6.QtWidgets import QProgressDialog, QWidget

from explainer.engine.trace import Trace
from explainer.engine.trace_file import save_trace
from explainer.errors import ExplainerError
from explainer.export.progress_lines import Progress, Said, read_line, seconds_left
from explainer.ui.window_host import WindowHost

KILL_AFTER_MS = 5000  # a child that ignores SIGTERM this long is killed


def export_command(trace_path: str, out: str, theme: str, model: str, lesson: bool = False) -> list[str]:
    """The arguments after the Python interpreter: the same export a terminal runs, with the
    measured times the window shows, in the window's theme, labels from the run's own model
    (``lesson``: the guided lesson on the run, `--lesson`; it shows the window's theme first)."""
    return [
        "-m",
        "explainer",
        "export",
        "--trace",
        trace_path,
        "--out",
        out,
        "--theme",
        theme,
        "--timings",
        "--progress",
        "json",
        "--model",
        model,
        *(("--lesson",) if lesson else ()),
    ]


class ExportHost(WindowHost, Protocol):
    """What an export reads of the window and tells it (its progress dialog is the window's child)."""

    @property
    def theme_name(self) -> str: ...

    def word(self, section: str, key: str) -> str: ...
    def show_error(self, message: str, hint: str = "") -> None: ...
    def set_activity(self, text: str) -> None: ...


class RunExport(QObject):
    """One export under way: the child process, its progress dialog, and the saved run it reads
    (a temporary folder removed when it ends)."""

    def __init__(self, window: ExportHost, trace: Trace, out: str, lesson: bool = False) -> None:
        super().__init__(window.qt_window)
        self.window = window
        self.out = out
        self.name = Path(out).name
        self.cancelled = False
        self.ended = False
        self.error = ""
        self.hint: list[str] = []
        self.phase = ""
        self.phase_started = 0.0  # when the phase's first line came, and how far it was then
        self.phase_from = 0.0
        self.folder = tempfile.mkdtemp(prefix="explainer-export-")
        self.trace_path = str(Path(self.folder) / "run.trace")
        try:
            save_trace(trace, self.trace_path)  # atomic; an ExplainerError is the caller's to show
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        self.dialog = self._make_dialog(window.qt_window)
        self.kill_timer = QTimer(self, singleShot=True, interval=KILL_AFTER_MS)
        self.process = QProcess(self)
        self.kill_timer.timeout.connect(self.process.kill)
        self.process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        self.process.readyReadStandardOutput.connect(self._read)
        self.process.finished.connect(self._finished)
        self.process.errorOccurred.connect(self._error)
        model = trace.model.name
        self.process.start(sys.executable, export_command(self.trace_path, out, window.theme_name, model, lesson))
        window.set_activity(self._word("exporting_run").format(name=self.name))

    def _word(self, key: str) -> str:
        return self.window.word("window", key)

    def _make_dialog(self, parent: QWidget) -> QProgressDialog:
        """Non-modal: the window stays usable (stepping, reading) while the file is drawn."""
        d = QProgressDialog(parent)
        title = self._word("export_title")
        d.setWindowTitle(title)
        d.setObjectName("export_progress")
        d.setAccessibleName(title)
        d.setLabelText(self._word("exporting_run").format(name=self.name))
        d.setCancelButtonText(self._word("export_cancel"))
        d.setWindowModality(Qt.WindowModality.NonModal)
        d.setAutoClose(False)
        d.setAutoReset(False)
        d.setRange(0, 0)  # busy until the first progress line (a web page sends none)
        d.setMinimumDuration(0)
        d.setMinimumWidth(420)
        d.canceled.connect(self.cancel)
        d.show()
        return d

    @property
    def running(self) -> bool:
        return not self.ended

    def cancel(self) -> None:
        """Cancel: SIGTERM (the command removes its half-written file), then a kill after a while."""
        if self.ended or self.cancelled:
            return
        self.cancelled = True
        self.dialog.setLabelText(self._word("export_cancelling"))
        self.process.terminate()
        self.kill_timer.start()

    def abort(self) -> None:
        """The window is closing: stop the child and wait for it (briefly) so none is left behind."""
        if self.ended:
            return
        self.cancel()
        if not self.process.waitForFinished(KILL_AFTER_MS):
            self.process.kill()
            self.process.waitForFinished(KILL_AFTER_MS)

    def _read(self) -> None:
        while self.process.canReadLine():
            line = bytes(self.process.readLine().data()).decode("utf-8", "replace")
            said = read_line(line)
            if isinstance(said, Progress):
                self._show(said)
            elif isinstance(said, Said):
                if said.error and not self.error:
                    self.error = said.text
                elif not said.error and self.error:
                    self.hint.append(said.text)

    def _show(self, p: Progress) -> None:
        if self.cancelled:
            return
        now = time.monotonic()
        if p.phase != self.phase:
            self.phase, self.phase_started, self.phase_from = p.phase, now, p.fraction
        percent = round(max(0.0, min(1.0, p.fraction)) * 100)
        self.dialog.setRange(0, 100)
        self.dialog.setValue(percent)
        left = seconds_left(p.fraction, now - self.phase_started, self.phase_from)
        text = self._word("exporting_run").format(name=self.name)  # the bar shows the percentage
        if left is not None:
            text = self._word("export_left").format(name=self.name, seconds=max(1, round(left)))
        self.dialog.setLabelText(text)

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.error = self.process.errorString()
            self._end(None)

    def _finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._read()
        self._end(code if status == QProcess.ExitStatus.NormalExit else None)

    def _end(self, code: int | None) -> None:
        if self.ended:
            return
        self.ended = True
        self.kill_timer.stop()
        if code == 0:
            self.dialog.setValue(self.dialog.maximum())
        self.dialog.hide()  # not close(), which cancels and resets it; kept, with its last value until the next export
        shutil.rmtree(self.folder, ignore_errors=True)
        h = self.window
        if code == 0:  # (even if Cancel came as it finished: the file is there, whole)
            h.set_activity(self._word("exported").format(path=self.out))
        elif self.cancelled:
            h.set_activity(self._word("export_cancelled"))
        else:
            why = self.error or self._word("export_stopped").format(code="?" if code is None else code)
            h.set_activity("")
            h.show_error(self._word("export_failed").format(error=why), "\n".join(self.hint))


def start_export(window: ExportHost, trace: Trace, out: str, lesson: bool = False) -> RunExport | None:
    """Start exporting ``trace`` (``lesson``: the lesson on it) to ``out``; None (the window told
    why) if the run could not be saved for the child to read."""
    try:
        return RunExport(window, trace, out, lesson)
    except ExplainerError as exc:
        window.show_error(window.word("window", "export_failed").format(error=exc.message), exc.hint)
        return None
