"""What the window asks of the worker thread: one frozen dataclass per request, sent as one typed
stream (ui/controller.py queues them, ui/worker.py dispatches them with ``match``)."""

from __future__ import annotations

from dataclasses import dataclass

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Trace


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """One press of Generate: what the worker runs."""

    prompt: str
    settings: SamplingSettings
    chat: bool = False


@dataclass(frozen=True, slots=True)
class BranchRequest:
    """ "Your turn": continue ``original`` with the learner's token ``token_id`` at step ``step``
    (Engine.continue_from); the result is a run of its own, recorded beside the original."""

    original: Trace
    step: int
    token_id: int


@dataclass(frozen=True, slots=True)
class LoadModel:
    """Load the model asked for last (a loaded one is announced again)."""


@dataclass(frozen=True, slots=True)
class SelectModel:
    """Switch to the built model ``name``: the other's engine is let go."""

    name: str


@dataclass(frozen=True, slots=True)
class BuildModel:
    """Build the model asked for last into the cache, then load it."""


@dataclass(frozen=True, slots=True)
class AddGguf:
    """Build the GGUF file at ``path`` into the cache (or find its earlier build), then switch to it."""

    path: str


@dataclass(frozen=True, slots=True)
class StartRun:
    """Run ``request`` as the run ``gid`` (the controller's id: a newer one makes it stale)."""

    gid: int
    request: GenerationRequest | BranchRequest


WorkerRequest = LoadModel | SelectModel | BuildModel | AddGguf | StartRun
