"""Clients that are slow, crowded or loop, over real HTTP on 127.0.0.1 (never another address):
a request head or body trickled a byte at a time, a phone that stops reading its channel, 600
connections that send nothing, a phone that reopens its channel in a tight loop. Each is bounded
in count and time, stops by itself, and runs on small Limits so it takes seconds."""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import socket
import time

import aiohttp
import pytest

from explainer.classroom.events import PhonesChanged, RoundOffer, ServerEvent
from explainer.classroom.room import Limits
from tests.classroom.conftest import Phone, run

OFFER = RoundOffer(3, "Which token comes next?", ("a", "b", "c", "d"))
BOUND_S = 10.0  # a guard on each wait, far above the limits under test (never a measure of speed)


def _phones(events: list[ServerEvent]) -> list[PhonesChanged]:
    return [e for e in events if isinstance(e, PhonesChanged)]


async def _closed(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection (bounded)."""
    return await asyncio.wait_for(reader.read(), BOUND_S)


def test_a_request_head_trickled_a_byte_at_a_time_is_cut_off(serve):
    served = serve(limits=Limits(idle_s=1.0))

    async def scenario():
        reader, writer = await asyncio.open_connection("127.0.0.1", served.listening.port)
        writer.write(f"GET /r/{served.room} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
        began, sent = time.monotonic(), 0
        while not reader.at_eof() and sent < 100:  # a header line every 0.1 s: 10 s at most
            with contextlib.suppress(ConnectionError):
                writer.write(b"X-Slow: .\r\n")
            sent += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(reader.read(1), 0.1)
        writer.close()
        return sent, time.monotonic() - began

    sent, took = run(scenario())
    assert sent < 100, "the server kept reading a head that never ended"
    assert took < BOUND_S


def test_a_body_trickled_a_byte_at_a_time_is_refused_when_its_deadline_passes(serve):
    served = serve(limits=Limits(read_s=1.0))
    before = served.server._room.phones()

    async def scenario():
        reader, writer = await asyncio.open_connection("127.0.0.1", served.listening.port)
        head = f"POST /r/{served.room}/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 200\r\n\r\n"
        writer.write(head.encode())
        answer, sent = b"", 0
        while not reader.at_eof() and sent < 200:  # a byte every 0.05 s: 10 s at most
            with contextlib.suppress(ConnectionError):
                writer.write(b" ")
            sent += 1
            with contextlib.suppress(TimeoutError):
                answer += await asyncio.wait_for(reader.read(4096), 0.05)
        answer += await _closed(reader)
        writer.close()
        return answer, sent

    answer, sent = run(scenario())
    assert sent < 200, "the server kept reading a body that never ended"
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ") and json.loads(body) == {"error": "too_slow"}
    assert served.server._room.phones() == before  # nothing joined


def test_a_phone_that_stops_reading_its_channel_is_dropped_and_the_others_keep_theirs(serve):
    """Rounds of 100 KB each are sent to two phones: one reads them, one never reads (its socket's
    buffers fill, so the server's writes to it wait); that one is dropped within write_s."""
    served = serve(limits=Limits(write_s=1.0))
    big = "x" * 100_000

    async def scenario():
        async with aiohttp.ClientSession() as session:
            reading, stalled = Phone(session, served), Phone(session, served)
            await reading.join()
            await stalled.join()
            await reading.listen()
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # (before connect: a small window)
            sock.connect(("127.0.0.1", served.listening.port))
            sock.sendall(f"GET /r/{served.room}/events?device={stalled.device} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            served.recorder.wait_for(lambda ev: PhonesChanged(2) in ev)
            got = 0
            try:
                for n in range(1, 201):  # 20 MB: more than a socket's buffers hold
                    served.server.offer(RoundOffer(n, big, OFFER.choices))
                    kind, data = await reading.next()
                    got += kind == "round" and data["question"] == big
                dropped = served.recorder.wait_for(
                    lambda ev: [e for e in ev if isinstance(e, PhonesChanged)][-1:] == [PhonesChanged(1)]
                )
                served.server.offer(OFFER)  # the reading phone is still served
                after = await reading.next()
            finally:
                sock.close()
                reading.close()
            return got, dropped, after

    got, dropped, after = run(scenario())
    assert got == 200 and after[0] == "round" and after[1]["round_id"] == OFFER.round_id
    assert [e for e in dropped if isinstance(e, PhonesChanged)] == [
        PhonesChanged(1),
        PhonesChanged(2),
        PhonesChanged(1),
    ]


@pytest.fixture
def enough_files():
    """enough_files(n): at least n files may be open in this process until the test ends."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    def raise_to(needed: int) -> None:
        if soft < needed:
            if hard != resource.RLIM_INFINITY and hard < needed:
                pytest.fail(f"this test needs {needed} open files; the hard limit is {hard}")
            resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))

    yield raise_to
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_600_silent_connections_are_closed_and_a_phone_is_answered_meanwhile(serve, enough_files):
    """600 connections that send nothing, past a cap of 500: a phone's requests make room at once
    (the silent ones are closed, never the phone's channel), and every silent one is closed
    within idle_s of its start."""
    enough_files(2 * 600 + 300)  # both ends of each connection live in this process
    served = serve(limits=Limits(connections=500, idle_s=3.0))

    async def scenario():
        silent: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        for _ in range(6):  # a hundred at a time: within the listening socket's backlog
            opened = await asyncio.gather(
                *(asyncio.open_connection("127.0.0.1", served.listening.port) for _ in range(100))
            )
            silent.extend(opened)
        try:
            async with aiohttp.ClientSession() as session:
                phone = Phone(session, served)
                await phone.join()  # (a 503 fails it: its assert wants 200)
                await phone.listen()
                served.recorder.wait_for(lambda ev: PhonesChanged(1) in ev)
                served.server.offer(OFFER)
                assert (await phone.next())[0] == "round"
                assert (await phone.vote(3, 1))[0] == 200
                leftovers = await asyncio.gather(*(_closed(reader) for reader, _ in silent))
                served.server.reveal(served.server.result(3, (0.4, 0.3, 0.2, 0.1), favourite=0))
                kind, data = await phone.next()  # its channel outlived them all
                phone.close()
                return leftovers, kind, data
        finally:
            for _, writer in silent:
                writer.close()

    leftovers, kind, data = run(scenario())
    assert leftovers == [b""] * 600  # each closed, having been sent nothing
    assert kind == "reveal" and data["yours"] == 1


def test_a_phone_that_reopens_its_channel_in_a_loop_is_refused_and_the_others_are_not(serve):
    """A hundred reopens as fast as it can, from the address three other phones share (a NAT's):
    past its own burst the looping phone is refused (429, and when to try again), and the others'
    channels and votes go on, since its refusals are not counted against the address."""
    served = serve(limits=Limits(channel_rate=0.5, channel_burst=5, rate=20, burst=60))

    async def scenario():
        async with aiohttp.ClientSession() as session:
            others = [Phone(session, served) for _ in range(3)]
            for phone in others:
                await phone.join()
                await phone.listen()
            served.recorder.wait_for(lambda ev: PhonesChanged(3) in ev)
            looping = Phone(session, served)
            device = await looping.join()
            answers, began = [], time.monotonic()
            for _ in range(100):  # more than the address's burst of 60
                async with session.get(served.url("/events"), params={"device": device}) as r:
                    answers.append((r.status, r.headers.get("Retry-After")))
            took = time.monotonic() - began
            served.server.offer(OFFER)
            heard = [(await phone.next())[0] for phone in others]
            votes = [(await phone.vote(3, 0))[0] for phone in others]
            for phone in others:
                phone.close()
            return answers, took, heard, votes

    answers, took, heard, votes = run(scenario())
    statuses = [status for status, _ in answers]
    assert statuses[:5] == [200] * 5 and statuses.count(200) <= 5 + 0.5 * took + 1  # its burst, and what refilled
    assert set(statuses) == {200, 429}
    assert {wait for status, wait in answers if status == 429} <= {"1", "2"}  # a token back every 2 s
    assert heard == ["round"] * 3 and votes == [200] * 3
