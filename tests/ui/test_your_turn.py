"""'Your turn: you are the sampler' in the window: the learner picks a token at a sampling stage,
the real model continues from it in the worker, and the two endings are compared and replayed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from explainer.content.assets import load_texts
from explainer.inference.events import BranchFinished
from explainer.stages import Cursor, Stage
from explainer.ui.lesson.show_me import Section
from explainer.ui.your_turn import Which
from tests.support.readback import caption_text, draw_marker, drawn_texts, output_chip_ids
from tests.ui.helpers import click, forward_to, generate, press, wait_event

pytestmark = pytest.mark.slow
PARIS = "The capital of France is"
TOUR = load_texts().tour


def click_bar(qtbot, w, i: int) -> None:
    w.scene.settle()
    point = w.view.mapFromScene(w.scene.probabilities.bar_point(i))
    qtbot.mouseClick(w.view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_a_bar_clicked_at_the_sampling_stage_makes_the_model_continue_from_it(qtbot, window, generate_calls):
    w = window
    original = generate(qtbot, w, PARIS, max_new_tokens=4)
    forward_to(qtbot, w, 1, Stage.SAMPLING)
    s = original.steps[1].sampling
    picked = int(s.raw.ids[2])  # the chart's third bar: greedy took the first
    assert picked != s.chosen.id
    runs_before = len(generate_calls)
    with wait_event(qtbot, w.controller, BranchFinished, timeout=60_000):
        click_bar(qtbot, w, 2)
    assert len(generate_calls) == runs_before + 1  # the real model, once, in the worker
    branch = w.trace
    assert branch is not original and w.runs.model_run is original and w.runs.your_run is branch
    assert branch.branch is not None and branch.branch.step == 1
    assert branch.steps[2].tokens[0].id == picked  # the model read the learner's token next
    assert [t.id for t in branch.output_tokens[:1]] == [t.id for t in original.output_tokens[:1]]
    # the illustration opens the branch at the pick, labelled as the learner's choice
    assert w.position == Cursor(1, Stage.SAMPLING)
    w.scene.settle()
    assert caption_text(w.scene).startswith("Your turn") and draw_marker(w.scene) is None
    assert any(t.startswith("you picked") for t in drawn_texts(w.scene))
    # the two endings side by side
    tab = w.lesson.dock.your_turn
    assert w.lesson.dock.section() is Section.YOUR_TURN and tab.endings.isVisible()
    model, yours = tab.columns[Which.MODEL], tab.columns[Which.YOURS]
    assert model.heading.text().startswith("The model's pick") and yours.heading.text().startswith("Your pick")
    assert "picked by you" in yours.tokens.text() and "picked by you" not in model.tokens.text()
    assert yours.choose.isChecked() and not model.choose.isChecked()
    assert yours.text.text() != model.text.text()

    # switching runs replays what is recorded: the model does not run again
    calls = len(generate_calls)
    click(qtbot, model.choose)
    assert w.trace is original and w.position == Cursor(1, Stage.SAMPLING)
    assert w.status.activity.text() == load_texts().app_text("your_turn", "showing_model")  # (not "your run is ready")
    w.scene.settle()
    assert not caption_text(w.scene).startswith("Your turn")
    assert not any(t.startswith("you picked") for t in drawn_texts(w.scene))
    press(qtbot, w, Qt.Key.Key_N, times=2)  # step on through the model's run
    assert output_chip_ids(w.scene)[-1] == original.steps[2].sampling.chosen.id
    click(qtbot, yours.choose)
    assert w.trace is branch
    forward_to(qtbot, w, 2, Stage.APPEND)
    assert output_chip_ids(w.scene)[-2:] == [picked, branch.steps[2].sampling.chosen.id]
    click(qtbot, model.choose)  # and back: the model's own run, as it was
    assert w.trace is original and w.runs.your_run is branch
    assert len(generate_calls) == calls
    # a click outside the sampling stage picks nothing
    forward_to(qtbot, w, 3, Stage.PROBABILITIES)
    with qtbot.assertNotEmitted(w.scene.candidate_activated), qtbot.assertNotEmitted(w.runs.changed):
        click_bar(qtbot, w, 1)
    assert w.trace is original and w.runs.pending is None and len(generate_calls) == calls


def test_the_keyboard_picks_from_the_tab_and_the_tour_wants_a_token_other_than_the_top(qtbot, window, generate_calls):
    w = window
    session, dock = w.lesson, w.lesson.dock
    step = next(i for i, s in enumerate(TOUR.steps) if s.id == "choose-yours")
    session.go_to(step)
    assert dock.section() is Section.YOUR_TURN
    tab = dock.your_turn
    original = generate(qtbot, w, PARIS, max_new_tokens=3)
    assert not tab.pick_button.isEnabled()  # not at a sampling stage yet
    click(qtbot, dock.tour.show_me_button)  # steps to a sampling stage
    assert w.position is not None and w.position.stage is Stage.SAMPLING
    k = w.position.step
    assert tab.pick_button.isEnabled() and tab.candidates.count() == 10
    # the model's own pick, the top token: a run, but not another road
    tab.candidates.setFocus()
    qtbot.keyClick(tab.candidates, Qt.Key.Key_Home)
    assert tab.candidates.currentData() == original.steps[k].sampling.chosen.id
    tab.pick_button.setFocus()
    with wait_event(qtbot, w.controller, BranchFinished, timeout=60_000):
        qtbot.keyClick(tab.pick_button, Qt.Key.Key_Space)
    assert w.trace.branch is not None and w.position == Cursor(k, Stage.SAMPLING)  # (Space picked, not stepped)
    assert not session.state.tour.done
    # back to the model's run, then the second candidate, by keys alone
    tab.columns[Which.MODEL].choose.setFocus()
    qtbot.keyClick(tab.columns[Which.MODEL].choose, Qt.Key.Key_Space)
    assert w.trace is original and tab.pick_button.isEnabled()
    qtbot.keyClick(tab.candidates, Qt.Key.Key_Home)
    qtbot.keyClick(tab.candidates, Qt.Key.Key_Down)
    picked = tab.candidates.currentData()
    assert picked == int(original.steps[k].sampling.raw.ids[1])
    with wait_event(qtbot, w.controller, BranchFinished, timeout=60_000):
        qtbot.keyClick(tab.pick_button, Qt.Key.Key_Space)
    branch = w.trace
    assert branch.steps[k].sampling.chosen.id == picked and branch.steps[k + 1].tokens[0].id == picked
    assert session.state.tour.done and dock.tour.task.text().startswith("✓")
    # a new Generate forgets the pair
    generate(qtbot, w, PARIS, max_new_tokens=2)
    assert w.runs.model_run is None and w.runs.your_run is None and not tab.endings.isVisibleTo(tab)
