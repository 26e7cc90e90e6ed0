"""The messages that cross the pipe between the worker thread's proxy and the model's process
(process.py): one frozen dataclass per kind, so both ends are read by mypy and dispatched with
``match`` instead of by a string in ``message[0]``.

The child speaks first: :class:`Loaded` (or :class:`LoadFailed`), then the vocabulary's labels
in :class:`Labels` chunks. Then each :data:`Request` is answered by a :data:`RunReply` stream:
:class:`PromptRead` while the prompt is read, a :class:`StepMade` per step, and one of
:class:`RunEnded`, :class:`RunStopped`, :class:`RunFailed` or :class:`RunCrashed` last.
Everything here is pickled by multiprocessing; slotted frozen dataclasses pickle as they are.
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


Request = Generate | Continue | Close

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
    """The next chunk of the vocabulary's labels (a chunk unpickles in about a millisecond)."""

    labels: tuple[str, ...]


LoadReply = Loaded | LoadFailed | Labels

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
Reply = LoadReply | RunReply
