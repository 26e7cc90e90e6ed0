"""Lesson complete: shows a :class:`~explainer.lesson.completion.Completion` (the exact sentence,
the score, the two-line recap, the next lesson and its link written out in full, selectable, so
it can be copied into a tutor). What is still open before that is shown by the tour section.

The session shows it again whenever the learner's record changes, so the score on it is
always the current one.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.lesson.completion import Completion
from explainer.ui.announce import announce
from explainer.ui.lesson.links import coloured_links


def _label(name: str, bold: bool = False, scale: float = 1.0) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    if bold or scale != 1.0:
        font = label.font()
        font.setBold(bold)
        font.setPointSizeF(font.pointSizeF() * scale)
        label.setFont(font)
    return label


class CompletionSection(QWidget):
    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.value: Completion | None = None
        self._told = ""  # the title last announced
        col = QVBoxLayout(self)
        col.setContentsMargins(12, 12, 12, 12)
        col.setSpacing(10)
        self.title = _label("complete_title", bold=True, scale=1.35)
        self.score = _label("complete_score")
        self.recap = _label("complete_recap")
        self.next_text = _label("complete_next_text")
        self.next_link = _label("complete_next")
        self.next_link.setTextFormat(Qt.TextFormat.RichText)
        self.next_link.setOpenExternalLinks(True)
        self.next_link.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.next_how = _label("complete_next_how")
        for w in (self.title, self.score, self.recap, self.next_text, self.next_link, self.next_how):
            col.addWidget(w)
        col.addStretch(1)

    def show_completion(self, value: Completion) -> None:
        self.value = value
        self.title.setText(value.title)
        self.score.setText("\n".join(value.score))
        self.recap.setText("\n".join(value.recap))
        self.next_text.setText(value.next_text)
        url = html.escape(value.next_url)
        self.next_link.setText(coloured_links(f'<a href="{url}">{url}</a>', self))
        self.next_link.setToolTip(value.next_url)
        self.next_how.setText(value.next_how)
        if value.title != self._told:  # it has just appeared (later calls only refresh the score)
            self._told = value.title
            announce(self, " ".join((value.title, *value.score, *value.recap)))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.value is not None:
            self.show_completion(self.value)  # the link in the theme's colour
