"""Tokenizer built from the GGUF vocabulary.

Fast tests use a tiny GGUF; the `slow` ones use the real SmolLM2 vocabulary.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explainer.engine.tokenizer import TextTokenizer, Token, load_tokenizer
from explainer.model.tokenizer_build import build_tokenizer

# ------------------------------------------------------------------- tiny vocabulary


@pytest.fixture
def tiny_tok(tiny_gguf, tmp_path) -> TextTokenizer:
    build_tokenizer(tiny_gguf, tmp_path / "tokenizer.json")
    return TextTokenizer.load(tmp_path / "tokenizer.json")


def test_tiny_files_and_specials(tiny_tok, tmp_path):
    assert (tmp_path / "tokenizer_config.json").is_file()
    assert tiny_tok.eos_id == 2 and tiny_tok.bos_id == 1
    assert tiny_tok.is_special(1) and not tiny_tok.is_special(3)
    ids = [t.id for t in tiny_tok.encode("<|im_start|>the<|im_end|>")]
    assert ids[0] == 1 and ids[-1] == 2


def test_tiny_no_bos_added(tiny_tok):
    assert tiny_tok.encode("") == []
    assert tiny_tok.encode("a")[0].text == "a"


# the tokenizer is read-only, so sharing the fixture across examples is fine
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40))
def test_tiny_round_trip_and_offsets(tiny_tok, text):
    toks = tiny_tok.encode(text)
    assert tiny_tok.decode([t.id for t in toks]) == text
    _check_offsets(text, toks)


def _check_offsets(text: str, toks: list[Token]) -> None:
    prev_end = 0
    for t in toks:
        assert 0 <= t.start <= t.end <= len(text)
        assert t.start <= prev_end  # no gaps: every character is covered
        prev_end = max(prev_end, t.end)
        if "\ufffd" not in t.text or "\ufffd" in text[t.start : t.end]:
            assert t.text == text[t.start : t.end]
    assert prev_end == len(text)


# ------------------------------------------------------------------ real vocabulary


@pytest.fixture(scope="module")
def tok(real_gguf, tmp_path_factory) -> TextTokenizer:
    d = tmp_path_factory.mktemp("realtok")
    build_tokenizer(real_gguf, d / "tokenizer.json")
    return TextTokenizer.load(d / "tokenizer.json")


ROUND_TRIP = [
    "Hello, world!",
    "The capital of France is",
    "café, naïve, Ærøskøbing, São Paulo, Düsseldorf",
    "東京は日本の首都です。中文测试",
    "emoji: 😀 🦙 👩‍👩‍👧 🇫🇷 and ✓",
    "  two spaces,\tthen a tab\n\nand blank lines\r\n   trailing   ",
    "Numbers 1234567890 and 3.14159 and -42",
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
    "",
]


@pytest.mark.slow
@pytest.mark.parametrize("text", ROUND_TRIP)
def test_round_trip(tok, text):
    toks = tok.encode(text)
    assert tok.decode([t.id for t in toks]) == text
    _check_offsets(text, toks)


@pytest.mark.slow
def test_vocab_and_specials(tok):
    assert tok.vocab_size == 49152
    assert tok.eos_id == 2 and tok.bos_id == 1
    assert {0, 1, 2, 16} <= tok.special_ids
    assert not tok.is_special(17)
    assert tok.piece(1) == "<|im_start|>"
    assert tok.piece(tok.token_id("ĠParis")) == " Paris"


@pytest.mark.slow
def test_chat_specials_are_single_tokens(tok):
    toks = tok.encode("<|im_start|>user\nHi<|im_end|>")
    assert [t.text for t in toks] == ["<|im_start|>", "user", "\n", "Hi", "<|im_end|>"]
    assert toks[0].id == 1 and toks[-1].id == 2
    assert (toks[0].start, toks[0].end) == (0, 12)
    text = "<|endoftext|><repo_name>x<empty_output>"
    ids = [t.id for t in tok.encode(text)]
    assert ids[0] == 0 and ids[1] == 3 and ids[-1] == 16


@pytest.mark.slow
def test_digits_split_one_per_token(tok):
    toks = tok.encode("year 2024: 31415")
    digits = [t for t in toks if t.text.strip().isdigit()]
    assert [t.text for t in digits] == list("202431415")


@pytest.mark.slow
def test_capital_of_france_pieces(tok):
    toks = tok.encode("The capital of France is")
    assert [t.text for t in toks] == ["The", " capital", " of", " France", " is"]
    assert [tok.piece(t.id) for t in toks] == ["The", " capital", " of", " France", " is"]
    assert [(t.start, t.end) for t in toks] == [(0, 3), (3, 11), (11, 14), (14, 21), (21, 24)]


@pytest.mark.slow
def test_split_characters_are_handled(tok):
    text = " 🦙"
    toks = tok.encode(text)
    assert len(toks) > 1  # the llama emoji is split across byte-level tokens
    assert tok.decode([t.id for t in toks]) == text
    assert any("\ufffd" in t.text for t in toks)
    assert all(t.end <= len(text) for t in toks)
    # a prefix of the ids decodes with a replacement char instead of raising
    assert tok.decode([toks[0].id]).endswith("\ufffd")


@pytest.mark.slow
def test_accent_and_cjk_offsets_are_characters(tok):
    text = "café 東京"
    toks = tok.encode(text)
    for t in toks:
        if "\ufffd" not in t.text:
            assert text[t.start : t.end] == t.text


@pytest.mark.slow
def test_built_model_tokenizer_matches(built_model, tok):
    built = load_tokenizer(built_model.tokenizer_path)
    text = "<|im_start|>user\nWhat is 12+30? Café 東京 😀<|im_end|>"
    assert [t.id for t in built.encode(text)] == [t.id for t in tok.encode(text)]
