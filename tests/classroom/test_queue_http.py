"""The class's prompts over real HTTP: first come, first served, the limit of the queue and one
request per phone, and each answer streamed to its own phone only, with the figures measured on
the queue's clock. The test plays the worker (take, prefill_began, token_made, finished)."""

from __future__ import annotations

import os

import aiohttp

from explainer.classroom.events import RoundOffer
from explainer.classroom.queue import ClassQueue
from tests.classroom.conftest import Phone, run
from tests.engine.test_trace import ended


def tokens_made(queue: ClassQueue, number: int) -> int:
    life = queue.life(number)
    assert life is not None, f"no request {number}"
    return len(life.token_times)


def test_prompts_are_served_in_order_and_stream_to_their_own_phone(serve):
    now = [0.0]
    queue = ClassQueue(clock=lambda: now[0], limit=2)
    served = serve(queue=queue)

    async def scenario():
        async with aiohttp.ClientSession() as session:
            a, b, c = (Phone(session, served) for _ in range(3))
            for phone in (a, b, c):
                await phone.join()
                await phone.listen()
            now[0] = 1.0
            assert await a.prompt("  Once upon a time  ") == (200, {"number": 1})
            assert await a.next() == ("queued", {"number": 1, "ahead": 0})
            now[0] = 2.0
            assert await b.prompt("The capital of France is") == (200, {"number": 2})
            assert await b.next() == ("queued", {"number": 2, "ahead": 1})
            assert await c.prompt("Full?") == (429, {"error": "full"})  # 2 waiting: the limit
            assert await a.prompt("Again") == (409, {"error": "already_queued"})
            assert [life.text for life in queue.lives()] == ["Once upon a time", "The capital of France is"]

            # the worker's side, as EngineController does it
            now[0] = 4.0
            first = queue.take()
            assert first is not None and first.number == 1 and first.device == a.device
            assert await a.next() == ("started", {"number": 1, "wait_s": 3.0})
            assert await b.next() == ("queued", {"number": 2, "ahead": 0})  # one fewer ahead of b now
            assert await c.prompt("Now there is room") == (200, {"number": 3})
            assert await c.next() == ("queued", {"number": 3, "ahead": 1})
            now[0] = 4.5
            queue.prefill_began(1, 5)
            assert await a.next() == ("reading", {"number": 1, "prompt_tokens": 5})
            for when, text in ((5.0, " there"), (5.5, " was"), (6.5, " a")):
                now[0] = when
                queue.token_made(1, text.encode())
                assert await a.next() == ("token", {"number": 1, "text": text, "n": tokens_made(queue, 1)})
            now[0] = 7.0
            queue.finished(1, ended("max_tokens"))
            done = {
                "number": 1,
                "state": "done",
                "stop_reason": "max_tokens",
                "wait_s": 3.0,  # taken at 4.0, arrived at 1.0
                "ttft_s": 4.0,  # first token at 5.0: the wait included
                "tpot_s": 0.75,  # the median of 0.5 and 1.0
                "tokens": 3,
                "prompt_tokens": 5,
                "unfinished": False,  # the answer ended on a whole character
            }
            assert await a.next() == ("done", done)
            life = queue.life(1)
            assert life is not None and (life.wait_s, life.ttft_s, life.tpot_s) == (3.0, 4.0, 0.75)

            now[0] = 8.0
            second = queue.take()
            assert second is not None and second.device == b.device  # first come, first served
            # b heard nothing of a's request: its next message is its own start
            assert await b.next() == ("started", {"number": 2, "wait_s": 6.0})
            assert await c.next() == ("queued", {"number": 3, "ahead": 0})
            queue.failed(2)
            assert (await b.next())[1]["state"] == "failed"
            assert await a.prompt("A second question") == (200, {"number": 4})  # a's first is done
            for phone in (a, b, c):
                phone.close()

    run(scenario())


def test_nothing_is_written_to_disk(serve, tmp_path, monkeypatch):
    """A whole class session (join, vote, prompt, answer, stop) leaves the user's folders and the
    working folder as empty as they were."""
    folders = {name: tmp_path / name for name in ("home", "config", "cache", "data", "state", "cwd")}
    for folder in folders.values():
        folder.mkdir()
    monkeypatch.setenv("HOME", str(folders["home"]))
    for name in ("config", "cache", "data", "state"):
        monkeypatch.setenv(f"XDG_{name.upper()}_HOME", str(folders[name]))
    monkeypatch.chdir(folders["cwd"])

    queue = ClassQueue()
    served = serve(queue=queue)

    async def scenario():
        async with aiohttp.ClientSession() as session:
            phone = Phone(session, served)
            await phone.join()
            await phone.listen()
            served.server.offer(RoundOffer(1, "q", ("a", "b", "c", "d")))
            await phone.next()
            await phone.vote(1, 0)
            await phone.prompt("A secret question")
            await phone.next()
            life = queue.take()
            assert life is not None
            queue.token_made(life.number, b"ok")
            queue.finished(life.number, ended("eos"))
            while (await phone.next())[0] != "done":
                pass
            phone.close()

    run(scenario())
    served.server.stop()
    assert {name: os.listdir(folder) for name, folder in folders.items()} == {name: [] for name in folders}


def test_a_phone_that_reconnects_mid_answer_catches_up(served):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            phone = Phone(session, served)
            await phone.join()
            assert (await phone.prompt("Hello"))[0] == 200
            life = served.queue.take()
            assert life is not None
            served.queue.token_made(life.number, b"Hi")
            served.queue.token_made(life.number, b" there")
            await phone.listen()  # the channel opens late (a reload, a dropped Wi-Fi)
            assert await phone.next() == ("answer", {"number": 1, "text": "Hi there", "tokens": 2})
            assert await phone.next() == ("started", {"number": 1, "wait_s": round(life.wait_s, 4)})
            served.queue.token_made(life.number, b"!")
            assert await phone.next() == ("token", {"number": 1, "text": "!", "n": 3})
            other = Phone(session, served)
            await other.join()
            await other.listen()
            served.server.offer(RoundOffer(1, "q", ("a", "b", "c", "d")))
            assert (await other.next())[0] == "round"  # nothing of another phone's request
            phone.close()
            other.close()

    run(scenario())
