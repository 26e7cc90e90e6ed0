"""Errors, the missing model, loading in the background, and a clean shutdown."""

from __future__ import annotations

import itertools
import time

import pytest
from PySide6.QtCore import QEvent, QObject, QTimer

from explainer.errors import ExplainerError
from explainer.inference.events import (
    BuildProgress,
    Failed,
    ModelLoading,
    ModelMissing,
    ModelReady,
    PromptProgress,
    StepReady,
)
from tests.ui.conftest import running_controllers
from tests.ui.helpers import click, generate, type_into, wait_event

PARIS = "The capital of France is"


@pytest.mark.slow
def test_empty_prompt_and_bad_settings_show_a_message_and_keep_the_input(qtbot, window, generate_calls):
    w = window
    type_into(qtbot, w.prompt, "   ")
    click(qtbot, w.generate_button)
    assert w.banner.isVisible()
    assert "prompt is empty" in w.banner.message.text()
    assert w.banner.hint.text()
    assert w.prompt.toPlainText() == "   "

    type_into(qtbot, w.prompt, PARIS)
    click(qtbot, w.sampling.greedy)  # sampling on
    assert not w.sampling.greedy.isChecked()
    type_into(qtbot, w.sampling.top_p, "1.5")
    click(qtbot, w.generate_button)
    assert w.banner.isVisible() and "Top-p" in w.banner.message.text()
    assert "1 to switch top-p off" in w.banner.hint.text()
    assert w.sampling.top_p.text() == "1.5" and w.prompt.toPlainText() == PARIS, "nothing typed is lost"
    assert w.sampling.top_p.property("invalid") is True

    type_into(qtbot, w.sampling.temperature, "warm")
    click(qtbot, w.generate_button)
    assert "Temperature must be a number" in w.banner.message.text()
    assert generate_calls == [], "invalid input never reaches the model"

    # the app keeps running: fix the values and generate
    type_into(qtbot, w.sampling.temperature, "0.7")
    type_into(qtbot, w.sampling.top_p, "0.9")
    type_into(qtbot, w.sampling.seed, "3")
    trace = generate(qtbot, w, PARIS, max_new_tokens=3)
    assert not w.banner.isVisible()
    assert trace.settings.seed == 3 and trace.settings.top_p == pytest.approx(0.9)
    assert len(generate_calls) == 1


@pytest.mark.slow
def test_engine_errors_reach_the_banner(qtbot, window):
    """The worker's ExplainerError (message + hint) is shown, and the window keeps working."""
    from explainer.engine.sampler import SamplingSettings
    from explainer.inference.requests import GenerationRequest

    w = window
    with wait_event(qtbot, w.controller, Failed, timeout=30_000) as blocker:
        w.controller.generate(GenerationRequest("", SamplingSettings(max_new_tokens=2)))
    message, hint = blocker.event.message, blocker.event.hint
    assert message == "the prompt is empty" and hint
    qtbot.waitUntil(lambda: w.banner.isVisible())
    assert "prompt is empty" in w.banner.text()
    generate(qtbot, w, PARIS, max_new_tokens=2)


def test_running_out_of_memory_is_shown_as_such_and_the_app_goes_on(qtbot, window, shared_engine, monkeypatch):
    """A lecture-hall PC short of memory gets a message that says so and what to do, not a
    "this is a bug" report; the prompt stays, and once memory is back the same window runs."""
    from tests.engine.test_generate import _SessionOutOfMemory

    w = window
    runtime = shared_engine.runtime  # the window's engine
    monkeypatch.setattr(runtime, "session", _SessionOutOfMemory(runtime.session))
    type_into(qtbot, w.prompt, PARIS)
    with wait_event(qtbot, w.controller, Failed, timeout=30_000) as blocker:
        click(qtbot, w.generate_button)
    message, hint = blocker.event.message, blocker.event.hint
    assert "not enough memory" in message and "bug" not in message + hint
    assert "close other programs" in hint
    qtbot.waitUntil(lambda: w.banner.isVisible())
    assert w.prompt.toPlainText() == PARIS and not w.generating
    monkeypatch.undo()
    generate(qtbot, w, PARIS, max_new_tokens=2)


def test_missing_model_offers_to_build_it(qtbot, make_window, tmp_cache):
    w = make_window(load=False)
    with wait_event(qtbot, w.controller, ModelMissing, timeout=10_000) as blocker:
        w.controller.load_model()
    assert "not built" in blocker.event.message
    assert w.build_panel.isVisible()
    assert "Build the model" in w.build_panel.button.text()
    assert "not built" in w.build_panel.message.text()

    # Generate without a model: a message, no crash
    with wait_event(qtbot, w.controller, Failed, timeout=10_000):
        click(qtbot, w.generate_button)
    assert w.banner.isVisible() and "no model to run" in w.banner.message.text()
    assert "Build the model now" in w.banner.hint.text()
    assert w.controller.is_running  # still alive and serving requests


def test_build_reports_progress_and_failure(qtbot, make_window, tmp_cache, monkeypatch):
    """The build runs in the worker with a progress bar; a failure is shown with its hint."""
    import explainer.model.build as build_mod
    from explainer.model.manifest import DEFAULT_MODEL

    seen_threads = []

    def fake_build(name=DEFAULT_MODEL, force=False, progress=None, log=None):
        import threading

        seen_threads.append(threading.current_thread())
        for i in range(5):
            progress("downloading", i / 4)
            time.sleep(0.06)
        raise ExplainerError("could not download the model (no network)", "check the connection and try again")

    monkeypatch.setattr(build_mod, "build_model", fake_build)
    w = make_window(load=False)
    with wait_event(qtbot, w.controller, ModelMissing, timeout=10_000):
        w.controller.load_model()
    values = []
    w.controller.on(BuildProgress, lambda e: values.append((e.phase, e.fraction)))
    with wait_event(qtbot, w.controller, Failed, timeout=10_000):
        click(qtbot, w.build_panel.button)
    assert values and values[0][0] == "downloading" and values[-1][1] == 1.0
    assert w.build_panel.bar.isVisible() and w.build_panel.bar.value() == 1000
    assert seen_threads and seen_threads[0].name != "MainThread"
    assert "no network" in w.banner.message.text() and "try again" in w.banner.hint.text()
    assert w.build_panel.button.isEnabled() and w.build_panel.button.text() == "Try again"


class _PaintCounter(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


@pytest.mark.slow
def test_window_paints_and_stays_responsive_while_the_model_loads(qtbot, make_window, built_model):
    """A real load (seconds) in the worker: the window paints first and timers keep ticking."""
    w = make_window(load=False)  # default factory: load_built() + Engine() in the worker
    painter = _PaintCounter()
    w.view.viewport().installEventFilter(painter)
    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(10)
    ready_at: dict[str, int] = {}
    w.controller.on(ModelReady, lambda _e: ready_at.setdefault("paints", painter.count))
    w.controller.on(ModelLoading, lambda _e: w.view.viewport().update())
    with wait_event(qtbot, w.controller, ModelReady, timeout=60_000):
        w.controller.load_model()
        qtbot.waitUntil(lambda: w.status.busy_bar.isVisible(), timeout=10_000)
    timer.stop()
    w.view.viewport().removeEventFilter(painter)
    assert ready_at["paints"] >= 1, "the window painted before the model was ready"
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert len(ticks) > 20, "the event loop kept running during the load"
    print(f"load: {len(ticks)} ticks, longest GUI gap {max(gaps) * 1000:.0f} ms")  # figures, not asserted
    assert "SmolLM2" in w.status.model_label.text()
    qtbot.waitUntil(lambda: not w.status.busy_bar.isVisible())


@pytest.mark.slow
def test_closing_during_generation_cancels_and_joins(qtbot, make_window, shared_engine, generate_calls):
    w = make_window(lambda: shared_engine, speed=1.0)
    type_into(qtbot, w.prompt, "Once upon a time")
    type_into(qtbot, w.sampling.max_new_tokens, "64")
    with wait_event(qtbot, w.controller, StepReady, timeout=60_000):
        click(qtbot, w.generate_button)
    press_play = w.registry["play"]
    press_play.trigger()
    assert w.stepper.playing and w.generating
    t0 = time.perf_counter()
    w.close()
    closed_in = time.perf_counter() - t0
    assert not w.controller.is_running
    assert not w.scene.is_animating() and not w.stepper.timer.isActive()
    assert running_controllers() == []
    print(f"closed during generation in {closed_in * 1000:.0f} ms")
    assert len(generate_calls) == 1


def test_thread_guard_sees_a_running_controller(qtbot):
    from explainer.engine.generate import Engine
    from explainer.ui.controller import EngineController

    def no_engine() -> Engine:
        raise AssertionError("the test never loads a model")

    c = EngineController(no_engine)
    try:
        assert c in running_controllers()
    finally:
        c.shutdown()
    assert c not in running_controllers()
    c.shutdown()  # idempotent


def test_examples_fill_the_prompt_and_chat_mode(qtbot, make_window):
    w = make_window(lambda: None, load=False)
    examples = [(e.label, e.prompt, e.chat) for e in w.texts.examples]  # app.json "examples"
    assert len(w.controls.example_buttons) == len(examples) >= 4
    for button, (_label, text, chat) in zip(w.controls.example_buttons, examples):
        click(qtbot, button)
        assert w.prompt.toPlainText() == text and w.controls.chat.isChecked() == chat
    assert {chat for *_x, chat in examples} == {True, False}


@pytest.mark.slow
def test_a_long_prompt_shows_its_progress_and_stop_ends_it_within_a_chunk(
    qtbot, make_window, shared_engine, generate_calls, monkeypatch
):
    """The prefill of a long prompt reports every chunk (status bar and canvas), and Stop ends it
    after at most one more chunk: nothing is recorded, the worker is free, the window keeps working."""
    import explainer.engine.generate as generate_mod

    monkeypatch.setattr(generate_mod, "PREFILL_CHUNK", 8)
    passes: list[int] = []
    forward = shared_engine.runtime.forward

    def counted_forward(ids, cache, **kw):
        passes.append(len(ids))
        return forward(ids, cache, **kw)

    monkeypatch.setattr(shared_engine.runtime, "forward", counted_forward)
    w = make_window(lambda: shared_engine)
    prompt = " ".join(["The quick brown fox jumps over the lazy dog."] * 30)
    n_tokens = len(shared_engine.prepare(prompt).tokens)
    type_into(qtbot, w.prompt, prompt)
    progress: list[tuple[int, int]] = []
    w.controller.on(PromptProgress, lambda e: progress.append((e.read, e.total)))
    steps: list[object] = []
    w.controller.on(StepReady, lambda e: steps.append(e.trace))
    click(qtbot, w.generate_button)
    qtbot.waitUntil(lambda: len(progress) >= 4, timeout=60_000)
    assert progress[0] == (0, n_tokens) and all(t == n_tokens for _, t in progress)
    assert [r for r, _ in progress] == sorted(r for r, _ in progress)  # it only moves forward
    assert f"of {n_tokens:,} tokens" in w.status.activity.text() and w.status.busy_bar.maximum() == n_tokens
    assert "Reading the prompt" in rb_caption(w)
    click(qtbot, w.controls.stop_button)
    stopped_at = len(passes)
    qtbot.waitUntil(lambda: not w.controller.is_busy, timeout=10_000)
    assert len(passes) <= stopped_at + 1, "the prefill went on after Stop"
    assert progress[-1][0] < n_tokens and steps == [] and w.trace is None
    assert "nothing was recorded" in w.status.activity.text() and "nothing was recorded" in rb_caption(w)
    assert generate_calls and len(generate_calls) == 1


def rb_caption(w) -> str:
    from tests.support.readback import caption_text

    return caption_text(w.scene)


def test_destroying_the_window_with_the_lesson_open_raises_nothing(qtbot):
    """Quitting destroys the window: its lesson dock is hidden on the way, which must not reach
    code that reads the half-destroyed window (pytest-qt fails the test on any such exception)."""
    import shiboken6

    from explainer.ui.controller import EngineController
    from explainer.ui.main_window import MainWindow

    w = MainWindow(EngineController())
    w.show()
    qtbot.waitExposed(w)
    w.lesson.dock.show()
    w.controller.shutdown()  # (the app does this as it quits)
    shiboken6.delete(w)  # as at exit: destroyed while still shown
    assert not shiboken6.isValid(w)


def test_a_play_pressed_after_the_window_closed_plays_nothing(qtbot, make_window, shared_engine):
    """A press that arrives after the close (a delayed one, as bench --gui made, or a clicker's
    key queued behind it) used to play the closed window's illustration on, animating forever."""
    w = make_window(lambda: shared_engine, speed=1.0)
    generate(qtbot, w, "Once upon a time", max_new_tokens=3)
    w.stepper.reset()
    w.close()
    w.stepper.set_playing(True)
    w.registry["play"].trigger()
    qtbot.wait(50)
    assert not w.stepper.playing and not w.scene.is_animating() and not w.stepper.timer.isActive()
