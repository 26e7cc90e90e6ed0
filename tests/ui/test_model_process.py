"""The app's model runs in a process of its own (inference/process.py): what it answers is what
the same engine answers in this process, a stop and a lost process are said clearly, and the
window's process never imports the model's libraries."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest

from explainer.engine.sampler import SamplingSettings
from explainer.errors import Cancelled, ExplainerError
from explainer.inference.events import Failed, GenerationFinished
from explainer.inference.process import ENGINE_NICENESS, ModelProcess, ModelProcessLost, spawn
from explainer.inference.runner import InProcess
from tests.ui.helpers import click, last_line_of_fresh_python, type_into, wait_event

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model_process(built_model):
    process = ModelProcess(built_model.name)
    yield process
    process.close()


def _never() -> bool:
    return False


def _quietly(process, prompt: str, tokens: int, temperature: float = 1.0):
    """A run with nobody listening to its steps."""
    settings = SamplingSettings(temperature=temperature, max_new_tokens=tokens)
    return process.generate(prompt, settings, False, lambda t, s: None, _never, lambda r, t: None)


def test_the_process_answers_as_the_engine_here_does(model_process, shared_engine):
    settings = SamplingSettings(temperature=0.8, top_k=20, seed=7, max_new_tokens=6)
    seen: list[int] = []
    reading: list[tuple[int, int]] = []
    there = model_process.generate(
        "The capital of France is",
        settings,
        False,
        on_step=lambda trace, step: seen.append(len(trace.steps)),
        should_stop=_never,
        on_progress=lambda read, total: reading.append((read, total)),
    )
    here = shared_engine.generate("The capital of France is", settings, chat=False, lens=True)
    assert seen == list(range(1, len(there.steps) + 1)), "every step is passed on as it is made"
    assert reading and reading[-1][0] == reading[-1][1] == len(there.prompt_tokens)
    assert there.stop_reason == here.stop_reason
    assert there.prompt_tokens == here.prompt_tokens
    assert [s.sampling.chosen for s in there.steps] == [s.sampling.chosen for s in here.steps]
    for a, b in zip(there.steps, here.steps, strict=True):
        np.testing.assert_allclose(a.logits, b.logits, atol=1e-5)
        assert a.layers is not None and b.layers is not None and a.layers.lens_ids is not None
        np.testing.assert_array_equal(a.layers.lens_ids, b.layers.lens_ids)  # the guesses came whole


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads each thread's nice value from /proc (Linux)")
def test_every_thread_of_the_model_runs_below_the_window(model_process):
    """The window's GUI thread gets a CPU the moment it wakes, however busy the model is: every
    thread of the model's process (ONNX Runtime's included, made after its start) has a nice
    value at least ENGINE_NICENESS above the window's."""
    _quietly(model_process, "The capital of France is", 2)  # (its threads have all run)
    nice = _nice_by_thread(model_process.pid)
    # (the thread that hashes the weights puts itself lower still: model/changed.py)
    assert len(nice) >= 2 and min(nice.values()) == _below_the_window(), nice


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads each thread's nice value from /proc (Linux)")
def test_the_model_process_is_below_the_window_from_its_start(built_model):
    """Its start too (a fresh interpreter importing the engine and loading the model, most of a
    second of CPU while the window fills in) runs below the window, not only what comes after."""
    proc, *pipes = spawn(built_model.name)
    assert proc.pid is not None  # spawn returns it started
    try:
        nice = _nice_by_thread(proc.pid)  # at once: the child has not begun its imports
    finally:
        proc.kill()
        proc.join()
        for pipe in pipes:
            pipe.close()
    assert set(nice.values()) == {_below_the_window()}, nice


def _nice_by_thread(pid: int) -> dict[str, int]:
    nice = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        nice[task.name] = int(fields[16])  # (stat's 19th field; fields[0] is its 3rd)
    return nice


def _below_the_window() -> int:
    return min(19, os.getpriority(os.PRIO_PROCESS, 0) + ENGINE_NICENESS)


def test_its_labels_name_every_token_as_the_window_would(model_process, shared_engine):
    described = model_process.describe()
    assert described.labels == InProcess(shared_engine).describe().labels
    assert len(described.labels) == shared_engine.config["vocab_size"]
    assert described.provider == shared_engine.runtime.provider
    assert described.info.name == shared_engine.model_info().name


def test_a_branch_runs_there_and_says_whose_token_it_took(model_process, shared_engine):
    original = _quietly(model_process, "Once upon a time", 4, temperature=0.0)
    other = int(original.steps[1].sampling.raw.ids[3])  # not the model's own pick
    branch = model_process.continue_from(original, 1, other, _never)
    assert branch.branch is not None and branch.branch.step == 1
    assert branch.steps[1].sampling.chosen.id == other
    assert branch.steps[0].sampling.chosen == original.steps[0].sampling.chosen


def test_a_stop_ends_the_run_and_the_next_one_runs(model_process):
    asked: list[int] = []

    def stop_after_two_steps() -> bool:
        return len(asked) >= 2

    with pytest.raises(Cancelled):
        model_process.generate(
            "Once upon a time",
            SamplingSettings(temperature=0.0, max_new_tokens=200),
            False,
            lambda trace, step: asked.append(step.index),
            stop_after_two_steps,
            lambda r, t: None,
        )
    assert len(asked) < 200
    again = model_process.generate(
        "Hello", SamplingSettings(max_new_tokens=2), False, lambda t, s: None, _never, lambda r, t: None
    )
    assert len(again.steps) == 2


def test_a_killed_process_is_said_plainly(built_model):
    process = ModelProcess(built_model.name)
    assert process.pid is not None and process.pid != os.getpid()
    os.kill(process.pid, signal.SIGKILL)
    with pytest.raises(ModelProcessLost) as lost:
        process.generate(
            "Hello", SamplingSettings(max_new_tokens=2), False, lambda t, s: None, _never, lambda r, t: None
        )
    assert "signal 9" in lost.value.message and "memory" in lost.value.message
    assert "Generate" in lost.value.hint


def test_a_model_that_is_not_built_is_the_usual_message(tmp_path, monkeypatch):
    from explainer.model import paths

    monkeypatch.setattr(paths, "_override", tmp_path)
    with pytest.raises(ExplainerError) as missing:
        ModelProcess("smollm2-135m-instruct")
    assert "not built" in missing.value.message


def test_closing_during_a_load_ends_the_process_at_once(built_model):
    start = time.perf_counter()
    with pytest.raises(Cancelled):
        ModelProcess(built_model.name, give_up=lambda: time.perf_counter() - start > 0.2)
    print(f"gave up after {time.perf_counter() - start:.2f} s")  # a figure, not asserted


def test_the_window_lost_model_is_reported_and_started_again(qtbot, make_window, built_model):
    """The window's own path: a killed model is an error in the window, and Generate starts it
    again."""
    w = make_window()  # the default: the model in its process
    type_into(qtbot, w.prompt, "Hello")
    type_into(qtbot, w.sampling.max_new_tokens, "3")
    with wait_event(qtbot, w.controller, GenerationFinished, timeout=60_000):
        click(qtbot, w.generate_button)
    engine = w.controller._worker.engine
    assert isinstance(engine, ModelProcess)
    assert engine.pid is not None
    os.kill(engine.pid, signal.SIGKILL)
    with wait_event(qtbot, w.controller, Failed, timeout=60_000) as error:
        click(qtbot, w.generate_button)
    assert "model's process" in error.event.message
    # the worker says the run failed, then that it is idle: two signals, and the wait above ends
    # at the first (asserting at once failed in one CI run of about ten)
    qtbot.waitUntil(lambda: not w.controller.is_busy, timeout=5000)
    with wait_event(qtbot, w.controller, GenerationFinished, timeout=60_000):
        click(qtbot, w.generate_button)
    assert isinstance(w.controller._worker.engine, ModelProcess)
    assert w.controller._worker.engine.pid != engine.pid


# run in a fresh interpreter: this test process has imported everything already
WINDOW_RUNS = """
import json, os, sys
from PySide6.QtCore import QSettings, QTimer
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[1])
from explainer.ui.app import collect_later, make_app, open_window
from explainer.inference.requests import GenerationRequest
from explainer.engine.sampler import SamplingSettings
collect_later()
app = make_app(["explainer"])
from explainer.ui.main_window import MainWindow
from explainer.inference.events import Failed, GenerationFinished, ModelReady
window = MainWindow()
seen = {}
c = window.controller
c.on(ModelReady, lambda m: c.generate(GenerationRequest("Hello", SamplingSettings(max_new_tokens=3))))
def finished(trace):
    seen["steps"] = len(trace.steps)
    seen["model_pid"] = c._worker.engine.pid
    seen["modules"] = sorted({m.split(".")[0] for m in sys.modules})
    window.close()
c.on(GenerationFinished, lambda e: finished(e.trace))
c.on(Failed, lambda e: (seen.setdefault("error", e.message), window.close()))
open_window(window)
QTimer.singleShot(120000, window.close)
app.exec()
window.shutdown()
seen["pid"] = os.getpid()
print(json.dumps(seen))
"""


def test_the_window_process_never_loads_the_model_libraries(tmp_path, built_model):
    seen = json.loads(last_line_of_fresh_python(WINDOW_RUNS, str(tmp_path / "settings"), timeout=180))
    assert "error" not in seen, seen.get("error")
    assert seen["steps"] == 3
    assert seen["model_pid"] != seen["pid"]
    assert not {"onnxruntime", "tokenizers", "onnx", "gguf"} & set(seen["modules"])


def test_closing_the_window_while_the_model_loads_ends_its_process(qtbot, make_window, built_model):
    """The window does not wait for a load it no longer needs: the model's process is ended."""
    import multiprocessing

    before = set(multiprocessing.active_children())  # (this module's own process, for one)
    w = make_window(load=False)  # the default: the model in its process
    w.controller.load_model()
    qtbot.waitUntil(lambda: bool(set(multiprocessing.active_children()) - before), timeout=10_000)
    w.close()
    assert not w.controller.is_running
    assert set(multiprocessing.active_children()) - before == set()
