"""View > Describe this frame and View > Chart as a table: the frame in two more forms.

The frame's words (frames/describe.py) are the diagram's accessible description all the time;
Describe this frame shows the same text under the illustration, and Chart as a table lays the
next-token chart out one candidate per row, a table a screen reader walks cell by cell. Both
are checkable View actions from the action table, remembered between runs.
"""

from __future__ import annotations

from PySide6.QtWidgets import QGraphicsView, QWidget

from explainer.content.texts import LessonTexts
from explainer.diagram.scene import LifecycleScene
from explainer.frames.chart_table import chart_table
from explainer.frames.describe import describe
from explainer.ui.actions import ActionRegistry
from explainer.ui.chart_table_view import ChartTableView
from explainer.ui.describe_view import DescribeView


class ViewToggles:
    def __init__(
        self,
        registry: ActionRegistry,
        scene: LifecycleScene,
        view: QGraphicsView,
        panels: tuple[DescribeView, ChartTableView],
        texts: LessonTexts,
    ) -> None:
        """``panels``: the two, already laid out under the illustration (hidden until asked)."""
        self.scene, self.view, self.texts = scene, view, texts
        self.describe_view, self.chart_table = panels
        for id, panel in (("describe", self.describe_view), ("chart_table", self.chart_table)):
            action = registry.add(id)  # (remembered: explainer/ui_model/actions.py)
            panel.setVisible(action.isChecked())
            action.toggled.connect(lambda on, p=panel: self._show(p, on))

    def _show(self, panel: QWidget, on: bool) -> None:
        panel.setVisible(on)
        if on:
            self.describe_frame()

    def describe_frame(self) -> None:
        """The frame on screen in words: the diagram's accessible description and, when shown,
        the Describe this frame panel (the same text) and the chart's table."""
        text = describe(self.scene.frame, self.texts)
        if self.view.accessibleDescription() != text:
            self.view.setAccessibleDescription(text)
        if self.describe_view.isVisible():
            self.describe_view.show_text(text)
        if not self.chart_table.isHidden():
            self.chart_table.show_table(chart_table(self.scene.frame))
