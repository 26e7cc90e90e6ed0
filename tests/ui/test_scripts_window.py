"""Text in every script in the window, on the real model: the answer box, the Tokens panel, the
chart and the words a screen reader hears. A token that is only part of a character is shown
by its bytes and the character it helps make, never as "\ufffd"; the reference for the text is
the tokenizers library's decode of the same ids."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAccessible

from explainer.engine.text_bytes import byte_label, is_whole
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Stage
from tests.support.readback import bar_values, caption_text, drawn_chips
from tests.ui.helpers import forward_to, generate, settle_layout

pytestmark = pytest.mark.slow


def _description(w) -> str:
    iface = QAccessible.queryAccessibleInterface(w.view)
    return iface.text(QAccessible.Text.Description) or ""


def test_a_greek_answer_grows_in_the_answer_box_as_the_tokenizers_library_decodes_it(qtbot, window):
    w = window
    w.sampling.greedy.setChecked(True)
    trace = generate(qtbot, w, "Translate to Greek: good morning", max_new_tokens=16, chat=True)
    assert any(t.partial for t in trace.output_tokens)  # Greek letters split over two tokens
    from explainer.engine.tokenizer import load_tokenizer
    from explainer.model.build import load_built

    tok = load_tokenizer(load_built().tokenizer_path)
    ids = [t.id for t in trace.output_tokens]
    for cursor in Walk(trace).cursors():
        if cursor.stage is not Stage.APPEND:
            continue
        w.stepper.show(cursor)
        expected = tok.hf.decode(ids[: cursor.step + 1]).rstrip("\ufffd").replace("\n", "↵\n")
        qtbot.waitUntil(lambda e=expected: w.answer_view.answer.removeprefix("\n") == e)
        assert "\ufffd" not in w.answer_view.toPlainText()


def test_a_chinese_prompt_shows_each_piece_by_its_bytes_and_its_character(qtbot, window):
    w = window
    w.sampling.greedy.setChecked(True)
    prompt = "北京是中国的首都。"
    trace = generate(qtbot, w, prompt, max_new_tokens=1)
    w.stepper.show(Cursor(0, Stage.TOKENS))
    settle_layout(qtbot, w)
    labels = [c.label.text() for c in drawn_chips(w.scene) if c.token is not None]
    pieces = [t for t in trace.prompt_tokens if t.partial]
    assert pieces and len(labels) == len(trace.prompt_tokens)
    for t, label in zip(trace.prompt_tokens, labels):
        if t.partial:  # its bytes, then the character of the prompt it helps make
            assert label.startswith(byte_label(t.raw)) and label.split(" ", 1)[1] in prompt
        else:
            assert label == t.text
    assert "\ufffd" not in "".join(labels)
    first = next(label for t, label in zip(trace.prompt_tokens, labels) if t.partial)
    assert first in caption_text(w.scene)  # the caption says one character can take several tokens
    said = _description(w)
    data, char = pieces[0].raw, first.split(" ", 1)[1]
    hex_said = " ".join(f"{b:02X}" for b in data)
    assert w.texts.describe["bytes_of"].format(bytes=hex_said, char=char) in said  # in words, too
    assert "\ufffd" not in said


def test_a_bar_that_finishes_an_emoji_is_labelled_with_it(qtbot, window):
    w = window
    w.sampling.greedy.setChecked(True)
    trace = generate(qtbot, w, "Reply with three emoji", max_new_tokens=4, chat=True)
    first = trace.steps[0].sampling.chosen
    assert first.partial  # the favourite first token is the first half of an emoji
    forward_to(qtbot, w, 0, Stage.SAMPLING)
    assert any(label.startswith(byte_label(first.raw)) for label, _ in bar_values(w.scene))
    # the pass whose token finishes the emoji begun before it: its bar says which emoji it makes
    k = next(k for k, s in enumerate(trace.steps) if trace.unfinished_before(k) and is_whole(
        trace.unfinished_before(k) + s.sampling.chosen.data))  # fmt: skip
    made = (trace.unfinished_before(k) + trace.steps[k].sampling.chosen.data).decode()
    forward_to(qtbot, w, k, Stage.SAMPLING)
    chosen = trace.steps[k].sampling.chosen
    assert (byte_label(chosen.data) + " " + made,) in [(label,) for label, _ in bar_values(w.scene)]
    assert made in caption_text(w.scene) and "\ufffd" not in caption_text(w.scene)
