"""Numbers typed by people: ASCII digits of a bounded length, and every other "number"
refused as text, never raised from int()."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.content import Content
from service.decks import parse_deck_text
from service.errors import quoted
from service.leagues.timespec import TimeSpecError, parse_duration, parse_when
from service.numbers import MAX_ID_DIGITS, plain_number

ODD = ["²", "١٢", "１２", "12²", "9" * 20, "9" * 5000, "-3", "+4", "1_000", " ", "", "١"]


def test_plain_numbers_are_ascii_digits_that_fit_an_id() -> None:
    assert plain_number("12") == 12
    assert plain_number(" 007 ") == 7
    assert plain_number("9" * MAX_ID_DIGITS) == int("9" * MAX_ID_DIGITS) < 2**63
    for odd in ODD:
        assert plain_number(odd) is None, odd


@pytest.mark.parametrize("odd", [*ODD, "²h", "١d", "99999999999d", "9" * 5000 + "m"])
def test_an_odd_duration_is_refused_with_a_short_quote(odd: str) -> None:
    with pytest.raises(TimeSpecError) as refused:
        parse_duration(odd)
    assert len(refused.value.message) < 200


@pytest.mark.parametrize("odd", ["²", "١٢٣٤٥٦٧٨٩٠", "9" * 5000, "x" * 6000, "in ²d"])
def test_an_odd_moment_is_refused_with_a_short_quote(odd: str) -> None:
    with pytest.raises(TimeSpecError) as refused:
        parse_when(odd, datetime(2031, 1, 1, tzinfo=UTC))
    assert len(refused.value.message) < 200


def test_a_deck_line_with_an_odd_count_is_a_name_the_list_does_not_know(content: Content) -> None:
    parsed = parse_deck_text("²x Fireball\n" + "9" * 5000 + " fireball\n1 fireball", content)
    assert [p.code for p in parsed.problems] == ["unknown_spell", "unknown_spell"]
    assert all(len(p.message) < 200 for p in parsed.problems)
    assert len(parsed.spells) == 1


def test_a_quote_is_cut_to_its_limit() -> None:
    assert quoted("abc") == "'abc'"
    assert quoted("x" * 6000) == repr("x" * 59 + "…")
