"""Durations and moments as people type them: `7d`, `36h`, `1d12h`, `90m`, `2031-03-01 18:00`."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from service.errors import ServiceError

_UNITS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+)\s*([wdhms])")


class TimeSpecError(ServiceError):
    code = "bad_time"


def parse_duration(text: str) -> int:
    """Seconds in `text` (`7d`, `1d12h`, `90m`); a bare number is hours."""
    cleaned = text.strip().lower().replace(" ", "")
    if cleaned.isdigit():
        seconds = int(cleaned) * 3600
    else:
        parts = _PART.findall(cleaned)
        if not parts or "".join(n + u for n, u in parts) != cleaned:
            raise TimeSpecError(
                f"{text!r} is not a duration; write it like `7d`, `36h`, `1d12h` or `90m`."
            )
        seconds = sum(int(n) * _UNITS[u] for n, u in parts)
    if seconds <= 0:
        raise TimeSpecError("A duration must be longer than zero.")
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
    out_of_range = TimeSpecError(f"{text!r} is too far away to be a time.")
    for prefix in ("in ", "+"):
        if lowered.startswith(prefix):
            seconds = parse_duration(cleaned[len(prefix) :])
            try:
                return now + timedelta(seconds=seconds)
            except OverflowError:
                raise out_of_range from None
    if lowered == "now":
        return now
    if cleaned.isdigit():
        try:
            return datetime.fromtimestamp(int(cleaned), UTC)
        except (OverflowError, OSError, ValueError):
            raise out_of_range from None
    try:
        when = datetime.fromisoformat(cleaned)
    except ValueError:
        raise TimeSpecError(
            f"{text!r} is not a time; write `in 2d`, a date like `2031-03-01 18:00` (UTC), "
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
