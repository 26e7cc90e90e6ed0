"""Both tokenizer kinds a GGUF may carry: SentencePiece with byte fallback (Gemma 3) agrees with
llama.cpp's algorithm on the GGUF's own vocabulary; byte-level BPE splits text the way its
`tokenizer.ggml.pre` names (qwen2, llama-bpe)."""

from __future__ import annotations

import pytest

from explainer.errors import ExplainerError
from explainer.model.tokenizer_build import spm_tokenizer, tokenizer_from_vocab

from .spm_reference import spm_encode
from .tokenizer_texts import TEXTS


def tiny_spm():
    """A small SentencePiece vocabulary: controls, user-defined runs of newlines and spaces,
    the 256 byte pieces, characters and a few merged pieces with distinct scores."""
    tokens = ["<pad>", "<eos>", "<bos>", "<unk>", "\n", "\n\n", "  ", "   "]
    types = [3, 3, 3, 2, 4, 4, 4, 4]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [6] * 256
    pieces = list("▁abcdehilnorstw,.!") + ["▁t", "he", "▁the", "▁a", "an", "▁an", "ll", "▁w", "or", "▁wor", "ld"]
    tokens += pieces
    types += [1] * len(pieces)
    scores = [0.0] * (8 + 256) + [-float(i) for i in range(len(pieces))]
    return tokens, types, scores


@pytest.mark.parametrize("prefix", [False, True])
def test_spm_agrees_with_llama_cpp_on_a_tiny_vocabulary(prefix):
    tokens, types, scores = tiny_spm()
    tok = spm_tokenizer(tokens, types, scores, prefix)
    for text in ["the world", "hello, world!\n\nthe  an", "über 日本 🤖", "a   b\n", "  the\tend"]:
        want = spm_encode(text, tokens, scores, types, prefix)
        assert tok.encode(text, add_special_tokens=False).ids == want, text


def test_spm_reads_back_its_text():
    tokens, types, scores = tiny_spm()
    tok = spm_tokenizer(tokens, types, scores, False)
    for text in ["the world", "über 日本 🤖", "a  \n\nb"]:
        assert tok.decode(tok.encode(text, add_special_tokens=False).ids) == text


def test_the_engine_reads_spm_pieces_as_the_text_they_stand_for():
    """What a learner reads of a Gemma token: its space as a space, a byte-fallback piece as
    its byte (never "\u2581" or "<0xF0>"), and the pieces of a text joining back into it."""
    from explainer.engine.tokenizer import TextTokenizer

    tokens, types, scores = tiny_spm()
    tok = TextTokenizer(spm_tokenizer(tokens, types, scores, False))
    assert tok.piece(tokens.index("▁the")) == " the"
    assert tok.token_bytes(tokens.index("<0xF0>")) == b"\xf0"
    for text in ["the world", "über 日本 🤖", "a  \n\nb", "  the\tend"]:
        ids = tok.encode_ids(text)
        assert tok.decode(ids) == text
    assert [t.text for t in tok.encode("the world")] == ["t", "he", " wor", "ld"]


def _byte_level(pre):
    from tokenizers.pre_tokenizers import ByteLevel

    alphabet = sorted(ByteLevel.alphabet())
    return tokenizer_from_vocab(alphabet, [1] * len(alphabet), [], pre)


@pytest.mark.parametrize(
    ("pre", "digits"),
    [("qwen2", ["1", "2", "3", "4", "5"]), ("llama-bpe", ["123", "45"]), ("smollm", ["1", "2", "3", "4", "5"])],
)
def test_byte_level_pre_tokenizers_split_digits_their_way(pre, digits):
    tok = _byte_level(pre)
    pieces = [p for p, _ in tok.pre_tokenizer.pre_tokenize_str("12345")]
    assert pieces == digits
    assert tok.decode(tok.encode("héllo  wörld\t12345").ids) == "héllo  wörld\t12345"


def test_texts_cover_what_the_issue_names():
    joined = "".join(TEXTS)
    assert "\t" in joined and "  " in joined and "😀" in joined and "日本" in joined and "العربية" in joined


def test_an_unknown_tokenizer_kind_is_refused(tmp_path):
    from explainer.model.tokenizer_build import read_gguf_tokenizer

    from .tiny_gguf import write_tiny_gguf

    write_tiny_gguf(tmp_path / "m.gguf")  # no tokenizer.ggml.model at all
    with pytest.raises(ExplainerError, match="tokenizer is of kind None"):
        read_gguf_tokenizer(tmp_path / "m.gguf")
