"""Snowflake ids and timestamps shaped like Discord's."""

from __future__ import annotations

import datetime
import secrets
import time

DISCORD_EPOCH_MS = 1_420_070_400_000


class SnowflakeGenerator:
    """Issues strictly increasing snowflakes whose timestamp bits are the wall clock.

    Real ids carry their creation time, and discord.py derives ``created_at`` from them, so the
    sandbox keeps that property instead of counting from 1.
    """

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


def snowflake_time(snowflake: int) -> datetime.datetime:
    millis = (snowflake >> 22) + DISCORD_EPOCH_MS
    return datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.UTC)


def iso_timestamp(snowflake: int) -> str:
    return snowflake_time(snowflake).isoformat()


def interaction_token(interaction_id: int) -> str:
    """A token in the shape Discord uses: an opaque, url-safe string bound to one interaction."""
    return f"aW50ZXJhY3Rpb246{interaction_id}.{secrets.token_urlsafe(48)}"


def now_iso() -> str:
    return datetime.datetime.now(tz=datetime.UTC).isoformat()
