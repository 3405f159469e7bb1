"""/admin: moderators pause, resume and extend matches, see the turns that fail to resolve, and
look at the outbox."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.errors import RefusalError
from cogs.runtime import Runtime, is_moderator, runtime_of, timestamp
from cogs.split import clip
from service import MatchRecord, OutboxStatus

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
        async with outbox.store.read() as s:
            counts = {status: await s.count_outbox(status) for status in OutboxStatus}
        text = "Outbox: " + ", ".join(f"{n} {status}" for status, n in counts.items()) + "."
        dead = await outbox.given_up(str(interaction.guild_id), limit=GIVEN_UP_SHOWN)
        if dead:
            text += "\nGiven up here, newest first (`/admin outbox retry` sends them again):"
            text += "".join(
                f"\n- `{item.key}` ({item.attempts} attempt(s), {timestamp(item.delivered_at)}): "
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


def _code(text: str, limit: int) -> str:
    """``text`` fit to show between backticks: no backtick of its own, at most ``limit`` long."""
    return clip(text.replace("`", "'"), limit)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(AdminCog(bot))
