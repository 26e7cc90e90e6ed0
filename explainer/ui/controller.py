"""The controller between the window and the engine: one worker thread, signals both ways.

Why a worker QObject in a QThread: loading the model takes seconds and every forward pass tens of
milliseconds; on the GUI thread either would freeze the window. The worker waits on the model,
which runs in a process of its own (ui/model_process.py says why a thread is not enough). The
window only ever calls the controller's methods (which queue requests to the worker) and listens
to its signals; the GUI thread never touches the engine.

Requests are served in order by the worker's event loop, so "generate" sent while the model is
still loading simply waits for the load. Each generation gets an id; `cancel()` and a newer
`generate()` make older ids stale, which both stops the running loop (the engine checks
`should_stop` before every pass) and drops any of its signals still in flight.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QThread, Signal

from explainer.engine.trace import Trace
from explainer.model.manifest import DEFAULT_MODEL
from explainer.ui.model_process import InProcess, process_factory
from explainer.ui.worker import (
    Activity,
    BranchRequest,
    EngineFactory,
    GenerationRequest,
    LoadedModel,
    ModelFactory,
    Worker,
)


class EngineController(QObject):
    """The GUI thread's handle on the engine. See the module docstring."""

    model_loading = Signal()
    model_ready = Signal(LoadedModel)
    model_missing = Signal(str)
    model_added = Signal(str, bool)  # a GGUF built into the cache: its name, whether a build was reused
    build_progress = Signal(str, float)
    prompt_progress = Signal(int, int)  # prompt tokens read, in all: a long prefill, chunk by chunk
    step_ready = Signal(Trace)  # a snapshot of the trace after every step
    generation_finished = Signal(Trace)  # the complete trace
    branch_finished = Signal(Trace)  # a "Your turn" branch, complete (a run beside the one on screen)
    error = Signal(str, str)  # message, hint
    busy_changed = Signal(bool)
    activity_changed = Signal(Activity)

    # internal: queued into the worker thread
    _do_load = Signal()
    _do_build = Signal()
    _do_select = Signal(str)
    _do_add = Signal(str)
    _do_generate = Signal(int, GenerationRequest)  # generation id, the request
    _do_branch = Signal(int, BranchRequest)

    def __init__(
        self,
        engine_factory: EngineFactory | None = None,
        parent: QObject | None = None,
        model: str = DEFAULT_MODEL,
        model_factory: ModelFactory | None = None,
    ) -> None:
        """``engine_factory`` makes the one engine a test runs (in the worker thread);
        ``model_factory`` starts the model of a name (by default in a process of its own, on the
        cache's files: ui/model_process.py); ``model`` is the one loaded first."""
        super().__init__(parent)
        self._gen_id = 0
        self._closing = False
        self.activity = Activity.IDLE
        self.model: LoadedModel | None = None
        self._thread = QThread()
        self._thread.setObjectName("explainer-engine")
        if engine_factory is not None:
            one = engine_factory
            factory: ModelFactory = lambda _name, _give_up: InProcess(one())  # noqa: E731 - a test's one engine
        else:
            factory = model_factory or process_factory()
        on_disk = engine_factory is None and model_factory is None
        self.model_name = model  # the model asked for last (the worker's, once it has switched)
        self._worker = Worker(lambda: self._closing, lambda: self._gen_id, factory, model, on_disk)
        self._worker.moveToThread(self._thread)
        w = self._worker
        self._do_load.connect(w.load)
        self._do_build.connect(w.build)
        self._do_select.connect(w.select)
        self._do_add.connect(w.add_gguf)
        self._do_generate.connect(w.generate)
        self._do_branch.connect(w.branch)
        w.loading.connect(self.model_loading)
        w.ready.connect(self._on_ready)
        w.missing.connect(self._on_missing)
        w.added.connect(self._on_added)
        w.progress.connect(self._on_progress)
        w.reading.connect(self._on_reading)
        w.step.connect(self._on_step)
        w.finished.connect(self._on_finished)
        w.branched.connect(self._on_branched)
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

    def select_model(self, name: str) -> None:
        """Switch to the model ``name`` (loaded in the worker; model_ready says when)."""
        if not self._closing:
            self._gen_id += 1  # a generation of the other model stops
            self.model_name = name
            self._do_select.emit(name)

    def add_gguf(self, path: str) -> None:
        """Build the GGUF at ``path`` in the worker (build_progress, then model_added and model_ready)."""
        if not self._closing:
            self._gen_id += 1
            self._do_add.emit(path)

    def generate(self, request: GenerationRequest) -> int:
        """Start a generation (cancelling any running one); returns its id."""
        if self._closing:
            return -1
        self._gen_id += 1
        self._do_generate.emit(self._gen_id, request)
        return self._gen_id

    def branch(self, request: BranchRequest) -> int:
        """Continue a recorded run from the learner's token ("Your turn"), as a new run; like a
        generation it has an id, and cancel() or a newer request drops it."""
        if self._closing:
            return -1
        self._gen_id += 1
        self._do_branch.emit(self._gen_id, request)
        return self._gen_id

    def cancel(self) -> None:
        """Stop the running generation at its next step; its remaining signals are dropped."""
        self._gen_id += 1

    def shutdown(self) -> None:
        """Stop any generation, let a running job end, and join the thread (idempotent).

        A generation stops within one forward pass; a model loading in its process is stopped
        at once (the process is ended)."""
        if self._closing:
            return
        self._closing = True
        self._gen_id += 1
        self._thread.quit()
        self._thread.wait()
        self._worker.drop_engine()
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

    def _on_added(self, name: str, reused: bool) -> None:
        self.model_name = name
        if not self._closing:
            self.model_added.emit(name, reused)

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

    def _on_branched(self, gid: int, trace: Trace) -> None:
        if self._live(gid):
            self.branch_finished.emit(trace)

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
