"""Every message of inference/messages.py, spoken to the real model's process as the worker's
proxy speaks it: each request sent down the pipe, each reply read back with its fields typed as
the module says. ROUND_TRIPS names the test of each kind."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

import pytest

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import ModelInfo, Step, Trace
from explainer.inference import messages as m
from explainer.inference.process import spawn

pytestmark = pytest.mark.slow

PARIS = "The capital of France is"
ANSWER_S = 120  # a guard against a child that never answers, not a measurement
ENDS = (m.RunEnded, m.RunStopped, m.RunFailed, m.RunCrashed)


@dataclasses.dataclass
class Child:
    """The model's process as spawn() starts it, and what it said while it loaded."""

    proc: BaseProcess
    conn: Connection
    stop: Connection
    weights: Connection
    loaded: list[m.Reply]

    def send(self, request: m.Request) -> None:
        self.conn.send(request)

    def reply(self) -> m.Reply:
        assert self.conn.poll(ANSWER_S), "the model's process did not answer"
        reply: m.Reply = self.conn.recv()
        return reply

    def run(self, request: m.Generate | m.Continue) -> list[m.Reply]:
        """Send a run and read its replies up to the one that ends it."""
        self.send(request)
        replies = [self.reply()]
        while not isinstance(replies[-1], ENDS):
            replies.append(self.reply())
        return replies


def _start(name: str) -> Child:
    proc, conn, stop, weights = spawn(name)
    child = Child(proc, conn, stop, weights, [])
    child.loaded.append(child.reply())
    if isinstance(child.loaded[0], m.Loaded):
        labels = 0
        while labels < child.loaded[0].label_count:
            chunk = child.reply()
            assert isinstance(chunk, m.Labels)
            child.loaded.append(chunk)
            labels += len(chunk.labels)
    return child


def _end(child: Child) -> int | None:
    child.send(m.Close())
    child.proc.join(ANSWER_S)
    child.conn.close()
    child.stop.close()
    child.weights.close()
    return child.proc.exitcode


@pytest.fixture(scope="module")
def child(built_model) -> Iterator[Child]:
    c = _start(built_model.name)
    yield c
    _end(c)


def _trace_of(replies: list[m.Reply]) -> Trace:
    """The run as the parent rebuilds it: the fixed part of the first step, the steps, the end."""
    steps = [r for r in replies if isinstance(r, m.StepMade)]
    assert steps and steps[0].fixed is not None and all(s.fixed is None for s in steps[1:])
    trace = steps[0].fixed
    trace.steps = [s.step for s in steps]
    end = replies[-1]
    assert isinstance(end, m.RunEnded)
    trace.stop_reason = end.stop_reason
    return trace


def test_the_load_says_loaded_then_every_label_in_chunks(child, real_engine):
    loaded, *chunks = child.loaded
    assert isinstance(loaded, m.Loaded)
    assert isinstance(loaded.info, ModelInfo) and loaded.info.name == real_engine.model_info().name
    assert loaded.provider == real_engine.runtime.provider and loaded.load_s > 0
    labels = [label for chunk in chunks for label in chunk.labels]
    assert len(labels) == loaded.label_count == real_engine.config["vocab_size"]
    assert all(isinstance(chunk, m.Labels) and isinstance(chunk.labels, tuple) for chunk in chunks)


def test_a_generate_is_answered_by_the_prompt_read_each_step_and_why_it_ended(child):
    replies = child.run(m.Generate(PARIS, SamplingSettings(temperature=0.0, max_new_tokens=3), False))
    read = [r for r in replies if isinstance(r, m.PromptRead)]
    assert read and read[-1].read == read[-1].total > 0
    trace = _trace_of(replies)
    assert trace.prompt == PARIS and len(trace.prompt_tokens) == read[-1].total
    assert [s.index for s in trace.steps] == [0, 1, 2] and all(isinstance(s, Step) for s in trace.steps)
    assert trace.stop_reason == "max_tokens"
    assert trace.steps[0].sampling.chosen.text == " Paris"


def test_a_continue_is_answered_by_the_branch_steps_and_its_end(child):
    original = _trace_of(child.run(m.Generate(PARIS, SamplingSettings(temperature=0.0, max_new_tokens=3), False)))
    other = int(original.steps[1].sampling.raw.ids[2])  # not the model's own pick
    branch = _trace_of(child.run(m.Continue(original, 1, other)))
    assert branch.branch is not None and branch.branch.step == 1
    assert branch.steps[1].sampling.chosen.id == other


def test_a_stop_during_a_run_is_answered_run_stopped_and_the_next_run_runs(child):
    child.send(m.Generate("Once upon a time", SamplingSettings(max_new_tokens=500), False))
    while not isinstance(child.reply(), m.StepMade):
        pass
    child.stop.send_bytes(b"stop")
    while not isinstance(last := child.reply(), ENDS):
        assert isinstance(last, m.StepMade | m.PromptRead)
    assert isinstance(last, m.RunStopped)
    again = child.run(m.Generate(PARIS, SamplingSettings(max_new_tokens=1), False))
    assert isinstance(again[-1], m.RunEnded), "a stop sent for the last run does not stop the next"


def test_a_learners_mistake_is_answered_run_failed_with_words_for_them(child):
    replies = child.run(m.Generate("", SamplingSettings(max_new_tokens=2), False))
    assert isinstance(replies[-1], m.RunFailed)
    assert replies[-1].message == "the prompt is empty" and replies[-1].hint


def test_a_bug_in_the_process_is_answered_run_crashed_and_it_keeps_serving(child):
    replies = child.run(m.Generate(PARIS, None, False))  # type: ignore[arg-type]  # no settings: a request no caller makes
    assert isinstance(replies[-1], m.RunCrashed) and "AttributeError" in replies[-1].what
    assert isinstance(child.run(m.Generate(PARIS, SamplingSettings(max_new_tokens=1), False))[-1], m.RunEnded)


def test_close_ends_the_process_cleanly(built_model):
    assert _end(_start(built_model.name)) == 0


def test_a_model_that_cannot_load_is_answered_load_failed_and_the_process_ends():
    child = _start("no-such-model-here")
    failed = child.loaded[0]
    assert isinstance(failed, m.LoadFailed) and failed.message and failed.hint
    child.proc.join(ANSWER_S)
    assert child.proc.exitcode == 0


def test_a_class_batch_answers_each_admitted_request_tagged_then_batch_done(child):
    settings = SamplingSettings(temperature=0.0, max_new_tokens=3)
    child.send(m.ClassBatch(2, False))
    for tag, prompt in [(1, PARIS), (2, "Hello"), (3, ""), (4, "One, two,")]:
        child.send(m.Admit(tag, prompt, settings))
    child.send(m.EndBatch())
    replies = [child.reply()]
    while not isinstance(replies[-1], m.BatchDone):
        replies.append(child.reply())
    for tag in (1, 2, 4):
        mine = [r for r in replies if not isinstance(r, m.BatchDone) and r.tag == tag]
        assert isinstance(mine[0], m.ClassStarted) and mine[0].prompt_tokens >= 1
        steps = [r for r in mine[1:-1] if isinstance(r, m.ClassStep)]
        assert [s.step.index for s in steps] == [0, 1, 2] and isinstance(steps[0].fixed, Trace)
        assert steps[0].rows == 1 and all(s.fixed is None for s in steps[1:])
        assert mine[-1] == m.ClassEnded(tag, "max_tokens", None)
    assert next(r for r in replies if isinstance(r, m.ClassEnded) and r.tag == 3).failure  # an empty prompt
    assert max(r.rows for r in replies if isinstance(r, m.ClassStep)) == 2  # two decoded together, no more
    assert isinstance(child.run(m.Generate(PARIS, SamplingSettings(max_new_tokens=1), False))[-1], m.RunEnded)


def _weights_checked(child: Child) -> m.WeightsChecked:
    assert child.weights.poll(ANSWER_S), "the model's process did not say what its hash found"
    reply = child.weights.recv()
    assert isinstance(reply, m.WeightsChecked)
    return reply


def test_once_loaded_it_hashes_the_weights_and_says_so_on_their_own_pipe(built_model, tmp_path, monkeypatch):
    from explainer.model import paths
    from tests.support.models import copy_with_a_flipped_bit

    child = _start(built_model.name)  # the model as built: every file matches
    assert _weights_checked(child) == m.WeightsChecked((), "")
    assert _end(child) == 0
    copy_with_a_flipped_bit(built_model, tmp_path / "cache")  # one bit of model.onnx.data flipped
    monkeypatch.setattr(paths, "_override", tmp_path / "cache")  # (spawn gives the child this cache)
    child = _start(built_model.name)
    assert _weights_checked(child) == m.WeightsChecked(("model.onnx.data",), "explainer model build --force")
    assert isinstance(child.run(m.Generate(PARIS, SamplingSettings(max_new_tokens=1), False))[-1], m.RunEnded)
    assert _end(child) == 0


# which test above makes the round trip of each kind: a kind added to messages.py needs a row
ROUND_TRIPS = {
    m.Generate: test_a_generate_is_answered_by_the_prompt_read_each_step_and_why_it_ended,
    m.Continue: test_a_continue_is_answered_by_the_branch_steps_and_its_end,
    m.Close: test_close_ends_the_process_cleanly,
    m.Loaded: test_the_load_says_loaded_then_every_label_in_chunks,
    m.Labels: test_the_load_says_loaded_then_every_label_in_chunks,
    m.LoadFailed: test_a_model_that_cannot_load_is_answered_load_failed_and_the_process_ends,
    m.PromptRead: test_a_generate_is_answered_by_the_prompt_read_each_step_and_why_it_ended,
    m.StepMade: test_a_generate_is_answered_by_the_prompt_read_each_step_and_why_it_ended,
    m.RunEnded: test_a_generate_is_answered_by_the_prompt_read_each_step_and_why_it_ended,
    m.RunStopped: test_a_stop_during_a_run_is_answered_run_stopped_and_the_next_run_runs,
    m.RunFailed: test_a_learners_mistake_is_answered_run_failed_with_words_for_them,
    m.RunCrashed: test_a_bug_in_the_process_is_answered_run_crashed_and_it_keeps_serving,
    m.WeightsChecked: test_once_loaded_it_hashes_the_weights_and_says_so_on_their_own_pipe,
    **dict.fromkeys(
        (m.ClassBatch, m.Admit, m.EndBatch, m.ClassStarted, m.ClassStep, m.ClassEnded, m.BatchDone),
        test_a_class_batch_answers_each_admitted_request_tagged_then_batch_done,
    ),
}
KINDS = set(typing.get_args(m.Request)) | set(typing.get_args(m.Reply)) | set(typing.get_args(m.BatchMessage))


def test_every_message_kind_has_a_round_trip_above():
    assert set(ROUND_TRIPS) == KINDS, set(ROUND_TRIPS) ^ KINDS


def test_every_message_is_a_frozen_slotted_dataclass():
    for kind in KINDS:
        params = kind.__dataclass_params__
        assert params.frozen and hasattr(kind, "__slots__"), kind
