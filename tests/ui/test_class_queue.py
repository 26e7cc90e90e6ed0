"""The class's prompts served by the worker on the real model: first come, first served, each
request's life measured on the queue's clock, the instructor's Generate ahead of every waiting
request, the queue's limits, and a failed request that does not stop the next."""

from __future__ import annotations

import itertools
import threading

import pytest

from explainer.classroom.queue import MAX_WAITING, ClassQueue, Refusal, RequestLife, State
from explainer.engine.sampler import SamplingSettings
from explainer.errors import ExplainerError
from explainer.inference.events import Event, GenerationFinished, ModelReady, StepReady
from explainer.inference.requests import GenerationRequest
from explainer.ui.class_serving import CLASS_MAX_NEW_TOKENS
from explainer.ui.controller import EngineController
from tests.ui.helpers import wait_event

pytestmark = pytest.mark.slow


@pytest.fixture
def controller(qtbot, shared_engine):
    c = EngineController(lambda: shared_engine)
    with wait_event(qtbot, c, ModelReady, timeout=60_000):
        c.load_model()
    c.set_class_settings(SamplingSettings(max_new_tokens=3))
    yield c
    c.shutdown()
    assert not c.is_running


@pytest.fixture
def prompts_run(shared_engine, monkeypatch):
    """The prompts the engine ran, in order, with ``gates[prompt]`` to hold one at its start."""
    ran: list[str] = []
    gates: dict[str, threading.Event] = {}
    original = shared_engine.generate

    def spy(prompt, settings, *args, **kwargs):
        ran.append(prompt)
        if prompt in gates:
            assert gates[prompt].wait(60), "the test never opened the gate"
        if prompt == "break me":
            raise ExplainerError("a failure of this request only", "none")
        return original(prompt, settings, *args, **kwargs)

    monkeypatch.setattr(shared_engine, "generate", spy)
    return ran, gates


def all_ended(queue: ClassQueue) -> bool:
    return all(life.state in (State.DONE, State.FAILED) for life in queue.lives())


def check_measured(lives: tuple[RequestLife, ...]) -> None:
    """Each life's times in order on the one clock, and one request at a time, in arrival order."""
    for life in lives:
        assert life.state is State.DONE, life
        assert life.started is not None and life.prefill_started is not None and life.done is not None
        assert life.arrived <= life.started <= life.prefill_started <= life.token_times[0] <= life.done
        assert life.prompt_tokens and life.prompt_tokens > 3  # the chat template's tokens and the prompt's
        assert life.wait_s is not None and life.ttft_s is not None and life.ttft_s >= life.wait_s
        assert life.trace is not None and life.trace.chat
        assert len(life.token_times) == len(life.trace.steps) <= CLASS_MAX_NEW_TOKENS
        assert life.trace.settings.max_new_tokens == 3
    for before, after in itertools.pairwise(lives):
        assert before.done is not None and after.started is not None
        assert after.started >= before.done, "one request runs at a time, in arrival order"
        assert after.arrived >= before.arrived


def test_requests_are_served_first_come_with_their_waits_measured(qtbot, controller, prompts_run):
    ran, _gates = prompts_run
    queue = ClassQueue()
    seen: list[Event] = []
    controller.events.connect(seen.append)
    for i in range(4):
        assert isinstance(queue.submit(f"phone {i}", f"Name a colour, number {i}"), RequestLife)
    controller.serve_class(queue)
    qtbot.waitUntil(lambda: all_ended(queue), timeout=120_000)
    lives = queue.lives()
    assert ran == [f"Name a colour, number {i}" for i in range(4)]
    check_measured(lives)
    assert lives[3].wait_s is not None and lives[0].wait_s is not None and lives[3].wait_s > lives[0].wait_s
    assert all(life.output for life in lives), "each request's tokens were streamed into its life"
    assert not any(isinstance(e, StepReady | GenerationFinished) for e in seen), "a class run is not shown"


def test_the_instructors_generate_goes_ahead_of_every_waiting_request(qtbot, controller, prompts_run):
    ran, gates = prompts_run
    queue = ClassQueue()
    gates["first"] = threading.Event()
    for device, text in [("a", "first"), ("b", "second"), ("c", "third")]:
        queue.submit(device, text)
    shown: list[GenerationFinished] = []
    controller.on(GenerationFinished, shown.append)
    controller.serve_class(queue)
    qtbot.waitUntil(lambda: (life := queue.life(1)) is not None and life.state is State.RUNNING)
    gid = controller.generate(GenerationRequest("The capital of France is", SamplingSettings(max_new_tokens=3)))
    gates["first"].set()  # the running class request is not interrupted: it ends, then the instructor's
    qtbot.waitUntil(lambda: all_ended(queue) and len(shown) == 1, timeout=120_000)
    assert ran == ["first", "The capital of France is", "second", "third"]
    assert shown[0].gid == gid and shown[0].trace.prompt == "The capital of France is"
    check_measured(queue.lives())


def test_the_limits_hold_and_forty_requests_are_served_in_order(qtbot, controller, prompts_run):
    ran, _gates = prompts_run
    controller.set_class_settings(SamplingSettings(max_new_tokens=3))
    queue = ClassQueue()
    for i in range(MAX_WAITING):
        assert isinstance(queue.submit(f"phone {i}", f"question {i}"), RequestLife)
    assert queue.submit("one more phone", "question") is Refusal.FULL
    assert queue.submit("phone 0", "a second question") is Refusal.ALREADY_QUEUED
    controller.serve_class(queue)
    qtbot.waitUntil(lambda: all_ended(queue), timeout=300_000)
    assert ran == [f"question {i}" for i in range(MAX_WAITING)]
    check_measured(queue.lives())
    assert isinstance(queue.submit("phone 0", "a second question"), RequestLife), "its first one has finished"


def test_a_failed_request_does_not_stop_the_next(qtbot, controller, prompts_run):
    ran, _gates = prompts_run
    queue = ClassQueue()
    queue.submit("a", "break me")
    queue.submit("b", "Say hello")
    controller.serve_class(queue)
    qtbot.waitUntil(lambda: all_ended(queue), timeout=120_000)
    first, second = queue.lives()
    assert first.state is State.FAILED and first.stop_reason == "failed"
    assert second.state is State.DONE and second.trace is not None
    assert ran == ["break me", "Say hello"]


def test_stopping_class_mode_ends_the_running_request_and_serves_no_more(qtbot, controller, prompts_run):
    ran, gates = prompts_run
    queue = ClassQueue()
    gates["held"] = threading.Event()
    queue.submit("a", "held")
    queue.submit("b", "never run")
    controller.serve_class(queue)
    qtbot.waitUntil(lambda: (life := queue.life(1)) is not None and life.state is State.RUNNING)
    controller.serve_class(None)
    gates["held"].set()
    qtbot.waitUntil(lambda: (life := queue.life(1)) is not None and life.state is State.FAILED, timeout=60_000)
    with wait_event(qtbot, controller, GenerationFinished):  # the worker is free for the instructor
        controller.generate(GenerationRequest("Hello", SamplingSettings(max_new_tokens=1)))
    assert ran == ["held", "Hello"]
    life2 = queue.life(2)
    assert life2 is not None and life2.state is State.WAITING


def test_closing_the_app_while_a_class_request_runs_does_not_hang(qtbot, shared_engine, prompts_run):
    ran, _gates = prompts_run
    c = EngineController(lambda: shared_engine)
    with wait_event(qtbot, c, ModelReady, timeout=60_000):
        c.load_model()
    c.set_class_settings(SamplingSettings(max_new_tokens=CLASS_MAX_NEW_TOKENS))
    queue = ClassQueue()
    queue.submit("a", "Tell me a long story about a cat")
    queue.submit("b", "never run")
    c.serve_class(queue)
    qtbot.waitUntil(lambda: (life := queue.life(1)) is not None and life.state is State.RUNNING)
    c.shutdown()  # returns: the running request ends at its next step, nothing after it starts
    assert not c.is_running
    life1, life2 = queue.lives()
    assert life1.state in (State.FAILED, State.DONE) and life2.state is State.WAITING
    assert ran == ["Tell me a long story about a cat"]
