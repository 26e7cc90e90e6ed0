"""What a screen reader hears at the lesson's key moments (issue 49, "The lesson heard whole"):
a question when its answer is reached, a verdict and the step it completes each whole, the
completion last, the focus left where the learner works, the chart's rows as sentences, the
stage words as the panel's, the run's end, F1. Recorded in the test's process
(tests/ui/listening.py): the announcements as Qt hands them to AT-SPI, and the focus moves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QApplication, QWidget

from explainer.content.texts import QuestionKind
from explainer.illustration.spoken import spoken, spoken_marks
from explainer.lesson.questions import QuizState
from explainer.stages import Cursor, Stage
from explainer.ui.announce import speaking_ms
from explainer.ui.lesson.show_me import Section
from tests.ui.heard_helpers import ALT, CTRL, K, asked, enter_answer, key, one, right_answer, verdict_words
from tests.ui.helpers import forward_to, generate
from tests.ui.listening import Listener, Said, listen

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)


@pytest.fixture
def heard(monkeypatch) -> Iterator[Listener]:
    yield from listen(monkeypatch)


def accessible(widget: QWidget, what=QAccessible.Text.Name) -> str:
    iface = QAccessible.queryAccessibleInterface(widget)
    assert iface is not None, widget
    return iface.text(what) or ""


def run(qtbot, w):
    w.lesson.dock.show()
    return generate(qtbot, w, "The capital of France is", max_new_tokens=3)


def at_step(w, step_id: str) -> None:
    index = w.lesson.tour.index_of(step_id)
    assert index is not None, step_id
    w.lesson.go_to(index)


def said_after(heard: Listener, i: int) -> list[Said]:
    return [e for e in heard.events[i:] if isinstance(e, Said)]


# --- 1. the question is heard --------------------------------------------------------------


def test_every_answer_control_is_described_by_its_question(qtbot, window):
    """A radio reads its option and the question; the number box "your answer", the question and
    its unit; a sort's radio its item, its column and the question."""
    w = window
    run(qtbot, w)
    w.lesson.dock.open_section(Section.QUESTIONS)
    quiz = w.lesson.dock.questions
    kinds = set()
    for i, q in enumerate(quiz.questions):
        quiz.go(i)
        card = quiz.card
        assert card is not None
        if card.locked:
            continue  # (the closing question, until the others are right: no answer to give)
        controls = [*card.options, *(b for row in card.item_choices for b in row)]
        if card.number_field is not None:
            controls.append(card.number_field)
            assert q.unit in accessible(card.number_field, QAccessible.Text.Description)
        assert controls, q.id
        for control in controls:
            read = f"{accessible(control)} {accessible(control, QAccessible.Text.Description)}"
            assert asked(w, q) in one(read), (q.id, read)
        kinds.add(q.kind)
    assert kinds == set(QuestionKind)


def test_next_question_says_the_question_once_and_its_answer_reads_it(qtbot, window, heard):
    w = window
    run(qtbot, w)
    dock = w.lesson.dock
    dock.open_section(Section.QUESTIONS)
    quiz = dock.questions
    quiz.go(0)
    quiz.next_button.setFocus()
    heard.quiet(qtbot)
    key(qtbot, heard, K.Key_Space)  # "Next question"
    heard.wait(qtbot)
    card = quiz.card
    assert card is not None and quiz.index == 1 and quiz.next_button.hasFocus()
    question = asked(w, card.question)
    position = quiz.position.text().strip()
    assert [t for t in heard.texts() if question in t] == [
        w.word("access", "question").format(position=position, text=question)
    ]
    heard.clear()
    for _ in range(10):  # Tab on to its answer: the control reads the question; nothing is said again
        if card.isAncestorOf(QApplication.focusWidget()):
            break
        key(qtbot, heard, K.Key_Tab)
    heard.wait(qtbot)
    landed = [e for e in heard.focus() if card.isAncestorOf(e.widget)]
    assert landed and question in one(landed[0].text)
    assert not [t for t in heard.texts() if question in t]


def test_ctrl_j_onto_a_question_reads_it_with_its_answer_and_says_it_no_second_time(qtbot, window, heard):
    w = window
    run(qtbot, w)
    w.view.setFocus()
    heard.quiet(qtbot)
    at_step(w, "tok-count")  # the tour reaches a question ...
    qtbot.keyClick(w.view, K.Key_J, CTRL)  # ... and the learner goes straight to it
    heard.wait(qtbot)
    card = w.lesson.dock.questions.card
    assert card is not None and card.options[0].hasFocus()
    question = asked(w, card.question)
    assert question in one(heard.focus()[-1].text)  # "96, radio button, <the question>"
    assert not [t for t in heard.texts() if question in t]  # said once: by the focus, not again


def test_the_next_tour_step_leaves_the_last_steps_question_unsaid(qtbot, window, heard, quick_announcements):
    """Alt+Right before the question of the step was said: the learner has moved on, and hears
    the new step, not the question left behind."""
    w = window
    run(qtbot, w)
    w.view.setFocus()
    heard.quiet(qtbot)
    quick_announcements.pace = 1.0  # (the app's own waits: the question waits seconds behind the step)
    at_step(w, "start-story")
    qtbot.waitUntil(lambda: len(heard.texts()) == 1)  # the step's text, and its question waiting
    assert not quick_announcements.idle()
    qtbot.keyClick(w.view, K.Key_Right, ALT)
    qtbot.waitUntil(lambda: len(heard.texts()) == 2)
    tour = w.lesson.dock.tour
    assert heard.texts()[1].startswith(tour.chapter.text()) and tour.progress.text() in heard.texts()[1]
    assert quick_announcements.idle()  # nothing else to say: the question was dropped


# --- 2. announcements in a queue -------------------------------------------------------------


def test_a_verdict_is_heard_whole_then_the_step_it_completes(qtbot, window, heard, quick_announcements):
    w = window
    run(qtbot, w)
    w.view.setFocus()
    at_step(w, "tok-count")
    key(qtbot, heard, K.Key_J, CTRL)
    card = w.lesson.dock.questions.card
    assert card is not None
    answer = right_answer(card.question)
    heard.quiet(qtbot)
    enter_answer(qtbot, heard, card, answer)
    heard.wait(qtbot)
    assert card.check_button.hasFocus()  # the focus stays where the learner acted
    said = said_after(heard, 0)
    tour = w.lesson.dock.tour
    done = w.word("access", "tour").format(progress=tour.progress.text(), task=tour.task.text())
    assert [s.text for s in said] == [verdict_words(w, card.question, answer), one(done)]
    assert not said[1].same_turn  # (in one turn, a screen reader speaks only the last)
    assert (said[1].at - said[0].at) * 1000 >= speaking_ms(said[0].text) * quick_announcements.pace


def test_the_completion_is_the_last_thing_heard(qtbot, window, heard):
    w = window
    run(qtbot, w)
    session = w.lesson
    closing = session.questions[-1]
    rest = tuple((q.id, 1, True) for q in session.questions if q is not closing)
    session.set_state(dataclasses.replace(session.state, quiz=QuizState(rest)))
    w.view.setFocus()
    at_step(w, "finish-quiz")
    key(qtbot, heard, K.Key_J, CTRL)
    card = session.dock.questions.card
    assert card is not None and card.question.id == closing.id and not card.locked
    heard.quiet(qtbot)
    enter_answer(qtbot, heard, card, right_answer(card.question))
    heard.wait(qtbot)
    assert session.completed
    page = session.dock.completion
    said = said_after(heard, 0)
    assert said[0].text == verdict_words(w, card.question, right_answer(card.question))
    assert said[-1].text == one(" ".join((page.title.text(), page.score.text(), page.recap.text())))
    assert said[-1].text.startswith("Lesson 4 complete")
    assert len(said) == 3 and said[1].source is session.dock.tour  # the verdict, "Step 45 ✓ Done", the completion
    assert not any(s.same_turn for s in said)


# --- 3. Predict leaves the focus alone ----------------------------------------------------


def test_a_keyboard_guess_moves_the_focus_once_and_its_verdict_comes_before_the_stage(qtbot, window, heard):
    w = window
    run(qtbot, w)
    dock = w.lesson.dock
    forward_to(qtbot, w, 0, Stage.LAYERS)
    dock.open_section(Section.PREDICT)
    game = dock.predict
    qtbot.waitUntil(lambda: game.round is not None and game.buttons[1].isVisible())
    asked_round = one(spoken_marks(game.round.question, w.texts.describe))
    assert asked_round in accessible(game.buttons[1], QAccessible.Text.Description)  # read with the option
    game.buttons[1].setFocus()
    heard.quiet(qtbot)
    key(qtbot, heard, K.Key_Space)
    heard.wait(qtbot)
    assert game.revealed is not None
    moves = [e.widget for e in heard.focus()]
    assert moves == [w.view], moves  # not through the three other options as they went
    said = said_after(heard, 0)
    stage = w.word("access", "stage").format(stage=w.word("stages", "probabilities"), n=1, total=len(w.trace.steps))
    assert [s.text for s in said][-1] == stage and said[0].source is game  # the verdict, then where it went
    assert not any(s.same_turn for s in said)


def test_the_game_step_done_by_a_guess_leaves_the_focus_on_next(qtbot, window, heard):
    w = window
    run(qtbot, w)
    at_step(w, "choose-game")
    forward_to(qtbot, w, 1, Stage.LAYERS)
    dock = w.lesson.dock
    game = dock.predict
    qtbot.waitUntil(lambda: game.round is not None and game.buttons[0].isVisible())
    game.buttons[0].setFocus()
    heard.quiet(qtbot)
    key(qtbot, heard, K.Key_Space)
    assert [e.widget for e in heard.focus()] == [dock.tour.next_button]


def test_what_if_sliders_disabled_under_the_focus_hand_it_on_once(qtbot, window, heard):
    w = window
    run(qtbot, w)
    forward_to(qtbot, w, 1, Stage.SAMPLING)
    dock = w.lesson.dock
    dock.open_section(Section.WHATIF)
    whatif = dock.whatif
    qtbot.waitUntil(whatif.top_k.isEnabled)
    whatif.top_k.setFocus()
    heard.quiet(qtbot)
    key(qtbot, heard, K.Key_PageDown)  # a clicker steps on: the sliders are for the sampling stage only
    assert not whatif.top_k.isEnabled()
    assert [e.widget for e in heard.focus()] == [w.view]
    w.stepper.show(Cursor(1, Stage.SAMPLING))
    qtbot.waitUntil(whatif.top_k.isEnabled)
    whatif.top_k.setFocus()
    heard.quiet(qtbot)
    qtbot.keyClick(whatif.top_k, K.Key_Return, CTRL)  # Generate, from the slider
    qtbot.waitUntil(lambda: not w.generating, timeout=60_000)
    assert [e.widget for e in heard.focus()] == [w.view]


# --- 4. the chart as a table ----------------------------------------------------------------


def cell_at(view, row: int, column: int):
    """The table's cell as AT-SPI's bridge reads it (PySide has no table interface: its children)."""
    table = QAccessible.queryAccessibleInterface(view)
    for i in range(table.childCount()):
        cell = table.child(i).tableCellInterface()
        if cell is not None and (cell.rowIndex(), cell.columnIndex()) == (row, column):
            return table.child(i)
    raise AssertionError(f"no cell at {row}, {column}")


def test_each_row_of_the_chart_table_is_heard_whole_with_its_token_as_its_header(qtbot, window):
    w = window
    w.sampling.greedy.setChecked(False)  # a real draw: some tokens cut, one chosen
    w.sampling.seed.setText("7")
    w.registry["chart_table"].trigger()
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    view = w.chart_table
    word = lambda k: w.word("chart_table", k)  # noqa: E731

    def token(r: int) -> str:
        label = view.item(r, 0).text()
        return word("other") if label == word("other") else spoken(label, w.texts.describe)

    def row_cells(r: int) -> list[str]:
        return [view.item(r, c).text() for c in range(view.columnCount())]

    forward_to(qtbot, w, 1, Stage.SAMPLING)
    for r in range(view.rowCount()):
        cells = row_cells(r)
        kept = word("row_kept") if cells[3] == word("yes") else word("row_cut")
        chosen = word("row_chosen") if cells[4] == word("yes") else word("row_not_chosen")
        whole = word("row").format(token=token(r), raw=cells[1], final=cells[2], kept=kept, chosen=chosen)
        cell = cell_at(view, r, 0)
        assert cell.text(QAccessible.Text.Name) == whole  # Down reads the whole row, not "␣Paris" alone
        header = cell.tableCellInterface().rowHeaderCells()
        assert [h.text(QAccessible.Text.Name) for h in header] == [token(r)]  # not the row's number
        assert cell_at(view, r, 1).text(QAccessible.Text.Name) == f"{word('raw')}: {cells[1]}"
    assert "␣" not in token(0) and word("yes") in [row_cells(r)[4] for r in range(view.rowCount())]
    forward_to(qtbot, w, 2, Stage.PROBABILITIES)  # raw numbers only: nothing cut or chosen yet
    said = word("row_raw").format(token=token(0), raw=row_cells(0)[1])
    assert cell_at(view, 0, 0).text(QAccessible.Text.Name) == said


# --- 5. keys that lead to the current task --------------------------------------------------


def test_after_a_steps_question_is_answered_ctrl_j_and_f6_lead_to_next(qtbot, window, heard):
    w = window
    run(qtbot, w)
    dock = w.lesson.dock
    w.view.setFocus()
    at_step(w, "tok-count")
    key(qtbot, heard, K.Key_J, CTRL)
    card = dock.questions.card
    assert card is not None
    enter_answer(qtbot, heard, card, right_answer(card.question))
    assert w.lesson.view.complete
    key(qtbot, heard, K.Key_J, CTRL)
    assert dock.tour.next_button.hasFocus()  # not "96", a wrong option of the question answered
    key(qtbot, heard, K.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    assert w.view.hasFocus()
    key(qtbot, heard, K.Key_F6)
    assert dock.tour.next_button.hasFocus()


def test_clicking_next_through_the_tour_never_loses_the_focus(qtbot, window, heard):
    """Next clicked through the whole tour, with the focus where a mouse user leaves it: in a
    question (an option and Check clicked) or on whatever the last click left it. After each
    click the focus is on a named control, having moved once at most: never to the unnamed
    frame of a tab opened for the next step's task, never lost."""
    w = window
    run(qtbot, w)
    dock, session = w.lesson.dock, w.lesson
    at_step(w, "start-pause")
    lost = []
    for _ in range(len(session.tour.steps) - 1):
        card = dock.questions.card
        if card is not None and card.isVisible() and card.check_button.isEnabled() and card.options:
            qtbot.mouseClick(card.options[0], Qt.MouseButton.LeftButton)
            qtbot.mouseClick(card.check_button, Qt.MouseButton.LeftButton)  # (the focus: in the card)
        heard.quiet(qtbot)
        step = session.state.tour.index
        qtbot.mouseClick(dock.tour.next_button, Qt.MouseButton.LeftButton)
        heard.wait(qtbot)
        focus = QApplication.focusWidget()
        if focus is None or not accessible(focus).strip() or len(heard.focus()) > 1:
            lost.append((step + 1, type(focus).__name__, [e.name for e in heard.focus()]))
    assert session.state.tour.index == len(session.tour.steps) - 1
    assert not lost, lost


# --- 6. what is said about the illustration -------------------------------------------------


def test_training_is_said_as_the_panel_names_it_and_the_runs_end_is_said(qtbot, window, heard):
    w = window
    trace = generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    heard.wait(qtbot)
    said = heard.texts()
    title = w.texts.title(Stage.PRETRAINING)
    assert w.word("access", "stage_once").format(title=title) in said
    as_a_pass = w.word("access", "stage").split("{n}")[0].format(stage=w.word("stages", "pretraining"))
    assert not any(t.startswith(as_a_pass) for t in said)  # not "Training, pass 1 of 4"
    done = w.word("window", "done").format(n=len(trace.steps), why=w.word("stop_reasons", trace.stop_reason))
    assert one(done) in said


def test_f1_says_the_lesson_shown_and_hidden(qtbot, window, heard):
    w = window
    dock = w.lesson.dock
    dock.show()
    w.view.setFocus()
    heard.quiet(qtbot)
    key(qtbot, heard, K.Key_F1)
    assert dock.isHidden()
    key(qtbot, heard, K.Key_F1)
    assert dock.isVisible()
    heard.wait(qtbot)
    where = dock.tour.progress.text()
    assert heard.texts() == [w.word("access", "lesson_hidden"), w.word("access", "lesson_shown").format(where=where)]


def test_your_turns_two_runs_are_named_apart(qtbot, window):
    w = window
    run(qtbot, w)
    forward_to(qtbot, w, 0, Stage.SAMPLING)
    w.lesson.dock.open_section(Section.YOUR_TURN)
    your_turn = w.lesson.dock.your_turn
    with qtbot.waitSignal(w.runs.branched, timeout=60_000):
        your_turn.candidates.setCurrentIndex(1)
        your_turn.pick_button.click()
    qtbot.waitUntil(lambda: your_turn.endings.isVisible())
    names = [accessible(c.choose) for c in your_turn.columns.values()]
    assert len(set(names)) == 2, names
    for column, name in zip(your_turn.columns.values(), names, strict=True):
        assert column.heading.text() in name and column.choose.text() in name
