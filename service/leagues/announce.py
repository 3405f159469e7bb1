"""The league's announcements, built from the league they belong to: every one names the
league and the channel it posts in, and carries what happened as data (the cogs word it)."""

from __future__ import annotations

from collections.abc import Sequence

from service.announcements import (
    LeagueEnded,
    LeagueNotice,
    LeagueReminder,
    LeagueResult,
    LeagueStarted,
    RoundOpened,
    RoundStandings,
    Withdrawal,
)
from service.leagues.records import Outcome
from service.leagues.standings import Standings
from storage.leagues import LeagueGameRecord, LeagueRecord


def started(
    league: LeagueRecord, by: str, seeds: Sequence[str], dropped: Sequence[str]
) -> LeagueStarted:
    return LeagueStarted(
        league.id,
        league.name,
        league.guild_id,
        league.channel_id,
        started_by=by,
        format=league.format,
        rounds=league.rounds,
        round_seconds=league.round_seconds,
        seeds=tuple(seeds),
        dropped=tuple(dropped),
    )


def round_opened(
    league: LeagueRecord, round_no: int, start_deadline: int, pairings: str
) -> RoundOpened:
    return RoundOpened(
        league.id,
        league.name,
        league.guild_id,
        league.channel_id,
        round_no=round_no,
        rounds=league.rounds,
        start_deadline=start_deadline,
        pairings=pairings,
    )


def result(
    league: LeagueRecord,
    game: LeagueGameRecord,
    names: tuple[str, str],
    outcome: Outcome,
    detail: str,
) -> LeagueResult:
    """A recorded game; `names` are red's and blue's."""
    red, blue = names
    return LeagueResult(
        league.id,
        league.name,
        league.guild_id,
        league.channel_id,
        round_no=game.round_no,
        board=game.board,
        match_id=game.match_id,
        red=red,
        blue=blue,
        outcome=outcome.value,
        detail=detail,
    )


def standings(league: LeagueRecord, round_no: int, table: Standings) -> RoundStandings:
    return RoundStandings(
        league.id,
        league.name,
        league.guild_id,
        league.channel_id,
        round_no=round_no,
        rows=table.to_records(),
    )


def ended(league: LeagueRecord, table: Standings, *, early: bool) -> LeagueEnded:
    return LeagueEnded(
        league.id,
        league.name,
        league.guild_id,
        league.channel_id,
        early=early,
        rows=table.to_records(),
    )


def reminder(
    league: LeagueRecord,
    game: LeagueGameRecord,
    player_id: str,
    start_deadline: int,
    point: int,
) -> LeagueReminder:
    assert game.match_id is not None
    return LeagueReminder(
        league.id,
        league.name,
        league.guild_id,
        league.channel_id,
        player_id=player_id,
        round_no=game.round_no,
        board=game.board,
        match_id=game.match_id,
        start_deadline=start_deadline,
        point_seconds=point,
    )


def withdrawal(league: LeagueRecord, player_id: str, name: str) -> Withdrawal:
    return Withdrawal(
        league.id, league.name, league.guild_id, league.channel_id, player_id=player_id, name=name
    )


def notice(
    league: LeagueRecord,
    reason: str,
    *,
    round_no: int | None = None,
    starts_at: int | None = None,
) -> LeagueNotice:
    return LeagueNotice(
        league.id,
        league.name,
        league.guild_id,
        league.channel_id,
        reason=reason,
        round_no=round_no,
        starts_at=starts_at,
    )
