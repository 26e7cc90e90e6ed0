"""What the worker thread tells the window: one frozen dataclass per event, carried as one typed
stream (ui/worker.py emits them, ui/controller.py drops a stale run's once and passes the rest
on, and each view subscribes to the kinds it shows).

An event of a run carries the run's id (``gid``): a stop or a newer run makes the older id stale,
and the controller drops its events still in flight, so no view checks ids itself.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from explainer.engine.trace import ModelInfo, Trace


@dataclass(frozen=True, slots=True)
class LoadedModel:
    """A model the worker has loaded: what the window shows about it."""

    info: ModelInfo
    name: str  # its name in the cache (what --model takes and the Model menu checks)
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


@dataclass(frozen=True, slots=True)
class ModelLoading:
    """A model has begun to load."""


@dataclass(frozen=True, slots=True)
class ModelReady:
    """A model is loaded (or, asked again, still is)."""

    model: LoadedModel


@dataclass(frozen=True, slots=True)
class ModelMissing:
    """The model asked for is not built, or its files are broken: an offer to build it."""

    message: str
    hint: str


@dataclass(frozen=True, slots=True)
class ModelAdded:
    """A GGUF file is built into the cache as ``name`` (``reused``: an earlier build was found)."""

    name: str
    reused: bool


@dataclass(frozen=True, slots=True)
class ModelChanged:
    """Files of the loaded model ``name`` differ from what its build recorded, found by hashing
    them in the background after the load (model/changed.py), and the command that rebuilds it."""

    name: str
    files: tuple[str, ...]
    command: str


@dataclass(frozen=True, slots=True)
class BuildProgress:
    """A build's phase and how far it is (0–1); at most ~20 a second."""

    phase: str
    fraction: float


@dataclass(frozen=True, slots=True)
class PromptProgress:
    """Run ``gid`` has read ``read`` of the prompt's ``total`` tokens (a long prefill, chunk by chunk)."""

    gid: int
    read: int
    total: int


@dataclass(frozen=True, slots=True)
class StepReady:
    """Run ``gid`` made a step: ``trace`` is a snapshot the worker no longer changes."""

    gid: int
    trace: Trace


@dataclass(frozen=True, slots=True)
class GenerationFinished:
    """Run ``gid`` is complete: ``trace`` is the whole run."""

    gid: int
    trace: Trace


@dataclass(frozen=True, slots=True)
class BranchFinished:
    """The "Your turn" run ``gid`` is complete, recorded whole: a run beside the one on screen."""

    gid: int
    trace: Trace


@dataclass(frozen=True, slots=True)
class Failed:
    """Something failed, said to the learner; ``gid`` is the run's, or None for a load or a build."""

    message: str
    hint: str
    gid: int | None = None


@dataclass(frozen=True, slots=True)
class ActivityChanged:
    """The worker is doing something else now (the status bar says what)."""

    activity: Activity


@dataclass(frozen=True, slots=True)
class BusyChanged:
    """The worker went from idle to busy or back (the controller derives it from ActivityChanged)."""

    busy: bool


RunEvent = PromptProgress | StepReady | GenerationFinished | BranchFinished
Event = (
    ModelLoading
    | ModelReady
    | ModelMissing
    | ModelAdded
    | ModelChanged
    | BuildProgress
    | RunEvent
    | Failed
    | ActivityChanged
    | BusyChanged
)


def of_run(event: Event) -> int | None:
    """The id of the run ``event`` belongs to, or None when it belongs to no run."""
    if isinstance(event, PromptProgress | StepReady | GenerationFinished | BranchFinished | Failed):
        return event.gid
    return None
