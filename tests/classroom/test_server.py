"""The class server over real HTTP on 127.0.0.1: joining, voting, the tally, the reveal reaching
each phone, the live channel, and stopping."""

from __future__ import annotations

import asyncio
import errno
import itertools
import socket
import time
from dataclasses import replace

import aiohttp
import pytest

from explainer.classroom.events import Listening, PhonesChanged, RoundOffer, StartFailed, Stopped, VotesChanged
from explainer.classroom.queue import ClassQueue
from explainer.classroom.room import Limits
from explainer.classroom.routes import CSP
from explainer.classroom.server import VOTES_INTERVAL_S, ClassServer, url_of
from tests.classroom.conftest import Phone, Recorder, run

OFFER = RoundOffer(7, "Which token comes next after “The cat”?", (" sat", " is", " was", " zebra"))
PROBS = (0.4, 0.3, 0.2, 0.01)


def test_the_url_has_the_room_code_and_brackets_an_ipv6_address(served):
    listening = served.listening
    assert listening.url == f"http://127.0.0.1:{listening.port}/r/{served.server.room}"
    assert listening.port > 0 and listening.address == "127.0.0.1" and listening.room == served.server.room
    assert url_of("fe80::1", 8080, "AC3D") == "http://[fe80::1]:8080/r/AC3D"
    assert isinstance(served.recorder.events[0], Listening)


def test_phones_join_vote_and_each_sees_its_own_reveal(served):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            phones = [Phone(session, served) for _ in range(3)]
            for phone in phones:
                await phone.join()
                await phone.listen()
            served.recorder.wait_for(lambda ev: any(e == PhonesChanged(3) for e in ev))
            served.server.offer(OFFER)
            for phone in phones:
                kind, data = await phone.next()
                assert (kind, data) == ("round", {**_round(), "yours": None})
            for place, (phone, choice) in enumerate(zip(phones, (0, 1, 1), strict=True), 1):
                answer = (200, {"counted": True, "round": 7, "choice": choice, "voted": place})
                assert await phone.vote(7, choice) == answer
            served.recorder.wait_for(lambda ev: VotesChanged(7, 3, 3, (1, 2, 0, 0)) in ev)
            result = served.server.result(7, PROBS, favourite=0)
            assert (result.votes, result.class_pick, result.right, result.rounds) == ((1, 2, 0, 0), 1, 0, 1)
            served.server.reveal(result)
            for phone, choice in zip(phones, (0, 1, 1), strict=True):
                kind, data = await phone.next()
                assert kind == "reveal" and data["yours"] == choice and data["class_pick"] == 1
                assert data["choices"] == list(OFFER.choices) and data["votes"] == [1, 2, 0, 0]
                phone.close()

    run(scenario())
    served.recorder.wait_for(lambda ev: [e for e in ev if isinstance(e, PhonesChanged)][-1] == PhonesChanged(0))


def test_a_phone_that_joins_mid_round_sees_the_round_and_its_vote(served):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            phone = Phone(session, served)
            await phone.join()
            served.server.offer(OFFER)
            await phone.vote(7, 2)
            await phone.listen()
            assert await phone.next() == ("round", {**_round(), "yours": 2})
            served.server.end_round()
            assert await phone.next() == ("ended", {"round_id": 7})
            assert await phone.vote(7, 1) == (409, {"error": "no_round"})
            phone.close()

    run(scenario())


def test_a_round_withdrawn_without_a_reveal_is_closed_on_every_phone(served):
    """The instructor opened another run while a vote was open: each phone hears the round was
    withdrawn (not "wait for the reveal"), a late vote is refused, and a phone that joins after
    it sees no round."""

    async def scenario():
        async with aiohttp.ClientSession() as session:
            phones = [Phone(session, served) for _ in range(2)]
            for phone in phones:
                await phone.join()
                await phone.listen()
            served.recorder.wait_for(lambda ev: PhonesChanged(2) in ev)  # (else the round may come twice)
            served.server.offer(OFFER)
            for phone in phones:
                assert (await phone.next())[0] == "round"
            assert (await phones[0].vote(7, 1))[0] == 200
            assert served.server.withdraw_round() == 7
            for phone in phones:
                assert await phone.next() == ("withdrawn", {"round_id": 7})
            assert await phones[1].vote(7, 2) == (409, {"error": "no_round"})
            assert served.server.withdraw_round() is None  # none open: nothing to say
            late = Phone(session, served)
            await late.join()
            await late.listen()
            served.recorder.wait_for(lambda ev: PhonesChanged(3) in ev)
            served.server.offer(replace(OFFER, round_id=8))
            for phone in (*phones, late):
                assert await phone.next() == ("round", {**_round(), "round_id": 8, "yours": None})
                phone.close()

    run(scenario())


def _round():
    return {"round_id": 7, "question": OFFER.question, "choices": list(OFFER.choices)}


def test_a_second_channel_replaces_the_first(served):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            first = Phone(session, served)
            await first.join()
            await first.listen()
            second = Phone(session, served)
            second.device = first.device
            await second.listen()
            assert await first.next() == ("replaced", {})
            with pytest.raises(EOFError):
                await first.next()
            served.server.offer(OFFER)
            assert (await second.next())[0] == "round"
            second.close()

    run(scenario())
    served.recorder.wait_for(lambda ev: [e for e in ev if isinstance(e, PhonesChanged)][-1] == PhonesChanged(0))


def test_a_rejoining_tab_keeps_its_id(served):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            phone = Phone(session, served)
            device = await phone.join()
            assert await phone.post("/join", {"device": device}) == (200, {"device": device, "room": served.room})
            status, other = await phone.post("/join", {"device": "made-up"})
            assert status == 200 and other["device"] not in (device, "made-up")

    run(scenario())


def test_the_page_its_words_and_files_are_served_with_a_strict_policy(served):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            for url, kind in (
                (served.url(room=served.room.lower()), "text/html"),
                (served.url("/words.json"), "application/json"),
                (f"{served.base}/s/class.js", "text/javascript"),
                (f"{served.base}/s/class.css", "text/css"),
                (served.url("/nothing"), "application/json"),
            ):
                async with session.get(url) as r:
                    assert r.content_type == kind, url
                    assert r.headers["Content-Security-Policy"] == CSP
                    assert r.headers["X-Content-Type-Options"] == "nosniff"
                    body = await r.read()
                    if kind == "text/html":
                        assert b"<script>" not in body and b"style=" not in body and b"<style" not in body
                        assert b'src="/s/class.js"' in body
            async with session.get(served.url("/words.json")) as r:
                words = await r.json()
            assert words["refused"]["too_long"] and words["page"]["counter"]

    run(scenario())
    assert "'unsafe-inline'" not in CSP and "default-src 'self'" in CSP


def test_stop_closes_every_connection_and_the_socket(served):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            phone = Phone(session, served)
            await phone.join()
            await phone.listen()
            served.server.stop()
            assert await phone.next() == ("closed", {"reason": "stopped"})  # (test_session_end.py)
            with pytest.raises((EOFError, aiohttp.ClientError)):
                await phone.next()
            with pytest.raises(aiohttp.ClientConnectionError):
                await session.get(served.url())

    run(scenario())
    assert isinstance(served.recorder.events[-1], Stopped) and not served.server.running
    served.server.stop()  # twice is fine


def test_a_busy_port_is_one_clear_line_and_what_to_do(served):
    recorder = Recorder()
    other = ClassServer(ClassQueue(), recorder)
    failed = other.start("127.0.0.1", served.listening.port)
    assert isinstance(failed, StartFailed) and recorder.events == [failed]
    assert str(served.listening.port) in failed.message and "\n" not in failed.message
    assert "port" in failed.hint
    other.stop()


def test_each_bind_failure_is_one_clear_line_and_what_to_do():
    server = ClassServer(ClassQueue(), Recorder())  # (never started: tests bind only 127.0.0.1)
    gone = server._bind_failed(OSError(errno.EADDRNOTAVAIL, "gone"), "10.1.2.3", 8000)
    assert "10.1.2.3" in gone.message and "network" in gone.hint
    denied = server._bind_failed(OSError(errno.EACCES, "denied"), "10.1.2.3", 80)
    assert "80" in denied.message and "1024" in denied.hint
    other = server._bind_failed(OSError(errno.ENOBUFS, "no buffers"), "10.1.2.3", 8000)
    assert "no buffers" in other.message and "{" not in other.message + other.hint


def test_the_idle_connection_is_closed(serve):
    served = serve(limits=Limits(idle_s=0.2))
    with socket.create_connection(("127.0.0.1", served.listening.port)) as s:
        s.settimeout(20)
        assert s.recv(1) == b""  # closed by the server, having sent nothing


def test_votes_are_reported_at_most_every_50_ms_and_the_last_state_always(serve):
    """Forty phones vote at once: every vote is counted, the reports are spaced by the server's
    interval (a floor, whatever the load), and the last report is the final count."""
    served = serve(limits=Limits(phones_per_address=100, rate=1000, burst=1000))  # 40 phones on one address
    times: list[tuple[float, object]] = []
    recorder = served.recorder

    def timed(event):
        times.append((time.monotonic(), event))
        Recorder.__call__(recorder, event)

    served.server._on_event = timed

    async def scenario():
        async with aiohttp.ClientSession() as session:
            phones = [Phone(session, served) for _ in range(40)]
            for phone in phones:
                await phone.join()
                await phone.listen()
            recorder.wait_for(lambda ev: PhonesChanged(40) in ev)
            served.server.offer(OFFER)
            answers = await asyncio.gather(*(phone.vote(7, i % 4) for i, phone in enumerate(phones)))
            assert all(status == 200 for status, _ in answers)
            recorder.wait_for(lambda ev: VotesChanged(7, 40, 40, (10, 10, 10, 10)) in ev)
            for phone in phones:
                phone.close()

    run(scenario())
    final = VotesChanged(7, 40, 40, (10, 10, 10, 10))
    reports = [(t, e) for t, e in times if isinstance(e, VotesChanged)]
    assert reports[-1][1] == final and final in [e for _, e in reports]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(reports)]
    assert all(gap >= VOTES_INTERVAL_S * 0.9 for gap in gaps), gaps


def test_a_stopped_server_starts_again_with_a_new_room(served):
    first = served.listening
    served.server.stop()
    again = served.server.start("127.0.0.1", 0)
    assert isinstance(again, Listening) and again.room == served.server.room

    async def scenario():
        async with aiohttp.ClientSession() as session:
            async with session.get(again.url) as r:
                assert r.status == 200
            if again.room != first.room:  # the old code's page is the join page, its API a refusal
                async with session.get(f"http://127.0.0.1:{again.port}/r/{first.room}") as r:
                    assert (r.status, r.content_type) == (404, "text/html")
                async with session.get(f"http://127.0.0.1:{again.port}/r/{first.room}/words.json") as r:
                    assert (r.status, await r.json()) == (404, {"error": "wrong_room"})

    run(scenario())


def test_a_stop_while_the_bind_is_slow_closes_it_when_it_comes(monkeypatch):
    """start() gives up after its wait and stops; the bind that finishes later closes at once."""
    import threading

    from explainer.classroom import server as server_module

    monkeypatch.setattr(server_module, "START_TIMEOUT_S", 0.01)
    recorder = Recorder()
    server = ClassServer(ClassQueue(), recorder)
    release, real_bind = threading.Event(), server._bind

    async def slow_bind(*args):
        await asyncio.to_thread(release.wait, 20)  # held until stop() has given up on it
        return await real_bind(*args)

    def release_once_abandoned():
        while not server._abandoned and not release.is_set():
            time.sleep(0.01)
        release.set()

    monkeypatch.setattr(server, "_bind", slow_bind)
    threading.Thread(target=release_once_abandoned, daemon=True).start()
    failed = server.start("127.0.0.1", 0)
    release.set()
    assert isinstance(failed, StartFailed) and not server.running
    listening = [e for e in recorder.events if isinstance(e, Listening)]
    assert isinstance(recorder.events[-1], StartFailed) and isinstance(recorder.events[-2], Stopped)
    with pytest.raises(OSError):  # the late bind's socket is closed again
        socket.create_connection(("127.0.0.1", listening[0].port), timeout=5).close()
