"""The class page's words (class_page.json): which keys the phone page (assets/class/class.js)
and the class server read, and the ``{fields}`` each may use.

The page is static: it fetches these words from the server and fills their fields itself, so a
text naming a field the page does not fill would show its braces on a student's phone; the
loader refuses it when the app starts, as it does for every other file. ``join`` is the join
page's (the address without a room, or a wrong code: assets/class/join.js). ``refused`` holds one
text per refusal the server answers with (its key is the answer's ``error``); ``start`` the
instructor's line when the server cannot start, and what to do.
"""

from __future__ import annotations

from explainer.content.fields import Fields, plain

CLASS_PAGE_STRINGS: dict[str, dict[str, Fields]] = {
    "page": {
        **plain(
            "title",
            "heading",
            "joining",
            "no_join",
            "waiting",
            "choices",
            "vote_counted",
            "round_ended",
            "withdrawn",
            "no_vote",
            "result",
            "prompt_heading",
            "prompt_label",
            "send",
            "sending",
            "answer",
            "failed",
            "unfinished",
            "declined",
            "offline",
            "replaced",
            "reading",
            "ended",
            "ended_new",
        ),
        "choice": ("n", "token"),
        "room": ("room",),
        "voted_for": ("token",),
        "right": ("token",),
        "wrong": ("token", "model"),
        "model_choice": ("token", "pct"),
        "class_choice": ("token", "votes"),
        "class_choice_one": ("token",),
        "class_none": (),
        "score": ("right", "rounds"),
        "score_none": (),
        "score_first_right": (),
        "score_first_wrong": (),
        "counter": ("n", "max"),
        "held": ("number",),
        "queued": ("number", "ahead"),
        "started": ("number", "wait"),
        "figures": ("wait", "ttft", "tpot", "tokens"),
        "figures_one": ("wait", "ttft", "tokens"),
        "seconds": ("s",),
        "retrying": ("s",),
        "retry_after": ("s",),
        "join_again": ("s",),
    },
    # the join page (assets/class/join.js): the address without a room, or a wrong code
    "join": plain("title", "heading", "label", "hint", "button", "empty", "wrong", "ended"),
    "refused": plain(
        # the room's (explainer/classroom/room.py VoteRefusal, JoinRefusal)
        "unknown_phone",
        "no_round",
        "wrong_round",
        "no_such_choice",
        "already_voted",
        "room_full",
        "too_many_phones",
        # the queue's (explainer/classroom/queue.py Refusal)
        "empty",
        "too_long",
        "full",
        "already_queued",
        "closed",
        # the server's own (explainer/classroom/routes.py)
        "wrong_room",
        "not_found",
        "not_allowed",
        "too_large",
        "not_utf8",
        "bad_json",
        "too_many_requests",
        "busy",
        "too_slow",
        "refused",
    ),
    # explainer/classroom/server.py: why the server could not start (StartFailed), and what to do
    "start": {
        "busy": ("address", "port"),
        "busy_hint": ("address", "port"),
        "refused": ("address", "port"),
        "refused_hint": ("address", "port"),
        "not_here": ("address", "port"),
        "not_here_hint": ("address", "port"),
        "slow": ("address", "port"),
        "slow_hint": ("address", "port"),
        "failed": ("address", "port", "error"),
        "failed_hint": ("address", "port", "error"),
    },
}
