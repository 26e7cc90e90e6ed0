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

Nor may Ctrl-C land while a module is imported. PySide6 (shiboken) and ONNX Runtime (pybind11) run
Python code from the C of their own initialisation: a KeyboardInterrupt raised there fails it
("ImportError: initialization failed", reported as a bug), or aborts the process (shiboken's
fatal error, exit -6), or, raised inside shiboken's PyRun_String, marks the interpreter as
stopped by an unhandled Ctrl-C, so that Python kills itself with SIGINT (-2) after the CLI has
printed "interrupted" and asked for 130 (issue 34: Ctrl-C in the first second of `export` or
`generate`, while these load). So the CLI's handler raises nothing while an import is on the main
thread's stack; it tries again a moment later (a new SIGINT from a timer thread) and raises once
the import has returned, a fraction of a second later. (Counting imports in a wrapper of
``builtins.__import__`` instead made every start slower.)
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

_pressed: list[bool] = []
_IMPORTLIB = "<frozen importlib._bootstrap"  # its two modules' frames: an import under way
RETRY_S = 0.05  # how soon a Ctrl-C that came during an import is tried again


def _importing(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith(_IMPORTLIB):
            return True
        frame = frame.f_back
    return False


def _on_sigint(_signum: int, frame: FrameType | None) -> None:
    _pressed.append(True)
    if _importing(frame):  # tried again shortly, as a new SIGINT, until the import has returned
        retry = threading.Timer(RETRY_S, _thread.interrupt_main)
        retry.daemon = True
        retry.start()
        return
    raise KeyboardInterrupt


def install() -> None:
    """The CLI's SIGINT handler: KeyboardInterrupt as Python's own, except that one during an import
    waits for the import's end, and remembered for :func:`check`. Install it before the CLI imports
    its commands."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)


def pressed() -> bool:
    """Whether Ctrl-C was pressed under :func:`install`'s handler. A KeyboardInterrupt raised in
    Python that a library's C called back can come out of that library as another error: PySide
    reads a Python enum argument's value by running Python, and read the NULL of an interrupted
    read as a number ("SystemError: bad argument to internal function", from `QImage(w, h,
    format)`). Any PySide call with an enum can do that, so no list of held places is whole:
    after a Ctrl-C, such an error is the interruption, not a bug to report."""
    return bool(_pressed)


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
