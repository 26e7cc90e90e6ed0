"""The phones' live channels: one Server-Sent Events stream per phone, kept in the server's loop.

A phone opens one channel; opening a second (a reload, a second tab) closes the first, so a
phone is one channel and the room's count is the number of phones listening. Each channel has a
bounded queue: a phone too slow to read it is dropped rather than growing the server's memory.
Everything here runs in the server's event loop thread only.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from explainer.classroom.messages import Message

QUEUED_MESSAGES = 512  # a channel's unsent messages at most (an answer is 48 tokens)


def encode(message: Message) -> bytes:
    """One Server-Sent Event: ``event: kind`` and one line of ASCII JSON (no newline can end it)."""
    kind, data = message
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=True)}\n\n".encode("ascii")


class Channel:
    """One phone's stream: what waits to be written to it; None closes it."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.queue: asyncio.Queue[Message | None] = asyncio.Queue(QUEUED_MESSAGES + 1)
        self.closed = False

    def send(self, message: Message) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= QUEUED_MESSAGES:
            self.close()  # it cannot keep up: dropped, it reconnects
            return
        self.queue.put_nowait(message)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


class Hub:
    """The open channels by device; ``on_count`` hears the number of phones listening change."""

    def __init__(self, on_count: Callable[[int], None]) -> None:
        self._channels: dict[str, Channel] = {}
        self._on_count = on_count

    def __len__(self) -> int:
        return len(self._channels)

    def open(self, device: str) -> Channel:
        old = self._channels.pop(device, None)
        if old is not None:
            old.send(("replaced", {}))
            old.close()
        channel = self._channels[device] = Channel(device)
        if old is None:
            self._on_count(len(self._channels))
        return channel

    def close(self, channel: Channel) -> None:
        channel.close()
        if self._channels.get(channel.device) is channel:
            del self._channels[channel.device]
            self._on_count(len(self._channels))

    def close_all(self, farewell: Message | None = None) -> None:
        """Close every channel, each told ``farewell`` first (when the session ends)."""
        for channel in list(self._channels.values()):
            if farewell is not None:
                channel.send(farewell)
            channel.close()
        self._channels.clear()

    def send(self, device: str, message: Message) -> None:
        channel = self._channels.get(device)
        if channel is not None:
            channel.send(message)

    def broadcast(self, message_for: Callable[[str], Message]) -> None:
        """Each phone its own message (a reveal carries that phone's own vote)."""
        for device, channel in list(self._channels.items()):
            channel.send(message_for(device))
