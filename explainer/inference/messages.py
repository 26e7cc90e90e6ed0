"""The messages that cross the pipe between the worker thread's proxy and the model's process
(process.py): one frozen dataclass per kind, so both ends are read by mypy and dispatched with
``match`` instead of by a string in ``message[0]``.

The child speaks first: :class:`Loaded` (or :class:`LoadFailed`), then the vocabulary's labels
in :class:`Labels` chunks. Then each :data:`Request` is answered by a :data:`RunReply` stream:
:class:`PromptRead` while the prompt is read, a :class:`StepMade` per step, and one of
:class:`RunEnded`, :class:`RunStopped`, :class:`RunFailed` or :class:`RunCrashed` last.
Once loaded, the child also hashes the model's weights in a thread of its own and says what it
found, once, as :class:`WeightsChecked` on a pipe of its own (the proxy may be idle, waiting for
no reply, when it comes). Everything here is pickled by multiprocessing; slotted frozen
dataclasses pickle as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import ModelInfo, Step, StopReason, Trace

# --- the parent asks ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Generate:
    """Run ``prompt`` (Engine.generate, with the lens the window shows)."""

    prompt: str
    settings: SamplingSettings
    chat: bool


@dataclass(frozen=True, slots=True)
class Continue:
    """Continue ``original`` with ``token_id`` at step ``step`` (Engine.continue_from: "Your turn")."""

    original: Trace
    step: int
    token_id: int


@dataclass(frozen=True, slots=True)
class Close:
    """End the process (after the run in hand, if any: a stop is sent first)."""


@dataclass(frozen=True, slots=True)
class ClassBatch:
    """Serve the class's requests decoded together, up to ``size`` at a time (engine/batch.py),
    until :class:`EndBatch`: the requests come as :class:`Admit` messages meanwhile, read between
    passes, and each is answered by a :data:`ClassReply` stream tagged with its number;
    :class:`BatchDone` comes last."""

    size: int
    chat: bool


@dataclass(frozen=True, slots=True)
class Admit:
    """A class request for the running batch: it joins at the next pass once its prompt is read."""

    tag: int
    prompt: str
    settings: SamplingSettings


@dataclass(frozen=True, slots=True)
class EndBatch:
    """Admit nothing more: finish the requests in hand, then answer :class:`BatchDone`."""


Request = Generate | Continue | Close | ClassBatch
BatchMessage = Admit | EndBatch

# --- the child answers: the load ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Loaded:
    """The model is loaded; ``label_count`` labels follow in :class:`Labels` chunks."""

    info: ModelInfo
    provider: str  # what ONNX Runtime really runs on, e.g. CPUExecutionProvider
    label_count: int
    load_s: float


@dataclass(frozen=True, slots=True)
class LoadFailed:
    """The model could not be loaded; the process ends after saying so."""

    message: str
    hint: str


@dataclass(frozen=True, slots=True)
class Labels:
    """The next chunk of the vocabulary's labels (a chunk is small enough to unpickle between two
    frames of the window)."""

    labels: tuple[str, ...]


LoadReply = Loaded | LoadFailed | Labels


@dataclass(frozen=True, slots=True)
class WeightsChecked:
    """The model's large files are hashed (explainer/model/changed.py): ``changed`` names those
    that differ from what its build recorded (none: all match), ``command`` rebuilds it ("" when
    none differs)."""

    changed: tuple[str, ...]
    command: str


# --- the child answers: a run ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PromptRead:
    """Prompt tokens read so far, of ``total`` (a long prefill, chunk by chunk)."""

    read: int
    total: int


@dataclass(frozen=True, slots=True)
class StepMade:
    """One step, sent as it is made. ``fixed`` is the run's fixed part (its prompt, tokens and
    settings, with no steps), sent once with the first step and None after."""

    step: Step
    fixed: Trace | None


@dataclass(frozen=True, slots=True)
class RunEnded:
    """The run is complete: only why it stopped is sent, the steps came one by one."""

    stop_reason: StopReason | None


@dataclass(frozen=True, slots=True)
class RunStopped:
    """The run was stopped (the parent's stop pipe): Cancelled on the parent's side."""


@dataclass(frozen=True, slots=True)
class RunFailed:
    """The run failed in a way said to the learner (an ExplainerError: an empty prompt, say)."""

    message: str
    hint: str


@dataclass(frozen=True, slots=True)
class RunCrashed:
    """A bug in the model's process: its traceback is printed there, this names it."""

    what: str


RunReply = PromptRead | StepMade | RunEnded | RunStopped | RunFailed | RunCrashed

# --- the child answers: a class batch ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClassStarted:
    """Request ``tag``'s prompt is tokenized (``prompt_tokens`` long); the model starts reading it."""

    tag: int
    prompt_tokens: int


@dataclass(frozen=True, slots=True)
class ClassStep:
    """One step of request ``tag`` (``fixed`` as in :class:`StepMade`), made in pass ``pass_id``
    of the batch, which decoded ``rows`` requests (1: its prompt, read alone)."""

    tag: int
    step: Step
    fixed: Trace | None
    pass_id: int
    rows: int


@dataclass(frozen=True, slots=True)
class ClassEnded:
    """Request ``tag`` ended: why (the trace's stop reason), or what failed (``failure``)."""

    tag: int
    stop_reason: StopReason | None
    failure: str | None = None


@dataclass(frozen=True, slots=True)
class BatchDone:
    """Every admitted request has ended: the batch is over."""


ClassReply = ClassStarted | ClassStep | ClassEnded
Reply = LoadReply | RunReply | ClassReply | BatchDone | WeightsChecked
