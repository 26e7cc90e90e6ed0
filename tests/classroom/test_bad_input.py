"""Every bad input of the issue's list, over real HTTP on 127.0.0.1: each gets a clear 4xx JSON
answer naming the words that say why, and changes nothing: not the tally, not the queue."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest
from yarl import URL

from explainer.classroom.events import RoundOffer
from explainer.classroom.queue import ClassQueue
from explainer.classroom.room import Limits
from explainer.content.assets import load_texts
from tests.classroom.conftest import Phone, run

OFFER = RoundOffer(3, "Which token comes next?", ("a", "b", "c", "d"))


def _snapshot(served):
    return served.server._room.tally(), served.queue.lives(), served.server._room.phones()


async def _raw(session, method, url, data=None, headers=None):
    async with session.request(method, url, data=data, headers=headers) as r:
        return r.status, r.headers, await r.read()


def _setup(served):
    """A round open, one phone that voted and one that queued a prompt."""

    async def scenario():
        async with aiohttp.ClientSession() as session:
            voter, asker = Phone(session, served), Phone(session, served)
            await voter.join()
            await asker.join()
            served.server.offer(OFFER)
            assert (await voter.vote(3, 1))[0] == 200
            assert (await asker.prompt("Tell me a story"))[0] == 200
            return voter.device, asker.device

    return run(scenario())


BAD = [
    # (what, method, path (CODE = the room's), body bytes or a JSON value, status, key)
    ("wrong room code", "POST", "/r/ZZZZ/vote", {"device": "V", "round": 3, "choice": 0}, 404, "wrong_room"),
    ("missing room code", "POST", "/r//vote", {"device": "V", "round": 3, "choice": 0}, 404, "not_found"),
    ("no room at all", "GET", "/r/", None, 404, "not_found"),
    ("a replayed vote", "POST", "/r/CODE/vote", {"device": "V", "round": 3, "choice": 1}, 409, "already_voted"),
    ("a second vote", "POST", "/r/CODE/vote", {"device": "V", "round": 3, "choice": 2}, 409, "already_voted"),
    ("a choice not offered", "POST", "/r/CODE/vote", {"device": "A", "round": 3, "choice": 4}, 400, "no_such_choice"),
    ("a choice as text", "POST", "/r/CODE/vote", {"device": "A", "round": 3, "choice": "1"}, 400, "no_such_choice"),
    ("a negative choice", "POST", "/r/CODE/vote", {"device": "A", "round": 3, "choice": -1}, 400, "no_such_choice"),
    ("another round", "POST", "/r/CODE/vote", {"device": "A", "round": 2, "choice": 0}, 409, "wrong_round"),
    ("an unknown phone", "POST", "/r/CODE/vote", {"device": "guess", "round": 3, "choice": 0}, 403, "unknown_phone"),
    ("no phone", "POST", "/r/CODE/vote", {"round": 3, "choice": 0}, 403, "unknown_phone"),
    ("malformed JSON", "POST", "/r/CODE/vote", b'{"device": "A", "round": 3,', 400, "bad_json"),
    ("JSON not an object", "POST", "/r/CODE/vote", b"[1, 2]", 400, "bad_json"),
    ("deeply nested JSON", "POST", "/r/CODE/vote", b"[" * 2000 + b"]" * 2000, 400, "bad_json"),
    ("a body over 4 KB", "POST", "/r/CODE/vote", b'{"x": "' + b"a" * 5000 + b'"}', 413, "too_large"),
    ("a prompt over 4 KB", "POST", "/r/CODE/prompt", {"device": "A", "text": "é" * 2100}, 413, "too_large"),
    ("non-UTF-8", "POST", "/r/CODE/vote", b'{"device": "\xff\xfe", "round": 3}', 400, "not_utf8"),
    ("a prompt over the limit", "POST", "/r/CODE/prompt", {"device": "A", "text": "x" * 301}, 400, "too_long"),
    ("an empty prompt", "POST", "/r/CODE/prompt", {"device": "A", "text": "   "}, 400, "empty"),
    ("a prompt not text", "POST", "/r/CODE/prompt", {"device": "A", "text": ["hi"]}, 400, "bad_json"),
    ("a second prompt waiting", "POST", "/r/CODE/prompt", {"device": "A", "text": "again"}, 409, "already_queued"),
    ("a stranger's prompt", "POST", "/r/CODE/prompt", {"device": "guess", "text": "hi"}, 403, "unknown_phone"),
    ("a channel for no phone", "GET", "/r/CODE/events?device=guess", None, 403, "unknown_phone"),
    ("a vote by GET", "GET", "/r/CODE/vote", None, 405, "not_allowed"),
    ("a file outside the page", "GET", "/s/..%2F..%2Fpyproject.toml", None, 404, "not_found"),
    ("a dotted path", "GET", "/s/../en/app.json", None, 404, "not_found"),
    ("the words of another file", "GET", "/r/CODE/../../assets/en/app.json", None, 404, "not_found"),
    ("a settings file", "GET", "/settings.json", None, 404, "not_found"),
    ("a page not in the folder", "GET", "/s/secret.txt", None, 404, "not_found"),
]


@pytest.mark.parametrize(("what", "method", "path", "body", "status", "key"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_request_gets_a_clear_4xx_and_changes_nothing(served, what, method, path, body, status, key):
    voter, asker = _setup(served)
    before = _snapshot(served)
    path = path.replace("CODE", served.room)
    if isinstance(body, dict):
        phones = {"V": voter, "A": asker}
        body = json.dumps({k: phones.get(v, v) if k == "device" else v for k, v in body.items()}).encode()

    async def scenario():
        async with aiohttp.ClientSession() as session:
            url = URL(served.base + path, encoded=True)
            return await _raw(session, method, url, body, {"Content-Type": "application/json"})

    got, headers, raw = run(scenario())
    assert (got, json.loads(raw)) == (status, {"error": key})
    assert headers["X-Content-Type-Options"] == "nosniff" and "default-src 'self'" in headers["Content-Security-Policy"]
    assert key in load_texts().class_page["refused"]  # the page has words for it
    assert _snapshot(served) == before


def test_a_thousand_requests_a_second_from_one_address_are_refused(serve):
    served = serve(limits=Limits(rate=20, burst=60))
    voter, _asker = _setup(served)
    before = _snapshot(served)

    async def scenario():
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100)) as session:
            body = json.dumps({"device": voter, "round": 3, "choice": 0}).encode()
            url = served.url("/vote")
            began = time.monotonic()
            answers = await asyncio.gather(*(_raw(session, "POST", url, body) for _ in range(1000)))
            return answers, time.monotonic() - began

    answers, took = run(scenario())
    statuses = [status for status, _, _ in answers]
    assert set(statuses) <= {409, 429}  # already voted, or too many
    assert all(json.loads(raw) == {"error": "too_many_requests"} for status, _, raw in answers if status == 429)
    assert all(headers["Retry-After"] == "1" for status, headers, _ in answers if status == 429)  # 1/20 s, whole
    # the bucket lets through at most its burst and what refilled while they came
    assert statuses.count(409) <= 60 + 20 * took + 1
    assert _snapshot(served) == before


def test_a_refusal_that_passes_says_when_to_try_again(serve):
    """Every 429 carries Retry-After in whole seconds: the rate limit's from its bucket (one
    request every 10 s refills a token in 10 s), a full queue's a fixed wait (Limits)."""
    served = serve(ClassQueue(limit=1), Limits(rate=0.1, burst=4, full_wait_s=25))

    async def scenario():
        async with aiohttp.ClientSession() as session:
            first, second = Phone(session, served), Phone(session, served)
            await first.join()
            await second.join()
            assert (await first.prompt("one"))[0] == 200
            url = served.url("/prompt")
            full = await _raw(session, "POST", url, json.dumps({"device": second.device, "text": "two"}).encode())
            limited = await _raw(session, "GET", served.url("/words.json"))
            return full, limited

    (status, headers, raw), (limited, limited_headers, limited_raw) = run(scenario())
    assert (status, json.loads(raw), headers["Retry-After"]) == (429, {"error": "full"}, "25")
    assert (limited, json.loads(limited_raw)) == (429, {"error": "too_many_requests"})
    assert 9 <= int(limited_headers["Retry-After"]) <= 10  # the bucket's own wait, rounded up


def test_one_address_cannot_mint_phones_to_stuff_a_vote(serve):
    served = serve(limits=Limits(phones_per_address=3))

    async def scenario():
        async with aiohttp.ClientSession() as session:
            answers = []
            for _ in range(5):
                async with session.post(served.url("/join"), json={}) as r:
                    answers.append((r.status, await r.json()))
            return answers

    answers = run(scenario())
    assert [s for s, _ in answers] == [200, 200, 200, 403, 403]  # (not 429: waiting would not help)
    assert answers[-1][1] == {"error": "too_many_phones"} and served.server._room.phones() == 3


def test_open_connections_are_bounded(serve):
    """Three phones' live channels fill a cap of three: a fourth request is refused (503, and
    when to try again), since no connection is idle to make room (tests/classroom/test_crowds.py:
    idle ones do make room)."""
    served = serve(limits=Limits(connections=3))

    async def scenario():
        sessions = [aiohttp.ClientSession() for _ in range(4)]  # a connection each
        phones = [Phone(session, served) for session in sessions[:3]]
        try:
            for phone in phones:
                await phone.join()
                await phone.listen()
            return await _raw(sessions[3], "GET", served.url())
        finally:
            for phone in phones:
                phone.close()
            for session in sessions:
                await session.close()

    status, headers, raw = run(scenario())
    assert (status, json.loads(raw), headers["Retry-After"]) == (503, {"error": "busy"}, "5")
