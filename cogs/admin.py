"""/admin: moderators list the server's matches and who is late, pause, resume and extend
them, forfeit or cancel one, hand a seat to another player or the computer, see the turns that
fail to resolve, and look at the outbox and send its given-up announcements again."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.errors import RefusalError
from cogs.runtime import (
    Runtime,
    display_name,
    is_moderator,
    mention,
    runtime_of,
    side_name,
    timestamp,
)
from cogs.split import clip, paged_embeds, send_embeds
from service import MatchRecord, OutboxRecord, OutboxStatus, SeatRecord
from service.matches import (
    COMPUTER_DESCRIPTIONS,
    COMPUTER_LEVELS,
    COMPUTER_PREFIX,
    is_computer,
)

SIDES = [
    app_commands.Choice(name="Red", value="red"),
    app_commands.Choice(name="Blue", value="blue"),
]
LISTED = ("open", "active", "paused")

# How many given-up announcements /admin outbox status lists, and retry requeues at once.
GIVEN_UP_SHOWN = 10
RETRY_BATCH = 1000


@app_commands.default_permissions(manage_guild=True)
@app_commands.guild_only()
class AdminCog(commands.GroupCog, group_name="admin", group_description="Moderator tools"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def runtime(self) -> Runtime:
        return runtime_of(self.bot)

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        # Discord hides these commands from members without Manage Server, but a server may
        # grant them to others; the configured moderator role is checked here as well.
        if is_moderator(interaction, self.runtime.moderator_role):
            return True
        raise app_commands.MissingPermissions(["manage_guild"])

    async def _moderated(self, interaction: discord.Interaction, number: int) -> MatchRecord:
        """Match ``number`` if it is this server's: moderators manage their own server's matches
        only (anyone may make a server and invite the bot), and learn nothing of the others."""
        found = await self.runtime.matches.get_match(number)
        if found.guild_id != str(interaction.guild_id):
            raise RefusalError(f"There is no match #{number} in this server.")
        return found

    @app_commands.command(name="pause", description="Pause a match now")
    async def pause(self, interaction: discord.Interaction, match: int) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self._moderated(interaction, match)
        await self.runtime.matches.pause(found.id, str(interaction.user.id), moderator=True)
        await interaction.followup.send(f"Match #{found.id} is paused.", ephemeral=True)

    @app_commands.command(name="resume", description="Resume a paused match now")
    async def resume(self, interaction: discord.Interaction, match: int) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self._moderated(interaction, match)
        await self.runtime.matches.resume(found.id, str(interaction.user.id), moderator=True)
        await interaction.followup.send(f"Match #{found.id} resumes.", ephemeral=True)

    @app_commands.command(name="extend", description="Move the current deadline later")
    @app_commands.describe(hours="How many hours to add")
    async def extend(
        self,
        interaction: discord.Interaction,
        match: int,
        hours: app_commands.Range[float, 0.0167, 336.0],
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self._moderated(interaction, match)
        await self.runtime.matches.extend(
            found.id, str(interaction.user.id), round(hours * 3600), moderator=True
        )
        await interaction.followup.send(
            f"Match #{found.id}'s deadline is extended.", ephemeral=True
        )

    @app_commands.command(name="matches", description="This server's matches and who is late")
    async def matches(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        runtime = self.runtime
        found = await runtime.matches.list_matches(
            guild_id=str(interaction.guild_id), statuses=LISTED, limit=50
        )
        lines = []
        for match in found:
            head = f"**#{match.id}** · {match.status} · turn {match.turn}"
            if match.status == "active":
                head += f" · deadline {timestamp(match.deadline_at)}"
            lines.append(head + (f" · <#{match.channel_id}>" if match.channel_id else ""))
            for seat in match.seats:
                lines.append(f"  {await self._seat_line(interaction, match, seat)}")
        await send_embeds(
            interaction,
            paged_embeds("Matches in this server", lines or ["No match is open or in progress."]),
        )

    async def _seat_line(
        self, interaction: discord.Interaction, match: MatchRecord, seat: SeatRecord
    ) -> str:
        who = (
            display_name(interaction, self.runtime, seat.player_id)
            if seat.player_id and is_computer(seat.player_id)
            else mention(seat.player_id)
        )
        line = f"{side_name(seat.side) if seat.side else 'Seat'}: {who}"
        if match.status != "active" or seat.player_id is None:
            return line
        record = await self.runtime.matches.current_orders(match.id, seat.player_id)
        line += " — ✅ confirmed" if record is not None and record.confirmed else " — ⏳ waiting"
        if seat.no_shows:
            line += f" · {seat.no_shows} missed turn(s) in a row"
        return line

    @app_commands.command(name="forfeit", description="End a match in progress as lost by a side")
    @app_commands.choices(side=SIDES)
    async def forfeit(self, interaction: discord.Interaction, match: int, side: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self._moderated(interaction, match)
        await self.runtime.matches.forfeit(found.id, side)
        await interaction.followup.send(
            f"Match #{found.id} is over: {side_name(side)} forfeits.", ephemeral=True
        )

    @app_commands.command(
        name="cancel", description="Cancel a match, begun or not, without a winner"
    )
    async def cancel(self, interaction: discord.Interaction, match: int) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self._moderated(interaction, match)
        await self.runtime.matches.moderator_cancel(found.id)
        await interaction.followup.send(f"Match #{found.id} is cancelled.", ephemeral=True)

    @app_commands.command(
        name="seat", description="Give a side's seat to another player, or to the computer"
    )
    @app_commands.describe(
        side="The side whose seat changes hands",
        player="Who plays it from now on",
        computer="Or the computer at this level (give the seat back later with `player`)",
    )
    @app_commands.choices(
        side=SIDES,
        computer=[
            app_commands.Choice(name=f"{level}: {COMPUTER_DESCRIPTIONS[level]}", value=level)
            for level in COMPUTER_LEVELS
        ],
    )
    async def seat(
        self,
        interaction: discord.Interaction,
        match: int,
        side: str,
        player: discord.User | None = None,
        computer: str | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        if (player is None) == (computer is None):
            raise RefusalError("Name either the `player` who takes the seat or a `computer` level.")
        if player is not None and player.bot:
            raise RefusalError("Bots cannot play; give the seat to a person or the computer.")
        found = await self._moderated(interaction, match)
        if player is not None:
            self.runtime.names[str(player.id)] = player.display_name
        taker = str(player.id) if player is not None else f"{COMPUTER_PREFIX}{computer}"
        await self.runtime.matches.hand_seat(found.id, side, taker, str(interaction.user.id))
        who = player.mention if player is not None else f"the computer ({computer})"
        await interaction.followup.send(
            f"{side_name(side)}'s seat in match #{found.id} now belongs to {who}.", ephemeral=True
        )

    @app_commands.command(name="failing", description="Turns that fail to resolve, and why")
    async def failing(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        failures = await self.runtime.matches.failing(str(interaction.guild_id))
        if not failures:
            await interaction.followup.send("Every turn resolves.", ephemeral=True)
            return
        lines = [
            f"Match #{f.match_id}, turn {f.turn}: failed {f.attempts} time(s) since "
            f"{timestamp(f.first_failed_at)}; tried again {timestamp(f.retry_at)}. "
            f"Last error: `{_code(f.last_error, 200)}`"
            for f in failures
        ]
        text = "The bot keeps trying these:\n" + "\n".join(lines)
        await interaction.followup.send(clip(text, 2000), ephemeral=True)

    outbox = app_commands.Group(name="outbox", description="Announcements waiting and given up")

    @outbox.command(name="status", description="Announcements waiting, delivered and given up")
    async def outbox_status(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        outbox = self.runtime.outbox
        guild = str(interaction.guild_id)
        async with outbox.store.read() as s:
            counts = {
                status: await s.count_outbox(status, guild_id=guild) for status in OutboxStatus
            }
        text = ", ".join(f"{n} {status}" for status, n in counts.items())
        text = f"This server's match announcements: {text}."
        dead = await outbox.given_up(guild, limit=GIVEN_UP_SHOWN)
        if dead:
            text += "\nGiven up here, newest first (`/admin outbox retry` sends them again):"
            text += "".join(
                f"\n- {_owner(item)}, {item.kind.replace('_', ' ')}: `{item.key}` "
                f"({item.attempts} attempt(s), {timestamp(item.delivered_at)}): "
                f"`{_code(item.last_error or 'no error recorded', 160)}`"
                for item in dead
            )
        await interaction.followup.send(clip(text, 2000), ephemeral=True)

    @outbox.command(name="retry", description="Send the announcements that were given up again")
    @app_commands.describe(match="Only this match's (by default every one of this server)")
    async def outbox_retry(
        self, interaction: discord.Interaction, match: int | None = None
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        if match is not None:
            await self._moderated(interaction, match)
        outbox = self.runtime.outbox
        dead = await outbox.given_up(str(interaction.guild_id), limit=RETRY_BATCH)
        if match is not None:
            dead = [item for item in dead if item.match_id == match]
        count = await outbox.requeue(dead)
        text = f"{count} announcement(s) go out again." if count else "Nothing was given up."
        await interaction.followup.send(text, ephemeral=True)


def _owner(item: OutboxRecord) -> str:
    return f"match #{item.match_id}" if item.match_id is not None else "league"


def _code(text: str, limit: int) -> str:
    """``text`` fit to show between backticks: no backtick of its own, at most ``limit`` long."""
    return clip(text.replace("`", "'"), limit)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(AdminCog(bot))
