"""What storage hands back: frozen records of plain values (JSON documents as dicts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from engine.state import Side
from storage.queries import JsonText

JsonDict = dict[str, Any]


class MatchStatus(StrEnum):
    """Where a match is in its life: open (seats and decks), active, paused, ended, cancelled
    (withdrawn before it started)."""

    OPEN = "open"
    ACTIVE = "active"
    PAUSED = "paused"
    ENDED = "ended"
    CANCELLED = "cancelled"


class LeagueStatus(StrEnum):
    """Where a league season is: sign-up, running, ended, cancelled (ended before it began)."""

    SIGNUP = "signup"
    RUNNING = "running"
    ENDED = "ended"
    CANCELLED = "cancelled"


class OutboxStatus(StrEnum):
    """An outbox row waits (pending), was delivered (done), or was given up on (dead)."""

    PENDING = "pending"
    DONE = "done"
    DEAD = "dead"


class OutboxEntry(Protocol):
    """An announcement to queue (the service's `service.announcements` classes): its kind, its
    unique key, the match it is posted in order with, its one recipient, and its payload."""

    @property
    def kind(self) -> str: ...
    @property
    def outbox_match_id(self) -> int | None: ...
    @property
    def recipient(self) -> str | None: ...
    def key(self) -> str: ...
    def to_payload(self) -> JsonDict: ...


@dataclass(frozen=True, slots=True)
class DeckRecord:
    id: int
    owner_id: str
    name: str
    house: str
    spells: tuple[str, ...]
    created_at: int
    updated_at: int


@dataclass(frozen=True, slots=True)
class SeatRecord:
    match_id: int
    seat: int
    player_id: str | None
    side: Side | None
    deck_id: int | None
    house: str | None
    spells: tuple[str, ...] | None
    no_shows: int
    grace_used: bool
    toggle_request: bool
    turns_with_orders: int


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match row with its two seats. `state`, `initial_state` and `config` are None unless
    the caller asked for them (`with_state=True`) or the match has not started."""

    id: int
    guild_id: str | None
    channel_id: str | None
    created_by: str
    ruleset: str
    realm: str
    board: str
    symmetric: bool
    seed: int
    turn_seconds: int
    no_show_limit: int
    grace_seconds: int
    reminders: tuple[int, ...]
    status: MatchStatus
    turn: int
    deadline_at: int | None
    paused_remaining_ms: int | None
    version: int
    claimed_by: str | None
    claimed_until: int | None
    draw_offer_side: str | None
    result: str | None
    winner: str | None
    end_reason: str | None
    created_at: int
    started_at: int | None
    ended_at: int | None
    seats: tuple[SeatRecord, ...]
    config: JsonDict | None = None
    initial_state: JsonDict | None = None
    state: JsonDict | None = None
    # Where deadlines are anchored: minutes after local midnight, weekdays as written ("mon-fri"),
    # and the timezone both are read in; all None when deadlines are the turn length from now.
    deadline_clock: int | None = None
    deadline_days: str | None = None
    deadline_zone: str | None = None

    def seat_of(self, player_id: str) -> SeatRecord | None:
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat
        return None

    def seat_for_side(self, side: str) -> SeatRecord | None:
        for seat in self.seats:
            if seat.side == side:
                return seat
        return None


@dataclass(frozen=True, slots=True)
class OrdersRecord:
    match_id: int
    turn: int
    side: str
    orders: JsonDict
    confirmed: bool
    updated_at: int


@dataclass(frozen=True, slots=True)
class NewTurn:
    """A resolved turn to record: `insert_turn`'s arguments but the time and the node."""

    match_id: int
    turn: int
    orders: Mapping[str, JsonDict | None]
    report: JsonDict | JsonText
    state: JsonDict | JsonText
    no_shows: Sequence[str]
    cause: str


@dataclass(frozen=True, slots=True)
class TurnRecord:
    match_id: int
    turn: int
    orders: dict[str, JsonDict | None]
    report: JsonDict
    state: JsonDict
    no_shows: tuple[str, ...]
    cause: str
    resolved_at: int
    resolved_by: str


@dataclass(frozen=True, slots=True)
class OutboxRecord:
    id: int
    key: str
    match_id: int | None
    kind: str
    recipient: str | None
    payload: JsonDict
    status: OutboxStatus
    attempts: int
    available_at: int
    claimed_by: str | None
    claimed_until: int | None
    delivered_ref: str | None
    last_error: str | None
    created_at: int
    delivered_at: int | None


@dataclass(frozen=True, slots=True)
class DueMatch:
    """A match due for resolution (deadline passed, or both sides confirmed), claimed by one
    process for a while."""

    id: int
    turn: int
    deadline_at: int


@dataclass(frozen=True, slots=True)
class ResolutionFailure:
    """A match whose current turn's resolution raised `attempts` times in a row; the sweep
    leaves it alone until `retry_at`."""

    match_id: int
    turn: int
    attempts: int
    last_error: str
    first_failed_at: int
    failed_at: int
    retry_at: int


@dataclass(frozen=True, slots=True)
class PendingDeadline:
    id: int
    turn: int
    deadline_at: int
    reminders: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TutorialRecord:
    """A running tutorial: its match, the player it teaches, and the last lesson sent (0: none
    yet)."""

    match_id: int
    player_id: str
    step: int
