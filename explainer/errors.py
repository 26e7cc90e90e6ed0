"""User-facing errors.

Anything the user can fix (missing model, no network, unwritable cache, bad input)
is raised as :class:`ExplainerError`. The CLI prints it as::

    error: <message>
      <hint>

and exits with status 2, without a traceback.
"""

from __future__ import annotations


class ExplainerError(Exception):
    """An error with a short message and a hint saying what to do about it."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def format(self) -> str:
        """The text the CLI prints to stderr."""
        text = f"error: {self.message}"
        if self.hint:
            text += f"\n  {self.hint}"
        return text


class Cancelled(Exception):
    """Raised inside a generation when the caller asked it to stop; the partial trace is kept.
    (Here rather than beside the engine: the window's side meets it too, from the model's
    process, without importing the engine.)"""


def out_of_memory(doing: str, hint: str = "Close other programs and try again.") -> ExplainerError:
    """Memory running out is something the user can act on (close programs, shorten the
    prompt), so it is reported like any other error rather than as a crash or a bug."""
    return ExplainerError(f"there is not enough memory to {doing}", hint)
