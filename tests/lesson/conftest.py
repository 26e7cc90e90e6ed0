"""Fixtures for the lesson tests: real traces from the real model (cached per session)."""

from __future__ import annotations

import pytest

from tests.lesson.real_traces import engine_for, trace_for


@pytest.fixture(scope="session")
def real_engine(built_model):
    return engine_for(built_model)


@pytest.fixture(scope="session")
def real_trace(built_model):
    """``real_trace(name)`` -> a Trace generated with the real model (see REQUESTS)."""

    def get(name: str = "paris"):
        return trace_for(built_model, name)

    return get
