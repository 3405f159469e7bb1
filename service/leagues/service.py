"""League seasons over the database: sign-up to summary, rounds on a schedule, results, ratings.

`LeagueService` is the one object the cogs and the league alarm use; it hands each call to the
part that does it:

- `settings`: what a moderator chooses for a season, and its checks;
- `commands`: creating, configuring, signing up, checking in, starting, joining, withdrawing,
  ending;
- `step`: the round state machine (read its docstring for why every step is safe to repeat);
- `results`: recording a game's result once, and the ratings;
- `views`: the season as read in one transaction, and the read models the cogs show;
- `announce`: the league's announcements, as data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.clock import Clock
from service.leagues.commands import LeagueCommands
from service.leagues.context import LeagueContext
from service.leagues.settings import DEFAULT_REMINDERS, LeagueActionError, LeagueSettings
from service.leagues.step import Stepper, StepReport
from service.leagues.summary import SeasonSummary
from service.leagues.views import (
    LeaderboardRow,
    LeagueTable,
    LeagueViews,
    Profile,
    ScheduledGame,
    Season,
    TableRow,
)
from service.matches import MatchEnded, MatchService
from storage import Store
from storage.leagues import LeaguePlayerRecord, LeagueRecord

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


class LeagueService:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        matches: MatchService,
        *,
        reminders: Sequence[int] = DEFAULT_REMINDERS,
    ) -> None:
        points = tuple(sorted(set(reminders), reverse=True))
        self._ctx = LeagueContext(store, clock, matches, points)
        self._views = LeagueViews(self._ctx)
        self._stepper = Stepper(self._ctx, self._views)
        self._commands = LeagueCommands(self._ctx, self._views, self._stepper)

    @property
    def store(self) -> Store:
        return self._ctx.store

    @store.setter
    def store(self, store: Store) -> None:
        self._ctx.store = store

    @property
    def clock(self) -> Clock:
        return self._ctx.clock

    @property
    def matches(self) -> MatchService:
        return self._ctx.matches

    @property
    def reminders(self) -> tuple[int, ...]:
        return self._ctx.reminders

    def now_ms(self) -> int:
        return self._ctx.now_ms()

    # --- reading ----------------------------------------------------------------------------

    async def season(self, league_id: int) -> Season:
        return await self._views.season(league_id)

    async def get_league(self, league_id: int) -> LeagueRecord:
        return await self._views.get_league(league_id)

    async def find_league(self, guild_id: str, name: str) -> LeagueRecord:
        return await self._views.find_league(guild_id, name)

    async def list_leagues(
        self, guild_id: str, statuses: Sequence[str] | None = None
    ) -> list[LeagueRecord]:
        return await self._views.list_leagues(guild_id, statuses)

    async def pairings(self, league_id: int, round_no: int | None = None) -> str:
        return await self._views.pairings(league_id, round_no)

    async def standings(self, league_id: int) -> LeagueTable:
        return await self._views.standings(league_id)

    async def schedule(self, league_id: int) -> list[ScheduledGame]:
        return await self._views.schedule(league_id)

    async def summary(self, league_id: int) -> SeasonSummary:
        return await self._views.summary(league_id)

    async def profile(self, guild_id: str, player_id: str, name: str) -> Profile:
        return await self._views.profile(guild_id, player_id, name)

    async def leaderboard(self, guild_id: str, limit: int = 20) -> list[LeaderboardRow]:
        return await self._views.leaderboard(guild_id, limit)

    # --- commands ---------------------------------------------------------------------------

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
        return await self._commands.create_league(
            guild_id=guild_id,
            channel_id=channel_id,
            name=name,
            by=by,
            moderator=moderator,
            settings=settings,
        )

    async def configure(
        self, league_id: int, *, by: str, moderator: bool, **changes: Any
    ) -> LeagueRecord:
        return await self._commands.configure(league_id, by=by, moderator=moderator, **changes)

    async def signup(
        self, league_id: int, player_id: str, name: str, *, deck_id: int | None = None
    ) -> LeaguePlayerRecord:
        return await self._commands.signup(league_id, player_id, name, deck_id=deck_id)

    def checkin_hint(self, league: LeagueRecord, player: LeaguePlayerRecord) -> str:
        return self._commands.checkin_hint(league, player)

    async def checkin(self, league_id: int, player_id: str) -> LeaguePlayerRecord:
        return await self._commands.checkin(league_id, player_id)

    async def start(
        self, league_id: int, *, by: str, moderator: bool
    ) -> tuple[LeagueRecord, list[str]]:
        return await self._commands.start(league_id, by=by, moderator=moderator)

    async def join(
        self, league_id: int, player_id: str, name: str, *, deck_id: int | None = None
    ) -> LeaguePlayerRecord:
        return await self._commands.join(league_id, player_id, name, deck_id=deck_id)

    async def withdraw(
        self, league_id: int, player_id: str, *, by: str, moderator: bool = False
    ) -> str:
        return await self._commands.withdraw(league_id, player_id, by=by, moderator=moderator)

    async def end(self, league_id: int, *, by: str, moderator: bool) -> SeasonSummary:
        return await self._commands.end(league_id, by=by, moderator=moderator)

    # --- the step ---------------------------------------------------------------------------

    async def step(self) -> StepReport:
        return await self._stepper.step()

    async def record_match_end(self, ended: MatchEnded) -> bool:
        return await self._stepper.record_match_end(ended)

    async def rate_finished_matches(self, *, batch: int = 200) -> int:
        return await self._stepper.results.rate_finished_matches(batch=batch)

    async def next_wake(self) -> int | None:
        return await self._stepper.next_wake()
