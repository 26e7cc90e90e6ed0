"""A trace record's ``==`` compares every field: one declared later cannot be left out.

The fields are read from :func:`dataclasses.fields` and the record classes from the trace module
itself, never from a list written here, so a new field or a new record is covered (or, for a
record with no sample below, fails the coverage check) the day it is added.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np
import pytest

from explainer.engine import trace as trace_module
from explainer.engine.trace_equality import same_value
from tests.engine.test_trace import make_trace


def record_classes() -> set[type]:
    """Every dataclass the trace module declares (the records a trace is made of)."""
    return {
        c
        for c in vars(trace_module).values()
        if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == trace_module.__name__
    }


def samples() -> dict[type, Any]:
    """One filled-in record of each class, taken from a recorded trace."""
    t = make_trace()
    step = t.steps[1]
    view = step.layers[0]
    assert view.lens is not None  # layer 0 has a lens guess, so the field holds a record, not None
    return {
        type(t): t,
        type(t.model): t.model,
        type(step): step,
        type(step.tokens[0]): step.tokens[0],
        type(step.layers): step.layers,
        type(view): view,
        type(step.sampling): step.sampling,
        type(step.sampling.raw): step.sampling.raw,
        trace_module.Branch: trace_module.Branch(1, step.sampling.chosen),  # ("Your turn": the learner's pick)
    }


def changed(value: Any) -> Any:
    """A value of the same kind that differs from ``value`` (in one place, for containers)."""
    if isinstance(value, np.ndarray):
        out = value.copy()
        out.flat[0] += 1
        return out
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        first = dataclasses.fields(value)[0].name
        return dataclasses.replace(value, **{first: changed(getattr(value, first))})
    if isinstance(value, list | tuple):
        return type(value)([changed(value[0]), *value[1:]]) if value else type(value)([object()])
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "?"
    assert value is None, f"no way to change a {type(value).__name__} here yet"
    return object()


def with_field(record: Any, name: str, value: Any) -> Any:
    other = copy.deepcopy(record)
    object.__setattr__(other, name, value)  # frozen records too: only this copy changes
    return other


CASES = [(cls, f.name) for cls, record in samples().items() for f in dataclasses.fields(record)]


def test_every_record_class_has_a_sample():
    assert set(samples()) == record_classes()


@pytest.mark.parametrize(("cls", "name"), CASES, ids=[f"{c.__name__}.{n}" for c, n in CASES])
def test_changing_any_one_field_makes_records_unequal(cls, name):
    record = samples()[cls]
    assert record == copy.deepcopy(record)  # equal values in other arrays: the same recording
    other = with_field(record, name, changed(getattr(record, name)))
    assert record != other and other != record


ARRAY_CASES = [
    (cls, f.name)
    for cls, record in samples().items()
    for f in dataclasses.fields(record)
    if isinstance(getattr(record, f.name), np.ndarray)
]


@pytest.mark.parametrize(("cls", "name"), ARRAY_CASES, ids=[f"{c.__name__}.{n}" for c, n in ARRAY_CASES])
def test_an_array_of_another_dtype_or_shape_is_another_recording(cls, name):
    record = samples()[cls]
    a = getattr(record, name)
    wider = a.astype(np.float64 if a.dtype.kind == "f" else np.int64)
    assert np.array_equal(wider, a)  # the same numbers...
    assert record != with_field(record, name, wider)  # ...but not as the file would store them
    assert record != with_field(record, name, a.reshape(1, *a.shape))


def test_same_value_rules():
    a = np.arange(6, dtype=np.int32)
    assert same_value(a, a.copy())
    assert not same_value(a, a.astype(np.int64)) and not same_value(a, a.reshape(2, 3))
    assert not same_value(a, None) and not same_value(None, a) and not same_value(a, a.tolist())
    assert same_value([a, (1, "x")], [a.copy(), (1, "x")])
    assert not same_value([a], (a,)) and not same_value([a], [a, a])
