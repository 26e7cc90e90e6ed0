"""The controller alone: requests go to the worker thread, signals come back in order."""

from __future__ import annotations

import threading

import pytest

from explainer.engine.sampler import SamplingSettings
from explainer.inference.events import Activity, BusyChanged, GenerationFinished, LoadedModel, ModelReady, StepReady
from explainer.inference.requests import GenerationRequest
from explainer.ui.controller import EngineController
from tests.ui.helpers import wait_event

pytestmark = pytest.mark.slow


@pytest.fixture
def controller(qtbot, shared_engine):
    c = EngineController(lambda: shared_engine)
    with wait_event(qtbot, c, ModelReady, timeout=30_000) as blocker:
        c.load_model()
    loaded = blocker.event.model
    assert isinstance(loaded, LoadedModel)  # the model's description travels as itself, typed
    assert loaded.info.n_layers == shared_engine.config["n_layers"]
    assert len(loaded.vocabulary) == shared_engine.config["vocab_size"]
    yield c
    c.shutdown()
    assert not c.is_running


def test_generation_streams_snapshots_from_the_worker_thread(qtbot, controller, shared_engine, monkeypatch):
    threads = []
    original = shared_engine.generate

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return original(*args, **kwargs)

    monkeypatch.setattr(shared_engine, "generate", spy)
    snapshots = []
    busy = []
    controller.on(StepReady, lambda e: snapshots.append(e.trace))
    controller.on(BusyChanged, lambda e: busy.append(e.busy))
    with wait_event(qtbot, controller, GenerationFinished, timeout=60_000) as blocker:
        controller.generate(GenerationRequest("The capital of France is", SamplingSettings(max_new_tokens=4)))
    trace = blocker.event.trace
    assert threads and threads[0] is not threading.main_thread()
    assert [len(s.steps) for s in snapshots] == [1, 2, 3, 4]
    assert snapshots[0].steps[0] is trace.steps[0]
    assert len(snapshots[0].steps) == 1, "a snapshot does not grow after it was sent"
    assert trace.stop_reason == "max_tokens"
    assert trace.steps[0].sampling.chosen.text == " Paris"
    qtbot.waitUntil(lambda: not controller.is_busy)
    assert busy[0] is True and busy[-1] is False
    assert controller.activity is Activity.IDLE


def test_a_new_generation_cancels_the_running_one(qtbot, controller):
    finished = []
    controller.on(GenerationFinished, lambda e: finished.append(e.trace))
    steps = []
    controller.on(StepReady, lambda e: steps.append(e.trace))
    with wait_event(qtbot, controller, StepReady, timeout=60_000):
        controller.generate(GenerationRequest("Once upon a time", SamplingSettings(max_new_tokens=200)))
    with wait_event(qtbot, controller, GenerationFinished, timeout=60_000):
        controller.generate(GenerationRequest("The capital of France is", SamplingSettings(max_new_tokens=2)))
    assert [t.prompt for t in finished] == ["The capital of France is"]
    assert all(len(t.steps) <= 200 for t in steps)
    assert steps[-1].prompt == "The capital of France is"


def test_cancel_stops_and_shutdown_joins(qtbot, controller):
    with wait_event(qtbot, controller, StepReady, timeout=60_000):
        controller.generate(GenerationRequest("Once upon a time", SamplingSettings(max_new_tokens=500)))
    controller.cancel()
    qtbot.waitUntil(lambda: not controller.is_busy, timeout=10_000)
    with wait_event(qtbot, controller, StepReady, timeout=60_000):
        controller.generate(GenerationRequest("Once upon a time", SamplingSettings(max_new_tokens=500)))
    controller.shutdown()  # mid-generation: returns once the loop has stopped
    assert not controller.is_running and not controller.is_busy
