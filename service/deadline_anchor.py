"""Deadlines anchored to a time of day and to allowed weekdays (the e-mail Judge's `clock` and
`days`).

The rule: a turn's deadline is first the turn length from now. With a clock time, it then moves
forward to the first moment at or after that which shows the clock time in the anchor's
timezone (UTC unless one is named). With allowed days, it then moves forward a day at a time
(keeping the clock time, or the time of day it had when no clock is set) until it falls on an
allowed weekday. A deadline never moves earlier than the turn length from now.

Examples, with a 24-hour turn: ordered on Friday 18:00 with clock 20:00 and days mon-fri, the
deadline is Monday 20:00 (Saturday 18:00 → Saturday 20:00 → not a weekday → Monday 20:00).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, tzinfo
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from service.clock import from_ms, to_ms
from service.errors import WrongStateError
from storage.records import MatchRecord

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
ALL_DAYS = frozenset(range(7))
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")


@dataclass(frozen=True, slots=True)
class DeadlineAnchor:
    """When deadlines may fall: `clock` minutes after midnight (None: any time of day), on the
    weekdays in `days` (Monday is 0), read in the timezone `zone` (an IANA name or "UTC")."""

    clock: int | None = None
    days: frozenset[int] = ALL_DAYS
    zone: str = "UTC"

    @property
    def anchored(self) -> bool:
        return self.clock is not None or self.days != ALL_DAYS

    def tz(self) -> tzinfo:
        return UTC if self.zone == "UTC" else ZoneInfo(self.zone)

    def clock_text(self) -> str | None:
        return None if self.clock is None else f"{self.clock // 60:02d}:{self.clock % 60:02d}"

    def days_text(self) -> str | None:
        return None if self.days == ALL_DAYS else format_days(self.days)

    def describe(self) -> str:
        """For players: "at 20:00, on mon-fri (UTC)" (empty when nothing is anchored)."""
        parts = []
        if self.clock is not None:
            parts.append(f"at {self.clock_text()}")
        if self.days != ALL_DAYS:
            parts.append(f"on {format_days(self.days)}")
        return f"{', '.join(parts)} ({self.zone})" if parts else ""


def parse_clock(text: str) -> int:
    """Minutes after midnight of a 24-hour "HH:MM"."""
    found = _CLOCK.fullmatch(text.strip())
    if found is None or int(found[1]) > 23 or int(found[2]) > 59:
        raise WrongStateError(f"Deadline clock {text!r} is not a time like `20:00` (24-hour).")
    return int(found[1]) * 60 + int(found[2])


_FULL_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _day(name: str) -> int:
    """A weekday's index from its three-letter or full English name."""
    key = name.strip().lower()
    if key in _FULL_NAMES:
        return _FULL_NAMES.index(key)
    if key not in WEEKDAYS:
        raise WrongStateError(
            f"Unknown weekday {name.strip()!r}; use mon, tue, wed, thu, fri, sat, sun."
        )
    return WEEKDAYS.index(key)


def parse_days(text: str) -> frozenset[int]:
    """Weekdays from a list of days and ranges: "mon-fri", "sat,sun", "fri-mon" (wrapping)."""
    days: set[int] = set()
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        if "-" in part:
            first, _, last = part.partition("-")
            start, end = _day(first), _day(last)
            days.update((start + k) % 7 for k in range((end - start) % 7 + 1))
        else:
            days.add(_day(part))
    if not days:
        raise WrongStateError("Name at least one weekday, like `mon-fri` or `sat,sun`.")
    return frozenset(days)


def format_days(days: frozenset[int]) -> str:
    """The shortest reading: ranges of three or more days joined ("mon-fri", "sat,sun")."""
    if days == ALL_DAYS:
        return "every day"
    # Start after a missing day so a range across Sunday reads as one ("fri-mon").
    start = next(d for d in range(7) if (d - 1) % 7 not in days and d in days)
    runs: list[list[int]] = []
    for k in range(7):
        day = (start + k) % 7
        if day not in days:
            continue
        if runs and (runs[-1][-1] + 1) % 7 == day:
            runs[-1].append(day)
        else:
            runs.append([day])
    pieces = []
    for run in runs:
        if len(run) >= 3:
            pieces.append(f"{WEEKDAYS[run[0]]}-{WEEKDAYS[run[-1]]}")
        else:
            pieces.extend(WEEKDAYS[d] for d in run)
    return ",".join(pieces)


def zone_names(prefix: str, limit: int = 25) -> list[str]:
    """Timezone names containing `prefix` (case-insensitive), for a command's suggestions."""
    key = prefix.strip().lower().replace(" ", "_")
    names = sorted(n for n in available_timezones() if key in n.lower())
    return (["UTC"] if key in "utc" else []) + [n for n in names if n != "UTC"][: limit - 1]


def parse_zone(text: str) -> str:
    name = text.strip()
    if name.upper() in {"UTC", "Z", "GMT"}:
        return "UTC"
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise WrongStateError(
            f"Unknown timezone {name!r}; use a name like `Europe/Paris` or `UTC`."
        ) from None
    return name


def parse_anchor(clock: str | None, days: str | None, zone: str | None = None) -> DeadlineAnchor:
    """The anchor from `/match create`'s options, each refused with what to type instead."""
    if zone is not None and clock is None and days is None:
        raise WrongStateError("A timezone needs a deadline `clock` or `days` to apply to.")
    return DeadlineAnchor(
        clock=None if clock is None else parse_clock(clock),
        days=ALL_DAYS if days is None else parse_days(days),
        zone="UTC" if zone is None else parse_zone(zone),
    )


def anchored_deadline(now_ms: int, turn_seconds: int, anchor: DeadlineAnchor) -> int:
    """The deadline of a turn opened at `now_ms`, by the rule in this module's docstring."""
    earliest = from_ms(now_ms + turn_seconds * 1000)
    if not anchor.anchored:
        return to_ms(earliest)
    tz = anchor.tz()
    local = earliest.astimezone(tz)
    day = local.date()
    if anchor.clock is None:
        at = local.timetz().replace(tzinfo=None)
    else:
        at = time(anchor.clock // 60, anchor.clock % 60)
    # Eight days cover every weekday once, even when today's clock time has already passed.
    for k in range(8):
        moment = datetime.combine(day + timedelta(days=k), at, tzinfo=tz)
        if moment >= earliest and moment.weekday() in anchor.days:
            return to_ms(moment)
    raise AssertionError("an allowed weekday falls within eight days")


def changed_anchor(
    current: DeadlineAnchor, clock: str | None, days: str | None, zone: str | None
) -> DeadlineAnchor:
    """``current`` with the options a settings command was given: `clock:off` and `days:any`
    take the anchor off again; an option not given keeps its value."""
    if clock is not None and clock.strip().lower() == "off":
        new_clock = None
    else:
        new_clock = current.clock if clock is None else parse_clock(clock)
    if days is not None and days.strip().lower() in ("any", "every day", "all"):
        new_days = ALL_DAYS
    else:
        new_days = current.days if days is None else parse_days(days)
    new_zone = current.zone if zone is None else parse_zone(zone)
    anchor = DeadlineAnchor(clock=new_clock, days=new_days, zone=new_zone)
    if zone is not None and not anchor.anchored:
        raise WrongStateError("A timezone needs a deadline `clock` or `days` to apply to.")
    return anchor


class Anchored(Protocol):
    """A record that keeps an anchor: a match, or a league for the matches it schedules."""

    @property
    def deadline_clock(self) -> int | None: ...
    @property
    def deadline_days(self) -> str | None: ...
    @property
    def deadline_zone(self) -> str | None: ...


def anchor_of(record: Anchored) -> DeadlineAnchor:
    """The anchor a match was created with, or a league gives its matches (usually none)."""
    return DeadlineAnchor(
        clock=record.deadline_clock,
        days=ALL_DAYS if record.deadline_days is None else parse_days(record.deadline_days),
        zone=record.deadline_zone or "UTC",
    )


def anchor_columns(anchor: DeadlineAnchor) -> dict[str, int | str | None]:
    """The anchor as stored (the deadline_* columns of matches and leagues)."""
    return {
        "deadline_clock": anchor.clock,
        "deadline_days": anchor.days_text(),
        "deadline_zone": anchor.zone if anchor.anchored else None,
    }


def turn_deadline(match: MatchRecord, now_ms: int) -> int:
    """The deadline of the match's next turn, opened at `now_ms`."""
    return anchored_deadline(now_ms, match.turn_seconds, anchor_of(match))
