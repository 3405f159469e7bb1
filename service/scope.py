"""Which matches a command may act on: a server's commands reach only that server's matches,
and a DM reaches only the player's own (match numbers are global, so a bare number is not
enough to say a match belongs to the one asking)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class _Seat(Protocol):
    @property
    def player_id(self) -> str | None: ...


class _Scoped(Protocol):
    @property
    def guild_id(self) -> str | None: ...
    @property
    def seats(self) -> Sequence[_Seat]: ...


def in_scope(match: _Scoped, guild_id: str | None, player_id: str) -> bool:
    """True when a command from ``guild_id`` (None: a DM) by ``player_id`` may see ``match``."""
    if guild_id is not None:
        return match.guild_id == guild_id
    return any(seat.player_id == player_id for seat in match.seats)
