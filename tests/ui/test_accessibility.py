"""What a screen reader meets in the window: every focusable element named, the illustration
described in words, and a stage change, a tour step, a Predict reveal and a question's verdict
announced.

Names are read through QAccessible.queryAccessibleInterface, as AT-SPI's bridge reads them (a
widget's accessible name, else its label, text or buddy's). The announcement is the real event the
window sends, caught where Qt hands it to the platform (QAccessible.updateAccessibility).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QAccessibleEvent
from PySide6.QtWidgets import QApplication, QWidget

from explainer.content.texts import QuestionKind
from explainer.illustration.formatting import percent
from explainer.illustration.spoken import spoken, spoken_marks
from explainer.lesson.questions import check
from explainer.stages import Cursor, Stage
from explainer.ui.announce import sentence
from explainer.ui.chart_table_view import COLUMNS
from explainer.ui.lesson.show_me import Section
from tests.ui.helpers import click, forward_to, generate, press, settle_layout, type_into
from tests.ui.lesson_helpers import tour_key
from tests.ui.listening import Listener, listen

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)


def accessible(widget: QWidget, what=QAccessible.Text.Name) -> str:
    iface = QAccessible.queryAccessibleInterface(widget)
    assert iface is not None, widget
    return iface.text(what) or ""


def _children(iface):
    return [iface.child(i) for i in range(iface.childCount())]


def unnamed(root: QWidget) -> list[str]:
    """The focusable widgets shown under ``root`` that assistive technology would read as ''."""
    out = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible() or not widget.focusPolicy() & Qt.FocusPolicy.TabFocus or not widget.isEnabled():
            continue
        if widget.focusProxy() is not None:
            continue  # focus goes to the proxy, which is checked itself
        if not accessible(widget).strip():
            out.append(f"{type(widget).__name__} {widget.objectName()!r} in {type(widget.parent()).__name__}")
    return out


def unnamed_in_tree(root: QWidget) -> list[str]:
    """What AT-SPI would list as focusable, shown and nameless under ``root``: the accessible tree
    itself is walked (a container whose focus goes to a proxy is still reported focusable)."""
    out = []

    def walk(iface, path: str) -> None:
        if iface is None or not iface.isValid():
            return
        state = iface.state()
        if state.invisible:
            return
        here = f"{path}/{iface.role().name}"
        obj = iface.object()
        if state.focusable and not (iface.text(QAccessible.Text.Name) or "").strip():
            out.append(f"{here} {type(obj).__name__} {obj.objectName() if obj is not None else ''!r}")
        for i in range(iface.childCount()):
            walk(iface.child(i), here)

    walk(QAccessible.queryAccessibleInterface(root), "")
    return out


def _every_tab(w, check) -> list[str]:
    tabs, problems = w.lesson.dock.tabs, []
    for i in range(tabs.count()):
        if tabs.isTabVisible(i):
            tabs.setCurrentIndex(i)
            QApplication.processEvents()
            problems += [f"tab {tabs.tabText(i)}: {p}" for p in check(w.lesson.dock)]
    return problems


def test_every_focusable_element_in_the_accessible_tree_has_a_name(qtbot, window):
    w = window
    w.lesson.dock.show()
    problems = [f"window: {p}" for p in unnamed_in_tree(w)]  # before any run
    problems += _every_tab(w, unnamed_in_tree)
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    forward_to(qtbot, w, 1, Stage.SAMPLING)
    problems += [f"window after a run: {p}" for p in unnamed_in_tree(w)]
    problems += _every_tab(w, unnamed_in_tree)
    assert not problems, "focusable but unnamed:\n" + "\n".join(sorted(set(problems)))


def test_every_focusable_element_has_a_name(qtbot, window):
    w = window
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    dock = w.lesson.dock
    dock.show()
    forward_to(qtbot, w, 1, Stage.LAYERS)  # a Predict round is offered: its four options
    dock.open_section(Section.PREDICT)
    assert any(b.isVisible() for b in dock.predict.buttons)
    problems = [f"predict: {p}" for p in unnamed(dock)]
    for b in dock.predict.buttons:
        assert "␣" not in accessible(b), accessible(b)  # read as words: “space a”
    forward_to(qtbot, w, 1, Stage.SAMPLING)
    w.registry["describe"].setChecked(True)
    problems += [f"window: {p}" for p in unnamed(w)]
    tabs = dock.tabs
    for i in range(tabs.count()):
        if tabs.isTabVisible(i):
            tabs.setCurrentIndex(i)
            settle_layout(qtbot, dock)
            problems += [f"tab {tabs.tabText(i)}: {p}" for p in unnamed(dock)]
    quiz = dock.questions
    for i in range(len(quiz.questions)):  # every kind of question: choice, number, sort
        quiz.go(i)
        problems += [f"question {quiz.questions[i].id}: {p}" for p in unnamed(quiz)]
    w.compact.set_compact(True)  # the folded bar above the illustration: its prompt box
    problems += [f"folded: {p}" for p in unnamed(w)]
    w.compact.set_compact(False)
    bar = QAccessible.queryAccessibleInterface(tabs.tabBar())
    tab_names = [c.text(QAccessible.Text.Name) for c in _children(bar)]
    assert w.texts.text("ui", "tab_complete") not in tab_names, tab_names  # the hidden tab is not read out
    assert accessible(w.transport.speed, QAccessible.Text.Description).startswith(w.word("transport", "speed"))
    press(qtbot, w, Qt.Key.Key_F11)
    assert w.presenter.active
    problems += [f"presenter: {p}" for p in unnamed(w)]
    press(qtbot, w, Qt.Key.Key_F11)
    assert not problems, "focusable but unnamed:\n" + "\n".join(sorted(set(problems)))


def test_the_combo_boxes_and_the_position_are_named_from_the_start(qtbot, window):
    w = window
    speed, candidates, position = w.transport.speed, w.lesson.dock.your_turn.candidates, w.transport.position
    assert accessible(speed) == w.word("transport", "speed")  # not its value, "Normal"
    assert accessible(speed, QAccessible.Text.Value) == speed.currentText()
    assert accessible(candidates) == w.word("access", "candidates")  # empty before a run, still named
    assert accessible(position) == w.word("access", "position")  # no text before a run
    iface = QAccessible.queryAccessibleInterface(speed)
    assert iface.role() == QAccessible.Role.ComboBox and iface.childCount() == 1  # its list, with the items
    assert iface.child(0).object() is speed.view()
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    assert position.text() and accessible(position) == w.word("access", "value").format(
        label=w.word("access", "position"), value=position.text()
    )
    forward_to(qtbot, w, 0, Stage.SAMPLING)
    assert candidates.count() and accessible(candidates) == w.word("access", "candidates")
    assert accessible(candidates, QAccessible.Text.Value) == candidates.currentText()


def test_the_diagram_is_described_in_words(qtbot, window):
    w = window
    assert accessible(w.view).strip()
    # an image (AT-SPI "image", which a screen reader stops at), not a layout "filler" it skips
    assert QAccessible.queryAccessibleInterface(w.view).role() == QAccessible.Role.Graphic
    trace = generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    forward_to(qtbot, w, 0, Stage.TOKENS)
    words = w.texts.describe
    tokens = accessible(w.view, QAccessible.Text.Description)
    for t in trace.prompt_tokens:
        assert words["token"].format(piece=words["quote"].format(piece=spoken(t.text, words)), id=t.id) in tokens
    forward_to(qtbot, w, 1, Stage.SAMPLING)
    sampling = accessible(w.view, QAccessible.Text.Description)
    chosen = trace.steps[1].sampling.chosen
    assert words["chosen"].format(token=words["quote"].format(piece=spoken(chosen.text, words))) in sampling
    assert sampling != tokens
    w.registry["describe"].setChecked(True)  # View > Describe this frame shows the same text
    assert w.describe_view.isVisible() and w.describe_view.toPlainText() == sampling
    assert w.describe_view.focusPolicy() & Qt.FocusPolicy.TabFocus


def test_an_open_guess_is_not_described(qtbot, window):
    w = window
    trace = generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    w.lesson.dock.show()
    forward_to(qtbot, w, 0, Stage.LAYERS)
    if not w.lesson.answer_open(trace, w.position):
        pytest.skip("no round offered at this pass")  # (the game offers one at a pass's layers stage)
    assert w.scene.frame.answer_hidden
    text = accessible(w.view, QAccessible.Text.Description)
    assert "Paris" not in text and w.texts.describe["hidden"] in text


@pytest.fixture
def heard(monkeypatch) -> Iterator[Listener]:
    """Every announcement the window sends from now on, and every focus move (tests/ui/listening.py);
    iterated: (its source, its words)."""
    yield from listen(monkeypatch)


def test_a_stage_change_is_announced(qtbot, window, heard):
    w = window
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    forward_to(qtbot, w, 0, Stage.EMBEDDINGS)
    heard.quiet(qtbot)
    press(qtbot, w, Qt.Key.Key_Right)
    assert w.position == Cursor(0, Stage.LAYERS)
    heard.wait(qtbot)
    name = w.word("stages", "layers")
    assert any(name in message for _source, message in heard), heard
    assert all(source is w.view for source, message in heard if name in message)
    QApplication.processEvents()


def test_a_stage_announced_during_a_run_names_no_pass_count_it_does_not_know(qtbot, window, heard):
    w = window
    trace = generate(qtbot, w, "The capital of France is", max_new_tokens=6)
    n = len(trace.steps)
    assert n > 1
    heard.wait(qtbot)
    said = [message for source, message in heard if source is w.view]
    assert said, "the first stage is announced"
    for message in said:  # "pass 1" while the run goes on, never "pass 1 of 1"
        assert " of " not in message or message.endswith(f" of {n}"), said
    QApplication.processEvents()


def test_a_tour_step_is_announced_with_its_place_and_task(qtbot, window, heard):
    w = window
    dock = w.lesson.dock
    dock.show()
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    w.view.setFocus()
    heard.quiet(qtbot)
    tour_key(qtbot, w.view, Qt.Key.Key_Right)  # Alt+→: the next tour step, the focus stays put
    assert w.view.hasFocus()
    heard.wait(qtbot)
    chapter, progress, task = dock.tour.chapter.text(), dock.tour.progress.text(), dock.tour.task.text()
    text = spoken_marks(dock.tour.text.plain, w.texts.describe)
    assert chapter and progress and text and task
    words = [message for source, message in heard if source is dock.tour]
    told = w.texts.app_text("access", "tour_step").format(
        chapter=sentence(chapter), progress=progress, text=text, task=task
    )
    assert words == [" ".join(told.split())]  # the chapter and the explanation too, once
    assert words[0].startswith(chapter) and "?." not in words[0] and ".." not in words[0]


def test_a_predict_reveal_is_announced_with_its_verdict(qtbot, window, heard):
    w = window
    game = w.lesson.dock.predict
    w.lesson.dock.show()
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    forward_to(qtbot, w, 0, Stage.LAYERS)
    rnd = game.round
    assert rnd is not None and game.buttons[0].isVisible()
    heard.quiet(qtbot)
    click(qtbot, game.buttons[0])
    shown = game.revealed
    assert shown is not None
    heard.wait(qtbot)
    said = [message for source, message in heard if source is game]
    words = shown[1].message + (f" {shown[1].explanation}" if game.explanation.isVisible() else "")
    assert said == [" ".join(spoken_marks(words, w.texts.describe).split())]  # the explanation shown too
    assert said[0] and "\u2423" not in said[0]  # no glyph for the screen reader to spell out


def test_a_predict_reveal_with_an_explanation_announces_it_too(qtbot, window, heard):
    w = window
    game = w.lesson.dock.predict
    w.lesson.dock.show()
    w.sampling.greedy.setChecked(False)
    type_into(qtbot, w.sampling.temperature, "1.5")
    w.sampling.seed.setText("3")
    trace = generate(qtbot, w, "The capital of France is", max_new_tokens=8)
    surprising = [i for i, st in enumerate(trace.steps) if st.sampling.chosen.id != int(st.sampling.raw.ids[0])]
    if not surprising:
        pytest.skip("the sampler took the favourite at every pass")
    for i in surprising:
        forward_to(qtbot, w, i, Stage.LAYERS)
        if game.round is not None and game.buttons[0].isVisible():
            break
    else:
        pytest.skip("no round offered where the sampler surprised")
    heard.quiet(qtbot)
    click(qtbot, game.buttons[0])
    assert game.revealed is not None and game.explanation.isVisible()  # the sampler did not take the favourite
    result = game.revealed[1]
    heard.wait(qtbot)
    said = [message for source, message in heard if source is game]
    assert said == [" ".join(spoken_marks(f"{result.message} {result.explanation}", w.texts.describe).split())]


def test_a_questions_verdict_is_announced_while_the_focus_stays_on_check(qtbot, window, heard):
    w = window
    section = w.lesson.dock.questions
    w.lesson.dock.show()
    w.lesson.dock.open_section(Section.QUESTIONS)
    section.go(0)
    card = section.card
    assert card is not None and card.question.kind is QuestionKind.CHOICE, "the first question is a choice"
    wrong = (card.question.answer + 1) % len(card.options)
    click(qtbot, card.options[wrong])
    card.check_button.setFocus()
    heard.quiet(qtbot)
    qtbot.keyClick(card.check_button, Qt.Key.Key_Return)
    assert card.check_button.hasFocus()
    heard.wait(qtbot)
    verdict = check(w.texts, card.question, wrong)
    assert not verdict.correct
    told = spoken_marks(verdict.message, w.texts.describe)
    assert [message for source, message in heard if source is card] == [" ".join(told.split())]
    click(qtbot, card.options[card.question.answer])
    heard.quiet(qtbot)
    qtbot.keyClick(card.check_button, Qt.Key.Key_Return)
    right = check(w.texts, card.question, card.question.answer)
    assert right.correct and card.explanation.isVisible()
    heard.wait(qtbot)
    explained = spoken_marks(card.question.explanation, w.texts.describe)
    said = [message for source, message in heard if source is card]
    assert said == [" ".join(f"{right.message} {explained}".split())]  # the verdict, then its explanation


def test_an_option_that_quotes_a_token_is_named_with_its_marks_said(qtbot, window):
    """A question whose options are the run's tokens (“␣Paris”): a screen reader reads each
    option's radio as "space Paris", not as a symbol it skips or spells."""
    w = window
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    section = w.lesson.dock.questions
    w.lesson.dock.show()
    w.lesson.dock.open_section(Section.QUESTIONS)
    quoting = [i for i, q in enumerate(section.questions) if any("␣" in o for o in q.options)]
    assert quoting, "a question offers the run's tokens"
    for i in quoting:
        section.go(i)
        card = section.card
        assert card is not None
        for option, radio in zip(card.question.options, card.options):
            assert radio.accessibleName() == spoken_marks(option, w.texts.describe)
            assert "␣" not in radio.accessibleName()


def test_the_unfinished_list_and_the_completion_are_announced_by_their_widgets(qtbot, window, heard):
    w = window
    session, dock = w.lesson, w.lesson.dock
    dock.show()
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    session.go_to(len(session.tour.steps) - 1)
    heard.quiet(qtbot)
    click(qtbot, dock.tour.finish_button)  # nothing answered: "Not finished yet: ..."
    shown = dock.tour.text.plain
    assert shown.startswith("Not finished yet")
    heard.wait(qtbot)
    said = [message for source, message in heard if source is dock.tour]
    assert said == [" ".join(spoken_marks(shown, w.texts.describe).split())]
    for q in session.questions:  # every question answered right: the lesson is complete
        dock.questions.answered.emit(q.id, check(w.texts, q, q.answer))
    assert session.completed
    heard.wait(qtbot)
    page = dock.completion
    said = [message for source, message in heard if source is page]
    assert len(said) == 1 and said[0].startswith(page.title.text()), said
    assert said[0] == " ".join(" ".join((page.title.text(), page.score.text(), page.recap.text())).split())
    session.set_state(session.state)  # the score refreshed: not said again
    heard.wait(qtbot)
    assert len([m for s, m in heard if s is page]) == 1


@pytest.fixture
def focus_moves(window) -> Iterator[list[QWidget]]:
    """Every widget that takes the focus from now on, in order (QApplication.focusChanged). Qt
    tells assistive technology of each one, after the move: a move made while another is under
    way (a handler that sends the focus elsewhere) is told before it, so what a screen reader
    hears last is then not where the focus is."""
    out: list[QWidget] = []
    app = QApplication.instance()
    assert isinstance(app, QApplication)

    def moved(_old, new) -> None:
        if new is not None:
            out.append(new)

    app.focusChanged.connect(moved)
    yield out
    app.focusChanged.disconnect(moved)


def test_a_tour_step_that_swaps_the_question_moves_the_focus_once_to_the_new_answer(qtbot, window, focus_moves):
    """The card with the focus in it is replaced by another question's: the focus goes straight
    to the new question's answer, which a screen reader reads with its question; never through
    the prompt (it was told "Prompt", last) nor anywhere else on the way."""
    w = window
    session, dock = w.lesson, w.lesson.dock
    dock.show()
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    first, second = (session.tour.index_of(i) for i in ("start-story", "train-story"))
    assert first is not None and second is not None
    session.go_to(first)
    card = dock.questions.card
    assert card is not None and card.check_button.isVisible()
    card.check_button.setFocus()
    assert card.check_button.hasFocus()
    focus_moves.clear()
    session.go_to(second)
    new = dock.questions.card
    assert new is not card and new is not None
    assert focus_moves == [new.options[0]], focus_moves  # one move, to the first option
    assert new.question.text in accessible(new.options[0], QAccessible.Text.Description)


def test_a_predict_pick_never_passes_the_focus_through_the_prompt(qtbot, window, focus_moves):
    w = window
    game = w.lesson.dock.predict
    w.lesson.dock.show()
    generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    forward_to(qtbot, w, 0, Stage.LAYERS)
    w.lesson.dock.open_section(Section.PREDICT)
    button = game.buttons[0]
    assert button.isVisible()
    button.setFocus()
    assert button.hasFocus()
    focus_moves.clear()
    qtbot.keyClick(button, Qt.Key.Key_Space)  # picked: the four buttons go, the focus with them
    assert game.revealed is not None and not button.isVisible()
    assert w.prompt not in focus_moves, focus_moves
    assert QApplication.focusWidget() is w.view and focus_moves[-1] is w.view


def _table(view) -> list[list[str]]:
    return [[view.item(r, c).text() for c in range(view.columnCount())] for r in range(view.rowCount())]


def test_the_chart_as_a_table_walks_the_candidates_with_the_traces_numbers(qtbot, window, generate_calls):
    w = window
    w.sampling.greedy.setChecked(False)  # a real draw: the cuts and the choice
    w.sampling.seed.setText("7")
    view = w.chart_table
    assert view.isHidden()
    w.registry["chart_table"].trigger()  # View > Chart as a table
    assert view.isVisible()
    iface = QAccessible.queryAccessibleInterface(view)
    assert iface.role() == QAccessible.Role.Table and accessible(view) == w.word("chart_table", "title")
    word = lambda key: w.word("chart_table", key)  # noqa: E731
    trace = generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    calls = len(generate_calls)
    forward_to(qtbot, w, 1, Stage.PROBABILITIES)
    s = trace.steps[1].sampling
    n = min(10, len(s.raw.ids))
    rows = _table(view)
    assert len(rows) == n + 1  # the chart's candidates, then all the other tokens
    for r in range(n):  # raw numbers only: nothing is cut or chosen yet at this stage
        assert rows[r][1] == percent(float(s.raw.probs[r]))
        assert rows[r][2:] == [word("not_yet")] * 3
    assert rows[n][0] == word("other")
    spoken_first = view.item(0, 0).data(Qt.ItemDataRole.AccessibleTextRole)
    assert spoken_first and "\u2423" not in spoken_first  # “space Paris”, not “␣Paris”
    cells = [c for c in _children(iface) if c.role() == QAccessible.Role.Cell]
    assert len(cells) == len(COLUMNS) * (n + 1)  # every cell a screen reader can move to
    assert cells[0].text(QAccessible.Text.Name) == spoken_first  # what it reads of the first

    forward_to(qtbot, w, 1, Stage.SAMPLING)
    rows = _table(view)
    final = dict(zip(s.after_top_p.ids.tolist(), s.after_top_p.probs.tolist()))
    for r in range(n):
        tid = int(s.raw.ids[r])
        kept = final.get(tid, 0.0) > 0
        assert rows[r][1] == percent(float(s.raw.probs[r]))
        assert rows[r][2] == percent(final.get(tid, 0.0))
        assert rows[r][3] == word("yes" if kept else "no")
        assert rows[r][4] == word("yes" if tid == s.chosen.id else "no")
    assert sum(row[3] == word("yes") for row in rows[:n]) == min(s.kept, n)
    assert [row[4] for row in rows].count(word("yes")) == 1

    view.setFocus()  # reachable by keyboard: the arrows walk the cells, Tab leaves
    view.setCurrentCell(0, 0)
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.currentRow() == 1 and view.hasFocus() and w.position == Cursor(1, Stage.SAMPLING)
    assert view.focusPolicy() & Qt.FocusPolicy.TabFocus and not view.tabKeyNavigation()

    w.stepper.show(Cursor(0, Stage.APPEND))  # back: the table follows the recorded run
    first = trace.steps[0].sampling
    assert _table(view)[0][1] == percent(float(first.raw.probs[0]))
    assert len(generate_calls) == calls  # stepping only reads the trace


def test_the_chart_table_hides_an_open_guess(qtbot, window):
    w = window
    w.lesson.dock.show()
    w.registry["chart_table"].setChecked(True)
    trace = generate(qtbot, w, "The capital of France is", max_new_tokens=3)
    assert w.chart_table.item(0, 0).text() == w.word("chart_table", "empty")  # before the probabilities
    forward_to(qtbot, w, 0, Stage.LAYERS)
    if not w.lesson.answer_open(trace, w.position):
        pytest.skip("no round offered at this pass")
    assert w.chart_table.item(0, 0).text() == w.word("chart_table", "hidden")
    assert w.chart_table.rowCount() == 1


@pytest.fixture
def told_focus(monkeypatch) -> list[object]:
    """The objects the app itself reports as focused to assistive technology (a Focus event it
    sends through QAccessible.updateAccessibility; Qt's own are sent in C++)."""
    out: list[object] = []
    real = QAccessible.updateAccessibility

    def listen(event: QAccessibleEvent) -> None:
        if event.type() == QAccessible.Event.Focus:
            out.append(event.object())
        real(event)

    monkeypatch.setattr(QAccessible, "updateAccessibility", listen)
    return out


def test_a_bounce_home_from_the_prompt_is_reported_last(qtbot, window, told_focus):
    """A control disabled under the focus: Qt gives the focus to the next in the Tab chain (the
    prompt) and reports it only after the window has sent it home; the home is reported again."""
    w = window
    before = w.prompt.previousInFocusChain()
    while not (before.isVisible() and before.isEnabled() and before.focusPolicy() & Qt.FocusPolicy.TabFocus):
        before = before.previousInFocusChain()
    before.setFocus()
    assert before.hasFocus()
    before.setEnabled(False)  # Qt moves the focus on: to the prompt, which sends it home
    assert QApplication.focusWidget() is w.view
    QApplication.processEvents()  # (the report is queued behind Qt's own)
    assert told_focus and told_focus[-1] is w.view
    before.setEnabled(True)
