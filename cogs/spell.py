"""/spell: a spell's card and rules, and the list of a house's spells."""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from cogs.deck import house_choices
from cogs.errors import RefusalError
from cogs.runtime import Runtime, runtime_of
from cogs.split import EMBED_DESCRIPTION_LIMIT, clip, paged_embeds, send_embeds
from engine.spells.schema import SpellDef
from render.card import render_card


def find_spell(runtime: Runtime, name: str) -> SpellDef:
    spells = runtime.content.spells
    if name in spells:
        return spells[name]
    wanted = name.strip().lower()
    for spell in spells.values():
        if spell.name.lower() == wanted:
            return spell
    import difflib

    close = difflib.get_close_matches(wanted, [s.name.lower() for s in spells.values()], n=1)
    hint = ""
    if close:
        hint = "; did you mean " + next(
            s.name for s in spells.values() if s.name.lower() == close[0]
        )
    raise RefusalError(
        f"There is no spell {name!r}{hint}?" if hint else f"There is no spell {name!r}."
    )


class SpellCog(commands.GroupCog, group_name="spell", group_description="Spells and their cards"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def runtime(self) -> Runtime:
        return runtime_of(self.bot)

    @app_commands.command(name="info", description="A spell's card and rules")
    @app_commands.describe(name="The spell")
    async def info(self, interaction: discord.Interaction, name: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        spell = find_spell(self.runtime, name)
        png = await self.runtime.compute(render_card, spell)
        embed = discord.Embed(
            title=spell.name, description=clip(spell.rules, EMBED_DESCRIPTION_LIMIT)
        )
        embed.add_field(name="Mechanics", value=clip(spell.describe(), 1024), inline=False)
        embed.set_image(url="attachment://card.png")
        await interaction.followup.send(
            embed=embed, file=discord.File(io.BytesIO(png), filename="card.png"), ephemeral=True
        )

    @info.autocomplete("name")
    async def _name_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        typed = current.lower()
        spells = sorted(self.runtime.content.spells.values(), key=lambda s: s.name)
        return [
            app_commands.Choice(name=clip(f"{s.name} ({s.house}, {s.cost})", 100), value=s.id)
            for s in spells
            if typed in s.name.lower() and not s.helper
        ][:25]

    @app_commands.command(name="list", description="The spells of a house")
    @app_commands.choices(house=house_choices())
    async def list_(self, interaction: discord.Interaction, house: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        spells = sorted(
            (s for s in self.runtime.content.spells.values() if s.house == house and not s.helper),
            key=lambda s: (s.cost.total, s.name),
        )
        lines = [f"**{s.name}** {s.cost} · {s.type} · {s.target.describe()}" for s in spells]
        await send_embeds(interaction, paged_embeds(f"House {house.title()}", lines or ["(none)"]))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(SpellCog(bot))
