"""The caption under the illustration: the stage's title and what it does, in plain words.

The caption's key terms are links (``term:KEY``, see :mod:`explainer.content.glossary`): a
beginner who meets "prefill" is one hover away from its meaning and one click away from the
glossary. The item only draws the links and reports hovers and clicks as hrefs; the scene turns
them into glossary terms (it holds the texts) and the window opens the glossary.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont

from explainer.content.glossary import TextPart, href_of
from explainer.diagram.items.base import Panel, Para, theme_font
from explainer.diagram.theme import Theme
from explainer.frames.caption import CaptionValue


def linked_caption_html(parts: tuple[TextPart, ...], text: str, link_color: str) -> str:
    """The caption as HTML: plain parts escaped, terms as underlined links in ``link_color``
    (the body colour: a link must not shout louder than the sentence it sits in)."""
    chunks = []
    for p in parts or (TextPart(text),):
        escaped = html.escape(p.text, quote=False)
        if p.term is None:
            chunks.append(escaped)
        else:
            chunks.append(
                f'<a href="{href_of(p.term)}" style="color:{link_color}; text-decoration: underline">{escaped}</a>'
            )
    return '<span style="white-space: pre-wrap">' + "".join(chunks) + "</span>"


class LinkedPara(Para):
    """A wrapped paragraph whose links can be hovered and clicked. Mouse only: no keyboard
    interaction, so the diagram's stepping keys stay the diagram's. (Selectable by mouse too:
    without it the text control ignores the press, and a link is only activated by a release
    over the link it was pressed on.)"""

    def __init__(self, key: str, parent: Panel | None = None) -> None:
        super().__init__(key, parent)
        self._html = ""
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.LinksAccessibleByMouse | Qt.TextInteractionFlag.TextSelectableByMouse
        )

    def show_linked(self, html_text: str, f: QFont, c: str, width: float) -> LinkedPara:
        if self.font() != f:
            self.setFont(f)
        self.setDefaultTextColor(QColor(c))
        if self._html != html_text:
            self.setHtml(html_text)
            self._html = html_text
        if self.textWidth() != width:
            self.setTextWidth(width)
        opt = self.document().defaultTextOption()
        if opt.textDirection() != Qt.LayoutDirection.LeftToRight:
            opt.setTextDirection(Qt.LayoutDirection.LeftToRight)  # see Para.show_para
            self.document().setDefaultTextOption(opt)
        self.setVisible(True)
        return self


class CaptionItem(Panel):
    TITLE_W = 250.0
    link_hovered = Signal(str)  # the href under the mouse ("" when it leaves a link)
    link_activated = Signal(str)  # the href clicked

    def __init__(self, key: str = "caption") -> None:
        super().__init__(key)
        self.heading = Para(f"{key}/heading", self)
        self.text = LinkedPara(f"{key}/text", self)
        self.text.linkHovered.connect(self.link_hovered)
        self.text.linkActivated.connect(self.link_activated)

    def draw(self, value: CaptionValue, theme: Theme) -> None:
        heading, text = value.heading, value.text
        self.frame.set_rect(QRectF(0, 0, self.w, self.h), 10).style(theme.panel, theme.accent, theme.line_width)
        self.title.setVisible(False)
        self.heading.show_para(heading, theme_font(theme, 1.2, True), theme.accent, self.TITLE_W - 20)
        self.heading.setPos(16, (self.h - self.heading.height()) / 2)
        width = self.w - self.TITLE_W - 24
        body = linked_caption_html(value.parts, text, theme.foreground)
        scale = 1.25
        while True:  # shrink the type only if a long caption would not fit
            self.text.show_linked(body, theme_font(theme, scale), theme.foreground, width)
            if self.text.height() <= self.h - 8 or scale <= 0.9:
                break
            scale -= 0.05
        self.text.setPos(self.TITLE_W, (self.h - self.text.height()) / 2)

    def set_link_tip(self, tip: str) -> None:
        """The tooltip over the caption: the hovered term's definition ("" for none)."""
        self.text.setToolTip(tip)
