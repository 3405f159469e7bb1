"""What the match service hands back, and the computer players' names."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ai import DESCRIPTIONS, LEVELS, Level
from engine.state import Side
from service.announcements import NoShow
from storage import OrdersRecord

__all__ = [
    "COMPUTER_DESCRIPTIONS",
    "COMPUTER_LEVELS",
    "COMPUTER_PREFIX",
    "COMPUTER_SECONDS",
    "ConfirmResult",
    "DeadlineListener",
    "EndListener",
    "MatchEnded",
    "NoShow",
    "ResolvedTurn",
    "computer_level",
    "gave_nothing",
    "is_computer",
]

# A seat whose player id is this prefix and a level of `ai.LEVELS` is played by the computer.
COMPUTER_PREFIX = "computer:"
COMPUTER_LEVELS: tuple[str, ...] = LEVELS
# One line per level, shown next to it where a player picks the computer.
COMPUTER_DESCRIPTIONS: dict[str, str] = {level: DESCRIPTIONS[level] for level in LEVELS}
# The anytime cap on a computer's thinking per turn (levels without a clock ignore it).
COMPUTER_SECONDS = 1.5

DeadlineListener = Callable[[int, int | None, tuple[int, ...]], None]


def computer_level(player_id: str | None) -> Level | None:
    """The level of a computer player's id; None for a human (or an open seat)."""
    if player_id is None or not player_id.startswith(COMPUTER_PREFIX):
        return None
    level = player_id.removeprefix(COMPUTER_PREFIX)
    for known in LEVELS:
        if level == known:
            return known
    return None


def is_computer(player_id: str | None) -> bool:
    return player_id is not None and player_id.startswith(COMPUTER_PREFIX)


@dataclass(frozen=True, slots=True)
class ResolvedTurn:
    match_id: int
    turn: int
    cause: str
    no_shows: tuple[NoShow, ...]
    next_turn: int | None
    deadline_at: int | None
    winner: Side | None
    end_reason: str | None

    @property
    def ended(self) -> bool:
        return self.next_turn is None


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """A match's end, as told to end listeners once it is committed."""

    match_id: int
    guild_id: str | None
    turn: int
    result: str
    winner: Side | None
    winner_id: str | None
    reason: str
    ended_at: int


EndListener = Callable[[MatchEnded], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class ConfirmResult:
    orders: OrdersRecord
    resolved: ResolvedTurn | None


def _orders_empty(doc: Mapping[str, Any]) -> bool:
    return not any(
        doc.get(section) for section in ("casts", "moves", "trains", "discard", "mana_choices")
    )


def gave_nothing(record: OrdersRecord | None) -> bool:
    """A side that neither gave an order nor confirmed passing is a no-show."""
    return record is None or (not record.confirmed and _orders_empty(record.orders))
