"""Text made of byte-level tokens: decoded as one stream, a piece of a character shown by its bytes.

The reference is the tokenizers library itself: its ``decode`` of the same ids and its own
incremental ``DecodeStream``, on real prompts in several scripts and the default model's tokenizer.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explainer.engine.text_bytes import (
    LIKE_TOKENIZERS,
    TextStream,
    byte_label,
    characters,
    continue_text,
    is_whole,
    label_bytes,
    spell,
    split_piece_label,
)
from explainer.engine.trace import TokenRef

# real prompts a class might type, each with characters of two or more bytes
SCRIPTS = {
    "arabic": "ما هي عاصمة مصر؟ القاهرة مدينة كبيرة.",
    "greek": "Ο Απόλλωνας ήταν θεός του φωτός.",
    "chinese": "北京是中国的首都，也是一座古老的城市。",
    "japanese": "日本の首都は東京です。こんにちは！",
    "hindi": "भारत की राजधानी नई दिल्ली है।",
    "emoji": "Three emoji: 🍕🚀👍🏽 and a family 👨\u200d👩\u200d👧 and a flag 🇬🇷.",
}


def test_a_character_split_over_two_tokens_comes_out_once_both_are_in():
    stream = TextStream()
    assert stream.push(b"\xe5\x8c") == "" and stream.pending == b"\xe5\x8c"  # "北" begun: held back
    assert stream.push(b"\x97") == "北" and stream.pending == b""
    assert stream.push(b" \xf0\x9f") == " " and stream.pending == b"\xf0\x9f"  # whole characters go out at once
    assert stream.push(b"\x98\x80!") == "😀!"


def test_bytes_that_can_never_make_a_character_are_named_or_replaced_as_the_tokenizers_library_does():
    assert spell([b"\x97", b"x"]).text == "⟨97⟩x"  # a continuation byte with nothing before it
    assert spell([b"\xe5\x8c", b"x"]).text == "⟨E5·8C⟩x"  # a character begun and broken off
    assert spell([b"\x97", b"x"], LIKE_TOKENIZERS).text == "\ufffdx"
    assert spell([b"\xe5\x8c", b"x"], LIKE_TOKENIZERS).text == "\ufffdx"
    assert spell([b"\xe5\x8c\x97\x97"]).text == "北⟨97⟩"
    assert spell([b"a", b"\xf0\x9f"]) == spell([b"a\xf0\x9f"])  # where the bytes are cut does not matter
    assert spell([b"a", b"\xf0\x9f"]).unfinished == b"\xf0\x9f"  # the run ends inside a character


def test_continue_text_is_a_stream_kept_as_plain_values():
    text, pending = continue_text(b"", b"\xe5\x8c")
    assert (text, pending) == ("", b"\xe5\x8c")
    assert continue_text(pending, b"\x97\xe4\xba") == ("北", b"\xe4\xba")


def test_each_piece_is_named_by_the_characters_it_helps_make():
    parts = [b"\xe5\x8c", b"\x97", b"a", b"\xf0\x9f", b"\x98\x80", b"\xf0\x9f"]
    assert characters(parts) == ["北", "北", "", "😀", "😀", ""]  # the last one's character is unfinished
    assert characters([b"\x98\x80"], before=b"\xf0\x9f") == ["😀"]  # a piece finishing a character begun before
    assert characters([b"\x98"], before=b"\xf0\x9f") == [""]  # still three bytes of four
    assert characters([b"\x97", b"x"]) == ["", ""]  # a stray byte makes no character
    assert characters([b" \xe4\xba", b"\xac"]) == [" 京", "京"]  # a piece across a space and a character


def test_a_piece_label_holds_its_bytes_and_its_character():
    assert byte_label(b"\xe5\x8c") == "⟨E5·8C⟩"
    assert split_piece_label("⟨E5·8C⟩") == (b"\xe5\x8c", "")
    assert split_piece_label("⟨E5·8C⟩ 北") == (b"\xe5\x8c", "北")
    assert label_bytes("⟨E5·8C⟩ 北") == b"\xe5\x8c"
    for other in ("北", "⟨⟩", "⟨E5-8C⟩", "⟨e5·8c⟩", " ⟨E5⟩", "#123"):
        assert split_piece_label(other) is None, other


@given(st.binary(min_size=1, max_size=8))
def test_any_bytes_survive_a_label(data):
    assert label_bytes(byte_label(data)) == data


def test_a_token_ref_keeps_the_bytes_of_a_piece_and_only_those():
    whole = TokenRef.of(7, b" Paris")
    assert whole == TokenRef(7, " Paris") and whole.raw is None and not whole.partial and whole.data == b" Paris"
    piece = TokenRef.of(30158, b"\xe5\x8c")
    assert piece.partial and piece.raw == b"\xe5\x8c" and piece.data == b"\xe5\x8c" and piece.text == "\ufffd"


@given(st.lists(st.text(max_size=6), max_size=8))
def test_streaming_any_text_cut_anywhere_gives_it_back_whole(texts):
    data = "".join(texts).encode()
    cuts = [len(t.encode()) for t in texts]
    parts: list[bytes] = []
    at = 0
    for n in cuts:  # the bytes cut at every byte boundary a tokenizer might choose, not only characters'
        parts.extend(data[at + k : at + k + 1] for k in range(n))
        at += n
    stream = TextStream()
    chunks = [stream.push(p) for p in parts]
    assert "".join(chunks) == data.decode() and stream.pending == b""
    assert all("\ufffd" not in c for c in chunks)
    assert all(is_whole(c.encode()) for c in chunks)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_real_tokens_in_every_script_stream_as_the_tokenizers_library_decodes_them(built_model, script):
    from tokenizers.decoders import DecodeStream

    from explainer.engine.tokenizer import load_tokenizer

    tok = load_tokenizer(built_model.tokenizer_path)
    text = SCRIPTS[script]
    ids = tok.encode_ids(text)
    parts = [tok.token_bytes(i) for i in ids]
    assert any(not is_whole(p) for p in parts), "no token of this prompt is a piece of a character"
    assert spell(parts).text == spell(parts, LIKE_TOKENIZERS).text == tok.hf.decode(ids) == text
    # as it streams: never half a character, and never behind the library's own incremental
    # decoder (which holds back a whole token whose last character is unfinished, where the
    # stream lets out the characters before it)
    theirs, ours = DecodeStream(skip_special_tokens=False), TextStream()
    shown, shown_by_them = "", ""
    for k, (i, part) in enumerate(zip(ids, parts)):
        shown += ours.push(part)
        shown_by_them += theirs.step(tok.hf, i) or ""
        assert text.startswith(shown) and shown.startswith(shown_by_them)
        assert shown == b"".join(parts[: k + 1]).decode("utf-8", "ignore")  # all the whole characters so far
    assert shown == shown_by_them == text
    # every piece is named by the character of the text it belongs to
    named = characters(parts)
    for part, char in zip(parts, named):
        if not is_whole(part):
            assert char and char in text
