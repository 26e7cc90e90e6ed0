"""The simulated phones of `bench --class` against the real class server on 127.0.0.1."""

from __future__ import annotations

import threading

import pytest

from explainer.bench.phones import Phones, loopback_url
from explainer.classroom.events import Listening, RoundOffer, ServerEvent, VotesChanged
from explainer.classroom.queue import ClassQueue
from explainer.classroom.room import Limits
from explainer.classroom.server import ClassServer


def test_phones_refuse_any_address_but_loopback() -> None:
    for url in ("http://192.168.1.20:8765/r/ABCD", "http://example.org/r/ABCD", "http://10.0.0.1/r/X"):
        with pytest.raises(ValueError, match="loopback"):
            loopback_url(url)
    assert loopback_url("http://127.0.0.1:1/r/ABCD") == "http://127.0.0.1:1/r/ABCD"


def test_every_phone_votes_once_and_every_vote_is_counted() -> None:
    heard: list[VotesChanged] = []
    last = threading.Event()
    n = 60

    def on_event(event: ServerEvent) -> None:
        if isinstance(event, VotesChanged):
            heard.append(event)
            if event.voted == n:
                last.set()

    limits = Limits(phones_per_address=n + 5, rate=10_000.0, burst=10_000.0)
    server = ClassServer(ClassQueue(), on_event, limits=limits)
    listening = server.start("127.0.0.1", 0)
    assert isinstance(listening, Listening), listening
    phones = Phones(listening.url, n)
    try:
        assert phones.join() == n
        server.offer(RoundOffer(1, "Which token comes next?", ("a", "b", "c", "d")))
        votes = phones.vote(1, 4, within_s=0.3)
        assert [v.status for v in votes] == [200] * n
        assert sorted(v.voted for v in votes if v.voted is not None) == list(range(1, n + 1))
        assert last.wait(10), "the last count was never reported"
        assert sum(heard[-1].votes) == n
        again = phones.vote(1, 4, within_s=0.0)  # a second vote in the round: refused, nothing counted
        assert {v.status for v in again} == {409}
        assert heard[-1].voted == n
    finally:
        phones.close()
        server.stop()
