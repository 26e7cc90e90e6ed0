"""Every text a panel draws lies inside that panel's box, and no two texts overlap, at every
stage of real runs and at every Text size.

The approved images cannot guard this: they show a few frames, and a text that runs a few units
past its box moves too few pixels to fail a comparison that must forgive antialiasing. A text
running out of its box is a fact about geometry, so it is checked as one: the scene rectangle of
each visible text item (QGraphicsSimpleTextItem, QGraphicsTextItem, at any depth) against the
inside of the panel's frame (its rectangle less half the frame's line), for every cursor of
every real trace, in every theme (the projector's type is larger), with the measured times
shown as in the app (they make the counters' lines longest), at 100, 150 and 200 % text (View >
Text size: the panels keep their places, so larger type must wrap, elide or drop, never run out
or onto another text). Two texts overlap when their rectangles share more than a unit each way
(a line set right below another touches it); every text of the scene is checked against every
other, arrows' labels included, so a label in the gutter cannot sit on a panel's text either.

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

from dataclasses import replace

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem, QGraphicsTextItem

from explainer.diagram.items.base import Panel
from explainer.diagram.placement import panel_rect
from explainer.diagram.registry import BY_NAME, PANELS
from explainer.diagram.theme import THEMES
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Predictor, Stage
from tests.lesson.real_traces import BRANCHES, REQUESTS

ARROWS = {"loop", "flow"}  # drawn between panels, see the module docstring
BOXED = [spec.name for spec in PANELS if spec.name not in ARROWS]
TEXT_SIZES = (1.0, 1.5, 2.0)  # View > Text size: 100 %, 150 %, 200 %
TOUCH = 1.0  # scene units two texts' rectangles may share each way (adjacent lines touch)


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


def texts_of(item: QGraphicsItem) -> list[QGraphicsSimpleTextItem | QGraphicsTextItem]:
    """The visible text items under ``item`` (at any depth: chips hold their labels)."""
    found: list[QGraphicsSimpleTextItem | QGraphicsTextItem] = []
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


def shown_texts(scene) -> list[tuple[str, QRectF]]:
    """(key "text", scene rectangle) of every text a reader sees: visible, not blank, not faded out."""
    out = []
    for spec in PANELS:
        for t in texts_of(scene.panels[spec.name]):
            text = t.text() if isinstance(t, QGraphicsSimpleTextItem) else t.toPlainText()
            r = t.sceneBoundingRect()
            if text.strip() and not r.isEmpty() and t.effectiveOpacity() > 0:
                out.append((f"{t.data(0)} {text[:40]!r}", r))
    return out


def overlapping(scene) -> list[str]:
    """'key "text" x key "text"' for each two shown texts whose rectangles overlap."""
    scene.settle()
    texts = sorted(shown_texts(scene), key=lambda kr: kr[1].left())
    out = []
    for i, (a, ra) in enumerate(texts):
        for b, rb in texts[i + 1 :]:
            if rb.left() > ra.right() - TOUCH:
                break  # sorted by left edge: no later text reaches back into this one
            both = ra.intersected(rb)
            if both.width() > TOUCH and both.height() > TOUCH:
                out.append(f"{a} {fmt(ra)} x {b} {fmt(rb)}")
    return out


def problems_at(scene) -> list[str]:
    return overflowing(scene) + [f"overlap: {p}" for p in overlapping(scene)]


def fmt(r: QRectF) -> str:
    return f"({r.left():.1f}, {r.top():.1f})-({r.right():.1f}, {r.bottom():.1f})"


def test_every_item_has_a_box_or_a_reason(scene):
    unboxed = {spec.name for spec in PANELS if box_of(scene, spec.name) is None}
    assert unboxed == ARROWS, "a panel without a box: make it a Panel, or add it to ARROWS with a reason"
    for name in BOXED:  # the box is where placement put the panel
        box = box_of(scene, name)
        assert box is not None and panel_rect(name, scene.panels).contains(box), name


@pytest.mark.slow
@pytest.mark.parametrize("size", TEXT_SIZES, ids=lambda s: f"{s:.0%}")
@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("trace_name", [*REQUESTS, *BRANCHES])
def test_every_text_stays_in_its_panel_and_clear_of_the_others(scene, real_trace, trace_name, theme, size):
    trace = real_trace(trace_name)
    scene.set_theme(replace(THEMES[theme], text_scale=size))
    assert scene.builder.timings  # the app's look, with the measured times' longer lines
    problems = []
    for cursor in Walk(trace).cursors():
        scene.show_frame(trace, cursor, animate=False)
        problems += [f"{cursor}: {p}" for p in problems_at(scene)]
        if cursor.stage is Stage.LAYERS:  # and while the lesson's game asks for the next token
            scene.set_answer_rule(Predictor.LEARNER, lambda _t, _c: True)
            problems += [f"{cursor} (guess open): {p}" for p in problems_at(scene)]
            scene.set_answer_rule(Predictor.LEARNER, None)
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


@pytest.mark.slow
def test_the_check_sees_two_texts_on_each_other(scene, real_trace):
    """And the overlap check can fail: the counters' second line moved onto its first is found."""
    trace = real_trace("paris")
    scene.show_frame(trace, Cursor(1, Stage.LAYERS), animate=False)
    assert overlapping(scene) == []
    item = scene.counters_item
    item.line2.setPos(item.line1.pos())
    found = overlapping(scene)
    assert len(found) == 1 and "counters/timing" in found[0] and "counters/device" in found[0], found
