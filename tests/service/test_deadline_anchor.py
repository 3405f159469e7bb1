"""Deadlines anchored to a time of day and allowed weekdays: the turn length from now, then the
next clock time, then the next allowed weekday; never earlier than the turn length."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from service.clock import ManualClock, from_ms, to_ms
from service.deadline_anchor import (
    ALL_DAYS,
    DeadlineAnchor,
    anchored_deadline,
    format_days,
    parse_anchor,
    parse_days,
    zone_names,
)
from service.errors import WrongStateError
from service.matches import MatchService
from tests.service.matchkit import discard_orders, player_on, started_match

DAY = 24 * 3600
# 2030-01-04 is a Friday.
FRIDAY_18 = datetime(2030, 1, 4, 18, 0, tzinfo=UTC)


def deadline(now: datetime, turn_seconds: int, anchor: DeadlineAnchor) -> datetime:
    return from_ms(anchored_deadline(to_ms(now), turn_seconds, anchor))


def test_friday_evening_with_weekdays_at_eight_waits_for_monday_eight() -> None:
    anchor = parse_anchor("20:00", "mon-fri")
    assert deadline(FRIDAY_18, DAY, anchor) == datetime(2030, 1, 7, 20, 0, tzinfo=UTC)


def test_the_clock_time_later_the_same_day_is_taken() -> None:
    anchor = parse_anchor("20:00", None)
    assert deadline(FRIDAY_18, 3600, anchor) == datetime(2030, 1, 4, 20, 0, tzinfo=UTC)


def test_a_clock_time_already_passed_moves_to_the_next_day() -> None:
    anchor = parse_anchor("12:00", None)
    assert deadline(FRIDAY_18, 3600, anchor) == datetime(2030, 1, 5, 12, 0, tzinfo=UTC)


def test_the_exact_clock_time_is_kept() -> None:
    anchor = parse_anchor("19:00", "fri")
    assert deadline(FRIDAY_18, 3600, anchor) == datetime(2030, 1, 4, 19, 0, tzinfo=UTC)


def test_days_without_a_clock_keep_the_time_of_day() -> None:
    anchor = parse_anchor(None, "sat,sun")
    # Friday 19:00 is not allowed: Saturday 19:00.
    assert deadline(FRIDAY_18, 3600, anchor) == datetime(2030, 1, 5, 19, 0, tzinfo=UTC)
    # Already on an allowed day: the plain turn length.
    assert deadline(FRIDAY_18, DAY, anchor) == FRIDAY_18 + timedelta(days=1)


def test_a_single_allowed_day_a_week_away() -> None:
    anchor = parse_anchor("18:00", "fri")
    # Friday 18:00 plus one second has passed this Friday's 18:00: next Friday.
    assert deadline(FRIDAY_18, 1, anchor) == datetime(2030, 1, 11, 18, 0, tzinfo=UTC)


def test_the_clock_is_read_in_the_named_timezone_across_summer_time() -> None:
    anchor = parse_anchor("20:00", None, "Europe/Paris")
    # Winter: Paris is UTC+1; summer: UTC+2.
    assert deadline(FRIDAY_18, 3600, anchor) == datetime(2030, 1, 4, 19, 0, tzinfo=UTC)
    june = datetime(2030, 6, 7, 12, 0, tzinfo=UTC)
    assert deadline(june, 3600, anchor) == datetime(2030, 6, 7, 18, 0, tzinfo=UTC)


def test_weekdays_are_those_of_the_timezone() -> None:
    # Sunday 23:30 UTC is already Monday 08:30 in Tokyo.
    sunday = datetime(2030, 1, 6, 23, 30, tzinfo=UTC)
    anchor = parse_anchor("09:00", "mon", "Asia/Tokyo")
    assert deadline(sunday, 60, anchor) == datetime(2030, 1, 7, 0, 0, tzinfo=UTC)


def test_without_an_anchor_the_deadline_is_the_turn_length() -> None:
    assert deadline(FRIDAY_18, 90, DeadlineAnchor()) == FRIDAY_18 + timedelta(seconds=90)


@pytest.mark.parametrize(
    ("text", "days", "reads"),
    [
        ("mon-fri", {0, 1, 2, 3, 4}, "mon-fri"),
        ("sat,sun", {5, 6}, "sat,sun"),
        ("Fri-Mon", {4, 5, 6, 0}, "fri-mon"),
        ("monday, wednesday", {0, 2}, "mon,wed"),
        ("mon-sun", set(range(7)), "every day"),
        ("tue,mon,wed", {0, 1, 2}, "mon-wed"),
    ],
)
def test_weekday_lists_and_ranges(text: str, days: set[int], reads: str) -> None:
    assert parse_days(text) == frozenset(days)
    assert format_days(parse_days(text)) == reads


@pytest.mark.parametrize(
    ("clock", "days", "zone", "says"),
    [
        ("8pm", None, None, "not a time like `20:00`"),
        ("24:00", None, None, "not a time like `20:00`"),
        ("20:60", None, None, "not a time like `20:00`"),
        (None, "weekdays", None, "Unknown weekday 'weekdays'"),
        (None, "mon-xyz", None, "Unknown weekday 'xyz'"),
        (None, "mondays", None, "Unknown weekday 'mondays'"),
        (None, ",", None, "at least one weekday"),
        ("20:00", None, "Mars/Olympus", "Unknown timezone 'Mars/Olympus'"),
        (None, None, "Europe/Paris", "needs a deadline `clock` or `days`"),
    ],
)
def test_refusals_say_what_to_type(
    clock: str | None, days: str | None, zone: str | None, says: str
) -> None:
    with pytest.raises(WrongStateError, match=says.replace("(", r"\(")):
        parse_anchor(clock, days, zone)


def test_timezone_suggestions_match_any_part_of_the_name() -> None:
    assert "Europe/Paris" in zone_names("paris")
    assert zone_names("")[0] == "UTC" and len(zone_names("")) == 25
    assert zone_names("new york") == ["America/New_York"]


def test_describe_reads_for_players() -> None:
    assert parse_anchor("20:00", "mon-fri").describe() == "at 20:00, on mon-fri (UTC)"
    assert parse_anchor("07:05", None, "Europe/Paris").describe() == "at 07:05 (Europe/Paris)"
    assert parse_anchor(None, "sat,sun", "utc").describe() == "on sat,sun (UTC)"
    assert DeadlineAnchor().describe() == "" and DeadlineAnchor().days == ALL_DAYS


async def test_every_turn_of_an_anchored_match_ends_at_the_anchor(
    service: MatchService, clock: ManualClock
) -> None:
    clock.set(FRIDAY_18)
    match = await started_match(service, turn_seconds=DAY, anchor=parse_anchor("20:00", "mon-fri"))
    assert match.deadline_clock == 20 * 60 and match.deadline_days == "mon-fri"
    assert from_ms(match.deadline_at or 0) == datetime(2030, 1, 7, 20, 0, tzinfo=UTC)
    # Turn two opens on Monday 09:00 when both confirm: due Tuesday 20:00.
    clock.set(datetime(2030, 1, 7, 9, 0, tzinfo=UTC))
    full = await service.get_match(match.id, with_state=True)
    red, blue = player_on(match, "red"), player_on(match, "blue")
    await service.submit_orders(match.id, red, discard_orders(full, "red"))
    await service.confirm(match.id, red)
    await service.confirm(match.id, blue)
    after = await service.get_match(match.id)
    assert after.turn == 2
    assert from_ms(after.deadline_at or 0) == datetime(2030, 1, 8, 20, 0, tzinfo=UTC)
