"""Token chips: how a token of the context is labelled and coloured.

Chips are made once per token and request and then shared by every frame (:class:`ChipMaker`):
a long context has thousands, and a frame that compares them with the frame before then only
compares identities.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from explainer.engine.trace import TokenRef, Trace
from explainer.illustration.formatting import NEWLINE, SPACE, TAB, is_special, visible
from explainer.illustration.vocab import TokenNames

ChipKind = Literal["input", "output"]
WHITESPACE_MARKS = frozenset((SPACE, NEWLINE, TAB))  # what a label shows for invisible whitespace


@dataclass(frozen=True, slots=True)
class Chip:
    id: int
    text: str  # as recorded
    label: str  # as drawn: visible whitespace, a piece of a character as its bytes
    kind: ChipKind
    special: bool


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
            text="".join(c.text for c in chips),
            marked=shows_whitespace(chips),
        )


NO_PROMPT = PromptFacts(0, False, "", False)


class ChipMaker:
    """Chips for one request's tokens, made once each (see the module docstring)."""

    def __init__(self) -> None:
        self._prompt_of: list[TokenRef] | None = None  # the prompt list the cached chips were made for
        self._prompt: tuple[Chip, ...] = ()
        self._facts = NO_PROMPT
        self._made: dict[tuple[int, str, ChipKind], Chip] = {}

    def chip(self, token: TokenRef, kind: ChipKind, names: TokenNames) -> Chip:
        key = (token.id, token.text, kind)
        chip = self._made.get(key)
        if chip is None:
            label = visible(names.display(token.id, token.text))
            chip = self._made[key] = Chip(token.id, token.text, label, kind, is_special(token.text))
        return chip

    def prompt(self, trace: Trace, names: TokenNames) -> tuple[Chip, ...]:
        if trace.prompt_tokens is not self._prompt_of:
            self._prompt_of = trace.prompt_tokens
            self._prompt = tuple(self.chip(t, "input", names) for t in trace.prompt_tokens)
            self._facts = PromptFacts.of(self._prompt)
        return self._prompt

    def prompt_facts(self, trace: Trace, names: TokenNames) -> PromptFacts:
        self.prompt(trace, names)
        return self._facts

    def context(self, trace: Trace, names: TokenNames, n_outputs: int) -> tuple[Chip, ...]:
        """The prompt's chips and the first ``n_outputs`` chosen tokens'."""
        outputs = tuple(self.chip(st.sampling.chosen, "output", names) for st in trace.steps[:n_outputs])
        return self.prompt(trace, names) + outputs
