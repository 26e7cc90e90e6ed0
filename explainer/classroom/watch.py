"""The class server's watch over its open connections: none holds a place without using it.

What aiohttp's server does by itself: it closes a connection idle between two requests after its
keep-alive timeout, and one that never completes a request head (only in recent releases,
aio-libs/aiohttp#13681, not in the older ones pyproject.toml allows), since that timer runs from
the connection's start and bytes trickled in do not push it back. It has no read timeout: a body
trickled a byte at a time is read for as long as it trickles, and nothing bounds how many
connections are open (each one it accepts holds a place until it goes idle).

So the server adds, whatever aiohttp's release:

- this watch, swept a few times per idle period: a connection that is not in a request (it sent
  nothing, trickles a head, or sits idle after an answer) for ``idle_s`` is closed; and past
  ``connections`` open, idle ones are closed to make room, those that never made a request
  first, oldest first. A request that arrives over the cap makes room at once the same way
  (:meth:`Watch.make_room`), so a phone's request is answered while silent connections crowd
  in, and is refused (503) only when every connection is in a request;
- a deadline on a request's body (routes.py, ``Limits.read_s``) and on each write to a live
  channel (``Limits.write_s``: a phone that takes no bytes is dropped, and its page reconnects).

Qt-free and aiohttp-free: a connection is anything with ``force_close()`` (aiohttp's
RequestHandler), and the server's loop thread is the only caller.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol


class Connection(Protocol):
    def force_close(self) -> None: ...


class Watch:
    """Which connections are in a request, and since when each other one has been idle."""

    def __init__(self, idle_s: float, cap: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_s, self.cap, self.clock = idle_s, cap, clock
        self._idle_since: dict[Connection, float] = {}  # first seen, or its last answer
        self._in_request: dict[Connection, int] = {}  # requests in hand (a pipelined one may overlap)
        self._served: set[Connection] = set()  # made a request once: a phone's, not a silent one
        self._closing: set[Connection] = set()  # closed here, still listed until its socket goes

    def began(self, connection: Connection) -> None:
        """A request arrived on ``connection`` (its head is whole): it is not idle until it ends."""
        self._in_request[connection] = self._in_request.get(connection, 0) + 1
        self._served.add(connection)

    def ended(self, connection: Connection) -> None:
        """Its request was answered: it is idle from now."""
        left = self._in_request.pop(connection, 1) - 1
        if left > 0:
            self._in_request[connection] = left
        self._idle_since[connection] = self.clock()

    def sweep(self, connections: Sequence[Connection]) -> list[Connection]:
        """Close the connections idle for ``idle_s`` or more, then idle ones past the cap; the
        closed ones. ``connections``: every one open now, oldest first (aiohttp's order)."""
        self._forget_gone(connections)
        now = self.clock()
        stale = [c for c in self._open(connections) if self._idle(c) and now - self._since(c, now) >= self.idle_s]
        self._close(stale)
        return stale + self._shed(connections)

    def make_room(self, connections: Sequence[Connection]) -> int:
        """Close idle connections until no more than the cap are open; how many are still over
        it (every one left is in a request)."""
        self._shed(connections)
        return max(0, len(self._open(connections)) - self.cap)

    def _open(self, connections: Sequence[Connection]) -> list[Connection]:
        return [c for c in connections if c not in self._closing]

    def _idle(self, connection: Connection) -> bool:
        return connection not in self._in_request

    def _since(self, connection: Connection, now: float) -> float:
        return self._idle_since.setdefault(connection, now)

    def _shed(self, connections: Sequence[Connection]) -> list[Connection]:
        open_now = self._open(connections)
        over = len(open_now) - self.cap
        if over <= 0:
            return []
        now = self.clock()
        # a connection that never made a request goes before a phone's idle one; the oldest first
        idle = sorted((c for c in open_now if self._idle(c)), key=lambda c: (c in self._served, self._since(c, now)))
        shed = idle[:over]
        self._close(shed)
        return shed

    def _close(self, connections: list[Connection]) -> None:
        for connection in connections:
            self._closing.add(connection)
            connection.force_close()

    def _forget_gone(self, connections: Sequence[Connection]) -> None:
        open_now = set(connections)
        for table in (self._idle_since, self._in_request):
            for gone in [c for c in table if c not in open_now]:
                del table[gone]
        self._served &= open_now
        self._closing &= open_now

    def remembered(self) -> int:
        """The connections it keeps anything of (all of them open at its last sweep)."""
        return len(self._idle_since.keys() | self._in_request.keys() | self._served | self._closing)
