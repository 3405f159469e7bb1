"""A league service on a real database with a manual clock, and players who act through the
match service the way the bot would make them act."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from cogs.league_posts import league_text
from engine.content import load_content
from service.announcements import LeagueEnded, decode
from service.clock import ManualClock
from service.decks import DeckService, check_deck
from service.leagues.service import LeagueService, LeagueSettings, StepReport
from service.matches import MatchService
from storage import OutboxRecord, Store
from storage.leagues import LeagueGameRecord, LeagueQueries
from tests.storage.backends import database_url

START = datetime(2031, 3, 3, 12, 0, tzinfo=UTC)
HOUR = 3600
DAY = 24 * HOUR


@cache
def deck_spells() -> tuple[str, ...]:
    """Thirty spells of the war house that pass the deck rules (the rules decide which)."""
    content = load_content()
    war = sorted(s.id for s in content.spells.values() if s.house == "war")
    refused = {p.spell_id for p in check_deck("war", war, content).problems if p.spell_id}
    spells = tuple(spell for spell in war if spell not in refused for _ in range(4))[:30]
    assert check_deck("war", spells, content).ok
    return spells


@dataclass
class Harness:
    store: Store
    clock: ManualClock
    matches: MatchService
    decks: DeckService
    leagues: LeagueService
    guild: str = "guild-1"
    channel: str = "league-channel"

    async def deck(self, player_id: str) -> int:
        owned = await self.decks.list_decks(player_id)
        name = f"deck {len(owned) + 1}"
        record = await self.decks.create_deck(player_id, name, "war", deck_spells())
        return record.id

    async def create(self, name: str = "Spring", **settings: object) -> int:
        league = await self.leagues.create_league(
            guild_id=self.guild,
            channel_id=self.channel,
            name=name,
            by="mod",
            moderator=True,
            settings=LeagueSettings(**settings),  # type: ignore[arg-type]
        )
        return league.id

    async def sign_up(self, league_id: int, players: str, *, decks: bool = True) -> None:
        """Each letter a player (id `p<letter>`, name the upper-case letter), in that order."""
        for letter in players:
            pid = f"p{letter}"
            deck = await self.deck(pid) if decks else None
            await self.leagues.signup(league_id, pid, letter.upper(), deck_id=deck)
            self.clock.advance(1)

    async def advance(self, seconds: float) -> StepReport:
        """Let time pass: deadlines resolve (the match alarm's job), then the league step."""
        self.clock.advance(seconds)
        await self.matches.run_due()
        return await self.leagues.step()

    async def games(self, league_id: int, round_no: int) -> list[LeagueGameRecord]:
        async with self.store.read() as s:
            return await LeagueQueries(s).list_games(league_id, round_no=round_no)

    async def game_between(self, league_id: int, round_no: int, a: str, b: str) -> LeagueGameRecord:
        for game in await self.games(league_id, round_no):
            if {game.red_id, game.blue_id} == {a, b}:
                return game
        raise AssertionError(f"{a} and {b} do not meet in round {round_no}")

    async def concede(self, league_id: int, round_no: int, winner: str, loser: str) -> None:
        game = await self.game_between(league_id, round_no, winner, loser)
        assert game.match_id is not None
        await self.matches.concede(game.match_id, loser)

    async def draw(self, league_id: int, round_no: int, a: str, b: str) -> None:
        game = await self.game_between(league_id, round_no, a, b)
        assert game.match_id is not None
        await self.matches.offer_draw(game.match_id, a)
        await self.matches.accept_draw(game.match_id, b)

    async def outbox(self, kind: str | None = None) -> list[OutboxRecord]:
        async with self.store.read() as s:
            return await s.list_outbox(kind=kind)

    async def texts(self, kind: str) -> list[str]:
        """What the league's announcements of `kind` say, worded as the bot posts them."""
        out: list[str] = []
        for row in await self.outbox(kind):
            told = decode(row)
            summary = None
            if isinstance(told, LeagueEnded):
                summary = await self.leagues.summary(told.league_id)
            out.append(league_text(told, summary))
        return out


@asynccontextmanager
async def harness(backend: str, tmp_path: Path) -> AsyncIterator[Harness]:
    async with database_url(backend, tmp_path) as url:
        store = await Store.open(url)
        try:
            clock = ManualClock(START)
            matches = MatchService(store, clock)
            yield Harness(
                store=store,
                clock=clock,
                matches=matches,
                decks=DeckService(store, clock),
                leagues=LeagueService(store, clock, matches),
            )
        finally:
            await store.close()
