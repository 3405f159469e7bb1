"""Typed settings read from the environment and an optional `.env` file.

Every key is documented in `.env.example`. A missing or malformed value raises `SettingsError`
whose message is one line naming the key, so the entry point can print it instead of a traceback.
"""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dotenv import dotenv_values

PROJECT_ROOT = Path(__file__).resolve().parent

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DATABASE_SCHEMES = ("sqlite", "postgresql", "postgres")


class SettingsError(ValueError):
    """A setting is missing or malformed; the message names the key."""


@dataclass(frozen=True, slots=True)
class Settings:
    discord_token: str | None
    database_url: str
    log_level: str
    test_guild_id: int | None
    default_turn_hours: float
    moderator_role: str | None
    sandbox_turns: int
    # None: as many shards as Discord recommends (GET /gateway/bot), all in this process.
    shard_count: int | None = None
    # The shards this process runs; None: all of them.
    shard_ids: tuple[int, ...] | None = None
    # The name this process's claims carry in the database; see default_node_id.
    node_id: str = "main"
    # An open seat nobody takes within this many hours expires; at most this many open
    # challenges per player.
    challenge_hours: float = 72.0
    max_open_challenges: int = 3
    # A standby serves no shard until another process's shard lease runs out.
    standby: bool = False
    # How long a silent process keeps its shards before another takes them over.
    shard_lease_seconds: float = 30.0

    @property
    def sandbox_mode(self) -> bool:
        """With no token the bot runs against the local Discord sandbox."""
        return self.discord_token is None


def _blank_to_none(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return value or None


def _parse_int(key: str, raw: str | None, *, minimum: int) -> int | None:
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{key} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise SettingsError(f"{key} must be at least {minimum}, got {value}")
    return value


def _parse_hours(key: str, raw: str | None, default: float) -> float:
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{key} must be a number of hours, got {raw!r}") from None
    # A turn shorter than a minute cannot be played by humans; longer than two weeks stalls leagues.
    if not 1 / 60 <= value <= 24 * 14:
        raise SettingsError(f"{key} must be between 0.0167 (one minute) and 336 hours, got {raw}")
    return value


def _parse_database_url(key: str, raw: str | None) -> str:
    if raw is None:
        return f"sqlite:///{PROJECT_ROOT / 'var' / 'sanctum.db'}"
    scheme, sep, rest = raw.partition("://")
    if not sep or scheme not in DATABASE_SCHEMES or not rest:
        raise SettingsError(
            f"{key} must look like sqlite:///path/to/file.db or "
            f"postgresql://user:password@host/dbname, got {raw!r}"
        )
    return raw


def _parse_token(key: str, raw: str | None) -> str | None:
    if raw is None:
        return None
    # Bot tokens are three dot-separated base64 segments; catching a pasted client secret or
    # application id here saves a confusing login failure later.
    if raw.count(".") != 2 or any(c.isspace() for c in raw):
        raise SettingsError(
            f"{key} does not look like a bot token (three parts separated by dots); "
            "copy it from the Bot page of your Discord application"
        )
    return raw


def _parse_shard_ids(key: str, raw: str | None, count: int | None) -> tuple[int, ...] | None:
    """``0-3`` (a range, both ends included) or ``0,2,5`` (a list)."""
    if raw is None:
        return None
    if count is None:
        raise SettingsError(f"{key} needs SANCTUM_SHARD_COUNT (how many shards there are in all)")
    ids: set[int] = set()
    try:
        for part in raw.split(","):
            first, sep, last = part.strip().partition("-")
            ids.update(range(int(first), int(last) + 1) if sep else [int(first)])
    except ValueError:
        raise SettingsError(
            f"{key} must be a range such as 0-3 or a list such as 0,2,5, got {raw!r}"
        ) from None
    if not ids or min(ids) < 0 or max(ids) >= count:
        raise SettingsError(
            f"{key} must name shards from 0 to {count - 1} (SANCTUM_SHARD_COUNT={count}), "
            f"got {raw!r}"
        )
    return tuple(sorted(ids))


def _parse_flag(key: str, raw: str | None) -> bool:
    if raw is None:
        return False
    value = raw.lower()
    if value not in ("0", "1", "true", "false", "yes", "no"):
        raise SettingsError(f"{key} must be 1 or 0, got {raw!r}")
    return value in ("1", "true", "yes")


def _parse_seconds(key: str, raw: str | None, default: float) -> float:
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{key} must be a number of seconds, got {raw!r}") from None
    # Under a second, a busy database or a garbage collection would pass shards back and forth.
    if not 1 <= value <= 3600:
        raise SettingsError(f"{key} must be between 1 and 3600 seconds, got {raw}")
    return value


def default_node_id(shard_ids: tuple[int, ...] | None, *, standby: bool = False) -> str:
    """The host name and a suffix stable across restarts of the same installation and shards.

    Stable, so a restarted process recognises (and frees) the claims its dead run left; distinct
    for two processes on one host, since they run different shards or live in different places.
    """
    shards = ",".join(map(str, shard_ids)) if shard_ids is not None else "all"
    if standby:
        shards += "|standby"
    digest = hashlib.sha256(f"{PROJECT_ROOT}|{shards}".encode()).hexdigest()[:8]
    return f"{socket.gethostname()}-{digest}"


def load_settings(
    environ: Mapping[str, str] | None = None, env_file: Path | None = None
) -> Settings:
    """Read settings; the process environment wins over `.env`."""
    env_path = env_file if env_file is not None else PROJECT_ROOT / ".env"
    values: dict[str, str | None] = {}
    if env_path.is_file():
        values.update(dotenv_values(env_path))
    values.update(os.environ if environ is None else environ)

    def get(key: str) -> str | None:
        return _blank_to_none(values.get(key))

    log_level = (get("SANCTUM_LOG_LEVEL") or "INFO").upper()
    if log_level not in LOG_LEVELS:
        raise SettingsError(f"SANCTUM_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}")

    shard_count = _parse_int("SANCTUM_SHARD_COUNT", get("SANCTUM_SHARD_COUNT"), minimum=1)
    shard_ids = _parse_shard_ids("SANCTUM_SHARD_IDS", get("SANCTUM_SHARD_IDS"), shard_count)
    standby = _parse_flag("SANCTUM_STANDBY", get("SANCTUM_STANDBY"))
    if standby and shard_count is None:
        raise SettingsError("SANCTUM_STANDBY needs SANCTUM_SHARD_COUNT (the fleet's shard count)")
    node_id = get("SANCTUM_NODE_ID") or default_node_id(shard_ids, standby=standby)
    if len(node_id) > 100:
        raise SettingsError(f"SANCTUM_NODE_ID must be at most 100 characters, got {len(node_id)}")

    return Settings(
        discord_token=_parse_token("DISCORD_TOKEN", get("DISCORD_TOKEN")),
        database_url=_parse_database_url("SANCTUM_DATABASE_URL", get("SANCTUM_DATABASE_URL")),
        log_level=log_level,
        test_guild_id=_parse_int("SANCTUM_TEST_GUILD_ID", get("SANCTUM_TEST_GUILD_ID"), minimum=1),
        default_turn_hours=_parse_hours(
            "SANCTUM_DEFAULT_TURN_HOURS", get("SANCTUM_DEFAULT_TURN_HOURS"), 24.0
        ),
        moderator_role=get("SANCTUM_MODERATOR_ROLE"),
        sandbox_turns=_parse_int("SANCTUM_SANDBOX_TURNS", get("SANCTUM_SANDBOX_TURNS"), minimum=1)
        or 12,
        shard_count=shard_count,
        shard_ids=shard_ids,
        node_id=node_id,
        challenge_hours=_parse_hours(
            "SANCTUM_CHALLENGE_HOURS", get("SANCTUM_CHALLENGE_HOURS"), 72.0
        ),
        max_open_challenges=_parse_int(
            "SANCTUM_MAX_OPEN_CHALLENGES", get("SANCTUM_MAX_OPEN_CHALLENGES"), minimum=1
        )
        or 3,
        standby=standby,
        shard_lease_seconds=_parse_seconds(
            "SANCTUM_SHARD_LEASE_SECONDS", get("SANCTUM_SHARD_LEASE_SECONDS"), 30.0
        ),
    )
