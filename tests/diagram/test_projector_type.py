"""Every label presenter mode draws is at least 18 px on a 1920 x 1080 projector.

A text's size on screen is its font's pixel size in scene units, times the scale of its item
(a label may be scaled), times the view's scale when the canvas is fitted to a full-HD screen.
Checked for every drawn text item (at any depth, the arrows' labels too) at every stage of
real runs, in the projector theme with the spotlight on, as presenter mode shows them; the
failure names the item (its panel, its key, its text) and its size.
"""

from __future__ import annotations

import math
import re

import pytest
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem, QGraphicsTextItem

from explainer.diagram.theme import PROJECTOR
from explainer.diagram.view import DiagramView
from explainer.illustration.walk import Walk
from tests.lesson.real_traces import REQUESTS

MIN_SCREEN_PX = 18.0
FULL_HD = (1920, 1080)


def full_hd_scale(scene) -> float:
    """The view's scale with the canvas fitted to a full-HD screen (presenter mode's view)."""
    view = DiagramView(scene)
    view.resize(*FULL_HD)
    view.show()  # (a hidden view's viewport keeps its first size)
    view._fit()
    assert (view.viewport().width(), view.viewport().height()) == FULL_HD
    scale = view.transform().m11()
    view.hide()
    view.setScene(None)
    view.deleteLater()
    return scale


def panel_of(item: QGraphicsItem | None, scene) -> str:
    by_item: dict[int, str] = {id(v): k for k, v in scene.panels.items()}
    while item is not None:
        if id(item) in by_item:
            return by_item[id(item)]
        item = item.parentItem()
    return "?"


def drawn(item: QGraphicsItem | None) -> bool:
    while item is not None:
        if not item.isVisible() or item.opacity() == 0:
            return False
        item = item.parentItem()
    return True


def text_px(t: QGraphicsSimpleTextItem | QGraphicsTextItem) -> float:
    font = t.font()
    px = font.pixelSize() if font.pixelSize() > 0 else font.pointSizeF() * 96 / 72
    m = t.sceneTransform()
    return px * math.sqrt(abs(m.m11() * m.m22() - m.m12() * m.m21()))


def too_small(scene, scale: float) -> dict[str, tuple[float, str]]:
    """For each kind of label under 18 px (its panel and key, numbers made #): the smallest
    size seen and its text."""
    scene.settle()
    out: dict[str, tuple[float, str]] = {}
    for t in scene.items():
        if not isinstance(t, (QGraphicsSimpleTextItem, QGraphicsTextItem)) or not drawn(t):
            continue
        text = t.text() if isinstance(t, QGraphicsSimpleTextItem) else t.toPlainText()
        if not text.strip():
            continue
        on_screen = text_px(t) * scale
        if on_screen < MIN_SCREEN_PX - 1e-6:
            kind = re.sub(r"\d+", "#", f"{panel_of(t, scene)}: {t.data(0)}")
            out[kind] = min(out.get(kind, (on_screen, text[:40])), (on_screen, text[:40]))
    return out


def test_the_view_fits_the_canvas_to_full_hd(scene):
    assert full_hd_scale(scene) == pytest.approx(1.2, abs=0.01)


@pytest.mark.slow
@pytest.mark.parametrize("trace_name", list(REQUESTS))
def test_every_label_reads_from_the_back_of_the_hall(scene, real_trace, trace_name):
    trace = real_trace(trace_name)
    scene.set_theme(PROJECTOR)
    scene.set_spotlight(True)
    scale = full_hd_scale(scene)
    problems: dict[str, tuple[float, str]] = {}
    for cursor in Walk(trace).cursors():
        scene.show_frame(trace, cursor, animate=False)
        for kind, (px, text) in too_small(scene, scale).items():
            if kind not in problems or px < problems[kind][0]:
                problems[kind] = (px, f"{text!r} at {cursor.stage.value} of step {cursor.step}")
    lines = [f"{kind} {px:.1f} px: {text}" for kind, (px, text) in sorted(problems.items())]
    assert not problems, "under 18 px:\n" + "\n".join(lines)


@pytest.mark.slow
def test_the_check_sees_a_small_label(scene, real_trace):
    """The check itself can fail: the light theme's 8-unit labels are found, with their keys."""
    trace = real_trace("paris")
    scene.set_spotlight(True)
    scene.show_frame(trace, next(iter(Walk(trace).cursors())), animate=False)
    small = too_small(scene, full_hd_scale(scene))
    assert small and all(px < MIN_SCREEN_PX for px, _text in small.values())
    scene.set_theme(PROJECTOR)
    assert too_small(scene, full_hd_scale(scene)) == {}
