"""File > Export class results…: the class's rounds and requests as two CSV files.

:class:`ResultsExport` keeps the session's :class:`~explainer.classroom.results.ClassResults`:
it begins with class mode (``ClassMode.changed``), takes each reveal
(``ClassMode.round_revealed``) and, when class mode stops, keeps the last session's results until
the next one starts: an instructor who pressed stop at the end of a lecture can still export it.
The command is enabled when there is something to export; the File menu asks again each time it
opens (a request arrives in the server's thread, which may not touch a QAction).

:class:`ResultsDialog` asks where (a name and folder, typed or chosen with the file dialog) and
whether to include the students' texts (off each time it opens: the dialog says they are the
students' own words). A destination that cannot be written is said in the dialog, which stays
open, and nothing is written; the files written are named in the status line.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explainer.classroom.events import RoundResult
from explainer.classroom.results import ClassResults, result_paths, write_results
from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.lesson.game import Round
from explainer.ui.announce import announce
from explainer.ui.classroom.mode import ClassHost, ClassMode
from explainer.ui_model.actions import MenuId

Write = Callable[[str, bool], tuple[Path, Path]]  # (base, include the texts) -> the files written


class ResultsDialog(QDialog):
    """Where to write the class's results, and whether with the students' texts; ``write`` is
    :meth:`ResultsExport.write` (it raises ExplainerError for a destination it cannot write)."""

    def __init__(
        self, texts: LessonTexts, results: ClassResults, base: str, write: Write, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("class_results_dialog")
        self.texts, self._write = texts, write
        self.written: tuple[Path, Path] | None = None
        self.setWindowTitle(self.word("title"))
        col = QVBoxLayout(self)
        intro = QLabel(self.word("intro"))
        intro.setWordWrap(True)
        col.addWidget(intro)
        source = self.word("from_running" if results.running else "from_last")
        counts = self.word("counts").format(rounds=len(results.rounds()), requests=len(results.requests()))
        self.summary = QLabel(f"{source} {counts}")
        self.summary.setObjectName("class_results_summary")
        self.summary.setWordWrap(True)
        col.addWidget(self.summary)
        form = QFormLayout()
        self.name = QLineEdit(base)
        self.name.setObjectName("class_results_name")
        self.name.setAccessibleName(self.word("name_label"))
        self.name.setToolTip(self.word("name_tip"))
        self.choose_button = QPushButton(self.word("choose"))
        self.choose_button.setObjectName("class_results_choose")
        self.choose_button.setToolTip(self.word("choose_tip"))
        self.choose_button.setAutoDefault(False)  # (Enter in the name exports, it does not open a dialog)
        self.choose_button.clicked.connect(self.choose)
        where = QHBoxLayout()
        where.addWidget(self.name, 1)
        where.addWidget(self.choose_button)
        label = QLabel(self.word("name_label"))
        label.setBuddy(self.name)
        form.addRow(label, where)
        col.addLayout(form)
        self.files = QLabel()
        self.files.setObjectName("class_results_files")
        self.files.setWordWrap(True)
        col.addWidget(self.files)
        self.include_texts = QCheckBox(self.word("texts"))
        self.include_texts.setObjectName("class_results_texts")
        self.include_texts.setChecked(False)  # (never remembered: asked for each export)
        note = QLabel(self.word("texts_note"))
        note.setWordWrap(True)
        self.include_texts.setAccessibleDescription(note.text())
        col.addWidget(self.include_texts)
        col.addWidget(note)
        self.problem = QLabel()
        self.problem.setObjectName("class_results_problem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        col.addWidget(self.problem)
        col.addStretch(1)  # (what a wrapped label's first size hint overestimates goes here, not between rows)
        buttons = QDialogButtonBox()
        self.export_button = buttons.addButton(self.word("export"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.export_button.setObjectName("class_results_export")
        buttons.addButton(self.word("cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.export)
        buttons.rejected.connect(self.reject)
        col.addWidget(buttons)
        self.name.textChanged.connect(self._name_changed)
        self._name_changed()
        self.resize(560, self.sizeHint().height())

    def word(self, key: str) -> str:
        return self.texts.app_text("class_results", key)

    def _name_changed(self) -> None:
        """Which two files the name makes, and which of them an export would replace."""
        base = self.name.text().strip()
        self.export_button.setEnabled(bool(base))
        if not base:
            self.files.setText("")
            return
        paths = result_paths(base, self.texts)
        said = self.word("files").format(rounds=paths[0].name, requests=paths[1].name)
        there = [p.name for p in paths if p.is_file()]
        if there:
            said += " " + self.word("replace_note").format(files=", ".join(there))
        self.files.setText(said)

    def choose(self) -> None:
        """The folder and the name from the desktop's file dialog (the .csv it adds is dropped)."""
        chosen, _ = QFileDialog.getSaveFileName(
            self,
            self.word("title"),
            self.name.text(),
            self.word("choose_filter"),
            options=QFileDialog.Option.DontConfirmOverwrite,  # (the files written are named here)
        )
        if chosen:
            self.name.setText(chosen)

    def _say(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))
        if text:
            announce(self.problem, text, assertive=True)  # a label's new text is not read out

    def export(self) -> None:
        """Write the files; a destination that cannot take them is said here, nothing written."""
        base = self.name.text().strip()
        if not base:
            return
        try:
            self.written = self._write(base, self.include_texts.isChecked())
        except ExplainerError as exc:
            self._say(self.word("failed").format(message=exc.message, hint=exc.hint))
            return
        self._say("")
        self.accept()


class ResultsExport(QObject):
    """The class's results in the window: the command, its dialog, and the results it writes."""

    def __init__(self, window: ClassHost, mode: ClassMode) -> None:
        super().__init__(window.qt_window)
        self.setObjectName("class_results")
        self.window, self.mode = window, mode
        registry = window.registry
        self.results = ClassResults()
        self.dialog: ResultsDialog | None = None
        self.folder: Path | None = None  # where the last export went, offered again
        self.action = registry.add("export_class_results", self.open_dialog)
        registry.menu(MenuId.FILE).aboutToShow.connect(self.refresh)
        mode.changed.connect(self._switched)
        mode.round_revealed.connect(self._revealed)
        self.refresh()

    @property
    def texts(self) -> LessonTexts:
        return self.window.texts

    def word(self, key: str) -> str:
        return self.texts.app_text("class_results", key)

    def refresh(self) -> None:
        """The command enabled when there is something to export."""
        self.action.setEnabled(not self.results.empty())

    def _switched(self, on: bool) -> None:
        queue = self.mode.queue
        if on and queue is not None:
            self.results.begin(queue)
        elif not on:
            self.results.end()
        self.refresh()

    def _revealed(self, revealed: tuple[Trace, int, Round, RoundResult]) -> None:
        trace, step, rnd, result = revealed
        self.results.revealed(trace, step, rnd, result, self.mode.names())
        self.refresh()

    def default_base(self) -> str:
        """A new name in the folder of the last export, else the documents folder (or home)."""
        folder = self.folder
        if folder is None:
            docs = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation))
            folder = docs if docs.is_dir() else Path.home()
        name = self.word("default_name").format(date=datetime.now().strftime("%Y-%m-%d-%H%M"))
        return str(folder / name)

    def open_dialog(self) -> None:
        """File > Export class results…: the dialog (window-modal), or a line saying there is
        nothing to export yet."""
        self.refresh()
        if self.results.empty():
            self.window.set_activity(self.word("nothing"))
            return
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.raise_()
            return
        self.dialog = ResultsDialog(self.texts, self.results, self.default_base(), self.write, self.window.qt_window)
        self.dialog.open()  # (window-modal, without a nested event loop)

    def write(self, base: str, include_texts: bool) -> tuple[Path, Path]:
        """Write the results as they are now (ExplainerError: nothing written); the status line
        names the files."""
        written = write_results(self.results, base, self.texts, include_texts)
        self.folder = written[0].parent
        rounds, requests = (str(p) for p in written)
        self.window.set_activity(self.word("saved").format(rounds=rounds, requests=requests))
        return written


def install_results(window: ClassHost, mode: ClassMode) -> ResultsExport:
    return ResultsExport(window, mode)
