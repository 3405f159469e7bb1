"""The components of a sheet: its menus and buttons, the views they make, and what a click shows.

Every component is a :class:`~cogs.sheet.ids.PersistentItem`, so a sheet keeps working after a
restart, and a click on an earlier turn's sheet is refused with a short explanation. A click runs
its handler (:mod:`cogs.sheet.handlers`) and shows the :data:`~cogs.sheet.handlers.Screen` it
returns.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

from cogs.errors import RefusalError, handle_interaction_error
from cogs.runtime import Runtime, runtime_of, side_name
from cogs.sheet.embed import Sheet, load_sheet, sheet_embed, sheet_image, spell_name
from cogs.sheet.handlers import (
    HANDLERS,
    Click,
    CloseSheet,
    Screen,
    ShowDests,
    ShowHelp,
    ShowMana,
    ShowSheet,
    ShowTargets,
    acknowledge,
)
from cogs.sheet.ids import (
    SHEET_BUTTONS,
    SHEET_SELECTS,
    TYPED,
    ComponentId,
    PersistentItem,
    encode_cast,
    encode_target,
    encode_town,
    encode_train,
    paged,
)
from cogs.split import SELECT_OPTIONS_LIMIT, SELECT_TEXT_LIMIT, chunked, clip
from engine.coords import Coord
from engine.legal import CastOption
from engine.notation import HELP_TEXT, format_target
from engine.orders import Target, all_orders
from engine.state import MANA_TYPES
from service.errors import ServiceError

log = logging.getLogger(__name__)

# Seconds a DM sheet's image waits after a change of orders before it is redrawn, so a burst
# of clicks or typed lines draws it once.
REDRAW_DELAY = 1.5


def _option(label: str, value: str, description: str | None = None) -> discord.SelectOption:
    return discord.SelectOption(
        label=clip(label, SELECT_TEXT_LIMIT),
        value=value,
        description=clip(description, SELECT_TEXT_LIMIT) if description else None,
    )


def _select(
    action: str,
    sheet: Sheet,
    placeholder: str,
    options: list[discord.SelectOption],
    *,
    arg: str | None = None,
    row: int | None = None,
    disabled: bool = False,
) -> SheetSelect:
    if not options:
        options = [_option("nothing available", "none")]
        disabled = True
    menu: discord.ui.Select[Any] = discord.ui.Select(
        custom_id=ComponentId(action, sheet.match.id, sheet.view.turn, arg).encode(),
        placeholder=clip(placeholder, 150),
        options=options[:SELECT_OPTIONS_LIMIT],
        disabled=disabled,
        row=row,
    )
    return SheetSelect(menu)


def _button(
    action: str,
    sheet: Sheet,
    label: str,
    style: discord.ButtonStyle,
    *,
    disabled: bool = False,
    row: int | None = 4,
) -> SheetButton:
    button: discord.ui.Button[Any] = discord.ui.Button(
        custom_id=ComponentId(action, sheet.match.id, sheet.view.turn).encode(),
        label=label,
        style=style,
        disabled=disabled,
        row=row,
    )
    return SheetButton(button)


def _cast_options(runtime: Runtime, sheet: Sheet) -> list[discord.SelectOption]:
    options = []
    for option in sheet.legal.casts:
        spell = runtime.content.spells.get(option.spell_id)
        if spell is None or option.given(sheet.orders, runtime.content):
            continue
        targets = len(option.targets)
        counted = f"{targets} target{'s' * (targets != 1)}"
        if option.source == "bound":
            label, what = f"{option.label} (free)", f"bound spell · {counted}"
        else:
            cost = spell.boosted_cost if option.boosted else spell.cost_on_turn(sheet.view.turn)
            label = f"{option.label} ({cost})"
            kind = "the stronger version" if option.boosted else spell.target.describe()
            hereditary = "hereditary · " if option.source == "hereditary" else ""
            what = f"{hereditary}{kind} · {counted}"
        options.append(_option(label, encode_cast(option), what))
    return options


def _move_options(sheet: Sheet) -> list[discord.SelectOption]:
    options = []
    moving = {m.group_id: m.dest for m in sheet.orders.moves}
    for number, info in enumerate(sheet.ctx.own_groups, start=1):
        if info.group_id not in sheet.legal.moves:
            continue
        where = f" → {moving[info.group_id]}" if info.group_id in moving else ""
        options.append(
            _option(
                f"g{number} on {info.at}{where}", str(info.group_id), f"{len(info.minions)} minions"
            )
        )
    return options


def _train_options(sheet: Sheet) -> list[discord.SelectOption]:
    options = []
    for at, orders in sheet.legal.trains.items():
        structure = sheet.view.structure_at(at)
        novices = len(structure.novices) if structure is not None else 0
        for order in orders:
            what = order.kind if order.mana_type is None else f"mana ({order.mana_type})"
            options.append(
                _option(f"{what} at {at}", encode_train(order), f"{novices} novice(s) waiting")
            )
    chosen = {c.structure: c.mana_type for c in sheet.orders.mana_choices}
    towns = []
    for at in _choice_squares(sheet):
        structure = sheet.view.structure_at(at)
        kind = structure.kind if structure is not None else "town"
        now = chosen.get(at)
        towns.append(
            _option(
                f"mana of the {kind} on {at} if you take it",
                encode_town(at),
                f"chosen: {now}" if now else f"default: {_primary(sheet)}",
            )
        )
    # The menu holds 25 options: the rare town choices keep their place.
    return options[: max(0, SELECT_OPTIONS_LIMIT - len(towns))] + towns


def _choice_squares(sheet: Sheet) -> list[Coord]:
    """Where a mana choice can be given: the towns and colonies the side may take this turn,
    and any it already chose for."""
    squares = list(sheet.legal.captures)
    squares += [c.structure for c in sheet.orders.mana_choices if c.structure not in squares]
    return squares


def _primary(sheet: Sheet) -> str:
    """What a captured structure makes without a choice (D-TOWN-MANA)."""
    return sheet.ctx.mana_types[0] if sheet.ctx.mana_types else "your house's primary type"


def _discard_options(runtime: Runtime, sheet: Sheet) -> list[discord.SelectOption]:
    return [
        _option(spell_name(runtime, card.spell_id), str(card.uid))
        for card in sheet.view.hand
        if card.uid not in sheet.ctx.used_cards
    ]


def sheet_view(runtime: Runtime, sheet: Sheet) -> discord.ui.View:
    """The main components: cast, move, train, discard, and the buttons."""
    view = discord.ui.View(timeout=None)
    locked = sheet.confirmed or sheet.match.status != "active"
    train = "Train a novice or choose a town's mana…" if _choice_squares(sheet) else None
    view.add_item(
        _select(
            "cast", sheet, "Cast a spell…", _cast_options(runtime, sheet), row=0, disabled=locked
        )
    )
    view.add_item(
        _select("move", sheet, "Move a group…", _move_options(sheet), row=1, disabled=locked)
    )
    view.add_item(
        _select(
            "train",
            sheet,
            train or "Train a novice…",
            _train_options(sheet),
            row=2,
            disabled=locked,
        )
    )
    view.add_item(
        _select(
            "discard",
            sheet,
            "Discard a spell…",
            _discard_options(runtime, sheet),
            row=3,
            disabled=locked,
        )
    )
    view.add_item(
        _button("confirm", sheet, "Confirm", discord.ButtonStyle.success, disabled=locked)
    )
    view.add_item(
        _button(
            "unconfirm",
            sheet,
            "Unconfirm",
            discord.ButtonStyle.secondary,
            disabled=not sheet.confirmed,
        )
    )
    has_orders = bool(all_orders(sheet.orders))
    view.add_item(
        _button(
            "undo",
            sheet,
            "Undo last",
            discord.ButtonStyle.secondary,
            disabled=locked or not has_orders,
        )
    )
    view.add_item(
        _button(
            "clear", sheet, "Clear", discord.ButtonStyle.danger, disabled=locked or not has_orders
        )
    )
    view.add_item(
        _button("type", sheet, "Type orders…", discord.ButtonStyle.primary, disabled=locked)
    )
    return view


def _target_label(runtime: Runtime, sheet: Sheet, target: Target) -> tuple[str, str | None]:
    where = format_target(target, sheet.ctx)
    if target.kind == "group" and isinstance(target.ref, int):
        group = next((g for g in sheet.view.groups if g.id == target.ref), None)
        if group is not None:
            return f"{where} · {side_name(str(group.owner))} group", f"{len(group.minions)} minions"
    if target.kind == "minion":
        for group in sheet.view.groups:
            for minion in group.minions:
                if minion.id == target.ref:
                    return f"{where} · {side_name(str(group.owner))} {minion.unit}", None
    if target.kind == "structure":
        structure = next((s for s in sheet.view.structures if s.id == target.ref), None)
        if structure is not None:
            return f"{where} · {structure.owner} {structure.kind}", None
    if target.kind == "square" and isinstance(target.ref, Coord):
        square = next((s for s in sheet.view.squares if s.coord == target.ref), None)
        return where, square.terrain if square is not None else None
    return where, None


def target_view(runtime: Runtime, sheet: Sheet, cast: CastOption) -> discord.ui.View:
    """Up to four menus of the spell's legal targets, and a way back."""
    view = discord.ui.View(timeout=None)
    options = []
    for target in cast.targets:
        label, description = _target_label(runtime, sheet, target)
        options.append(_option(label, encode_target(target), description))
    pages = chunked(options, SELECT_OPTIONS_LIMIT)[:4]
    for row, page in enumerate(pages):
        first = page[0].label.split(" ")[0]
        last = page[-1].label.split(" ")[0]
        hint = f" ({first}–{last})" if len(pages) > 1 else ""
        view.add_item(
            _select(
                "target",
                sheet,
                f"Choose the target{hint}…",
                list(page),
                arg=paged(encode_cast(cast), row),
                row=row,
            )
        )
    view.add_item(_button("back", sheet, "Back", discord.ButtonStyle.secondary))
    return view


def dest_view(sheet: Sheet, group_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    here = next((g.at for g in sheet.ctx.own_groups if g.group_id == group_id), None)
    options = [_option("stay (no move)", "stay")]
    for dest in sheet.legal.moves.get(group_id, []):
        if dest != here:
            options.append(_option(str(dest), dest.name, _direction(here, dest)))
    for row, page in enumerate(chunked(options, SELECT_OPTIONS_LIMIT)[:4]):
        view.add_item(
            _select(
                "dest",
                sheet,
                f"Move {sheet.ctx.group_label(group_id)} to…",
                list(page),
                arg=paged(str(group_id), row),
                row=row,
            )
        )
    view.add_item(_button("back", sheet, "Back", discord.ButtonStyle.secondary))
    return view


def mana_view(sheet: Sheet, at: Coord) -> discord.ui.View:
    """The six mana types the town or colony on ``at`` may make once taken, and a way back."""
    view = discord.ui.View(timeout=None)
    chosen = next((c.mana_type for c in sheet.orders.mana_choices if c.structure == at), None)
    primary = _primary(sheet)
    options = [_option(f"no choice ({primary}, the default)", "default")]
    for mana_type in MANA_TYPES:
        notes = []
        if mana_type in sheet.ctx.mana_types:
            notes.append("your house's type")
        if mana_type == chosen:
            notes.append("chosen now")
        options.append(_option(mana_type, mana_type, ", ".join(notes) or None))
    view.add_item(
        _select("mana", sheet, f"If you take {at}, it makes…", options, arg=at.name, row=0)
    )
    view.add_item(_button("back", sheet, "Back", discord.ButtonStyle.secondary))
    return view


def _direction(here: Coord | None, dest: Coord) -> str | None:
    if here is None:
        return None
    dx, dy = dest.x - here.x, dest.y - here.y
    words = []
    if dy:
        words.append(f"{abs(dy)} {'north' if dy > 0 else 'south'}")
    if dx:
        words.append(f"{abs(dx)} {'east' if dx > 0 else 'west'}")
    return ", ".join(words)


class TypedOrdersModal(discord.ui.Modal):
    """Orders typed in the notation; the submission is handled by :class:`SheetCog`."""

    def __init__(self, match_id: int, turn: int) -> None:
        super().__init__(
            title=f"Orders for match #{match_id}",
            custom_id=ComponentId(TYPED, match_id, turn).encode(),
        )
        self.add_item(
            discord.ui.TextInput(
                label="One order per line",
                custom_id="orders",
                style=discord.TextStyle.paragraph,
                placeholder="cast Fireball on E5\nmove g1 north\ntrain archer at sanctum\nconfirm",
                max_length=1000,
            )
        )


# -- what a click shows


async def show(interaction: discord.Interaction, runtime: Runtime, screen: Screen) -> None:
    """Show ``screen`` in the message the interaction came from."""
    match screen:
        case ShowSheet(sheet, note):
            await refresh(interaction, runtime, sheet, note=note)
        case ShowTargets(sheet, cast):
            await interaction.edit_original_response(view=target_view(runtime, sheet, cast))
        case ShowDests(sheet, group_id):
            await interaction.edit_original_response(view=dest_view(sheet, group_id))
        case ShowMana(sheet, at):
            await interaction.edit_original_response(view=mana_view(sheet, at))
        case CloseSheet(sheet, footer):
            await interaction.edit_original_response(
                embed=sheet_embed(runtime, sheet).set_footer(text=footer), view=None
            )
            if interaction.guild_id is not None:
                await update_dm_sheet(
                    interaction.client, runtime, sheet, str(interaction.user.id), footer=footer
                )
        case ShowHelp():
            await interaction.followup.send(f"```\n{HELP_TEXT}\n```", ephemeral=True)


async def refresh(
    interaction: discord.Interaction, runtime: Runtime, sheet: Sheet, *, note: str | None = None
) -> None:
    """Show ``sheet`` in the message the interaction came from (and in the DM sheet, when
    that message is the ephemeral one in the match's channel)."""
    if sheet.match.turn != sheet.view.turn or sheet.match.status != "active":
        return
    await interaction.edit_original_response(
        embed=sheet_embed(runtime, sheet), view=sheet_view(runtime, sheet)
    )
    if interaction.guild_id is not None:
        await update_dm_sheet(interaction.client, runtime, sheet, str(interaction.user.id))
    else:
        redraw_later(
            interaction.client, runtime, sheet.match.id, str(interaction.user.id), sheet.view.turn
        )
    if note:
        await interaction.followup.send(clip(note, 2000), ephemeral=True)


async def update_dm_sheet(
    client: discord.Client, runtime: Runtime, sheet: Sheet, player_id: str, *, footer: str = ""
) -> None:
    """Show ``sheet`` in the player's DM sheet of its turn, if one was sent: typed orders, a
    confirm and a moved deadline keep it in step. With ``footer`` (the turn is over) the sheet
    loses its buttons."""
    message_id = await runtime.dm_sheet(sheet.match.id, player_id, sheet.view.turn)
    if message_id is None:
        return
    try:
        user = client.get_user(int(player_id)) or await client.fetch_user(int(player_id))
        channel = user.dm_channel or await user.create_dm()
        message = channel.get_partial_message(message_id)
        embed = sheet_embed(runtime, sheet)
        if footer:
            await message.edit(embed=embed.set_footer(text=footer), view=None)
            return
        old = await message.fetch()
        if old.embeds and old.embeds[0].footer.text:
            embed.set_footer(text=old.embeds[0].footer.text)  # the delivery's key marker
        await message.edit(embed=embed, view=sheet_view(runtime, sheet))
    except discord.HTTPException:
        log.info("could not refresh the DM sheet of %s in match %s", player_id, sheet.match.id)
        return
    redraw_later(client, runtime, sheet.match.id, player_id, sheet.view.turn)


def redraw_later(
    client: discord.Client, runtime: Runtime, match_id: int, player_id: str, turn: int
) -> None:
    """Redraw the DM sheet's image with the orders as they are in a moment: the embed changes
    at once, the image (the slow part) once per burst of changes."""
    key = (match_id, player_id, turn)
    if key in runtime.redraws:
        return  # the pending redraw will draw the latest orders
    runtime.redraws[key] = asyncio.create_task(_redraw(client, runtime, match_id, player_id, turn))


async def _redraw(
    client: discord.Client, runtime: Runtime, match_id: int, player_id: str, turn: int
) -> None:
    await asyncio.sleep(REDRAW_DELAY)
    # From here on a change of orders asks for a redraw of its own: this one may have read
    # the orders before it.
    runtime.redraws.pop((match_id, player_id, turn), None)
    try:
        async with runtime.order_lock(match_id, player_id):
            sheet = await load_sheet(runtime, match_id, player_id)
            message_id = await runtime.dm_sheet(match_id, player_id, turn)
            if message_id is None or sheet.match.turn != turn or sheet.match.status != "active":
                return
            user = client.get_user(int(player_id)) or await client.fetch_user(int(player_id))
            channel = user.dm_channel or await user.create_dm()
            message = await channel.fetch_message(message_id)
            if not message.components:
                return  # closed since: the turn is over
            embed = sheet_embed(runtime, sheet)
            if message.embeds and message.embeds[0].footer.text:
                embed.set_footer(text=message.embeds[0].footer.text)
            image = await sheet_image(runtime, sheet)
            await message.edit(embed=embed, attachments=[image], view=sheet_view(runtime, sheet))
    except (discord.HTTPException, ServiceError, RefusalError):
        log.info("could not redraw the DM sheet of %s in match %s", player_id, match_id)
    except Exception:
        log.exception("redrawing the DM sheet of %s in match %s failed", player_id, match_id)


async def close_dm_sheet(
    client: discord.Client,
    runtime: Runtime,
    match_id: int,
    player_id: str,
    *,
    turn: int,
    footer: str,
) -> None:
    """End the player's DM sheet of ``turn``, if one was sent: it keeps what it showed, says
    why it is over in ``footer`` and loses its components, so no old sheet looks live."""
    message_id = await runtime.dm_sheet(match_id, player_id, turn)
    if message_id is None:
        return
    try:
        user = client.get_user(int(player_id)) or await client.fetch_user(int(player_id))
        channel = user.dm_channel or await user.create_dm()
        message = await channel.fetch_message(message_id)
        if not message.components and message.embeds and message.embeds[0].footer.text == footer:
            return
        embeds = message.embeds[:1]
        if embeds:
            embeds[0].set_footer(text=footer)
        await message.edit(embeds=embeds, view=None)
    except discord.HTTPException:
        log.info("could not close the DM sheet of %s in match %s", player_id, match_id)


async def dispatch(interaction: discord.Interaction, click: Click) -> None:
    """Answer a click on a sheet's component: acknowledge it, run its handler while holding the
    player's order lock, and show what the handler returns."""
    client = interaction.client
    runtime = runtime_of(client)
    try:
        if click.action == "type":
            # A modal must be the first answer; its submission is checked like any order.
            await interaction.response.send_modal(TypedOrdersModal(click.match_id, click.turn))
            return
        await acknowledge(interaction, runtime)
        player = str(interaction.user.id)
        async with runtime.order_lock(click.match_id, player):
            screen = await HANDLERS[click.action](runtime, player, click)
            await show(interaction, runtime, screen)
    except Exception as error:
        await handle_interaction_error(interaction, error)


def _click(found: ComponentId, values: tuple[str, ...] = ()) -> Click:
    assert found.turn is not None, "every sheet component belongs to a turn"
    return Click(found.action, found.match_id, found.turn, found.arg, values)


class SheetSelect(PersistentItem[discord.ui.Select[Any]], actions=SHEET_SELECTS):
    """Every menu of every sheet."""

    async def callback(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        values = tuple(str(v) for v in data.get("values", []))
        if not values or values == ("none",):
            await interaction.response.defer()
            return
        await dispatch(interaction, _click(self.component_id, values))


class SheetButton(PersistentItem[discord.ui.Button[Any]], actions=SHEET_BUTTONS):
    """Every button of every sheet."""

    async def callback(self, interaction: discord.Interaction) -> None:
        await dispatch(interaction, _click(self.component_id))
