"""The whole text at the frame on screen, prompt and answer, in a box under the illustration.

Why a box in the window and not in the drawing: the illustration's Tokens panel has one line for
the text and one row of chips, so a long answer shows as "…" and "… 59 more". The drawing keeps
its fixed layout (an exported figure must look the same every time); this box wraps the text,
grows to a few lines and scrolls past them, and its text can be selected and copied. It shows
what the Tokens panel spells at the same frame (the prompt as typed, then the answer up to the
cursor, without control tokens), so stepping back shortens it, and an open guess in the lesson's
game never finds its answer here either: a pass's token joins the text only at its append stage.
A line break in the answer is marked ↵ at the end of its line, as the token chips mark it: an
answer that ended in line breaks scrolled its last, empty lines into view and the box looked empty.

A very long prompt is shown by its last PROMPT_CHARS characters, after a line that says how many
come before (the prompt box above holds it whole). Qt lays out a whole paragraph again when its
end changes, and the answer continues the prompt's last paragraph: a pasted document of 8k
tokens in one paragraph was laid out again at every token, and painted again.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtGui import QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextEdit, QWidget

from explainer.content.texts import LessonTexts
from explainer.engine.text_bytes import spell
from explainer.frames.tokens import TokensValue
from explainer.illustration.characters import start_at_or_after
from explainer.illustration.formatting import NEWLINE

LINES = 3  # lines shown before the box scrolls
PROMPT_CHARS = 2000  # of a longer prompt, the end shown (some 25 lines of the box to scroll back)


class AnswerView(QTextEdit):
    """The text so far, each paragraph in its own direction: an Arabic or Hebrew answer from the
    right edge. (A QTextEdit, not a QPlainTextEdit: the plain one lays every paragraph out from the
    left whatever its script; the text here is short, PROMPT_CHARS of the prompt and the answer.)"""

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answer")
        self.setReadOnly(True)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setAcceptRichText(False)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(texts.app_text("answer", "name"))
        self.setAccessibleDescription(texts.app_text("answer", "description"))
        self.setToolTip(texts.app_text("answer", "description"))
        self.setPlaceholderText(texts.app_text("answer", "empty"))
        self._earlier = texts.app_text("answer", "earlier")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._shown: tuple[str, str] | None = None  # (prompt, answer) written
        self._asked: tuple[str, str] | None = None  # and to be written (show_tokens)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self._write)
        self._ends: dict[int, int] = {}  # answer length -> where it ends in the document (_change_answer)

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
        answer is a reply to the prompt, not its continuation, so it starts on a line of its own.

        Written in the next turn of the event loop, not in the press of Next that asks: Qt lays
        out the whole paragraph it changes, and after a prompt of 8k tokens in one paragraph
        that made every press that appends a token a stall. Presses faster
        than the loop turns write only the last text."""
        if value is None or not value.prompt_text:
            self._asked = ("", "")
        else:
            outputs = value.chips[value.prompt_count :]
            # decoded as one stream: a character split over two tokens is shown once both are in
            answer = spell(c.data for c in outputs if not c.special).text.replace("\n", NEWLINE + "\n")
            if value.unfinished:
                answer += "\n" + value.unfinished
            self._asked = (self._prompt_end(value.prompt_text) + ("\n" if chat and answer else ""), answer)
        if self._asked != self._shown:
            self._later.start()

    def _prompt_end(self, prompt: str) -> str:
        """``prompt``, or its last PROMPT_CHARS characters (from a word's start) after a line
        that counts the ones before."""
        if len(prompt) <= PROMPT_CHARS:
            return prompt
        cut = len(prompt) - PROMPT_CHARS
        space = prompt.find(" ", cut, cut + 40)
        cut = space + 1 if space >= 0 else start_at_or_after(prompt, cut)  # (never half an emoji)
        return self._earlier.format(n=f"{cut:,}") + "\n" + prompt[cut:]

    def _write(self) -> None:
        shown = self._asked
        if shown is None or shown == self._shown:
            return
        before, self._shown = self._shown, shown
        self._fit_height()
        if before is not None and before[0] == shown[0] and shown[0] and self._change_answer(before[1], shown[1]):
            return
        self.clear()
        self._ends = {}
        if not any(shown):
            return
        prompt, answer = shown
        cursor = self.textCursor()
        cursor.insertText(prompt, QTextCharFormat())  # the prompt plain, the answer in bold
        cursor.insertText(answer, _strong())
        self._ends = {len(answer): cursor.position()}
        self._show_end(cursor)

    def _change_answer(self, old: str, new: str) -> bool:
        """The same prompt: change only the answer's end, if that can be done (False: it cannot).
        Writing the whole text again held every press of Next on an 8k-token prompt.

        Shortening needs where the shorter answer ended in the document, which only the document
        knows (it reads "\r\n" as one character, and counts in UTF-16): ``_ends`` keeps that
        position for every answer length shown since the text was last written whole."""
        cursor = self.textCursor()
        if new.startswith(old):
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(new[len(old) :], _strong())
        elif old.startswith(new) and len(new) in self._ends:
            cursor.setPosition(self._ends[len(new)])
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
        else:
            return False
        self._ends = {n: at for n, at in self._ends.items() if n < len(new)}
        self._ends[len(new)] = cursor.position()
        self._show_end(cursor)
        return True

    def _show_end(self, cursor: QTextCursor) -> None:
        self.setTextCursor(cursor)
        self.moveCursor(QTextCursor.MoveOperation.End)  # the newest words in view
        self.ensureCursorVisible()
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())


def _strong() -> QTextCharFormat:
    strong = QTextCharFormat()
    strong.setFontWeight(QFont.Weight.Bold)
    return strong
