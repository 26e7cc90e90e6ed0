"""Simulated phones for `explainer bench --class`: real HTTP and Server-Sent Events clients
(aiohttp's) that join the class page, vote and send prompts as the phone page does.

They run in a thread of their own with their own event loop, so the window's thread is measured
as it is in a lecture: serving the server's events, never the phones. They talk only to the
loopback address (:func:`loopback_url` refuses any other): a benchmark sends no traffic to any
other machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import multiprocessing
import random
import threading
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, TypeVar
from urllib.parse import urlsplit

import aiohttp

T = TypeVar("T")


def loopback_url(url: str) -> str:
    """``url`` when its host is a loopback address; ValueError otherwise."""
    host = urlsplit(url).hostname or ""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"the simulated phones talk only to the loopback address, not {host!r}")
    return url


@dataclass
class VoteSent:
    sent: float  # time.perf_counter() when the vote left the phone
    answered: float  # when the server's answer came back
    status: int
    voted: int | None  # the count the vote made (its place in the tally), when counted


@dataclass
class Answer:
    """One phone's prompt, as its channel streamed it back."""

    sent: float
    number: int | None = None
    status: int = 0
    tokens: int = 0
    done: dict[str, Any] | None = None  # the channel's final figures
    finished: float | None = None


@dataclass
class _Phone:
    device: str
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    answer: Answer | None = None


class Phones:
    """``n`` phones of the class page at ``url`` (http://127.0.0.1:PORT/r/CODE)."""

    def __init__(self, url: str, n: int) -> None:
        self.url = loopback_url(url).rstrip("/")
        self.n = n
        self.phones: list[_Phone] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="bench-phones", daemon=True)
        self._thread.start()
        self._session: aiohttp.ClientSession | None = None
        self._listeners: list[asyncio.Task[None]] = []

    def _run(self, coro: Coroutine[Any, Any, T], timeout: float = 120.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    async def _post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        assert self._session is not None
        async with self._session.post(f"{self.url}/{path}", json=body) as r:
            return r.status, await r.json()

    # --- joining and listening ------------------------------------------------------------------

    def join(self) -> int:
        """Every phone joins and opens its live channel; the number that could."""
        return self._run(self._join())

    async def _join(self) -> int:
        connector = aiohttp.TCPConnector(limit=0)
        self._session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None))
        answers = await asyncio.gather(*(self._post("join", {}) for _ in range(self.n)))
        self.phones = [_Phone(body["device"]) for status, body in answers if status == 200]
        self._listeners = [asyncio.create_task(self._listen(p)) for p in self.phones]
        await asyncio.sleep(0.5)  # the channels open
        return len(self.phones)

    async def _listen(self, phone: _Phone) -> None:
        assert self._session is not None
        try:
            async with self._session.get(f"{self.url}/events", params={"device": phone.device}) as r:
                kind = ""
                async for raw in r.content:
                    line = raw.decode("utf-8").rstrip("\n")
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        self._heard(phone, kind, json.loads(line[6:]))
        except (aiohttp.ClientError, asyncio.CancelledError):
            pass

    def _heard(self, phone: _Phone, kind: str, data: dict[str, Any]) -> None:
        phone.events.append((kind, data))
        answer = phone.answer
        if answer is None:
            return
        if kind == "token":
            answer.tokens += 1
        elif kind == "done":
            answer.done, answer.finished = data, time.perf_counter()

    def offered(self, round_id: int) -> int:
        """Phones whose channel has shown round ``round_id``."""
        return sum(any(k == "round" and d.get("round_id") == round_id for k, d in p.events) for p in self.phones)

    # --- voting and asking ----------------------------------------------------------------------

    def vote(self, round_id: int, choices: int, within_s: float = 1.0, seed: int = 0) -> list[VoteSent]:
        """Every phone votes once, at a random moment of the next ``within_s`` seconds."""
        return self._run(self._vote(round_id, choices, within_s, random.Random(seed)))

    async def _vote(self, round_id: int, choices: int, within_s: float, rng: random.Random) -> list[VoteSent]:
        async def one(phone: _Phone, delay: float, choice: int) -> VoteSent:
            await asyncio.sleep(delay)
            sent = time.perf_counter()
            status, body = await self._post("vote", {"device": phone.device, "round": round_id, "choice": choice})
            return VoteSent(sent, time.perf_counter(), status, body.get("voted"))

        plan = [(p, rng.uniform(0, within_s), rng.randrange(choices)) for p in self.phones]
        return list(await asyncio.gather(*(one(*p) for p in plan)))

    def ask(self, count: int, text: str) -> list[Answer]:
        """The first ``count`` phones each send ``text`` (one after another, in that order)."""
        return self.ask_each([text] * count)

    def ask_each(self, texts: Sequence[str]) -> list[Answer]:
        """Phone i sends ``texts[i]`` (one after another, in that order)."""
        if len(texts) > len(self.phones):
            raise ValueError(f"{len(texts)} prompts for {len(self.phones)} phones: one prompt a phone")
        return self._run(self._ask(texts))

    async def _ask(self, texts: Sequence[str]) -> list[Answer]:
        answers = []
        for phone, text in zip(self.phones[: len(texts)], texts, strict=True):
            answer = phone.answer = Answer(time.perf_counter())
            answer.status, body = await self._post("prompt", {"device": phone.device, "text": text})
            answer.number = body.get("number")
            answers.append(answer)
        return answers

    def answers(self) -> list[Answer]:
        """The prompts' answers so far, in the order they were sent."""
        return [p.answer for p in self.phones if p.answer is not None]

    def close(self) -> None:
        async def shut() -> None:
            for task in self._listeners:
                task.cancel()
            if self._session is not None:
                await self._session.close()

        try:
            self._run(shut(), timeout=10)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            if not self._thread.is_alive():
                self._loop.close()


def _serve_phones(conn: Connection, url: str, n: int) -> None:
    """The phones' process: runs each command the bench sends, answers with its result."""
    phones = Phones(url, n)
    try:
        while True:
            name, args = conn.recv()
            if name == "close":
                break
            conn.send(getattr(phones, name)(*args))
    finally:
        phones.close()
        conn.close()


class PhonesProcess:
    """:class:`Phones` in a process of their own: the window's process then measures its own
    threads (the window's and the server's) without the phones' Python competing for its
    interpreter lock, as real phones do not. Times are ``time.perf_counter()``, which on Linux is
    the system-wide monotonic clock, so the two processes' times share one axis."""

    def __init__(self, url: str, n: int) -> None:
        context = multiprocessing.get_context("spawn")  # (no fork of a process running Qt's threads)
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve_phones, args=(child, loopback_url(url), n), daemon=True)
        self._process.start()
        child.close()

    def _ask(self, name: str, *args: object) -> Any:
        self._conn.send((name, args))
        return self._conn.recv()

    def join(self) -> int:
        return int(self._ask("join"))

    def offered(self, round_id: int) -> int:
        return int(self._ask("offered", round_id))

    def vote(self, round_id: int, choices: int, within_s: float = 1.0, seed: int = 0) -> list[VoteSent]:
        return list(self._ask("vote", round_id, choices, within_s, seed))

    def ask(self, count: int, text: str) -> list[Answer]:
        return list(self._ask("ask", count, text))

    def answers(self) -> list[Answer]:
        return list(self._ask("answers"))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._conn.send(("close", ()))
        self._process.join(15)
        if self._process.is_alive():
            self._process.kill()
