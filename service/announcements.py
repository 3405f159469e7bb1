"""What the service tells the players, as typed values: one frozen class per outbox kind.

An announcement is written to the outbox in the transaction that caused it and posted later by
the cogs, which compose every word; the service only says what happened. Each class names its
outbox `kind`, builds its unique `key()` (the key is what makes a retried post find the first
one, so only these classes build keys), and turns itself into the stored JSON payload and back.

Payloads outlive the code that wrote them: a row queued before an upgrade is posted after it. So
a field added to a kind after rows of it were stored has a default, decoding ignores payload
entries it does not know, and league rows from before league posts carried data (they carried
finished text) decode as :class:`LeagueText`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from engine.state import Side
from storage.records import JsonDict, OutboxRecord

A = TypeVar("A", bound="Announcement")


class Announcement:
    """The base of every outbox kind; subclasses are frozen dataclasses."""

    kind: ClassVar[str]
    # Fields that hold a `Side` (stored as "red"/"blue").
    _sides: ClassVar[tuple[str, ...]] = ()
    # The field that names the player the announcement goes to, if it goes to one player; it is
    # stored in the row's recipient column, not in the payload.
    _recipient_field: ClassVar[str | None] = None

    def key(self) -> str:
        raise NotImplementedError

    @property
    def outbox_match_id(self) -> int | None:
        """The match whose announcements this one is posted in order with (None: no match)."""
        return None

    @property
    def recipient(self) -> str | None:
        field = self._recipient_field
        return None if field is None else str(getattr(self, field))

    def to_payload(self) -> JsonDict:
        payload: JsonDict = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.name == self._recipient_field:
                continue
            value = getattr(self, f.name)
            payload[f.name] = _plain(value)
        return payload

    @classmethod
    def from_payload(
        cls: type[A], payload: Mapping[str, Any], *, recipient: str | None = None
    ) -> A:
        known = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        values: dict[str, Any] = {}
        for name, value in payload.items():
            if name not in known or name == cls._recipient_field:
                continue
            values[name] = Side(value) if name in cls._sides and value is not None else value
        if cls._recipient_field is not None:
            values[cls._recipient_field] = recipient
        return cls(**cls._decode(values))

    @classmethod
    def _decode(cls, values: dict[str, Any]) -> dict[str, Any]:
        """Turn stored JSON values into field values, for fields that are not plain JSON."""
        return values


def _plain(value: Any) -> Any:
    if isinstance(value, Side):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


# --- matches ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _MatchAnnouncement(Announcement):
    match_id: int

    @property
    def outbox_match_id(self) -> int | None:
        return self.match_id


@dataclass(frozen=True, slots=True)
class MatchCreated(_MatchAnnouncement):
    kind: ClassVar[str] = "match_created"
    creator_id: str
    opponent_id: str | None

    def key(self) -> str:
        return f"match:{self.match_id}:created"


@dataclass(frozen=True, slots=True)
class MatchCancelled(_MatchAnnouncement):
    kind: ClassVar[str] = "match_cancelled"
    # Nobody took the open seat in time (hours), rather than withdrawn.
    expired_after_hours: float | None = None

    def key(self) -> str:
        return f"match:{self.match_id}:cancelled"


@dataclass(frozen=True, slots=True)
class MatchStarted(_MatchAnnouncement):
    kind: ClassVar[str] = "match_started"
    turn: int
    deadline_at: int
    # Each side's player.
    sides: Mapping[Side, str | None]

    def key(self) -> str:
        return f"match:{self.match_id}:started"

    @classmethod
    def _decode(cls, values: dict[str, Any]) -> dict[str, Any]:
        values["sides"] = {Side(k): v for k, v in (values.get("sides") or {}).items()}
        return values


@dataclass(frozen=True, slots=True)
class OrderSheet(_MatchAnnouncement):
    """A player's order sheet for a turn that has just opened (sent by DM)."""

    kind: ClassVar[str] = "order_sheet"
    _sides: ClassVar[tuple[str, ...]] = ("side",)
    _recipient_field: ClassVar[str | None] = "player_id"
    player_id: str
    turn: int
    side: Side
    deadline_at: int

    def key(self) -> str:
        return f"match:{self.match_id}:turn:{self.turn}:sheet:{self.side}"


@dataclass(frozen=True, slots=True)
class NoShow:
    """A side that gave no orders for a turn."""

    side: Side
    player_id: str | None


@dataclass(frozen=True, slots=True)
class TurnResolved(_MatchAnnouncement):
    kind: ClassVar[str] = "turn_resolved"
    turn: int
    cause: str
    next_turn: int | None
    deadline_at: int | None
    no_shows: tuple[NoShow, ...] = ()

    def key(self) -> str:
        return f"match:{self.match_id}:turn:{self.turn}:resolved"

    @classmethod
    def _decode(cls, values: dict[str, Any]) -> dict[str, Any]:
        values["no_shows"] = tuple(
            NoShow(Side(n["side"]), n.get("player_id")) for n in values.get("no_shows") or ()
        )
        return values


@dataclass(frozen=True, slots=True)
class MatchOver(_MatchAnnouncement):
    """The end of a match, however it came (kind `match_ended`)."""

    kind: ClassVar[str] = "match_ended"
    _sides: ClassVar[tuple[str, ...]] = ("winner",)
    winner: Side | None
    winner_id: str | None
    reason: str | None

    def key(self) -> str:
        return f"match:{self.match_id}:ended"


@dataclass(frozen=True, slots=True)
class Reminder(_MatchAnnouncement):
    """A deadline is near and the player has not confirmed (sent by DM)."""

    kind: ClassVar[str] = "reminder"
    _sides: ClassVar[tuple[str, ...]] = ("side",)
    _recipient_field: ClassVar[str | None] = "player_id"
    player_id: str
    turn: int
    side: Side
    deadline_at: int
    point_seconds: int
    has_orders: bool
    # Missing this deadline without orders would forfeit the match (the no-show limit).
    forfeits_if_missed: bool = False

    def key(self) -> str:
        return (
            f"match:{self.match_id}:turn:{self.turn}:deadline:{self.deadline_at}:"
            f"reminder:{self.point_seconds}:{self.side}"
        )


@dataclass(frozen=True, slots=True)
class Grace(_MatchAnnouncement):
    """A side that gave nothing gets its once-per-match extension."""

    kind: ClassVar[str] = "grace"
    _sides: ClassVar[tuple[str, ...]] = ("side",)
    turn: int
    side: Side
    player_id: str | None
    deadline_at: int

    def key(self) -> str:
        return f"match:{self.match_id}:turn:{self.turn}:grace:{self.side}"


@dataclass(frozen=True, slots=True)
class DrawOffered(_MatchAnnouncement):
    kind: ClassVar[str] = "draw_offered"
    _sides: ClassVar[tuple[str, ...]] = ("side",)
    turn: int
    side: Side
    player_id: str

    def key(self) -> str:
        return f"match:{self.match_id}:turn:{self.turn}:draw_offer:{self.side}"


# Pauses, resumes and extensions are keyed by the match's version when they happened: each one
# is a new event, however many came before. (Rows stored before the version was in the payload
# decode with version 0; their stored key is what the poster uses.)


@dataclass(frozen=True, slots=True)
class PauseRequested(_MatchAnnouncement):
    kind: ClassVar[str] = "pause_requested"
    player_id: str
    version: int = 0

    def key(self) -> str:
        return f"match:{self.match_id}:v{self.version}:pause_requested"


@dataclass(frozen=True, slots=True)
class ResumeRequested(_MatchAnnouncement):
    kind: ClassVar[str] = "resume_requested"
    player_id: str
    version: int = 0

    def key(self) -> str:
        return f"match:{self.match_id}:v{self.version}:resume_requested"


@dataclass(frozen=True, slots=True)
class Paused(_MatchAnnouncement):
    kind: ClassVar[str] = "paused"
    by: str
    moderator: bool
    turn: int
    remaining_ms: int
    version: int = 0

    def key(self) -> str:
        return f"match:{self.match_id}:v{self.version}:paused"


@dataclass(frozen=True, slots=True)
class Resumed(_MatchAnnouncement):
    kind: ClassVar[str] = "resumed"
    by: str
    moderator: bool
    turn: int
    deadline_at: int
    version: int = 0

    def key(self) -> str:
        return f"match:{self.match_id}:v{self.version}:resumed"


@dataclass(frozen=True, slots=True)
class Extended(_MatchAnnouncement):
    kind: ClassVar[str] = "extended"
    by: str
    turn: int
    seconds: int
    # None while the match is paused: the extension is added to the time left.
    deadline_at: int | None
    version: int = 0

    def key(self) -> str:
        return f"match:{self.match_id}:v{self.version}:extended"


@dataclass(frozen=True, slots=True)
class SeatHandedOver(_MatchAnnouncement):
    """A moderator gave a side's seat to another player, or to the computer (or back)."""

    kind: ClassVar[str] = "seat_handed_over"
    _sides: ClassVar[tuple[str, ...]] = ("side",)
    by: str
    turn: int
    side: Side
    old_player_id: str | None
    new_player_id: str
    version: int = 0

    def key(self) -> str:
        return f"match:{self.match_id}:v{self.version}:seat:{self.side}"


# --- leagues ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _LeagueAnnouncement(Announcement):
    """A league post, to the league's channel (`channel_id`) unless it has a recipient."""

    league_id: int
    league: str
    guild_id: str
    channel_id: str | None


@dataclass(frozen=True, slots=True)
class LeagueStarted(_LeagueAnnouncement):
    kind: ClassVar[str] = "league_started"
    started_by: str
    format: str
    rounds: int
    round_seconds: int
    # The entrants' names in seed order, and the sign-ups dropped for not checking in.
    seeds: tuple[str, ...]
    dropped: tuple[str, ...]

    def key(self) -> str:
        return f"league:{self.league_id}:started"

    @classmethod
    def _decode(cls, values: dict[str, Any]) -> dict[str, Any]:
        values["seeds"] = tuple(values.get("seeds") or ())
        values["dropped"] = tuple(values.get("dropped") or ())
        return values


@dataclass(frozen=True, slots=True)
class RoundOpened(_LeagueAnnouncement):
    kind: ClassVar[str] = "league_round_opened"
    round_no: int
    rounds: int
    start_deadline: int
    # The round's pairings with the reasons for them, as the round records them.
    pairings: str

    def key(self) -> str:
        return f"league:{self.league_id}:round:{self.round_no}:opened"


@dataclass(frozen=True, slots=True)
class LeagueResult(_LeagueAnnouncement):
    kind: ClassVar[str] = "league_result"
    round_no: int
    board: int
    match_id: int | None
    red: str
    blue: str
    # A `service.leagues.records.Outcome` value, and why the game ended so.
    outcome: str
    detail: str

    def key(self) -> str:
        return f"league:{self.league_id}:round:{self.round_no}:board:{self.board}:result"


@dataclass(frozen=True, slots=True)
class RoundStandings(_LeagueAnnouncement):
    """The table once a round is complete; `rows` are `Standings.to_records()`."""

    kind: ClassVar[str] = "league_standings"
    round_no: int
    rows: tuple[Mapping[str, Any], ...]

    def key(self) -> str:
        return f"league:{self.league_id}:round:{self.round_no}:standings"

    @classmethod
    def _decode(cls, values: dict[str, Any]) -> dict[str, Any]:
        values["rows"] = tuple(values.get("rows") or ())
        return values


@dataclass(frozen=True, slots=True)
class LeagueEnded(_LeagueAnnouncement):
    """The season is over (`early`: a moderator ended it); `rows` are the final table."""

    kind: ClassVar[str] = "league_ended"
    early: bool
    rows: tuple[Mapping[str, Any], ...]

    def key(self) -> str:
        return f"league:{self.league_id}:ended"

    @classmethod
    def _decode(cls, values: dict[str, Any]) -> dict[str, Any]:
        values["rows"] = tuple(values.get("rows") or ())
        return values


@dataclass(frozen=True, slots=True)
class LeagueReminder(_LeagueAnnouncement):
    """A player has not chosen a deck for a round's match (sent by DM)."""

    kind: ClassVar[str] = "league_reminder"
    _recipient_field: ClassVar[str | None] = "player_id"
    player_id: str
    round_no: int
    board: int
    match_id: int
    start_deadline: int
    point_seconds: int

    def key(self) -> str:
        return (
            f"league:{self.league_id}:round:{self.round_no}:board:{self.board}:"
            f"remind:{self.player_id}:{self.point_seconds}"
        )


@dataclass(frozen=True, slots=True)
class Withdrawal(_LeagueAnnouncement):
    kind: ClassVar[str] = "league_withdrawal"
    player_id: str
    name: str

    def key(self) -> str:
        return f"league:{self.league_id}:withdrawn:{self.player_id}"


@dataclass(frozen=True, slots=True)
class LeagueNotice(_LeagueAnnouncement):
    """Something the organisers must act on: a scheduled start refused (`starts_at`), or a
    round that cannot be paired (`round_no`)."""

    kind: ClassVar[str] = "league_notice"
    reason: str
    round_no: int | None = None
    starts_at: int | None = None

    def key(self) -> str:
        if self.round_no is not None:
            return f"league:{self.league_id}:round:{self.round_no}:blocked"
        return f"league:{self.league_id}:start_failed:{self.starts_at}"


@dataclass(frozen=True, slots=True)
class LeagueText(Announcement):
    """A league row stored before league posts carried data: its finished text, posted as it
    is. Only ever decoded from such a row, never written."""

    kind: ClassVar[str] = "league_text"
    stored_kind: str
    stored_key: str
    channel_id: str | None
    player_id: str | None
    text: str
    # A table's rows and title, for the image of a standings or final post.
    rows: tuple[Mapping[str, Any], ...] = ()
    title: str = ""

    def key(self) -> str:
        return self.stored_key

    @property
    def recipient(self) -> str | None:
        return self.player_id


# --- reading rows back ------------------------------------------------------------------------

KINDS: dict[str, type[Announcement]] = {
    cls.kind: cls
    for cls in (
        MatchCreated,
        MatchCancelled,
        MatchStarted,
        OrderSheet,
        TurnResolved,
        MatchOver,
        Reminder,
        Grace,
        DrawOffered,
        PauseRequested,
        ResumeRequested,
        Paused,
        Resumed,
        Extended,
        SeatHandedOver,
        LeagueStarted,
        RoundOpened,
        LeagueResult,
        RoundStandings,
        LeagueEnded,
        LeagueReminder,
        Withdrawal,
        LeagueNotice,
    )
}
LEAGUE_KINDS: frozenset[str] = frozenset(
    kind for kind, cls in KINDS.items() if issubclass(cls, _LeagueAnnouncement)
)


class UnknownAnnouncementError(ValueError):
    """An outbox row of a kind no class reads (written by a newer version, or corrupt)."""


def decode(record: OutboxRecord) -> Announcement:
    """The announcement an outbox row holds, whichever version of the code wrote it."""
    cls = KINDS.get(record.kind)
    if cls is None:
        raise UnknownAnnouncementError(f"no announcement of kind {record.kind!r}")
    payload = record.payload
    if issubclass(cls, _LeagueAnnouncement) and "text" in payload:
        channel = payload.get("channel_id")
        return LeagueText(
            record.kind,
            record.key,
            None if channel is None else str(channel),
            record.recipient,
            str(payload["text"]),
            tuple(payload.get("rows") or ()),
            str(payload.get("title") or ""),
        )
    try:
        return cls.from_payload(payload, recipient=record.recipient)
    except (TypeError, ValueError, KeyError) as exc:
        raise UnknownAnnouncementError(f"{record.key}: unreadable payload ({exc})") from exc
