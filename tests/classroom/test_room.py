"""The room's rules, without a network: the code, the phones, one vote per phone per round, the
tally, the class's pick and score, and the limits per address."""

from __future__ import annotations

from explainer.classroom.events import RoundOffer, VotesChanged
from explainer.classroom.room import (
    ALPHABET,
    JoinRefusal,
    Limits,
    RateLimiter,
    Room,
    VoteRefusal,
    class_pick,
    new_room_code,
)

OFFER = RoundOffer(1, "Which token comes next?", ("cat", "dog", "the", "zebra"))
PROBS = (0.5, 0.3, 0.15, 0.05)


def joined(room: Room, address: str) -> str:
    """A phone let in: its device id (a refusal fails the test)."""
    device = room.join(address)
    assert isinstance(device, str), device
    return device


def test_a_room_code_is_four_unambiguous_characters():
    codes = {new_room_code() for _ in range(200)}
    assert all(len(c) == 4 and set(c) <= set(ALPHABET) for c in codes)
    assert len(codes) > 150  # drawn at random
    assert not set("0O1IL2Z5S8B") & set(ALPHABET)


def test_the_code_matches_in_any_case_and_nothing_else():
    room = Room("AC3D")
    assert room.matches("ac3d") and room.matches("AC3D")
    assert not room.matches("AC3E") and not room.matches("") and not room.matches("AC3DD")


def test_each_join_gets_a_new_unguessable_id():
    room = Room()
    ids = [room.join(f"10.0.0.{i}") for i in range(20)]
    assert all(isinstance(d, str) and len(d) >= 20 for d in ids)
    assert len(set(ids)) == 20 and room.phones() == 20
    assert room.knows(ids[0]) and not room.knows("guess") and not room.knows(None)


def test_one_address_cannot_mint_ids_past_its_cap():
    room = Room(limits=Limits(phones_per_address=3))
    assert all(isinstance(room.join("10.0.0.9"), str) for _ in range(3))
    assert room.join("10.0.0.9") is JoinRefusal.TOO_MANY_PHONES
    assert isinstance(room.join("10.0.0.10"), str)
    assert room.phones() == 4


def test_the_room_is_full_at_its_limit():
    room = Room(limits=Limits(phones=2))
    room.join("a"), room.join("b")
    assert room.join("c") is JoinRefusal.ROOM_FULL


def test_one_vote_per_phone_per_round_for_an_offered_choice():
    room = Room()
    a, b = joined(room, "a"), joined(room, "b")
    assert room.vote(a, 1, 0) is VoteRefusal.NO_ROUND
    room.offer(OFFER)
    assert room.vote(a, 1, 2) == VotesChanged(1, 1, 2, (0, 0, 1, 0))
    assert room.vote(a, 1, 1) is VoteRefusal.ALREADY_VOTED
    assert room.vote(b, 2, 1) is VoteRefusal.WRONG_ROUND
    assert room.vote(b, "1", 1) is VoteRefusal.WRONG_ROUND
    for bad in (4, -1, "1", 1.0, True, None):
        assert room.vote(b, 1, bad) is VoteRefusal.NO_SUCH_CHOICE
    assert room.vote("stranger", 1, 1) is VoteRefusal.UNKNOWN_PHONE
    assert room.tally() == VotesChanged(1, 1, 2, (0, 0, 1, 0))  # nothing refused changed it
    assert room.vote(b, 1, 2) == VotesChanged(1, 2, 2, (0, 0, 2, 0))


def test_an_ended_round_refuses_votes_and_a_new_round_starts_empty():
    room = Room()
    a = joined(room, "a")
    room.offer(OFFER)
    room.vote(a, 1, 1)
    assert room.end_round() == OFFER
    assert room.vote(a, 1, 1) is VoteRefusal.NO_ROUND and room.vote_of(a, 1) == 1
    room.offer(RoundOffer(2, "q", ("x", "y", "z", "w")))
    assert room.tally() == VotesChanged(2, 0, 1, (0, 0, 0, 0))
    assert room.vote(a, 1, 1) is VoteRefusal.WRONG_ROUND and room.vote_of(a, 2) is None


def test_the_class_pick_is_the_most_voted_and_a_tie_goes_to_the_likelier():
    assert class_pick((1, 3, 0, 0), PROBS) == 1
    assert class_pick((2, 0, 2, 0), PROBS) == 0
    assert class_pick((0, 0, 2, 2), (0.1, 0.1, 0.2, 0.6)) == 3
    assert class_pick((0, 0, 0, 0), PROBS) is None


def test_the_result_counts_the_votes_and_keeps_the_score():
    room = Room()
    phones = [joined(room, str(i)) for i in range(5)]
    room.offer(OFFER)
    for device, choice in zip(phones, (0, 0, 1, 2, 0), strict=True):
        room.vote(device, 1, choice)
    first = room.result(1, PROBS, favourite=0)
    assert (first.votes, first.class_pick, first.right, first.rounds) == ((3, 1, 1, 0), 0, 1, 1)
    assert room.vote(phones[0], 1, 0) is VoteRefusal.NO_ROUND  # the reveal ended the round
    room.offer(RoundOffer(2, "q", ("a", "b", "c", "d")))
    room.vote(phones[0], 2, 3)
    second = room.result(2, PROBS, favourite=0)
    assert (second.class_pick, second.right, second.rounds) == (3, 1, 2)
    assert room.result(2, PROBS, favourite=0).rounds == 2  # revealed twice, counted once
    assert room.vote_of(phones[0], 2) == 3
    room.offer(RoundOffer(3, "q", ("a", "b", "c", "d")))
    silent = room.result(3, PROBS, favourite=0)
    assert (silent.votes, silent.class_pick, silent.right, silent.rounds) == (
        (0, 0, 0, 0),
        None,
        1,
        2,
    )  # nobody voted: not a round of the score


def test_the_rate_limit_is_a_bucket_per_address():
    now = [0.0]
    limiter = RateLimiter(rate=10, burst=5, addresses=2, clock=lambda: now[0])
    assert [limiter.allow("a") for _ in range(6)] == [True] * 5 + [False]
    assert limiter.allow("b")  # another address has its own bucket
    now[0] = 0.1  # one token back
    assert limiter.allow("a") and not limiter.allow("a")
    now[0] = 100.0
    assert sum(limiter.allow("a") for _ in range(20)) == 5  # refills to the burst, no more


def test_a_refused_request_is_told_how_long_until_its_bucket_has_a_token():
    now = [0.0]
    limiter = RateLimiter(rate=4, burst=2, addresses=8, clock=lambda: now[0])
    assert [limiter.take("a") for _ in range(2)] == [0.0, 0.0]
    assert limiter.take("a") == 0.25  # a token comes back every 1/4 s
    now[0] = 0.125
    assert limiter.take("a") == 0.125  # half of one is back: half the wait, and nothing was spent
    now[0] = 0.25
    assert limiter.take("a") == 0.0 and limiter.take("a") == 0.25


def test_the_limiter_forgets_the_oldest_addresses_past_its_bound():
    limiter = RateLimiter(rate=1, burst=1, addresses=2, clock=lambda: 0.0)
    assert limiter.allow("a") and not limiter.allow("a")
    limiter.allow("b"), limiter.allow("c")  # "a" is forgotten: memory stays bounded
    assert limiter.allow("a")


def test_every_refusal_has_words_on_the_phone():
    from explainer.classroom.queue import Refusal
    from explainer.classroom.routes import SERVER_REFUSALS
    from explainer.content.assets import load_texts

    keys = {r.value for enum in (VoteRefusal, JoinRefusal, Refusal) for r in enum} | set(SERVER_REFUSALS)
    assert keys == set(load_texts().class_page["refused"])


def test_an_earlier_round_shown_again_keeps_each_phones_vote():
    room = Room()
    a, b = joined(room, "a"), joined(room, "b")
    room.offer(OFFER)
    room.vote(a, 1, 3)
    first = room.result(1, PROBS, favourite=0)
    room.offer(RoundOffer(2, "q", ("w", "x", "y", "z")))
    room.vote(b, 2, 0)
    room.result(2, PROBS, favourite=0)
    room.reveal(first)  # the instructor steps back to the first pass
    assert room.last_result() == first and room.offered(1) == OFFER
    assert (room.vote_of(a, 1), room.vote_of(b, 1), room.vote_of(b, 2)) == (3, None, 0)
    again = room.result(1, PROBS, favourite=0)
    assert (again.votes, again.class_pick, again.rounds) == (first.votes, first.class_pick, 2)  # not counted twice
