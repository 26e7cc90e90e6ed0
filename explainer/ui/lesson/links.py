"""Labels whose glossary terms are links: hover shows the definition, click opens the glossary.

Every text of the lesson (tour steps, questions, explanations, definitions) goes through
:func:`explainer.content.glossary.linked_html`, so a term is linked wherever it appears, the same
way as in the diagram's caption. The label reports a click as the glossary key; the dock opens
the glossary at it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QCursor, QPalette
from PySide6.QtWidgets import QLabel, QToolTip, QWidget

from explainer.content.glossary import link_terms, linked_html, term_of_href
from explainer.content.texts import Glossary


def coloured_links(body: str, widget: QWidget) -> str:
    """``body`` with every link in the widget's link colour. (Qt resolves a link's colour from
    the application's palette when it parses the HTML, not from the widget's: without this the
    links stay Qt's default blue, unreadable on the dark and projector themes.)"""
    colour = widget.palette().color(QPalette.ColorRole.Link).name()
    return body.replace("<a href=", f'<a style="color:{colour}; text-decoration: underline" href=')


class LinkedLabel(QLabel):
    """A word-wrapped rich-text label with glossary links (and nothing else to click)."""

    term_activated = Signal(str)  # the glossary key of a clicked term
    shown = Signal()  # another text is shown (the Lesson dock fits the tour's box to it)

    def __init__(self, glossary: Glossary, parent: QWidget | None = None, once: bool = True) -> None:
        super().__init__(parent)
        self.glossary = glossary
        self.once = once
        self.plain = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.setOpenExternalLinks(False)
        self.linkActivated.connect(self._activated)
        self.linkHovered.connect(self._hovered)

    def set_linked(self, text: str) -> None:
        """Show ``text`` with its terms linked (each term once, unless ``once`` is False)."""
        self.plain = text
        self._render()
        self.shown.emit()

    def _render(self) -> None:
        body = linked_html(self.plain, self.glossary, self.once).replace("\n", "<br>")
        self.setText(coloured_links(body, self))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.plain:
            self._render()  # the theme changed: the links take its colour

    def hrefs(self) -> list[str]:
        """The glossary keys linked in the text shown (what a test or a reader can click)."""
        return [p.term for p in link_terms(self.plain, self.glossary, self.once) if p.term is not None]

    def _activated(self, href: str) -> None:
        term = term_of_href(href, self.glossary)
        if term is not None:
            self.term_activated.emit(term)

    def _hovered(self, href: str) -> None:
        term = term_of_href(href, self.glossary) if href else None
        definition = self.glossary.define(term) if term else None
        if definition:
            QToolTip.showText(QCursor.pos(), definition, self)
        else:
            QToolTip.hideText()
        self.setToolTip(definition or "")
