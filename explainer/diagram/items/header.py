"""The title line: what the illustration is, and which pass of the request is shown."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsObject

from explainer.diagram.frame import Frame
from explainer.diagram.items.base import Text, tag, theme_font
from explainer.diagram.theme import Theme


class HeaderItem(QGraphicsObject):
    def __init__(self, key: str = "header") -> None:
        super().__init__()
        tag(self, key)
        self.title = Text(f"{key}/title", self)
        self.pass_text = Text(f"{key}/pass", self)
        self._w = 0.0

    def apply(self, frame: Frame, theme: Theme, width: float) -> None:
        self._w = width
        self.title.show_text("What happens when a language model answers", theme_font(theme, 1.4, True),
                             theme.foreground).place(4, 4)
        if frame.phase:
            total = frame.n_steps
            text = f"pass {frame.step + 1} of {total}  ·  {frame.pass_label}"
            self.pass_text.show_text(text, theme_font(theme, 1.15, True), theme.accent).place(width - 4, 7, "tr")
        elif frame.message:
            self.pass_text.setVisible(False)
        else:
            self.pass_text.setVisible(False)

    def boundingRect(self) -> QRectF:
        return QRectF()

    def paint(self, painter, option, widget=None) -> None:  # noqa: ANN001
        pass
