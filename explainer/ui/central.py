"""The window's middle column: the banners over the illustration, the panels under it, the
transport bar at the bottom.

Top to bottom: an error banner, the offer to build the model (or a GGUF's progress), the
illustration, the whole text at the frame (ui/answer_view.py), View > Describe this frame and
View > Chart as a table (hidden until asked: ui/view_toggles.py), and the transport bar.
"""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QGraphicsView, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.frames import Frame
from explainer.frames import panels as F
from explainer.ui.answer_view import AnswerView
from explainer.ui.build_dialog import BuildPanel, ErrorBanner
from explainer.ui.chart_table_view import ChartTableView
from explainer.ui.describe_view import DescribeView
from explainer.ui.transport import TransportBar


class Central(QWidget):
    def __init__(self, view: QGraphicsView, actions: dict[str, QAction], texts: LessonTexts) -> None:
        super().__init__()
        col = QVBoxLayout(self)
        col.setContentsMargins(6, 6, 6, 0)
        col.setSpacing(6)
        self.banner = ErrorBanner(texts)
        self.build_panel = BuildPanel(texts)
        self.answer_view = AnswerView(texts)
        self.describe_view = DescribeView(texts)
        self.chart_table = ChartTableView(texts)
        self.transport = TransportBar(actions, texts)
        for widget in (self.banner, self.build_panel, view, self.answer_view, self.describe_view, self.chart_table):
            col.addWidget(widget, 1 if widget is view else 0)
        col.addWidget(self.transport)

    def show_answer(self, frame: Frame, trace: Trace | None) -> None:
        """The whole text at the frame on screen, under the illustration (ui/answer_view.py)."""
        self.answer_view.show_tokens(frame[F.TOKENS] if trace is not None else None, bool(trace and trace.chat))
