"""`explainer bench --class N`: class mode under a lecture hall's load, as one JSON object.

The real window (offscreen when there is no display) loads the model, records a short run and
starts class mode on the loopback address; ``N`` simulated phones (bench/phones.py: real HTTP
and Server-Sent Events clients in a thread of their own) join the class page. Measured, never
asserted:

- ``votes``: the round of the run's second pass offered at its layers stage; every phone votes
  once at a random moment of one second. ``counted_share`` is the share of votes the projected
  panel counts in the end (must be 1.0); ``vote_to_projected_ms`` (median, p95) is from a vote
  leaving its phone to the first projected count that includes it (the server answers each vote
  with its place in the count, and the panel's count is recorded as it is shown);
  ``gui_max_block_ms`` the longest time the GUI thread did not get back to its event loop while
  the votes came (a 1 ms precise heartbeat, as `bench --gui` measures it), and
  ``gui_blocks_mostly_waiting`` the blocks of 16 ms or more in which the GUI thread was on the
  CPU for less than half the time (it waited for a core or for the interpreter's lock);
- ``queue``: ``QUEUED`` phones each send a prompt (one per phone, in order), held for approval
  (moderation on, as a lecture runs it) and approved by the instructor in bursts (``BURST`` every
  ``APPROVE_MS``, oldest first), served by the worker with up to 48 new tokens, at batch sizes 1
  (one at a time), 4 and 8 in turn (``batch_N``, and each one's throughput over batch 1's), the
  Lesson dock's Queue tab open (its timeline and list drawn as the instructor sees them);
  ``console_ms`` (median, p95, max) from a prompt leaving its phone to the presenter console
  listing it for approval; ``served_in_order`` (started in the order approved),
  ``lost`` (requests with no final answer on their phone), ``tokens_per_s`` over all requests,
  TTFT (the wait included) and TPOT, median and p95, and the GUI's longest block meanwhile;
  ``queue_view``: the Queue view's redraws meanwhile and its longest, in ms of the clock and of
  the GUI thread's CPU (the second is what other programs' load on the machine does not stretch);
- ``instructor_run``: the instructor's run before class mode (48 new tokens at most, the model
  alone): the peer of the class's TTFT and TPOT, measured in the same run;
- ``gui_late_where_ms``: where the GUI thread was while its heartbeat was late, over the whole
  bench (bench/stalls.py), the most sampled places first;
- ``peak_rss_mb``: the window's process's peak memory.

All the phones share 127.0.0.1, so the room's limits per address are raised for the simulation
(``LIMITS``): in a lecture each phone has its own address.
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal

from explainer.bench.memory import peak_rss_mb
from explainer.bench.phones import Answer, PhonesProcess, VoteSent
from explainer.bench.screen import use_offscreen_screen
from explainer.bench.stalls import StallSampler
from explainer.classroom.queue import ClassQueue
from explainer.classroom.room import Limits
from explainer.inference.events import Failed, GenerationFinished, ModelMissing, ModelReady
from explainer.model.manifest import DEFAULT_MODEL
from explainer.stages import Cursor, Stage
from explainer.ui.app import make_app, open_window
from explainer.ui.lesson.show_me import Section

if TYPE_CHECKING:
    from explainer.engine.trace import Trace
    from explainer.ui.main_window import MainWindow

PROMPT = "Once upon a time"
QUEUED = 40  # prompts the class sends
CLASS_BATCHES = (1, 4, 8)  # the queue served at each of these batch sizes in turn
QUESTION = "Write one sentence about the sea."
BURST = 8  # held prompts the instructor approves at once
APPROVE_MS = 500  # ... this often
LIMITS = Limits(phones_per_address=10_000, rate=100_000.0, burst=100_000.0)
TIMEOUT_S = 900.0


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class _Heartbeat(QObject):
    """The GUI thread's longest absence from its event loop, over the windows asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(1)
        self.timer.timeout.connect(self._tick)
        self.last: float | None = None
        self.last_cpu = 0.0
        self.gaps: list[tuple[float, float, float]] = []  # (when the gap ended, its length, the thread's CPU in it)

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        if self.last is not None and now - self.last > 0.002:
            self.gaps.append((now, now - self.last, cpu - self.last_cpu))
        self.last, self.last_cpu = now, cpu

    def figures(self, start: float, end: float) -> dict[str, float]:
        """The longest block in [start, end] in ms (the 1 ms period taken off), how many blocks
        reached a 60 Hz frame's 16 ms, and how many of those the GUI thread spent mostly off the
        CPU (under half of the block on it): waiting for a core or for Python's lock, which
        another thread or process held, not working."""
        inside = [(gap - 0.001, cpu) for at, gap, cpu in self.gaps if start <= at <= end + gap]
        long = [(gap, cpu) for gap, cpu in inside if gap >= 0.016]
        return {
            "gui_max_block_ms": round(max((gap for gap, _ in inside), default=0.0) * 1000, 1),
            "gui_blocks_16ms_or_more": len(long),
            "gui_blocks_mostly_waiting": sum(cpu < gap / 2 for gap, cpu in long),
        }


class _Gui(QObject):
    """Runs what the scenario thread asks in the GUI thread (a queued signal)."""

    asked = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.asked.connect(lambda call: call(), Qt.ConnectionType.QueuedConnection)

    def call(self, fn: Callable[[], Any], timeout: float = 60.0) -> Any:
        done = threading.Event()
        out: list[Any] = []

        def run() -> None:
            out.append(fn())
            done.set()

        self.asked.emit(run)
        if not done.wait(timeout):
            raise TimeoutError("the window did not answer")
        return out[0]


class _ClassBench:
    def __init__(self, window: MainWindow, phones_n: int) -> None:
        self.window, self.n = window, phones_n
        self.gui = _Gui()
        self.beat = _Heartbeat()
        self.stalls = StallSampler(threading.get_ident(), lambda: self.beat.last)
        self.loop = QEventLoop()
        self.result: dict[str, Any] = {"phones": phones_n}
        self.ready = threading.Event()
        self.run_done = threading.Event()
        self.projected: list[tuple[float, int]] = []  # (when shown, voted) as the panel shows counts
        self.listed: dict[int, float] = {}  # a held prompt's number -> when the console first listed it
        self.approver = QTimer()
        self.approver.setInterval(APPROVE_MS)
        self.approver.timeout.connect(self._approve_burst)

    def start(self) -> None:
        c = self.window.controller
        c.on(ModelReady, lambda e: self._loaded(e.model.info.name, e.model.info.provider))
        c.on(GenerationFinished, lambda e: self._run_finished(e.trace))
        c.on(Failed, lambda e: self.stop(f"error: {e.message}"))
        c.on(ModelMissing, lambda e: self.stop(f"error: {e.message}"))
        mode = self.window.class_mode
        mode.panel_changed.connect(lambda: self.projected.append((time.perf_counter(), mode.panel.state.voted)))
        open_window(self.window, painted=self._painted)
        QTimer.singleShot(int(TIMEOUT_S * 1000), lambda: self.stop("timeout"))

    def _painted(self) -> None:
        self.beat.timer.start()
        self.stalls.start()

    def _loaded(self, name: str, provider: str) -> None:
        self.result.update(model=name, device=provider)
        w = self.window
        w.prompt.setPlainText(PROMPT)
        w.controls.chat.setChecked(False)
        w.sampling.greedy.setChecked(True)
        w.sampling.max_new_tokens.setText("48")  # the class's requests: 48 new tokens at most
        self.ready.set()

    def _run_finished(self, trace: Trace) -> None:
        """The instructor's run, the peer of the class's: the same model alone, in this process."""
        self.result["instructor_run"] = {
            "tokens": len(trace.steps),
            "ttft_s": _round(trace.ttft_s),
            "tpot_s": _round(trace.tpot_s),
        }
        self.run_done.set()

    def stop(self, why: str) -> None:
        self.result.setdefault("status", why)
        self.stalls.stop()
        self.result["gui_late_where_ms"] = self.stalls.report()  # (bench/stalls.py: where the GUI thread was)
        self.approver.stop()
        self.window.class_mode.stop()
        self.window.close()
        self.loop.quit()

    # --- the scenario, in its own thread ----------------------------------------------------------

    def scenario(self) -> None:
        try:
            self._scenario()
            self.gui.asked.emit(lambda: self.stop("done"))
        except Exception as exc:  # noqa: BLE001 - a figure is not worth a hang: say it and stop
            why = f"error: {type(exc).__name__}: {exc}"
            self.gui.asked.emit(lambda: self.stop(why))

    def _scenario(self) -> None:
        if not self.ready.wait(TIMEOUT_S):
            raise TimeoutError("the model did not load")
        self.gui.call(self.window.generate)
        if not self.run_done.wait(TIMEOUT_S):
            raise TimeoutError("the instructor's run did not finish")
        mode = self.window.class_mode
        mode.moderated = True  # each prompt waits for the instructor, as in a lecture

        def open_console() -> None:
            self.window.registry["console"].trigger()  # (the console's lists are what is timed)
            view = self.window.console.view
            assert view is not None
            view.moderation.shown.connect(self._listed)

        listening = self.gui.call(lambda: mode.start("127.0.0.1", 0, limits=LIMITS))
        self.gui.call(open_console)
        phones = PhonesProcess(listening.url, self.n)
        try:
            self.result["joined"] = phones.join()
            self._votes(phones)
            self._queue(phones)
        finally:
            phones.close()

    def _votes(self, phones: PhonesProcess) -> None:
        mode = self.window.class_mode
        self.gui.call(lambda: self.window.stepper.show(Cursor(1, Stage.LAYERS)))
        offer = self.gui.call(lambda: mode.panel.state.offer)
        if offer is None:
            raise RuntimeError("no round was offered at the second pass's layers")
        deadline = time.perf_counter() + 10
        while phones.offered(offer.round_id) < self.result["joined"] and time.perf_counter() < deadline:
            time.sleep(0.05)
        start = time.perf_counter()
        votes = phones.vote(offer.round_id, len(offer.choices), within_s=1.0)
        time.sleep(0.5)  # the last counts are projected
        end = time.perf_counter()
        self.result["votes"] = self._vote_figures(votes, start, end)

    def _vote_figures(self, votes: list[VoteSent], start: float, end: float) -> dict[str, Any]:
        projected = list(self.projected)
        latencies = []
        for v in votes:
            if v.voted is None:
                continue
            shown = next((t for t, voted in projected if voted >= v.voted and t >= v.sent), None)
            if shown is not None:
                latencies.append((shown - v.sent) * 1000)
        final = max((voted for _t, voted in projected), default=0)
        return {
            "sent": len(votes),
            "counted_share": round(final / len(votes), 4) if votes else None,
            "vote_to_projected_ms": {
                "median": round(statistics.median(latencies), 1) if latencies else None,
                "p95": round(_pct(latencies, 0.95) or 0, 1) if latencies else None,
            },
            **self.beat.figures(start, end),
            "within_s": round(max(v.sent for v in votes) - min(v.sent for v in votes), 3) if votes else None,
        }

    def _listed(self, numbers: frozenset[int]) -> None:
        now = time.perf_counter()
        for n in numbers:
            self.listed.setdefault(n, now)

    def _approve_burst(self) -> None:
        """The instructor's approval: the oldest held prompts, a burst at a time."""
        queue = self.window.class_mode.queue
        if queue is None:
            return
        for life in queue.held()[:BURST]:
            queue.approve(life.number)

    def _queue(self, phones: PhonesProcess) -> None:
        """The same prompts served at each batch size in turn (CLASS_BATCHES), in one run."""
        mode = self.window.class_mode
        self.gui.call(self.approver.start)
        figures: dict[str, Any] = {}
        for size in CLASS_BATCHES:
            queue = mode.queue
            assert queue is not None

            def serve(q: ClassQueue = queue, n: int = size) -> None:
                self.window.controller.serve_class(q, n)
                self.window.lesson.dock.open_section(Section.QUEUE)  # (its timeline drawn, as the instructor sees it)

            self.gui.call(serve)
            self.gui.call(self._redraws_forgotten)
            figures[f"batch_{size}"] = self._queue_once(phones, len(queue.lives()))
            figures[f"batch_{size}"]["queue_view"] = self.gui.call(self._redraw_figures)
        one = figures["batch_1"]["tokens_per_s"]
        for size in CLASS_BATCHES[1:]:
            mine = figures[f"batch_{size}"]["tokens_per_s"]
            figures[f"throughput_ratio_{size}_vs_1"] = round(mine / one, 2) if one and mine else None
        self.result["queue"] = figures

    def _redraws_forgotten(self) -> None:
        view = self.window.queue_panel.view
        if view is not None:
            view.redraws, view.longest_redraw_s, view.longest_redraw_cpu_s = 0, 0.0, 0.0

    def _redraw_figures(self) -> dict[str, Any]:
        view = self.window.queue_panel.view
        if view is None:
            return {}
        return {
            "redraws": view.redraws,
            "longest_redraw_ms": round(view.longest_redraw_s * 1000, 1),
            "longest_redraw_cpu_ms": round(view.longest_redraw_cpu_s * 1000, 1),
        }

    def _queue_once(self, phones: PhonesProcess, first: int) -> dict[str, Any]:
        n = min(QUEUED, self.result["joined"])
        start = time.perf_counter()
        answers = phones.ask(n, QUESTION)
        deadline = start + TIMEOUT_S
        while any(a.done is None for a in answers if a.number is not None) and time.perf_counter() < deadline:
            time.sleep(0.5)
            answers = phones.answers()
        end = time.perf_counter()
        return self._queue_figures(answers, start, end, first)

    def _queue_figures(self, answers: list[Answer], start: float, end: float, first: int) -> dict[str, Any]:
        queue = self.window.class_mode.queue
        lives = queue.lives()[first:] if queue is not None else ()
        # in the order they joined the line (approved), each started after the one before
        started = [life.started for life in sorted(lives, key=lambda life: life.queued) if life.started is not None]
        listed = [(self.listed[a.number] - a.sent) * 1000 for a in answers if a.number in self.listed]
        done = [a.done for a in answers if a.done is not None]
        ttft = [d["ttft_s"] for d in done if d.get("ttft_s") is not None]
        tpot = [d["tpot_s"] for d in done if d.get("tpot_s") is not None]
        tokens = sum(int(d.get("tokens") or 0) for d in done)
        last = max((a.finished for a in answers if a.finished is not None), default=end)
        return {
            "sent": len(answers),
            "queued": sum(a.number is not None for a in answers),
            "refused": sum(a.number is None for a in answers),
            "served_in_order": started == sorted(started) and len(started) == len(lives),
            "lost": sum(a.done is None or a.done.get("state") != "done" for a in answers if a.number is not None),
            "tokens": tokens,
            "seconds": round(last - start, 2),
            "tokens_per_s": round(tokens / (last - start), 1) if last > start else None,
            "console_ms": {
                "median": round(statistics.median(listed), 1) if listed else None,
                "p95": round(_pct(listed, 0.95) or 0, 1) if listed else None,
                "max": round(max(listed), 1) if listed else None,
            },
            "ttft_s": {"median": _round(statistics.median(ttft)) if ttft else None, "p95": _round(_pct(ttft, 0.95))},
            "tpot_s": {"median": _round(statistics.median(tpot)) if tpot else None, "p95": _round(_pct(tpot, 0.95))},
            **self.beat.figures(start, end),
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def run_class_bench(phones: int, model: str = DEFAULT_MODEL, device: str | None = None) -> dict[str, Any]:
    use_offscreen_screen()
    app = make_app([sys.argv[0] if sys.argv else "explainer"])
    from explainer.inference.process import process_factory
    from explainer.ui.controller import EngineController
    from explainer.ui.main_window import MainWindow

    controller = EngineController(model=model, model_factory=process_factory(device))
    window = MainWindow(controller)
    bench = _ClassBench(window, phones)
    bench.start()
    driver = threading.Thread(target=bench.scenario, name="bench-class", daemon=True)
    driver.start()
    bench.loop.exec()
    window.shutdown()
    driver.join(5)
    del app
    return {**bench.result, "peak_rss_mb": round(peak_rss_mb(), 1)}
