"""The Controls dock: the prompt, Generate and the sampling settings, on the window's left."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QScrollArea

from explainer.ui.prompt_panel import PromptPanel


def control_dock(window: QMainWindow, controls: PromptPanel, title: str) -> QDockWidget:
    """``controls`` in a scrolling dock, movable and floatable but not closable from its title."""
    scroll = QScrollArea()
    scroll.setWidget(controls)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a frame only: Tab goes to the controls in it
    dock = QDockWidget(title, window)
    dock.setObjectName("controls")
    dock.setWidget(scroll)
    dock.setFeatures(
        QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
    )
    # never narrower than its controls need (a check box does not wrap): no sideways scrolling
    bar = scroll.verticalScrollBar().sizeHint().width()
    dock.setMinimumWidth(max(300, controls.minimumSizeHint().width() + bar))
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    return dock
