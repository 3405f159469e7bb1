"""Durations and moments as people type them: `7d`, `36h`, `1d12h`, `90m`, `2031-03-01 18:00`."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from service.errors import ServiceError, quoted
from service.numbers import plain_number

_UNITS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}
# ASCII digits only (service.numbers), and at most a century: it fits every column and clock.
_NUMBER_DIGITS = 12
_MAX_SECONDS = 100 * 366 * 86400
_PART = re.compile(r"([0-9]+)\s*([wdhms])")


class TimeSpecError(ServiceError):
    code = "bad_time"


class _TooLongError(TimeSpecError):
    """A well-formed duration of more than a century."""


def parse_duration(text: str) -> int:
    """Seconds in `text` (`7d`, `1d12h`, `90m`); a bare number is hours."""
    cleaned = text.strip().lower().replace(" ", "")
    hours = plain_number(cleaned, max_digits=_NUMBER_DIGITS)
    parts = _PART.findall(cleaned)
    if hours is not None:
        seconds = hours * 3600
    elif parts and "".join(n + u for n, u in parts) == cleaned:
        if any(len(n) > _NUMBER_DIGITS for n, _u in parts):
            raise _TooLongError(f"{quoted(text)} is too long to be a duration.")
        seconds = sum(int(n) * _UNITS[u] for n, u in parts)
    elif cleaned.isascii() and cleaned.isdigit():
        raise _TooLongError(f"{quoted(text)} is too long to be a duration.")
    else:
        raise TimeSpecError(
            f"{quoted(text)} is not a duration; write it like `7d`, `36h`, `1d12h` or `90m`."
        )
    if seconds <= 0:
        raise TimeSpecError("A duration must be longer than zero.")
    if seconds > _MAX_SECONDS:
        raise _TooLongError(f"{quoted(text)} is too long to be a duration (at most a century).")
    return seconds


def parse_duration_or_default(text: str) -> int:
    """Like `parse_duration`, but `default` gives 0: the setting's default, worked out from
    the other settings."""
    if text.strip().lower() == "default":
        return 0
    return parse_duration(text)


def parse_when(text: str, now: datetime) -> datetime:
    """A moment: `in 2d` / `+2d` (from now), a Unix timestamp, or an ISO date-time (UTC unless
    it names its offset)."""
    cleaned = text.strip()
    lowered = cleaned.lower()
    out_of_range = TimeSpecError(f"{quoted(text)} is too far away to be a time.")
    for prefix in ("in ", "+"):
        if lowered.startswith(prefix):
            try:
                return now + timedelta(seconds=parse_duration(cleaned[len(prefix) :]))
            except (_TooLongError, OverflowError):
                raise out_of_range from None
    if lowered == "now":
        return now
    if cleaned.isascii() and cleaned.isdigit():
        try:
            return datetime.fromtimestamp(int(cleaned), UTC)
        except (OverflowError, OSError, ValueError):
            raise out_of_range from None
    try:
        when = datetime.fromisoformat(cleaned)
    except ValueError:
        raise TimeSpecError(
            f"{quoted(text)} is not a time; write `in 2d`, a date like `2031-03-01 18:00` (UTC), "
            "or a Unix timestamp."
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def describe_duration(seconds: int) -> str:
    """`3d 4h`, `90m` style text for a number of seconds."""
    parts: list[str] = []
    rest = seconds
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts) or "0s"
