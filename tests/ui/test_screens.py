"""What the window shows, read on screen (issue 30, items 22 to 25): the tour's box holds the
whole "Not finished" list of goals; in presenter mode the tour's task has its own band above the
illustration's title; the random-draw bar's chosen label is whole; one first-token wait on
screen; the "Text so far" shows the line breaks a text ends in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import pytest

from explainer.engine.text_bytes import spell
from explainer.engine.trace import TokenRef
from explainer.frames.chips import Chip
from explainer.frames.tokens import TokensValue
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


def tokens_value(texts: Sequence[str | bytes], prompt_count: int = 1, unfinished: str = "") -> TokensValue:
    """The Tokens panel's value for a context of these chips' texts (or, for a piece of a
    character, its bytes), the first ``prompt_count`` of them the prompt (what the answer box
    reads of it: the prompt, the chips, where the answer starts, a run's unfinished end)."""
    refs = [TokenRef.of(i, t if isinstance(t, bytes) else t.encode()) for i, t in enumerate(texts)]
    chips = tuple(Chip(r.id, r.text, r.text, "input" if r.id < prompt_count else "output", False, r.raw) for r in refs)
    return TokensValue(
        title="",
        counter="",
        prompt_text=spell(r.data for r in refs[:prompt_count]).text,
        answer_text=spell(r.data for r in refs[prompt_count:]).text,
        chips=chips,
        prompt_count=prompt_count,
        prompt_special=False,
        reading=(0, 0),
        appended=None,
        stats="",
        stats_stressed=False,
        message="",
        unfinished=unfinished,
    )


def test_the_text_so_far_marks_the_line_breaks_it_ends_in(qtbot):
    """Item 25: an answer ending in line breaks scrolled its empty last lines into view."""
    from explainer.content.assets import load_texts
    from explainer.ui.answer_view import AnswerView

    box = AnswerView(load_texts())
    qtbot.addWidget(box)
    box.resize(500, 80)
    box.show()
    box.show_tokens(tokens_value(["Hi", " there", ".", "\n", "\n", "\n"]), chat=False)
    qtbot.waitUntil(lambda: box.toPlainText() != "")
    assert box.toPlainText() == "Hi there.↵\n↵\n↵\n"
    # the lines in view (the box shows the newest ones) are not all empty
    top = box.cursorForPosition(box.viewport().rect().topLeft()).block()
    in_view = []
    bottom = box.viewport().height()
    layout, scrolled = box.document().documentLayout(), box.verticalScrollBar().value()
    while top.isValid() and layout.blockBoundingRect(top).top() - scrolled < bottom:
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
    assert w.status.metrics.text() == w.status.metrics_text(yours)
    w.runs.show(Which.MODEL)
    assert w.trace is model and w.status.metrics.text() == w.status.metrics_text(model)


def test_a_very_long_prompt_shows_its_end_and_says_how_much_comes_before(qtbot):
    """A pasted document of 8k tokens: the box shows the prompt's last 2,000 characters (the
    prompt box holds it whole) and the answer after them, as it grows token by token."""
    from explainer.content.assets import load_texts
    from explainer.ui.answer_view import PROMPT_CHARS, AnswerView

    box = AnswerView(load_texts())
    qtbot.addWidget(box)
    box.resize(700, 90)
    box.show()
    prompt = " ".join(f"word{i}" for i in range(8000))  # one paragraph, 70,000 characters
    texts = [prompt, " And", " then", " it", " ended"]
    for n in range(2, len(texts) + 1):
        box.show_tokens(tokens_value(texts[:n]), chat=False)
        written = "".join(texts[1:n])
        qtbot.waitUntil(lambda w=written: box.toPlainText().endswith(w))
    text = box.toPlainText()
    first_line, shown = text.split("\n", 1)
    before = len(prompt) - len(shown.removesuffix(" And then it ended"))
    assert f"{before:,} characters of the prompt come before this" in first_line
    assert prompt.endswith(shown.removesuffix(" And then it ended")) and shown.startswith("word")  # from a word's start
    assert PROMPT_CHARS - 40 < len(prompt) - before <= PROMPT_CHARS


def test_the_text_so_far_holds_back_half_a_character_and_says_when_the_run_ended_in_one(qtbot):
    """A Greek word whose letters are split over tokens shows as its letters, never as "\ufffd";
    a run that stopped in the middle of a character says so below the answer."""
    from explainer.content.assets import load_texts
    from explainer.ui.answer_view import AnswerView

    texts = load_texts()
    box = AnswerView(texts)
    qtbot.addWidget(box)
    box.resize(500, 120)
    box.show()
    pieces: list[str | bytes] = ["Say", b" \xce", b"\x91", "π", b"\xf0\x9f", b"\x98\x80", b"\xf0\x9f"]  # " Απ", "😀", …
    for n, expected in ((2, "Say "), (3, "Say Α"), (4, "Say Απ"), (5, "Say Απ"), (6, "Say Απ😀"), (7, "Say Απ😀")):
        box.show_tokens(tokens_value(pieces[:n]), chat=False)
        qtbot.waitUntil(lambda e=expected: box.toPlainText() == e)
    note = texts.panels["unfinished_end"]
    box.show_tokens(tokens_value(pieces, unfinished=note), chat=False)
    qtbot.waitUntil(lambda: box.toPlainText() == "Say Απ😀\n" + note)
    assert "\ufffd" not in box.toPlainText()


def test_a_right_to_left_answer_reads_from_the_right_edge(qtbot):
    """An Arabic reply (chat mode: a paragraph of its own) starts at the box's right edge, the
    English prompt above it at the left, each in its own direction."""
    from PySide6.QtCore import Qt

    from explainer.content.assets import load_texts
    from explainer.ui.answer_view import AnswerView

    box = AnswerView(load_texts())
    qtbot.addWidget(box)
    box.resize(500, 120)
    box.show()
    box.show_tokens(tokens_value(["What is the capital of Egypt?", " القاهرة", " هي", " العاصمة"]), chat=True)
    qtbot.waitUntil(lambda: box.answer == " القاهرة هي العاصمة")
    prompt, answer = box.document().firstBlock(), box.document().lastBlock()
    assert prompt.textDirection() == Qt.LayoutDirection.LeftToRight
    assert answer.textDirection() == Qt.LayoutDirection.RightToLeft
    width = box.viewport().width()
    # where the first letter of each is drawn (QTextLine.cursorToX: the x, and the cursor's place)
    start, _ = cast(tuple[float, int], answer.layout().lineAt(0).cursorToX(1))
    assert start > width / 2  # from the right edge
    left, _ = cast(tuple[float, int], prompt.layout().lineAt(0).cursorToX(0))
    assert left < width / 4
