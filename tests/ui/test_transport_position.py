"""The transport's position line ("Token 2 of 3 · Layers ...") changes at every press of Next.
It must not make Qt lay out the whole window again each time: that relayout sat in the same turn
of the event loop as the pass's drawing and paint (ui/transport.py, _Holder). It still takes the
rest of the bar, right-aligned, and stays a label that Tab reaches and a screen reader reads."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication

from tests.ui.helpers import settle_layout


class _LayoutRequests(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[QObject] = []

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.seen.append(obj)
        return False


def test_stepping_through_a_run_does_not_lay_out_the_window_again(qtbot, stepped):
    w = stepped
    requests = _LayoutRequests()
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(requests)
    texts = []
    try:
        for _ in range(12):
            w.stepper.forward()
            texts.append(w.transport.position.text())
            qtbot.wait(5)  # the posted layout requests and paints are handled
    finally:
        app.removeEventFilter(requests)
    assert len(set(texts)) == 12, "every press moved the position line"
    window_relayouts = sum(obj is w for obj in requests.seen)
    assert window_relayouts <= 1, f"the window was laid out {window_relayouts} times in 12 presses"


def test_the_position_takes_the_bars_rest_and_is_a_focusable_label(qtbot, stepped):
    w = stepped
    for _ in range(3):
        w.stepper.forward()
    settle_layout(qtbot, w)
    label = w.transport.position
    assert label.geometry() == label.parentWidget().rect(), "the label fills the place the bar leaves it"
    assert label.width() > 150 and label.height() >= label.sizeHint().height()
    assert label.alignment() & Qt.AlignmentFlag.AlignRight
    bar = w.transport.mapFromGlobal(label.mapToGlobal(label.rect().topRight()))
    assert bar.x() >= w.transport.width() - 16, "it ends at the bar's right edge"
    assert label.focusPolicy() & Qt.FocusPolicy.TabFocus
    assert label.text() in label.accessibleName()
