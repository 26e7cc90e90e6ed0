"""The class's rounds over a real run: offered at a pass's layers, revealed by the next press,
shown again when the pass comes back, closed when it is left unrevealed."""

from __future__ import annotations

from explainer.classroom.room import Room
from explainer.classroom.rounds import ClassRounds, Close, Offer, Reveal, Show, favourite_of, probs_of
from explainer.content.assets import load_texts
from explainer.lesson.game import Rounds
from explainer.stages import Cursor, Stage
from tests.support.lesson import names_for

TEXTS = load_texts()


def test_offer_reveal_show_again_and_close(real_trace):
    trace = real_trace("paris")
    names = names_for(trace)
    memo = Rounds()  # Predict's memo: the same four in the same order as the projector's Predict
    rounds, room = ClassRounds(), Room()

    def at(step: int, stage: Stage):
        return rounds.at(Cursor(step, stage), memo.at(TEXTS, trace, step, names))

    assert at(0, Stage.EMBEDDINGS) == ()
    (offer,) = at(0, Stage.LAYERS)
    assert isinstance(offer, Offer)
    predict = memo.at(TEXTS, trace, 0, names)
    assert predict is not None
    assert offer.offer.choices == tuple(c.label for c in predict.candidates)
    assert offer.offer.question == predict.question
    assert at(0, Stage.LAYERS) == ()  # the same pass again: still open, not offered twice
    room.offer(offer.offer)
    (reveal,) = at(0, Stage.PROBABILITIES)
    assert isinstance(reveal, Reveal)
    probs = probs_of(reveal.round)
    fav = favourite_of(reveal.round)
    assert reveal.round.candidates[fav].id == reveal.round.top.id and max(probs) == probs[fav]
    result = room.result(reveal.offer.round_id, probs, fav)
    rounds.revealed(0, result)
    assert at(0, Stage.LAYERS) == ()  # voted once per run: no new vote on the way back
    (show,) = at(0, Stage.SAMPLING)
    assert isinstance(show, Show) and show.result == result
    (second,) = at(1, Stage.LAYERS)
    assert isinstance(second, Offer) and second.offer.round_id > offer.offer.round_id
    moves = at(0, Stage.PROBABILITIES)  # left unrevealed: its vote closes; pass 0 shows its reveal
    assert isinstance(moves[0], Close) and moves[0].step == 1 and isinstance(moves[1], Show)
    rounds.new_run()
    assert isinstance(at(0, Stage.LAYERS)[0], Offer)  # a new run is voted afresh
