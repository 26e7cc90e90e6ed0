"""The typed messages of class mode, both ways between the app and the server's thread.

The app → server direction is what the projector shows the phones: a round offered
(:class:`RoundOffer`) and its result (:class:`RoundResult`). The server → app direction is what
the phones did (:data:`ServerEvent`), delivered through the ``on_event`` callback the server is
given, in the server's thread: the Qt adapter re-emits it as a queued signal.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RoundOffer:
    """A pass's round, as every phone shows it: the same four choices in the same shuffled order
    (lesson.game.new_round's order, so the projector's Predict and the phones agree)."""

    round_id: int  # increases over a class session; a vote names it, so a late vote is refused
    question: str  # "Which token comes next after “…”?"
    choices: tuple[str, ...]  # the candidates' labels, as the chart writes them


@dataclass(kw_only=True, frozen=True, slots=True)
class RoundResult:
    """A round revealed: what each phone compares its own vote with."""

    round_id: int
    probs: tuple[float, ...]  # the model's raw probability of each choice, in the offered order
    votes: tuple[int, ...]  # the class's votes for each choice
    favourite: int  # index of the model's most likely choice
    class_pick: int | None  # index of the most-voted choice (ties: the likelier one); None: no votes
    right: int  # rounds where the class's pick was the model's favourite, this one included
    rounds: int  # rounds revealed so far in which the class voted, this one included


# --- server → app ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Listening:
    """The server is up: ``url`` is the class page's address with the room code in it, as the QR
    code encodes it and `explainer --class` prints it."""

    url: str
    address: str
    port: int
    room: str


@dataclass(frozen=True, slots=True)
class StartFailed:
    """The server could not start (port busy, address gone, ...): one line, and what to do."""

    message: str
    hint: str


@dataclass(frozen=True, slots=True)
class Stopped:
    """The server has closed its socket and every connection."""


@dataclass(frozen=True, slots=True)
class PhonesChanged:
    """``joined`` phones are in the room now (a phone that stops listening leaves it)."""

    joined: int


@dataclass(frozen=True, slots=True)
class VotesChanged:
    """A vote was counted in round ``round_id``: ``voted`` of ``joined`` phones have voted.
    ``votes`` (per choice) is for the reveal; the projector shows only the count before it."""

    round_id: int
    voted: int
    joined: int
    votes: tuple[int, ...]


ServerEvent = Listening | StartFailed | Stopped | PhonesChanged | VotesChanged
