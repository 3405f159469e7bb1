"""/orders (the order sheet, ephemeral, in the match thread) and orders typed in a DM."""

from __future__ import annotations

import logging
import re

import discord
from discord import app_commands
from discord.ext import commands

from cogs.errors import RefusalError, new_incident_id
from cogs.match import find_match, match_choices
from cogs.runtime import Runtime, runtime_of
from cogs.sheet import (
    Sheet,
    acknowledge,
    apply_text,
    load_sheet,
    resolved_footer,
    sheet_embed,
    sheet_image,
    sheet_view,
    update_dm_sheet,
)
from cogs.split import MESSAGE_LIMIT, clip, split_text
from engine.notation import HELP_TEXT, format_orders
from service.errors import ServiceError
from service.numbers import plain_number

log = logging.getLogger(__name__)

# "#12 cast Fireball on E5" picks a match when a player is in several.
MATCH_PREFIX = re.compile(r"^\s*#([0-9]+)\s*[:,-]?\s*")
PLAYING = ("active", "paused")
HELP_WORDS = ("help", "?")


def split_prefixes(content: str) -> tuple[int | None, str]:
    """The match a message names with ``#N`` (on any of its lines, all naming the same one),
    and its lines without the prefixes."""
    named: set[int] = set()
    lines = []
    for line in content.splitlines():
        prefix = MATCH_PREFIX.match(line)
        if prefix is not None:
            number = plain_number(prefix.group(1))
            if number is None:
                raise RefusalError(f"There is no match #{clip(prefix.group(1), 30)}.")
            named.add(number)
        lines.append(line if prefix is None else line[prefix.end() :])
    if len(named) > 1:
        listing = ", ".join(f"#{n}" for n in sorted(named))
        raise RefusalError(
            f"That message names several matches ({listing}); send one message per match."
        )
    return (named.pop() if named else None), "\n".join(lines)


def reply_text(lines: list[str], sheet: Sheet) -> str:
    echo = format_orders(sheet.orders, sheet.ctx)
    state = "confirmed" if sheet.confirmed else "not confirmed"
    body = "\n".join(lines)
    if sheet.match.status in PLAYING and sheet.match.turn == sheet.view.turn:
        body += f"\n\n**Your orders for turn {sheet.view.turn}** ({state}):\n"
        body += "\n".join(echo) if echo else "none yet"
    return body


class OrdersCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def runtime(self) -> Runtime:
        return runtime_of(self.bot)

    @app_commands.command(
        name="orders", description="Your order sheet for a match (only you see it)"
    )
    @app_commands.describe(
        orders="Orders to give first, e.g. 'cast Fireball on E5; move g1 north'",
        match="The match (by default the one of this thread)",
    )
    async def orders(
        self, interaction: discord.Interaction, orders: str | None = None, match: int | None = None
    ) -> None:
        runtime = self.runtime
        await acknowledge(interaction, runtime, ephemeral=True, thinking=True)
        player = str(interaction.user.id)
        found = await find_match(runtime, interaction, match)
        lines: list[str] = []
        async with runtime.order_lock(found.id, player):
            sheet = await load_sheet(runtime, found.id, player)
            if orders:
                outcome = await apply_text(runtime, sheet, player, orders)
                lines, sheet = outcome.lines, outcome.sheet
                if outcome.resolved is not None:
                    await update_dm_sheet(
                        self.bot, runtime, sheet, player, footer=resolved_footer(outcome.resolved)
                    )
                    # The turn is over: show the sheet of the next one.
                    sheet = await load_sheet(runtime, found.id, player)
                else:
                    await update_dm_sheet(self.bot, runtime, sheet, player)
        if sheet.match.status in PLAYING:
            # A DM sheet given up on during an outage is sent again now that the player asks.
            await runtime.outbox.requeue_sheet(found.id, player, sheet.match.turn)
        await interaction.followup.send(
            content=split_text("\n".join(lines), MESSAGE_LIMIT)[0] if lines else "",
            embed=sheet_embed(runtime, sheet),
            file=await sheet_image(self.runtime, sheet),
            view=sheet_view(runtime, sheet),
            ephemeral=True,
        )

    @orders.autocomplete("match")
    async def _match_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        return await match_choices(self.runtime, interaction, current, PLAYING)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot or not message.content.strip():
            return
        try:
            text = await self.typed_orders(str(message.author.id), message.content)
        except (ServiceError, RefusalError) as error:
            text = f"❌ {error}"
        except Exception:
            incident = new_incident_id()
            log.exception("incident %s: typed orders from %s", incident, message.author.id)
            text = f"Something went wrong on our side (incident `{incident}`); please try again."
        for piece in split_text(text, MESSAGE_LIMIT):
            await message.channel.send(piece)

    async def typed_orders(self, player_id: str, content: str) -> str:
        """Apply orders typed in a DM and answer with what each line did and the echo."""
        runtime = self.runtime
        named, content = split_prefixes(content)
        if content.strip().lower() in HELP_WORDS:
            # The notation is the same in every match, so it needs none.
            return f"```\n{HELP_TEXT}\n```"
        if named is not None:
            match_id = (await runtime.scoped_match(None, player_id, named)).id
        else:
            mine = await runtime.matches.list_matches(player_id=player_id, statuses=PLAYING)
            if not mine:
                raise RefusalError(
                    "You are in no match in progress. `/match create` in a server starts one."
                )
            if len(mine) > 1:
                listing = ", ".join(f"#{m.id}" for m in mine[:10])
                raise RefusalError(
                    f"You are in several matches ({listing}); start the message with the "
                    f"match number, e.g. `#{mine[0].id} cast Fireball on E5`."
                )
            match_id = mine[0].id
        async with runtime.order_lock(match_id, player_id):
            sheet = await load_sheet(runtime, match_id, player_id)
            outcome = await apply_text(runtime, sheet, player_id, content)
            if outcome.resolved is not None:
                footer = resolved_footer(outcome.resolved)
                await update_dm_sheet(self.bot, runtime, outcome.sheet, player_id, footer=footer)
                return "\n".join([*outcome.lines, footer])
            await update_dm_sheet(self.bot, runtime, outcome.sheet, player_id)
        return reply_text(outcome.lines, outcome.sheet)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(OrdersCog(bot))
