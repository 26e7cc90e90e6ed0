"""The class page's endpoints, and the guards every request passes first.

Nothing of the app is reachable but these: the page (``GET /r/CODE``), its words
(``GET /r/CODE/words.json``, and the same words without a room, ``GET /words.json``, for the
join page), its own static files (``GET /s/NAME``, only the files of assets/class/ read at
start, by name: no path reaches anything else), joining (``POST /r/CODE/join``), voting
(``POST /r/CODE/vote``), sending a prompt (``POST /r/CODE/prompt``) and the phone's one live
channel (``GET /r/CODE/events?device=ID``, Server-Sent Events).

A person who types an address gets a page, never JSON: the bare address (``GET /``), a room code
that is no room's (``GET /r/WRONG``, 404) and any other address a browser asks a page of (404)
answer the join page, which asks for the code. The endpoints a script calls answer JSON.

Every request is hostile until checked: a rate limit per address (a phone's channel opens: per
phone), at most ``connections`` open (idle ones make room: watch.py), a body of at most 4 KB
within ``read_s`` in UTF-8 JSON holding an object, the room code, the phone's id. A refusal is a
4xx JSON answer ``{"error": KEY}`` (KEY a word of class_page.json's ``refused``) and changes
nothing; one that passes (429, 503) says in Retry-After how many whole seconds to wait. Every
answer carries a strict Content-Security-Policy; nothing is logged.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from explainer.classroom.channels import Hub, encode
from explainer.classroom.messages import catch_up, phone_reveal, round_message
from explainer.classroom.queue import ClassQueue, Refusal
from explainer.classroom.room import JoinRefusal, RateLimiter, Room, VoteRefusal
from explainer.classroom.watch import Connection, Watch

MAX_BODY = 4096  # bytes of a request's body
PING_S = 10.0  # a comment on an idle channel this often: a phone gone is noticed
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
VOTE_STATUS = {VoteRefusal.UNKNOWN_PHONE: 403, VoteRefusal.NO_SUCH_CHOICE: 400}  # else 409
PROMPT_STATUS = {Refusal.EMPTY: 400, Refusal.TOO_LONG: 400, Refusal.FULL: 429}  # else 409
ERROR_KEYS = {404: "not_found", 405: "not_allowed", 413: "too_large"}  # aiohttp's own refusals
# the server's own refusals' keys (the room's and the queue's are their enums' values)
SERVER_REFUSALS = (
    *ERROR_KEYS.values(),
    "wrong_room",
    "not_utf8",
    "bad_json",
    "too_many_requests",
    "busy",
    "too_slow",
    "refused",
)


@dataclass(kw_only=True)
class Context:
    """What the handlers share, in the server's loop thread."""

    room: Room
    queue: ClassQueue
    hub: Hub
    limiter: RateLimiter  # requests per address
    channels: RateLimiter  # live channel opens per phone
    words: bytes  # the page's words, JSON
    page: bytes  # index.html
    join_page: bytes  # join.html
    files: dict[str, tuple[bytes, str]]  # static name -> (content, content type)
    on_vote: Callable[[], None]  # a vote was counted (the server coalesces what it reports)
    watch: Watch  # the open connections: which are in a request, which idle (watch.py)
    connections: Callable[[], Sequence[Connection]] = field(default=lambda: ())  # every one open, oldest first


CONTEXT = web.AppKey("context", Context)


class Refused(Exception):
    """A request refused: its status, the key of the words that say why, and for a refusal that
    passes (429, 503) the seconds to wait before trying again."""

    def __init__(self, status: int, key: str, retry_after: float | None = None) -> None:
        super().__init__(key)
        self.status, self.key, self.retry_after = status, key, retry_after


def refusal(status: int, key: str, retry_after: float | None = None) -> web.Response:
    """The JSON answer; ``retry_after`` becomes its Retry-After, in whole seconds (at least 1),
    which every 429 and 503 carries, so a client waits that long instead of asking again at once."""
    response = web.json_response({"error": key}, status=status)
    if retry_after is not None:
        response.headers["Retry-After"] = str(max(1, math.ceil(retry_after)))
    return response


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The limits before any handler, and every refusal as a 4xx JSON answer. While it runs, the
    request's connection is in a request: the watch leaves it open."""
    watch = request.app[CONTEXT].watch
    watch.began(request.protocol)
    try:
        return await _guarded(request, handler)
    finally:
        watch.ended(request.protocol)


async def _guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
    context = request.app[CONTEXT]
    limits = context.room.limits
    open_now = context.connections()
    # over the cap, idle connections make room for this request; only when every one is in a
    # request is it refused
    if len(open_now) > limits.connections and context.watch.make_room(open_now):
        response = refusal(503, "busy", limits.busy_wait_s)
        response.force_close()
        return response
    wait = _spend(request, context)
    if wait:
        return refusal(429, "too_many_requests", wait)
    try:
        return await handler(request)
    except Refused as refused:
        response = refusal(refused.status, refused.key, refused.retry_after)
        if refused.status == 408:  # a trickling client keeps no connection
            response.force_close()
        return response
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        if exc.status == 404 and _asks_for_a_page(request):  # a person typed an address: a page
            return _html(context.join_page, status=404)
        return refusal(exc.status, ERROR_KEYS.get(exc.status, "refused"))


def _spend(request: web.Request, context: Context) -> float:
    """Count the request against its limit; the seconds to wait when it is over it. A phone's own
    channel opens count against that phone, not its address: one that reopens its channel in a
    loop is refused without slowing the phones that share its address (a NAT's). Everything else
    counts against the address."""
    if request.match_info.route.name == "events":
        device = request.query.get("device", "")
        if context.room.matches(request.match_info.get("code", "")) and context.room.knows(device):
            return context.channels.take(device)
    return context.limiter.take(request.remote or "")


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(HEADERS)


def _room(request: web.Request) -> Context:
    context = request.app[CONTEXT]
    if not context.room.matches(request.match_info["code"]):
        raise Refused(404, "wrong_room")
    return context


async def _body(request: web.Request) -> dict[str, Any]:
    try:  # (aiohttp's server has no read timeout: a body trickled a byte at a time is read for ever)
        async with asyncio.timeout(request.app[CONTEXT].room.limits.read_s):
            raw = await request.read()  # past client_max_size: 413, too_large
    except TimeoutError:
        raise Refused(408, "too_slow") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, "not_utf8") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise Refused(400, "bad_json") from None
    if not isinstance(data, dict):
        raise Refused(400, "bad_json")
    return data


def _phone(context: Context, device: object) -> str:
    if not isinstance(device, str) or not context.room.knows(device):
        raise Refused(403, "unknown_phone")
    return device


def _html(body: bytes, status: int = 200) -> web.Response:
    return web.Response(body=body, status=status, content_type="text/html", charset="utf-8")


def _asks_for_a_page(request: web.Request) -> bool:
    """A browser's address bar (or a link) asks for a page: its Accept names HTML."""
    return request.method == "GET" and "text/html" in request.headers.get("Accept", "")


async def join_page(request: web.Request) -> web.StreamResponse:
    """The bare address: a page that asks for the room's code."""
    return _html(request.app[CONTEXT].join_page)


async def page(request: web.Request) -> web.StreamResponse:
    """The room's page; a code that is no room's gets the join page (404), which says so."""
    context = request.app[CONTEXT]
    if not context.room.matches(request.match_info["code"]):
        return _html(context.join_page, status=404)
    return _html(context.page)


async def words(request: web.Request) -> web.StreamResponse:
    context = _room(request)
    return web.Response(body=context.words, content_type="application/json", charset="utf-8")


async def words_anywhere(request: web.Request) -> web.StreamResponse:
    """The same words without a room: the join page's (nothing in them is the room's)."""
    return web.Response(body=request.app[CONTEXT].words, content_type="application/json", charset="utf-8")


async def static(request: web.Request) -> web.StreamResponse:
    found = request.app[CONTEXT].files.get(request.match_info["name"])
    if found is None:
        raise Refused(404, "not_found")
    body, content_type = found
    return web.Response(body=body, content_type=content_type, charset="utf-8")


async def join(request: web.Request) -> web.StreamResponse:
    """A phone's id: the one it had (kept by its tab across a reload), else a new one."""
    context = _room(request)
    data = await _body(request)
    old = data.get("device")
    if isinstance(old, str) and context.room.knows(old):
        return web.json_response({"device": old, "room": context.room.code})
    device = context.room.join(request.remote or "")
    if isinstance(device, JoinRefusal):
        # (403: the cap stays for the session, so waiting would not help; 409: the room is full)
        raise Refused(403 if device is JoinRefusal.TOO_MANY_PHONES else 409, device.value)
    return web.json_response({"device": device, "room": context.room.code})


async def vote(request: web.Request) -> web.StreamResponse:
    context = _room(request)
    data = await _body(request)
    counted = context.room.vote(data.get("device"), data.get("round"), data.get("choice"))
    if isinstance(counted, VoteRefusal):
        raise Refused(VOTE_STATUS.get(counted, 409), counted.value)
    context.on_vote()
    # ``voted``: this vote's place in the count, so a phone (or the benchmark) can tell when the
    # projector shows it
    return web.json_response(
        {"counted": True, "round": counted.round_id, "choice": data["choice"], "voted": counted.voted}
    )


async def prompt(request: web.Request) -> web.StreamResponse:
    context = _room(request)
    data = await _body(request)
    device = _phone(context, data.get("device"))
    text = data.get("text")
    if not isinstance(text, str):
        raise Refused(400, "bad_json")
    life = context.queue.submit(device, text)
    if isinstance(life, Refusal):
        status = PROMPT_STATUS.get(life, 409)
        raise Refused(status, life.value, context.room.limits.full_wait_s if status == 429 else None)
    return web.json_response({"number": life.number})


async def events(request: web.Request) -> web.StreamResponse:
    """The phone's live channel: what is open now, then every message until it closes."""
    context = _room(request)
    device = _phone(context, request.query.get("device"))
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
    await response.prepare(request)
    channel = context.hub.open(device)
    offer, result = context.room.open_round(), context.room.last_result()
    if offer is not None:
        channel.send(round_message(offer, context.room.vote_of(device, offer.round_id)))
    elif result is not None:
        channel.send(phone_reveal(context.room, result, device))
    for news in catch_up(context.queue.lives(), device, context.queue.in_line()):
        channel.send(news)
    write_s = context.room.limits.write_s

    async def write(data: bytes) -> None:
        async with asyncio.timeout(write_s):  # a phone that takes no bytes: its buffer would never drain
            await response.write(data)

    try:
        await write(b": open\n\n")
        while True:
            try:
                message = await asyncio.wait_for(channel.queue.get(), PING_S)
            except TimeoutError:
                await write(b": ping\n\n")
                continue
            if message is None:
                break
            await write(encode(message))
    except ConnectionError:
        pass  # the phone went away
    except TimeoutError:
        if request.transport is not None:
            request.transport.abort()  # (a close would wait for the buffer it does not take)
    finally:
        context.hub.close(channel)
    return response


def make_app(context: Context) -> web.Application:
    app = web.Application(client_max_size=MAX_BODY, middlewares=[guard])
    app[CONTEXT] = context
    app.on_response_prepare.append(security_headers)
    app.router.add_get("/", join_page)
    app.router.add_get("/words.json", words_anywhere)
    app.router.add_get("/r/{code}", page)
    app.router.add_get("/r/{code}/words.json", words)
    app.router.add_get("/r/{code}/events", events, name="events")
    app.router.add_post("/r/{code}/join", join)
    app.router.add_post("/r/{code}/vote", vote)
    app.router.add_post("/r/{code}/prompt", prompt)
    app.router.add_get("/s/{name}", static)
    return app
