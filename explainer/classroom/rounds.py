"""The class's rounds over one run: which pass is offered to the phones, and when it is revealed.

The class plays the same game as Predict (:mod:`explainer.lesson.game`): at a pass's layers stage,
before the chart is drawn, the phones get that pass's :class:`~explainer.lesson.game.Round` (the
same four choices in the same shuffled order, so the projector's Predict and the phones agree).
The instructor's next press, which steps on to the same pass's probabilities, reveals it: the
model's real probabilities beside the class's votes. A pass is voted once per run: coming back
to a revealed pass shows its reveal again; leaving a pass before its reveal closes its vote, and
it is offered afresh when the illustration reaches its layers again.

Qt-free and server-free: :meth:`ClassRounds.at` says what the cursor asks for (:class:`Close`, :class:`Offer`,
:class:`Reveal`, :class:`Show`, in order) and the Qt side does it.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.classroom.events import RoundOffer, RoundResult
from explainer.lesson.game import Round
from explainer.stages import Cursor, Stage


def offer_of(rnd: Round, round_id: int) -> RoundOffer:
    """The round as every phone shows it: Predict's question and four labels, in its order."""
    return RoundOffer(round_id, rnd.question, tuple(c.label for c in rnd.candidates))


def probs_of(rnd: Round) -> tuple[float, ...]:
    """The model's raw probability of each choice, in the offered order."""
    return tuple(c.prob for c in rnd.candidates)


def favourite_of(rnd: Round) -> int:
    """The index (in the offered order) of the model's most likely choice."""
    return next(i for i, c in enumerate(rnd.candidates) if c.id == rnd.top.id)


@dataclass(frozen=True, slots=True)
class Offer:
    step: int
    round: Round
    offer: RoundOffer


@dataclass(frozen=True, slots=True)
class Reveal:
    """Reveal the open round: ask the room for its result (:func:`probs_of`, :func:`favourite_of`),
    then :meth:`ClassRounds.revealed` with it."""

    step: int
    round: Round
    offer: RoundOffer


@dataclass(frozen=True, slots=True)
class Show:
    """A pass revealed earlier in this run: show its reveal again (no new vote)."""

    step: int
    round: Round
    result: RoundResult


@dataclass(frozen=True, slots=True)
class Close:
    """The open round's pass was left before its reveal: end its vote (no result)."""

    step: int


Move = Offer | Reveal | Show | Close


class ClassRounds:
    """One run's class rounds: the open one and those revealed (see the module docstring)."""

    def __init__(self) -> None:
        self._next_id = 1  # round ids increase over the whole class session (a late vote is refused)
        self.open: Offer | None = None
        self.results: dict[int, tuple[Round, RoundResult]] = {}  # step -> its round and reveal

    def new_run(self) -> None:
        """Another run on screen: its passes have not been voted."""
        self.open = None
        self.results = {}

    def at(self, cursor: Cursor, rnd: Round | None) -> tuple[Move, ...]:
        """What the cursor now on screen asks for, in order; ``rnd`` is the pass's round (None:
        no round could be made there). An offer opens its round here at once."""
        step = cursor.step
        moves: list[Move] = []
        opened = self.open
        if opened is not None:
            if opened.step == step and cursor.stage is Stage.LAYERS:
                return ()
            if opened.step == step and cursor.stage > Stage.LAYERS:
                return (Reveal(step, opened.round, opened.offer),)
            self.open = None
            moves.append(Close(opened.step))
        if step in self.results:
            done, result = self.results[step]
            if cursor.stage >= Stage.PROBABILITIES:
                moves.append(Show(step, done, result))
        elif cursor.stage is Stage.LAYERS and rnd is not None:
            self.open = Offer(step, rnd, offer_of(rnd, self._next_id))
            self._next_id += 1
            moves.append(self.open)
        return tuple(moves)

    def revealed(self, step: int, result: RoundResult) -> None:
        """The room's result of the open round at ``step``: it is shown from now on at that pass."""
        opened = self.open
        if opened is not None and opened.step == step:
            self.results[step] = (opened.round, result)
            self.open = None

    def result_at(self, step: int) -> tuple[Round, RoundResult] | None:
        return self.results.get(step)
