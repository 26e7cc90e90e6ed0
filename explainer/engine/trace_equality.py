"""Equality for trace records: every dataclass field, numpy arrays compared exactly.

A record's ``==`` answers "is this the same recording?" (a saved trace that opens again, a step the
sampler would record again). The dataclass-generated ``__eq__`` cannot answer it for records that
hold numpy arrays (``array == array`` is an array, not a truth value), and the hand-written ones it
replaced named their fields one by one, so a field added to a record could be left out of ``==``
without any test noticing. :func:`record_eq` reads the fields from :func:`dataclasses.fields`
instead, so a new field is compared from the moment it is declared.
"""

from __future__ import annotations

import dataclasses

import numpy as np


def same_value(a: object, b: object) -> bool:
    """Whether two field values are the same recording.

    Arrays must agree in dtype and shape as well as in every number (a float16 copy of a float32
    array is another recording, as the file format would store it differently); records are
    compared field by field, lists and tuples element by element; anything else with ``==``.
    As in Python's own containers, a value is the same as itself.
    """
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and fields_equal(a, b)
    if isinstance(a, (list, tuple)):
        return (
            isinstance(b, (list, tuple))
            and type(a) is type(b)
            and len(a) == len(b)
            and all(same_value(x, y) for x, y in zip(a, b, strict=True))
        )
    return bool(a == b)


def fields_equal(a: object, b: object) -> bool:
    """Whether two records of one dataclass agree in every field (see :func:`same_value`)."""
    if not dataclasses.is_dataclass(a) or isinstance(a, type):
        raise TypeError(f"expected a dataclass record, got {type(a).__name__}")
    return all(same_value(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))


def record_eq(self: object, other: object) -> bool:
    """``__eq__`` for a trace record: ``__eq__ = record_eq`` in the class body, with ``eq=False`` so
    the dataclass does not generate its own. A value of another class is never equal."""
    return other.__class__ is self.__class__ and fields_equal(self, other)
