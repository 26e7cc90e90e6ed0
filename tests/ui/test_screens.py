"""What the window shows, read on screen (issue 30, items 22 to 25): the tour's box holds the
whole "Not finished" list of goals; in presenter mode the tour's task has its own band above the
illustration's title; the random-draw bar's chosen label is whole; one first-token wait on
screen; the "Text so far" shows the line breaks a text ends in."""

from __future__ import annotations

import pytest

from tests.ui.helpers import settle_layout

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)


def test_the_tour_box_grows_to_hold_the_list_of_goals_still_open(qtbot, make_window, shared_engine):
    w = make_window(lambda: shared_engine, load=False)
    dock = w.lesson.dock
    assert dock.isVisible()
    settle_layout(qtbot, dock)
    short = dock.splitter.sizes()[0]
    scroll = dock.tour.text.parentWidget().parentWidget()
    dock.tour.finish_clicked.emit()  # "Finish the lesson" with nothing done: every goal is listed
    qtbot.waitUntil(lambda: dock.splitter.sizes()[0] > short)
    settle_layout(qtbot, dock)
    assert dock.tour.text.plain.count("•") >= 10, dock.tour.text.plain
    assert not scroll.verticalScrollBar().isVisible()  # read whole, not through a 4-line window
    assert dock.splitter.sizes()[1] >= 0.33 * sum(dock.splitter.sizes())  # the tabs keep a third
    # a short step gives the room back
    dock.tour.text.set_linked("A short step.")
    qtbot.waitUntil(lambda: dock.splitter.sizes()[0] == short)


def test_the_text_so_far_marks_the_line_breaks_it_ends_in(qtbot):
    """Item 25: an answer ending in line breaks scrolled its empty last lines into view."""
    from types import SimpleNamespace

    from explainer.content.assets import load_texts
    from explainer.ui.answer_view import AnswerView

    box = AnswerView(load_texts())
    qtbot.addWidget(box)
    box.resize(500, 80)
    box.show()
    chips = [SimpleNamespace(text=t) for t in ("Hi", " there", ".", "\n", "\n", "\n")]
    box.show_tokens(SimpleNamespace(prompt_text="Hi", chips=chips, prompt_count=1), chat=False)
    qtbot.waitUntil(lambda: box.toPlainText() != "")
    assert box.toPlainText() == "Hi there.↵\n↵\n↵\n"
    # the lines in view (the box shows the newest ones) are not all empty
    top = box.cursorForPosition(box.viewport().rect().topLeft()).block()
    in_view = []
    bottom = box.viewport().height()
    while top.isValid() and box.blockBoundingGeometry(top).translated(box.contentOffset()).top() < bottom:
        in_view.append(top.text())
        top = top.next()
    assert any(line.strip() for line in in_view), in_view


def test_after_your_turn_the_status_line_times_the_run_on_screen(qtbot, make_window, shared_engine):
    """Item 24: the status bar kept the model's first-token wait while the illustration showed
    the learner's run; both now tell the run shown."""
    from explainer.inference.events import BranchFinished
    from explainer.stages import Stage
    from explainer.ui.your_turn import Which
    from tests.ui.helpers import forward_to, generate, wait_event

    w = make_window(lambda: shared_engine)
    model = generate(qtbot, w, "The capital of France is", max_new_tokens=4)
    forward_to(qtbot, w, 1, Stage.SAMPLING)
    picked = int(model.steps[1].sampling.raw.ids[2])
    with wait_event(qtbot, w.controller, BranchFinished, timeout=60_000):
        assert w.runs.pick(picked)
    qtbot.waitUntil(lambda: w.trace is w.runs.your_run)
    yours = w.trace
    assert w.status.metrics_text(yours) != w.status.metrics_text(model)  # (two runs, two timings)
    assert w.metrics.text() == w.status.metrics_text(yours)
    w.runs.show(Which.MODEL)
    assert w.trace is model and w.metrics.text() == w.status.metrics_text(model)


def test_a_very_long_prompt_shows_its_end_and_says_how_much_comes_before(qtbot):
    """A pasted document of 8k tokens: the box shows the prompt's last 2,000 characters (the
    prompt box holds it whole) and the answer after them, as it grows token by token."""
    from types import SimpleNamespace

    from explainer.content.assets import load_texts
    from explainer.ui.answer_view import PROMPT_CHARS, AnswerView

    box = AnswerView(load_texts())
    qtbot.addWidget(box)
    box.resize(700, 90)
    box.show()
    prompt = " ".join(f"word{i}" for i in range(8000))  # one paragraph, 70,000 characters
    chips = [SimpleNamespace(text=prompt)] + [SimpleNamespace(text=t) for t in (" And", " then", " it", " ended")]
    for n in range(2, len(chips) + 1):
        box.show_tokens(SimpleNamespace(prompt_text=prompt, chips=chips[:n], prompt_count=1), chat=False)
        written = "".join(c.text for c in chips[1:n])
        qtbot.waitUntil(lambda w=written: box.toPlainText().endswith(w))
    text = box.toPlainText()
    first_line, shown = text.split("\n", 1)
    before = len(prompt) - len(shown.removesuffix(" And then it ended"))
    assert f"{before:,} characters of the prompt come before this" in first_line
    assert prompt.endswith(shown.removesuffix(" And then it ended")) and shown.startswith("word")  # from a word's start
    assert PROMPT_CHARS - 40 < len(prompt) - before <= PROMPT_CHARS
