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


def test_spelled_joins_the_pieces_of_a_character_and_never_shows_a_replacement_character():
    from explainer.illustration.vocab import label_bytes, spelled

    smile = "🙂".encode()
    pieces = [(" a", " a"), ("\ufffd", "⟨F0·9F⟩"), ("\ufffd", "⟨99·82⟩"), ("!", "!")]
    assert spelled(pieces) == " a🙂!"  # two tokens that only make a character together
    assert label_bytes("⟨F0·9F⟩") + label_bytes("⟨99·82⟩") == smile
    assert spelled([("\ufffd", "⟨E6⟩"), ("x", "x")]) == "⟨E6⟩x"  # a byte that makes no character
    assert spelled([("\ufffd", "⟨86⟩"), ("\ufffd", "⟨86⟩")]) == "⟨86⟩⟨86⟩"
    assert spelled([("\ufffd", "\ufffd")]) == "⟨?⟩"  # no vocabulary to say which bytes
    assert "\ufffd" not in spelled([("\ufffd", "⟨F0⟩")])
