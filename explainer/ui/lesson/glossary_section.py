"""The glossary: every key term of the lesson, a search field, and the definition.

Terms are listed in the glossary's own order (glossary.json), which follows the lesson. A link
anywhere (the caption under the illustration, a tour step, a question) opens this section at
its term; the definitions link the terms they mention in turn.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.ui.lesson.links import LinkedLabel

TERM_ROLE = Qt.ItemDataRole.UserRole


class GlossarySection(QWidget):
    term_activated = Signal(str)

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.glossary = texts.glossary
        self.model_fields: dict[str, str] | None = None  # the loaded model's, for the examples
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        self.search = QLineEdit()
        self.search.setObjectName("glossary_search")
        self.search.setPlaceholderText(texts.text("ui", "glossary_search"))
        self.search.setAccessibleName(texts.text("ui", "glossary_search"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.filter)
        col.addWidget(self.search)
        self.terms = QListWidget()
        self.terms.setObjectName("glossary_terms")
        self.terms.setAccessibleName(texts.text("ui", "tab_glossary"))
        for e in self.glossary.entries:
            item = QListWidgetItem(e.term)
            item.setData(TERM_ROLE, e.term)
            item.setToolTip(e.definition)
            self.terms.addItem(item)
        self.terms.currentItemChanged.connect(self._current)
        col.addWidget(self.terms, 1)
        self.heading = QLabel()
        self.heading.setObjectName("glossary_term")
        font = self.heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.heading.setFont(font)
        col.addWidget(self.heading)
        self.definition = LinkedLabel(self.glossary)
        self.definition.setObjectName("glossary_definition")
        self.definition.setMinimumHeight(90)
        self.definition.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.definition.term_activated.connect(self.open_at)
        col.addWidget(self.definition)
        self.terms.setCurrentRow(0)

    @property
    def current(self) -> str | None:
        item = self.terms.currentItem()
        return str(item.data(TERM_ROLE)) if item is not None else None

    def open_at(self, term: str) -> None:
        """Show ``term`` (a key or one of its forms): clear the search, select it."""
        entry = self.glossary.entry(term)
        if entry is None:
            return
        if self.search.text():
            self.search.clear()
        for i in range(self.terms.count()):
            item = self.terms.item(i)
            if item.data(TERM_ROLE) == entry.term:
                self.terms.setCurrentItem(item)
                self.terms.scrollToItem(item)
                return

    def filter(self, text: str) -> None:
        """Keep the terms whose name, other forms or definition hold ``text``; select the first."""
        needle = text.strip().lower()
        first = None
        for i, e in enumerate(self.glossary.entries):
            hit = not needle or any(needle in s.lower() for s in (e.term, *e.aliases, e.definition))
            self.terms.item(i).setHidden(not hit)
            if hit and first is None:
                first = self.terms.item(i)
        current = self.terms.currentItem()
        if first is not None and (current is None or current.isHidden()):
            self.terms.setCurrentItem(first)

    def _current(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None = None) -> None:
        if item is None:
            return
        entry = self.glossary.entry(str(item.data(TERM_ROLE)))
        if entry is None:
            return
        self.heading.setText(entry.term)
        example = entry.example_for(self.model_fields)
        self.definition.set_linked(f"{entry.definition}\n\n{example}" if example else entry.definition)

    def set_model_fields(self, fields: dict[str, str] | None) -> None:
        """The loaded model's facts, for the examples under the definitions (None: no model yet)."""
        self.model_fields = fields
        self._current(self.terms.currentItem())
