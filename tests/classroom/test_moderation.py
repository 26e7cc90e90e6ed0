"""Moderation: a moderated queue holds each prompt until the instructor approves (it joins the
line then) or declines it; blocked words decline a prompt on arrival. Over real HTTP on
127.0.0.1 the phone hears each step; nothing a phone sends can approve or decline."""

from __future__ import annotations

import aiohttp
import pytest

from explainer.classroom.blocked import BlockedWords, parse_blocked, read_blocked
from explainer.classroom.queue import ClassQueue, Refusal, State
from explainer.classroom.timeline import row, timeline
from explainer.errors import ExplainerError
from tests.classroom.conftest import Phone, run


def test_a_held_prompt_joins_the_line_when_approved_and_counts_while_held():
    now = [0.0]
    queue = ClassQueue(clock=lambda: now[0], limit=2, moderated=True)
    a = queue.submit("a", "First")
    b = queue.submit("b", "Second")
    assert not isinstance(a, Refusal) and a.state is State.HELD and not isinstance(b, Refusal)
    assert queue.submit("a", "Again") is Refusal.ALREADY_QUEUED  # a held prompt is the phone's one request
    assert queue.submit("c", "Third") is Refusal.FULL  # and counts against the queue's limit
    assert queue.take() is None  # nothing runs before the instructor says so
    now[0] = 3.0
    approved = queue.approve(b.number)  # the second first: it joins the line now
    assert approved is not None and approved.state is State.WAITING and approved.held_s == 3.0
    now[0] = 5.0
    queue.approve(a.number)
    assert queue.in_line() == (b.number, a.number)  # the order of approval, not of arrival
    now[0] = 6.0
    taken = queue.take()
    assert taken is not None and taken.number == b.number and taken.wait_s == 3.0  # the hold left out
    assert queue.approve(b.number) is None  # not held any more


def test_a_declined_prompt_never_runs_and_its_phone_may_send_another():
    now = [0.0]
    queue = ClassQueue(clock=lambda: now[0], moderated=True)
    held = queue.submit("a", "Something")
    assert not isinstance(held, Refusal)
    now[0] = 2.0
    declined = queue.decline(held.number)
    assert declined is not None and declined.state is State.DECLINED and declined.done == 2.0
    assert queue.held() == () and queue.take() is None
    again = queue.submit("a", "Something else")  # the phone's turn is free again
    assert not isinstance(again, Refusal) and again.state is State.HELD
    assert row(declined, 9.0).held == "2000 ms" and row(declined, 9.0).wait == "—"


def test_blocked_words_decline_a_prompt_on_arrival_whole_words_in_any_case():
    queue = ClassQueue(moderated=False, blocked=BlockedWords.of(["darn", "bad word", "北京"]))
    for text in ("What the DARN thing", "a bad  word here", "我在北京"):
        life = queue.submit(text, text)
        assert not isinstance(life, Refusal) and life.state is State.DECLINED, text
    for text in ("darning socks", "badword", "class"):
        life = queue.submit(text, text)
        assert not isinstance(life, Refusal) and life.state is State.WAITING, text


def test_the_list_of_blocked_words_is_read_bounded_and_checked(tmp_path):
    path = tmp_path / "blocked.txt"
    path.write_text("# one a line\nDarn\n\nbad word  # a phrase\n", encoding="utf-8")
    assert read_blocked(path).entries == ("darn", "bad word")
    with pytest.raises(ExplainerError, match="longer than"):
        parse_blocked("x" * 101)
    with pytest.raises(ExplainerError, match="more than"):
        parse_blocked("\n".join(f"w{i}" for i in range(5001)))
    path.write_bytes(b"\xff\xfe bad")
    with pytest.raises(ExplainerError, match="not UTF-8"):
        read_blocked(path)
    with pytest.raises(ExplainerError, match="not a regular file"):
        read_blocked(tmp_path)


def test_moderation_turned_off_lets_the_held_prompts_in_in_arrival_order():
    queue = ClassQueue(moderated=True)
    first, second = queue.submit("a", "One"), queue.submit("b", "Two")
    assert not isinstance(first, Refusal) and not isinstance(second, Refusal)
    queue.set_moderated(False)
    assert queue.in_line() == (first.number, second.number) and queue.held() == ()
    third = queue.submit("c", "Three")
    assert not isinstance(third, Refusal) and third.state is State.WAITING


def test_the_timeline_draws_the_hold_apart_from_the_wait():
    now = [0.0]
    queue = ClassQueue(clock=lambda: now[0], moderated=True)
    life = queue.submit("a", "Hello")
    assert not isinstance(life, Refusal)
    now[0] = 4.0
    queue.approve(life.number)
    now[0] = 5.0
    t = timeline(queue.lives(), 0.0, 6.0)
    assert t.held.xs == [0.0, 4.0] and t.wait.xs == [4.0, 6.0]  # held 0-4 s, then waiting to now
    r = row(queue.lives()[0], 6.0)
    assert r.held == "4000 ms" and r.wait == "2000 ms"


def test_a_phone_hears_held_then_its_place_or_not_taken_and_cannot_approve_itself(serve):
    queue = ClassQueue(moderated=True)
    served = serve(queue=queue)

    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            a, b = Phone(session, served), Phone(session, served)
            for phone in (a, b):
                await phone.join()
                await phone.listen()
            assert await a.prompt("Tell me a joke") == (200, {"number": 1})
            assert await a.next() == ("held", {"number": 1})
            assert await b.prompt("Something rude") == (200, {"number": 2})
            assert await b.next() == ("held", {"number": 2})
            for path in ("/approve", "/decline", "/moderate"):  # nothing a phone sends reaches these
                status, _ = await a.post(path, {"device": a.device, "number": 1})
                assert status in (404, 405)
            assert queue.held()[0].state is State.HELD
            queue.approve(1)
            assert await a.next() == ("queued", {"number": 1, "ahead": 0})
            queue.decline(2)
            assert await b.next() == ("declined", {"number": 2})
            assert await b.prompt("Something kind") == (200, {"number": 3})  # it may send another
            # a phone that reconnects hears where its request is: held
            late = Phone(session, served)
            late.device = b.device
            await late.listen()
            kinds = [(await late.next())[0] for _ in range(2)]
            assert kinds == ["answer", "held"]
            late.close()
            a.close()
            b.close()  # (its channel was replaced by late's: its answer is still to be let go)

    run(scenario())
