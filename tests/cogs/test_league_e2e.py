"""A six-player league through Discord: the unmodified discord.py bot with the league cog, in the
sandbox, driven by scripted players with slash commands.

The league commands go through Discord (create, sign-up, start, withdraw, pairings, standings,
profile, leaderboard) and the announcements through the outbox into the league channel. The
games themselves are played through the match service, as the match commands would play them,
and time is a manual clock: the test moves it and runs the league step that the alarm would run.

The season is the one of tests/service/test_league_service_season.py, whose docstring works
the table out by hand (Ada, Bram, Cleo, Dov, Esme, Finn are A to F there):
round 1: Ada beats Dov, Esme forfeits to Bram (no orders for three turns), Cleo draws Finn;
Dov withdraws; round 2: Ada beats Finn, Cleo beats Bram, Esme has the bye; round 3: Ada draws
Bram, Cleo beats Esme, Finn has the bye.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, cast
from zoneinfo import ZoneInfo

import discord
import pytest
from discord.ext import commands

from cogs.errors import ErrorHandlingTree
from cogs.league_posts import (
    LEAGUE_KINDS,
    deliver_league_item,
    find_league_item,
    message_pieces,
)
from cogs.leagues import LeagueCog
from cogs.runtime import Runtime
from engine.content import load_content
from sandbox import Channel, InteractionResult, Sandbox, ScriptedPlayer
from service.clock import ManualClock
from service.decks import DeckService
from service.matches import MatchService
from service.outbox import Outbox
from storage import OutboxRecord, Store
from storage.leagues import LeagueGameRecord, LeagueQueries
from tests.cogs.support import keys_seen
from tests.sandbox.support import running
from tests.service.leagues.harness import DAY, HOUR, START, deck_spells

NAMES = {"a": "Ada", "b": "Bram", "c": "Cleo", "d": "Dov", "e": "Esme", "f": "Finn"}


class LeagueBot(commands.Bot):
    def __init__(self, runtime: Runtime, guild_id: int) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.dm_messages = True
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            tree_cls=ErrorHandlingTree,
            guild_ready_timeout=0.05,
        )
        self.runtime = runtime
        self.guild_id = guild_id

    async def setup_hook(self) -> None:
        await self.load_extension("cogs.leagues")
        guild = discord.Object(id=self.guild_id)
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)


class ToSandbox:
    """The poster's part for league rows: other kinds are not this test's business."""

    def __init__(self, bot: commands.Bot, cog: Callable[[], LeagueCog]) -> None:
        self.bot = bot
        self.cog = cog

    async def find(self, item: OutboxRecord) -> str | None:
        return None

    async def deliver(self, item: OutboxRecord) -> str:
        if item.kind not in LEAGUE_KINDS:
            return "not-a-league-post"
        return await deliver_league_item(self.bot, item, self.cog().service.summary)


@dataclass
class World:
    sandbox: Sandbox
    channel: Channel
    mod: ScriptedPlayer
    players: dict[str, ScriptedPlayer]
    bot: LeagueBot
    clock: ManualClock
    matches: MatchService
    store: Store
    outbox: Outbox

    @property
    def cog(self) -> LeagueCog:
        # load_extension imports the module afresh, so the class is not this module's LeagueCog.
        cog: Any = self.bot.get_cog("LeagueCog")
        assert cog is not None
        return cast(LeagueCog, cog)

    def pid(self, letter: str) -> str:
        return str(self.players[letter].id)

    async def post(self) -> None:
        await self.outbox.drain(ToSandbox(self.bot, lambda: self.cog))

    async def step(self, seconds: float = 0) -> None:
        self.clock.advance(seconds)
        await self.matches.run_due()
        await self.cog.service.step()
        await self.post()

    async def game(self, round_no: int, a: str, b: str) -> LeagueGameRecord:
        async with self.store.read() as s:
            games = await LeagueQueries(s).list_games(1, round_no=round_no)
        pair = {self.pid(a), self.pid(b)}
        return next(g for g in games if {g.red_id, g.blue_id} == pair)

    async def concede(self, round_no: int, winner: str, loser: str) -> None:
        game = await self.game(round_no, winner, loser)
        assert game.match_id is not None
        await self.matches.concede(game.match_id, self.pid(loser))

    async def draw(self, round_no: int, a: str, b: str) -> None:
        game = await self.game(round_no, a, b)
        assert game.match_id is not None
        await self.matches.offer_draw(game.match_id, self.pid(a))
        await self.matches.accept_draw(game.match_id, self.pid(b))

    def channel_text(self) -> str:
        return "\n".join(m.content for m in self.sandbox.messages(self.channel))


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    store = await Store.open(f"sqlite:///{tmp_path / 'league.db'}")
    clock = ManualClock(START)
    matches = MatchService(store, clock)
    decks = DeckService(store, clock)
    outbox = Outbox(store, clock)
    runtime = Runtime(matches=matches, decks=decks, outbox=outbox, content=load_content())
    try:
        async with Sandbox(bot_name="Sanctum Host") as sandbox:
            guild = sandbox.create_guild("Sanctum")
            channel = sandbox.create_channel(guild, "league")
            mod = sandbox.player(
                sandbox.create_user("moderator", guild=guild, manage_server=True), channel=channel
            )
            players = {
                letter: sandbox.player(sandbox.create_user(name, guild=guild), channel=channel)
                for letter, name in NAMES.items()
            }
            bot = LeagueBot(runtime, guild.id)
            async with running(bot, sandbox):
                yield World(sandbox, channel, mod, players, bot, clock, matches, store, outbox)
    finally:
        await store.close()


async def reply(result: InteractionResult) -> str:
    """The bot's answer: the response that replaced "thinking", then any further follow-ups."""
    message = await result.wait_done()
    return "\n".join([message.content] + [m.content for m in result.followups[1:]])


def table_lines(text: str) -> list[tuple[str, str, str]]:
    """(name, points, Sonneborn-Berger) of each row of a standings code block."""
    rows = []
    for line in text.splitlines():
        found = re.match(r"^\s*\d+\s{2}(\S+(?: \(w\))?)\s+(\S+)\s+(\S+)\s", line)
        if found:
            rows.append((found[1], found[2], found[3]))
    return rows


async def test_six_player_league_runs_three_rounds_in_discord(world: World) -> None:
    w = world
    created = await w.mod.slash(
        "league create",
        name="Spring",
        rounds=3,
        round_length="7d",
        turn_length="1h",
        start_within="1d",
    )
    assert "League created" in await reply(created)

    refused = await w.players["a"].slash("league start", league="Spring")
    assert "Only a moderator can start a league" in await reply(refused)

    for player in w.players.values():
        deck = await w.cog.runtime.decks.create_deck(str(player.id), "main", "war", deck_spells())
        choices = await player.autocomplete("league signup", "deck", "ma", league="Spring")
        assert [c["value"] for c in choices] == [deck.id]
        signed = await player.slash("league signup", league="Spring", deck=deck.id)
        assert "You are signed up for Spring" in await reply(signed)
        w.clock.advance(1)
    names = await w.players["a"].autocomplete("league pairings", "league", "spr")
    assert [c["value"] for c in names] == ["Spring"]

    started = await w.mod.slash("league start", league="Spring")
    assert "Spring has started with 3 rounds" in await reply(started)
    await w.post()
    assert "round 1 of 3 is open" in w.channel_text()
    assert "matches not started by <t:" in w.channel_text()
    # A retry finds the earlier post by its key instead of posting twice.
    async with w.store.read() as s:
        (opened,) = await s.list_outbox(kind="league_round_opened")
    assert opened.status == "done" and opened.delivered_ref is not None
    assert await find_league_item(w.bot, opened) == opened.delivered_ref
    assert await find_league_item(w.bot, replace(opened, key="league:1:never")) is None

    # Round 1.
    await w.concede(1, "a", "d")
    await w.draw(1, "c", "f")
    be = await w.game(1, "b", "e")
    assert be.match_id is not None
    for _turn in range(3):
        await w.matches.confirm(be.match_id, w.pid("b"))
        await w.step(HOUR + 1)
    assert "Standings after round 1" in w.channel_text()
    withdrawn = await w.players["d"].slash("league withdraw", league="Spring")
    assert "Dov has withdrawn from Spring" in await reply(withdrawn)

    # Round 2 a week after the start.
    await w.step(7 * DAY - 3 * HOUR)
    pairings = await reply(await w.players["e"].slash("league pairings", league="Spring"))
    assert "Round 2 (Swiss)" in pairings and "Bye: Esme" in pairings
    assert "Dov withdrew and is not paired" in pairings
    await w.concede(2, "a", "f")
    await w.concede(2, "c", "b")
    await w.step()

    # Round 3.
    await w.step(7 * DAY)
    await w.draw(3, "a", "b")
    await w.concede(3, "c", "e")
    await w.step()

    standings = await w.players["f"].slash("league standings", league="Spring")
    message = await standings.wait_done()
    assert table_lines(message.content) == [
        ("Cleo", "2.5", "3.25"),
        ("Ada", "2.5", "2.25"),
        ("Bram", "1.5", "1.25"),
        ("Finn", "1.5", "1.25"),
        ("Esme", "1", "0"),
        ("Dov (w)", "0", "0"),
    ]
    assert [a.filename for a in message.attachments] == ["standings.png"]
    assert message.attachments[0].data.startswith(b"\x89PNG")

    channel = w.channel_text()
    assert "Season summary: Spring" in channel and "Champion: Cleo with 2.5 points" in channel
    posted_images = [a.filename for m in w.sandbox.messages(w.channel) for a in m.attachments]
    assert posted_images == [
        "league_standings.png",
        "league_standings.png",
        "league_standings.png",
        "league_ended.png",
        "standings.png",
    ]

    profile = await reply(await w.players["b"].slash("profile"))
    assert "Reliability: 100% (3/3 turns with orders)" in profile
    board = await reply(await w.players["b"].slash("leaderboard"))
    games = {line.split()[1]: int(line.split()[3]) for line in board.splitlines()[2:-1]}
    assert games == {"Ada": 3, "Bram": 2, "Cleo": 3, "Dov": 1, "Esme": 1, "Finn": 2}
    # No league post (round openings, reminders by DM, standings) shows an outbox key.
    assert keys_seen(w.sandbox, w.players.values()) == []


async def test_settings_check_in_late_join_schedule_and_an_early_end(world: World) -> None:
    w = world
    await reply(await w.mod.slash("league create", name="Autumn", rounds=2, round_length="2d"))
    shown = await reply(await w.players["a"].slash("league settings", league="Autumn"))
    assert "Round length: 2d" in shown and "rounds: 2" in shown
    refused = await w.players["a"].slash("league settings", league="Autumn", rounds=5)
    assert "Only a moderator can change a league's settings" in await reply(refused)
    changed = await reply(
        await w.mod.slash(
            "league settings", league="Autumn", realm="badlands", bye_points="0.5", rounds=3
        )
    )
    assert "realm badlands" in changed and "Bye: 0.5 point" in changed and "rounds: 3" in changed
    bad = await w.mod.slash("league settings", league="Autumn", round_length="soon")
    assert "is not a duration" in await reply(bad)
    assert "must start within 1d (default)" in shown
    chosen = await w.mod.slash("league settings", league="Autumn", start_within="6h")
    assert "must start within 6h; " in await reply(chosen)
    back = await w.mod.slash("league settings", league="Autumn", start_within="default")
    assert "must start within 1d (default)" in await reply(back)

    for letter in "abcd":
        await reply(await w.players[letter].slash("league signup", league="Autumn"))
        w.clock.advance(1)
    no_window = await w.players["a"].slash("league checkin", league="Autumn")
    assert "needs no check-in" in await reply(no_window)
    w.sandbox.set_dms_open(w.players["b"].user, False)
    await reply(await w.mod.slash("league start", league="Autumn"))
    # Nobody chose a deck, and a day to start falls within the first reminder's reach: each
    # player is reminded at once, Bram in the channel since his DMs are closed.
    await w.post()
    assert any("choose a deck for match #" in m.content for m in w.players["a"].dms())
    assert any(
        m.content.startswith(f"<@{w.pid('b')}> (your DMs are closed)")
        for m in w.sandbox.messages(w.channel)
    )
    late = await reply(await w.players["e"].slash("league join", league="Autumn"))
    assert "You are in Autumn from round 2" in late

    schedule = await w.players["e"].slash("league schedule", league="Autumn")
    message = await schedule.wait_done()
    assert "(1 of 3 rounds open)" in message.content
    assert message.content.count("match #") == 2
    assert [a.filename for a in message.attachments] == ["schedule.png"]

    # One pair chose decks and began; nothing was finished: the first seed heads the table.
    async with w.store.read() as s:
        live = (await LeagueQueries(s).list_games(1, round_no=1))[0]
    assert live.match_id is not None
    for pid in (live.red_id, live.blue_id):
        deck = await w.cog.runtime.decks.create_deck(pid, "main", "war", deck_spells())
        await w.matches.choose_deck(live.match_id, pid, deck.id)
    await w.matches.start_match(live.match_id, live.red_id)
    ended = await reply(await w.mod.slash("league end", league="Autumn"))
    assert "Season summary: Autumn" in ended and "Champion: Ada with 0 points" in ended
    assert (
        f"Matches still in progress (#{live.match_id}) play on to their end, but no longer "
        "count for the league" in ended
    )
    await w.post()
    assert "Champion: Ada with 0 points" in w.channel_text()
    unplayed = await w.matches.list_matches(guild_id=str(w.channel.guild_id))
    assert sorted(m.status for m in unplayed) == ["active", "cancelled"]
    again = await w.mod.slash("league end", league="Autumn")
    assert "already over" in await reply(again)


def test_a_long_table_is_split_between_whole_code_blocks() -> None:
    rows = "\n".join(f"{i:>3}  Player {i:<12} {i % 7:>5}" for i in range(1, 200))
    text = f"**Big league**: standings\n```\n{rows}\n```\nThat is all."
    pieces = message_pieces(text)
    assert len(pieces) > 1 and all(len(p) <= 2000 for p in pieces)
    assert all(p.count("```") % 2 == 0 for p in pieces)
    lines = [line for p in pieces for line in p.splitlines() if line and "```" not in line]
    assert lines == ["**Big league**: standings", *rows.splitlines(), "That is all."]


async def test_a_match_outside_leagues_is_rated_and_named_on_the_leaderboard(world: World) -> None:
    w = world
    empty = await reply(await w.players["a"].slash("leaderboard"))
    assert "No rated games" in empty
    decks = w.cog.runtime.decks
    red = await decks.create_deck(w.pid("e"), "casual", "war", deck_spells())
    blue = await decks.create_deck(w.pid("f"), "casual", "war", deck_spells())
    match = await w.matches.create_match(
        w.pid("e"), deck_id=red.id, opponent_id=w.pid("f"), guild_id=str(w.channel.guild_id)
    )
    await w.matches.choose_deck(match.id, w.pid("f"), blue.id)
    await w.matches.start_match(match.id, w.pid("e"))
    await w.matches.concede(match.id, w.pid("f"))
    await w.step()
    board = await reply(await w.players["a"].slash("leaderboard"))
    rows = [line.split() for line in board.splitlines()[2:-1]]
    assert [(row[1], row[3], row[4], row[6]) for row in rows] == [
        ("Esme", "1", "1", "0"),
        ("Finn", "1", "0", "1"),
    ]
    profile = await reply(await w.players["f"].slash("profile", player=w.players["e"]))
    assert profile.startswith("Esme: rating ")
    assert "Rated games: 1 (1 won, 0 drawn, 0 lost)" in profile


async def test_a_league_anchors_its_matches_deadlines_to_a_clock_and_weekdays(
    world: World,
) -> None:
    w = world
    await reply(await w.mod.slash("league create", name="Evenings", rounds=1))
    shown = await reply(await w.mod.slash("league settings", league="Evenings"))
    assert "Match deadlines: the turn length after each turn opens" in shown
    wrong = await w.mod.slash("league settings", league="Evenings", clock="20:00", timezone="Mars")
    assert "Unknown timezone 'Mars'" in await reply(wrong)
    anchored = await reply(
        await w.mod.slash(
            "league settings",
            league="Evenings",
            clock="20:00",
            days="mon-fri",
            timezone="Europe/Paris",
        )
    )
    assert "Match deadlines: at 20:00, on mon-fri (Europe/Paris)" in anchored
    # A later change keeps what it does not name.
    weekends = await reply(await w.mod.slash("league settings", league="Evenings", days="sat,sun"))
    assert "Match deadlines: at 20:00, on sat,sun (Europe/Paris)" in weekends
    cleared = await reply(
        await w.mod.slash("league settings", league="Evenings", clock="off", days="any")
    )
    assert "Match deadlines: the turn length after each turn opens" in cleared
    again = await w.mod.slash(
        "league settings", league="Evenings", clock="20:00", days="mon-fri", timezone="Europe/Paris"
    )
    assert "at 20:00, on mon-fri (Europe/Paris)" in await reply(again)

    for letter in "ab":
        await reply(await w.players[letter].slash("league signup", league="Evenings"))
        w.clock.advance(1)
    await reply(await w.mod.slash("league start", league="Evenings"))
    async with w.store.read() as s:
        game = (await LeagueQueries(s).list_games(1, round_no=1))[0]
    assert game.match_id is not None
    for pid in (game.red_id, game.blue_id):
        deck = await w.cog.runtime.decks.create_deck(pid, "main", "war", deck_spells())
        await w.matches.choose_deck(game.match_id, pid, deck.id)
    await w.matches.start_match(game.match_id, game.red_id)
    match = await w.matches.get_match(game.match_id)
    assert match.deadline_at is not None
    deadline = datetime.fromtimestamp(match.deadline_at / 1000, ZoneInfo("Europe/Paris"))
    assert (deadline.hour, deadline.minute) == (20, 0) and deadline.weekday() < 5
    assert (
        deadline.timestamp() * 1000 >= w.clock.now().timestamp() * 1000 + match.turn_seconds * 1000
    )
    late = await w.mod.slash("league settings", league="Evenings", clock="off")
    assert "has started; its settings can no longer change" in await reply(late)
