"""Every text a panel draws lies inside that panel's box, at every stage of real runs.

The approved images cannot guard this: they show a few frames, and a text that runs a few units
past its box moves too few pixels to fail a comparison that must forgive antialiasing. A text
running out of its box is a fact about geometry, so it is checked as one: the scene rectangle of
each visible text item (QGraphicsSimpleTextItem, QGraphicsTextItem, at any depth) against the
inside of the panel's frame (its rectangle less half the frame's line), for every cursor of
every real trace, in every theme (the projector's type is larger), with the measured times
shown as in the app (they make the counters' lines longest).

The box is the panel's own rectangle (its spec's in the registry, where the scene placed it),
not placement.panel_rect: for an arrow, that is the rectangle around what it draws, which would
contain its texts by definition.

Left out, by design: the arrows. The append loop's labels ("append, then repeat", the end label)
sit in the gutter between the tokens and the probabilities, and the flow arrows join panels;
neither has a box of its own. test_scene.test_everything_stays_on_the_canvas keeps them on the
canvas. The header has no frame but a rectangle of its own, which its texts are checked
against. Any other item of the registry without a rectangle fails
test_every_item_has_a_box_or_a_reason, so a new panel cannot slip past unchecked.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem, QGraphicsTextItem

from explainer.diagram.items.base import Panel
from explainer.diagram.placement import panel_rect
from explainer.diagram.registry import BY_NAME, PANELS
from explainer.diagram.theme import THEMES
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Stage
from tests.lesson.real_traces import BRANCHES, REQUESTS

ARROWS = {"loop", "flow"}  # drawn between panels, see the module docstring
BOXED = [spec.name for spec in PANELS if spec.name not in ARROWS]


def box_of(scene, name: str) -> QRectF | None:
    """Where ``name``'s texts must stay, in scene units (None: it has no box)."""
    spec = BY_NAME[name]
    if spec.rect is None:
        return None
    rect = spec.canvas_rect()
    if not isinstance(scene.panels[name], Panel):
        return rect  # (the header: no frame line)
    inset = scene.theme.line_width / 2  # the frame's line is drawn centred on the rectangle's edge
    return rect.adjusted(inset, inset, -inset, -inset)


def texts_of(item: QGraphicsItem) -> list[QGraphicsItem]:
    """The visible text items under ``item`` (at any depth: chips hold their labels)."""
    found = []
    for child in item.childItems():
        if not child.isVisible():
            continue  # hidden with its children
        if isinstance(child, (QGraphicsSimpleTextItem, QGraphicsTextItem)):
            found.append(child)
        found.extend(texts_of(child))
    return found


def overflowing(scene) -> list[str]:
    """'panel: key "text" rect' for each visible text not inside its panel's rectangle."""
    scene.settle()
    out = []
    for name in BOXED:
        box = box_of(scene, name)
        assert box is not None, name
        for t in texts_of(scene.panels[name]):
            r = t.sceneBoundingRect()
            if r.isEmpty() or box.contains(r):
                continue
            text = t.text() if isinstance(t, QGraphicsSimpleTextItem) else t.toPlainText()
            out.append(f"{name}: {t.data(0)} {text[:60]!r} {fmt(r)} outside {fmt(box)}")
    return out


def fmt(r: QRectF) -> str:
    return f"({r.left():.1f}, {r.top():.1f})-({r.right():.1f}, {r.bottom():.1f})"


def test_every_item_has_a_box_or_a_reason(scene):
    unboxed = {spec.name for spec in PANELS if box_of(scene, spec.name) is None}
    assert unboxed == ARROWS, "a panel without a box: make it a Panel, or add it to ARROWS with a reason"
    for name in BOXED:  # the box is where placement put the panel
        box = box_of(scene, name)
        assert box is not None and panel_rect(name, scene.panels).contains(box), name


@pytest.mark.slow
@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("trace_name", [*REQUESTS, *BRANCHES])
def test_every_text_stays_in_its_panel(scene, real_trace, trace_name, theme):
    trace = real_trace(trace_name)
    scene.set_theme(THEMES[theme])
    assert scene.builder.timings  # the app's look, with the measured times' longer lines
    problems = []
    for cursor in Walk(trace).cursors():
        scene.show_frame(trace, cursor, animate=False)
        problems += [f"{cursor}: {p}" for p in overflowing(scene)]
        if cursor.stage is Stage.LAYERS:  # and while the lesson's game asks for the next token
            scene.set_answer_rule(lambda _t, _c: True)
            problems += [f"{cursor} (guess open): {p}" for p in overflowing(scene)]
            scene.set_answer_rule(None)
    assert not problems, "\n".join(problems[:20]) + (f"\n… {len(problems) - 20} more" if len(problems) > 20 else "")


@pytest.mark.slow
def test_the_check_sees_a_text_running_out_of_its_box(scene, real_trace):
    """The check itself can fail: a counters line placed past the panel's right edge is found."""
    trace = real_trace("paris")
    scene.show_frame(trace, Cursor(1, Stage.LAYERS), animate=False)
    assert overflowing(scene) == []
    line = scene.counters_item.line1
    line.setPos(scene.counters_item.w - line.boundingRect().width() / 2, line.pos().y())
    assert [p.split(" ")[1] for p in overflowing(scene)] == ["counters/timing"]
