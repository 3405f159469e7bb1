"""`/league ...`, `/profile` and `/leaderboard`, and the delivery of league announcements.

The cog owns the league service and its alarm: on load it makes sure the league tables exist,
builds the service on the match service's store and clock, and starts the alarm that opens rounds
on schedule. Every rule lives in `service.leagues`; this module only reads options, checks who
may act, and turns records into messages and images.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from cogs.errors import RefusalError
from cogs.poster import poster_of
from cogs.runtime import Runtime, is_moderator, runtime_of
from cogs.split import MESSAGE_LIMIT, split_code_block, split_text
from render.tables import ScheduleRow, StandingRow, render_schedule, render_standings
from service.leagues.scheduler import LeagueAlarm
from service.leagues.service import (
    LeagueRecord,
    LeagueService,
    LeagueSettings,
    LeagueTable,
    ScheduledGame,
)
from service.leagues.timespec import (
    describe_duration,
    parse_duration,
    parse_duration_or_default,
    parse_when,
)
from service.outbox import PermanentDeliveryError

log = logging.getLogger(__name__)

LEAGUE_KINDS = frozenset(
    {
        "league_started",
        "league_round_opened",
        "league_result",
        "league_standings",
        "league_reminder",
        "league_ended",
        "league_withdrawal",
        "league_notice",
    }
)
_IMAGE_KINDS = frozenset({"league_standings", "league_ended"})

Format = Literal["swiss", "round_robin"]
Points = Literal["0", "0.5", "1"]


# --- pure helpers (tested without Discord) ----------------------------------------------------


def message_pieces(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """`text` in messages of at most `limit` characters, never cutting through a code block:
    a long table goes on in a new block in the next message."""
    segments: list[str] = []
    for i, part in enumerate(text.split("```")):
        body = part.strip("\n")
        if not body:
            continue
        segments.extend(split_code_block(body, limit) if i % 2 else split_text(body, limit))
    pieces: list[str] = []
    current = ""
    for segment in segments:
        candidate = f"{current}\n{segment}" if current else segment
        if len(candidate) <= limit:
            current = candidate
        else:
            pieces.append(current)
            current = segment
    if current:
        pieces.append(current)
    return pieces


def standing_rows(records: Sequence[dict[str, Any]]) -> list[StandingRow]:
    """Rows of a standings image from `Standings.to_records()` dictionaries."""
    return [
        StandingRow(
            name=str(r["name"]) + (" (w)" if r.get("withdrawn") else ""),
            played=int(r["played"]),
            wins=int(r["wins"]),
            draws=int(r["draws"]),
            losses=int(r["losses"]),
            points=float(r["points"]),
            tiebreaks=(float(r["sonneborn_berger"]),),
            rank=int(r["rank"]),
        )
        for r in records
    ]


def table_image_rows(table: LeagueTable) -> list[StandingRow]:
    return [
        StandingRow(
            name=r.name + (" (w)" if r.withdrawn else ""),
            played=r.played,
            wins=r.wins,
            draws=r.draws,
            losses=r.losses,
            points=r.points,
            tiebreaks=(r.sonneborn_berger,),
            rating=float(r.rating),
            rank=r.rank,
        )
        for r in table.rows
    ]


def schedule_rows(games: Sequence[ScheduledGame]) -> list[ScheduleRow]:
    return [
        ScheduleRow(
            round=g.round_no,
            first=g.red,
            second=g.blue or "",
            result=g.result,
            status=g.status,
        )
        for g in games
    ]


def schedule_text(games: Sequence[ScheduledGame]) -> str:
    lines: list[str] = []
    for g in games:
        if g.blue is None:
            lines.append(f"R{g.round_no}  {g.red}: bye ({g.status})")
        else:
            result = f" {g.result}" if g.result else ""
            lines.append(f"R{g.round_no} B{g.board}  {g.red} v {g.blue}{result}  [{g.status}]")
    return "\n".join(lines) or "No round has been paired yet."


def settings_text(league: LeagueRecord) -> str:
    s = LeagueSettings.of(league)
    rounds = "decided at the start" if league.rounds == 0 else str(league.rounds)

    def when(ms: int | None) -> str:
        return "—" if ms is None else f"<t:{ms // 1000}:f>"

    return "\n".join(
        [
            f"**{league.name}** ({league.status})",
            f"Format: {s.format.replace('_', '-')}, rounds: {rounds}",
            f"Round length: {describe_duration(s.round_seconds)}; matches must start within "
            f"{describe_duration(s.start_window)}{'' if s.start_seconds else ' (default)'}; "
            f"turn length: {describe_duration(s.turn_seconds)}",
            f"No-show limit: {s.no_show_limit}; ruleset {s.ruleset}; realm {s.realm}",
            f"Bye: {s.bye_points:g} point; missed round (late join): {s.missed_round_points:g}",
            f"Sign-up: {when(s.signup_opens_at)} to {when(s.signup_closes_at)}; check-in: "
            f"{when(s.checkin_opens_at)} to {when(s.checkin_closes_at)}; "
            f"start: {when(s.starts_at)}",
        ]
    )


class OutboxItem(Protocol):
    """The fields of an outbox row that a league post needs."""

    @property
    def key(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def recipient(self) -> str | None: ...
    @property
    def payload(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class LeaguePost:
    """What to send for one league outbox row: to a player (`recipient_id`, falling back to
    the channel) or to the league channel, the text pieces, and an optional image."""

    channel_id: int | None
    recipient_id: int | None
    pieces: tuple[str, ...]
    image: bytes | None
    filename: str


def league_post(item: OutboxItem) -> LeaguePost:
    """Turn a league outbox row into a message; the key goes last so a retry can find it."""
    payload = item.payload
    text = str(payload.get("text", ""))
    image: bytes | None = None
    if item.kind in _IMAGE_KINDS and payload.get("rows"):
        image = render_standings(
            standing_rows(payload["rows"]),
            title=str(payload.get("title", "Standings")),
            tiebreak_names=("SB",),
        )
    pieces = message_pieces(f"{text}\n-# {item.key}")
    recipient, channel = league_post_target(item)
    return LeaguePost(
        channel_id=channel,
        recipient_id=recipient,
        pieces=tuple(pieces),
        image=image,
        filename=f"{item.kind}.png",
    )


async def deliver_league_item(client: discord.Client, item: OutboxItem) -> str:
    """Send a league outbox row (for the poster); returns the id of the last message sent.

    A reminder goes by DM; when the player's DMs are closed it goes to the league channel with a
    mention instead, so a closed inbox never loses it.
    """
    post = await asyncio.to_thread(league_post, item)
    pieces = list(post.pieces)
    if post.recipient_id is not None:
        try:
            user = await client.fetch_user(post.recipient_id)
            return await _send(user, pieces, post)
        except discord.Forbidden:
            if post.channel_id is None:
                raise PermanentDeliveryError(
                    f"{item.key}: DMs closed and no league channel to fall back to"
                ) from None
            pieces[0] = f"<@{post.recipient_id}> (your DMs are closed) {pieces[0]}"
    if post.channel_id is None:
        raise PermanentDeliveryError(f"league post {item.key} has nowhere to go")
    try:
        channel = client.get_channel(post.channel_id) or await client.fetch_channel(post.channel_id)
    except discord.NotFound:
        raise PermanentDeliveryError(f"the league channel {post.channel_id} is gone") from None
    if not isinstance(channel, discord.abc.Messageable):
        raise PermanentDeliveryError(f"channel {post.channel_id} cannot take messages")
    return await _send(channel, pieces, post)


async def find_league_item(
    client: discord.Client, item: OutboxItem, *, scan: int = 50
) -> str | None:
    """The id of an earlier post of this row (the poster asks before retrying), found by the
    key line every league post ends with."""
    post = league_post_target(item)
    marker = f"-# {item.key}"
    places: list[discord.abc.Messageable] = []
    if post[0] is not None:
        places.append(await client.fetch_user(post[0]))
    if post[1] is not None:
        channel = client.get_channel(post[1])
        if isinstance(channel, discord.abc.Messageable):
            places.append(channel)
    me = client.user
    for place in places:
        async for message in place.history(limit=scan):
            if me is not None and message.author.id != me.id:
                continue
            if marker in message.content:
                return str(message.id)
    return None


def league_post_target(item: OutboxItem) -> tuple[int | None, int | None]:
    """(recipient id, channel id) of a league row."""
    channel = item.payload.get("channel_id")
    return (
        int(item.recipient) if item.recipient else None,
        int(channel) if channel else None,
    )


async def _send(target: discord.abc.Messageable, pieces: Sequence[str], post: LeaguePost) -> str:
    last: discord.Message | None = None
    for i, piece in enumerate(pieces):
        if i == len(pieces) - 1 and post.image is not None:
            image = discord.File(io.BytesIO(post.image), filename=post.filename)
            last = await target.send(piece, file=image)
        else:
            last = await target.send(piece)
    assert last is not None
    return str(last.id)


class LeagueDeliverer:
    """League announcements for the poster (a :class:`cogs.poster.KindDeliverer`)."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def target(self, item: OutboxItem) -> discord.abc.Messageable | None:
        recipient, channel_id = league_post_target(item)
        if recipient is not None:
            return self.client.get_user(recipient) or await self.client.fetch_user(recipient)
        if channel_id is None:
            return None
        channel = self.client.get_channel(channel_id)
        return channel if isinstance(channel, discord.abc.Messageable) else None

    async def deliver(self, item: OutboxItem) -> str:
        return await deliver_league_item(self.client, item)

    async def find(self, item: OutboxItem) -> str | None:
        return await find_league_item(self.client, item)


def _points(value: Points | None) -> float | None:
    return None if value is None else float(value)


# --- the cog ----------------------------------------------------------------------------------


class LeagueCog(commands.Cog):
    league = app_commands.Group(
        name="league", description="League seasons: sign-up, rounds, standings", guild_only=True
    )

    def __init__(self, bot: commands.Bot, runtime: Runtime) -> None:
        self.bot = bot
        self.runtime = runtime
        matches = runtime.matches
        self.service = LeagueService(matches.store, matches.clock, matches)
        self.alarm = LeagueAlarm(self.service)

    async def cog_load(self) -> None:
        poster = poster_of(self.bot)
        if poster is None:
            log.warning("no poster loaded: league announcements wait in the outbox")
        else:
            poster.register(LEAGUE_KINDS, LeagueDeliverer(self.bot))
        await self.alarm.start()

    async def cog_unload(self) -> None:
        poster = poster_of(self.bot)
        if poster is not None:
            poster.unregister(LEAGUE_KINDS)
        await self.alarm.stop()

    # --- helpers ----------------------------------------------------------------------------

    def _moderator(self, interaction: discord.Interaction) -> bool:
        return is_moderator(interaction, self.runtime.moderator_role)

    @staticmethod
    def _guild(interaction: discord.Interaction) -> str:
        if interaction.guild_id is None:
            raise RefusalError("Leagues belong to a server; use this in a server channel.")
        return str(interaction.guild_id)

    async def _find(self, interaction: discord.Interaction, name: str) -> LeagueRecord:
        return await self.service.find_league(self._guild(interaction), name)

    def _when(self, text: str | None) -> int | None:
        if text is None:
            return None
        moment = parse_when(text, self.service.clock.now())
        return int(moment.timestamp() * 1000)

    @staticmethod
    async def _reply(
        interaction: discord.Interaction,
        text: str,
        *,
        ephemeral: bool = False,
        image: bytes | None = None,
        filename: str = "table.png",
    ) -> None:
        pieces = message_pieces(text) or ["(empty)"]
        for i, piece in enumerate(pieces):
            kwargs: dict[str, Any] = {"ephemeral": ephemeral}
            if image is not None and i == len(pieces) - 1:
                kwargs["file"] = discord.File(io.BytesIO(image), filename=filename)
            await interaction.followup.send(piece, **kwargs)

    async def _name(self, interaction: discord.Interaction, player_id: str, stored: str) -> str:
        """A player's name: the one a league recorded, else Discord's (players rated only in
        matches outside leagues have no recorded name)."""
        if stored != player_id or not player_id.isdigit():
            return stored
        guild = interaction.guild
        member = guild.get_member(int(player_id)) if guild is not None else None
        if member is not None:
            return member.display_name
        try:
            return (await self.bot.fetch_user(int(player_id))).display_name
        except discord.HTTPException:
            return player_id

    async def league_names(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        leagues = await self.service.list_leagues(str(interaction.guild_id))
        wanted = current.lower()
        return [
            app_commands.Choice(name=f"{x.name} ({x.status})"[:100], value=x.name)
            for x in reversed(leagues)
            if wanted in x.name.lower()
        ][:25]

    async def deck_names(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        decks = await self.runtime.decks.list_decks(str(interaction.user.id))
        wanted = current.lower()
        return [
            app_commands.Choice(name=f"{d.name} ({d.house})"[:100], value=d.id)
            for d in decks
            if wanted in d.name.lower()
        ][:25]

    # --- /league ----------------------------------------------------------------------------

    @league.command(name="create", description="Create a league season (moderators)")
    @app_commands.describe(
        name="The season's name",
        format="Swiss (default) or round-robin",
        rounds="Number of rounds (0: decided at the start)",
        round_length="Time between rounds, like 7d",
        turn_length="Turn deadline in the matches, like 24h",
        start_within="Time to start a round's match before it is forfeited, like 2d",
        ruleset="classic or duel",
        realm="The realm every match is played in",
        starts_at="Start automatically at this time: `in 3d` or `2031-03-01 18:00` (UTC)",
    )
    async def create(
        self,
        interaction: discord.Interaction,
        *,
        name: str,
        format: Format = "swiss",
        rounds: app_commands.Range[int, 0, 50] = 0,
        round_length: str = "7d",
        turn_length: str = "24h",
        start_within: str | None = None,
        ruleset: str = "classic",
        realm: str = "veldt",
        starts_at: str | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        settings = LeagueSettings(
            format=format,
            rounds=rounds,
            round_seconds=parse_duration(round_length),
            turn_seconds=parse_duration(turn_length),
            start_seconds=parse_duration_or_default(start_within) if start_within else 0,
            ruleset=ruleset,
            realm=realm,
            starts_at=self._when(starts_at),
        )
        league = await self.service.create_league(
            guild_id=self._guild(interaction),
            channel_id=str(interaction.channel_id) if interaction.channel_id else None,
            name=name,
            by=str(interaction.user.id),
            moderator=self._moderator(interaction),
            settings=settings,
        )
        await self._reply(
            interaction,
            f"League created. Players sign up with `/league signup league:{league.name}`; "
            f"announcements go to this channel.\n{settings_text(league)}",
            ephemeral=True,
        )

    @league.command(name="settings", description="Show or change a league's settings")
    @app_commands.describe(
        league="The league",
        format="Swiss or round-robin",
        rounds="Number of rounds (0: decided at the start)",
        round_length="Time between rounds, like 7d",
        turn_length="Turn deadline, like 24h",
        start_within="Time to start a round's match, like 2d (`default`: half a round, at most 2d)",
        no_show_limit="Turns in a row without orders that forfeit a match (0: off)",
        ruleset="classic or duel",
        realm="The realm of every match",
        bye_points="Points for a bye",
        missed_round_points="Points per round missed by a late joiner",
        signup_opens="When sign-up opens (`in 1d`, `2031-03-01 18:00`)",
        signup_closes="When sign-up closes",
        checkin_opens="When check-in opens (setting it makes check-in required)",
        checkin_closes="When check-in closes",
        starts_at="Start automatically at this time",
    )
    @app_commands.autocomplete(league=league_names)
    async def settings(
        self,
        interaction: discord.Interaction,
        *,
        league: str,
        format: Format | None = None,
        rounds: app_commands.Range[int, 0, 50] | None = None,
        round_length: str | None = None,
        turn_length: str | None = None,
        start_within: str | None = None,
        no_show_limit: app_commands.Range[int, 0, 20] | None = None,
        ruleset: str | None = None,
        realm: str | None = None,
        bye_points: Points | None = None,
        missed_round_points: Points | None = None,
        signup_opens: str | None = None,
        signup_closes: str | None = None,
        checkin_opens: str | None = None,
        checkin_closes: str | None = None,
        starts_at: str | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self._find(interaction, league)
        given: dict[str, Any] = {
            "format": format,
            "rounds": rounds,
            "round_seconds": parse_duration(round_length) if round_length else None,
            "turn_seconds": parse_duration(turn_length) if turn_length else None,
            "start_seconds": parse_duration_or_default(start_within) if start_within else None,
            "no_show_limit": no_show_limit,
            "ruleset": ruleset,
            "realm": realm,
            "bye_points": _points(bye_points),
            "missed_round_points": _points(missed_round_points),
            "signup_opens_at": self._when(signup_opens),
            "signup_closes_at": self._when(signup_closes),
            "checkin_opens_at": self._when(checkin_opens),
            "checkin_closes_at": self._when(checkin_closes),
            "starts_at": self._when(starts_at),
        }
        changes = {k: v for k, v in given.items() if v is not None}
        if changes:
            record = await self.service.configure(
                record.id,
                by=str(interaction.user.id),
                moderator=self._moderator(interaction),
                **changes,
            )
        await self._reply(interaction, settings_text(record), ephemeral=True)

    @league.command(name="signup", description="Sign up for a league season")
    @app_commands.describe(league="The league", deck="The deck your league matches start with")
    @app_commands.autocomplete(league=league_names)
    @app_commands.autocomplete(deck=deck_names)
    async def signup(
        self, interaction: discord.Interaction, league: str, deck: int | None = None
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self._find(interaction, league)
        player = await self.service.signup(
            record.id, str(interaction.user.id), interaction.user.display_name, deck_id=deck
        )
        note = "" if deck is not None else " Add `deck:` to have your matches start by themselves."
        hint = self.service.checkin_hint(record, player)
        check = f" {hint}" if hint else ""
        await self._reply(
            interaction, f"You are signed up for {record.name}.{note}{check}", ephemeral=True
        )

    @league.command(name="checkin", description="Confirm you will play the season")
    @app_commands.autocomplete(league=league_names)
    async def checkin(self, interaction: discord.Interaction, league: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self._find(interaction, league)
        await self.service.checkin(record.id, str(interaction.user.id))
        await self._reply(interaction, f"You are checked in for {record.name}.", ephemeral=True)

    @league.command(name="start", description="Close sign-up and open round one (moderators)")
    @app_commands.autocomplete(league=league_names)
    async def start(self, interaction: discord.Interaction, league: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self._find(interaction, league)
        started, dropped = await self.service.start(
            record.id, by=str(interaction.user.id), moderator=self._moderator(interaction)
        )
        extra = f" Not checked in: {', '.join(dropped)}." if dropped else ""
        await self._reply(
            interaction,
            f"{started.name} has started with {started.rounds} rounds; round 1 is open.{extra}",
            ephemeral=True,
        )

    @league.command(name="join", description="Join a running Swiss season from the next round")
    @app_commands.describe(league="The league", deck="The deck your league matches start with")
    @app_commands.autocomplete(league=league_names)
    @app_commands.autocomplete(deck=deck_names)
    async def join(
        self, interaction: discord.Interaction, league: str, deck: int | None = None
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self._find(interaction, league)
        player = await self.service.join(
            record.id, str(interaction.user.id), interaction.user.display_name, deck_id=deck
        )
        await self._reply(
            interaction,
            f"You are in {record.name} from round {player.joined_round}.",
            ephemeral=True,
        )

    @league.command(name="withdraw", description="Leave a league (moderators: remove a player)")
    @app_commands.describe(league="The league", player="Someone else to withdraw (moderators)")
    @app_commands.autocomplete(league=league_names)
    async def withdraw(
        self,
        interaction: discord.Interaction,
        league: str,
        player: discord.Member | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self._find(interaction, league)
        who = player or interaction.user
        message = await self.service.withdraw(
            record.id,
            str(who.id),
            by=str(interaction.user.id),
            moderator=self._moderator(interaction),
        )
        await self._reply(interaction, message, ephemeral=True)

    @league.command(name="pairings", description="A round's pairings and why they were made")
    @app_commands.describe(league="The league", round="The round (default: the current one)")
    @app_commands.autocomplete(league=league_names)
    async def pairings(
        self,
        interaction: discord.Interaction,
        league: str,
        round: app_commands.Range[int, 1, 50] | None = None,
    ) -> None:
        await interaction.response.defer(thinking=True)
        record = await self._find(interaction, league)
        text = await self.service.pairings(record.id, round)
        await self._reply(interaction, f"**{record.name}**\n```\n{text}\n```")

    @league.command(name="standings", description="The league table, as an image and as text")
    @app_commands.autocomplete(league=league_names)
    async def standings(self, interaction: discord.Interaction, league: str) -> None:
        await interaction.response.defer(thinking=True)
        record = await self._find(interaction, league)
        table = await self.service.standings(record.id)
        image = await asyncio.to_thread(
            render_standings,
            table_image_rows(table),
            title=record.name,
            subtitle=table.label,
            tiebreak_names=("SB",),
        )
        await self._reply(
            interaction, f"```\n{table.to_text()}\n```", image=image, filename="standings.png"
        )

    @league.command(name="schedule", description="Every round's games and byes")
    @app_commands.autocomplete(league=league_names)
    async def schedule(self, interaction: discord.Interaction, league: str) -> None:
        await interaction.response.defer(thinking=True)
        record = await self._find(interaction, league)
        games = await self.service.schedule(record.id)
        image = await asyncio.to_thread(
            render_schedule, schedule_rows(games), title=record.name, subtitle="schedule"
        )
        await self._reply(
            interaction,
            f"**{record.name}** ({record.current_round} of {record.rounds} rounds open)\n"
            f"```\n{schedule_text(games)}\n```",
            image=image,
            filename="schedule.png",
        )

    @league.command(name="end", description="End the season now and post the summary (moderators)")
    @app_commands.autocomplete(league=league_names)
    async def end(self, interaction: discord.Interaction, league: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self._find(interaction, league)
        summary = await self.service.end(
            record.id, by=str(interaction.user.id), moderator=self._moderator(interaction)
        )
        await self._reply(interaction, f"```\n{summary.to_text()}\n```", ephemeral=True)

    # --- /profile, /leaderboard -------------------------------------------------------------

    @app_commands.command(name="profile", description="A player's rating and reliability")
    @app_commands.describe(player="Whose profile (default: yours)")
    @app_commands.guild_only()
    async def profile(
        self, interaction: discord.Interaction, player: discord.Member | None = None
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        who = player or interaction.user
        profile = await self.service.profile(
            self._guild(interaction), str(who.id), who.display_name
        )
        await self._reply(interaction, profile.to_text(), ephemeral=True)

    @app_commands.command(name="leaderboard", description="This server's rating leaderboard")
    @app_commands.describe(top="How many players to show")
    @app_commands.guild_only()
    async def leaderboard(
        self, interaction: discord.Interaction, top: app_commands.Range[int, 1, 50] = 20
    ) -> None:
        await interaction.response.defer(thinking=True)
        rows = await self.service.leaderboard(self._guild(interaction), top)
        if not rows:
            await self._reply(interaction, "No rated games have been played on this server yet.")
            return
        lines = [f"{'#':>3}  {'Player':<20} {'Rating':>6} {'G':>3} {'W':>3} {'D':>3} {'L':>3}"]
        for r in rows:
            name = await self._name(interaction, r.player_id, r.name)
            lines.append(
                f"{r.rank:>3}  {name[:20]:<20} {r.display:>6} {r.games:>3} {r.wins:>3} "
                f"{r.draws:>3} {r.losses:>3}"
            )
        await self._reply(interaction, "```\n" + "\n".join(lines) + "\n```")


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(LeagueCog(bot, runtime_of(bot)))
