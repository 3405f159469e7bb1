"""League seasons over the database: sign-up to summary, rounds on a schedule, results, ratings.

The database is the source of truth and every step is safe to repeat:

- `step()` does whatever is due, for every league: starts leagues whose start time came, creates
  the matches of an open round (or adopts one an interrupted step created), starts a match as soon
  as both players have a deck, reminds players who have not chosen one, forfeits a game nobody
  started by the round's start deadline, records results of finished matches (rating them in the
  same transaction), closes a complete round with its standings, opens the next round once its
  time has come, and ends the season after its last round. Each change is guarded (a round's
  primary key, `outcome IS NULL`, the league's version), and every announcement is an outbox row
  with a unique key, so a repeated or concurrent step changes nothing twice.
- `record_match_end` records a game's result as soon as its match ends (the league alarm hands
  it the match service's end notices); the step's pass over finished matches stays as the net
  for a notice that never came, and `outcome IS NULL` keeps whichever result came first.
- A round opens at `started_at + (n - 1) * round_seconds`, but never before every game of the
  round before has a result: Swiss pairings need them, and an unfinished match is never cut short.
- A match that ends by the match's no-show policy ("forfeit", or "abandoned" when both sides were
  absent) is a forfeit in the league, not a rated game.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import math
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.content import load_content
from engine.state import RULESETS
from service.clock import Clock, to_ms
from service.errors import NotAllowedError, NotFoundError, ServiceError, WrongStateError
from service.leagues.pairing import (
    RoundPairing,
    pair_swiss_round,
    round_robin_round,
    round_robin_rounds,
)
from service.leagues.ratings import NEW_PLAYER, Rating, Reliability, rate_game
from service.leagues.records import Bye, Entrant, Game, LeagueError, Outcome, ScoringConfig
from service.leagues.standings import Standings, compute_standings
from service.leagues.summary import SeasonSummary, summarize_season
from service.matches import MatchEnded, MatchService
from storage import ConflictError, Session, Store
from storage.leagues import (
    LeagueByeRecord,
    LeagueGameRecord,
    LeaguePlayerRecord,
    LeagueQueries,
    LeagueRecord,
    LeagueRoundRecord,
    LinkedMatch,
    RatingRecord,
)

__all__ = [
    "LeaderboardRow",
    "LeagueActionError",
    "LeagueRecord",
    "LeagueService",
    "LeagueSettings",
    "LeagueTable",
    "Profile",
    "ScheduledGame",
    "Season",
    "StepReport",
    "TableRow",
]

log = logging.getLogger(__name__)

FORMATS = ("swiss", "round_robin")
MAX_NAME_LENGTH = 60
MAX_ROUNDS = 50
MIN_ROUND_SECONDS = 60
MAX_ROUND_SECONDS = 60 * 86400
# Reminder points (seconds before a round's start deadline) for players without a deck.
DEFAULT_REMINDERS: tuple[int, ...] = (24 * 3600, 3600)


class LeagueActionError(ServiceError):
    """A league action that cannot be done as asked (a full round, a closed window, ...)."""

    code = "league_refused"


@dataclass(frozen=True, slots=True)
class LeagueSettings:
    """What a moderator chooses for a season. Times are milliseconds since the epoch.

    `rounds` 0 means "decide at the start": every round of a round-robin, or for Swiss one more
    than the number of doublings of the field. `start_seconds` is how long players have, from a
    round's opening, to get their match started (choose a deck) before it is forfeited; 0 means
    half the round, at most two days, worked out again whenever the round length changes.
    """

    format: str = "swiss"
    rounds: int = 0
    round_seconds: int = 7 * 86400
    turn_seconds: int = 86400
    start_seconds: int = 0
    no_show_limit: int = 3
    ruleset: str = "classic"
    realm: str = "veldt"
    bye_points: float = 1.0
    missed_round_points: float = 0.0
    signup_opens_at: int | None = None
    signup_closes_at: int | None = None
    checkin_opens_at: int | None = None
    checkin_closes_at: int | None = None
    starts_at: int | None = None

    @classmethod
    def of(cls, league: LeagueRecord) -> LeagueSettings:
        return cls(
            format=league.format,
            rounds=league.rounds,
            round_seconds=league.round_seconds,
            turn_seconds=league.turn_seconds,
            start_seconds=league.start_seconds if league.start_chosen else 0,
            no_show_limit=league.no_show_limit,
            ruleset=league.ruleset,
            realm=league.realm,
            bye_points=league.bye_halves / 2,
            missed_round_points=league.missed_halves / 2,
            signup_opens_at=league.signup_opens_at,
            signup_closes_at=league.signup_closes_at,
            checkin_opens_at=league.checkin_opens_at,
            checkin_closes_at=league.checkin_closes_at,
            starts_at=league.starts_at,
        )

    @property
    def start_window(self) -> int:
        return self.start_seconds or min(2 * 86400, self.round_seconds // 2)

    def check(self) -> None:
        """Raise LeagueActionError with every reason these settings cannot be used."""
        problems: list[str] = []
        if self.format not in FORMATS:
            problems.append("the format is `swiss` or `round_robin`")
        if not 0 <= self.rounds <= MAX_ROUNDS:
            problems.append(f"rounds go from 1 to {MAX_ROUNDS} (0: decided at the start)")
        if not MIN_ROUND_SECONDS <= self.round_seconds <= MAX_ROUND_SECONDS:
            problems.append("a round lasts between a minute and 60 days")
        if not 1 <= self.turn_seconds <= 14 * 86400:
            problems.append("a turn lasts between one second and two weeks")
        if not 1 <= self.start_window <= self.round_seconds:
            problems.append("the time to start a match must fit within the round")
        if not 0 <= self.no_show_limit <= 20:
            problems.append("the no-show limit goes from 0 (off) to 20")
        if self.ruleset not in RULESETS:
            problems.append(f"the ruleset is one of {', '.join(RULESETS)}")
        realms = load_content().realms
        if self.realm not in realms:
            problems.append(f"the realm is one of {', '.join(sorted(realms))}")
        for key in ("bye_points", "missed_round_points"):
            if getattr(self, key) not in (0.0, 0.5, 1.0):
                problems.append(f"{key.replace('_', ' ')} are 0, 0.5 or 1")
        for opens, closes, what in (
            (self.signup_opens_at, self.signup_closes_at, "sign-up"),
            (self.checkin_opens_at, self.checkin_closes_at, "check-in"),
        ):
            if opens is not None and closes is not None and closes <= opens:
                problems.append(f"the {what} window must close after it opens")
        if problems:
            raise LeagueActionError("These settings cannot be used: " + "; ".join(problems) + ".")


@dataclass(frozen=True, slots=True)
class Season:
    """Everything recorded about one league, read in one transaction."""

    league: LeagueRecord
    players: tuple[LeaguePlayerRecord, ...]
    rounds: tuple[LeagueRoundRecord, ...]
    games: tuple[LeagueGameRecord, ...]
    byes: tuple[LeagueByeRecord, ...]

    @property
    def config(self) -> ScoringConfig:
        return ScoringConfig(self.league.bye_halves / 2, self.league.missed_halves / 2)

    def entrants(self) -> list[Entrant]:
        ordered = sorted(
            self.players, key=lambda p: (p.seed is None, p.seed or 0, p.signed_up_at, p.player_id)
        )
        return [
            Entrant(
                player_id=p.player_id,
                name=p.name,
                seed=p.seed if p.seed is not None else i + 1,
                joined_round=p.joined_round,
                withdrawn_from_round=p.withdrawn_from_round,
            )
            for i, p in enumerate(ordered)
        ]

    def results(self) -> list[Game]:
        return [
            Game(g.round_no, g.red_id, g.blue_id, Outcome(g.outcome))
            for g in self.games
            if g.outcome is not None
        ]

    def bye_records(self) -> list[Bye]:
        return [Bye(b.round_no, b.player_id) for b in self.byes]

    def completed_round(self) -> int:
        """The last round that has every result, with all rounds before it (0: none yet)."""
        done = 0
        while done < self.league.current_round and self.round_complete(done + 1):
            done += 1
        return done

    def standings(self) -> Standings:
        """The table after the last completed round while the season runs (a round in
        progress would count its byes before any game is played); once it is over, every
        result recorded."""
        through = self.completed_round() if self.league.status == "running" else None
        return compute_standings(
            self.entrants(),
            self.results(),
            self.bye_records(),
            self.config,
            through_round=through,
        )

    def name(self, player_id: str) -> str:
        for p in self.players:
            if p.player_id == player_id:
                return p.name
        return player_id

    def round(self, round_no: int) -> LeagueRoundRecord | None:
        for r in self.rounds:
            if r.round_no == round_no:
                return r
        return None

    def games_of(self, round_no: int) -> list[LeagueGameRecord]:
        return [g for g in self.games if g.round_no == round_no]

    def round_complete(self, round_no: int) -> bool:
        return self.round(round_no) is not None and all(
            g.outcome is not None for g in self.games_of(round_no)
        )

    def scheduled_open(self, round_no: int) -> int | None:
        """When round `round_no` is due to open (it may wait for the round before)."""
        if self.league.started_at is None:
            return None
        return self.league.started_at + (round_no - 1) * self.league.round_seconds * 1000

    def reliability(self) -> dict[str, Reliability]:
        turns: dict[str, list[int]] = {p.player_id: [0, 0] for p in self.players}
        for g in self.games:
            for pid, played, given in (
                (g.red_id, g.red_turns, g.red_turns_with_orders),
                (g.blue_id, g.blue_turns, g.blue_turns_with_orders),
            ):
                if pid in turns:
                    turns[pid][0] += played
                    turns[pid][1] += min(given, played)
        return {pid: Reliability(t[0], t[1]) for pid, t in turns.items()}


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    round_no: int
    board: int | None
    red: str
    blue: str | None
    result: str
    status: str
    match_id: int | None


@dataclass(frozen=True, slots=True)
class TableRow:
    """A standings row with the player's current rating, for the table image."""

    rank: int
    player_id: str
    name: str
    played: int
    wins: int
    draws: int
    losses: int
    points: float
    sonneborn_berger: float
    rating: int
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class LeagueTable:
    league: LeagueRecord
    standings: Standings
    rows: tuple[TableRow, ...]

    @property
    def label(self) -> str:
        """Which rounds the table counts: `after round 2`, `after round 2; round 3 in
        progress`."""
        done = self.standings.through_round
        label = f"after round {done}" if done else "before any round is complete"
        current = self.league.current_round
        if self.league.status == "running" and current > done:
            label += f"; round {current} in progress"
        return label

    def to_text(self) -> str:
        return f"{self.league.name}\n{self.standings.to_text(heading=f'Standings {self.label}')}"


@dataclass(frozen=True, slots=True)
class Profile:
    guild_id: str
    player_id: str
    name: str
    rating: Rating
    wins: int
    draws: int
    losses: int
    reliability: Reliability
    rank: int | None
    leagues: tuple[str, ...]

    def to_text(self) -> str:
        rank = f"#{self.rank}" if self.rank is not None else "unranked"
        lines = [
            f"{self.name}: rating {self.rating.display} ({rank}; skill {self.rating.mu:.1f} "
            f"± {self.rating.sigma:.1f})",
            f"Rated games: {self.rating.games} ({self.wins} won, {self.draws} drawn, "
            f"{self.losses} lost)",
            f"Reliability: {self.reliability.to_text()}",
        ]
        if self.leagues:
            lines.append("Leagues: " + ", ".join(self.leagues))
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    rank: int
    player_id: str
    name: str
    display: int
    games: int
    wins: int
    draws: int
    losses: int


@dataclass(slots=True)
class StepReport:
    """What one step did (for logs and tests)."""

    started: list[int] = field(default_factory=list)
    opened: list[tuple[int, int]] = field(default_factory=list)
    matches_created: list[int] = field(default_factory=list)
    matches_started: list[int] = field(default_factory=list)
    recorded: list[tuple[int, int, int, str]] = field(default_factory=list)
    reminders: int = 0
    rated_matches: int = 0
    completed: list[tuple[int, int]] = field(default_factory=list)
    ended: list[int] = field(default_factory=list)
    blocked: list[tuple[int, int]] = field(default_factory=list)


class _Opening(enum.Enum):
    OPENED = "opened"
    # Players joined or left after the pairing's read; nothing was written, pair again.
    STALE = "stale"
    # Not opened here: it cannot be paired, or another step opened it or ended the league.
    NOT_OPENED = "not_opened"


def _outcome_for(game: LeagueGameRecord, linked: LinkedMatch) -> tuple[Outcome, str]:
    """The league outcome of a finished match, from the players' point of view."""
    seats = {s.side: s.player_id for s in linked.seats}
    reason = linked.end_reason or "ended"
    if reason == "abandoned":
        return Outcome.DOUBLE_FORFEIT, "neither player gave orders (no-show limit)"
    if linked.winner is None:
        return Outcome.DRAW, reason
    winner = seats.get(linked.winner)
    red_won = winner == game.red_id
    if reason == "forfeit":
        return (
            (Outcome.BLUE_FORFEIT, "blue reached the no-show limit")
            if red_won
            else (Outcome.RED_FORFEIT, "red reached the no-show limit")
        )
    return (Outcome.RED_WIN if red_won else Outcome.BLUE_WIN), reason


def _result_text(outcome: str | None) -> str:
    return {
        None: "",
        "red_win": "1-0",
        "blue_win": "0-1",
        "draw": "½-½",
        "red_forfeit": "0-1 (forfeit)",
        "blue_forfeit": "1-0 (forfeit)",
        "double_forfeit": "0-0 (both forfeit)",
    }[outcome]


def _seed_with_red_first(base: int) -> int:
    """A match seed whose colour draw puts the match creator (seat 0) on red.

    The match service draws the red seat as `random.Random(seed).randrange(2)`; league pairings
    choose colours, so the league picks the seed that gives the paired colours.
    """
    seed = base
    while random.Random(seed).randrange(2) != 0:
        seed += 1
    return seed


def _default_rounds(fmt: str, count: int) -> int:
    if fmt == "round_robin":
        return round_robin_rounds(count)
    return max(1, min(count - 1, math.ceil(math.log2(max(count, 2))) + 1))


class LeagueService:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        matches: MatchService,
        *,
        reminders: Sequence[int] = DEFAULT_REMINDERS,
    ) -> None:
        self.store = store
        self.clock = clock
        self.matches = matches
        self.reminders = tuple(sorted(set(reminders), reverse=True))
        self._step_lock = asyncio.Lock()

    def now_ms(self) -> int:
        return to_ms(self.clock.now())

    # --- reading ----------------------------------------------------------------------------

    @staticmethod
    async def _league(q: LeagueQueries, league_id: int, *, lock: bool = False) -> LeagueRecord:
        league = await q.get_league(league_id, lock=lock)
        if league is None:
            raise NotFoundError(f"There is no league #{league_id}.")
        return league

    @staticmethod
    async def _season(q: LeagueQueries, league: LeagueRecord) -> Season:
        return Season(
            league,
            tuple(await q.list_players(league.id)),
            tuple(await q.list_rounds(league.id)),
            tuple(await q.list_games(league.id)),
            tuple(await q.list_byes(league.id)),
        )

    async def season(self, league_id: int) -> Season:
        async with self.store.read() as s:
            q = LeagueQueries(s)
            return await self._season(q, await self._league(q, league_id))

    async def get_league(self, league_id: int) -> LeagueRecord:
        async with self.store.read() as s:
            return await self._league(LeagueQueries(s), league_id)

    async def find_league(self, guild_id: str, name: str) -> LeagueRecord:
        async with self.store.read() as s:
            league = await LeagueQueries(s).get_league_by_name(guild_id, name.strip())
        if league is None:
            raise NotFoundError(f"This server has no league named {name!r}.")
        return league

    async def list_leagues(
        self, guild_id: str, statuses: Sequence[str] | None = None
    ) -> list[LeagueRecord]:
        async with self.store.read() as s:
            return await LeagueQueries(s).list_leagues(guild_id=guild_id, statuses=statuses)

    # --- creating and configuring -----------------------------------------------------------

    async def create_league(
        self,
        *,
        guild_id: str,
        channel_id: str | None,
        name: str,
        by: str,
        moderator: bool,
        settings: LeagueSettings | None = None,
    ) -> LeagueRecord:
        if not moderator:
            raise NotAllowedError("Only a moderator can create a league.")
        name = " ".join(name.split())
        if not 1 <= len(name) <= MAX_NAME_LENGTH:
            raise LeagueActionError(f"A league name has 1 to {MAX_NAME_LENGTH} characters.")
        chosen = settings or LeagueSettings()
        chosen.check()
        now = self.now_ms()
        taken = LeagueActionError(f"This server already has a league named {name!r}.")
        try:
            async with self.store.write() as s:
                q = LeagueQueries(s)
                if await q.get_league_by_name(guild_id, name) is not None:
                    raise taken
                league_id = await q.insert_league(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    name=name,
                    created_by=by,
                    format=chosen.format,
                    rounds=chosen.rounds,
                    round_seconds=chosen.round_seconds,
                    turn_seconds=chosen.turn_seconds,
                    start_seconds=chosen.start_window,
                    start_chosen=chosen.start_seconds != 0,
                    no_show_limit=chosen.no_show_limit,
                    ruleset=chosen.ruleset,
                    realm=chosen.realm,
                    bye_halves=int(chosen.bye_points * 2),
                    missed_halves=int(chosen.missed_round_points * 2),
                    now=now,
                )
                await q.update_league(league_id, **self._windows(chosen))
                return await self._league(q, league_id)
        except ConflictError:
            raise taken from None

    @staticmethod
    def _windows(settings: LeagueSettings) -> dict[str, int | None]:
        return {
            "signup_opens_at": settings.signup_opens_at,
            "signup_closes_at": settings.signup_closes_at,
            "checkin_opens_at": settings.checkin_opens_at,
            "checkin_closes_at": settings.checkin_closes_at,
            "starts_at": settings.starts_at,
        }

    async def configure(
        self, league_id: int, *, by: str, moderator: bool, **changes: Any
    ) -> LeagueRecord:
        """Change settings (the names of `LeagueSettings`) before the season starts."""
        if not moderator:
            raise NotAllowedError("Only a moderator can change a league's settings.")
        unknown = sorted(set(changes) - set(LeagueSettings.__dataclass_fields__))
        if unknown:
            raise LeagueActionError(f"Unknown league settings: {', '.join(unknown)}.")
        async with self.store.write() as s:
            q = LeagueQueries(s)
            league = await self._league(q, league_id, lock=True)
            if league.status != "signup":
                raise WrongStateError(
                    f"{league.name} has started; its settings can no longer change."
                )
            chosen = replace(LeagueSettings.of(league), **changes)
            chosen.check()
            await q.update_league(
                league_id,
                format=chosen.format,
                rounds=chosen.rounds,
                round_seconds=chosen.round_seconds,
                turn_seconds=chosen.turn_seconds,
                start_seconds=chosen.start_window,
                start_chosen=int(chosen.start_seconds != 0),
                no_show_limit=chosen.no_show_limit,
                ruleset=chosen.ruleset,
                realm=chosen.realm,
                bye_halves=int(chosen.bye_points * 2),
                missed_halves=int(chosen.missed_round_points * 2),
                **self._windows(chosen),
            )
            log.info("league %s settings changed by %s: %s", league_id, by, sorted(changes))
            return await self._league(q, league_id)

    # --- entering and leaving ---------------------------------------------------------------

    @staticmethod
    async def _check_deck(s: Session, player_id: str, deck_id: int | None) -> None:
        if deck_id is None:
            return
        deck = await s.get_deck(deck_id)
        if deck is None or deck.owner_id != player_id:
            raise NotFoundError(f"You have no deck #{deck_id}.")

    async def signup(
        self, league_id: int, player_id: str, name: str, *, deck_id: int | None = None
    ) -> LeaguePlayerRecord:
        """Sign up for a season that has not started (or change the deck you signed up with)."""
        now = self.now_ms()
        async with self.store.write() as s:
            q = LeagueQueries(s)
            league = await self._league(q, league_id, lock=True)
            if league.status == "running":
                raise WrongStateError(
                    f"{league.name} has started; use `/league join` to enter from the next round."
                )
            if league.status != "signup":
                raise WrongStateError(f"{league.name} is over.")
            if league.signup_opens_at is not None and now < league.signup_opens_at:
                raise LeagueActionError(
                    f"Sign-up for {league.name} opens <t:{league.signup_opens_at // 1000}:R>."
                )
            if league.signup_closes_at is not None and now >= league.signup_closes_at:
                raise LeagueActionError(f"Sign-up for {league.name} has closed.")
            await self._check_deck(s, player_id, deck_id)
            existing = await q.get_player(league_id, player_id)
            if (
                existing is None
                and league.checkin_closes_at is not None
                and now >= league.checkin_closes_at
            ):
                # A new sign-up could never check in, and so would be dropped at the start.
                raise LeagueActionError(
                    f"Check-in for {league.name} has closed, so sign-up has closed too."
                )
            if existing is not None:
                if deck_id is None:
                    raise LeagueActionError(f"You are already signed up for {league.name}.")
                await q.update_player(league_id, player_id, deck_id=deck_id, name=name)
            else:
                await q.insert_player(league_id, player_id, name, deck_id=deck_id, now=now)
            await q.update_league(league_id)
            player = await q.get_player(league_id, player_id)
        assert player is not None
        return player

    def checkin_hint(self, league: LeagueRecord, player: LeaguePlayerRecord) -> str:
        """What a signed-up player still has to do to be entered; "" when nothing is left
        (no check-in, already checked in, or check-in over)."""
        if league.checkin_opens_at is None or player.checked_in_at is not None:
            return ""
        now = self.now_ms()
        if league.checkin_closes_at is not None and now >= league.checkin_closes_at:
            return ""
        if now < league.checkin_opens_at:
            return (
                f"Remember to `/league checkin` when check-in opens "
                f"<t:{league.checkin_opens_at // 1000}:R>."
            )
        return "Check-in is open: `/league checkin` now to be entered."

    async def checkin(self, league_id: int, player_id: str) -> LeaguePlayerRecord:
        now = self.now_ms()
        async with self.store.write() as s:
            q = LeagueQueries(s)
            league = await self._league(q, league_id, lock=True)
            if league.status != "signup":
                raise WrongStateError(f"{league.name} is not waiting for check-in.")
            player = await q.get_player(league_id, player_id)
            if player is None:
                raise LeagueActionError(f"You are not signed up for {league.name}.")
            if league.checkin_opens_at is None:
                raise LeagueActionError(f"{league.name} needs no check-in: you are in.")
            if now < league.checkin_opens_at:
                raise LeagueActionError(
                    f"Check-in for {league.name} opens <t:{league.checkin_opens_at // 1000}:R>."
                )
            if league.checkin_closes_at is not None and now >= league.checkin_closes_at:
                raise LeagueActionError(f"Check-in for {league.name} has closed.")
            if player.checked_in_at is not None:
                raise LeagueActionError(f"You have already checked in for {league.name}.")
            await q.update_player(league_id, player_id, checked_in_at=now)
            player = await q.get_player(league_id, player_id)
        assert player is not None
        return player

    async def start(
        self, league_id: int, *, by: str, moderator: bool
    ) -> tuple[LeagueRecord, list[str]]:
        """Close sign-up, seed the field by rating, open round one. Returns the league and the
        names of players dropped for not checking in."""
        if not moderator:
            raise NotAllowedError("Only a moderator can start a league.")
        _, dropped = await self._start(league_id, by)
        async with self._step_lock:
            await self._advance(league_id, StepReport())
        return await self.get_league(league_id), dropped

    async def _start(self, league_id: int, by: str) -> tuple[LeagueRecord, list[str]]:
        now = self.now_ms()
        async with self.store.write() as s:
            q = LeagueQueries(s)
            league = await self._league(q, league_id, lock=True)
            if league.status != "signup":
                raise WrongStateError(f"{league.name} has already started.")
            players = await q.list_players(league_id)
            dropped: list[str] = []
            if league.checkin_opens_at is not None:
                for p in players:
                    if p.checked_in_at is None:
                        await q.delete_player(league_id, p.player_id)
                        dropped.append(p.name)
                players = [p for p in players if p.checked_in_at is not None]
            if len(players) < 2:
                raise LeagueActionError(
                    f"{league.name} needs at least two players to start; it has {len(players)}."
                )
            ratings = {r.player_id: r for r in await q.list_ratings(league.guild_id)}

            def strength(p: LeaguePlayerRecord) -> tuple[int, int, str]:
                r = ratings.get(p.player_id)
                rating = NEW_PLAYER if r is None else Rating(r.mu, r.sigma, r.games)
                return (-rating.display, p.signed_up_at, p.player_id)

            for seed, p in enumerate(sorted(players, key=strength), start=1):
                r = ratings.get(p.player_id)
                await q.update_player(
                    league_id,
                    p.player_id,
                    seed=seed,
                    start_mu=NEW_PLAYER.mu if r is None else r.mu,
                    start_sigma=NEW_PLAYER.sigma if r is None else r.sigma,
                )
            rounds = league.rounds or _default_rounds(league.format, len(players))
            # More Swiss rounds than opponents would force a repeat pairing.
            most = (
                round_robin_rounds(len(players))
                if league.format == "round_robin"
                else (len(players) - 1)
            )
            rounds = max(1, min(rounds, most))
            await q.update_league(
                league_id, status="running", rounds=rounds, started_at=now, current_round=0
            )
            league = await self._league(q, league_id)
            season = await self._season(q, league)
            lines = [
                f"**{league.name}** has started: {len(players)} players, {rounds} rounds "
                f"({league.format.replace('_', '-')}), a new round every "
                f"{league.round_seconds // 3600}h.",
                "Seeds: " + ", ".join(f"{e.seed}. {e.name}" for e in season.entrants()),
            ]
            if dropped:
                lines.append("Not checked in, so not entered: " + ", ".join(dropped))
            await self._announce(
                s,
                league,
                f"league:{league_id}:started",
                "league_started",
                now,
                text="\n".join(lines),
                started_by=by,
            )
        return league, dropped

    async def join(
        self, league_id: int, player_id: str, name: str, *, deck_id: int | None = None
    ) -> LeaguePlayerRecord:
        """Enter a running Swiss season from the next round on."""
        now = self.now_ms()
        async with self.store.write() as s:
            q = LeagueQueries(s)
            league = await self._league(q, league_id, lock=True)
            if league.status == "signup":
                raise WrongStateError(f"{league.name} has not started; use `/league signup`.")
            if league.status != "running":
                raise WrongStateError(f"{league.name} is over.")
            if league.format != "swiss":
                raise LeagueActionError(
                    "A round-robin's schedule is fixed at the start; join the next season, or "
                    "a Swiss league."
                )
            joined = league.current_round + 1
            if joined > league.rounds:
                raise LeagueActionError(
                    f"{league.name} is in its last round; there is no round left."
                )
            if await q.get_player(league_id, player_id) is not None:
                raise LeagueActionError(f"You are already in {league.name}.")
            await self._check_deck(s, player_id, deck_id)
            players = await q.list_players(league_id)
            seed = max((p.seed or 0 for p in players), default=0) + 1
            rating = await q.get_rating(league.guild_id, player_id)
            await q.insert_player(
                league_id, player_id, name, deck_id=deck_id, now=now, joined_round=joined
            )
            await q.update_player(
                league_id,
                player_id,
                seed=seed,
                start_mu=NEW_PLAYER.mu if rating is None else rating.mu,
                start_sigma=NEW_PLAYER.sigma if rating is None else rating.sigma,
            )
            await q.update_league(league_id)
            player = await q.get_player(league_id, player_id)
        assert player is not None
        return player

    async def withdraw(
        self, league_id: int, player_id: str, *, by: str, moderator: bool = False
    ) -> str:
        """Leave a season. Before the start the sign-up is removed; during the season the
        player is not paired again and an unfinished game of the current round is forfeited.
        Returns a sentence saying what happened."""
        if by != player_id and not moderator:
            raise NotAllowedError("Only a moderator can withdraw another player.")
        now = self.now_ms()
        forfeited: LeagueGameRecord | None = None
        async with self.store.write() as s:
            q = LeagueQueries(s)
            league = await self._league(q, league_id, lock=True)
            player = await q.get_player(league_id, player_id)
            if player is None:
                raise LeagueActionError(f"That player is not in {league.name}.")
            if league.status == "signup":
                await q.delete_player(league_id, player_id)
                await q.update_league(league_id)
                return f"{player.name} is no longer signed up for {league.name}."
            if league.status != "running":
                raise WrongStateError(f"{league.name} is over.")
            if player.withdrawn_from_round is not None:
                raise LeagueActionError(f"{player.name} has already withdrawn from {league.name}.")
            current = league.current_round
            await q.update_player(
                league_id, player_id, withdrawn_from_round=max(current + 1, player.joined_round)
            )
            for game in await q.list_games(league_id, round_no=current):
                if game.outcome is None and player_id in (game.red_id, game.blue_id):
                    outcome = (
                        Outcome.RED_FORFEIT if game.red_id == player_id else Outcome.BLUE_FORFEIT
                    )
                    await q.record_result(
                        league_id,
                        game.round_no,
                        game.board,
                        outcome=outcome.value,
                        detail="withdrew",
                        now=now,
                    )
                    if game.match_id is not None:
                        # The match is conceded below; a forfeit is never rated.
                        await q.mark_rated(game.match_id, league.guild_id, rated=False, now=now)
                    forfeited = game
            await q.update_league(league_id)
            await self._announce(
                s,
                league,
                f"league:{league_id}:withdrawn:{player_id}",
                "league_withdrawal",
                now,
                text=f"{player.name} has withdrawn from {league.name} and will not be paired "
                "again; their results so far still count.",
                player_id=player_id,
            )
        message = f"{player.name} has withdrawn from {league.name}."
        if forfeited is not None:
            message += f" Their round {forfeited.round_no} game is forfeited."
            if forfeited.match_id is not None:
                await self._stop_match(forfeited.match_id, player_id)
        async with self._step_lock:
            await self._advance(league_id, StepReport())
        return message

    async def _stop_match(self, match_id: int, player_id: str) -> None:
        """End a league match whose result the league has already recorded."""
        try:
            match = await self.matches.get_match(match_id)
            if match.status == "open":
                await self.matches.cancel_match(match_id, player_id)
            elif match.status in ("active", "paused"):
                await self.matches.concede(match_id, player_id)
        except ServiceError as exc:
            log.info("league match %s could not be stopped: %s", match_id, exc)

    async def end(self, league_id: int, *, by: str, moderator: bool) -> SeasonSummary:
        """End the season now (moderators); the summary uses every result recorded so far.
        The league's matches that have not started are cancelled."""
        if not moderator:
            raise NotAllowedError("Only a moderator can end a league.")
        async with self.store.write() as s:
            q = LeagueQueries(s)
            league = await self._league(q, league_id, lock=True)
            if league.status in ("ended", "cancelled"):
                raise WrongStateError(f"{league.name} is already over.")
            if league.status == "signup":
                await q.update_league(league_id, status="cancelled", ended_at=self.now_ms())
                season = await self._season(q, await self._league(q, league_id))
                return self._summary(season)
        log.info("league %s ended early by %s", league_id, by)
        summary = await self._finish(league_id, early=True)
        # Matches that never started would wait for players forever; ones in progress play on.
        for game in (await self.season(league_id)).games:
            if game.outcome is None and game.match_id is not None:
                match = await self.matches.get_match(game.match_id)
                if match.status == "open":
                    await self._stop_match(game.match_id, game.red_id)
        return summary

    # --- views ------------------------------------------------------------------------------

    async def pairings(self, league_id: int, round_no: int | None = None) -> str:
        season = await self.season(league_id)
        number = round_no or season.league.current_round
        record = season.round(number) if number else None
        if record is None:
            raise NotFoundError(f"{season.league.name} has no round {number or 1} yet.")
        return record.explanation

    async def standings(self, league_id: int) -> LeagueTable:
        async with self.store.read() as s:
            q = LeagueQueries(s)
            league = await self._league(q, league_id)
            season = await self._season(q, league)
            ratings = {r.player_id: r for r in await q.list_ratings(league.guild_id)}
        standings = season.standings()
        rows = []
        for r in standings.rows:
            rating = ratings.get(r.player_id)
            display = (
                NEW_PLAYER.display if rating is None else Rating(rating.mu, rating.sigma).display
            )
            rows.append(
                TableRow(
                    r.rank,
                    r.player_id,
                    r.name,
                    r.played,
                    r.wins,
                    r.draws,
                    r.losses,
                    r.points,
                    r.sonneborn_berger,
                    display,
                    r.withdrawn,
                )
            )
        return LeagueTable(league, standings, tuple(rows))

    async def schedule(self, league_id: int) -> list[ScheduledGame]:
        season = await self.season(league_id)
        out: list[ScheduledGame] = []
        for rnd in season.rounds:
            for g in season.games_of(rnd.round_no):
                if g.outcome is not None:
                    status = g.detail or "recorded"
                elif g.match_id is None:
                    status = "match being created"
                else:
                    status = f"match #{g.match_id}"
                out.append(
                    ScheduledGame(
                        rnd.round_no,
                        g.board,
                        season.name(g.red_id),
                        season.name(g.blue_id),
                        _result_text(g.outcome),
                        status,
                        g.match_id,
                    )
                )
            for b in season.byes:
                if b.round_no == rnd.round_no:
                    out.append(
                        ScheduledGame(
                            rnd.round_no,
                            None,
                            season.name(b.player_id),
                            None,
                            "bye",
                            b.reason,
                            None,
                        )
                    )
        return out

    def _summary(self, season: Season) -> SeasonSummary:
        start = {
            p.player_id: Rating(p.start_mu, p.start_sigma)
            for p in season.players
            if p.start_mu is not None and p.start_sigma is not None
        }
        return summarize_season(
            season.league.name,
            season.entrants(),
            season.results(),
            season.bye_records(),
            config=season.config,
            turns=season.reliability(),
            start_ratings=start,
        )

    async def summary(self, league_id: int) -> SeasonSummary:
        return self._summary(await self.season(league_id))

    async def profile(self, guild_id: str, player_id: str, name: str) -> Profile:
        async with self.store.read() as s:
            q = LeagueQueries(s)
            record = await q.get_rating(guild_id, player_id)
            tally = await q.turn_tally(player_id, guild_id)
            leagues = await q.leagues_of(guild_id, player_id)
            board = await q.list_ratings(guild_id)
        ranked = self._ranked(board)
        rank = next((r.rank for r in ranked if r.player_id == player_id), None)
        rating = NEW_PLAYER if record is None else Rating(record.mu, record.sigma, record.games)
        return Profile(
            guild_id=guild_id,
            player_id=player_id,
            name=record.name if record is not None and record.name != player_id else name,
            rating=rating,
            wins=0 if record is None else record.wins,
            draws=0 if record is None else record.draws,
            losses=0 if record is None else record.losses,
            reliability=Reliability(tally.turns_played, tally.turns_with_orders),
            rank=rank,
            leagues=tuple(f"{x.name} ({x.status})" for x in leagues),
        )

    @staticmethod
    def _ranked(records: Sequence[RatingRecord]) -> list[LeaderboardRow]:
        rated = [r for r in records if r.games > 0]
        rated.sort(key=lambda r: (-Rating(r.mu, r.sigma).display, -r.games, r.name, r.player_id))
        return [
            LeaderboardRow(
                i + 1,
                r.player_id,
                r.name,
                Rating(r.mu, r.sigma).display,
                r.games,
                r.wins,
                r.draws,
                r.losses,
            )
            for i, r in enumerate(rated)
        ]

    async def leaderboard(self, guild_id: str, limit: int = 20) -> list[LeaderboardRow]:
        async with self.store.read() as s:
            records = await LeagueQueries(s).list_ratings(guild_id)
        return self._ranked(records)[:limit]

    # --- the step ---------------------------------------------------------------------------

    async def step(self) -> StepReport:
        """Do whatever is due in every league; safe to run at any time, as often as wanted."""
        report = StepReport()
        async with self._step_lock:
            now = self.now_ms()
            async with self.store.read() as s:
                q = LeagueQueries(s)
                waiting = await q.list_leagues(statuses=["signup"])
                running = await q.list_leagues(statuses=["running"])
            for league in waiting:
                if league.starts_at is not None and league.starts_at <= now:
                    try:
                        await self._start(league.id, "schedule")
                    except ServiceError as exc:
                        await self._refuse_scheduled_start(league, str(exc))
                        continue
                    report.started.append(league.id)
                    running.append(league)
            for league in running:
                try:
                    await self._advance(league.id, report)
                except Exception:
                    log.exception("league %s: step failed; the next step retries", league.id)
            try:
                report.rated_matches = await self.rate_finished_matches()
            except Exception:
                log.exception("rating finished matches failed; the next step retries")
        return report

    async def record_match_end(self, ended: MatchEnded) -> bool:
        """Record the league result of a match that has just ended (a `MatchService` end
        listener); True when recorded now. The step records any result this misses, and
        `record_result` keeps a game's first result, so each is recorded once either way."""
        async with self.store.read() as s:
            q = LeagueQueries(s)
            game = await q.game_for_match(ended.match_id)
            if game is None or game.outcome is not None:
                return False
            league = await self._league(q, game.league_id)
            if league.status != "running":
                return False
            season = await self._season(q, league)
            linked = [x for x in await q.pending_linked(league.id) if x.game == game]
        if not linked or linked[0].status != "ended":
            return False
        outcome, detail = _outcome_for(game, linked[0])
        report = StepReport()
        await self._record(season, game, outcome, detail=detail, item=linked[0], report=report)
        return bool(report.recorded)

    async def _refuse_scheduled_start(self, league: LeagueRecord, reason: str) -> None:
        now = self.now_ms()
        async with self.store.write() as s:
            q = LeagueQueries(s)
            await q.update_league(league.id, starts_at=None)
            await self._announce(
                s,
                league,
                f"league:{league.id}:start_failed:{league.starts_at}",
                "league_notice",
                now,
                text=f"{league.name} could not start at its scheduled time: {reason}",
            )

    async def _advance(self, league_id: int, report: StepReport) -> None:
        for _ in range(MAX_ROUNDS + 2):
            season = await self.season(league_id)
            league = season.league
            if league.status != "running":
                return
            current = league.current_round
            if current >= 1 and not season.round_complete(current):
                await self._tend_round(season, report)
                season = await self.season(league_id)
                if not season.round_complete(current):
                    return
            if current >= 1:
                await self._complete_round(season, current, report)
            if current >= league.rounds:
                await self._finish(league_id, early=False)
                report.ended.append(league_id)
                return
            due = season.scheduled_open(current + 1)
            if due is None or self.now_ms() < due:
                return
            if await self._open_round(season, current + 1, report) is _Opening.NOT_OPENED:
                return

    async def _open_round(self, season: Season, round_no: int, report: StepReport) -> _Opening:
        """Pair round `round_no` from `season` and open it, unless the league changed since
        `season` was read (a join or withdrawal committed meanwhile): then nothing is written
        and `_advance` pairs again from a fresh read."""
        league = season.league
        entrants = season.entrants()
        # Pairing a large Swiss field late in a season is CPU-heavy; off the event loop the
        # bot keeps answering while it runs. The functions are pure, so the result is the same.
        try:
            if league.format == "round_robin":
                pairing: RoundPairing = await asyncio.to_thread(
                    round_robin_round, entrants, round_no
                )
            else:
                pairing = await asyncio.to_thread(
                    pair_swiss_round,
                    round_no,
                    entrants,
                    season.results(),
                    season.bye_records(),
                    season.config,
                )
        except LeagueError as exc:
            # PairingError (no pairing without a repeat) among others: the organisers decide.
            await self._blocked(league, round_no, str(exc))
            report.blocked.append((league.id, round_no))
            return _Opening.NOT_OPENED
        now = self.now_ms()
        start_deadline = now + league.start_seconds * 1000
        text = pairing.to_text()
        async with self.store.write() as s:
            q = LeagueQueries(s)
            locked = await self._league(q, league.id, lock=True)
            if locked.status != "running" or locked.current_round != round_no - 1:
                return _Opening.NOT_OPENED
            if locked.version != league.version:
                return _Opening.STALE
            try:
                await q.insert_round(
                    league.id, round_no, opened_at=now, start_deadline=start_deadline, text=text
                )
            except ConflictError:
                return _Opening.NOT_OPENED
            for p in pairing.pairings:
                await q.insert_game(league.id, round_no, p.board, p.red, p.blue)
            reasons = {b.player_id: b.reason for b in pairing.explanation.byes}
            for player_id in pairing.byes:
                await q.insert_bye(
                    league.id, round_no, player_id, reasons.get(player_id, "no opponent")
                )
            if not await q.update_league(
                league.id, expect_version=locked.version, current_round=round_no
            ):
                raise WrongStateError(f"{league.name} changed while opening round {round_no}.")
            await self._announce(
                s,
                league,
                f"league:{league.id}:round:{round_no}:opened",
                "league_round_opened",
                now,
                round_no=round_no,
                start_deadline=start_deadline,
                text=f"**{league.name}**: round {round_no} of {league.rounds} is open. Choose a "
                f"deck in your match thread; matches not started <t:{start_deadline // 1000}:R> "
                f"are forfeited.\n```\n{text}\n```",
            )
        report.opened.append((league.id, round_no))
        log.info("league %s: round %s opened", league.id, round_no)
        return _Opening.OPENED

    async def _blocked(self, league: LeagueRecord, round_no: int, reason: str) -> None:
        async with self.store.write() as s:
            await self._announce(
                s,
                league,
                f"league:{league.id}:round:{round_no}:blocked",
                "league_notice",
                self.now_ms(),
                text=f"{league.name}: round {round_no} cannot be paired ({reason}). A moderator "
                "can end the league with `/league end`.",
            )

    async def _tend_round(self, season: Season, report: StepReport) -> None:
        """Create missing matches, start ready ones, remind, forfeit, record results."""
        league = season.league
        rnd = season.round(league.current_round)
        assert rnd is not None
        # A second pass re-creates a match that the first pass found cancelled too early.
        for _ in range(2):
            async with self.store.read() as s:
                games = await LeagueQueries(s).list_games(league.id, round_no=rnd.round_no)
            for game in games:
                if game.outcome is None and game.match_id is None:
                    created = await self._ensure_match(season, rnd, game)
                    if created is not None:
                        report.matches_created.append(created)
            async with self.store.read() as s:
                linked = await LeagueQueries(s).pending_linked(league.id)
            now = self.now_ms()
            unlinked = False
            for item in linked:
                if item.game.round_no == rnd.round_no:
                    unlinked |= await self._tend_game(season, rnd, item, now, report)
            if not unlinked:
                return

    async def _ensure_match(
        self, season: Season, rnd: LeagueRoundRecord, game: LeagueGameRecord
    ) -> int | None:
        """Create the game's match, or adopt the one an interrupted step created: open, made
        since the round opened, between these players in this order, with the league's rules."""
        league = season.league
        decks = {p.player_id: p.deck_id for p in season.players}
        adopted: int | None = None
        for match in await self.matches.list_matches(
            player_id=game.red_id, guild_id=league.guild_id, statuses=["open"]
        ):
            players = tuple(seat.player_id for seat in match.seats)
            if (
                players == (game.red_id, game.blue_id)
                and match.created_at >= rnd.opened_at
                and match.channel_id == league.channel_id
                and (match.ruleset, match.realm, match.turn_seconds, match.no_show_limit)
                == (league.ruleset, league.realm, league.turn_seconds, league.no_show_limit)
            ):
                async with self.store.read() as s:
                    if await LeagueQueries(s).game_for_match(match.id) is None:
                        adopted = match.id
                        break
        if adopted is None:
            red_deck = decks.get(game.red_id)
            kwargs: dict[str, Any] = {
                "opponent_id": game.blue_id,
                "ruleset": league.ruleset,
                "realm": league.realm,
                "turn_seconds": league.turn_seconds,
                "no_show_limit": league.no_show_limit,
                "guild_id": league.guild_id,
                "channel_id": league.channel_id,
                "seed": _seed_with_red_first(secrets.randbits(62)),
            }
            try:
                match = await self.matches.create_match(game.red_id, deck_id=red_deck, **kwargs)
            except ServiceError:
                match = await self.matches.create_match(game.red_id, **kwargs)
            adopted = match.id
        async with self.store.write() as s:
            linked = await LeagueQueries(s).link_match(
                league.id, game.round_no, game.board, adopted
            )
        if not linked:
            async with self.store.read() as s:
                owner = await LeagueQueries(s).game_for_match(adopted)
            if owner is None:
                await self._stop_match(adopted, game.red_id)
            return None
        blue_deck = decks.get(game.blue_id)
        if blue_deck is not None:
            try:
                await self.matches.choose_deck(adopted, game.blue_id, blue_deck)
            except ServiceError as exc:
                log.info("league match %s: blue's league deck not used: %s", adopted, exc)
        return adopted

    async def _tend_game(
        self,
        season: Season,
        rnd: LeagueRoundRecord,
        item: LinkedMatch,
        now: int,
        report: StepReport,
    ) -> bool:
        """Move one game on; True when its match was detached to be made again."""
        game = item.game
        assert game.match_id is not None
        if item.status == "ended":
            outcome, detail = _outcome_for(game, item)
            await self._record(season, game, outcome, detail=detail, item=item, report=report)
            return False
        missing = [seat.player_id for seat in item.seats if not seat.has_deck]
        if item.status == "cancelled":
            if now < rnd.start_deadline:
                async with self.store.write() as s:
                    await LeagueQueries(s).unlink_match(
                        game.league_id, game.round_no, game.board, game.match_id
                    )
                return True
            await self._forfeit_unstarted(season, game, missing, item, report)
            return False
        if item.status != "open":
            return False
        if not missing:
            try:
                await self.matches.start_match(game.match_id, game.red_id)
                report.matches_started.append(game.match_id)
            except ServiceError as exc:
                log.info("league match %s did not start: %s", game.match_id, exc)
            return False
        if now >= rnd.start_deadline:
            await self._stop_match(game.match_id, game.red_id)
            await self._forfeit_unstarted(season, game, missing, item, report)
            return False
        due = [p for p in self.reminders if rnd.start_deadline - p * 1000 <= now]
        if not due:
            return False
        point = min(due)
        async with self.store.write() as s:
            for player_id in missing:
                if player_id is None:
                    continue
                added = await s.add_outbox(
                    f"league:{game.league_id}:round:{game.round_no}:board:{game.board}:"
                    f"remind:{player_id}:{point}",
                    match_id=None,
                    kind="league_reminder",
                    recipient=player_id,
                    payload={
                        "league_id": game.league_id,
                        "guild_id": season.league.guild_id,
                        "channel_id": season.league.channel_id,
                        "match_id": game.match_id,
                        "round_no": game.round_no,
                        "start_deadline": rnd.start_deadline,
                        "text": f"{season.league.name}, round {game.round_no}: choose a deck for "
                        f"match #{game.match_id} (`/match deck`) before "
                        f"<t:{rnd.start_deadline // 1000}:f>, or the game is forfeited.",
                    },
                    now=now,
                )
                report.reminders += int(added)
        return False

    async def _forfeit_unstarted(
        self,
        season: Season,
        game: LeagueGameRecord,
        missing: Sequence[str | None],
        item: LinkedMatch,
        report: StepReport,
    ) -> None:
        red_missing = game.red_id in missing
        blue_missing = game.blue_id in missing
        if red_missing == blue_missing:
            outcome = Outcome.DOUBLE_FORFEIT
        elif red_missing:
            outcome = Outcome.RED_FORFEIT
        else:
            outcome = Outcome.BLUE_FORFEIT
        await self._record(
            season, game, outcome, detail="not started by the deadline", item=item, report=report
        )

    async def _record(
        self,
        season: Season,
        game: LeagueGameRecord,
        outcome: Outcome,
        *,
        detail: str,
        item: LinkedMatch | None,
        report: StepReport,
    ) -> None:
        """Record a result once, and rate it in the same transaction when it was played."""
        now = self.now_ms()
        turns = {"red": (0, 0), "blue": (0, 0)}
        if item is not None:
            for seat in item.seats:
                if seat.player_id == game.red_id:
                    turns["red"] = (item.turns, seat.turns_with_orders)
                elif seat.player_id == game.blue_id:
                    turns["blue"] = (item.turns, seat.turns_with_orders)
        league = season.league
        async with self.store.write() as s:
            q = LeagueQueries(s)
            if not await q.record_result(
                game.league_id,
                game.round_no,
                game.board,
                outcome=outcome.value,
                detail=detail,
                red_turns=turns["red"][0],
                red_turns_with_orders=turns["red"][1],
                blue_turns=turns["blue"][0],
                blue_turns_with_orders=turns["blue"][1],
                now=now,
            ):
                return
            counted = game.match_id is None or await q.mark_rated(
                game.match_id, league.guild_id, rated=not outcome.is_forfeit, now=now
            )
            if counted and not outcome.is_forfeit:
                await self._rate(
                    q,
                    league.guild_id,
                    game.red_id,
                    game.blue_id,
                    outcome=outcome,
                    names={p.player_id: p.name for p in season.players},
                    now=now,
                )
            await self._announce(
                s,
                league,
                f"league:{league.id}:round:{game.round_no}:board:{game.board}:result",
                "league_result",
                now,
                round_no=game.round_no,
                match_id=game.match_id,
                text=f"{league.name}, round {game.round_no}: {season.name(game.red_id)} "
                f"{_result_text(outcome.value)} {season.name(game.blue_id)} ({detail}).",
            )
        report.recorded.append((game.league_id, game.round_no, game.board, outcome.value))

    @staticmethod
    async def _rate(
        q: LeagueQueries,
        guild_id: str,
        red_id: str,
        blue_id: str,
        *,
        outcome: Outcome,
        names: Mapping[str, str],
        now: int,
    ) -> None:
        records = {pid: await q.get_rating(guild_id, pid, lock=True) for pid in (red_id, blue_id)}
        before = {
            pid: NEW_PLAYER if r is None else Rating(r.mu, r.sigma, r.games)
            for pid, r in records.items()
        }
        red, blue = rate_game(before[red_id], before[blue_id], outcome)
        points = {red_id: outcome.red_points, blue_id: outcome.blue_points}
        for pid, new in ((red_id, red), (blue_id, blue)):
            old = records[pid]
            opponent = blue_id if pid == red_id else red_id
            mine, theirs = points[pid], points[opponent]
            name = names.get(pid) or (old.name if old is not None else pid)
            await q.put_rating(
                RatingRecord(
                    guild_id=guild_id,
                    player_id=pid,
                    name=name,
                    mu=new.mu,
                    sigma=new.sigma,
                    games=new.games,
                    wins=(0 if old is None else old.wins) + int(mine > theirs),
                    draws=(0 if old is None else old.draws) + int(mine == theirs),
                    losses=(0 if old is None else old.losses) + int(mine < theirs),
                    updated_at=now,
                )
            )

    async def rate_finished_matches(self, *, batch: int = 200) -> int:
        """Rate every ended match outside the leagues once (league games are rated when the
        league records them). Forfeits and abandoned matches are counted but not rated."""
        rated = 0
        while True:
            async with self.store.read() as s:
                pending = await LeagueQueries(s).unrated_matches(batch)
            if not pending:
                return rated
            now = self.now_ms()
            async with self.store.write() as s:
                q = LeagueQueries(s)
                for match in pending:
                    sides = {x.side: x.player_id for x in match.seats}
                    red, blue = sides.get("red"), sides.get("blue")
                    played = (
                        red is not None
                        and blue is not None
                        and match.end_reason not in ("forfeit", "abandoned")
                    )
                    if not await q.mark_rated(
                        match.match_id, match.guild_id, rated=played, now=now
                    ):
                        continue
                    if not played:
                        continue
                    assert red is not None and blue is not None
                    if match.winner is None:
                        outcome = Outcome.DRAW
                    else:
                        outcome = Outcome.RED_WIN if match.winner == "red" else Outcome.BLUE_WIN
                    await self._rate(
                        q, match.guild_id, red, blue, outcome=outcome, names={}, now=now
                    )
                    rated += 1

    async def _complete_round(self, season: Season, round_no: int, report: StepReport) -> None:
        league = season.league
        now = self.now_ms()
        async with self.store.write() as s:
            q = LeagueQueries(s)
            if not await q.complete_round(league.id, round_no, now):
                return
            fresh = await self._season(q, await self._league(q, league.id))
            standings = compute_standings(
                fresh.entrants(),
                fresh.results(),
                fresh.bye_records(),
                fresh.config,
                through_round=round_no,
            )
            await self._announce(
                s,
                league,
                f"league:{league.id}:round:{round_no}:standings",
                "league_standings",
                now,
                round_no=round_no,
                rows=list(standings.to_records()),
                title=f"{league.name}: standings after round {round_no}",
                text=f"```\n{standings.to_text()}\n```",
            )
        report.completed.append((league.id, round_no))

    async def _finish(self, league_id: int, *, early: bool) -> SeasonSummary:
        now = self.now_ms()
        async with self.store.write() as s:
            q = LeagueQueries(s)
            league = await self._league(q, league_id, lock=True)
            if league.status == "running":
                await q.update_league(league_id, status="ended", ended_at=now)
            season = await self._season(q, await self._league(q, league_id))
            summary = self._summary(season)
            await self._announce(
                s,
                league,
                f"league:{league_id}:ended",
                "league_ended",
                now,
                rows=list(summary.standings.to_records()),
                title=f"{league.name}: final standings",
                early=early,
                text=f"```\n{summary.to_text()}\n```",
            )
        return summary

    # --- the alarm's view -------------------------------------------------------------------

    async def next_wake(self) -> int | None:
        """The next moment (ms) at which `step()` has something to do that no event triggers."""
        now = self.now_ms()
        moments: list[int] = []
        async with self.store.read() as s:
            q = LeagueQueries(s)
            for league in await q.list_leagues(statuses=["signup"]):
                if league.starts_at is not None:
                    moments.append(league.starts_at)
            for league in await q.list_leagues(statuses=["running"]):
                season = await self._season(q, league)
                nxt = season.scheduled_open(league.current_round + 1)
                if nxt is not None and league.current_round < league.rounds:
                    moments.append(nxt)
                rnd = season.round(league.current_round)
                if rnd is not None and not season.round_complete(rnd.round_no):
                    moments.append(rnd.start_deadline)
                    moments.extend(rnd.start_deadline - p * 1000 for p in self.reminders)
        future = [m for m in moments if m > now]
        return min(future) if future else None

    # --- announcements ----------------------------------------------------------------------

    @staticmethod
    async def _announce(
        s: Session, league: LeagueRecord, key: str, kind: str, now: int, **payload: Any
    ) -> None:
        await s.add_outbox(
            key,
            match_id=None,
            kind=kind,
            recipient=None,
            payload={
                "league_id": league.id,
                "league": league.name,
                "guild_id": league.guild_id,
                "channel_id": league.channel_id,
                **payload,
            },
            now=now,
        )
