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

    @app_commands.command(name="outbox", description="Announcements waiting, delivered and failed")
    async def outbox(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        store = self.runtime.outbox.store
        async with store.read() as s:
            counts = {status: await s.count_outbox(status) for status in OutboxStatus}
        text = ", ".join(f"{n} {status}" for status, n in counts.items())
        await interaction.followup.send(f"Outbox: {text}.", ephemeral=True)


def _code(text: str, limit: int) -> str:
    """``text`` fit to show between backticks: no backtick of its own, at most ``limit`` long."""
    return clip(text.replace("`", "'"), limit)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(AdminCog(bot))
