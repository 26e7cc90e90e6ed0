"""The engine's side of the controller: the worker that lives in its own thread.

Every slot of :class:`Worker` runs in the worker thread. It hears one typed stream of requests
(inference/requests.py) and answers with one typed stream of events (inference/events.py); it
reads two things of the GUI thread's controller, through the callables it is given (is the
window closing, which run is the live one). explainer/ui/controller.py is the GUI thread's side.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, assert_never

from PySide6.QtCore import QObject, Signal, Slot

from explainer.engine.trace import Trace
from explainer.errors import Cancelled, ExplainerError, out_of_memory
from explainer.inference.events import (
    Activity,
    ActivityChanged,
    BranchFinished,
    BuildProgress,
    Event,
    Failed,
    GenerationFinished,
    LoadedModel,
    ModelAdded,
    ModelChanged,
    ModelLoading,
    ModelMissing,
    ModelReady,
    PromptProgress,
    StepReady,
)
from explainer.inference.process import ModelProcessLost
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
from explainer.inference.runner import ModelRunner, load_failure
from explainer.model.manifest import DEFAULT_MODEL

if TYPE_CHECKING:
    from explainer.engine.generate import Engine

EngineFactory = Callable[[], "Engine"]  # the one model a test runs, in the worker thread
# the app's: the model of that name, given what says to give up on loading it (the window closing)
ModelFactory = Callable[[str, Callable[[], bool]], ModelRunner]


PROGRESS_INTERVAL_S = 0.05  # at most ~20 BuildProgress events a second


class _StopBuildError(Exception):
    """Raised from the build progress callback to abandon a build on shutdown."""


def snapshot(trace: Trace) -> Trace:
    """A copy of the trace that the worker will not change any more (steps are never mutated
    after they are appended; only the list grows and stop_reason is set at the end)."""
    return dataclasses.replace(trace, steps=list(trace.steps))


def loaded_model(runner: ModelRunner, load_s: float, name: str = DEFAULT_MODEL) -> LoadedModel:
    """What the window needs of a loaded model."""
    d = runner.describe()
    return LoadedModel(d.info, name, d.provider, load_s, d.labels)


class Worker(QObject):
    """Lives in the worker thread; every slot runs there."""

    events = Signal(object)  # an inference.events.Event: the one stream the controller hears

    def __init__(
        self,
        closing: Callable[[], bool],
        current: Callable[[], int],
        factory: ModelFactory,
        model: str = DEFAULT_MODEL,
        built_on_disk: bool = True,
    ) -> None:
        """``built_on_disk``: the factory loads the cache's files, so a model missing there is an
        offer to build it (a test's factory makes its engine some other way)."""
        super().__init__()
        # read from this thread, set by the controller's: whether it is closing, the live generation
        self._is_closing, self._current = closing, current
        self._factory = factory
        self._on_disk = built_on_disk
        self.model_name = model
        self.engine: ModelRunner | None = None
        self._loaded: LoadedModel | None = None

    # --- helpers ---------------------------------------------------------

    def _closing(self) -> bool:
        return self._is_closing()

    def _say(self, event: Event) -> None:
        self.events.emit(event)

    def _busy(self, activity: Activity) -> None:
        self._say(ActivityChanged(activity))

    def _ensure_engine(self, gid: int | None = None) -> bool:
        """Load the engine if needed; False (after saying why) if it cannot be loaded."""
        if self.engine is not None:
            return True
        from explainer.model.build import load_built

        self._busy(Activity.LOADING)
        self._say(ModelLoading())
        t0 = time.perf_counter()
        try:
            if self._on_disk:
                try:
                    load_built(self.model_name)  # missing or broken files: an offer to build, not a crash
                except ExplainerError as exc:
                    self._say(ModelMissing(exc.message, exc.hint))
                    return False
            self.engine = self._factory(self.model_name, self._closing)
        except Cancelled:
            return False  # the window is closing
        except Exception as exc:  # noqa: BLE001 - any load failure is shown, the app keeps running
            if not isinstance(exc, ExplainerError | MemoryError):
                traceback.print_exc()
            failure = load_failure(exc)
            self._say(Failed(failure.message, failure.hint, gid))
            return False
        finally:
            self._busy(Activity.IDLE)
        self._loaded = loaded_model(self.engine, time.perf_counter() - t0, self.model_name)
        self._say(ModelReady(self._loaded))
        if self._on_disk:
            self._check_weights()
        return True

    def _check_weights(self) -> None:
        """Wait, in a thread of its own, for the model's process to hash the model's large files
        (it does once the model is loaded: inference/process.py); a file that changed since the
        build is said as ModelChanged (emitted from that thread: Qt queues it to the window's).
        The window's process never hashes: a hash beside the GUI thread takes the GIL from it
        twice a chunk (explainer/model/changed.py). The thread ends when the model is let go."""
        engine, name = self.engine, self.model_name
        assert engine is not None

        def wait() -> None:
            found = engine.weights_checked(self._closing)
            if found is not None and found.changed and not self._closing() and self.engine is engine:
                self._say(ModelChanged(name, found.changed, found.command))

        threading.Thread(target=wait, name=f"explainer-weights-{name}", daemon=True).start()

    # --- requests (queued from the controller) ------------------------------

    @Slot(object)
    def handle(self, request: WorkerRequest) -> None:
        """Serve one request of the window's, in this thread (requests are served in order)."""
        match request:
            case LoadModel():
                self.load()
            case SelectModel(name):
                self.select(name)
            case BuildModel():
                self.build()
            case AddGguf(path):
                self.add_gguf(path)
            case StartRun(gid, run):
                if isinstance(run, GenerationRequest):
                    self.generate(gid, run)
                else:
                    self.branch(gid, run)
            case _:
                assert_never(request)

    def drop_engine(self) -> None:
        """Let the loaded model go (its process ends), e.g. before another is loaded."""
        engine, self.engine, self._loaded = self.engine, None, None
        if engine is not None:
            engine.close()

    def load(self) -> None:
        if self._closing():
            return
        if self._loaded is not None:
            self._say(ModelReady(self._loaded))
            return
        self._ensure_engine()

    def select(self, name: str) -> None:
        """Switch to the model ``name``: the engine of the other is dropped, this one loaded."""
        if self._closing():
            return
        if name == self.model_name and self._loaded is not None:
            self._say(ModelReady(self._loaded))
            return
        self.drop_engine()
        self.model_name = name
        self._ensure_engine()

    def _progress(self) -> Callable[[str, float], None]:
        last_time, last_phase = [0.0], [""]

        def progress(phase: str, fraction: float) -> None:
            if self._closing():
                raise _StopBuildError()
            now = time.monotonic()
            if phase != last_phase[0] or fraction >= 1.0 or now - last_time[0] >= PROGRESS_INTERVAL_S:
                last_time[0], last_phase[0] = now, phase
                self._say(BuildProgress(str(phase), float(fraction)))

        return progress

    def build(self) -> None:
        if self._closing():
            return
        from explainer.model.build import build_model

        def work() -> None:
            build_model(self.model_name, progress=self._progress())

        if self._building(work, "building the model failed"):
            self.drop_engine()
            self._ensure_engine()

    def add_gguf(self, path: str) -> None:
        """Build the GGUF at ``path`` into the cache (or find its earlier build), then switch to it."""
        if self._closing():
            return
        from explainer.model.added import add_gguf

        done: list[tuple[str, bool]] = []

        def work() -> None:
            added = add_gguf(path, progress=self._progress())
            done.append((added.built.name, added.reused))

        if self._building(work, "building the GGUF file failed"):
            name, reused = done[0]
            self._say(ModelAdded(name, reused))
            self.drop_engine()
            self.model_name = name
            self._ensure_engine()

    def _building(self, work: Callable[[], None], failure: str) -> bool:
        """Run a build with the BUILDING activity; False (after saying why) when it failed."""
        self._busy(Activity.BUILDING)
        try:
            work()
        except _StopBuildError:
            return False
        except ExplainerError as exc:
            self._say(Failed(exc.message, exc.hint))
            return False
        except MemoryError:
            exc_ = out_of_memory("build this model")
            self._say(Failed(exc_.message, exc_.hint))
            return False
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc()
            self._say(
                Failed(f"{failure} ({type(exc).__name__}: {exc})", "check the network and disk space, then try again")
            )
            return False
        finally:
            self._busy(Activity.IDLE)
        return True

    def generate(self, gid: int, request: GenerationRequest) -> None:
        def run(engine: ModelRunner, stale: Callable[[], bool]) -> Trace:
            return engine.generate(
                request.prompt,
                request.settings,
                request.chat,
                on_step=lambda tr, st: self._say(StepReady(gid, snapshot(tr))),
                should_stop=stale,
                on_progress=lambda read, total: self._say(PromptProgress(gid, read, total)),
            )

        self._run(gid, run, GenerationFinished)

    def branch(self, gid: int, request: BranchRequest) -> None:
        """A branch is recorded whole before it is shown (its first steps repeat the original's,
        so there is nothing new to follow step by step): no step snapshots, one signal at the end."""

        def run(engine: ModelRunner, stale: Callable[[], bool]) -> Trace:
            return engine.continue_from(request.original, request.step, request.token_id, stale)

        self._run(gid, run, BranchFinished)

    def _run(
        self,
        gid: int,
        run: Callable[[ModelRunner, Callable[[], bool]], Trace],
        done: type[GenerationFinished | BranchFinished],
    ) -> None:
        def stale() -> bool:
            return self._closing() or gid != self._current()

        if stale():  # cancelled, or a newer generation asked for, before this one began
            return
        if not self._ensure_engine(gid):
            if self.engine is None and not self._closing():
                self._say(
                    Failed(
                        "there is no model to run yet, so nothing was generated",
                        "build it with “Build the model now” (below), then press Generate again",
                        gid,
                    )
                )
            return
        engine = self.engine
        assert engine is not None
        self._busy(Activity.GENERATING)
        try:
            trace = run(engine, stale)
        except Cancelled:
            pass  # the window stopped it and says so itself (MainWindow.stop_generation)
        except ModelProcessLost as exc:
            self.drop_engine()  # the next request starts the model again
            self._say(Failed(exc.message, exc.hint, gid))
        except ExplainerError as exc:
            self._say(Failed(exc.message, exc.hint, gid))
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc()
            self._say(
                Failed(
                    f"generation failed ({type(exc).__name__}: {exc})",
                    "this is a bug in explainer; please report it with the prompt you used",
                    gid,
                )
            )
        else:
            self._say(done(gid, snapshot(trace)))
        finally:
            self._busy(Activity.IDLE)
