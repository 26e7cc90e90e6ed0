"""Token labels: a piece of a character is shown by its bytes, never as U+FFFD."""

from __future__ import annotations

import pytest

from explainer.engine.tokenizer import load_tokenizer
from explainer.illustration.vocab import display_piece

pytestmark = pytest.mark.slow


def test_whole_tokens_keep_their_text_and_byte_pieces_show_their_bytes(built_model):
    tok = load_tokenizer(built_model.tokenizer_path)
    assert display_piece(tok, 7042) == " Paris"
    pieces = [t.id for t in tok.encode("🍕")]
    assert len(pieces) > 1  # the emoji's four bytes take more than one token
    labels = [display_piece(tok, i) for i in pieces]
    assert all(label.startswith("⟨") and label.endswith("⟩") for label in labels)
    shown = bytes(int(b, 16) for label in labels for b in label[1:-1].split("·"))
    assert shown == "🍕".encode()
