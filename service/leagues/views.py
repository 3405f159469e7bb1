"""What the league service shows: the season as read in one transaction, and the read models
of tables, schedules, profiles and leaderboards (data; the cogs word them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.errors import NotFoundError
from service.leagues.context import LeagueContext
from service.leagues.ratings import NEW_PLAYER, Rating, Reliability
from service.leagues.records import Bye, Entrant, Game, Outcome, ScoringConfig
from service.leagues.standings import Standings, compute_standings
from service.leagues.summary import SeasonSummary, summarize_season
from storage.leagues import (
    LeagueByeRecord,
    LeagueGameRecord,
    LeaguePlayerRecord,
    LeagueQueries,
    LeagueRecord,
    LeagueRoundRecord,
    RatingRecord,
)
from storage.records import LeagueStatus


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
        through = self.completed_round() if self.league.status == LeagueStatus.RUNNING else None
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
        if self.league.status == LeagueStatus.RUNNING and current > done:
            label += f"; round {current} in progress"
        return label


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


def result_text(outcome: str | None) -> str:
    """A game's result as a score, red first (`1-0`, `½-½`, `0-1 (forfeit)`)."""
    return {
        None: "",
        "red_win": "1-0",
        "blue_win": "0-1",
        "draw": "½-½",
        "red_forfeit": "0-1 (forfeit)",
        "blue_forfeit": "1-0 (forfeit)",
        "double_forfeit": "0-0 (both forfeit)",
    }[outcome]


async def load_league(q: LeagueQueries, league_id: int, *, lock: bool = False) -> LeagueRecord:
    league = await q.get_league(league_id, lock=lock)
    if league is None:
        raise NotFoundError(f"There is no league #{league_id}.")
    return league


async def load_season(q: LeagueQueries, league: LeagueRecord) -> Season:
    return Season(
        league,
        tuple(await q.list_players(league.id)),
        tuple(await q.list_rounds(league.id)),
        tuple(await q.list_games(league.id)),
        tuple(await q.list_byes(league.id)),
    )


def season_summary(season: Season) -> SeasonSummary:
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


def rank_ratings(records: Sequence[RatingRecord]) -> list[LeaderboardRow]:
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


class LeagueViews:
    def __init__(self, ctx: LeagueContext) -> None:
        self.ctx = ctx

    async def season(self, league_id: int) -> Season:
        async with self.ctx.store.read() as s:
            q = LeagueQueries(s)
            return await load_season(q, await load_league(q, league_id))

    async def get_league(self, league_id: int) -> LeagueRecord:
        async with self.ctx.store.read() as s:
            return await load_league(LeagueQueries(s), league_id)

    async def find_league(self, guild_id: str, name: str) -> LeagueRecord:
        async with self.ctx.store.read() as s:
            league = await LeagueQueries(s).get_league_by_name(guild_id, name.strip())
        if league is None:
            raise NotFoundError(f"This server has no league named {name!r}.")
        return league

    async def list_leagues(
        self, guild_id: str, statuses: Sequence[str] | None = None
    ) -> list[LeagueRecord]:
        async with self.ctx.store.read() as s:
            return await LeagueQueries(s).list_leagues(guild_id=guild_id, statuses=statuses)

    async def pairings(self, league_id: int, round_no: int | None = None) -> str:
        season = await self.season(league_id)
        number = round_no or season.league.current_round
        record = season.round(number) if number else None
        if record is None:
            raise NotFoundError(f"{season.league.name} has no round {number or 1} yet.")
        return record.explanation

    async def standings(self, league_id: int) -> LeagueTable:
        async with self.ctx.store.read() as s:
            q = LeagueQueries(s)
            league = await load_league(q, league_id)
            season = await load_season(q, league)
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
                        result_text(g.outcome),
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

    async def summary(self, league_id: int) -> SeasonSummary:
        return season_summary(await self.season(league_id))

    async def profile(self, guild_id: str, player_id: str, name: str) -> Profile:
        async with self.ctx.store.read() as s:
            q = LeagueQueries(s)
            record = await q.get_rating(guild_id, player_id)
            tally = await q.turn_tally(player_id, guild_id)
            leagues = await q.leagues_of(guild_id, player_id)
            board = await q.list_ratings(guild_id)
        ranked = rank_ratings(board)
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

    async def leaderboard(self, guild_id: str, limit: int = 20) -> list[LeaderboardRow]:
        async with self.ctx.store.read() as s:
            records = await LeagueQueries(s).list_ratings(guild_id)
        return rank_ratings(records)[:limit]
