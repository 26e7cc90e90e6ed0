"""The large files of a loaded model, hashed in the background against what its build recorded.

Why: loading hashes only the files up to ``HASHED_ON_LOAD_BYTES`` (checks.py), because hashing
the weights (``model.onnx.data``, hundreds of megabytes) on every load would make the learner
wait for it. A bit flipped in the weights since the build (a damaged disk, a
bad copy) then went unnoticed until `explainer model verify`: the model ran and its answers were
quietly wrong. So once a model is loaded, :class:`WeightsCheck` hashes those files in a thread of
its own while the model already runs, and says which changed and the command that rebuilds it:
the command line prints it as one line (commands/options.py ``weights_checked``); the app hashes
in the model's process (inference/process.py), and the window shows it in its banner.

The thread holds the GIL only between chunks: the file is read into one 1 MiB buffer (the read
releases the GIL, and no memory grows with the file) and ``hashlib`` releases it while it hashes
a chunk that large. Still, each chunk takes the GIL back twice, and a thread busy with Python
code meanwhile is made to hand it over each time (Python work beside a hash took markedly
longer): so the window's process never hashes; the model's, which has a GIL of its own, does.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from explainer.model.checks import HASHED_ON_LOAD_BYTES
from explainer.model.rebuild import rebuild_command

if TYPE_CHECKING:
    from explainer.model.build import BuiltModel

CHUNK = 1 << 20  # bytes hashed at a time: large enough for hashlib to release the GIL, small to hold


@dataclass(frozen=True)
class ChangedFiles:
    """Files of model ``model`` whose SHA-256 is not the one its build recorded, and the command
    that builds it again."""

    model: str
    files: tuple[str, ...]
    command: str

    def line(self) -> str:
        """The command line's warning (without its "warning: ")."""
        names = ", ".join(self.files)
        which = "file" if len(self.files) == 1 else "files"
        return (
            f"model {self.model}'s {which} {names} changed since it was built (its SHA-256 differs); "
            f"run `{self.command}` to rebuild it"
        )


def _sha256(path: Path, stop: Callable[[], bool], turn: Callable[[], object] | None) -> str | None:
    """The file's SHA-256, read a chunk at a time into one buffer, each chunk once ``turn`` (if
    any) returns; None when ``stop`` said so."""
    h = hashlib.sha256()
    buffer = bytearray(CHUNK)
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as f:
        while True:
            if turn is not None:
                turn()
            n = f.readinto(view)
            if not n:
                break
            if stop():
                return None
            h.update(view[:n])
    return h.hexdigest()


def changed_files(
    built: BuiltModel, stop: Callable[[], bool] = lambda: False, turn: Callable[[], object] | None = None
) -> ChangedFiles | None:
    """Hash the files of ``built`` that loading did not (those above ``HASHED_ON_LOAD_BYTES``)
    and compare them with build.json's; None when all match, when the build recorded no hashes
    (built before issue 19) or when ``stop`` asked to stop. A file that is gone or cannot be
    read counts as changed: the rebuild is what mends it too. ``turn`` is called before each chunk
    and returns when the hash may go on (the app's model process: while no run is in hand)."""
    hashes = built.build_info.get("sha256")
    if not isinstance(hashes, dict):
        return None
    changed: list[str] = []
    for rel, want in hashes.items():
        path = built.dir / str(rel)
        try:
            if path.stat().st_size <= HASHED_ON_LOAD_BYTES:
                continue  # hashed by the load (load_built)
            got = _sha256(path, stop, turn)
        except OSError:
            got = ""
        if got is None:
            return None
        if got != want:
            changed.append(str(rel))
    if not changed:
        return None
    return ChangedFiles(built.name, tuple(changed), rebuild_command(built.name, built.build_info))


class WeightsCheck:
    """:func:`changed_files` of ``built`` in a daemon thread, started at once.

    ``on_done`` (optional) is called in that thread with what was found (None: nothing changed,
    or stopped). :meth:`wait` returns it; :meth:`stop` makes the thread end within one chunk.
    ``idle`` (optional): hash only while it is set (the model's process clears it during a run,
    so that the hash does not take CPU or the GIL from the run and inflate its timings).
    ``niceness`` (Linux, where a thread has one of its own): run the thread that much lower, so
    that the window's process gets a core first (its GUI thread animates while it hashes). Only
    where no thread of this process waits for the GIL meanwhile: one that must hand it to a
    thread of low priority would wait for that thread's turn on a core."""

    def __init__(
        self,
        built: BuiltModel,
        on_done: Callable[[ChangedFiles | None], None] | None = None,
        idle: threading.Event | None = None,
        niceness: int = 0,
    ) -> None:
        self._stopped = threading.Event()
        self._on_done = on_done
        self._turn = None if idle is None else idle.wait
        self._niceness = niceness
        self.result: ChangedFiles | None = None
        self._thread = threading.Thread(
            target=self._run, args=(built,), name=f"explainer-hash-{built.name}", daemon=True
        )
        self._thread.start()

    def _run(self, built: BuiltModel) -> None:
        if self._niceness and sys.platform.startswith("linux"):
            with contextlib.suppress(OSError):
                os.setpriority(
                    os.PRIO_PROCESS, threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0) + self._niceness
                )
        self.result = changed_files(built, self._stopped.is_set, self._turn)
        if self._on_done is not None and not self._stopped.is_set():
            self._on_done(self.result)

    def wait(self, timeout: float | None = None) -> ChangedFiles | None:
        """What the check found, once it is done (or still None after ``timeout`` seconds)."""
        self._thread.join(timeout)
        return self.result

    def stop(self, wait: bool = True) -> None:
        """Stop hashing (the thread ends within one chunk, and ``on_done`` is not called)."""
        self._stopped.set()
        if wait:
            self._thread.join()
