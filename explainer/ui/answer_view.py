"""The whole text at the frame on screen, prompt and answer, in a box under the illustration.

Why a box in the window and not in the drawing: the illustration's Tokens panel has one line for
the text and one row of chips, so a long answer shows as "…" and "… 59 more". The drawing keeps
its fixed layout (an exported figure must look the same every time); this box wraps the text,
grows to a few lines and scrolls past them, and its text can be selected and copied. It shows
what the Tokens panel spells at the same frame (the prompt as typed, then the answer up to the
cursor, without control tokens), so stepping back shortens it, and an open guess in the lesson's
game never finds its answer here either: a pass's token joins the text only at its append stage.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QSizePolicy, QWidget

from explainer.content.texts import LessonTexts
from explainer.frames.tokens import TokensValue
from explainer.illustration.formatting import is_special

LINES = 3  # lines shown before the box scrolls


class AnswerView(QPlainTextEdit):
    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answer")
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(texts.app_text("answer", "name"))
        self.setAccessibleDescription(texts.app_text("answer", "description"))
        self.setToolTip(texts.app_text("answer", "description"))
        self.setPlaceholderText(texts.app_text("answer", "empty"))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._shown: tuple[str, str] | None = None

    def _fit_height(self) -> None:
        lines = self.fontMetrics().lineSpacing() * LINES
        margins = self.contentsMargins()
        doc = self.document().documentMargin()
        self.setFixedHeight(int(lines + 2 * doc + margins.top() + margins.bottom()))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        self._fit_height()  # (a new font or style changes the line height)

    @property
    def prompt(self) -> str:
        return self._shown[0] if self._shown else ""

    @property
    def answer(self) -> str:
        return self._shown[1] if self._shown else ""

    def show_tokens(self, value: TokensValue | None, chat: bool = False) -> None:
        """The text the frame's Tokens panel spells, the prompt alone before its tokens are drawn
        (None: nothing recorded yet); ``chat``: the
        answer is a reply to the prompt, not its continuation, so it starts on a line of its own."""
        if value is None or not value.prompt_text:
            shown = ("", "")
        else:
            answer = "".join(c.text for c in value.chips if c.kind == "output" and not is_special(c.text))
            shown = (value.prompt_text + ("\n" if chat and answer else ""), answer)
        if shown == self._shown:
            return
        self._shown = shown
        self._fit_height()
        self.clear()
        if not any(shown):
            return
        prompt, answer = shown
        cursor = self.textCursor()
        cursor.insertText(prompt, QTextCharFormat())  # the prompt plain, the answer in bold
        strong = QTextCharFormat()
        strong.setFontWeight(QFont.Weight.Bold)
        cursor.insertText(answer, strong)
        self.setTextCursor(cursor)
        self.moveCursor(QTextCursor.MoveOperation.End)  # the newest words in view
        self.ensureCursorVisible()
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())
