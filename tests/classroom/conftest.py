"""Class mode's tests: a real ClassServer on 127.0.0.1 (never another address), phones made of
aiohttp's client, and a recorder of the server's events that a test can wait on."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import aiohttp
import pytest

from explainer.classroom.events import Listening, ServerEvent
from explainer.classroom.queue import ClassQueue
from explainer.classroom.room import Limits
from explainer.classroom.server import ClassServer

HANG_S = 20.0  # a guard against a hang, never a measure of speed


class Recorder:
    """The server's events, in the order its thread reported them."""

    def __init__(self) -> None:
        self.events: list[ServerEvent] = []
        self._changed = threading.Condition()

    def __call__(self, event: ServerEvent) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def wait_for(self, test: Callable[[list[ServerEvent]], bool]) -> list[ServerEvent]:
        with self._changed:
            assert self._changed.wait_for(lambda: test(self.events), HANG_S), self.events
            return list(self.events)

    def last(self, kind: type) -> Any:
        return next((e for e in reversed(self.events) if isinstance(e, kind)), None)


class Served:
    def __init__(self, queue: ClassQueue, limits: Limits | None = None) -> None:
        self.queue = queue
        self.recorder = Recorder()
        self.server = ClassServer(queue, self.recorder, limits=limits)
        started = self.server.start("127.0.0.1", 0)
        assert isinstance(started, Listening), started
        self.listening = started
        self.base = f"http://127.0.0.1:{started.port}"
        self.room = started.room

    def url(self, path: str = "", room: str | None = None) -> str:
        return f"{self.base}/r/{room or self.room}{path}"


@pytest.fixture
def serve() -> Iterator[Callable[..., Served]]:
    """serve(queue=None, limits=None): a started server, stopped after the test."""
    started: list[Served] = []

    def make(queue: ClassQueue | None = None, limits: Limits | None = None) -> Served:
        started.append(Served(queue or ClassQueue(), limits))
        return started[-1]

    yield make
    for s in started:
        s.server.stop()


@pytest.fixture
def driver(tmp_path, monkeypatch) -> Iterator[Any]:
    """A headless chromium with a phone's screen (tests/classroom/phone_browser.py)."""
    from tests.classroom.phone_browser import chromium_driver

    yield from chromium_driver(tmp_path / "profile", monkeypatch)


@pytest.fixture
def served(serve: Callable[..., Served]) -> Served:
    return serve()


def run(scenario) -> Any:
    """Run one async scenario in its own event loop (the server has its own, in its thread)."""
    return asyncio.run(asyncio.wait_for(scenario, HANG_S * 2))


class Phone:
    """One phone as the page drives the server: join, its live channel, vote, prompt."""

    def __init__(self, session: aiohttp.ClientSession, served: Served) -> None:
        self.session, self.served = session, served
        self.device: str | None = None
        self.stream: aiohttp.ClientResponse | None = None

    async def join(self) -> str:
        async with self.session.post(self.served.url("/join"), json={}) as r:
            assert r.status == 200, await r.text()
            self.device = (await r.json())["device"]
        return self.device

    async def listen(self) -> None:
        assert self.device is not None, "the phone listens after it joined"
        self.stream = await self.session.get(self.served.url("/events"), params={"device": self.device})
        assert self.stream.status == 200 and self.stream.content_type == "text/event-stream"

    async def next(self) -> tuple[str, dict[str, Any]]:
        """The next message of the live channel (comments skipped)."""
        assert self.stream is not None
        kind, data = "", ""
        while True:
            line = (await self.stream.content.readline()).decode("utf-8")
            if not line:
                raise EOFError("the channel closed")
            line = line.rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif not line and kind:
                return kind, json.loads(data)

    async def post(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        async with self.session.post(self.served.url(path), json=body) as r:
            return r.status, await r.json()

    async def vote(self, round_id: int, choice: Any) -> tuple[int, dict[str, Any]]:
        return await self.post("/vote", {"device": self.device, "round": round_id, "choice": choice})

    async def prompt(self, text: Any) -> tuple[int, dict[str, Any]]:
        return await self.post("/prompt", {"device": self.device, "text": text})

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
