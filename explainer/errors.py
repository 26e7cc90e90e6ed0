"""Errors the app can show to a user: a message plus a hint on what to do."""


class ExplainerError(Exception):
    """An error with a user-facing message and an optional hint for fixing it."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
