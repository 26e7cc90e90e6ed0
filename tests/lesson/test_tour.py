"""The guided tour: a state that walks from the first step to the last, steps filled from the live run."""

from __future__ import annotations

import pytest

from explainer.content.assets import load_texts
from explainer.content.texts import Condition, ConditionKind, TargetKind, TourStep
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import lesson_fields
from explainer.lesson.tour import (
    Answered,
    Branched,
    Generated,
    LessonComplete,
    Predicted,
    SettingChanged,
    StageShown,
    TourEvent,
    TourState,
    WhatIfChanged,
    condition_met,
    tour_view,
)
from explainer.stages import Stage
from tests.support.lesson import names_for

TEXTS = load_texts()
TOUR = TEXTS.tour


def at(step_id: str) -> TourState:
    """The tour at the step of this id (a step the tour lacks fails the test)."""
    index = TOUR.index_of(step_id)
    assert index is not None, f"the tour has no step {step_id!r}"
    return TourState(index)


def step_of(state: TourState) -> TourStep:
    """The step the tour is at (past its end fails the test)."""
    step = state.step(TOUR)
    assert step is not None, f"{state} is past the tour's end"
    return step


def completing_events(c: Condition) -> tuple[TourEvent, ...]:
    """What the learner does to complete ``c``, in order (none: press Next)."""
    if c.kind is ConditionKind.SETTING and c.run:
        return (SettingChanged(c.names[0]), Generated())
    event = completing_event(c)
    return () if event is None else (event,)


def completing_event(c: Condition) -> TourEvent | None:
    """The one event that completes ``c`` (None: press Next)."""
    if c.kind is ConditionKind.STAGE:
        assert c.stage is not None
        return StageShown(c.stage, c.phase or "prefill", c.last)
    if c.kind is ConditionKind.SETTING:
        return SettingChanged(c.names[0])
    if c.kind is ConditionKind.WHATIF:
        return WhatIfChanged(c.names[0] if c.names else "temperature")
    if c.kind is ConditionKind.GENERATE:
        return Generated()
    if c.kind is ConditionKind.GAME:
        return Predicted(False)
    if c.kind is ConditionKind.QUESTION:
        assert c.question is not None
        return Answered(c.question, True)
    if c.kind is ConditionKind.COMPLETE:
        return LessonComplete()
    if c.kind is ConditionKind.BRANCH:
        return Branched(from_top=False)
    return None


def test_the_tour_walks_from_start_to_end(real_trace):
    trace = real_trace("paris")
    fields = lesson_fields(TEXTS, trace, None, names_for(trace))
    state, seen = TourState(), []
    while not state.finished(TOUR):
        view = tour_view(TEXTS, state, fields)
        assert view is not None and not view.needs_run and "{" not in view.text, view
        seen.append(view.step_id)
        for event in completing_events(view.done):
            assert not state.can_advance(TOUR)  # the task is still to do
            state = state.observe(TOUR, event)
        assert state.can_advance(TOUR), view.step_id
        state = state.next(TOUR)
    assert seen == [s.id for s in TOUR.steps]
    assert tour_view(TEXTS, state, fields) is None and state.next(TOUR) == state


def test_it_opens_with_a_real_world_problem_and_ends_with_the_check():
    first = TOUR.steps[0]
    assert first.done.kind is ConditionKind.NEXT and "{" not in first.text  # readable before any run
    assert "chatbot" in first.text and "pause" in first.text
    assert TOUR.steps[1].done.kind is ConditionKind.GENERATE and TOUR.steps[1].target.name == "prompt"
    closing = TEXTS.questions[-1].id
    assert any(s.done.question == closing for s in TOUR.steps[-3:])


def test_chapters_group_consecutive_steps():
    order = [s.chapter for s in TOUR.steps]
    groups = [c for i, c in enumerate(order) if i == 0 or order[i - 1] != c]
    assert groups == [c.id for c in TOUR.chapters]  # each chapter once, in order, none empty


@pytest.mark.parametrize(
    ("condition", "event", "met"),
    [
        (
            Condition(kind=ConditionKind.STAGE, stage=Stage.TOKENS, phase="decode"),
            StageShown(Stage.TOKENS, "decode"),
            True,
        ),
        (
            Condition(kind=ConditionKind.STAGE, stage=Stage.TOKENS, phase="decode"),
            StageShown(Stage.TOKENS, "prefill"),
            False,
        ),
        (Condition(kind=ConditionKind.STAGE, stage=Stage.TOKENS), StageShown(Stage.TOKENS, "decode"), True),
        (Condition(kind=ConditionKind.STAGE, stage=Stage.APPEND, last=True), StageShown(Stage.APPEND, "decode"), False),
        (
            Condition(kind=ConditionKind.STAGE, stage=Stage.APPEND, last=True),
            StageShown(Stage.APPEND, "decode", True),
            True,
        ),
        (Condition(kind=ConditionKind.STAGE, stage=Stage.APPEND), StageShown(Stage.SAMPLING), False),
        (Condition(kind=ConditionKind.SETTING, names=("top_k", "top_p")), SettingChanged("top_p"), True),
        (Condition(kind=ConditionKind.SETTING, names=("top_k", "top_p")), SettingChanged("seed"), False),
        (Condition(kind=ConditionKind.SETTING, names=("top_k",), run=True), SettingChanged("top_k"), False),
        (Condition(kind=ConditionKind.SETTING, names=("top_k",), run=True), Generated(), False),
        (Condition(kind=ConditionKind.QUESTION, question="ttft"), Answered("ttft", False), False),
        (Condition(kind=ConditionKind.QUESTION, question="ttft"), Answered("ttft", True), True),
        (Condition(kind=ConditionKind.QUESTION, question="ttft"), Answered("stop", True), False),
        (Condition(kind=ConditionKind.COMPLETE, question="closing"), Answered("closing", True), False),
        (Condition(kind=ConditionKind.COMPLETE, question="closing"), LessonComplete(), True),
        (Condition(kind=ConditionKind.QUESTION, question="closing"), LessonComplete(), False),
        (Condition(kind=ConditionKind.GAME), Predicted(False), True),
        (Condition(kind=ConditionKind.WHATIF), WhatIfChanged("top_k"), True),
        (Condition(kind=ConditionKind.GENERATE), Generated(), True),
        (Condition(kind=ConditionKind.NEXT), Generated(), False),
    ],
)
def test_conditions(condition, event, met):
    assert condition_met(condition, event) is met


def test_the_cuts_step_is_done_only_after_a_run_with_the_new_setting():
    """Issue #17: "Set top-k or top-p, then press Generate" was ticked on the setting alone."""
    cuts = at("choose-cuts")
    assert step_of(cuts).done == Condition(kind=ConditionKind.SETTING, names=("top_k", "top_p"), run=True)
    assert not cuts.observe(TOUR, Generated()).can_advance(TOUR)  # a run alone: nothing changed
    changed = cuts.observe(TOUR, SettingChanged("top_k"))
    assert not changed.done and not changed.can_advance(TOUR)  # set, not yet run
    assert not changed.observe(TOUR, SettingChanged("seed")).observe(TOUR, StageShown(Stage.SAMPLING)).done
    assert changed.observe(TOUR, Generated()).done
    # changed while a run was going on: that run keeps its settings, the next one has the change
    during = cuts.observe(TOUR, SettingChanged("top_p", running=True))
    after_that_run = during.observe(TOUR, Generated())
    assert not after_that_run.done and after_that_run.observe(TOUR, Generated()).done
    # a new change while waiting starts the wait again; leaving the step forgets it
    assert not changed.observe(TOUR, SettingChanged("top_p", running=True)).observe(TOUR, Generated()).done
    assert changed.next(TOUR).back(TOUR) == cuts


def test_the_temperature_step_is_done_by_what_the_learner_sees_move():
    """Issue #17: changing the temperature setting showed nothing until a run; the what-if chart moves."""
    step = at("choose-temperature")
    assert step_of(step).done == Condition(kind=ConditionKind.WHATIF, names=("temperature",))
    assert "What if?" in step_of(step).do and "temperature slider" in step_of(step).do
    assert not step.observe(TOUR, SettingChanged("temperature")).done
    assert not step.observe(TOUR, WhatIfChanged("top_k")).done
    assert step.observe(TOUR, WhatIfChanged("temperature")).done
    cuts = step_of(at("choose-whatif")).done  # the cuts' own sliders, two steps later
    assert cuts == Condition(kind=ConditionKind.WHATIF, names=("top_k", "top_p"))


def test_next_back_and_chapters():
    s = TourState()
    assert s.back(TOUR) == s and s.chapter(TOUR) == TOUR.chapters[0]
    s = s.next(TOUR).next(TOUR)
    assert s.index == 2 and s.back(TOUR).index == 1
    loop = s.go_to_chapter(TOUR, "loop")
    assert step_of(loop).chapter == "loop" and step_of(loop.back(TOUR)).chapter == "choose"
    assert s.go_to_chapter(TOUR, "nowhere") == s
    assert s.go_to(TOUR, 10_000).finished(TOUR) and s.go_to(TOUR, -3).index == 0
    end = TourState(len(TOUR.steps))
    assert end.back(TOUR).index == len(TOUR.steps) - 1 and not end.can_advance(TOUR)


def test_state_round_trips_and_restores_tolerantly():
    s = TourState(7).observe(TOUR, StageShown(Stage.TOKENS))
    d = s.to_dict(TOUR)
    assert d == {"version": 1, "index": 7, "step": TOUR.steps[7].id, "done": s.done}
    assert TourState.from_dict(d, TOUR) == s
    # the id wins over the index (a tour that gained or lost steps before it)
    assert TourState.from_dict({"index": 3, "step": TOUR.steps[12].id}, TOUR).index == 12
    # an id from an older tour: the index, clamped; beyond the end reads as finished
    assert TourState.from_dict({"index": 5, "step": "gone"}, TOUR) == TourState(5)
    assert TourState.from_dict({"index": 999}, TOUR).finished(TOUR)
    assert TourState.from_dict({"index": -4}, TOUR) == TourState(0)
    junks: tuple[object, ...] = (None, "x", 3, [], {"index": True}, {"index": "2"}, {"step": 5})
    for junk in junks:
        assert TourState.from_dict(junk, TOUR) == TourState()


def test_before_a_run_steps_with_numbers_ask_for_one():
    fields = lesson_fields(TEXTS, None, None, TokenNames())
    first = tour_view(TEXTS, TourState(0), fields)
    assert (
        first is not None
        and not first.needs_run
        and first.first
        and first.progress.text == f"Step 1 of {len(TOUR.steps)}"
    )
    llm = tour_view(TEXTS, TourState(2), fields)
    assert llm is not None and llm.needs_run and llm.text == TEXTS.text("tour", "needs_run")
    last = tour_view(TEXTS, TourState(len(TOUR.steps) - 1), fields)
    assert last is not None and last.last and last.progress.chapter_text.startswith("Chapter 9 of 9")


def test_steps_quote_the_learners_own_numbers(real_trace):
    trace = real_trace("paris")
    fields = lesson_fields(TEXTS, trace, None, names_for(trace))
    views = [tour_view(TEXTS, TourState(i), fields) for i in range(len(TOUR.steps))]
    text = {v.step_id: v.text for v in views if v is not None}
    n = len(trace.prompt_tokens)
    assert f"24 characters became {n} tokens: {24 / n:.1f} characters per token" in text["tok-rule"]
    assert "about 7 tokens" in text["tok-rule"]  # 5 words / 0.75
    assert "template" not in text["tok-rule"]
    chat = real_trace("chat")  # its characters count the chat template, and the step says so
    chat_fields = lesson_fields(TEXTS, chat, None, names_for(chat))
    rule = tour_view(TEXTS, at("tok-rule"), chat_fields)
    assert rule is not None
    assert f"Your {chat_fields['n_chars']} characters (the question and the chat template" in rule.text
    assert "8,192 tokens" in text["tok-window"]  # not "6,144 words": the next step asks for them
    assert "6,144" not in text["tok-window"] + text["tok-window-check"]
    assert fields["ttft"] in text["req-times"] and "prefill pass plus picking the first token" in text["req-times"]
    assert "269 MB" in text["scale-memory"] and "67 MB" in text["scale-memory"] and "810 GB" in text["scale-memory"]
    assert "134.5 M parameters take 269 MB" in text["scale-memory"]  # 134.5 × 2 = 269 (not "135 M")
    assert "not live" in text["req-server"]


def test_every_step_targets_something_and_asks_something():
    for s in TOUR.steps:
        assert s.target.kind in set(TargetKind) and s.target.name
        assert s.do.strip() and len(s.text) < 420, s.id
        if s.target.kind is TargetKind.STAGE:
            assert s.target.name in {st.value for st in Stage}


def test_the_your_turn_step_is_done_only_by_a_branch_from_another_token_than_the_top():
    i = TOUR.index_of("choose-yours")
    assert i is not None and TOUR.steps[i].chapter == "choose"
    state = TourState(i)
    for event in (StageShown(Stage.SAMPLING), Generated(), Predicted(True), Branched(from_top=True)):
        state = state.observe(TOUR, event)
        assert not state.can_advance(TOUR), event
    assert state.observe(TOUR, Branched(from_top=False)).can_advance(TOUR)


def test_the_context_count_says_why_it_is_one_less_than_input_plus_output(real_trace):
    for name in ("paris", "chat"):
        trace = real_trace(name)
        fields = lesson_fields(TEXTS, trace, None, names_for(trace))
        view = tour_view(TEXTS, at("tok-window"), fields)
        assert view is not None
        used, n_in, n_out = (int(fields[k].replace(",", "")) for k in ("used", "n_prompt", "n_out"))
        assert used == n_in + n_out - 1, name  # the last pick is never read back
        assert f"{fields['n_prompt']} input and {fields['n_out']} output tokens less one" in view.text
        assert "never read back" in view.text


def test_a_question_steps_task_asks_what_its_question_asks():
    """Step 12 asked "how many tokens did the model read?" (the screen shows that) while its
    question asks for the rule of thumb's estimate: the task now names the question's own ask."""
    step = step_of(at("tok-count"))
    assert step.done.question == "prompt_tokens"
    spec = next(q for q in TEXTS.questions if q.id == "prompt_tokens")
    assert "rule of thumb" in spec.text and "rule of thumb" in step.do and "read" not in step.do


def test_no_praise_before_the_lesson_is_complete_and_the_goals_shown_as_n_of_m(real_trace):
    """Step 46 said "Well done!" with 1 of 36 answered: its praise waits for every goal shown."""
    trace = real_trace("paris")
    fields = lesson_fields(TEXTS, trace, None, names_for(trace))
    n = len(TEXTS.lesson.outcomes)
    done, quiz = at("finish-done"), at("finish-quiz")
    for shown in (0, 1, n - 1):
        view = tour_view(TEXTS, done, fields, goals=(shown, n))
        assert view is not None and "well done" not in view.text.lower(), shown
        assert f"{shown} of {n} goals shown" in view.text
        check_view = tour_view(TEXTS, quiz, fields, goals=(shown, n))
        assert check_view is not None and f"{shown} of {n} goals shown so far" in check_view.text
    complete = tour_view(TEXTS, done, fields, goals=(n, n))
    assert complete is not None and complete.text.startswith("Well done!")
    assert "well done" not in TEXTS.text("ui", "tour_finished").lower()  # the finished tour, complete or not
