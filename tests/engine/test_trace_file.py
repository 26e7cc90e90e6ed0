"""Trace files that are damaged, tampered with or not traces at all: each is refused with a
message naming what is wrong, never with a traceback, and nothing else changes."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explainer.engine.trace import TokenRef, Trace
from explainer.engine.trace_checks import TraceError, check_trace
from explainer.engine.trace_file import load_trace, save_trace
from tests.engine.test_trace import make_trace


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("saved") / "run.trace"
    save_trace(make_trace(), path)
    return path.read_bytes()


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def _npy(arr: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, arr, allow_pickle=False)
    return out.getvalue()


def _load(tmp_path: Path, data: bytes) -> Trace:
    path = tmp_path / "t.trace"
    path.write_bytes(data)
    return load_trace(path)


def _refused(tmp_path: Path, data: bytes, match: str) -> None:
    with pytest.raises(TraceError, match=match) as info:
        _load(tmp_path, data)
    assert info.value.hint


def test_truncated_files_are_refused(tmp_path, saved):
    for cut in (1, 3, 10, len(saved) // 3, len(saved) // 2, len(saved) - 30, len(saved) - 1):
        with pytest.raises(TraceError):
            _load(tmp_path, saved[:cut])


@pytest.mark.parametrize(
    "data, match",
    [
        (b"", "not a trace"),
        (b"\x89PNG\r\n\x1a\n" + bytes(40), "not a trace"),
        (b"hello, world", "not a trace"),
        (b'{"some": "json"}', "missing field"),
        (b"[1, 2, 3]", "expected an object, got list"),
    ],
)
def test_foreign_files_are_refused(tmp_path, data, match):
    _refused(tmp_path, data, match)


def test_a_zip_that_is_not_a_trace_is_refused(tmp_path):
    _refused(tmp_path, _zip({"word/document.xml": b"<w/>"}), "no trace.json")


def test_tampered_header_is_named(tmp_path, saved):
    m = _members(saved)
    header = json.loads(m["trace.json"])
    header["steps"][2]["start"] = 9
    _refused(tmp_path, _zip({**m, "trace.json": json.dumps(header).encode()}), r"steps\[2\].start: expected 4")
    header = json.loads(m["trace.json"])
    header["version"] = 7
    _refused(tmp_path, _zip({**m, "trace.json": json.dumps(header).encode()}), "unsupported trace version 7")
    header = json.loads(m["trace.json"])
    header["steps"][1]["draw"] = 1.5
    _refused(tmp_path, _zip({**m, "trace.json": json.dumps(header).encode()}), r"steps\[1\].draw")
    _refused(tmp_path, _zip({**m, "trace.json": b"{not json"}), "trace.json: not valid JSON")


def test_tampered_arrays_are_named(tmp_path, saved):
    m = _members(saved)
    emb = np.load(io.BytesIO(m["embeddings.npy"]))
    _refused(tmp_path, _zip({**m, "embeddings.npy": _npy(emb[:-1])}), r"embeddings.npy: expected shape")
    _refused(tmp_path, _zip({**m, "embeddings.npy": _npy(emb.astype(np.float64))}), "embeddings.npy: expected float16")
    ids = np.load(io.BytesIO(m["top_ids.npy"]))
    ids[2, 1, 0] = 99
    _refused(tmp_path, _zip({**m, "top_ids.npy": _npy(ids)}), r"steps\[2\].sampling: token ids must be within")
    probs = np.load(io.BytesIO(m["top_probs.npy"]))
    probs[3, 0, 0] = 2.0
    _refused(tmp_path, _zip({**m, "top_probs.npy": _npy(probs)}), r"steps\[3\].sampling: probabilities")
    del m["layer_change.npy"]
    _refused(tmp_path, _zip(m), "lacks layer_change.npy")


def test_a_huge_declared_array_is_refused_before_it_is_allocated(tmp_path, saved):
    m = _members(saved)
    header = b"{'descr': '<f2', 'fortran_order': False, 'shape': (100000000000, 4), }"
    fake = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\n"
    _refused(tmp_path, _zip({**m, "embeddings.npy": fake}), "embeddings.npy: expected shape")


def test_a_bad_open_leaves_the_trace_file_as_it_was(tmp_path, saved):
    path = tmp_path / "t.trace"
    path.write_bytes(saved[:100])
    with pytest.raises(TraceError):
        load_trace(path)
    assert path.read_bytes() == saved[:100]


corruptions = st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=corruptions, cut=st.one_of(st.none(), st.floats(0, 1)))
def test_random_corruptions_never_raise_anything_but_a_trace_error(tmp_path, saved, changes, cut):
    data = bytearray(saved)
    for where, value in changes:
        data[int(where * len(data))] = value
    if cut is not None:
        data = data[: int(cut * len(data))]
    try:
        trace = _load(tmp_path, bytes(data))
    except TraceError as e:
        assert e.message and e.hint
    else:  # the change hit bytes that do not matter (zip padding, a timestamp): still a valid trace
        check_trace(trace)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.lists(
        st.sampled_from(
            [
                "steps",
                0,
                1,
                2,
                "model",
                "settings",
                "prompt_tokens",
                "ids",
                "texts",
                "chosen",
                "id",
                "tokens",
                "start",
                "n_layers",
                "vocab_size",
            ]
        ),
        max_size=4,
    ),
    value=st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 10**12),
        st.floats(allow_nan=True),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=3),
    ),
)
def test_random_header_edits_never_raise_anything_but_a_trace_error(tmp_path, saved, path, value):
    m = _members(saved)
    header = json.loads(m["trace.json"])
    node = header
    for key in path[:-1]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return
    if path and isinstance(node, (dict, list)):
        try:
            node[path[-1]] = value
        except (IndexError, TypeError):
            return
    try:
        _load(tmp_path, _zip({**m, "trace.json": json.dumps(header).encode()}))
    except TraceError as e:
        assert e.message


def test_a_lesson_file_is_a_trace_with_where_the_learner_was(tmp_path):
    from explainer.engine.trace_file import open_trace_file

    trace = make_trace()
    lesson = {"tour": {"step": "tok-ids", "index": 7}, "game": {"played": 2, "right": 1}}
    save_trace(trace, tmp_path / "class.lesson", lesson=lesson)
    opened = open_trace_file(tmp_path / "class.lesson")
    assert opened.trace == trace and opened.lesson == lesson
    assert load_trace(tmp_path / "class.lesson") == trace  # any reader of traces reads it
    save_trace(trace, tmp_path / "plain.trace")
    assert open_trace_file(tmp_path / "plain.trace").lesson is None


def test_a_tampered_lesson_record_is_named(tmp_path, saved):
    m = _members(saved)
    _refused(tmp_path, _zip({**m, "lesson.json": b"[1, 2]"}), "lesson.json: expected an object, got list")
    _refused(tmp_path, _zip({**m, "lesson.json": b"{oops"}), "lesson.json: not valid JSON")


def _with_header(npy: bytes, header: bytes) -> bytes:
    """``npy`` (a version 1.0 file) with its header text replaced, the length field kept true."""
    length = int.from_bytes(npy[8:10], "little")
    return npy[:8] + len(header).to_bytes(2, "little") + header + npy[10 + length :]


@pytest.mark.parametrize(
    "header",
    [
        b"{'descr': '<f2', 'fortran_order': False, 'shape': (3, \n",  # the sweep's: tokenize's TokenError
        b"{'descr': '<f2', 'fortran_order': False, 'shape': (3, 4), }" + b"\x80\xff" + b"\n",
        b"{'descr': '<f2', 'fortran_order': False, 'shape': 'wide', }\n",
        b"{'descr': '<f2', 'fortran_order': False, 'shape': (-3, 4), }\n",
        b"{'descr': '<f2', 'fortran_order': False, 'shape': (3.5, 4), }\n",
        b"{'descr': 'O', 'fortran_order': False, 'shape': (3, 4), }\n",
        b"[1, 2, 3]\n",
        b"__import__('os')\n",
    ],
)
def test_a_damaged_array_header_in_a_valid_zip_is_named(tmp_path, saved, header):
    """Zip checksums valid, one .npy header corrupted: one clear message for the member (the
    fault sweep: "unexpected TokenError: EOF in multi-line statement", exit 1)."""
    m = _members(saved)
    _refused(tmp_path, _zip({**m, "embeddings.npy": _with_header(m["embeddings.npy"], header)}), r"embeddings\.npy")


def test_a_prompt_in_a_trace_passes_the_bound_a_typed_one_does(tmp_path, saved):
    """The fault sweep: a trace whose stored prompt is huge became a web page as large, and took
    memory many times that, though typing that prompt is refused. Now the same rule refuses it at
    load."""
    m = _members(saved)
    header = json.loads(m["trace.json"])
    header["prompt"] = "a" * (10 << 20)
    _refused(tmp_path, _zip({**m, "trace.json": json.dumps(header).encode()}), r"prompt: the prompt is .* long")
    header = json.loads(m["trace.json"])
    header["prompt_tokens"]["texts"][0] = "x" * 5000
    _refused(tmp_path, _zip({**m, "trace.json": json.dumps(header).encode()}), r"prompt_tokens\.texts\[0\]: 5,000")


def _with_pieces() -> Trace:
    """A trace whose prompt starts with a piece of a character and whose first pass picks the piece
    that finishes it (the next pass reads that piece back)."""
    trace = make_trace()
    first = trace.prompt_tokens[0]
    trace.prompt_tokens[0] = trace.steps[0].tokens[0] = TokenRef.of(first.id, b"\xe5\x8c")
    chosen = trace.steps[0].sampling.chosen
    piece = TokenRef.of(chosen.id, b"\x97")
    trace.steps[0].sampling.chosen = piece
    trace.steps[1].tokens[0] = piece
    return trace


def test_the_bytes_of_pieces_of_characters_are_kept_and_checked(tmp_path):
    path = tmp_path / "pieces.trace"
    trace = _with_pieces()
    save_trace(trace, path)
    again = load_trace(path)
    assert again == trace
    assert again.prompt_tokens[0].raw == b"\xe5\x8c" and again.steps[0].sampling.chosen.raw == b"\x97"
    assert again.steps[1].tokens[0].raw == b"\x97"
    header = json.loads(_members(path.read_bytes())["trace.json"])
    assert header["prompt_tokens"]["bytes"][:2] == ["e58c", None]  # one per token, null for whole ones
    assert header["steps"][0]["chosen"]["bytes"] == "97" and "bytes" not in header["steps"][1]["chosen"]


@pytest.mark.parametrize(
    ("where", "value", "match"),
    [
        (("steps", 0, "chosen", "bytes"), "9", r"steps\[0\].chosen.bytes: expected an even number"),
        (("steps", 0, "chosen", "bytes"), "zz", r"steps\[0\].chosen.bytes: expected hex digits"),
        (("steps", 0, "chosen", "bytes"), "e58c97", r"steps\[0\].chosen.bytes: these bytes are not"),  # whole: "北"
        (("steps", 0, "chosen", "bytes"), 151, r"steps\[0\].chosen.bytes"),
        (("prompt_tokens", "bytes", 0), "f09f", None),  # other bytes, the same U+FFFD text: any piece reads
        (("prompt_tokens", "bytes", 1), "41", r"prompt_tokens.bytes\[1\]: these bytes are not"),  # not its text
        (("prompt_tokens", "bytes"), ["e58c"], r"prompt_tokens.bytes: expected \d+ entries"),
    ],
)
def test_tampered_bytes_of_a_piece_are_named(tmp_path, where, value, match):
    path = tmp_path / "pieces.trace"
    save_trace(_with_pieces(), path)
    m = _members(path.read_bytes())
    header = json.loads(m["trace.json"])
    node = header
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    data = _zip({**m, "trace.json": json.dumps(header).encode()})
    if match is None:
        assert _load(tmp_path, data).prompt_tokens[0].raw == bytes.fromhex(value)
    else:
        _refused(tmp_path, data, match)


def test_a_file_written_before_the_bytes_were_recorded_still_opens(tmp_path):
    """Its pieces hold U+FFFD and no bytes: they open as such (the app then names them by the
    vocabulary, illustration/vocab.py)."""
    path = tmp_path / "pieces.trace"
    save_trace(_with_pieces(), path)
    m = _members(path.read_bytes())
    header = json.loads(m["trace.json"])
    del header["prompt_tokens"]["bytes"]
    del header["steps"][0]["chosen"]["bytes"]
    trace = _load(tmp_path, _zip({**m, "trace.json": json.dumps(header).encode()}))
    assert trace.prompt_tokens[0] == TokenRef(trace.prompt_tokens[0].id, "\ufffd")
    assert trace.steps[0].sampling.chosen.raw is None
