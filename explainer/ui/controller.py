"""The controller between the window and the engine: one worker thread, one typed stream each way.

Why a worker QObject in a QThread: loading the model takes seconds and every forward pass tens of
milliseconds; on the GUI thread either would freeze the window. The worker waits on the model,
which runs in a process of its own (inference/process.py says why a thread is not enough). The
window only ever calls the controller's methods (which queue typed requests, inference/requests.py,
to the worker) and subscribes to its one stream of typed events (inference/events.py); the GUI
thread never touches the engine.

Requests are served in order by the worker's event loop, so "generate" sent while the model is
still loading simply waits for the load. Each run gets an id; `cancel()` and a newer run make
older ids stale, which both stops the running loop (the engine checks `should_stop` before every
pass) and drops any of its events still in flight: here, once, for every view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QObject, QThread, Signal

from explainer.classroom.queue import ClassQueue
from explainer.engine.sampler import SamplingSettings
from explainer.inference.events import (
    Activity,
    ActivityChanged,
    BusyChanged,
    Event,
    LoadedModel,
    ModelAdded,
    ModelReady,
    of_run,
)
from explainer.inference.process import process_factory
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
from explainer.inference.runner import InProcess
from explainer.model.manifest import DEFAULT_MODEL
from explainer.ui.class_serving import ClassServing, Pending, class_settings
from explainer.ui.worker import EngineFactory, ModelFactory, Worker

E = TypeVar("E", bound=Event)


class EngineController(QObject):
    """The GUI thread's handle on the engine. See the module docstring."""

    events = Signal(object)  # an inference.events.Event, a stale run's already dropped

    class_served = Signal(object)  # the ClassQueue now served, or None: class mode stopped (serve_class)
    _requests = Signal(object)  # an inference.requests.WorkerRequest, queued into the worker thread

    def __init__(
        self,
        engine_factory: EngineFactory | None = None,
        parent: QObject | None = None,
        model: str = DEFAULT_MODEL,
        model_factory: ModelFactory | None = None,
    ) -> None:
        """``engine_factory`` makes the one engine a test runs (in the worker thread);
        ``model_factory`` starts the model of a name (by default in a process of its own, on the
        cache's files: inference/process.py); ``model`` is the one loaded first."""
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
        self._pending = Pending()
        self._class_queue: ClassQueue | None = None
        self._class_settings = class_settings(SamplingSettings())
        self._class_batch = 1
        self._worker = Worker(lambda: self._closing, lambda: self._gen_id, factory, model, on_disk)
        self._worker.moveToThread(self._thread)
        worker = self._worker
        self._class = ClassServing(
            lambda: self._class_queue,
            self._pending,
            lambda: self._closing,
            lambda: worker.engine,
            lambda: self._class_settings,
            worker.drop_engine,
            lambda: self._class_batch,
        )
        self._class.moveToThread(self._thread)
        self._requests.connect(self._worker.handle)
        self._requests.connect(self._class.served_one)  # (queued after the worker's handle: runs after it)
        self._worker.events.connect(self._on_event)
        self._thread.start()

    # --- requests ----------------------------------------------------------

    def _ask(self, request: WorkerRequest) -> None:
        if not self._closing:
            self._pending.asked += 1  # (before it is queued: the class's next request waits for it)
            self._requests.emit(request)

    def serve_class(self, queue: ClassQueue | None, batch: int = 1) -> None:
        """Serve ``queue``'s requests whenever nothing of the instructor's waits (None: stop),
        up to ``batch`` of them decoded together (1: one at a time).

        The instructor's next request still goes ahead of every waiting class request; a class
        request running when class mode stops ends at its next step (the queue records it
        failed). See ui/class_serving.py."""
        self._class_queue, self._class_batch = queue, batch
        if queue is not None and not self._closing:
            self._class.listen_to(queue)
        self.class_served.emit(queue)

    def set_class_settings(self, settings: SamplingSettings) -> None:
        """The sampling panel's settings, for the class's next requests (capped in length)."""
        self._class_settings = class_settings(settings)

    def load_model(self) -> None:
        self._ask(LoadModel())

    def build_model(self) -> None:
        self._ask(BuildModel())

    def select_model(self, name: str) -> None:
        """Switch to the model ``name`` (loaded in the worker; ModelReady says when)."""
        if not self._closing:
            self._gen_id += 1  # a generation of the other model stops
            self.model_name = name
            self._ask(SelectModel(name))

    def add_gguf(self, path: str) -> None:
        """Build the GGUF at ``path`` in the worker (BuildProgress, then ModelAdded and ModelReady)."""
        if not self._closing:
            self._gen_id += 1
            self._ask(AddGguf(path))

    def generate(self, request: GenerationRequest) -> int:
        """Start a generation (cancelling any running one); returns its id."""
        return self._start(request)

    def branch(self, request: BranchRequest) -> int:
        """Continue a recorded run from the learner's token ("Your turn"), as a new run; like a
        generation it has an id, and cancel() or a newer request drops it."""
        return self._start(request)

    def _start(self, request: GenerationRequest | BranchRequest) -> int:
        if self._closing:
            return -1
        if isinstance(request, GenerationRequest):
            self.set_class_settings(request.settings)
        self._gen_id += 1
        self._ask(StartRun(self._gen_id, request))
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
            self.events.emit(BusyChanged(False))

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

    # --- the worker's events (GUI thread) -----------------------------------

    def on(self, kind: type[E], handler: Callable[[E], None]) -> None:
        """Call ``handler`` with every event of ``kind`` that is not stale (a view's subscription)."""

        def relay(event: object) -> None:
            if isinstance(event, kind):
                handler(event)

        self.events.connect(relay)

    def _on_event(self, event: Event) -> None:
        """Keep what the controller itself tracks, then pass the event on unless it is stale:
        the window is closing, or it belongs to a run that is no longer the live one."""
        match event:
            case ModelReady(model):
                self.model = model
            case ModelAdded(name=name):
                self.model_name = name
            case ActivityChanged(activity):
                self._on_activity(activity)
                return
        if self._closing:
            return
        gid = of_run(event)
        if gid is not None and gid != self._gen_id:
            return
        self.events.emit(event)

    def _on_activity(self, activity: Activity) -> None:
        was_busy = self.is_busy
        self.activity = activity
        if self._closing:
            return
        self.events.emit(ActivityChanged(activity))
        if self.is_busy != was_busy:
            self.events.emit(BusyChanged(self.is_busy))
