"""A press of Next at the layers stage is split over turns of the event loop, so no single turn
holds the window past a frame: the layers in the press's turn, the KV cache in a later one
(at once only when the sweep animates its blocks), and the lesson's guessing game in a turn of
its own (ui/next_turn.py). Each still shows what it must, one turn later. A long paste into the
prompt box is wrapped once, not again when its scrollbar appears."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from explainer.stages import Cursor, Stage
from explainer.ui.next_turn import NextTurn
from tests.ui.helpers import forward_to


def test_next_turn_makes_every_call_in_order_after_the_event_loop_turns(qtbot):
    seen: list[int] = []
    later = NextTurn(seen.append)
    later.later(1)
    later.later(2)
    assert seen == []  # not in the caller's turn
    qtbot.waitUntil(lambda: seen == [1, 2])
    later.later(3)
    later.settle()  # (a reader that needs them done now)
    assert seen == [1, 2, 3]
    QApplication.processEvents()
    assert seen == [1, 2, 3]  # each once


def _cache_text(w) -> str:
    """What the KV cache panel shows: its line (lit at the layers stage) and its count."""
    kv = w.scene.kvcache
    return f"{kv.label.text()} | {kv.label.brush().color().name()} | {kv.count.text()}"


def test_at_the_layers_stage_the_cache_and_the_game_follow_the_press(qtbot, stepped):
    w = stepped
    w.transport.set_speed(0.0)  # Instant: nothing is animated
    forward_to(qtbot, w, 1, Stage.EMBEDDINGS)
    w.scene.settle()  # what the last press left to later turns is drawn: the cache as it was before
    before = _cache_text(w)
    assert w.lesson.dock.predict.round is None  # no guess is offered at the embeddings stage
    w.stepper.forward()
    assert w.position == Cursor(1, Stage.LAYERS)
    assert all(b.isVisible() for b in w.scene.layers.bars[: w.trace.model.n_layers])  # the press's own panel
    assert _cache_text(w) == before and w.lesson.dock.predict.round is None  # not in the press's turn
    qtbot.waitUntil(lambda: _cache_text(w) != before and w.lesson.dock.predict.round is not None)
    offered = w.lesson.dock.predict.round
    assert offered is not None and offered.step == 1  # the round of the pass on screen
    assert not w.lesson.dock.predict.options.isHidden()


def test_an_animated_sweep_reveals_the_new_keys_and_values_after_the_layers(qtbot, stepped):
    """With animations on, the cache's new blocks arrive at the end of the sweep (the cache is
    drawn with the layers, as the animation starts), not a turn after the press."""
    w = stepped
    w.transport.set_speed(1.0)
    forward_to(qtbot, w, 1, Stage.EMBEDDINGS)
    w.stepper.finish_animation()
    w.scene.settle()  # what the last press left to later turns is drawn: the cache as it was before
    count = w.scene.kvcache.count.text()
    w.stepper.forward()
    assert w.scene.is_animating()
    for _ in range(5):  # the turns after the press: the other panels are drawn, the sweep goes on
        QApplication.processEvents()
    assert w.scene.is_animating() and w.scene.kvcache.count.text() == count
    w.stepper.finish_animation()
    assert w.scene.kvcache.count.text() != count  # the pass's new token is in the cache now


def test_a_long_paste_keeps_the_prompt_boxs_width(qtbot, stepped):
    w = stepped
    box = w.prompt
    width = box.viewport().width()
    box.setPlainText("A language model reads text one token at a time. " * 400)  # one long paragraph
    QApplication.processEvents()
    assert box.viewport().width() == width  # so Qt wrapped the paragraph once, not again
    assert box.verticalScrollBar().maximum() > 0  # (and it is long enough to scroll)
