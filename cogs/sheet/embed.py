"""What a sheet shows: a side's private view and orders, as an embed and an image.

The same sheet goes to a player's DMs each turn and, ephemeral, to ``/orders`` in the match
thread; :mod:`cogs.sheet.views` adds the components that edit it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import discord

from cogs.errors import RefusalError
from cogs.runtime import Legal, MatchLike, Runtime, draw_sheet, side_name, timestamp
from cogs.split import add_field_safely
from engine.notation import NotationContext, context_for, format_orders
from engine.orders import Orders
from engine.view import PlayerView

SHEET_IMAGE = "sheet.png"
COLOURS = {
    "red": discord.Colour.from_rgb(196, 48, 48),
    "blue": discord.Colour.from_rgb(44, 92, 196),
}


@dataclass(frozen=True, slots=True)
class Sheet:
    """Everything one rendering of a sheet needs."""

    match: MatchLike
    view: PlayerView
    orders: Orders
    confirmed: bool
    legal: Legal
    ctx: NotationContext

    @property
    def side(self) -> str:
        assert self.view.viewer is not None
        return str(self.view.viewer)


async def load_sheet(runtime: Runtime, match_id: int, player_id: str) -> Sheet:
    match, view = await runtime.view(match_id, player_id)
    if match.status not in ("active", "paused"):
        raise RefusalError(f"Match #{match_id} is not in progress.")
    orders, confirmed = await runtime.orders_of(match_id, player_id)
    assert view.viewer is not None
    legal = await runtime.legal(match, str(view.viewer))
    return Sheet(match, view, orders, confirmed, legal, context_for(view, runtime.content, orders))


def spell_name(runtime: Runtime, spell_id: str) -> str:
    spell = runtime.content.spells.get(spell_id)
    return spell.name if spell is not None else spell_id


def _hand_lines(runtime: Runtime, sheet: Sheet) -> list[str]:
    lines = []
    for card in sheet.view.hand:
        spell = runtime.content.spells.get(card.spell_id)
        if spell is None:
            lines.append(card.spell_id)
            continue
        cost = spell.cost_on_turn(sheet.view.turn)
        boosted = f", boosted {spell.boosted_cost}" if spell.boosted_cost else ""
        target = spell.target.describe()
        used = " *(ordered)*" if card.uid in sheet.ctx.used_cards else ""
        lines.append(f"**{spell.name}** {cost} {spell.house}{boosted} · {target}{used}")
    lines = lines or ["(empty)"]
    for info in sheet.ctx.hand:
        spell = runtime.content.spells.get(info.spell_id or "")
        if info.source == "hand" or spell is None:
            continue
        if info.source == "hereditary":
            boosted = f", boosted {spell.boosted_cost}" if spell.boosted_cost else ""
            what = f"hereditary, {spell.cost_on_turn(sheet.view.turn)}{boosted}"
        else:
            what = f"bound, free, power {'/'.join(str(p) for p in info.powers)}"
        lines.append(f"**{spell.name}** ({what}) · {spell.target.describe()}")
    return lines


def _group_lines(sheet: Sheet) -> list[str]:
    lines = []
    for number, info in enumerate(sheet.ctx.own_groups, start=1):
        group = next(g for g in sheet.view.groups if g.id == info.group_id)
        units: dict[str, int] = {}
        for minion in group.minions:
            units[minion.unit] = units.get(minion.unit, 0) + 1
        members = ", ".join(f"{n} {unit}" for unit, n in sorted(units.items()))
        lines.append(f"g{number} on {group.coord}: {members}")
    return lines or ["(none)"]


def _structure_lines(sheet: Sheet) -> list[str]:
    lines = []
    for structure in sheet.view.structures:
        if str(structure.owner) != sheet.side:
            continue
        novices = len(structure.novices)
        extra = f", {novices} novice{'s' if novices != 1 else ''}" if novices else ""
        mana = f", makes {structure.mana_type}" if structure.mana_type else ""
        lines.append(f"{structure.kind.title()} {structure.coord}{extra}{mana}")
    return lines or ["(none)"]


def sheet_embed(runtime: Runtime, sheet: Sheet) -> discord.Embed:
    view = sheet.view
    me = view.player(view.viewer) if view.viewer is not None else None
    assert me is not None
    enemy = view.player(me.side.other)
    status = (
        "✅ **Confirmed** — unconfirm to change them."
        if sheet.confirmed
        else "Orders are **not confirmed** (given orders still count at the deadline)."
    )
    paused = " (paused)" if sheet.match.status == "paused" else ""
    embed = discord.Embed(
        title=f"Match #{sheet.match.id} · turn {view.turn} · you are {side_name(sheet.side)}",
        description=(
            f"Deadline {timestamp(sheet.match.deadline_at)}{paused} · initiative: "
            f"{side_name(str(view.initiative))}\n{status}"
        ),
        colour=COLOURS.get(sheet.side),
    )
    add_field_safely(embed, "Hand", "\n".join(_hand_lines(runtime, sheet)))
    add_field_safely(embed, "Mana", f"pool {me.pool}\nper turn {me.production}", inline=True)
    add_field_safely(
        embed,
        "Enemy",
        f"{enemy.hand_size} cards in hand, {enemy.deck_count} in deck\npool {enemy.pool}",
        inline=True,
    )
    add_field_safely(embed, "Your groups", "\n".join(_group_lines(sheet)))
    add_field_safely(embed, "Your structures", "\n".join(_structure_lines(sheet)))
    echo = format_orders(sheet.orders, sheet.ctx)
    add_field_safely(embed, f"Your orders ({len(echo)})", "\n".join(echo) or "none yet")
    embed.set_image(url=f"attachment://{SHEET_IMAGE}")
    embed.set_footer(
        text="Type orders here too: cast Fireball on E5 · move g1 north · train archer at "
        "sanctum · discard Plague · confirm · help"
    )
    return embed


async def sheet_image(runtime: Runtime, sheet: Sheet) -> discord.File:
    """The private image of the sheet, drawn off the event loop."""
    data = await runtime.compute(
        draw_sheet, runtime.state_doc(sheet.match), sheet.side, sheet.orders.to_dict()
    )
    return discord.File(io.BytesIO(data), filename=SHEET_IMAGE)


def resolved_footer(turn: int) -> str:
    return f"Turn {turn} is resolved; the next sheet is on its way."
