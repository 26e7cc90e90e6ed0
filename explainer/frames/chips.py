"""Token chips: how a token of the context is labelled and coloured.

Chips are made once per token and request and then shared by every frame (:class:`ChipMaker`):
a long context has thousands, and a frame that compares them with the frame before then only
compares identities.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from explainer.engine.text_bytes import characters, label_bytes, spell
from explainer.engine.trace import TokenRef, Trace
from explainer.illustration.formatting import NEWLINE, SPACE, TAB, is_special, visible
from explainer.illustration.vocab import TokenNames

ChipKind = Literal["input", "output"]
WHITESPACE_MARKS = frozenset((SPACE, NEWLINE, TAB))  # what a label shows for invisible whitespace


@dataclass(frozen=True, slots=True)
class Chip:
    id: int
    text: str  # as recorded
    label: str  # as drawn: visible whitespace, a piece of a character as its bytes (and the character)
    kind: ChipKind
    special: bool
    raw: bytes | None = None  # a piece of a character: its bytes (engine/trace.py TokenRef.raw)

    @property
    def data(self) -> bytes:
        """The bytes this token adds to the text."""
        return self.text.encode("utf-8", "surrogatepass") if self.raw is None else self.raw


def shows_whitespace(chips: Iterable[Chip]) -> bool:
    """Whether a label among ``chips`` shows whitespace (␣, ↵, ⇥), which the legend explains."""
    return any(not WHITESPACE_MARKS.isdisjoint(c.label) for c in chips)


@dataclass(frozen=True, slots=True)
class PromptFacts:
    """What frames read of the prompt's chips, found once per request. A context is the prompt's
    chips, then the answer's; at 8k tokens, going over the prompt's chips again for each of these
    on every press of Next was a third of the press."""

    count: int  # the context's first `count` chips are the prompt's
    special: bool  # a control token among them (a chat template's)
    text: str  # their texts joined: the prompt as the model read it, template included
    marked: bool  # a label among them shows whitespace (␣, ↵, ⇥), which the legend explains

    @staticmethod
    def of(chips: tuple[Chip, ...]) -> PromptFacts:
        return PromptFacts(
            count=len(chips),
            special=any(c.special for c in chips),
            text=spell(c.data for c in chips).text,
            marked=shows_whitespace(chips),
        )


NO_PROMPT = PromptFacts(0, False, "", False)


class ChipMaker:
    """Chips for one request's tokens, made once each (see the module docstring).

    A piece of a character is labelled with the character it helps make once the tokens that
    finish it are in the context (``⟨E5·8C⟩ 北``), so its chip can differ from frame to frame
    of the same run: such chips are keyed by that character too.
    """

    def __init__(self) -> None:
        self._prompt_of: list[TokenRef] | None = None  # the prompt list the cached chips were made for
        self._prompt: tuple[Chip, ...] = ()
        self._facts = NO_PROMPT
        self._made: dict[tuple[int, str, ChipKind, str], Chip] = {}

    def chip(self, token: TokenRef, kind: ChipKind, names: TokenNames, char: str = "") -> Chip:
        key = (token.id, token.text, kind, char)
        chip = self._made.get(key)
        if chip is None:
            label = visible(names.display(token, char))
            raw = token.raw if token.raw is not None else label_bytes(label)
            chip = Chip(token.id, token.text, label, kind, is_special(token.text), raw)
            self._made[key] = chip
        return chip

    def _chips(self, tokens: list[TokenRef], kind: ChipKind, names: TokenNames) -> tuple[Chip, ...]:
        chips = [self.chip(t, kind, names) for t in tokens]
        if any(c.raw is not None for c in chips):  # pieces of characters: name the characters they make
            chars = characters([c.data for c in chips])
            chips = [self.chip(t, kind, names, ch) if ch else c for t, c, ch in zip(tokens, chips, chars)]
        return tuple(chips)

    def prompt(self, trace: Trace, names: TokenNames) -> tuple[Chip, ...]:
        if trace.prompt_tokens is not self._prompt_of:
            self._prompt_of = trace.prompt_tokens
            self._prompt = self._chips(trace.prompt_tokens, "input", names)
            self._facts = PromptFacts.of(self._prompt)
        return self._prompt

    def prompt_facts(self, trace: Trace, names: TokenNames) -> PromptFacts:
        self.prompt(trace, names)
        return self._facts

    def context(self, trace: Trace, names: TokenNames, n_outputs: int) -> tuple[Chip, ...]:
        """The prompt's chips and the first ``n_outputs`` chosen tokens'."""
        outputs = self._chips([st.sampling.chosen for st in trace.steps[:n_outputs]], "output", names)
        return self.prompt(trace, names) + outputs
