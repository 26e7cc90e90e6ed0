"""Approved images of the lesson's pointer in the live window: for each chapter of the tour,
the illustration with the chapter's first highlight, and the same in presenter mode.

The window's own scene is rendered (800 x 450, like tests/diagram/test_images.py) and compared
the same way (tests/support/images.py; EXPLAINER_APPROVE=1 writes tests/diagram/approved/). The
window's scene leaves measured times out here, as an exported figure does: they differ every run."""

from __future__ import annotations

import pytest

from explainer.content.assets import load_texts
from explainer.content.texts import TargetKind
from explainer.illustration.walk import Walk
from tests.support.images import check_image
from tests.ui.helpers import click

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)

TEXTS = load_texts()
TOUR = TEXTS.tour


def first_pointer(chapter_id: str) -> int:
    """The chapter's first step that points into the illustration (its first step, when every
    step of it points at a control: then the illustration has no outline)."""
    steps = [(i, s) for i, s in enumerate(TOUR.steps) if s.chapter == chapter_id]
    return next((i for i, s in steps if s.target.kind is not TargetKind.CONTROL), steps[0][0])


def show_chapter(qtbot, w, trace, chapter_id: str) -> None:
    """The recorded run at its end, the tour at the chapter's first pointer, "Show me" pressed."""
    w.stepper.show(Walk(trace).last())
    w.lesson.go_to(first_pointer(chapter_id))
    if w.lesson.dock.tour.show_me_button.isEnabled():
        click(qtbot, w.lesson.dock.tour.show_me_button)
    w.scene.finish_animation()
    w.scene.settle()


@pytest.mark.parametrize("chapter", [c.id for c in TOUR.chapters])
def test_each_chapter_points_at_its_panel(qtbot, window, real_trace, chapter):
    w = window
    w.apply_theme("light")
    w.scene.set_show_timings(False)
    trace = real_trace("sampled")
    w.show_recorded(trace)
    show_chapter(qtbot, w, trace, chapter)
    step = TOUR.steps[first_pointer(chapter)]
    assert (w.scene.highlighted is None) is (step.target.kind is TargetKind.CONTROL)
    check_image(w.scene, f"lesson_{chapter}_light")


def test_presenter_mode_with_the_tours_pointer(qtbot, window, real_trace):
    w = window
    w.scene.set_show_timings(False)
    trace = real_trace("sampled")
    w.show_recorded(trace)
    w.presenter.enter()
    show_chapter(qtbot, w, trace, "choose")  # the probabilities, spotlit and outlined
    assert w.scene.spotlight and w.scene.highlighted == "probabilities"
    assert not w.lesson.dock.isVisible()
    check_image(w.scene, "lesson_choose_presenter")
    w.presenter.leave()
