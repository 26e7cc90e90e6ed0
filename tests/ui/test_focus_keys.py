"""After a real run, a focused control gets the keys it uses, and the stepping keys still work.

What a keyboard user checks: Space ticks the focused check box (and does not step), Return
presses the focused button, the arrows move a focused radio, list or slider (and do not step),
Page Down (a clicker) steps from anywhere but a text field, Esc gives the focus back to the
diagram, and with the diagram focused every documented key steps it.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from explainer.content.texts import QuestionKind
from explainer.stages import Cursor, Stage
from explainer.ui.lesson.show_me import Section
from tests.ui.helpers import forward_to, generate, settle

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)

K = Qt.Key
PARIS = "The capital of France is"


def key(qtbot, widget, k, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed with ``widget`` focused (the keyboard's events go to the focus widget)."""
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    assert widget.hasFocus(), widget
    qtbot.keyClick(widget, k, modifier)
    settle()


def test_a_focused_control_keeps_its_keys_and_page_down_steps_from_anywhere(qtbot, window):
    w = window
    generate(qtbot, w, PARIS, max_new_tokens=3)
    walk = w.walk
    start = w.position
    assert start == walk.first()

    # Space on a check box ticks it; it does not step (nor does Return, which ticks it too)
    greedy = w.sampling.greedy
    was = greedy.isChecked()
    key(qtbot, greedy, K.Key_Space)
    assert greedy.isChecked() != was and w.position == start
    key(qtbot, greedy, K.Key_Return)
    assert greedy.isChecked() == was and w.position == start
    # ... and Page Down, the clicker's key, steps from it
    key(qtbot, greedy, K.Key_PageDown)
    assert w.position == walk.next(start)
    assert greedy.hasFocus()

    # Space and Return on the transport's Reset press Reset, not Next
    key(qtbot, w.view, K.Key_Right)
    assert w.position != start
    key(qtbot, w.transport.buttons["reset"], K.Key_Space)
    assert w.position == start
    key(qtbot, w.view, K.Key_Right)
    key(qtbot, w.transport.buttons["reset"], K.Key_Return)
    assert w.position == start
    # Return on a push button presses it: an example fills the prompt
    example = w.controls.example_buttons[1]
    key(qtbot, example, K.Key_Enter)  # (the keypad's Enter too)
    assert w.prompt.toPlainText() == w.texts.examples[1].prompt and w.position == start

    # the arrows on a question's radio move through its options, not to the next token
    dock = w.lesson.dock
    dock.open_section(Section.QUESTIONS)
    section = dock.questions
    i = next(i for i, q in enumerate(section.questions) if q.kind is QuestionKind.CHOICE and len(q.options) > 2)
    section.go(i)
    radios = section.card.options
    key(qtbot, radios[0], K.Key_Space)
    assert radios[0].isChecked() and w.position == start
    qtbot.keyClick(radios[0], K.Key_Down)
    assert radios[1].hasFocus() and radios[1].isChecked() and w.position == start
    qtbot.keyClick(radios[1], K.Key_Up)
    assert radios[0].hasFocus() and w.position == start
    key(qtbot, radios[0], K.Key_PageDown)
    assert w.position == walk.next(start) and radios[0].hasFocus()

    # Down in the glossary's list goes to the next term
    dock.open_section(Section.GLOSSARY)
    terms = dock.glossary.terms
    terms.setCurrentRow(0)
    here = w.position
    key(qtbot, terms, K.Key_Down)
    assert terms.currentRow() == 1 and w.position == here
    key(qtbot, terms, K.Key_End)
    assert terms.currentRow() == terms.count() - 1 and w.position == here

    # the arrows and Home on a What-if slider move it; Page Down still steps; Esc: the diagram
    forward_to(qtbot, w, 0, Stage.SAMPLING)
    dock.open_section(Section.WHATIF)
    slider = dock.whatif.temperature
    assert slider.isEnabled()
    at = w.position
    slider.setValue(50)  # (a greedy run: temperature 0, the slider at its end)
    value = slider.value()
    key(qtbot, slider, K.Key_Right)
    assert slider.value() == value + slider.singleStep() and w.position == at
    key(qtbot, slider, K.Key_Left)
    key(qtbot, slider, K.Key_Left)
    assert slider.value() == value - slider.singleStep() and w.position == at
    key(qtbot, slider, K.Key_Home)
    assert slider.value() == slider.minimum() and w.position == at
    moved = slider.value()
    key(qtbot, slider, K.Key_PageDown)
    assert w.position == walk.next(at) and slider.value() == moved
    # past the sampling stage the sliders are disabled: the focus goes back to the diagram (not
    # on to the prompt, where a clicker's keys would be the text field's)
    assert w.focusWidget() is w.view
    qtbot.keyClick(w.focusWidget(), K.Key_PageUp)
    settle()
    assert w.position == at and slider.value() == moved
    key(qtbot, slider, K.Key_Escape)
    assert w.view.hasFocus(), "Esc gives the focus back to the diagram"
    qtbot.keyClick(w.view, K.Key_Right)
    assert w.position == walk.next(at) and slider.value() == moved

    # a text field keeps even Page Down; the window keeps Esc
    dock.open_section(Section.GLOSSARY)
    key(qtbot, dock.glossary.search, K.Key_PageDown)
    assert w.position == walk.next(at)
    key(qtbot, dock.glossary.search, K.Key_N)
    assert dock.glossary.search.text() == "n" and w.position == walk.next(at)
    qtbot.keyClick(dock.glossary.search, K.Key_Escape)
    assert w.view.hasFocus()


def test_the_documented_keys_step_the_diagram_it_has_the_focus(qtbot, window):
    w = window
    generate(qtbot, w, PARIS, max_new_tokens=3)
    walk = w.walk
    first = walk.first()
    w.view.setFocus()
    for k in (K.Key_Space, K.Key_Right, K.Key_PageDown):
        before = w.position
        qtbot.keyClick(w.view, k)
        assert w.position == walk.next(before), k
    for k in (K.Key_Left, K.Key_PageUp, K.Key_Backspace):
        before = w.position
        qtbot.keyClick(w.view, k)
        assert w.position == walk.prev(before), k
    assert w.position == first
    for k in (K.Key_N, K.Key_Down):
        before = w.position
        qtbot.keyClick(w.view, k)
        assert w.position == walk.next_token(before), k
    qtbot.keyClick(w.view, K.Key_Home)
    assert w.position == first
    near_the_end = walk.prev(walk.prev(walk.last()))
    w.stepper.show(near_the_end)  # (Play dwells on every stage: from the start it takes long)
    qtbot.keyClick(w.view, K.Key_P)
    assert w.stepper.playing
    qtbot.waitUntil(lambda: not w.stepper.playing, timeout=20_000)
    assert w.position == walk.last()
    # (a button does not use the arrows or N: they step from it too)
    for k in (K.Key_Home, K.Key_Right, K.Key_N):
        before = w.position
        key(qtbot, w.generate_button, k)
        want = {K.Key_Home: first, K.Key_Right: walk.next(first), K.Key_N: walk.next_token(walk.next(first))}[k]
        assert w.position == want, (k, before)
    assert Cursor(0, Stage.PRETRAINING) == first
