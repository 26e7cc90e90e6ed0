"""Presenter mode at every tour step: every label on the illustration, the tour's marks on it
included, and the step's note are at least 18 px on a 1920 x 1080 projector.

tests/diagram/test_projector_type.py scans every stage of real runs; a tour step adds its own
marks (an outline, a pointer, a label on a panel) and the note, and moves the illustration to
the stage it talks about, so the walk is repeated here step by step, as presenter mode shows it.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from explainer.ui.lesson.projector_note import MIN_NOTE_PX
from tests.diagram.test_projector_type import MIN_SCREEN_PX, full_hd_scale, too_small
from tests.ui.helpers import generate, press

pytestmark = pytest.mark.slow


def test_every_tour_step_reads_from_the_back_of_the_hall(qtbot, window):
    w = window
    generate(qtbot, w, "The capital of France is", max_new_tokens=4)
    press(qtbot, w, Qt.Key.Key_F11)
    assert w.presenter.active
    session, note = w.lesson, w.lesson.note
    assert note is not None
    scale = full_hd_scale(w.scene)
    problems: list[str] = []
    for i, step in enumerate(session.tour.steps):
        session.go_to(i)
        w.scene.settle()
        problems += [
            f"{step.id}: {kind} {px:.1f} px {text!r}" for kind, (px, text) in too_small(w.scene, scale).items()
        ]
        if note.isVisible() and note.font().pixelSize() < MIN_NOTE_PX:
            problems.append(f"{step.id}: the note is {note.font().pixelSize()} px")
        session.show_me()  # (the stage the step talks about, as the presenter's "Show me" key would)
        w.scene.settle()
        problems += [
            f"{step.id} shown: {k} {px:.1f} px {text!r}" for k, (px, text) in too_small(w.scene, scale).items()
        ]
        assert not session.dock.isVisible(), f"{step.id}: the lesson dock popped back onto the projector"
    assert not problems, f"under {MIN_SCREEN_PX} px:\n" + "\n".join(problems)
