"""The GGUF is parsed by LeanReader (explainer.model.gguf_open): what it reads must be what
gguf's own GGUFReader reads, field by field and tensor by tensor, and a damaged file must fail
the same way in both."""

from __future__ import annotations

import numpy as np
import pytest
from gguf import GGUFReader

from explainer.model.gguf_open import LeanReader

from .tiny_gguf import TINY_GEMMA3, write_tiny_gguf, write_tiny_model_gguf


def same_reading(path) -> None:
    lean, ref = LeanReader(str(path)), GGUFReader(str(path))
    assert list(lean.fields) == list(ref.fields)
    for key, field in ref.fields.items():
        got = lean.fields[key]
        assert (got.offset, got.name, got.data, got.types) == (field.offset, field.name, field.data, field.types)
        assert got.contents() == field.contents(), key
        assert len(got.parts) == len(field.parts)
        for part, ref_part in zip(got.parts, field.parts):
            assert part.dtype == ref_part.dtype and part.tobytes() == ref_part.tobytes()
    assert [t.name for t in lean.tensors] == [t.name for t in ref.tensors]
    for a, b in zip(lean.tensors, ref.tensors):
        assert (a.tensor_type, a.n_elements, a.n_bytes, a.data_offset) == (
            b.tensor_type,
            b.n_elements,
            b.n_bytes,
            b.data_offset,
        )
        assert list(a.shape) == list(b.shape)
        assert a.data.dtype == b.data.dtype and a.data.shape == b.data.shape
        assert np.array_equal(np.asarray(a.data), np.asarray(b.data))
        assert not a.data.flags.owndata  # still the file's mapped bytes, not a copy
    assert (lean.alignment, lean.data_offset, lean.byte_order) == (ref.alignment, ref.data_offset, ref.byte_order)


def test_the_lean_reader_reads_what_gguf_reads(tmp_path):
    write_tiny_model_gguf(tmp_path / "llama.gguf")
    write_tiny_gguf(tmp_path / "gemma.gguf", TINY_GEMMA3)
    same_reading(tmp_path / "llama.gguf")
    same_reading(tmp_path / "gemma.gguf")


@pytest.mark.parametrize("keep", [0.99, 0.5, 0.1, 0.01, 0.001])
def test_a_damaged_file_fails_as_it_does_in_gguf(tmp_path, keep):
    write_tiny_model_gguf(tmp_path / "m.gguf")
    data = (tmp_path / "m.gguf").read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data[: int(len(data) * keep)])

    def outcome(cls):
        try:
            reader = cls(str(cut))
        except Exception as exc:  # noqa: BLE001 - the failure itself is what is compared
            return type(exc).__name__, str(exc)
        return [(t.name, t.data.nbytes) for t in reader.tensors]

    assert outcome(LeanReader) == outcome(GGUFReader)


def test_the_real_models_read_the_same(real_gguf):
    same_reading(real_gguf)


def test_the_override_still_hooks_gguf_and_the_pin_says_which_gguf(tmp_path):
    """LeanReader leans on one detail of GGUFReader.__init__: it assigns the file's memmap to
    `self.data` once and parses through that attribute. A gguf release that parses another way
    would leave the override silently unused (slow again) or broken; this fails first, naming
    what to re-check, and so does a gguf outside the range pyproject.toml pins."""
    from importlib.metadata import version

    installed = version("gguf")
    major, minor = (int(part) for part in installed.split(".")[:2])
    assert (major, minor) == (0, 19), (
        f"gguf {installed} is installed, but explainer/model/gguf_open.py was checked against 0.19 only: "
        "re-read GGUFReader.__init__, then widen the pin in pyproject.toml"
    )
    write_tiny_model_gguf(tmp_path / "tiny.gguf")
    reader = LeanReader(str(tmp_path / "tiny.gguf"))
    assert isinstance(reader._mapped, np.memmap), "GGUFReader.__init__ no longer assigns its memmap to self.data"
    assert type(reader.data) is np.ndarray, "the parse no longer goes through LeanReader's plain view"
    assert reader._plain is reader.data
