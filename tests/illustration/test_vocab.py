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


def test_a_recorded_piece_is_labelled_by_its_bytes_and_the_character_it_helps_make():
    from explainer.engine.trace import TokenRef
    from explainer.illustration.vocab import TokenNames

    names = TokenNames()  # no vocabulary: a recorded token carries its own bytes
    half = TokenRef.of(10813, b"\xf0\x9f")
    assert names.display(half) == "⟨F0·9F⟩"
    assert names.display(half, "😀") == "⟨F0·9F⟩ 😀"
    rest = TokenRef.of(218, b"\x98\x80")
    assert names.label(rest, before=b"\xf0\x9f") == "⟨98·80⟩ 😀"  # it finishes the character begun before it
    assert names.label(rest) == "⟨98·80⟩"  # alone it finishes nothing
    assert names.display(TokenRef.of(7042, b" Paris")) == " Paris"
    zwj = TokenRef.of(321, b"\xe2\x80")
    assert names.display(zwj, "\u200d") == "⟨E2·80⟩ U+200D"  # an invisible character is named, not left blank


def test_candidates_that_finish_a_character_begun_before_are_labelled_with_it():
    from explainer.illustration.vocab import TokenNames, vocabulary_from_labels

    labels = ["a", "⟨98·80⟩", "⟨98⟩", " Paris"]
    names = TokenNames(vocabulary_from_labels(labels))
    assert names.candidates([0, 1, 2, 3]) == labels  # nothing unfinished before: the vocabulary's labels
    assert names.candidates([0, 1, 2, 3], before=b"\xf0\x9f") == ["a", "⟨98·80⟩ 😀", "⟨98⟩", " Paris"]


def test_a_piece_from_a_file_written_before_the_bytes_were_recorded_is_named_by_the_vocabulary():
    from explainer.engine.trace import TokenRef
    from explainer.illustration.vocab import TokenNames, vocabulary_from_labels

    old = TokenRef(1, "\ufffd")  # what such a file holds: U+FFFD, no bytes
    assert TokenNames(vocabulary_from_labels(["a", "⟨E5·8C⟩"])).display(old) == "⟨E5·8C⟩"
    assert TokenNames().display(old) == "\ufffd"  # no vocabulary: nothing better to say


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
