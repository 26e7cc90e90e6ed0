"""Ctrl-C held back while Qt draws.

Python raises KeyboardInterrupt at the next line of Python it runs after SIGINT arrives. While a
QGraphicsScene renders, that line is often inside a Python ``paint()`` that Qt's C++ called: the
exception then unwinds through C++ frames that do not expect it, leaving a QPainter half-way
through its state, and the process died with SIGSEGV (exit -11) instead of 130, its temporary file
left behind (issue 34, case 13: Ctrl-C during `export --out out.mp4`). So every render runs inside
:func:`held`: a Ctrl-C during it is remembered, and delivered to whatever handled SIGINT before as
soon as the render returns to Python (a frame takes well under a second), where KeyboardInterrupt
unwinds through our own code only: the save's temporary file is removed, the old file stays whole,
and the CLI exits 130. In the app, the handler it installed (close the window) runs just the same.

A KeyboardInterrupt can still be lost: raised inside a library's bare ``except:`` or a Qt
callback that swallows it, the run went on and its file was written (exit 0 after Ctrl-C). So the
CLI's handler (:func:`install`) also remembers that Ctrl-C was pressed, and :func:`check` raises
again where nothing may be lost: an atomic save checks just before its rename, and the CLI before
it reports success.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

_pressed: list[bool] = []


def _on_sigint(_signum: int, _frame: FrameType | None) -> None:
    _pressed.append(True)
    raise KeyboardInterrupt


def install() -> None:
    """The CLI's SIGINT handler: KeyboardInterrupt as Python's own, and remembered for :func:`check`."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)


def check() -> None:
    """KeyboardInterrupt if Ctrl-C was pressed under :func:`install`'s handler, even if the first
    KeyboardInterrupt was swallowed on the way."""
    if _pressed:
        raise KeyboardInterrupt


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Run the body with SIGINT held back; deliver one that came, once the body is done."""
    if threading.current_thread() is not threading.main_thread():
        yield  # Python runs signal handlers in the main thread only: nothing to hold here
        return
    came: list[FrameType | None] = []

    def remember(_signum: int, frame: FrameType | None) -> None:
        came.append(frame)

    previous = signal.signal(signal.SIGINT, remember)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if came and callable(previous):
        previous(signal.SIGINT, came[0])  # default_int_handler: KeyboardInterrupt, here
    elif came and previous == signal.SIG_DFL:
        signal.raise_signal(signal.SIGINT)
