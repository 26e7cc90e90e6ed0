"""What the live channel tells a phone, as JSON-ready dicts: the one place its shapes are written.

Each message is one Server-Sent Event whose ``event`` is the kind and whose ``data`` is the dict
below (the phone page, class.js, reads exactly these keys):

- ``round``: a round is offered ``{round_id, question, choices, yours}`` (``yours``: this phone's
  vote when it joins mid-round, else null);
- ``ended``: voting in the round is closed, its reveal to come ``{round_id}``;
- ``withdrawn``: the round was closed without a reveal ``{round_id}`` (the instructor opened
  another run, or left the pass before its reveal): the phone drops it and waits for the next;
- ``reveal``: the round's result as this phone sees it: every field of RoundResult, ``choices``
  (the offered labels, [] if unknown) and ``yours`` (this phone's vote, or null);
- ``held``: this phone's prompt waits for the instructor to approve it ``{number}`` (moderation);
- ``declined``: it will not run ``{number}`` (the instructor declined it, or it held a blocked
  word: the phone says the same neutral words either way);
- ``queued``: this phone's prompt is waiting ``{number, ahead}``;
- ``started``: the worker took it ``{number, wait_s}``;
- ``reading``: its prompt is tokenized and the model reads it ``{number, prompt_tokens}``;
- ``token``: one output token ``{number, text, n}`` (``n``: its place in the answer, from 1;
  ``text``: the whole characters it finished, "" for a piece of a character not yet finished);
- ``answer``: the answer so far, when a phone (re)connects mid-request ``{number, text, tokens}``;
- ``done``: its final figures ``{number, state, stop_reason, wait_s, ttft_s, tpot_s, tokens,
  prompt_tokens, unfinished}`` (seconds on the queue's one clock; ``state`` "done" or "failed";
  ``unfinished``: the answer ended in the middle of a character, whose bytes make no text);
- ``replaced``: this channel is closed because the phone opened another;
- ``closed``: the session is over ``{reason}`` ("stopped": class mode was stopped or restarted,
  or the app quit); the channel closes after it, and the phone stops listening instead of
  reconnecting to a room that is gone (a later session has a new room code).

Pure: a RequestLife's text and device never go into a message (the phone knows its own prompt).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from explainer.classroom.events import RoundOffer, RoundResult
from explainer.classroom.queue import QueueChanged, RequestLife, State
from explainer.classroom.room import Room

Message = tuple[str, dict[str, Any]]


def round_message(offer: RoundOffer, yours: int | None = None) -> Message:
    return "round", {
        "round_id": offer.round_id,
        "question": offer.question,
        "choices": list(offer.choices),
        "yours": yours,
    }


def ended_message(round_id: int) -> Message:
    return "ended", {"round_id": round_id}


def withdrawn_message(round_id: int) -> Message:
    return "withdrawn", {"round_id": round_id}


def closed_message(reason: str) -> Message:
    return "closed", {"reason": reason}


def reveal_message(result: RoundResult, yours: int | None, choices: tuple[str, ...] = ()) -> Message:
    data = asdict(result)
    data["probs"], data["votes"] = list(result.probs), list(result.votes)
    data["choices"], data["yours"] = list(choices), yours
    return "reveal", data


def catch_up(lives: tuple[RequestLife, ...], device: str, in_line: tuple[int, ...] = ()) -> list[Message]:
    """What a phone that (re)connects is told of its latest request: the answer so far and where
    the request is now (nothing when it sent none). ``in_line``: the waiting requests' numbers in
    the order they will run (ClassQueue.in_line)."""
    waiting = list(in_line)
    life = next((life for life in reversed(lives) if life.device == device), None)
    if life is None:
        return []
    ahead = waiting.index(life.number) if life.number in waiting else 0
    now = request_message(QueueChanged(life), ahead)
    answer: Message = "answer", {"number": life.number, "text": life.output, "tokens": len(life.token_times)}
    return [answer] + ([now] if now else [])


def phone_reveal(room: Room, result: RoundResult, device: str) -> Message:
    """The reveal as ``device`` sees it: with its own vote and the round's labels."""
    offer = room.offered(result.round_id)
    return reveal_message(result, room.vote_of(device, result.round_id), offer.choices if offer else ())


def _seconds(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def request_message(change: QueueChanged, ahead: int = 0) -> Message | None:
    """The message a queue change sends the phone whose request it is (None: nothing to say)."""
    life = change.life
    if change.token is not None:
        return "token", {"number": life.number, "text": change.token, "n": len(life.token_times)}
    if life.state is State.HELD:
        return "held", {"number": life.number}
    if life.state is State.DECLINED:
        return "declined", {"number": life.number}
    if life.state in (State.DONE, State.FAILED):
        return "done", {
            "number": life.number,
            "state": life.state.value,
            "stop_reason": life.stop_reason,
            "wait_s": _seconds(life.wait_s),
            "ttft_s": _seconds(life.ttft_s),
            "tpot_s": _seconds(life.tpot_s),
            "tokens": len(life.token_times),
            "prompt_tokens": life.prompt_tokens,
            "unfinished": bool(life.pending),
        }
    if life.state is State.WAITING:
        return "queued", {"number": life.number, "ahead": ahead}
    if life.prefill_started is not None:
        return "reading", {"number": life.number, "prompt_tokens": life.prompt_tokens}
    return "started", {"number": life.number, "wait_s": _seconds(life.wait_s)}
