"""What a class session leaves to keep: each revealed round and each request's figures, written
as two CSV files a spreadsheet opens (File > Export class results…, ui/classroom/results_export.py).

:class:`ClassResults` is fed by class mode: :meth:`~ClassResults.begin` when a session starts (it
forgets the last session's results then), :meth:`~ClassResults.revealed` at each reveal, and
:meth:`~ClassResults.end` when it stops. While the session runs, the requests are read from its
queue at the moment of export; when it stops, their figures (and texts, which are written only
when the instructor asks) are copied out of the queue, without the recorded runs, and kept until
the next session starts, so the results of a lecture can still be exported after Stop. Nothing is
written until the instructor exports; nothing here knows a phone's device id.

A round is one row however often its reveal is shown again (stepping back to it): a row is kept
per round id, and the row keeps its first reveal's time. A pass voted again later (another run,
or the same run after the illustration left it) is a new round and a row of its own; the ``run``
column tells runs apart.

The rows are plain values; :func:`write_results` turns them into the files: Python's csv module,
UTF-8 with a byte order mark (Excel needs it to read a CSV file as UTF-8, and LibreOffice's import
dialog picks UTF-8 from it), numbers as plain decimals with a point and no thousands separator, and
the headers from app.json's ``class_results`` section. A text cell that a spreadsheet would run as a
formula (it begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return: a student's prompt
may) is written with an apostrophe before it, as OWASP advises, so it stays text. Both files are
checked before either is written (atomic.py), so a bad destination writes nothing.
"""

from __future__ import annotations

import csv
import io
import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explainer.atomic import check_destination, write_atomic
from explainer.classroom.events import RoundResult
from explainer.classroom.queue import ClassQueue, RequestLife, State
from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.illustration.formatting import quoted
from explainer.illustration.vocab import TokenNames
from explainer.lesson.game import Round

MAX_ROUNDS = 1000  # rounds kept for the export, the newest (a lecture has tens)
MAX_REQUESTS = 10_000  # requests kept for the export, the newest (the queue takes a few hundred a lecture)
SECONDS_PLACES = 6  # microseconds: finer than the queue's clock is worth reading
PROB_PLACES = 10  # a long shot's probability can be 1e-9 and must not read as 0
WHAT = "the class results"  # (atomic.py's messages name what they save, in its words)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet read a cell as a formula


@dataclass(kw_only=True, frozen=True, slots=True)
class RoundRow:
    """One revealed round: what the phones were offered, what the model said, what the class voted."""

    round_id: int
    run: int  # 1, 2, ... : the runs of the session, in the order their first round was revealed
    step: int  # the pass's index in its run (the file writes pass step + 1)
    at_s: float  # seconds since class mode began, when it was first revealed
    context: str  # the round's quote of the text before the pass
    choices: tuple[str, ...]  # the four labels, in the order the phones showed them
    probs: tuple[float, ...]  # the model's raw probability of each choice
    votes: tuple[int, ...]  # the class's votes for each choice
    class_pick: int | None  # index of the class's pick (None: nobody voted)
    favourite: int  # index of the model's most likely choice
    model_pick: str  # the token the model took at that pass (see :func:`model_pick`)


@dataclass(kw_only=True, frozen=True, slots=True)
class RequestRow:
    """One request's figures (seconds since class mode began, or durations in seconds) and, only
    for an export that asks for them, its texts. No device id: a row cannot hold one."""

    number: int
    arrived_s: float
    held_s: float | None  # the instructor's hold (None: nothing held it, or not approved)
    wait_s: float | None
    ttft_s: float | None
    tpot_s: float | None
    prompt_tokens: int | None
    answer_tokens: int | None  # None: the model has not taken it
    shared_passes: int  # its passes that made another request's token too (batching)
    shared_with: int  # the other requests it shared a pass with
    state: State
    prompt: str
    answer: str


def model_pick(trace: Trace, step: int, rnd: Round, names: TokenNames) -> str:
    """The token the model itself took at ``step``: the run's token there, except at the pass of
    a Your-turn branch, where the run took the learner's (or the class's) token and the model's
    own is the one the original run took (Branch.model_pick)."""
    branch = trace.branch
    if branch is None or branch.step != step:
        return rnd.chosen_label
    return quoted(names.use(trace).label(branch.model_pick, trace.unfinished_before(step)))


def _run_key(trace: Trace) -> tuple[object, ...]:
    """What tells one run from another, its snapshots while it is made being the same run: as the
    scene tells them (created, prompt), and the branch it is, if one (each branch is stamped when
    it starts; a snapshot may not hold its branched pass yet, so that pass's token is not read)."""
    return (trace.created, trace.prompt, trace.branch)


def _shares(lives: Sequence[RequestLife]) -> dict[int, tuple[int, int]]:
    """Each request's (passes shared, requests shared with): a pass is shared when another
    request's token was made by it too, as the Queue list's "shared with" column counts
    (timeline.batch_partners)."""
    members: dict[int, list[int]] = {}
    for life in lives:
        for p in life.passes:
            members.setdefault(p, []).append(life.number)
    out: dict[int, tuple[int, int]] = {}
    for life in lives:
        partners: set[int] = set()
        shared = 0
        for p in life.passes:
            if len(members[p]) > 1:
                shared += 1
                partners.update(members[p])
        partners.discard(life.number)
        out[life.number] = (shared, len(partners))
    return out


def request_rows(lives: Sequence[RequestLife], origin: float) -> tuple[RequestRow, ...]:
    """The rows of ``lives`` (the newest :data:`MAX_REQUESTS`), times from ``origin``."""
    lives = lives[-MAX_REQUESTS:]
    shares = _shares(lives)
    return tuple(
        RequestRow(
            number=life.number,
            arrived_s=life.arrived - origin,
            held_s=life.held_s,
            wait_s=life.wait_s,
            ttft_s=life.ttft_s,
            tpot_s=life.tpot_s,
            prompt_tokens=life.prompt_tokens,
            answer_tokens=len(life.token_times) if life.started is not None else None,
            shared_passes=shares[life.number][0],
            shared_with=shares[life.number][1],
            state=life.state,
            prompt=life.text,
            answer=life.output,
        )
        for life in lives
    )


class ClassResults:
    """The rounds revealed and the requests of the current class session, or of the last one
    after it stopped (see the module docstring). Used on the GUI thread; the queue it reads is
    safe to read from any thread."""

    def __init__(self) -> None:
        self._queue: ClassQueue | None = None
        self._origin = 0.0
        self._rounds: OrderedDict[int, RoundRow] = OrderedDict()  # round id -> its row
        self._runs: dict[tuple[object, ...], int] = {}
        self._requests: tuple[RequestRow, ...] = ()  # the last session's, once it stopped

    def begin(self, queue: ClassQueue) -> None:
        """A session starts on ``queue``: the last session's results are forgotten."""
        if queue is self._queue:
            return
        self._queue, self._origin = queue, queue.started_at
        self._rounds.clear()
        self._runs.clear()
        self._requests = ()

    def end(self) -> None:
        """The session stopped: its requests' figures and texts are kept, its runs let go."""
        queue = self._queue
        if queue is None:
            return
        self._requests = request_rows(queue.lives(), self._origin)
        self._queue = None

    @property
    def running(self) -> bool:
        return self._queue is not None

    def revealed(self, trace: Trace, step: int, rnd: Round, result: RoundResult, names: TokenNames) -> None:
        """Round ``result.round_id`` (the pass ``step`` of ``trace``) is revealed; shown again, it
        stays one row with its first time. Outside a session it is not kept."""
        queue = self._queue
        if queue is None or result.round_id in self._rounds:
            return
        run = self._runs.setdefault(_run_key(trace), len(self._runs) + 1)
        self._rounds[result.round_id] = RoundRow(
            round_id=result.round_id,
            run=run,
            step=step,
            at_s=queue.clock() - self._origin,
            context=rnd.context,
            choices=tuple(c.label for c in rnd.candidates),
            probs=result.probs,
            votes=result.votes,
            class_pick=result.class_pick,
            favourite=result.favourite,
            model_pick=model_pick(trace, step, rnd, names),
        )
        while len(self._rounds) > MAX_ROUNDS:
            self._rounds.popitem(last=False)

    def rounds(self) -> tuple[RoundRow, ...]:
        """The revealed rounds, in the order they were first revealed."""
        return tuple(self._rounds.values())

    def requests(self) -> tuple[RequestRow, ...]:
        """Every request of the session, in arrival order: read from the queue now while it runs."""
        queue = self._queue
        return request_rows(queue.lives(), self._origin) if queue is not None else self._requests

    def empty(self) -> bool:
        if self._rounds:
            return False
        queue = self._queue
        return not (queue.lives() if queue is not None else self._requests)


# --- the files ------------------------------------------------------------------------------------


class Number(str):
    """A cell already written as a number: never taken for a formula (a negative one begins
    with "-")."""


Cell = str | int | None


def decimal(x: float | None, places: int) -> Number | None:
    """``x`` as a plain decimal with a point, rounded to ``places`` and without trailing zeros:
    0.25 -> "0.25", 12.0 -> "12", 1.5e-9 -> "0.0000000015". None (or not a number) -> None."""
    if x is None or not math.isfinite(x):
        return None
    text = f"{x:.{places}f}".rstrip("0").rstrip(".")
    return Number("0" if text in ("", "-0") else text)


def seconds(x: float | None) -> Number | None:
    return decimal(x, SECONDS_PLACES)


def _cell(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, Number):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return "'" + value if value.startswith(FORMULA_START) else value


def csv_bytes(header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> bytes:
    """The table as a spreadsheet opens it: UTF-8 with a byte order mark, comma-separated, fields
    quoted where they must be, lines ended by CR LF (RFC 4180)."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow([_cell(h) for h in header])
    writer.writerows([_cell(c) for c in row] for row in rows)
    return out.getvalue().encode("utf-8-sig")


def _words(texts: LessonTexts) -> Callable[[str], str]:
    return lambda key: texts.app_text("class_results", key)


def rounds_table(rows: Sequence[RoundRow], texts: LessonTexts) -> tuple[list[str], list[list[Cell]]]:
    """The rounds file's header and rows: run, pass, time, context, then each choice with the
    model's probability and the class's votes, then the class's pick, the model's favourite, the
    model's pick, and 1 or 0 for the class's pick being the favourite (empty: nobody voted)."""
    w = _words(texts)
    n = max((len(r.choices) for r in rows), default=4)
    header = [w("head_run"), w("head_pass"), w("head_time"), w("head_context")]
    for i in range(1, n + 1):
        header += [w("head_choice").format(n=i), w("head_prob").format(n=i), w("head_votes").format(n=i)]
    header += [w("head_class_pick"), w("head_favourite"), w("head_model_pick"), w("head_class_right")]
    table: list[list[Cell]] = []
    for r in rows:
        line: list[Cell] = [r.run, r.step + 1, seconds(r.at_s), r.context]
        for i in range(n):
            if i < len(r.choices):
                line += [r.choices[i], decimal(r.probs[i], PROB_PLACES), r.votes[i]]
            else:
                line += [None, None, None]
        pick = None if r.class_pick is None else r.choices[r.class_pick]
        right = None if r.class_pick is None else int(r.class_pick == r.favourite)
        line += [pick, r.choices[r.favourite], r.model_pick, right]
        table.append(line)
    return header, table


def requests_table(
    rows: Sequence[RequestRow], texts: LessonTexts, include_texts: bool
) -> tuple[list[str], list[list[Cell]]]:
    """The requests file's header and rows; the prompt's and the answer's texts only when asked."""
    w = _words(texts)
    header = [
        w(k)
        for k in (
            "head_request",
            "head_arrived",
            "head_held",
            "head_wait",
            "head_ttft",
            "head_tpot",
            "head_prompt_tokens",
            "head_answer_tokens",
            "head_shared_passes",
            "head_shared_with",
            "head_state",
        )
    ]
    if include_texts:
        header += [w("head_prompt"), w("head_answer")]
    table: list[list[Cell]] = []
    for r in rows:
        line: list[Cell] = [
            r.number,
            seconds(r.arrived_s),
            seconds(r.held_s),
            seconds(r.wait_s),
            seconds(r.ttft_s),
            seconds(r.tpot_s),
            r.prompt_tokens,
            r.answer_tokens,
            r.shared_passes,
            r.shared_with,
            texts.app_text("queue", f"state_{r.state.value}"),
        ]
        if include_texts:
            line += [r.prompt, r.answer]
        table.append(line)
    return header, table


def result_paths(base: str | Path, texts: LessonTexts) -> tuple[Path, Path]:
    """The two files an export to ``base`` writes, beside each other: ``base`` without its .csv,
    named as app.json's rounds_file and requests_file say (``class-rounds.csv``, ...)."""
    path = Path(base)
    name = path.name[:-4] if path.name.lower().endswith(".csv") else path.name
    w = _words(texts)
    return (
        path.with_name(w("rounds_file").format(name=name)),
        path.with_name(w("requests_file").format(name=name)),
    )


def write_results(
    results: ClassResults, base: str | Path, texts: LessonTexts, include_texts: bool
) -> tuple[Path, Path]:
    """Write the rounds and the requests beside ``base`` (:func:`result_paths`); returns the two
    files written. Both destinations are checked first, so a bad one (a folder that is not there
    or not writable, a folder of that name, a device) raises ExplainerError with nothing written;
    each file is then written whole or not at all (atomic.py)."""
    rounds_path, requests_path = result_paths(base, texts)
    for path in (rounds_path, requests_path):
        check_destination(path, WHAT)
    rounds = csv_bytes(*rounds_table(results.rounds(), texts))
    requests = csv_bytes(*requests_table(results.requests(), texts, include_texts))
    return write_atomic(rounds_path, rounds, WHAT), write_atomic(requests_path, requests, WHAT)
