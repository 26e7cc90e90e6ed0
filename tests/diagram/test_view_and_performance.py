"""The view (fit, zoom), and how animation frames and steps work: by changing pre-created items,
never by building new ones. (Their timings are printed, not asserted: `explainer bench --gui`
measures the GUI thread.)"""

from __future__ import annotations

import statistics
import time

from explainer.diagram.theme import THEMES, Theme, system_theme_name
from explainer.diagram.transitions import TRANSITIONS
from explainer.diagram.view import DiagramView
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Stage


def test_view_fits_and_zooms(scene, qtbot):
    view = DiagramView(scene)
    qtbot.addWidget(view)
    view.resize(800, 450)
    view.show()
    qtbot.waitExposed(view)
    m = view.transform().m11()
    assert 0.45 < m < 0.55  # the 1600-wide canvas fits 800 pixels
    view.zoom_in()
    assert view.transform().m11() > m * 1.1 and view.zoom > 1.0
    view.zoom_out()
    view.zoom_out()  # never below "fit"
    assert view.zoom == 1.0 and abs(view.transform().m11() - m) < 1e-6
    view.zoom_in()
    view.reset_zoom()
    assert abs(view.transform().m11() - m) < 1e-6


def test_themes_are_complete():
    assert set(THEMES) == {"light", "dark", "projector"}
    p, light = THEMES["projector"], THEMES["light"]
    assert p.background == "#000000" and p.line_width >= 2 * light.line_width
    assert p.base_point_size > light.base_point_size
    assert all(isinstance(t, Theme) for t in THEMES.values())
    assert system_theme_name() in ("light", "dark")


def test_animation_frames_only_change_existing_items(scene, real_trace, capsys):
    """Every animation step moves or restyles pre-created items; none is added or removed."""
    trace = real_trace("chat")
    scene.set_speed(1.0)
    ticks: list[float] = []
    lesson = Walk(trace)
    for c in lesson.cursors()[1:14]:
        scene.show_frame(trace, lesson.prev(c), animate=False)
        scene.show_frame(trace, c, animate=False)
        transition = TRANSITIONS.get(c.stage)
        phases = transition.start(scene.actors, scene.frame, scene.theme) if transition else []
        items = len(scene.items())
        for phase in phases:
            for track in phase:
                for i in range(31):
                    t0 = time.perf_counter()
                    track.apply(i / 30)
                    ticks.append(time.perf_counter() - t0)
        assert len(scene.items()) == items, c
        scene.redraw()
    assert ticks
    with capsys.disabled():
        print(f"\nanimation step: median {statistics.median(ticks) * 1e3:.2f} ms, max {max(ticks) * 1e3:.1f} ms")


def test_stepping_draws_every_stage(scene, real_trace, capsys):
    trace = real_trace("chat")
    lesson = Walk(trace)
    scene.show_frame(trace, Cursor(1, Stage.LAYERS), animate=False)  # token texts loaded once
    times = []
    for c in lesson.cursors():
        t0 = time.perf_counter()
        scene.show_frame(trace, c, animate=False)
        times.append(time.perf_counter() - t0)
        assert scene.current()[1] == c
    with capsys.disabled():
        print(f"\nstep: median {statistics.median(times) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms")
