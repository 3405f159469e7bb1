"""The order sheet: an embed of a side's private view and orders, and the components that edit it.

- :mod:`~cogs.sheet.ids`: the custom_id of every component the bot sends, and the values of the
  sheet's menus;
- :mod:`~cogs.sheet.embed`: what a sheet shows;
- :mod:`~cogs.sheet.views`: its components, and what a click shows;
- :mod:`~cogs.sheet.handlers`: what a click does.

This module is the extension: the cog registers the components and answers the typed-orders box.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.ext import commands

from cogs.errors import handle_interaction_error
from cogs.runtime import runtime_of
from cogs.sheet.embed import Sheet, load_sheet, resolved_footer, sheet_embed, sheet_image
from cogs.sheet.handlers import HANDLERS, Click, acknowledge, apply_text
from cogs.sheet.ids import TYPED, ComponentId
from cogs.sheet.views import (
    SheetButton,
    SheetSelect,
    close_dm_sheet,
    sheet_view,
    show,
    update_dm_sheet,
)

__all__ = [
    "Sheet",
    "SheetCog",
    "acknowledge",
    "apply_text",
    "close_dm_sheet",
    "load_sheet",
    "resolved_footer",
    "setup",
    "sheet_embed",
    "sheet_image",
    "sheet_view",
    "update_dm_sheet",
]


class SheetCog(commands.Cog):
    """Registers the sheet's dynamic items and handles typed-orders modals."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(SheetSelect, SheetButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(SheetSelect, SheetButton)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: Any = interaction.data or {}
        found = ComponentId.decode(str(data.get("custom_id", "")))
        if found is None or found.action != TYPED or found.turn is None:
            return
        runtime = runtime_of(self.bot)
        click = Click(TYPED, found.match_id, found.turn, None, (_modal_text(data),))
        player = str(interaction.user.id)
        try:
            await acknowledge(interaction, runtime)
            async with runtime.order_lock(click.match_id, player):
                await show(interaction, runtime, await HANDLERS[TYPED](runtime, player, click))
        except Exception as error:
            await handle_interaction_error(interaction, error)


def _modal_text(data: Any) -> str:
    texts: list[str] = []
    for row in data.get("components", []):
        inner = row.get("components") or ([row["component"]] if "component" in row else [])
        for component in inner:
            if component.get("custom_id") == "orders":
                texts.append(str(component.get("value", "")))
    return "\n".join(texts)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(SheetCog(bot))
