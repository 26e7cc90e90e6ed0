"""Token text for ids the trace names only by number (candidates, lens guesses).

A Trace stores the text of the tokens it read and chose, but its top lists hold ids only. To
label those, :class:`TokenNames` looks in the trace first, then in a *vocabulary*: a function
``id -> label`` that the caller passes in (the app's comes from the loaded model's tokenizer,
built in the worker thread; the export command's from the built model's tokenizer). Without
one, an id is shown as ``#1234`` rather than guessed. Nothing here reads files or keeps
state between calls, so a frame depends only on what it was given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from explainer.engine.trace import Trace

Vocabulary = Callable[[int], str]  # token id -> label, for ids the trace does not name


class _PieceSource(Protocol):
    def piece(self, token_id: int) -> str: ...
    def token_bytes(self, token_id: int) -> bytes: ...


def display_piece(tokenizer: _PieceSource, token_id: int) -> str:
    """A token's text for labels; a piece of a character (CJK and emoji are several byte
    tokens each) has no text of its own, so it is shown as its bytes, e.g. ``⟨E6·97⟩``."""
    text = tokenizer.piece(token_id)
    if "\ufffd" not in text:
        return text
    return "⟨" + "·".join(f"{b:02X}" for b in tokenizer.token_bytes(token_id)) + "⟩"


def label_bytes(label: str) -> bytes | None:
    """The bytes a ``⟨E6·97⟩`` label stands for (None for any other label)."""
    if not (label.startswith("⟨") and label.endswith("⟩")):
        return None
    try:
        return bytes(int(h, 16) for h in label[1:-1].split("·"))
    except ValueError:
        return None


def spelled(pieces: Sequence[tuple[str, str]]) -> str:
    """The text a run of tokens spells, from each token's (text, label): the pieces of a character
    that several tokens share (an emoji, CJK) are joined back into it, and bytes that make no
    character show as their label (``⟨E6⟩``), never as "\ufffd"."""
    out: list[str] = []
    pending: list[tuple[bytes, str]] = []  # the byte pieces not yet a character, with their labels

    def flush() -> None:
        data = b"".join(b for b, _ in pending)
        text = data.decode("utf-8", "replace")
        if "\ufffd" in text:
            out.extend(label for _, label in pending)
        else:
            out.append(text)
        pending.clear()

    for text, label in pieces:
        raw = label_bytes(label) if "\ufffd" in text else None
        if raw is None:
            if pending:
                flush()
            out.append(text.replace("\ufffd", "⟨?⟩"))
            continue
        pending.append((raw, label))
        try:
            b"".join(b for b, _ in pending).decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.reason != "unexpected end of data":
                flush()
            continue
        flush()
    if pending:
        flush()
    return "".join(out)


def vocabulary_of(tokenizer: _PieceSource) -> Vocabulary:
    """The labels of a tokenizer's ids, computed when first asked for."""
    return lambda token_id: display_piece(tokenizer, token_id)


def trace_pieces(trace: Trace, table: dict[int, str] | None = None, first_step: int = 0) -> dict[int, str]:
    """id -> text for every token the trace names with its text (prompt, read, chosen); with
    ``table``, only the steps from ``first_step`` on are added to it (a longer snapshot)."""
    if table is None:
        table = {t.id: t.text for t in trace.prompt_tokens}
    for st in trace.steps[first_step:]:
        for t in st.tokens:
            table[t.id] = t.text
        table[st.sampling.chosen.id] = st.sampling.chosen.text
    return table


class TokenNames:
    """How one trace's token ids read on screen: its own texts, else the vocabulary's labels.

    Cached per trace (a frame labels dozens of ids); the cache is rebuilt when a longer snapshot
    of the request arrives.
    """

    def __init__(self, vocabulary: Vocabulary | None = None) -> None:
        self.vocabulary = vocabulary
        self._trace: Trace | None = None
        self._n = -1
        self._table: dict[int, str] = {}

    def use(self, trace: Trace) -> TokenNames:
        """Label ``trace``'s ids from now on. A longer snapshot of the same request (its steps
        before are the ones seen) only adds its new steps: rebuilding the table from the whole
        prompt at every step took 2-4 ms a token at 8k tokens of context, on the GUI thread."""
        if trace is self._trace and len(trace.steps) == self._n:
            return self
        seen = self._trace
        grown = (
            seen is not None
            and trace.prompt_tokens is seen.prompt_tokens
            and len(trace.steps) > self._n > 0
            and trace.steps[self._n - 1] is seen.steps[self._n - 1]
        )
        self._table = trace_pieces(trace, self._table, self._n) if grown else trace_pieces(trace)
        self._trace, self._n = trace, len(trace.steps)
        return self

    def display(self, token_id: int, text: str) -> str:
        """``text`` as recorded, or, when it is a piece of a character, its bytes (see above)."""
        if "\ufffd" not in text or self.vocabulary is None:
            return text
        label = self._lookup(token_id)
        return label if label is not None and "\ufffd" not in label else text

    def __call__(self, token_id: int) -> str:
        text = self._table.get(token_id)
        if text is not None and "\ufffd" in text:  # a piece of a character: show its bytes
            text = self._table[token_id] = self.display(token_id, text)
        if text is None:
            text = self._table[token_id] = self._lookup(token_id) or f"#{token_id}"
        return text

    def _lookup(self, token_id: int) -> str | None:
        if self.vocabulary is None:
            return None
        try:
            return self.vocabulary(token_id)
        except (IndexError, KeyError, ValueError):  # an id outside this vocabulary
            return None


def vocabulary_from_labels(labels: Sequence[str]) -> Vocabulary:
    """A vocabulary from a table of every id's label (the app's, built in the model worker)."""

    def label(token_id: int) -> str:
        if not 0 <= token_id < len(labels):
            raise IndexError(token_id)
        return labels[token_id]

    return label
