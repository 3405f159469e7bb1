"""Announcements are typed values whose payloads outlive the code that wrote them: each kind
round-trips, builds the key the outbox has always used for it, and a row stored by an earlier
version (the old payload shapes below) still decodes."""

from __future__ import annotations

from typing import Any

import pytest

from engine.state import Side
from service.announcements import (
    KINDS,
    LEAGUE_KINDS,
    Announcement,
    DrawOffered,
    Extended,
    Grace,
    LeagueEnded,
    LeagueNotice,
    LeagueReminder,
    LeagueResult,
    LeagueStarted,
    LeagueText,
    MatchCancelled,
    MatchCreated,
    MatchOver,
    MatchStarted,
    NoShow,
    OrderSheet,
    Paused,
    PauseRequested,
    Reminder,
    Resumed,
    ResumeRequested,
    RoundOpened,
    RoundStandings,
    SeatHandedOver,
    TurnResolved,
    UnknownAnnouncementError,
    Withdrawal,
    decode,
)
from service.matches import MatchService
from storage import OutboxRecord
from storage.records import OutboxStatus
from tests.storage.entries import RawEntry

LEAGUE = (3, "Spring", "g1", "c1")
ROWS = ({"rank": 1, "name": "A", "points": 1.0},)

EXAMPLES: list[tuple[Announcement, str]] = [
    (MatchCreated(7, "alice", None), "match:7:created"),
    (MatchCancelled(7), "match:7:cancelled"),
    (MatchStarted(7, 1, 5000, {Side.RED: "bob", Side.BLUE: "alice"}), "match:7:started"),
    (OrderSheet(7, "alice", 2, Side.BLUE, 9000), "match:7:turn:2:sheet:blue"),
    (
        TurnResolved(7, 2, "deadline", 3, 9000, (NoShow(Side.RED, "bob"),)),
        "match:7:turn:2:resolved",
    ),
    (TurnResolved(7, 9, "confirmed", None, None), "match:7:turn:9:resolved"),
    (MatchOver(7, Side.RED, "bob", "concession"), "match:7:ended"),
    (MatchOver(7, None, None, "agreed"), "match:7:ended"),
    (
        Reminder(7, "alice", 2, Side.BLUE, 9000, 600, has_orders=True),
        "match:7:turn:2:deadline:9000:reminder:600:blue",
    ),
    (Grace(7, 2, Side.RED, "bob", 12000), "match:7:turn:2:grace:red"),
    (DrawOffered(7, 2, Side.BLUE, "alice"), "match:7:turn:2:draw_offer:blue"),
    (PauseRequested(7, "alice", 11), "match:7:v11:pause_requested"),
    (ResumeRequested(7, "bob", 12), "match:7:v12:resume_requested"),
    (Paused(7, "mod", True, 2, 3000, 13), "match:7:v13:paused"),
    (Resumed(7, "mod", False, 2, 15000, 14), "match:7:v14:resumed"),
    (Extended(7, "mod", 2, 3600, None, 15), "match:7:v15:extended"),
    (SeatHandedOver(7, "mod", 2, Side.BLUE, "bob", "computer:greedy", 16), "match:7:v16:seat:blue"),
    (
        LeagueStarted(*LEAGUE, "mod", "swiss", 3, 86400, ("A", "B"), ()),
        "league:3:started",
    ),
    (RoundOpened(*LEAGUE, 2, 3, 40000, "Board 1: A v B"), "league:3:round:2:opened"),
    (
        LeagueResult(*LEAGUE, 2, 1, 7, "A", "B", "red_win", "concession"),
        "league:3:round:2:board:1:result",
    ),
    (RoundStandings(*LEAGUE, 2, ROWS), "league:3:round:2:standings"),
    (LeagueEnded(*LEAGUE, True, ROWS), "league:3:ended"),
    (
        LeagueReminder(*LEAGUE, "pa", 2, 1, 7, 40000, 3600),
        "league:3:round:2:board:1:remind:pa:3600",
    ),
    (Withdrawal(*LEAGUE, "pa", "A"), "league:3:withdrawn:pa"),
    (LeagueNotice(*LEAGUE, "too few players", starts_at=555), "league:3:start_failed:555"),
    (LeagueNotice(*LEAGUE, "no pairing", round_no=2), "league:3:round:2:blocked"),
]


def row(kind: str, payload: dict[str, Any], *, recipient: str | None = None) -> OutboxRecord:
    return OutboxRecord(
        id=1,
        key="stored-key",
        match_id=None,
        kind=kind,
        recipient=recipient,
        payload=payload,
        status=OutboxStatus.PENDING,
        attempts=0,
        available_at=0,
        claimed_by=None,
        claimed_until=None,
        delivered_ref=None,
        last_error=None,
        created_at=0,
        delivered_at=None,
    )


@pytest.mark.parametrize(("told", "key"), EXAMPLES, ids=lambda x: getattr(x, "kind", x))
def test_each_kind_builds_its_key_and_reads_back_as_itself(told: Announcement, key: str) -> None:
    assert told.key() == key
    payload = told.to_payload()
    assert "player_id" not in payload or told.recipient is None
    assert decode(row(told.kind, payload, recipient=told.recipient)) == told


def test_every_kind_has_one_class_and_an_example() -> None:
    assert {told.kind for told, _key in EXAMPLES} == set(KINDS)
    assert all(KINDS[kind].kind == kind for kind in KINDS)
    assert {k for k in KINDS if k.startswith("league_")} == LEAGUE_KINDS


def test_match_payloads_written_before_announcements_were_typed_still_read() -> None:
    old_resolved = {
        "match_id": 7,
        "turn": 2,
        "cause": "deadline",
        "next_turn": 3,
        "deadline_at": 9000,
        "no_shows": [{"side": "red", "player_id": "bob"}],
    }
    resolved = decode(row("turn_resolved", old_resolved))
    assert resolved == TurnResolved(7, 2, "deadline", 3, 9000, (NoShow(Side.RED, "bob"),))
    assert isinstance(resolved, TurnResolved) and resolved.no_shows[0].side is Side.RED
    old_sheet = {"match_id": 7, "turn": 2, "side": "blue", "deadline_at": 9000}
    assert decode(row("order_sheet", old_sheet, recipient="alice")) == OrderSheet(
        7, "alice", 2, Side.BLUE, 9000
    )
    # Pauses were keyed by the version without storing it; the stored key is what is posted.
    old_paused = {
        "match_id": 7,
        "by": "mod",
        "moderator": True,
        "turn": 2,
        "remaining_ms": 3000,
    }
    assert decode(row("paused", old_paused)) == Paused(7, "mod", True, 2, 3000)
    old_started = {
        "match_id": 7,
        "turn": 1,
        "deadline_at": 5000,
        "sides": {"red": "bob", "blue": "alice"},
    }
    started = decode(row("match_started", old_started))
    assert isinstance(started, MatchStarted) and started.sides[Side.RED] == "bob"
    old_ended = {"match_id": 7, "winner": "blue", "winner_id": "alice", "reason": "forfeit"}
    assert decode(row("match_ended", old_ended)) == MatchOver(7, Side.BLUE, "alice", "forfeit")


def test_league_rows_that_carried_their_text_read_as_that_text() -> None:
    old_result = {
        "league_id": 3,
        "league": "Spring",
        "guild_id": "g1",
        "channel_id": "c1",
        "round_no": 2,
        "match_id": 7,
        "text": "Spring, round 2: A 1-0 B (concession).",
    }
    told = decode(row("league_result", old_result))
    assert told == LeagueText(
        "league_result", "stored-key", "c1", None, "Spring, round 2: A 1-0 B (concession)."
    )
    old_reminder = {"league_id": 3, "channel_id": 99, "match_id": 7, "text": "Choose a deck."}
    reminder = decode(row("league_reminder", old_reminder, recipient="pa"))
    assert isinstance(reminder, LeagueText)
    assert (reminder.recipient, reminder.channel_id, reminder.text) == (
        "pa",
        "99",
        "Choose a deck.",
    )
    old_standings = {**old_result, "rows": list(ROWS), "title": "Spring: standings after round 2"}
    table = decode(row("league_standings", old_standings))
    assert isinstance(table, LeagueText) and table.rows == ROWS and table.title


def test_an_unknown_kind_or_an_unreadable_payload_is_refused() -> None:
    with pytest.raises(UnknownAnnouncementError):
        decode(row("carrier_pigeon", {}))
    with pytest.raises(UnknownAnnouncementError):
        decode(row("grace", {"match_id": 7}))


async def test_a_row_stored_by_the_old_code_decodes_from_the_database(
    service: MatchService,
) -> None:
    match_id = (await service.create_match("alice", opponent_id="bob")).id
    old = RawEntry(
        f"match:{match_id}:turn:2:grace:red",
        "grace",
        {"match_id": match_id, "turn": 2, "side": "red", "player_id": "bob", "deadline_at": 1},
        outbox_match_id=match_id,
    )
    async with service.store.write() as s:
        assert await s.add_outbox(old, now=0)
        assert await s.add_outbox(Grace(match_id, 3, Side.BLUE, "alice", 2), now=0)
    async with service.store.read() as s:
        first, second = await s.list_outbox(kind="grace")
    assert decode(first) == Grace(match_id, 2, Side.RED, "bob", 1)
    assert decode(second) == Grace(match_id, 3, Side.BLUE, "alice", 2)
    assert (second.key, second.match_id, second.recipient) == (
        f"match:{match_id}:turn:3:grace:blue",
        match_id,
        None,
    )
