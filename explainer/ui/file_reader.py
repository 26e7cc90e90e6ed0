"""A file read in a thread and shown on the GUI thread once read.

A saved run is tens of megabytes of arrays, most of them the raw scores. Reading and checking
one takes from a few frames' time to a good part of a second, frames a playing illustration
would drop and a clicker's press would wait for. So the reading
(plain Python and numpy, no Qt) runs in a thread of its own, and its outcome comes back to the
GUI thread through a queued signal, where it is shown.

One file at a time: an open made while another file is still being read wins, and the earlier
one is dropped when it arrives. A window that closes waits for the reading under way (at most
as long as the read) and shows nothing.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt, Signal

from explainer.errors import ExplainerError

T = TypeVar("T")


class _Bug:
    """An exception other than ExplainerError, carried to the GUI thread to be raised there, as
    it would have been had the file been read there."""

    def __init__(self, error: Exception) -> None:
        self.error = error


class FileReader(QObject):
    """Reads in threads of their own and shows, on this object's thread, the latest read only."""

    _read = Signal(object)  # (ticket, outcome, show), from the reading thread

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ticket = 0  # the latest read's
        self._waiting = False  # the latest read has not been shown yet
        self._closed = False
        self._threads: list[threading.Thread] = []
        self._read.connect(self._arrived, Qt.ConnectionType.QueuedConnection)

    @property
    def busy(self) -> bool:
        """Whether a read has been asked for and not shown yet."""
        return self._waiting

    def read(self, work: Callable[[], T], show: Callable[[T | ExplainerError], object]) -> None:
        """Run ``work`` in a thread, then ``show`` its outcome (its value, or the ExplainerError
        it raised) on this object's thread, unless another read was asked for meanwhile."""
        self._ticket += 1
        ticket = self._ticket
        self._waiting = True

        def run() -> None:
            outcome: Any
            try:
                outcome = work()
            except ExplainerError as exc:
                outcome = exc
            except Exception as exc:  # noqa: BLE001 - raised again on the GUI thread (_arrived)
                outcome = _Bug(exc)
            with contextlib.suppress(RuntimeError):  # (this object deleted: nothing to show it)
                self._read.emit((ticket, outcome, show))

        self._threads = [t for t in self._threads if t.is_alive()]
        thread = threading.Thread(target=run, name="read-file")
        self._threads.append(thread)
        thread.start()

    def _arrived(self, message: tuple[int, Any, Callable[[Any], object]]) -> None:
        ticket, outcome, show = message
        if self._closed or ticket != self._ticket:
            return  # the window closed, or a later open replaces this one
        self._waiting = False
        if isinstance(outcome, _Bug):
            raise outcome.error
        show(outcome)

    def shutdown(self) -> None:
        """The window is closing: wait for the reads under way; none is shown."""
        self._closed = True
        self._waiting = False
        for thread in self._threads:
            thread.join()
        self._threads = []
