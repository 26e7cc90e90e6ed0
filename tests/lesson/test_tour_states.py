"""The tour's words agree with the screen in each state a learner can bring about: a run on
screen, a question answered, a round of the game played, a guess open or the chart drawn, the
lesson complete.

Issue 49 found the tour saying what the screen did not show: "Type a prompt and press Generate"
with a run on screen, a question asked again on Back then Next after it was answered, "the chart
appears once you have picked" where stepping on draws it without a guess, "guess before the chart
is revealed" with the chart on screen, "Open “Lesson complete”" where the tab says "Done".
"""

from __future__ import annotations

import re

from explainer.content.assets import load_texts
from explainer.content.texts import ConditionKind, TourStep
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import lesson_fields
from explainer.lesson.game import GameState
from explainer.lesson.questions import QuizState
from explainer.lesson.state import LessonState
from explainer.lesson.tour import TourState, TourView, finished_text, tour_view
from tests.support.lesson import names_for

TEXTS = load_texts()
TOUR = TEXTS.tour
NO_RUN = lesson_fields(TEXTS, None, None, TokenNames())
ASKS_FOR_A_RUN = re.compile(r"type a prompt|press generate", re.IGNORECASE)
# the Lesson dock's tabs, as their labels read (the Your turn tab's is the window's own word)
TABS = {TEXTS.text("ui", k) for k in TEXTS.lesson.strings["ui"] if k.startswith("tab_")} | {
    TEXTS.app_text("your_turn", "tab")
}
BUTTONS = {TEXTS.text("ui", k) for k in ("finish", "show_me", "next", "back", "restart", "check", "show_answer")}


def index(step_id: str) -> int:
    i = TOUR.index_of(step_id)
    assert i is not None, step_id
    return i


def view(state: TourState, fields: dict[str, str], **kw) -> TourView:
    v = tour_view(TEXTS, state, fields, **kw)
    assert v is not None
    return v


def every_text(step: TourStep) -> list[str]:
    """Every wording a step can show: its text and task and their variants."""
    return [t for t in (step.text, step.text_guessing, step.text_open, step.text_run, step.do, step.do_run) if t]


def test_with_a_run_on_screen_no_step_asks_for_one_it_does_not_need(real_trace):
    """Step 2 and the presenter band said "Type a prompt and press Generate" with a run on screen:
    once there is one, a step that asks for a run is done and says so. Only a step that needs a
    new run (one made with a changed setting) still asks for Generate."""
    trace = real_trace("paris")
    ran = lesson_fields(TEXTS, trace, None, names_for(trace))
    for i, step in enumerate(TOUR.steps):
        before, after = view(TourState(i), NO_RUN), view(TourState(i), ran)
        if step.done.kind is ConditionKind.GENERATE:
            assert ASKS_FOR_A_RUN.search(before.do) and not before.complete, step.id  # no run yet: asked
            assert after.complete and not ASKS_FOR_A_RUN.search(after.do + after.text), (step.id, after)
            assert "on screen" in after.do and trace.prompt in after.text
        elif not (step.done.kind is ConditionKind.SETTING and step.done.run):
            assert not ASKS_FOR_A_RUN.search(after.text + after.do), (step.id, after.text, after.do)


def test_coming_back_to_an_answered_question_finds_it_done():
    """Back then Next to step 12 asked again for the question answered there; a question still
    wrong is asked again, and so is one not yet tried."""
    at = index("tok-count")
    question = TOUR.steps[at].done.question
    assert question == "prompt_tokens"
    answered = LessonState(TourState(at), QuizState(((question, 2, True),)))
    for moved in (answered.back(TOUR).next(TOUR), answered.next(TOUR).back(TOUR), answered.go_to(TOUR, at)):
        assert moved.tour.index == at and moved.tour.done and moved.tour.can_advance(TOUR)
        assert view(moved.tour, NO_RUN).complete
    wrong = LessonState(TourState(at), QuizState(((question, 1, False),)))
    assert not wrong.back(TOUR).next(TOUR).tour.done
    assert not LessonState(TourState(at)).back(TOUR).next(TOUR).tour.done
    # every question step the same way
    for i, step in enumerate(TOUR.steps):
        if step.done.kind is ConditionKind.QUESTION:
            assert step.done.question is not None
            right = LessonState(quiz=QuizState(((step.done.question, 1, True),)))
            assert right.go_to(TOUR, i).tour.done, step.id


def test_coming_back_to_the_game_after_a_round_finds_it_done():
    at = index("choose-game")
    assert TOUR.steps[at].done.kind is ConditionKind.GAME
    assert LessonState(game=GameState(played=1, score=0)).go_to(TOUR, at).tour.done
    assert not LessonState().go_to(TOUR, at).tour.done


def test_the_words_about_the_chart_hold_with_a_guess_open_and_with_the_chart_drawn(real_trace):
    """A round is offered at the layers stage, before the chart is drawn; stepping on draws the
    chart whether or not a guess was made (ui/lesson/session.py answer_open). So no wording says
    the chart waits for the pick, and a game step's text, read with the chart on screen, says
    where the guess is made instead of asking for it "before the chart is revealed"."""
    trace = real_trace("paris")
    ran = lesson_fields(TEXTS, trace, None, names_for(trace))
    waits = re.compile(r"chart (?:appears|is revealed|is shown|shows) (?:once|after|when)|before the chart is", re.I)
    for i, step in enumerate(TOUR.steps):
        for text in every_text(step):
            assert not waits.search(text), (step.id, text)
        if step.done.kind is ConditionKind.GAME:
            drawn = view(TourState(i), ran)  # the step before ends on the chart
            assert "layers stage" in drawn.text and "layers stage" in drawn.do and "Predict" in drawn.do
            guessing = view(TourState(i), ran, guessing=True)
            assert "not drawn yet" in guessing.text and guessing.text != drawn.text


def test_a_tab_or_button_the_tour_names_is_one_the_screen_shows():
    """Step 46 sent the learner to “Lesson complete”, a tab labelled “Done”."""
    examples = {e.label for e in TEXTS.examples}
    ends = (finished_text(TEXTS, False), finished_text(TEXTS, True))
    texts = [t for s in TOUR.steps for t in every_text(s)] + list(ends)
    for text in texts:
        for name in re.findall(r"“([^”{}]+)”", text):
            assert name in TABS | BUTTONS | examples, (name, text)
        for name in re.findall(r"(?:[Tt]he|[Ii]n the) ([A-Z][\w?]*(?: [a-z?]+)?) tab\b", text):
            assert name in TABS, (name, text)
    complete = view(TourState(index("finish-done")), NO_RUN, goals=(len(TEXTS.lesson.outcomes),) * 2)
    assert f"“{TEXTS.text('ui', 'tab_complete')}” tab" in complete.text


def test_the_tours_end_says_where_finish_leads_complete_or_not():
    """Once every goal was shown, the end of the tour still said "to see what is still to show"."""
    open_, done = finished_text(TEXTS, False), finished_text(TEXTS, True)
    assert "still to show" in open_ and "complete" not in open_.replace("not complete", "")
    assert "still to show" not in done and "complete" in done and "“Done” tab" in done
    assert "well done" not in (open_ + done).lower()  # (the praise is the last step's, once complete)
