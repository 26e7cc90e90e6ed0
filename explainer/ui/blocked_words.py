"""The instructor's blocked words: a file of their own, edited in a small dialog.

The list (explainer/classroom/blocked.py says how it matches) is kept beside the app's settings,
in ``blocked-words.txt``, one entry a line: the instructor may also edit it in any text editor,
and it is read again (bounded) each time class mode starts. The dialog saves it atomically and
hands the new list to class mode at once, so a running session declines by it from then on.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from explainer.atomic import write_atomic
from explainer.classroom.blocked import BlockedWords, parse_blocked, read_blocked
from explainer.content.texts import LessonTexts
from explainer.errors import ExplainerError
from explainer.ui.announce import announce
from explainer.ui.settings import AppSettings

FILE_NAME = "blocked-words.txt"


def blocked_path(settings: AppSettings) -> Path:
    return settings.folder() / FILE_NAME


def load_blocked(settings: AppSettings) -> BlockedWords:
    """The list as its file holds it (none: an empty list; a damaged one: empty, and said)."""
    path = blocked_path(settings)
    if not path.exists():
        return BlockedWords()
    try:
        return read_blocked(path)
    except ExplainerError:
        return BlockedWords()


class BlockedWordsDialog(QDialog):
    """The list's text, Save and Cancel; a list that is refused says why and stays open."""

    def __init__(self, texts: LessonTexts, path: Path, current: BlockedWords, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("blocked_words_dialog")
        self.texts, self.path = texts, path
        self.setWindowTitle(self.word("blocked_title"))
        col = QVBoxLayout(self)
        intro = QLabel(texts.app_text("console", "blocked_intro").format(path=path))
        intro.setWordWrap(True)
        col.addWidget(intro)
        self.edit = QPlainTextEdit(current.text())
        self.edit.setObjectName("blocked_words_text")
        self.edit.setAccessibleName(self.word("blocked_title"))
        intro.setBuddy(self.edit)
        col.addWidget(self.edit, 1)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.hide()
        col.addWidget(self.problem)
        buttons = QDialogButtonBox()
        buttons.addButton(self.word("blocked_save"), QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.word("blocked_cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        col.addWidget(buttons)
        self.saved: BlockedWords | None = None
        self.resize(480, 380)

    def word(self, key: str) -> str:
        return self.texts.app_text("console", key)

    def save(self) -> None:
        text = self.edit.toPlainText()
        try:
            blocked = parse_blocked(text)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, text.encode("utf-8"), "the blocked words")
        except (ExplainerError, OSError) as exc:
            self.problem.setText(self.texts.app_text("console", "blocked_failed").format(error=exc))
            self.problem.show()
            announce(self.problem, self.problem.text(), assertive=True)
            return
        self.saved = blocked
        self.accept()


def edit_blocked_words(
    parent: QWidget, texts: LessonTexts, settings: AppSettings, apply: Callable[[BlockedWords], None]
) -> None:
    """Open the dialog on the list as saved; a saved list is applied at once (ClassMode.set_blocked)."""
    path = blocked_path(settings)
    dialog = BlockedWordsDialog(texts, path, load_blocked(settings), parent)

    def done(result: int) -> None:
        if result == QDialog.DialogCode.Accepted and dialog.saved is not None:
            apply(dialog.saved)

    dialog.finished.connect(done)
    dialog.open()
