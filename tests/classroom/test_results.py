"""The class's results as CSV files: a session of rounds voted in a real Room and requests served
by a real ClassQueue on a clock the test sets, written, then read back with the csv module (and
opened by LibreOffice) and compared with what the room and the queue recorded."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from explainer.classroom import results as results_module
from explainer.classroom.events import RoundResult
from explainer.classroom.queue import ClassQueue, RequestLife
from explainer.classroom.results import ClassResults, result_paths, write_results
from explainer.classroom.room import Room
from explainer.classroom.rounds import favourite_of, offer_of, probs_of
from explainer.content.assets import load_texts, read_texts
from explainer.engine.trace import Branch, TokenRef, Trace
from explainer.errors import ExplainerError
from explainer.illustration.formatting import quoted
from explainer.illustration.vocab import TokenNames, vocabulary_from_labels
from explainer.lesson.game import Round, new_round
from tests.conftest import in_ci
from tests.engine.test_trace import VOCAB, make_trace
from tests.support.pseudo import LANGUAGE, make_pseudo_assets, unwrapped

TEXTS = load_texts()
BOM = b"\xef\xbb\xbf"
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")  # a plain decimal: no thousands separator, no exponent
DEVICES = ("DEVICE-a7f3e9c1", "DEVICE-b20d44aa", "DEVICE-c9e1f0b3", "DEVICE-d55aa017")
ROUNDS_HEADER = [
    "run",
    "pass",
    "revealed at (s)",
    "context",
    *(h for i in range(1, 5) for h in (f"choice {i}", f"model probability {i}", f"class votes {i}")),
    "class's pick",
    "model's favourite",
    "model's pick",
    "class picked the favourite",
]
REQUESTS_HEADER = [
    "request",
    "arrived at (s)",
    "held (s)",
    "wait (s)",
    "TTFT (s)",
    "TPOT (s)",
    "prompt tokens",
    "answer tokens",
    "passes shared",
    "shared with (requests)",
    "state",
]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Revealed:
    trace: Trace
    step: int
    round: Round
    result: RoundResult


@dataclass
class Session:
    clock: Clock
    queue: ClassQueue
    results: ClassResults
    names: TokenNames
    revealed: list[Revealed]
    model_pick: str  # at the branch's pass: the model's own token, as the chart labels it


def vote(room: Room, rnd: Round, round_id: int, choices: list[int]) -> RoundResult:
    """Round ``rnd`` offered to phones that vote ``choices``, then revealed by the room."""
    room.offer(offer_of(rnd, round_id))
    for i, choice in enumerate(choices):
        device = room.join(f"10.0.0.{i + 1}")
        assert isinstance(device, str)
        room.vote(device, round_id, choice)
    return room.result(round_id, probs_of(rnd), favourite_of(rnd))


def a_session() -> Session:
    """A lecture: two passes of a run revealed (the first twice), a pass of a branch of it
    nobody voted in, and four requests (served and batched, failed, held then approved, declined)."""
    clock = Clock()
    queue = ClassQueue(clock)
    results = ClassResults()
    results.begin(queue)
    names = TokenNames(vocabulary_from_labels(VOCAB))
    room = Room()
    trace = make_trace(4)
    own = next(i for i in range(1, len(VOCAB)) if i != trace.steps[1].sampling.chosen.id)
    branched = Branch(1, TokenRef(own, VOCAB[own]), by_class=True)  # (the class's token: the run's at pass 1)
    branch = replace(trace, branch=branched, created="2025-01-01T00:00:00+00:00")
    revealed: list[Revealed] = []
    for run, step, round_id, choices, at in ((trace, 1, 1, [2, 2, 0], 102.5), (trace, 2, 2, [1, 3], 103.75)):
        rnd = new_round(TEXTS, run, step, names, seed=7)
        assert rnd is not None
        clock.now = at
        revealed.append(Revealed(run, step, rnd, vote(room, rnd, round_id, choices)))
        results.revealed(run, step, rnd, revealed[-1].result, names)
    clock.now = 104.0  # the first pass's reveal shown again (stepping back to it): still one row
    first = revealed[0]
    results.revealed(first.trace, first.step, first.round, first.result, names)
    rnd = new_round(TEXTS, branch, 1, names, seed=7)
    assert rnd is not None
    clock.now = 104.5
    revealed.append(Revealed(branch, 1, rnd, vote(room, rnd, 3, [])))
    results.revealed(branch, 1, rnd, revealed[-1].result, names)

    clock.now = 101.0
    queue.submit(DEVICES[0], '=HYPERLINK("http://x")  what is 2+2?')
    clock.now = 101.5
    queue.submit(DEVICES[1], "Why is the sky blue?")
    clock.now = 102.0
    queue.take()
    queue.take()
    queue.prefill_began(1, 12)
    queue.prefill_began(2, 9)
    for pass_id, at in ((1, 102.5), (2, 102.75), (3, 103.0)):
        clock.now = at
        queue.token_made(1, b"-4, of course" if pass_id == 1 else b"!", pass_id)
        if pass_id > 1:
            queue.token_made(2, b"Rayleigh", pass_id)
    clock.now = 103.5
    queue.finished(1, make_trace(2))
    queue.failed(2)
    queue.set_moderated(True)
    clock.now = 104.0
    queue.submit(DEVICES[2], "A held question")
    clock.now = 106.0
    queue.approve(3)
    queue.submit(DEVICES[3], "A declined question")
    clock.now = 107.0
    queue.decline(4)
    return Session(clock, queue, results, names, revealed, quoted(names.use(trace).candidates([own])[0]))


def read(path: Path) -> tuple[bytes, list[dict[str, str]], list[str]]:
    """The file's bytes, its rows as dicts by header, and its header."""
    data = path.read_bytes()
    table = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    header, rows = table[0], table[1:]
    assert all(len(r) == len(header) for r in rows)
    return data, [dict(zip(header, r, strict=True)) for r in rows], header


def close(cell: str, value: float | None) -> bool:
    if value is None:
        return cell == ""
    return NUMBER.match(cell) is not None and float(cell) == pytest.approx(value, abs=1e-6)


def test_the_rounds_file_holds_one_row_per_revealed_round_as_the_room_counted_it(tmp_path):
    s = a_session()
    rounds_path, _ = write_results(s.results, tmp_path / "lecture.csv", TEXTS, include_texts=False)
    assert rounds_path == tmp_path / "lecture-rounds.csv"
    data, rows, header = read(rounds_path)
    assert data.startswith(BOM) and b"\r\n" in data
    assert header == ROUNDS_HEADER
    assert len(rows) == 3, "the pass revealed twice is one row"
    for row, r, run, at in zip(rows, s.revealed, ("1", "1", "2"), (2.5, 3.75, 4.5), strict=True):
        assert (row["run"], row["pass"]) == (run, str(r.step + 1))
        assert close(row["revealed at (s)"], at), "the first reveal's time, on class mode's clock"
        assert row["context"] == r.round.context
        for i, c in enumerate(r.round.candidates):
            assert row[f"choice {i + 1}"] == c.label
            assert close(row[f"model probability {i + 1}"], r.result.probs[i])
            assert row[f"class votes {i + 1}"] == str(r.result.votes[i])
        assert row["model's favourite"] == r.round.top.label
    first, second, branched = rows
    # the class's pick is its most-voted choice; 1 where it is the model's favourite
    labels = [c.label for c in s.revealed[0].round.candidates]
    assert first["class's pick"] == labels[2] and first["class votes 3"] == "2"
    assert first["class picked the favourite"] == str(int(s.revealed[0].round.top.label == labels[2]))
    assert second["class votes 2"] == "1" and second["class votes 4"] == "1"
    assert first["model's pick"] == s.revealed[0].round.chosen_label, "the token the run took at that pass"
    # nobody voted at the branch's pass: no pick, no verdict; there the run took the class's
    # token, and the model's own pick is the one the branch records
    assert branched["class's pick"] == "" and branched["class picked the favourite"] == ""
    assert branched["model's pick"] == s.model_pick != s.revealed[2].round.chosen_label


def test_the_requests_file_holds_the_queues_figures_and_no_device_id(tmp_path):
    s = a_session()
    _, requests_path = write_results(s.results, tmp_path / "lecture", TEXTS, include_texts=False)
    data, rows, header = read(requests_path)
    assert data.startswith(BOM) and header == REQUESTS_HEADER
    lives = s.queue.lives()
    assert [row["request"] for row in rows] == ["1", "2", "3", "4"]
    for row, life in zip(rows, lives, strict=True):
        assert close(row["arrived at (s)"], life.arrived - 100.0)
        assert close(row["held (s)"], life.held_s) and close(row["wait (s)"], life.wait_s)
        assert close(row["TTFT (s)"], life.ttft_s) and close(row["TPOT (s)"], life.tpot_s)
        assert row["prompt tokens"] == ("" if life.prompt_tokens is None else str(life.prompt_tokens))
        assert row["state"] == TEXTS.app_text("queue", f"state_{life.state.value}")
    served, failed, held, declined = rows
    assert (served["TTFT (s)"], served["TPOT (s)"], served["answer tokens"]) == ("1.5", "0.25", "3")
    assert (served["passes shared"], served["shared with (requests)"]) == ("2", "1")
    assert (failed["passes shared"], failed["shared with (requests)"], failed["answer tokens"]) == ("2", "1", "2")
    assert (held["held (s)"], held["wait (s)"], held["state"]) == ("2", "", "waiting")
    assert declined["state"] == "declined" and declined["answer tokens"] == ""
    text = data.decode("utf-8-sig")
    assert not any(d in text for d in DEVICES), "a phone's id is never written"
    assert "sky" not in text and "Rayleigh" not in text and "HYPERLINK" not in text, "no text unless asked"
    for row in rows:  # every figure machine-readable
        assert all(NUMBER.match(v) for k, v in row.items() if k != "state" and v)


def test_the_students_texts_only_when_asked_and_never_as_a_formula(tmp_path):
    s = a_session()
    _, path = write_results(s.results, tmp_path / "lecture", TEXTS, include_texts=True)
    _, rows, header = read(path)
    assert header == [*REQUESTS_HEADER, "prompt", "answer"]
    assert [(r["prompt"], r["answer"]) for r in rows] == [
        ('\'=HYPERLINK("http://x")  what is 2+2?', "'-4, of course!!"),  # written as text, not run
        ("Why is the sky blue?", "RayleighRayleigh"),
        ("A held question", ""),
        ("A declined question", ""),
    ]


def test_a_stopped_sessions_results_stay_until_the_next_begins(tmp_path):
    s = a_session()
    before = [read(p)[1] for p in write_results(s.results, tmp_path / "during", TEXTS, True)]
    s.results.end()  # class mode stopped: the queue is let go, its figures kept
    s.queue.submit("late", "after the stop")  # (the queue is closed in the app; here: not read any more)
    after = [read(p)[1] for p in write_results(s.results, tmp_path / "after", TEXTS, True)]
    assert after == before and not s.results.running and not s.results.empty()
    s.results.revealed(s.revealed[0].trace, 3, s.revealed[0].round, replace(s.revealed[0].result, round_id=9), s.names)
    assert len(s.results.rounds()) == 3, "a reveal outside a session is not kept"
    s.results.begin(ClassQueue(s.clock))
    assert s.results.empty() and s.results.rounds() == () and s.results.requests() == ()


def test_the_rounds_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(results_module, "MAX_ROUNDS", 2)
    s = a_session()
    assert [r.round_id for r in s.results.rounds()] == [2, 3], "the newest are kept"


@pytest.mark.parametrize("case", ["missing folder", "folder named like a file", "a file as the folder"])
def test_a_destination_that_cannot_be_written_is_refused_and_nothing_written(tmp_path, case):
    s = a_session()
    base = tmp_path / "lecture"
    if case == "missing folder":
        base = tmp_path / "no" / "such" / "lecture"
    elif case == "folder named like a file":
        (tmp_path / "lecture-requests.csv").mkdir()  # the second file: the first must not be written either
    else:
        (tmp_path / "notes").write_text("mine")
        base = tmp_path / "notes" / "lecture"
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(ExplainerError) as refused:
        write_results(s.results, base, TEXTS, include_texts=True)
    assert refused.value.message and refused.value.hint
    assert sorted(p.name for p in tmp_path.rglob("*")) == before, "nothing written, no temporary file left"
    if case == "a file as the folder":
        assert (tmp_path / "notes").read_text() == "mine"


def test_the_file_names_and_headers_are_the_texts(tmp_path):
    """In a pseudo-language every header and file name is wrapped in ⟦ ⟧: none is the code's."""
    pseudo = read_texts(LANGUAGE, root=make_pseudo_assets(tmp_path / "assets"))
    s = a_session()
    rounds, requests = write_results(s.results, tmp_path / "x", pseudo, include_texts=True)
    assert result_paths(tmp_path / "x.csv", pseudo) == (rounds, requests)
    assert "⟦" in rounds.name and "⟦" in requests.name
    for path in (rounds, requests):
        header = read(path)[2]
        assert all(not re.search(r"[A-Za-z]", unwrapped(h)) for h in header), header
    assert {r["⟦state⟧"] for r in read(requests)[1]} <= {f"⟦{w}⟧" for w in ("done", "failed", "waiting", "declined")}


# --- LibreOffice opens them ---------------------------------------------------------------------

OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


def _text(p: ET.Element) -> str:
    """A paragraph's text, its runs of spaces (text:s) as spaces."""
    parts = [p.text or ""]
    for child in p:
        if child.tag == f"{{{TEXT}}}s":
            parts.append(" " * int(child.get(f"{{{TEXT}}}c", "1")))
        else:
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return "".join(parts)


def ods_cells(path: Path) -> list[list[tuple[str, str]]]:
    """Each row of the first sheet as (value type, text) cells, repeated cells expanded and the
    empty ones at a row's end dropped."""
    root = ET.fromstring(zipfile.ZipFile(path).read("content.xml"))
    rows = []
    for row in root.iter(f"{{{TABLE}}}table-row"):
        cells: list[tuple[str, str]] = []
        for cell in row:
            kind = cell.get(f"{{{OFFICE}}}value-type", "")
            text = "\n".join(_text(p) for p in cell.iter(f"{{{TEXT}}}p"))
            cells += [(kind, text)] * int(cell.get(f"{{{TABLE}}}number-columns-repeated", "1"))
        while cells and cells[-1] == ("", ""):
            cells.pop()
        rows.append(cells)
    return rows


def test_libreoffice_opens_both_files_with_numbers_as_numbers(tmp_path):
    """Converted headless to ODS with the import LibreOffice's dialog offers for these files (the
    byte order mark makes it pick UTF-8; comma-separated; the English number format, which its
    dialog's language choice gives in a locale that writes decimal commas)."""
    if shutil.which("soffice") is None:
        if in_ci():
            pytest.fail("LibreOffice (soffice) is not installed: packaging/bootstrap.sh test installs libreoffice-calc")
        pytest.skip("LibreOffice is not installed")
    s = a_session()
    files = write_results(s.results, tmp_path / "lecture", TEXTS, include_texts=True)
    profile = tmp_path / "profile"
    conv = subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{profile}",
            "--headless",
            "--infilter=CSV:44,34,76,1,,1033",
            "--convert-to",
            "ods",
            "--outdir",
            str(tmp_path / "ods"),
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    rounds_ods, requests_ods = (tmp_path / "ods" / p.with_suffix(".ods").name for p in files)
    assert rounds_ods.is_file() and requests_ods.is_file(), conv.stdout + conv.stderr
    rounds = ods_cells(rounds_ods)
    assert [t for _, t in rounds[0]] == ROUNDS_HEADER
    assert len(rounds) == 1 + len(s.results.rounds())
    first = dict(zip(ROUNDS_HEADER, rounds[1], strict=False))
    assert first["pass"] == ("float", "2") and first["revealed at (s)"] == ("float", "2.5")
    assert first["model probability 1"][0] == "float"
    assert float(first["model probability 1"][1]) == pytest.approx(s.revealed[0].result.probs[0], rel=1e-3)
    assert first["context"] == ("string", s.revealed[0].round.context), "the text as written, “ ” and all"
    requests = ods_cells(requests_ods)
    assert len(requests) == 1 + 4 and [t for _, t in requests[0]] == [*REQUESTS_HEADER, "prompt", "answer"]
    by_name = dict(zip([t for _, t in requests[0]], requests[1], strict=False))
    assert by_name["TPOT (s)"] == ("float", "0.25") and by_name["state"] == ("string", "done")
    assert by_name["prompt"] == ("string", '\'=HYPERLINK("http://x")  what is 2+2?'), "a student's formula stays text"


def _life(n: int) -> RequestLife:
    return RequestLife(number=n, device=f"DEVICE-{n}", text="q", arrived=float(n))


def test_the_requests_kept_after_a_session_are_bounded(monkeypatch):
    monkeypatch.setattr(results_module, "MAX_REQUESTS", 3)
    rows = results_module.request_rows([_life(n) for n in range(1, 6)], 0.0)
    assert [r.number for r in rows] == [3, 4, 5]


WRITE_INTO = """
import sys
from explainer.classroom.queue import ClassQueue
from explainer.classroom.results import ClassResults, write_results
from explainer.content.assets import load_texts
from explainer.errors import ExplainerError
queue = ClassQueue()
queue.submit("phone", "a question")
results = ClassResults()
results.begin(queue)
try:
    write_results(results, sys.argv[1] + "/lecture", load_texts(), include_texts=True)
except ExplainerError as exc:
    print(exc.message, "|", exc.hint)
"""


def test_a_folder_the_user_may_not_write_is_refused_with_nothing_written(tmp_path):
    """As an ordinary user (root: through setpriv without the capabilities that override a mode)."""
    from tests.test_unprivileged import ROOT, _prefix

    prefix = _prefix(tmp_path / "probe")
    if prefix is None:
        pytest.skip("running as root, and setpriv cannot drop the capabilities that override permissions")
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o500)
    try:
        done = subprocess.run(
            [*prefix, sys.executable, "-c", WRITE_INTO, str(folder)],
            env={**os.environ, "PYTHONPATH": ROOT},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert f"cannot save the class results into {folder}" in done.stdout and "folder you can write" in done.stdout
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)
