"""The controller without a model, as ndv tests its controllers: a small typed fake runner in
the worker thread (steps are ``MagicMock(spec=Step)``), and the one event stream read back. What
is checked is the controller's own work: requests reach the worker typed, every event comes back
once, in order, and a stale run's events are dropped here, before any view sees them."""

from __future__ import annotations

import threading
import typing
from collections.abc import Callable
from unittest.mock import MagicMock, call

import pytest

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import ModelInfo, Step, Trace
from explainer.errors import Cancelled, ExplainerError
from explainer.inference.events import (
    Activity,
    ActivityChanged,
    BranchFinished,
    BusyChanged,
    Event,
    Failed,
    GenerationFinished,
    ModelLoading,
    ModelReady,
    PromptProgress,
    StepReady,
)
from explainer.inference.requests import (
    AddGguf,
    BranchRequest,
    BuildModel,
    GenerationRequest,
    LoadModel,
    SelectModel,
    StartRun,
    WorkerRequest,
)
from explainer.inference.runner import Described, OnProgress, OnStep, StopAsked
from explainer.ui.controller import EngineController
from explainer.ui.worker import Worker
from tests.ui.helpers import wait_event

INFO = ModelInfo(
    name="fake",
    provider="CPU",
    n_layers=2,
    d_model=8,
    n_heads=2,
    n_kv_heads=2,
    vocab_size=3,
    context_length=64,
    n_params=100,
)
WAIT_MS = 10_000  # a guard against a worker that never answers, not a measurement


class FakeRunner:
    """A ModelRunner with no model: a run makes ``max_new_tokens`` mock steps. While ``gate`` is
    shut, a run waits after each step; it asks should_stop only after sending a step, so a run
    made stale while it waits still sends one more (which the controller must drop)."""

    def __init__(self, fail: ExplainerError | None = None) -> None:
        self.gate = threading.Event()
        self.gate.set()
        self.fail = fail
        self.closed = False

    def describe(self) -> Described:
        return Described(INFO, "FakeExecutionProvider", ("a", "b", "c"))

    def generate(
        self,
        prompt: str,
        settings: SamplingSettings,
        chat: bool,
        on_step: OnStep,
        should_stop: StopAsked,
        on_progress: OnProgress,
    ) -> Trace:
        if self.fail is not None:
            raise self.fail
        trace = Trace.new(INFO, prompt, chat, settings, [])
        on_progress(1, 1)
        for i in range(settings.max_new_tokens):
            step = MagicMock(spec=Step)
            trace.steps.append(step)
            on_step(trace, step)
            if i > 0 and should_stop():
                raise Cancelled()
            self.gate.wait()
        trace.stop_reason = "max_tokens"
        return trace

    def continue_from(self, original: Trace, step: int, token_id: int, should_stop: StopAsked) -> Trace:
        branch = Trace.new(INFO, original.prompt, original.chat, original.settings, [])
        branch.steps = [MagicMock(spec=Step) for _ in range(step + 1)]
        return branch

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake() -> FakeRunner:
    return FakeRunner()


@pytest.fixture
def controller(qtbot, fake):
    c = EngineController(model_factory=lambda _name, _give_up: fake)
    yield c
    c.shutdown()
    assert not c.is_running


@pytest.fixture
def heard(controller) -> list[Event]:
    """Every event the controller passes on, in order (from the last _loaded on)."""
    events: list[Event] = []
    controller.events.connect(events.append)
    return events


def _request(tokens: int) -> GenerationRequest:
    return GenerationRequest("Once", SamplingSettings(max_new_tokens=tokens))


def _loaded(qtbot, c: EngineController, heard: list[Event] | None = None) -> None:
    with wait_event(qtbot, c, ModelReady, timeout=WAIT_MS):
        c.load_model()
    qtbot.waitUntil(lambda: not c.is_busy, timeout=WAIT_MS)
    if heard is not None:
        heard.clear()


def _kinds(heard: list[Event]) -> list[type]:
    return [type(e) for e in heard]


def test_a_load_is_said_as_typed_events_in_order(qtbot, controller, heard):
    with wait_event(qtbot, controller, ModelReady, timeout=WAIT_MS) as ready:
        controller.load_model()
    qtbot.waitUntil(lambda: not controller.is_busy, timeout=WAIT_MS)
    assert _kinds(heard) == [ActivityChanged, BusyChanged, ModelLoading, ActivityChanged, BusyChanged, ModelReady]
    assert heard[0] == ActivityChanged(Activity.LOADING) and heard[1] == BusyChanged(True)
    assert heard[-2] == BusyChanged(False)
    model = ready.event.model
    assert model.info == INFO and model.vocabulary == ("a", "b", "c") and controller.model is model


def test_a_run_streams_its_steps_under_its_own_id(qtbot, controller, heard):
    _loaded(qtbot, controller, heard)
    with wait_event(qtbot, controller, GenerationFinished, timeout=WAIT_MS) as finished:
        gid = controller.generate(_request(3))
    runs = [e for e in heard if isinstance(e, PromptProgress | StepReady | GenerationFinished)]
    assert [type(e) for e in runs] == [PromptProgress, StepReady, StepReady, StepReady, GenerationFinished]
    assert {e.gid for e in runs} == {gid}
    steps = [e.trace for e in runs if isinstance(e, StepReady)]
    assert [len(t.steps) for t in steps] == [1, 2, 3], "each step is a snapshot that does not grow"
    assert finished.event.trace.stop_reason == "max_tokens"


def test_a_cancelled_runs_late_step_never_reaches_a_view(qtbot, controller, heard, fake):
    _loaded(qtbot, controller, heard)
    fake.gate.clear()
    with wait_event(qtbot, controller, StepReady, timeout=WAIT_MS):
        controller.generate(_request(5))
    controller.cancel()
    fake.gate.set()  # the run makes one more step, then sees it is stale
    qtbot.waitUntil(lambda: not controller.is_busy, timeout=WAIT_MS)
    assert len([e for e in heard if isinstance(e, StepReady)]) == 1
    assert GenerationFinished not in _kinds(heard)


def test_a_newer_run_drops_the_older_ones_events(qtbot, controller, heard, fake):
    _loaded(qtbot, controller, heard)
    fake.gate.clear()
    with wait_event(qtbot, controller, StepReady, timeout=WAIT_MS) as first:
        old = controller.generate(_request(5))
    new = controller.generate(_request(2))
    fake.gate.set()
    with wait_event(qtbot, controller, GenerationFinished, timeout=WAIT_MS) as finished:
        pass
    assert first.event.gid == old and finished.event.gid == new
    after = heard[heard.index(first.event) + 1 :]
    assert all(getattr(e, "gid", new) in (new, None) for e in after), after


def test_a_failed_run_is_said_with_its_id_and_the_words(qtbot, fake):
    fake.fail = ExplainerError("the prompt is empty", "type some text")
    c = EngineController(model_factory=lambda _name, _give_up: fake)
    try:
        _loaded(qtbot, c)
        with wait_event(qtbot, c, Failed, timeout=WAIT_MS) as failed:
            gid = c.generate(_request(2))
        assert failed.event == Failed("the prompt is empty", "type some text", gid)
    finally:
        c.shutdown()


def test_a_branch_comes_back_whole_as_one_event(qtbot, controller, heard):
    _loaded(qtbot, controller, heard)
    original = Trace.new(INFO, "Once", False, SamplingSettings(), [])
    with wait_event(qtbot, controller, BranchFinished, timeout=WAIT_MS) as done:
        gid = controller.branch(BranchRequest(original, 1, 2))
    assert done.event.gid == gid and len(done.event.trace.steps) == 2
    assert StepReady not in _kinds(heard)


def test_on_hands_a_subscriber_only_its_kind(qtbot, controller, heard):
    seen: list[Event] = []
    take: Callable[[ModelReady], None] = seen.append
    controller.on(ModelReady, take)
    _loaded(qtbot, controller, heard)
    assert [type(e) for e in seen] == [ModelReady]


def test_after_shutdown_nothing_is_said_and_the_model_is_let_go(qtbot, controller, heard, fake):
    _loaded(qtbot, controller, heard)
    controller.shutdown()
    assert fake.closed
    assert controller.generate(_request(2)) == -1
    controller.load_model()
    qtbot.wait(0)  # (one turn of the event loop: anything queued would be delivered)
    assert heard == []


def test_each_request_reaches_its_worker_slot():
    """The worker's one inbound stream, dispatched by type (a stand-in worker records the calls)."""
    original = Trace.new(INFO, "Once", False, SamplingSettings(), [])
    generation, branch = _request(2), BranchRequest(original, 1, 2)
    expected: list[tuple[WorkerRequest, str, tuple[object, ...]]] = [
        (LoadModel(), "load", ()),
        (SelectModel("other"), "select", ("other",)),
        (BuildModel(), "build", ()),
        (AddGguf("/tmp/model.gguf"), "add_gguf", ("/tmp/model.gguf",)),
        (StartRun(4, generation), "generate", (4, generation)),
        (StartRun(5, branch), "branch", (5, branch)),
    ]
    assert {type(r) for r, _, _ in expected} == set(typing.get_args(WorkerRequest))
    for request, slot, args in expected:
        worker = MagicMock(spec=Worker)
        Worker.handle(worker, request)
        assert worker.method_calls == [getattr(call, slot)(*args)], request
