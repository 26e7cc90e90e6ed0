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

from explainer.engine.text_bytes import byte_label, characters, is_whole, label_bytes
from explainer.engine.trace import TokenRef, Trace
from explainer.illustration.formatting import visible

Vocabulary = Callable[[int], str]  # token id -> label, for ids the trace does not name


class _PieceSource(Protocol):
    def piece(self, token_id: int) -> str: ...
    def token_bytes(self, token_id: int) -> bytes: ...


def display_piece(tokenizer: _PieceSource, token_id: int) -> str:
    """A token's text for labels; a piece of a character (CJK and emoji are several byte
    tokens each) has no text of its own, so it is shown as its bytes, e.g. ``⟨E6·97⟩``."""
    data = tokenizer.token_bytes(token_id)
    return tokenizer.piece(token_id) if is_whole(data) else byte_label(data)


def piece_label(data: bytes, char: str = "") -> str:
    """How a piece of a character is labelled: its bytes, then the character it helps make when
    its neighbours finish it (``⟨E5·8C⟩ 北``), that character's invisible parts made visible."""
    return byte_label(data) + (" " + visible(char) if char else "")


def char_made(data: bytes, before: bytes) -> str:
    """The character(s) a piece ``data`` finishes after the unfinished bytes ``before`` ("" when
    it finishes none, or reads on its own)."""
    return characters([data], before)[0] if before or not is_whole(data) else ""


def token_label(token: TokenRef, char: str = "") -> str:
    """A recorded token's label: its text, or, when it is a piece of a character, its bytes."""
    return token.text if token.raw is None else piece_label(token.raw, char)


def vocabulary_of(tokenizer: _PieceSource) -> Vocabulary:
    """The labels of a tokenizer's ids, computed when first asked for."""
    return lambda token_id: display_piece(tokenizer, token_id)


def trace_pieces(trace: Trace, table: dict[int, str] | None = None, first_step: int = 0) -> dict[int, str]:
    """id -> label for every token the trace names (prompt, read, chosen); with
    ``table``, only the steps from ``first_step`` on are added to it (a longer snapshot)."""
    if table is None:
        table = {t.id: token_label(t) for t in trace.prompt_tokens}
    for st in trace.steps[first_step:]:
        for t in st.tokens:
            table[t.id] = token_label(t)
        table[st.sampling.chosen.id] = token_label(st.sampling.chosen)
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
        prompt at every step grew with the context and held the GUI thread at every token."""
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

    def display(self, token: TokenRef, char: str = "") -> str:
        """A recorded token's label: its text, or, for a piece of a character, its bytes (and
        ``char``, the character it helps make, when the caller knows it). A trace saved before
        the bytes were recorded holds only U+FFFD for such a piece: the vocabulary says which."""
        if token.raw is not None or "\ufffd" not in token.text or self.vocabulary is None:
            return token_label(token, char)
        label = self._lookup(token.id)
        data = label_bytes(label) if label is not None else None
        return piece_label(data, char) if data is not None else token.text

    def data(self, token_id: int) -> bytes | None:
        """The bytes of an id the trace names only by number (None: not known)."""
        label = self(token_id)
        if label.startswith("#"):
            return None
        return label_bytes(label) if label.startswith("⟨") else label.encode("utf-8", "surrogatepass")

    def candidates(self, token_ids: Sequence[int], before: bytes = b"") -> list[str]:
        """The labels of candidate next tokens after a text whose last ``before`` bytes are an
        unfinished character: a candidate that finishes it is labelled with the character it
        makes (``⟨98·80⟩ 😀`` after ``⟨F0·9F⟩``)."""
        labels = [self(i) for i in token_ids]
        if not before:
            return labels
        out = []
        for i, label in zip(token_ids, labels):
            data = self.data(i) if label.startswith("⟨") else None
            char = char_made(data, before) if data is not None else ""
            out.append(piece_label(data, char) if data is not None and char else label)
        return out

    def label(self, token: TokenRef, before: bytes = b"") -> str:
        """A recorded token's label at its step, where ``before`` is the unfinished character the
        text before it ends with: a piece is labelled with the character it finishes."""
        return self.display(token, char_made(token.data, before) if token.raw is not None else "")

    def __call__(self, token_id: int) -> str:
        text = self._table.get(token_id)
        if text is not None and "\ufffd" in text:  # a piece of a character from an older file: its bytes
            text = self._table[token_id] = self.display(TokenRef(token_id, text))
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
