"""The class's requests decoded together (inference/batch_loop.py, ui/class_serving.py): in the
model's process and through the worker, every request answers as it does alone, each phone's
tokens stream into its own life, requests join and leave the batch as they come and end, and
the instructor's run waits only for the batch to drain."""

from __future__ import annotations

import time

import pytest

from explainer.classroom.queue import ClassQueue, State
from explainer.engine.sampler import SamplingSettings
from explainer.inference.batch_loop import Feeder
from explainer.inference.events import GenerationFinished, ModelReady
from explainer.inference.messages import ClassEnded, ClassReply, ClassStarted, ClassStep
from explainer.inference.process import ModelProcess
from explainer.inference.requests import GenerationRequest
from explainer.ui.class_serving import CLASS_CHAT
from explainer.ui.controller import EngineController
from tests.ui.helpers import wait_event

pytestmark = pytest.mark.slow

PROMPTS = ["Name a colour.", "What is 2 + 2?", "Say hello to the class.", "Why do cats purr?", "Hi", "Count to five."]


def settings(i: int) -> SamplingSettings:
    return SamplingSettings(temperature=0.0 if i % 2 else 0.9, seed=10 + i, max_new_tokens=3 + i)


def alone(engine, i: int) -> list[int]:
    trace = engine.generate(PROMPTS[i], settings(i), chat=CLASS_CHAT)
    return [s.sampling.chosen.id for s in trace.steps]


def test_the_models_process_decodes_a_batch_as_each_request_alone(built_model, shared_engine):
    waiting = list(range(len(PROMPTS)))
    replies: list[ClassReply] = []

    def _take():
        if not waiting:
            return None
        i = waiting.pop(0)
        return i, PROMPTS[i], settings(i)

    process = ModelProcess(built_model.name)
    try:
        feeder = Feeder(4, _take, lambda: False)
        process.serve_class(feeder, CLASS_CHAT, replies.append, lambda: False)
        # the process serves the next request as before
        after = process.generate(
            "Hi", SamplingSettings(max_new_tokens=2), False, lambda t, s: None, lambda: False, lambda r, t: None
        )
        assert len(after.steps) == 2
    finally:
        process.close()
    assert not feeder.in_flight
    for i in range(len(PROMPTS)):
        mine = [r for r in replies if r.tag == i]
        assert isinstance(mine[0], ClassStarted) and isinstance(mine[-1], ClassEnded) and mine[-1].failure is None
        steps = [r for r in mine if isinstance(r, ClassStep)]
        assert [s.step.sampling.chosen.id for s in steps] == alone(shared_engine, i)
        assert steps[0].rows == 1  # the prompt is read alone
    widest = max(r.rows for r in replies if isinstance(r, ClassStep))
    assert widest == 4  # four requests decoded in one pass
    assert not [r for r in replies if isinstance(r, ClassStep) and r.rows > 4]


@pytest.fixture
def controller(qtbot, shared_engine):
    c = EngineController(lambda: shared_engine)
    with wait_event(qtbot, c, ModelReady, timeout=60_000):
        c.load_model()
    yield c
    c.shutdown()


def all_ended(queue: ClassQueue) -> bool:
    return all(life.state in (State.DONE, State.FAILED) for life in queue.lives())


def test_the_worker_serves_the_queue_in_batches(qtbot, controller, shared_engine):
    controller.set_class_settings(SamplingSettings(temperature=0.0, max_new_tokens=5))
    queue = ClassQueue()
    for i, text in enumerate(PROMPTS):
        queue.submit(f"phone {i}", text)
    controller.serve_class(queue, 4)
    qtbot.waitUntil(lambda: all_ended(queue), timeout=120_000)
    lives = queue.lives()
    for life in lives:
        assert life.state is State.DONE and life.trace is not None
        assert life.started is not None and life.prefill_started is not None and life.done is not None
        assert life.arrived <= life.started <= life.prefill_started <= life.token_times[0] <= life.done
        assert len(life.token_times) == len(life.passes) == len(life.trace.steps)
        solo = shared_engine.generate(life.text, SamplingSettings(temperature=0.0, max_new_tokens=5), chat=CLASS_CHAT)
        assert [s.sampling.chosen.id for s in life.trace.steps] == [s.sampling.chosen.id for s in solo.steps]
        assert life.output and life.ttft_s is not None and life.tpot_s is not None
    # the first four shared their passes, the last two theirs once slots were free
    assert set(queue.partners(1)) >= {2, 3, 4}
    assert 6 in queue.partners(5)


def test_the_instructors_run_waits_for_the_batch_to_drain(qtbot, controller):
    controller.set_class_settings(SamplingSettings(temperature=0.0, max_new_tokens=8))
    queue = ClassQueue()
    for i, text in enumerate(PROMPTS):
        queue.submit(f"phone {i}", text)
    shown: list[float] = []
    controller.on(GenerationFinished, lambda _e: shown.append(time.monotonic()))  # the queue's clock
    controller.serve_class(queue, 2)
    qtbot.waitUntil(lambda: (life := queue.life(1)) is not None and life.state is State.RUNNING, timeout=60_000)
    controller.generate(GenerationRequest("The capital of France is", SamplingSettings(max_new_tokens=3)))
    qtbot.waitUntil(lambda: all_ended(queue) and len(shown) == 1, timeout=120_000)
    lives = queue.lives()
    assert all(life.state is State.DONE for life in lives)
    # admitting stopped when it was asked: the requests still waiting then started after it
    started = [life.started for life in lives if life.started is not None]
    assert len(started) == len(lives)
    assert sum(at > shown[0] for at in started) >= 2
    first_done = lives[0].done
    assert first_done is not None and first_done < shown[0]
