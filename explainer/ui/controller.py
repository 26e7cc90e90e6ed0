"""The controller between the window and the engine: one worker thread, signals both ways.

Why a worker QObject in a QThread: loading the model takes seconds and every forward pass tens of
milliseconds; on the GUI thread either would freeze the window. The window only ever calls the
controller's methods (which queue requests to the worker) and listens to its signals; the GUI
thread never touches the engine.

Requests are served in order by the worker's event loop, so "generate" sent while the model is
still loading simply waits for the load. Each generation gets an id; `cancel()` and a newer
`generate()` make older ids stale, which both stops the running loop (the engine checks
`should_stop` before every pass) and drops any of its signals still in flight.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QThread, Signal, Slot

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import ModelInfo, Trace
from explainer.errors import ExplainerError

if TYPE_CHECKING:
    from explainer.engine.generate import Engine

EngineFactory = Callable[[], "Engine"]


@dataclass(frozen=True)
class GenerationRequest:
    """One press of Generate: what the worker runs."""

    prompt: str
    settings: SamplingSettings
    chat: bool = False


@dataclass(frozen=True)
class LoadedModel:
    """A model the worker has loaded: what the window shows about it."""

    info: ModelInfo
    provider: str  # what ONNX Runtime really runs on, e.g. CPUExecutionProvider
    load_s: float
    vocabulary: tuple[str, ...]  # every token id's label, to name candidate tokens


class Activity(enum.Enum):
    """What the worker is doing; the value is the key of app.json's ``activity`` section that says
    it in the status bar (the window looks it up; IDLE says nothing)."""

    IDLE = ""
    LOADING = "loading"
    BUILDING = "building"
    GENERATING = "generating"


PROGRESS_INTERVAL_S = 0.05  # at most ~20 build progress signals a second


class _StopBuildError(Exception):
    """Raised from the build progress callback to abandon a build on shutdown."""


def snapshot(trace: Trace) -> Trace:
    """A copy of the trace that the worker will not change any more (steps are never mutated
    after they are appended; only the list grows and stop_reason is set at the end)."""
    return dataclasses.replace(trace, steps=list(trace.steps))


def app_threads() -> int:
    """CPU threads for the model in the app: all cores but one, which stays with the GUI.

    With every core busy in a forward pass, the GUI thread waited for a core for up to
    150 ms at a time on a 2-core machine; the animation must not stutter for the model."""
    return max(1, (os.cpu_count() or 2) - 1)


def default_engine_factory() -> Engine:
    from explainer.engine.generate import Engine
    from explainer.model.build import load_built

    return Engine(load_built(), threads=app_threads())


def loaded_model(engine: Engine, load_s: float) -> LoadedModel:
    """What the window needs of a loaded engine. Every token's label is built here, in the
    worker (a quarter second), so the diagram can name candidate tokens without the GUI thread
    touching the engine's tokenizer."""
    from explainer.illustration.vocab import display_piece

    tok = engine.tokenizer
    labels = tuple(display_piece(tok, i) for i in range(int(engine.config["vocab_size"])))
    return LoadedModel(engine.model_info(), engine.runtime.provider, load_s, labels)


class _Worker(QObject):
    """Lives in the worker thread; every slot runs there."""

    loading = Signal()
    ready = Signal(object)  # LoadedModel
    missing = Signal(str, str)
    progress = Signal(str, float)
    reading = Signal(int, int, int)  # generation id, prompt tokens read so far, prompt tokens in all
    step = Signal(int, object)  # generation id, Trace snapshot
    finished = Signal(int, object)  # generation id, the complete Trace
    cancelled = Signal(int)
    failed = Signal(int, str, str)  # generation id (-1: not a generation), message, hint
    busy = Signal(object)  # Activity

    def __init__(self, controller: EngineController, factory: EngineFactory) -> None:
        super().__init__()
        self._controller = controller  # read-only from here: gen id and the closing flag
        self._factory = factory
        self.engine: Engine | None = None
        self._loaded: LoadedModel | None = None

    # --- helpers ---------------------------------------------------------

    def _closing(self) -> bool:
        return self._controller._closing

    def _ensure_engine(self, gid: int = -1) -> bool:
        """Load the engine if needed; False (after signalling why) if it cannot be loaded."""
        if self.engine is not None:
            return True
        from explainer.model.build import load_built

        self.busy.emit(Activity.LOADING)
        self.loading.emit()
        t0 = time.perf_counter()
        try:
            if self._factory is default_engine_factory:
                try:
                    load_built()  # missing or broken files: an offer to build, not a crash
                except ExplainerError as exc:
                    self.missing.emit(exc.message, exc.hint)
                    return False
            self.engine = self._factory()
        except ExplainerError as exc:
            self.failed.emit(gid, exc.message, exc.hint)
            return False
        except Exception as exc:  # noqa: BLE001 - any load failure is shown, the app keeps running
            traceback.print_exc()
            self.failed.emit(
                gid,
                f"the model could not be loaded ({type(exc).__name__}: {exc})",
                "rebuild it with `explainer model build --force`, or from the app",
            )
            return False
        finally:
            self.busy.emit(Activity.IDLE)
        self._loaded = loaded_model(self.engine, time.perf_counter() - t0)
        self.ready.emit(self._loaded)
        return True

    # --- slots (queued from the controller) --------------------------------

    @Slot()
    def load(self) -> None:
        if self._closing():
            return
        if self._loaded is not None:
            self.ready.emit(self._loaded)
            return
        self._ensure_engine()

    @Slot()
    def build(self) -> None:
        if self._closing():
            return
        from explainer.model.build import build_model

        last_time, last_phase = [0.0], [""]

        def progress(phase: str, fraction: float) -> None:
            if self._closing():
                raise _StopBuildError()
            now = time.monotonic()
            if phase != last_phase[0] or fraction >= 1.0 or now - last_time[0] >= PROGRESS_INTERVAL_S:
                last_time[0], last_phase[0] = now, phase
                self.progress.emit(str(phase), float(fraction))

        self.busy.emit(Activity.BUILDING)
        try:
            build_model(progress=progress)
        except _StopBuildError:
            return
        except ExplainerError as exc:
            self.failed.emit(-1, exc.message, exc.hint)
            return
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc()
            self.failed.emit(
                -1,
                f"building the model failed ({type(exc).__name__}: {exc})",
                "check the network and disk space, then try again",
            )
            return
        finally:
            self.busy.emit(Activity.IDLE)
        self.engine, self._loaded = None, None
        self._ensure_engine()

    @Slot(int, object)
    def generate(self, gid: int, request: GenerationRequest) -> None:
        def stale() -> bool:
            return self._closing() or gid != self._controller._gen_id

        if stale():
            self.cancelled.emit(gid)
            return
        if not self._ensure_engine(gid):
            if self.engine is None and not self._closing():
                self.failed.emit(
                    gid,
                    "there is no model to run yet, so nothing was generated",
                    "build it with “Build the model now” (below), then press Generate again",
                )
            return
        from explainer.engine.generate import Cancelled

        engine = self.engine
        assert engine is not None
        self.busy.emit(Activity.GENERATING)
        try:
            trace = engine.generate(
                request.prompt,
                request.settings,
                chat=request.chat,
                lens=True,
                on_step=lambda tr, st: self.step.emit(gid, snapshot(tr)),
                should_stop=stale,
                on_progress=lambda read, total: self.reading.emit(gid, read, total),
            )
        except Cancelled:
            self.cancelled.emit(gid)
        except ExplainerError as exc:
            self.failed.emit(gid, exc.message, exc.hint)
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc()
            self.failed.emit(
                gid,
                f"generation failed ({type(exc).__name__}: {exc})",
                "this is a bug in explainer; please report it with the prompt you used",
            )
        else:
            self.finished.emit(gid, snapshot(trace))
        finally:
            self.busy.emit(Activity.IDLE)


class EngineController(QObject):
    """The GUI thread's handle on the engine. See the module docstring."""

    model_loading = Signal()
    model_ready = Signal(object)  # LoadedModel
    model_missing = Signal(str)
    build_progress = Signal(str, float)
    prompt_progress = Signal(int, int)  # prompt tokens read, in all: a long prefill, chunk by chunk
    step_ready = Signal(object)  # Trace snapshot after every step
    generation_finished = Signal(object)  # the complete Trace
    generation_cancelled = Signal()
    error = Signal(str, str)  # message, hint
    busy_changed = Signal(bool)
    activity_changed = Signal(object)  # Activity

    # internal: queued into the worker thread
    _do_load = Signal()
    _do_build = Signal()
    _do_generate = Signal(int, object)  # generation id, GenerationRequest

    def __init__(self, engine_factory: EngineFactory | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._gen_id = 0
        self._closing = False
        self.activity = Activity.IDLE
        self.model: LoadedModel | None = None
        self._thread = QThread()
        self._thread.setObjectName("explainer-engine")
        self._worker = _Worker(self, engine_factory or default_engine_factory)
        self._worker.moveToThread(self._thread)
        w = self._worker
        self._do_load.connect(w.load)
        self._do_build.connect(w.build)
        self._do_generate.connect(w.generate)
        w.loading.connect(self.model_loading)
        w.ready.connect(self._on_ready)
        w.missing.connect(self._on_missing)
        w.progress.connect(self._on_progress)
        w.reading.connect(self._on_reading)
        w.step.connect(self._on_step)
        w.finished.connect(self._on_finished)
        w.cancelled.connect(self._on_cancelled)
        w.failed.connect(self._on_failed)
        w.busy.connect(self._on_busy)
        self._thread.start()

    # --- requests ----------------------------------------------------------

    def load_model(self) -> None:
        if not self._closing:
            self._do_load.emit()

    def build_model(self) -> None:
        if not self._closing:
            self._do_build.emit()

    def generate(self, request: GenerationRequest) -> int:
        """Start a generation (cancelling any running one); returns its id."""
        if self._closing:
            return -1
        self._gen_id += 1
        self._do_generate.emit(self._gen_id, request)
        return self._gen_id

    def cancel(self) -> None:
        """Stop the running generation at its next step; its remaining signals are dropped."""
        self._gen_id += 1

    def shutdown(self) -> None:
        """Stop any generation, let a running job end, and join the thread (idempotent).

        A generation stops within one forward pass; a model load in progress (a few seconds)
        cannot be interrupted and is waited for."""
        if self._closing:
            return
        self._closing = True
        self._gen_id += 1
        self._thread.quit()
        self._thread.wait()
        self._worker.engine = None
        if self.activity is not Activity.IDLE:
            self.activity = Activity.IDLE
            self.busy_changed.emit(False)

    # --- state -------------------------------------------------------------

    @property
    def is_busy(self) -> bool:
        return self.activity is not Activity.IDLE

    @property
    def is_running(self) -> bool:
        return self._thread.isRunning()

    @property
    def generating(self) -> bool:
        return self.activity is Activity.GENERATING

    # --- relays from the worker (GUI thread) ---------------------------------

    def _on_ready(self, model: LoadedModel) -> None:
        self.model = model
        if not self._closing:
            self.model_ready.emit(model)

    def _on_missing(self, message: str, hint: str) -> None:
        if not self._closing:
            self.model_missing.emit(message)

    def _on_progress(self, phase: str, fraction: float) -> None:
        if not self._closing:
            self.build_progress.emit(phase, fraction)

    def _live(self, gid: int) -> bool:
        return not self._closing and gid == self._gen_id

    def _on_reading(self, gid: int, read: int, total: int) -> None:
        if self._live(gid):
            self.prompt_progress.emit(read, total)

    def _on_step(self, gid: int, trace: Trace) -> None:
        if self._live(gid):
            self.step_ready.emit(trace)

    def _on_finished(self, gid: int, trace: Trace) -> None:
        if self._live(gid):
            self.generation_finished.emit(trace)

    def _on_cancelled(self, gid: int) -> None:
        if not self._closing:
            self.generation_cancelled.emit()

    def _on_failed(self, gid: int, message: str, hint: str) -> None:
        if not self._closing and (gid == -1 or gid == self._gen_id):
            self.error.emit(message, hint)

    def _on_busy(self, activity: Activity) -> None:
        was_busy = self.is_busy
        self.activity = activity
        if not self._closing:
            self.activity_changed.emit(activity)
        if self.is_busy != was_busy and not self._closing:
            self.busy_changed.emit(self.is_busy)
