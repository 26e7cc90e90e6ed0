"""The class page's web server: aiohttp in its own thread with its own event loop.

The app talks to it through thread-safe calls (:meth:`ClassServer.offer`, :meth:`reveal`,
:meth:`end_round`, :meth:`withdraw_round`) and hears from it through ``on_event``, called in the
server's thread (the Qt adapter re-emits each event as a queued signal, so the GUI thread never
waits on the network). :meth:`start` blocks only until the socket is bound or has failed;
:meth:`stop` tells every phone the session ended, closes the socket and every connection and
joins the thread. What the endpoints accept is routes.py's; what the live channel says is
messages.py's; which connections stay open, watch.py's.

Votes are counted in the room at once; what is reported (:class:`VotesChanged`) is coalesced to
at most one event per :data:`VOTES_INTERVAL_S`, the last state always reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from aiohttp import web

from explainer.classroom.channels import Hub
from explainer.classroom.events import (
    Listening,
    PhonesChanged,
    RoundOffer,
    RoundResult,
    ServerEvent,
    StartFailed,
    Stopped,
)
from explainer.classroom.messages import (
    closed_message,
    ended_message,
    phone_reveal,
    request_message,
    round_message,
    withdrawn_message,
)
from explainer.classroom.queue import ClassQueue, QueueChanged, State
from explainer.classroom.room import Limits, RateLimiter, Room
from explainer.classroom.routes import Context, make_app
from explainer.classroom.watch import Watch
from explainer.content.assets import assets_dir, load_texts

VOTES_INTERVAL_S = 0.05  # VotesChanged at most 20 times a second
START_TIMEOUT_S = 2.0
SHUTDOWN_TIMEOUT_S = 2.0
CONTENT_TYPES = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml", ".png": "image/png"}


def page_files(folder: Path) -> tuple[bytes, bytes, dict[str, tuple[bytes, str]]]:
    """index.html (a room's page), join.html (the page that asks for a room's code) and the
    static files beside them, read once: only these names are ever served."""
    files = {
        p.name: (p.read_bytes(), CONTENT_TYPES[p.suffix])
        for p in sorted(folder.iterdir())
        if p.is_file() and p.suffix in CONTENT_TYPES
    }
    return (folder / "index.html").read_bytes(), (folder / "join.html").read_bytes(), files


def url_of(address: str, port: int, room: str) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"http://{host}:{port}/r/{room}"


class ClassServer:
    """The class page, its endpoints and the phones' live channels, served while class mode runs."""

    def __init__(
        self,
        queue: ClassQueue,
        on_event: Callable[[ServerEvent], None],
        *,
        limits: Limits | None = None,
        words: Mapping[str, Mapping[str, str]] | None = None,
        page_folder: Path | None = None,
    ) -> None:
        self.queue = queue
        self._on_event = on_event
        self.limits = limits or Limits()
        self._words = words if words is not None else load_texts().class_page
        self._page, self._join_page, self._files = page_files(page_folder or assets_dir() / "class")
        self._room = Room(limits=self.limits)
        self.room = self._room.code
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._handover = threading.Lock()  # stop() and a bind still under way agree on who closes
        self._abandoned = False  # stop() came before the bind finished: close at once
        self._hub = Hub(self._phones_changed)
        self._last_votes = -1.0
        self._votes_pending: asyncio.TimerHandle | None = None
        self._watch: Watch | None = None
        queue.listen(self._queue_changed)

    # --- the app's side (any thread) -----------------------------------------------------------

    def start(self, bind: str, port: int) -> Listening | StartFailed:
        """Serve on ``bind``:``port`` (0: any free port) with a new room code."""
        if self._thread is not None:
            self.stop()
        self._room = Room(limits=self.limits)
        self.room = self._room.code
        self._abandoned = False
        ready = threading.Event()
        outcome: list[Listening | StartFailed] = []
        self._thread = threading.Thread(
            target=self._run, args=(bind, port, ready, outcome), name="class-server", daemon=True
        )
        self._thread.start()
        if not ready.wait(START_TIMEOUT_S) or not outcome:
            self.stop()
            slow = self._failed("slow", address=bind, port=port)
            self._on_event(slow)  # (in this thread: the server's has ended)
            return slow
        if isinstance(outcome[0], StartFailed):
            self._thread.join()
            self._thread = None
        return outcome[0]

    def stop(self) -> None:
        """Tell every phone the session ended (``closed``), close the socket and every
        connection, and join the thread; safe to call twice."""
        thread = self._thread
        if thread is None:
            return
        with self._handover:
            stopping = self._stopping
            if self._loop is not None and stopping is not None:
                self._call(stopping.set)
            else:
                self._abandoned = True
        thread.join()
        self._thread = None

    @property
    def running(self) -> bool:
        return self._loop is not None

    def offer(self, offer: RoundOffer) -> None:
        """Every phone shows this round; votes for it are counted from now."""
        self._room.offer(offer)
        self._call(self._hub.broadcast, lambda device: round_message(offer))
        self._call(self._report_votes)

    def end_round(self) -> None:
        """Voting is closed, the reveal to come: later votes are refused, and the phones wait for
        the reveal."""
        ended = self._room.end_round()
        if ended is not None:
            self._call(self._hub.broadcast, lambda device: ended_message(ended.round_id))

    def withdraw_round(self) -> int | None:
        """Close the open round without a reveal (the instructor opened another run, or left the
        pass before its reveal): later votes for it are refused, and every phone says it was
        closed and waits for the next question. The round's id; None when none was open."""
        withdrawn = self._room.end_round()
        if withdrawn is None:
            return None
        self._call(self._hub.broadcast, lambda device: withdrawn_message(withdrawn.round_id))
        return withdrawn.round_id

    def result(self, round_id: int, probs: Sequence[float], favourite: int) -> RoundResult:
        """The round's result from the room's count (ending it): the votes, the class's pick
        and the score so far, ready for :meth:`reveal`."""
        return self._room.result(round_id, probs, favourite)

    def reveal(self, result: RoundResult) -> None:
        """Every phone shows the result beside its own vote."""
        self._room.reveal(result)
        room = self._room
        self._call(self._hub.broadcast, lambda device: phone_reveal(room, result, device))

    # --- the server's thread -------------------------------------------------------------------

    def _call(self, callback: Callable[..., object], *args: object) -> None:
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed in between: class mode is stopping
            loop.call_soon_threadsafe(callback, *args)

    def _run(self, bind: str, port: int, ready: threading.Event, outcome: list[Listening | StartFailed]) -> None:
        loop = asyncio.new_event_loop()
        try:
            runner = loop.run_until_complete(self._bind(bind, port, outcome))
            self._on_event(outcome[0])
            if runner is None:
                return
            with self._handover:
                self._stopping = asyncio.Event()
                if self._abandoned:
                    self._stopping.set()
                else:
                    self._loop = loop
            ready.set()
            loop.run_until_complete(self._serve(runner))
        finally:
            self._loop = None
            ready.set()
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
        self._on_event(Stopped())

    async def _bind(self, bind: str, port: int, outcome: list[Listening | StartFailed]) -> web.AppRunner | None:
        context = Context(
            room=self._room,
            queue=self.queue,
            hub=self._hub,
            limiter=RateLimiter(self.limits.rate, self.limits.burst, self.limits.addresses),
            channels=RateLimiter(self.limits.channel_rate, self.limits.channel_burst, self.limits.phones),
            words=json.dumps(self._words, ensure_ascii=False).encode("utf-8"),
            page=self._page,
            join_page=self._join_page,
            files=self._files,
            on_vote=self._votes_changed,
            watch=Watch(self.limits.idle_s, self.limits.connections),
        )
        runner = web.AppRunner(
            make_app(context),
            access_log=None,
            handler_cancellation=True,  # a phone gone ends its channel's handler at once
            keepalive_timeout=self.limits.idle_s,
            lingering_time=self.limits.read_s,  # what is left of a refused body is drained this long
            shutdown_timeout=SHUTDOWN_TIMEOUT_S,
        )
        await runner.setup()
        context.connections = lambda: runner.server.connections if runner.server else []
        self._watch = context.watch
        try:
            await web.TCPSite(runner, bind, port, backlog=128).start()
        except (OSError, ValueError, UnicodeError) as exc:  # a busy port, an address not here, a bad name
            await runner.cleanup()
            outcome.append(self._bind_failed(exc, bind, port))
            return None
        bound = runner.addresses[0]
        outcome.append(Listening(url_of(bind, bound[1], self.room), bind, bound[1], self.room))
        return runner

    async def _serve(self, runner: web.AppRunner) -> None:
        assert self._stopping is not None
        watching = asyncio.ensure_future(self._sweep(runner))
        await self._stopping.wait()
        watching.cancel()
        # every phone hears that the session is over (so it stops reconnecting to a room that is
        # gone), then the channels' handlers end; then the socket and connections close
        self._hub.close_all(closed_message("stopped"))
        await asyncio.sleep(0)
        await runner.cleanup()

    async def _sweep(self, runner: web.AppRunner) -> None:
        """Sweep the open connections a few times per idle period (watch.py)."""
        tick = min(1.0, self.limits.idle_s / 4)
        while True:
            await asyncio.sleep(tick)
            if runner.server is not None and self._watch is not None:
                self._watch.sweep(runner.server.connections)

    def _bind_failed(self, exc: Exception, bind: str, port: int) -> StartFailed:
        code = getattr(exc, "errno", None)
        if code == errno.EADDRINUSE:
            return self._failed("busy", address=bind, port=port)
        if code in (errno.EACCES, errno.EPERM):
            return self._failed("refused", address=bind, port=port)
        if code == errno.EADDRNOTAVAIL or isinstance(exc, socket.gaierror | ValueError | UnicodeError):
            return self._failed("not_here", address=bind, port=port)
        return self._failed("failed", address=bind, port=port, error=str(exc))

    def _failed(self, key: str, **fields: object) -> StartFailed:
        start = self._words["start"]
        return StartFailed(start[key].format(**fields), start[f"{key}_hint"].format(**fields))

    def _phones_changed(self, joined: int) -> None:
        self._on_event(PhonesChanged(joined))
        self._votes_changed()  # "31 of 48 voted": the 48 changed

    def _votes_changed(self) -> None:
        """Report the count now, or once the interval since the last report is over (the state then)."""
        loop = asyncio.get_running_loop()
        if self._votes_pending is not None:
            return
        wait = self._last_votes + VOTES_INTERVAL_S - loop.time()
        if wait <= 0:
            self._report_votes()
        else:
            self._votes_pending = loop.call_later(wait, self._report_votes)

    def _report_votes(self) -> None:
        if self._votes_pending is not None:
            self._votes_pending.cancel()
            self._votes_pending = None
        tally = self._room.tally()
        if self._loop is not None:
            self._last_votes = self._loop.time()
        if tally is not None:
            self._on_event(replace(tally, joined=max(len(self._hub), tally.voted)))

    def _queue_changed(self, change: QueueChanged) -> None:
        """A request's change (any thread): its phone, and only its phone, hears of it; when one
        starts, each waiting phone hears how many are ahead of it now."""
        life = change.life
        ahead = self.queue.waiting() - 1 if life.state is State.WAITING else 0
        message = request_message(change, ahead)
        if message is not None:
            self._call(self._hub.send, life.device, message)
        if life.state is State.RUNNING and life.prefill_started is None and change.token is None:
            for place, number in enumerate(self.queue.in_line()):
                other = self.queue.life(number)
                if other is not None:
                    self._call(self._hub.send, other.device, request_message(QueueChanged(other), place))
