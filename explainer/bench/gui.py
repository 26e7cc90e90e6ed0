"""`explainer bench --gui`: how the window behaves while the model works, as one JSON object.

The real window (offscreen when there is no display) loads the model in the background, then
generates 64 tokens with animations on while Play follows the generation stage by stage.
Measured, never asserted:

- ``gui_max_block_ms``: the longest time the GUI thread did not get back to its event loop, from
  a 1 ms precise QTimer heartbeat (largest gap between two ticks, minus the 1 ms period), from
  the first paint to the end;
- ``fps``: frames of the diagram's viewport shown per second while the scene was animating,
  counted as 60 Hz display refreshes that got at least one new paint (two paints within one
  refresh are one frame on screen, so this cannot pass 60; ``paints_per_s`` counts them all);
- ``window_built_s``: from the same start to the moment the window is whole (it is built in
  turns of the event loop after its first paint, ui/build_in_turns.py);
- ``first_window_s``: from the start (``started``: the command passes the process's start, the
  OS's record of it, as a learner waits from the launch) to the end of the window's first
  complete paint, with the model loading in the background. A caller that ran before, such as
  a test session, times from its call instead: its process started long before the window;
- ``peak_rss_mb``: the window's process's peak resident memory, and
  ``model_process_peak_rss_mb`` the model's process's (inference/process.py).
"""

from __future__ import annotations

import gc
import resource
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QEventLoop, QMessageLogContext, QObject, Qt, QTimer, QtMsgType
from PySide6.QtWidgets import QApplication

from explainer.bench.memory import current_rss_mb, peak_rss_mb
from explainer.bench.screen import sizes, use_offscreen_screen
from explainer.bench.stalls import StallSampler
from explainer.model.manifest import DEFAULT_MODEL
from explainer.ui.app import collect_later, make_app, open_window

if TYPE_CHECKING:
    from explainer.engine.trace import Trace
    from explainer.inference.events import LoadedModel
    from explainer.ui.controller import EngineController
    from explainer.ui.main_window import MainWindow

PROMPT = "Once upon a time"
TOKENS = 64
AFTER_GENERATION_S = 4.0  # keep playing (animating) this long after the last token
TIMEOUT_S = 300.0
REFRESH_HZ = 60
PAUSE_MS = 300  # a person's pause between two actions: the model ready, the paste, Generate


class _Probe(QObject):
    """Counts the paints of the diagram's viewport."""

    def __init__(self, bench: _GuiBench) -> None:
        super().__init__()
        self.bench = bench

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.bench.on_paint()
        return False


class _GuiBench:
    def __init__(self, window: MainWindow, app: QApplication, tokens: int, prompt: str, started: float) -> None:
        self.window, self.app, self.tokens, self.prompt = window, app, tokens, prompt
        self.t_start = started
        self.first_paint_wall: float | None = None
        self.heartbeat_last: float | None = None
        self.max_gap = 0.0
        self.gaps: list[tuple[float, float]] = []  # (seconds since first paint, gap) over 16 ms
        self.heartbeat_start: float | None = None
        self.paints_animating = 0
        self.refreshes_painted: set[int] = set()
        self.paints_total = 0
        self.animating_s = 0.0
        self.frames_shown = 0
        self.result: dict[str, object] = {}
        self.rss_curve: list[list[float]] = []  # [tokens generated, resident MB], about 20 points
        self.finished_at: float | None = None
        self.generation_started: float | None = None
        self.probe = _Probe(self)
        self.stalls = StallSampler(threading.get_ident(), lambda: self.heartbeat_last)
        self.loop = QEventLoop()  # the run spins this until stop()

        self.heartbeat = QTimer()
        self.heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
        self.heartbeat.setInterval(1)
        self.heartbeat.timeout.connect(self.tick)
        self.deadline = QTimer()
        self.deadline.setSingleShot(True)
        self.deadline.timeout.connect(lambda: self.stop("timeout"))

    # --- measurement ------------------------------------------------------

    def on_paint(self) -> None:
        self.paints_total += 1
        if self.window.scene.is_animating():
            self.paints_animating += 1
            self.refreshes_painted.add(int(time.perf_counter() * REFRESH_HZ))

    def tick(self) -> None:
        now = time.perf_counter()
        if self.heartbeat_last is not None:
            gap = now - self.heartbeat_last
            self.max_gap = max(self.max_gap, gap)
            if gap > 0.017:
                self.gaps.append((self.heartbeat_last - (self.heartbeat_start or self.heartbeat_last), gap))
            if self.window.built and self.window.scene.is_animating():
                self.animating_s += gap
        self.heartbeat_last = now
        if self.finished_at is not None and (
            time.perf_counter() - self.finished_at > AFTER_GENERATION_S or not self.window.stepper.playing
        ):
            self.stop("done")

    def first_frame_done(self) -> None:
        self.first_paint_wall = time.time()
        self.heartbeat_last = self.heartbeat_start = time.perf_counter()
        self.heartbeat.start()
        self.stalls.start()

    # --- driving the window -------------------------------------------------

    def start(self) -> None:
        self.deadline.start(int(TIMEOUT_S * 1000))
        # as the app: the window's frame first, the rest in turns once it is painted, then the
        # model's load; the first frame is on screen once the pass that painted it is over,
        # which is timed before the rest is built
        open_window(self.window, painted=self.first_frame_done, ready=self.wire)

    def wire(self) -> None:
        """The window is whole: listen to it."""
        from explainer.inference.events import Failed, GenerationFinished, ModelMissing, ModelReady, StepReady

        self.result["window_built_s"] = time.time() - self.t_start
        w = self.window
        w.view.viewport().installEventFilter(self.probe)
        c = w.controller
        c.on(ModelReady, lambda e: self.on_model_ready(e.model))
        c.on(StepReady, lambda e: self.on_step(e.trace))
        c.on(GenerationFinished, lambda e: self.on_finished(e.trace))
        c.on(Failed, lambda e: self.stop(f"error: {e.message} ({e.hint})"))
        c.on(ModelMissing, lambda e: self.stop(f"error: {e.message}"))
        w.frame_shown.connect(lambda _c: setattr(self, "frames_shown", self.frames_shown + 1))
        w.stepper.set_dwell(0)  # animate continuously: next stage at once

    def on_model_ready(self, model: LoadedModel) -> None:
        self.result["model"] = model.info.name
        self.result["device"] = model.info.provider
        self.result["model_load_s"] = model.load_s
        # the prompt typed (or pasted) and Generate pressed each after a pause, as a learner does
        # them: a zero-delay call is posted, and Qt handled it in the same pass as the model's
        # arrival (or the paste's layout and paint), timing the two as one block no learner makes
        QTimer.singleShot(PAUSE_MS, self.fill_in)

    def fill_in(self) -> None:
        w = self.window
        w.prompt.setPlainText(self.prompt)
        w.controls.chat.setChecked(False)
        w.sampling.greedy.setChecked(True)
        w.sampling.max_new_tokens.setText(str(self.tokens))
        w.transport.set_speed(2.0)  # "Fast": more frames in the time the model takes
        QTimer.singleShot(PAUSE_MS, self.press_generate)

    def press_generate(self) -> None:
        self.generation_started = time.perf_counter()
        self.window.generate()

    def on_step(self, trace: Trace) -> None:
        n = len(trace.steps)
        if n == 1:  # Play pressed once the first frame is on screen: a press of its own, not in its turn
            QTimer.singleShot(PAUSE_MS, lambda: self.window.stepper.set_playing(True))
        if n == 1 or n % max(1, self.tokens // 20) == 0:
            self.rss_curve.append([n, round(current_rss_mb(), 1)])

    def on_finished(self, trace: Trace) -> None:
        self.finished_at = time.perf_counter()
        self.result["tokens"] = len(trace.steps)
        self.result["generation_s"] = self.finished_at - (self.generation_started or self.finished_at)
        self.result["ttft_s"] = trace.ttft_s
        self.result["tpot_s"] = trace.tpot_s

    def stop(self, why: str) -> None:
        if "status" in self.result:
            return
        self.result["status"] = why
        self.heartbeat.stop()
        self.stalls.stop()
        self.deadline.stop()
        self.window.close()
        self.loop.quit()

    def report(self) -> dict[str, object]:
        r = {
            "gui_max_block_ms": max(0.0, (self.max_gap - 0.001) * 1000),
            # where the long blocks were: the first window's layout and paint, the model arriving,
            # or the steady state of generating and animating
            "gui_blocks_over_16ms": len(self.gaps),
            "gui_max_block_after_first_second_ms": max(
                [(g - 0.001) * 1000 for t, g in self.gaps if t > 1.0], default=0.0
            ),
            "gui_blocks_over_16ms_at": [[round(t, 2), round((g - 0.001) * 1000)] for t, g in self.gaps[:40]],
            "fps": len(self.refreshes_painted) / self.animating_s if self.animating_s > 0 else None,
            "paints_per_s": self.paints_animating / self.animating_s if self.animating_s > 0 else None,
            "first_window_s": (self.first_paint_wall - self.t_start) if self.first_paint_wall else None,
            "peak_rss_mb": peak_rss_mb(),
            "model_process_peak_rss_mb": peak_rss_mb(resource.RUSAGE_CHILDREN),
            "rss_mb_by_tokens": self.rss_curve,
        }
        r["gui_late_where_ms"] = self.stalls.report()  # (bench/stalls.py: what the late heartbeats waited on)
        r.update(self.result)
        r.update(
            {
                "animating_s": self.animating_s,
                "frames_painted_animating": self.paints_animating,
                "frames_painted_total": self.paints_total,
                "stages_shown": self.frames_shown,
                "qt_platform": self.app.platformName(),
                **sizes(self.window),  # (closed, not deleted: its size is still the run's)
            }
        )
        return r


def _quiet_offscreen_noise() -> Any:
    """The offscreen plugin warns on every window size-hint change; the JSON is what matters.
    Returns the handler that was installed before (to put back)."""
    from PySide6.QtCore import qInstallMessageHandler

    previous = None

    def handler(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if "propagateSizeHints" in message:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            sys.stderr.write(message + "\n")

    previous = qInstallMessageHandler(handler)
    return previous


def run_gui_bench(
    model: str = DEFAULT_MODEL,
    device: str | None = None,
    tokens: int = TOKENS,
    prompt: str = PROMPT,
    started: float | None = None,
) -> dict[str, object]:
    """Measure the app on ``prompt`` (a long one: what the window costs at full context).
    ``started`` (a ``time.time()`` value) is where first_window_s counts from: the process's
    start for the command (:func:`explainer.bench.clock.process_start`), this call's moment by default."""
    started = time.time() if started is None else started
    use_offscreen_screen()
    previous_handler = _quiet_offscreen_noise()
    try:
        return _run(model, device, tokens, prompt, started)
    finally:
        from PySide6.QtCore import qInstallMessageHandler

        qInstallMessageHandler(previous_handler)
        gc.enable()  # (collect_later: a run that ended before the first paint)


def _run(model: str, device: str | None, tokens: int, prompt: str, started: float) -> dict[str, object]:
    collect_later()  # start up as `explainer` does (see run_app)
    app = make_app([sys.argv[0] if sys.argv else "explainer"])
    from explainer.ui.main_window import MainWindow

    def controller() -> EngineController:  # the app's own model process, on this model and device
        from explainer.inference.process import process_factory
        from explainer.ui.controller import EngineController

        return EngineController(model=model, model_factory=process_factory(device))

    window = MainWindow(controller, in_turns=True)
    bench = _GuiBench(window, app, tokens, prompt, started)
    bench.start()
    bench.loop.exec()
    window.shutdown()  # (ends the model's process: its peak memory is the children's now)
    return bench.report()
