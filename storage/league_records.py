"""The records of the league tables, as `storage.leagues.LeagueQueries` returns them."""

from __future__ import annotations

from dataclasses import dataclass

from storage.records import LeagueStatus, MatchStatus


@dataclass(frozen=True, slots=True)
class LeagueRecord:
    id: int
    guild_id: str
    channel_id: str | None
    name: str
    created_by: str
    status: LeagueStatus
    format: str
    rounds: int
    round_seconds: int
    turn_seconds: int
    start_seconds: int
    no_show_limit: int
    ruleset: str
    realm: str
    bye_halves: int
    missed_halves: int
    signup_opens_at: int | None
    signup_closes_at: int | None
    checkin_opens_at: int | None
    checkin_closes_at: int | None
    starts_at: int | None
    current_round: int
    created_at: int
    started_at: int | None
    ended_at: int | None
    version: int
    # False: start_seconds is the default for the round length, not a moderator's choice.
    start_chosen: bool
    # Where the deadlines of the league's matches are anchored (all None: they are not), as in
    # MatchRecord.
    deadline_clock: int | None = None
    deadline_days: str | None = None
    deadline_zone: str | None = None


@dataclass(frozen=True, slots=True)
class LeaguePlayerRecord:
    league_id: int
    player_id: str
    name: str
    deck_id: int | None
    seed: int | None
    signed_up_at: int
    checked_in_at: int | None
    joined_round: int
    withdrawn_from_round: int | None
    start_mu: float | None
    start_sigma: float | None


@dataclass(frozen=True, slots=True)
class LeagueRoundRecord:
    league_id: int
    round_no: int
    opened_at: int
    start_deadline: int
    completed_at: int | None
    explanation: str


@dataclass(frozen=True, slots=True)
class LeagueGameRecord:
    league_id: int
    round_no: int
    board: int
    red_id: str
    blue_id: str
    match_id: int | None
    outcome: str | None
    detail: str | None
    red_turns: int
    red_turns_with_orders: int
    blue_turns: int
    blue_turns_with_orders: int
    recorded_at: int | None


@dataclass(frozen=True, slots=True)
class LeagueByeRecord:
    league_id: int
    round_no: int
    player_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class RatingRecord:
    guild_id: str
    player_id: str
    name: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    updated_at: int


@dataclass(frozen=True, slots=True)
class MatchSeatFacts:
    player_id: str | None
    side: str | None
    has_deck: bool
    turns_with_orders: int


@dataclass(frozen=True, slots=True)
class LinkedMatch:
    """A league game still without a result, with what its match says now."""

    game: LeagueGameRecord
    status: MatchStatus
    winner: str | None
    end_reason: str | None
    turns: int
    seats: tuple[MatchSeatFacts, ...]


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """An ended match in a server that the ratings have not looked at yet."""

    match_id: int
    guild_id: str
    winner: str | None
    end_reason: str | None
    seats: tuple[MatchSeatFacts, ...]


@dataclass(frozen=True, slots=True)
class TurnTally:
    turns_played: int
    turns_with_orders: int
