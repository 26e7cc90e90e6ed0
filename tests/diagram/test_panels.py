"""One value per panel: a panel is drawn again exactly when its value changes, and drawing only
the changed panels gives the same picture as drawing everything anew."""

from __future__ import annotations

import random

import pytest

from explainer.content.assets import load_texts
from explainer.diagram.registry import PANELS
from explainer.diagram.scene import LifecycleScene
from explainer.frames import Frame, build_frame
from explainer.illustration.walk import Walk
from tests.support import readback as rb
from tests.support.lesson import model_vocabulary


def test_every_value_of_a_frame_has_its_panel():
    assert [spec.name for spec in PANELS] == list(Frame.panel_names())


def test_frames_are_pure_values(real_trace):
    trace = real_trace("sampled")
    for c in Walk(trace).cursors():
        a = build_frame(trace, c, load_texts(), model_vocabulary())
        b = build_frame(trace, c, load_texts(), model_vocabulary())
        assert a == b and a is not b
        hash(a.cursor)  # cursors (and frames' keys) are hashable values


@pytest.mark.parametrize("name", ["sampled", "chat"])
def test_drawing_only_changed_panels_equals_drawing_everything_anew(scene, real_trace, name):
    trace = real_trace(name)
    cursors = Walk(trace).cursors()
    walk = cursors + list(reversed(cursors))
    rng = random.Random(0)
    walk += [rng.choice(cursors) for _ in range(40)]  # jumps back and forth
    fresh = LifecycleScene(load_texts(), scene.theme)
    fresh.set_vocabulary(model_vocabulary())
    for c in walk:
        scene.show_frame(trace, c, animate=False)  # draws only the panels whose value changed
        fresh.show_frame(trace, c, animate=False)
        fresh.redraw()  # every panel drawn again from its value
        assert rb.frame_state(scene) == rb.frame_state(fresh), c


def test_a_panel_is_drawn_exactly_when_its_value_changes(scene, real_trace):
    trace = real_trace("sampled")
    drawn: list[str] = []
    for name, item in scene.panels.items():
        original = item.draw

        def counting(value, theme, name=name, original=original):
            drawn.append(name)
            return original(value, theme)

        item.draw = counting
    previous = scene.frame
    for c in Walk(trace).cursors():
        drawn.clear()
        scene.show_frame(trace, c, animate=False)
        frame = scene.frame
        changed = {n for n in Frame.panel_names() if frame.panel(n) != previous.panel(n)}
        assert sorted(drawn) == sorted(changed), c
        previous = frame


def test_a_tour_step_can_point_at_every_panel(scene, real_trace):
    from explainer.diagram.items.base import Panel

    scene.show_frame(real_trace("paris"), Walk(real_trace("paris")).first(), animate=False)
    for spec in PANELS:
        scene.set_highlight(spec.name)
        outline = scene.highlight.sceneBoundingRect()
        item = scene.panels[spec.name]
        # a panel's box, or for the arrows and the title line, what their parts draw
        drawn = (
            item.sceneBoundingRect() if isinstance(item, Panel) else item.mapRectToScene(item.childrenBoundingRect())
        )
        assert scene.highlight.isVisible() and scene.highlighted == spec.name
        assert outline.contains(drawn.intersected(scene.sceneRect()).adjusted(2, 2, -2, -2)), spec.name
        assert scene.sceneRect().adjusted(-20, -20, 20, 20).contains(outline), spec.name
        # an outline takes a panel in whole or leaves it alone, never cuts through it (the loop's end
        # label sits on the tokens panel's edge by design: its outline follows it there)
        for other in PANELS if spec.name != "loop" else ():
            if other.rect is not None and other.name != spec.name:
                inside = other.canvas_rect().adjusted(8, 8, -8, -8)
                assert outline.contains(inside) or not outline.intersects(inside), (spec.name, other.name)
    assert rb.frame_state(scene)["highlight"]["opacity"] == 1.0
    scene.set_highlight(None)
    assert not scene.highlight.isVisible() and "highlight" not in rb.frame_state(scene)
    with pytest.raises(ValueError):
        scene.set_highlight("nowhere")
