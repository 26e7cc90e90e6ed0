"""Token text for ids the trace names only by number (candidates, lens guesses).

A Trace stores the text of the tokens it read and chose, but its top lists hold ids only.
To label those, the views ask :func:`token_text`, which looks in the trace first, then in
a piece function: one the app sets with :func:`set_piece_source` (the loaded engine's
``tokenizer.piece``), or else the built model's tokenizer, loaded once on first use.
Without either, an id is shown as ``#1234`` rather than guessed.
"""

from __future__ import annotations

import threading
from typing import Callable

from explainer.engine.trace import Trace

PieceFn = Callable[[int], str]

_lock = threading.Lock()
_source: PieceFn | None = None
_loaded_default = False


def display_piece(tokenizer, token_id: int) -> str:
    """A token's text for labels; a piece of a character (CJK and emoji are several byte
    tokens each) has no text of its own, so it is shown as its bytes, e.g. ``⟨E6·97⟩``."""
    text = tokenizer.piece(token_id)
    if "\ufffd" not in text:
        return text
    return "⟨" + "·".join(f"{b:02X}" for b in tokenizer.token_bytes(token_id)) + "⟩"


def display_text(token_id: int, text: str) -> str:
    """``text`` as recorded, or, when it is a piece of a character, its bytes (see above)."""
    if "\ufffd" not in text:
        return text
    fn = _default_source()
    label = fn(token_id) if fn is not None else text
    return label if "\ufffd" not in label else text


def set_piece_source(fn: PieceFn | None) -> None:
    """Use ``fn(id) -> text`` for ids the trace does not name (None: back to the default)."""
    global _source, _loaded_default
    with _lock:
        _source = fn
        _loaded_default = fn is not None


def _default_source() -> PieceFn | None:
    global _source, _loaded_default
    with _lock:
        if not _loaded_default:
            _loaded_default = True
            try:
                from explainer.model.build import load_built

                tokenizer = load_built().load_tokenizer()
                _source = lambda i: display_piece(tokenizer, i)  # noqa: E731
            except Exception:  # no built model: ids stay numbers, never a crash
                _source = None
        return _source


def trace_pieces(trace: Trace) -> dict[int, str]:
    """id -> text for every token the trace names with its text (prompt, read, chosen)."""
    table: dict[int, str] = {t.id: t.text for t in trace.prompt_tokens}
    for st in trace.steps:
        for t in st.tokens:
            table[t.id] = t.text
        table[st.sampling.chosen.id] = st.sampling.chosen.text
    return table


class TokenNamer:
    """Cached id -> text for one trace (rebuilt when the trace grows)."""

    def __init__(self, trace: Trace | None = None) -> None:
        self._trace: Trace | None = None
        self._n = -1
        self._table: dict[int, str] = {}
        if trace is not None:
            self.use(trace)

    def use(self, trace: Trace) -> None:
        if trace is not self._trace or len(trace.steps) != self._n:
            self._trace = trace
            self._n = len(trace.steps)
            self._table = trace_pieces(trace)

    def __call__(self, token_id: int) -> str:
        text = self._table.get(token_id)
        if text is not None and "\ufffd" in text:  # a piece of a character: show its bytes
            text = self._table[token_id] = display_text(token_id, text)
        if text is None:
            fn = _default_source()
            try:
                text = fn(token_id) if fn is not None else f"#{token_id}"
            except Exception:
                text = f"#{token_id}"
            self._table[token_id] = text
        return text


def token_text(trace: Trace, token_id: int) -> str:
    """The text of ``token_id`` (from the trace if it names it, else the tokenizer)."""
    return TokenNamer(trace)(token_id)


def preload() -> bool:
    """Load the default tokenizer now (e.g. in a worker thread), so no frame waits for it.

    Returns True when token texts are available.
    """
    return _default_source() is not None
