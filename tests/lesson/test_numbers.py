"""The number parser takes the forms people type, and says how far off an answer is."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from explainer.lesson.numbers import as_typed, distance, parse_number

THREE_THOUSAND = [
    "3000",
    "3,000",
    "about 3000",
    "~3000",
    "~3k",
    "3k",
    "3K",
    "3 000",
    "3.0e3",
    "≈ 3000",
    "≈3000",
    " 3000 ",
    "3\u202f000",
    "3\u00a0000",
    "around 3,000",
    "roughly 3k",
    "approx. 3000",
    "3000.0",
    "3e3",
    "3E+3",
    "about ~3000",
    "3.k",
    "+3000",
    "30e2",
]


@pytest.mark.parametrize("text", THREE_THOUSAND)
def test_the_forms_people_type_read_as_3000(text):
    assert parse_number(text) == pytest.approx(3000)


@pytest.mark.parametrize(
    "text",
    ["", "about", "~", "three thousand", "3,00", "30,00,0", "3kk", "3 k x", "1e999", "nan", "inf", "3..0", ",3", "k"],
)
def test_what_does_not_read_as_a_number(text):
    assert parse_number(text) is None


def test_other_values():
    assert parse_number("6,144.5") == 6144.5 and parse_number("-3") == -3 and parse_number("1.5m") == 1_500_000
    assert parse_number(".5") == 0.5 and parse_number("0.75") == 0.75


@given(st.integers(min_value=0, max_value=10**12))
def test_integers_in_every_layout(n):
    assert parse_number(str(n)) == n
    assert parse_number(f"{n:,}") == n
    assert parse_number(f"{n:,}".replace(",", " ")) == n
    assert parse_number(f"about {n}") == n and parse_number(f"~{n:,}") == n and parse_number(f"≈ {n}") == n
    assert parse_number(f"{n:e}") == pytest.approx(n, rel=1e-6)


@given(st.integers(min_value=0, max_value=10**6))
def test_k_means_thousands(n):
    assert parse_number(f"{n}k") == n * 1000 and parse_number(f"~{n}K") == n * 1000


@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False))
def test_floats_round_trip(x):
    assert parse_number(repr(x)) == pytest.approx(x)


@given(st.text(max_size=20))
def test_any_text_gives_a_finite_number_or_none(text):
    v = parse_number(text)
    assert v is None or math.isfinite(v)


def test_distance_says_how_far_and_which_way():
    d = distance(3400, 3000, 0.1)
    assert not d.within and d.high and d.off == 400 and d.off_rel == pytest.approx(400 / 3000)
    d = distance(2700, 3000, 0.1)  # the edge counts
    assert d.within
    d = distance(2000, 3000, 0.1)
    assert not d.within and not d.high and d.off == 1000


@given(
    st.floats(min_value=1, max_value=1e9),
    st.floats(min_value=0.01, max_value=0.5),
    st.floats(min_value=-2, max_value=2),
)
def test_within_means_within_the_tolerance(target, tol, k):
    assume(abs(abs(k) - 1) > 1e-6)  # not on the edge itself, where rounding decides
    d = distance(target * (1 + k * tol), target, tol)
    assert d.within == (abs(k) < 1) and (d.within or d.high == (k > 0))


@pytest.mark.parametrize(
    ("typed", "quoted"),
    [("2456", "2,456"), ("2,790", "2,790"), ("3k", "3,000"), ("0.0203", "0.0203"), ("2.50", "2.5"), ("-3", "-3")],
)
def test_a_number_is_quoted_back_with_the_digits_the_learner_gave(typed, quoted):
    value = parse_number(typed)
    assert value is not None and as_typed(value) == quoted
