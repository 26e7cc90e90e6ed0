"""The guided tour in the live window: walked by keys alone, pointing at what each step names,
fed by what the learner does, and resumed where it was left."""

from __future__ import annotations

import dataclasses
import json

import pytest
from PySide6.QtCore import Qt

from explainer.content.assets import load_texts
from explainer.lesson.game import GameState
from explainer.lesson.questions import QuizState
from explainer.lesson.state import LessonState
from explainer.lesson.tour import TourState, goals_text
from explainer.stages import Cursor, Stage
from explainer.ui.lesson.show_me import Section
from tests.ui.helpers import click, forward_to, generate, press, type_into
from tests.ui.lesson_helpers import assert_points_at, tour_key

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)

TEXTS = load_texts()
TOUR = TEXTS.tour
PARIS = "The capital of France is"


def index_of(step_id: str) -> int:
    i = TOUR.index_of(step_id)
    assert i is not None
    return i


def test_the_tour_walks_from_the_first_step_to_the_last_by_keys_alone(qtbot, window):
    w = window
    session, dock = w.lesson, w.lesson.dock
    assert session.state.tour.index == 0 and dock.isVisible()
    generate(qtbot, w, PARIS, max_new_tokens=3)  # the steps quote the learner's own run
    forward_to(qtbot, w, 0, Stage.LAYERS)
    here = w.position
    # the focus anywhere: the diagram, the prompt box, the glossary's search field, a tour button
    places = [w.view, w.prompt, dock.glossary.search, dock.tour.next_button]
    for i, step in enumerate(TOUR.steps):
        view = session.view
        assert view is not None and view.step_id == step.id
        assert not view.needs_run and "{" not in view.text, step.id
        assert dock.tour.text.plain == view.text
        progress = TEXTS.text("tour", "progress").format(n=i + 1, total=len(TOUR.steps))
        assert dock.tour.progress.text() == progress
        assert_points_at(w, step)
        tour_key(qtbot, places[i % len(places)], Qt.Key.Key_Right)
        assert w.position == here, "Alt+→ walks the tour, never the diagram"
    assert session.state.tour.finished(TOUR) and session.view is None
    assert w.scene.highlighted is None and not session.pointer.outline.isVisible()
    assert dock.tour.chapter.text() == TEXTS.text("tour", "finished")
    tour_key(qtbot, w.view, Qt.Key.Key_Left)  # back to the last step
    assert session.view is not None and session.view.step_id == TOUR.steps[-1].id
    for _ in range(3):
        tour_key(qtbot, w.prompt, Qt.Key.Key_Left)
    assert session.state.tour.index == len(TOUR.steps) - 4
    press(qtbot, w, Qt.Key.Key_Right)  # the plain arrow still steps the diagram
    assert w.position == Cursor(0, Stage.PROBABILITIES)


def test_steps_that_quote_the_run_say_so_before_there_is_one(qtbot, window):
    w = window
    session = w.lesson
    session.go_to(index_of("tok-split"))  # "cuts your prompt into {n_prompt} tokens"
    view = session.view
    assert view is not None and view.needs_run
    assert w.lesson.dock.tour.text.plain == TEXTS.text("tour", "needs_run")
    click(qtbot, w.lesson.dock.tour.show_me_button)  # "Show me" goes to the prompt box
    assert w.prompt.hasFocus() or w.focusWidget() is w.prompt
    generate(qtbot, w, PARIS, max_new_tokens=2)
    assert session.view is not None and not session.view.needs_run and "5" in session.view.text


def test_the_learners_actions_complete_the_steps(qtbot, window):
    w = window
    session, dock = w.lesson, w.lesson.dock
    session.go_to(index_of("start-run"))  # type a prompt and press Generate
    assert not session.state.tour.done
    generate(qtbot, w, PARIS, max_new_tokens=3)
    assert session.state.tour.done and dock.tour.task.text().startswith("✓")
    session.go_to(index_of("tok-split"))  # the tokens stage of the first pass
    forward_to(qtbot, w, 0, Stage.TOKENS)
    assert session.state.tour.done
    session.go_to(index_of("loop-decode"))  # the tokens stage of a decode pass
    forward_to(qtbot, w, 0, Stage.APPEND)
    assert not session.state.tour.done
    forward_to(qtbot, w, 1, Stage.TOKENS)
    assert session.state.tour.done
    session.go_to(index_of("loop-stop"))  # the end of the run
    assert not session.state.tour.done
    press(qtbot, w, Qt.Key.Key_N, times=2)
    assert w.position == Cursor(2, Stage.APPEND) and session.state.tour.done
    session.go_to(index_of("choose-temperature"))  # temperature, seen on this pass's what-if chart
    assert dock.section() is Section.WHATIF
    click(qtbot, w.sampling.greedy)  # a setting alone shows nothing until a run: not the task
    assert not session.state.tour.done
    click(qtbot, dock.tour.show_me_button)
    assert w.position is not None and w.position.stage is Stage.SAMPLING
    before = dock.whatif.computed
    dock.whatif.temperature.setValue(150)
    qtbot.waitUntil(lambda: dock.whatif.computed > before)  # the chart the learner watches is redrawn
    assert session.state.tour.done and dock.tour.task.text().startswith("✓")
    session.go_to(index_of("choose-cuts"))  # set a cut, then a run made with it
    type_into(qtbot, w.sampling.top_k, "20")
    assert not session.state.tour.done and not dock.tour.task.text().startswith("✓")
    generate(qtbot, w, PARIS, max_new_tokens=2)
    assert session.state.tour.done and dock.tour.task.text().startswith("✓")


def test_show_me_steps_there_and_the_step_opens_its_section(qtbot, window):
    w = window
    session, dock = w.lesson, w.lesson.dock
    generate(qtbot, w, PARIS, max_new_tokens=3)
    forward_to(qtbot, w, 1, Stage.LAYERS)
    session.go_to(index_of("tok-split"))  # the tokens stage of the first pass: offered, not forced
    assert w.position == Cursor(1, Stage.LAYERS)
    click(qtbot, dock.tour.show_me_button)
    assert w.position == Cursor(0, Stage.TOKENS)
    session.go_to(index_of("tok-count"))  # a question step opens the question beside the tour
    assert dock.section() is Section.QUESTIONS
    assert dock.questions.questions[dock.questions.index].id == "prompt_tokens"
    session.go_to(index_of("choose-game"))
    assert dock.section() is Section.PREDICT
    click(qtbot, dock.tour.show_me_button)  # the layers stage, before the probabilities
    assert w.position == Cursor(0, Stage.LAYERS) and dock.predict.round is not None
    session.go_to(index_of("choose-whatif"))
    assert dock.section() is Section.WHATIF
    click(qtbot, dock.tour.show_me_button)
    assert w.position == Cursor(0, Stage.SAMPLING) and dock.whatif.step is w.trace.steps[0]
    session.go_to(index_of("scale-memory"))  # chapter 8 opens the sizes beside the tour
    assert dock.section() is Section.SCALE
    dock.open_section(Section.GLOSSARY)
    click(qtbot, dock.tour.show_me_button)  # and "Show me" opens them again
    assert dock.section() is Section.SCALE
    session.go_to(index_of("req-steps"))
    assert dock.section() is Section.REQUEST
    w.control_dock.hide()  # a control step shows the controls again
    session.go_to(index_of("start-run"))
    assert w.control_dock.isVisible()
    click(qtbot, dock.tour.show_me_button)
    assert w.focusWidget() is w.prompt


def test_f1_opens_and_closes_the_lesson_wherever_the_focus_is(qtbot, window):
    w = window
    dock = w.lesson.dock
    assert dock.isVisible()
    qtbot.keyClick(w.view, Qt.Key.Key_F1)
    assert not dock.isVisible()
    qtbot.keyClick(w.prompt, Qt.Key.Key_F1)
    assert dock.isVisible()
    view_menu = w.menuBar().findChild(type(w.recent.menu), "view_menu")
    assert w.registry["lesson"] in view_menu.actions()
    assert w.registry["lesson"].isChecked()


def test_the_tour_resumes_where_it_was_left(qtbot, make_window, shared_engine):
    w = make_window(lambda: shared_engine)
    w.lesson.go_to(index_of("in-layers"))
    assert w.lesson.view is not None and w.lesson.view.step_id == "in-layers"
    quiz = QuizState((("core", 2, True), ("stop", 1, False)))
    game = GameState(played=4, score=3, streak=2, best=2)
    w.lesson.set_state(dataclasses.replace(w.lesson.state, quiz=quiz, game=game))
    qtbot.keyClick(w.view, Qt.Key.Key_F1)  # the dock closed: the layout remembers it
    w.close()
    again = make_window(lambda: shared_engine)
    assert again.lesson.state.tour.index == index_of("in-layers")
    assert again.lesson.dock.tour.progress.text().startswith(f"Step {index_of('in-layers') + 1} of")
    assert again.scene.highlighted == "layers"
    assert again.lesson.state.quiz == quiz and again.lesson.state.game == game
    assert not again.lesson.dock.isVisible()
    qtbot.keyClick(again.view, Qt.Key.Key_F1)
    assert again.lesson.dock.isVisible()


def test_progress_saved_by_an_earlier_version_is_kept(qtbot, make_window):
    """Versions before the one record saved the tour, the quiz and the game under three keys:
    the first start after the update reads them into the one record and removes them."""
    from explainer.ui.settings import AppSettings
    from explainer.ui_model.settings_schema import LESSON_STATE, OLD_LESSON_GAME, OLD_LESSON_QUIZ, OLD_LESSON_TOUR

    tour = TourState(index_of("in-layers"), True)
    quiz = QuizState((("core", 2, True), ("stop", 1, False)))
    game = GameState(played=4, score=3, streak=2, best=2)
    store = AppSettings()
    for old, record in (
        (OLD_LESSON_TOUR, tour.to_dict(TOUR)),
        (OLD_LESSON_QUIZ, quiz.to_dict()),
        (OLD_LESSON_GAME, game.to_dict()),
    ):
        store.store.setValue(old.key, json.dumps(record))  # as the earlier version wrote them
    store.sync()
    w = make_window(load=False)
    assert w.lesson.state == LessonState(tour, quiz, game)
    assert w.lesson.dock.tour.progress.text().startswith(f"Step {index_of('in-layers') + 1} of")
    assert w.lesson.dock.predict.score.text() == game.text(TEXTS)
    goals = goals_text(TEXTS, w.lesson.state.goals(TEXTS, w.lesson.questions))
    assert w.lesson.dock.questions.score.text() == quiz.text(TEXTS, w.lesson.questions, goals)
    saved = AppSettings()
    assert LessonState.from_dict(saved.get(LESSON_STATE), TOUR) == LessonState(tour, quiz, game)
    assert not any(saved.has(key) for key in (OLD_LESSON_TOUR, OLD_LESSON_QUIZ, OLD_LESSON_GAME))
    w.lesson.next()
    w.close()
    again = make_window(load=False)  # read once: the one record is what counts from now on
    assert again.lesson.state == LessonState(TourState(index_of("in-layers") + 1), quiz, game)
