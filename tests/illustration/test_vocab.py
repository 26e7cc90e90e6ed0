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


def test_names_of_a_growing_run_are_those_of_the_whole_run_and_a_new_run_starts_afresh(real_trace):
    """As the window sees a generation: a longer snapshot of the request at every step (only
    its new steps are read), then another request, whose labels owe nothing to the first."""
    import dataclasses

    from explainer.illustration.vocab import TokenNames

    trace = real_trace("paris")
    names = TokenNames()
    for n in range(1, len(trace.steps) + 1):  # (the worker's snapshots: the same prompt, steps appended)
        names.use(dataclasses.replace(trace, steps=list(trace.steps[:n])))
    whole = TokenNames().use(trace)
    ids = {t.id for t in trace.prompt_tokens} | {s.sampling.chosen.id for s in trace.steps}
    assert [names(i) for i in sorted(ids)] == [whole(i) for i in sorted(ids)]

    other = real_trace("sampled")
    only_first = sorted(ids - {t.id for t in other.prompt_tokens} - {t.id for s in other.steps for t in s.tokens}
                        - {s.sampling.chosen.id for s in other.steps})  # fmt: skip
    names.use(other)
    assert only_first and all(names(i) == f"#{i}" for i in only_first)  # (no vocabulary: its ids' fallback)
