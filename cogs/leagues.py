"""`/league ...`, `/profile` and `/leaderboard` (league posts are worded in `cogs.league_posts`).

The cog owns the league service and its alarm: on load it makes sure the league tables exist,
builds the service on the match service's store and clock, and starts the alarm that opens rounds
on schedule. Every rule lives in `service.leagues`; this module only reads options, checks who
may act, and turns records into messages and images; on load it registers the league posts with
the poster.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from cogs.errors import RefusalError
from cogs.league_posts import LEAGUE_ANNOUNCEMENTS, LeagueDeliverer, message_pieces
from cogs.poster import poster_of
from cogs.runtime import Runtime, is_moderator, runtime_of
from render.tables import ScheduleRow, StandingRow, render_schedule, render_standings
from service.deadline_anchor import changed_anchor, zone_names
from service.leagues.scheduler import LeagueAlarm
from service.leagues.service import (
    LeagueRecord,
    LeagueService,
    LeagueSettings,
    LeagueTable,
    Profile,
    ScheduledGame,
)
from service.leagues.timespec import (
    describe_duration,
    parse_duration,
    parse_duration_or_default,
    parse_when,
)

log = logging.getLogger(__name__)

Format = Literal["swiss", "round_robin"]
Points = Literal["0", "0.5", "1"]


# --- pure helpers (tested without Discord) ----------------------------------------------------


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


def table_text(table: LeagueTable) -> str:
    """The league table as a fixed-width block, under which rounds it counts."""
    heading = f"Standings {table.label}"
    return f"{table.league.name}\n{table.standings.to_text(heading=heading)}"


def profile_text(profile: Profile) -> str:
    rank = f"#{profile.rank}" if profile.rank is not None else "unranked"
    rating = profile.rating
    lines = [
        f"{profile.name}: rating {rating.display} ({rank}; skill {rating.mu:.1f} "
        f"± {rating.sigma:.1f})",
        f"Rated games: {rating.games} ({profile.wins} won, {profile.draws} drawn, "
        f"{profile.losses} lost)",
        f"Reliability: {profile.reliability.to_text()}",
    ]
    if profile.leagues:
        lines.append("Leagues: " + ", ".join(profile.leagues))
    return "\n".join(lines)


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
            f"Match deadlines: {s.anchor.describe() or 'the turn length after each turn opens'}",
            f"Bye: {s.bye_points:g} point; missed round (late join): {s.missed_round_points:g}",
            f"Sign-up: {when(s.signup_opens_at)} to {when(s.signup_closes_at)}; check-in: "
            f"{when(s.checkin_opens_at)} to {when(s.checkin_closes_at)}; "
            f"start: {when(s.starts_at)}",
        ]
    )


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
            poster.register(LEAGUE_ANNOUNCEMENTS, LeagueDeliverer(self.bot, self.service.summary))
        await self.alarm.start()

    async def cog_unload(self) -> None:
        poster = poster_of(self.bot)
        if poster is not None:
            poster.unregister(LEAGUE_ANNOUNCEMENTS)
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
        clock="Match deadlines fall at this time of day, HH:MM (24-hour; `off` to remove)",
        days="Match deadlines fall only on these weekdays, like mon-fri (`any` to remove)",
        timezone="The timezone the clock and days are read in, like Europe/Paris",
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
        clock: app_commands.Range[str, 1, 5] | None = None,
        days: app_commands.Range[str, 1, 40] | None = None,
        timezone: app_commands.Range[str, 1, 64] | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self._find(interaction, league)
        anchored = clock is not None or days is not None or timezone is not None
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
            "anchor": (
                changed_anchor(LeagueSettings.of(record).anchor, clock, days, timezone)
                if anchored
                else None
            ),
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

    @settings.autocomplete("timezone")
    async def _timezone_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=n, value=n) for n in zone_names(current)]

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
            interaction, f"```\n{table_text(table)}\n```", image=image, filename="standings.png"
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
        text = f"```\n{summary.to_text()}\n```"
        live = []
        for game in (await self.service.season(record.id)).games:
            if game.outcome is None and game.match_id is not None:
                match = await self.runtime.matches.get_match(game.match_id)
                if match.status in ("active", "paused"):
                    live.append(f"#{match.id}")
        if live:
            text += (
                f"\nMatches still in progress ({', '.join(live)}) play on to their end, but no "
                "longer count for the league; `/admin cancel` stops one."
            )
        await self._reply(interaction, text, ephemeral=True)

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
        await self._reply(interaction, profile_text(profile), ephemeral=True)

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
