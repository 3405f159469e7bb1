"""The order sheet: an embed of a side's private view and orders, and the components that edit it.

The same sheet goes to a player's DMs each turn and, ephemeral, to ``/orders`` in the match
thread. Every component's custom_id is ``sanctum:<action>:<match id>:<turn>[:<argument>]`` and is
handled by a :class:`discord.ui.DynamicItem`, so a sheet keeps working after a restart, and a
click on an earlier turn's sheet is refused with a short explanation.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import discord
from discord.ext import commands

from cogs.errors import RefusalError, handle_interaction_error
from cogs.runtime import (
    Legal,
    MatchLike,
    Runtime,
    draw_sheet,
    runtime_of,
    side_name,
    timestamp,
)
from cogs.split import (
    SELECT_OPTIONS_LIMIT,
    SELECT_TEXT_LIMIT,
    add_field_safely,
    chunked,
    clip,
)
from engine.coords import Coord
from engine.legal import CastOption
from engine.notation import (
    HELP_TEXT,
    Action,
    NotationContext,
    NotationError,
    context_for,
    format_order,
    format_orders,
    format_target,
    parse_lines,
)
from engine.orders import (
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    Order,
    OrderNumberError,
    Orders,
    Target,
    TrainOrder,
    add_orders,
    all_orders,
    remove_order,
)
from engine.state import MANA_TYPES
from engine.view import PlayerView
from service.errors import ServiceError

log = logging.getLogger(__name__)

SELECT_ACTIONS = ("cast", "target", "move", "dest", "train", "discard", "mana")
BUTTON_ACTIONS = ("confirm", "unconfirm", "clear", "undo", "type", "back", "help")
CUSTOM_ID = "sanctum:{action}:{match}:{turn}"
_TAIL = r":(?P<match>\d{1,20}):(?P<turn>\d{1,6})(?::(?P<arg>[A-Za-z0-9_-]{1,40}))?"
SELECT_TEMPLATE = rf"sanctum:(?P<action>{'|'.join(SELECT_ACTIONS)}){_TAIL}"
BUTTON_TEMPLATE = rf"sanctum:(?P<action>{'|'.join(BUTTON_ACTIONS)}){_TAIL}"
TYPED_MODAL = re.compile(r"sanctum:typed:(?P<match>\d{1,20}):(?P<turn>\d{1,6})")
SHEET_IMAGE = "sheet.png"
# The train menu's value for "choose the mana of the town on <square>" (D-TOWN-MANA).
TOWN_PREFIX = "town-"
COLOURS = {
    "red": discord.Colour.from_rgb(196, 48, 48),
    "blue": discord.Colour.from_rgb(44, 92, 196),
}


def custom_id(action: str, match_id: int, turn: int, arg: str | None = None) -> str:
    base = CUSTOM_ID.format(action=action, match=match_id, turn=turn)
    return base if arg is None else f"{base}:{arg}"


# -- what the sheet shows


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


# -- components


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
        custom_id=custom_id(action, sheet.match.id, sheet.view.turn, arg),
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
        custom_id=custom_id(action, sheet.match.id, sheet.view.turn),
        label=label,
        style=style,
        disabled=disabled,
        row=row,
    )
    return SheetButton(button)


def encode_cast(option: CastOption) -> str:
    """A short name of a cast option, unique in a turn (it travels in custom ids): the card,
    the hereditary spell or the bound spell's carrier and power, and the boost."""
    if option.source == "hand":
        return f"{option.card_uid}b" if option.boosted else str(option.card_uid)
    if option.source == "hereditary":
        return f"h-{option.spell_id}" + ("-b" if option.boosted else "")
    return f"p{option.power}-{option.bound_source}-{option.spell_id}"


def find_cast(sheet: Sheet, value: str) -> CastOption:
    option = next((o for o in sheet.legal.casts if encode_cast(o) == value), None)
    if option is None:
        raise RefusalError("That spell cannot be cast now; open a fresh sheet with /orders.")
    return option


def encode_target(target: Target) -> str:
    ref = target.ref
    if isinstance(ref, Coord):
        return f"{'s' if target.kind == 'square' else 'G'}-{ref.name}"
    return f"{target.kind[0]}-{'' if ref is None else ref}"


def decode_target(value: str) -> Target:
    code, _, ref = value.partition("-")
    if code == "s":
        return Target("square", Coord.parse(ref))
    if code == "G":
        return Target("group", Coord.parse(ref))
    kinds = {"g": "group", "m": "minion", "s": "square", "t": "structure"}
    if code == "w" or (code == "g" and not ref):
        return Target("globe", None)
    kind = kinds.get(code)
    if kind is None or not ref.isdigit():
        raise RefusalError("That choice could not be read; open a fresh sheet with /orders.")
    if kind == "group":
        return Target("group", int(ref))
    if kind == "minion":
        return Target("minion", int(ref))
    return Target("structure", int(ref))


def encode_train(order: TrainOrder) -> str:
    kind = order.kind if order.mana_type is None else f"mana_{order.mana_type}"
    return f"{kind}-{order.structure.name}"


def decode_train(value: str) -> TrainOrder:
    kind, _, where = value.partition("-")
    at = Coord.parse(where)
    if kind.startswith("mana_"):
        return TrainOrder(at, "mana", kind.removeprefix("mana_"))
    if kind == "swordsman":
        return TrainOrder(at, "swordsman")
    return TrainOrder(at, "archer")


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
                f"{TOWN_PREFIX}{at.name}",
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
                arg=f"{encode_cast(cast)}x{row}",
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
                arg=f"{group_id}x{row}",
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
            title=f"Orders for match #{match_id}", custom_id=f"sanctum:typed:{match_id}:{turn}"
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


# -- acting on a sheet


async def acknowledge(
    interaction: discord.Interaction,
    runtime: Runtime,
    *,
    ephemeral: bool = False,
    thinking: bool = False,
) -> None:
    """Defer at once (Discord's 3 seconds) and tell the benchmark how long it took."""
    if interaction.response.is_done():
        return
    await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)
    latency = (discord.utils.utcnow() - interaction.created_at).total_seconds()
    for listener in runtime.ack_listeners:
        listener(latency)


def check_turn(sheet: Sheet, turn: int) -> None:
    if turn != sheet.match.turn:
        raise RefusalError(
            f"That sheet was for turn {turn} of match #{sheet.match.id}; it is now turn "
            f"{sheet.match.turn}. Use the newest sheet (or /orders in the match thread)."
        )


async def submit(runtime: Runtime, sheet: Sheet, player_id: str, orders: Orders) -> Sheet:
    """Give ``orders`` (replacing the sheet's); the sheet that shows them, without a re-read."""
    await runtime.matches.submit_orders(sheet.match.id, player_id, orders, turn=sheet.view.turn)
    ctx = context_for(sheet.view, runtime.content, orders)
    return Sheet(sheet.match, sheet.view, orders, False, sheet.legal, ctx)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a batch of typed lines did: the reply lines and the sheet after them."""

    lines: list[str]
    sheet: Sheet
    # The turn the lines' confirm completed (the sheet is then that turn's, confirmed).
    resolved: int | None = None


async def apply_text(runtime: Runtime, sheet: Sheet, player_id: str, text: str) -> Outcome:
    """Apply typed lines in order; each line answers for itself and an error stops nothing else."""
    replies: list[str] = []
    resolved: int | None = None
    for result in parse_lines(text, sheet.ctx):
        if resolved is not None:
            replies.append(f"❌ turn {resolved} is resolved; give the rest on the next sheet")
            break
        if isinstance(result, NotationError):
            replies.append(f"❌ {result.message}")
            continue
        try:
            sheet, reply = await _apply_command(
                runtime,
                sheet,
                player_id,
                action=result.action,
                orders=result.orders,
                index=result.index,
            )
        except (ServiceError, NotationError, OrderNumberError, RefusalError) as error:
            message = getattr(error, "message", str(error))
            replies.append(f"❌ {message}")
            continue
        except TurnResolved as done:
            sheet, resolved = done.sheet, done.turn
            reply = f"✅ confirmed; both sides are ready, turn {done.turn} is resolved"
        if reply:
            replies.append(reply)
    return Outcome(replies, sheet, resolved)


class TurnResolved(Exception):  # noqa: N818 (an outcome, not an error)
    """A confirm completed the turn: ``sheet`` is that turn's, confirmed and final."""

    def __init__(self, sheet: Sheet, turn: int) -> None:
        super().__init__(f"turn {turn} is resolved")
        self.sheet = sheet
        self.turn = turn


async def _apply_command(
    runtime: Runtime,
    sheet: Sheet,
    player_id: str,
    *,
    action: Action,
    orders: tuple[Order, ...],
    index: int | None,
) -> tuple[Sheet, str]:
    match_id, turn = sheet.match.id, sheet.view.turn
    if action is Action.ADD:
        described = "; ".join(format_order(o, sheet.ctx) for o in orders)
        sheet = await submit(runtime, sheet, player_id, add_orders(sheet.orders, orders))
        return sheet, f"✅ {described}"
    if action is Action.CANCEL:
        listed = all_orders(sheet.orders)
        number = index if index is not None else len(listed)
        if number == 0:
            raise RefusalError("You have no orders to cancel.")
        removed = format_order(listed[number - 1], sheet.ctx) if number <= len(listed) else ""
        sheet = await submit(runtime, sheet, player_id, remove_order(sheet.orders, number))
        return sheet, f"✅ cancelled {removed}"
    if action is Action.CLEAR:
        await runtime.matches.clear_orders(match_id, player_id, turn=turn)
        return await load_sheet(runtime, match_id, player_id), "✅ all orders cleared"
    if action is Action.CONFIRM:
        result = await runtime.matches.confirm(match_id, player_id, turn=turn)
        runtime.poke()
        if result.resolved is not None:
            raise TurnResolved(replace(sheet, confirmed=True), turn)
        return await load_sheet(runtime, match_id, player_id), (
            "✅ confirmed; waiting for your opponent"
        )
    if action is Action.UNCONFIRM:
        await runtime.matches.unconfirm(match_id, player_id, turn=turn)
        return await load_sheet(
            runtime, match_id, player_id
        ), "✅ unconfirmed; you may change orders"
    if action is Action.SHOW:
        echo = format_orders(sheet.orders, sheet.ctx)
        state = "confirmed" if sheet.confirmed else "not confirmed"
        return sheet, "Your orders (" + state + "):\n" + ("\n".join(echo) or "none yet")
    return sheet, HELP_TEXT


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


def resolved_footer(turn: int) -> str:
    return f"Turn {turn} is resolved; the next sheet is on its way."


Handler = Callable[[discord.Interaction, Runtime, "SheetContext"], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class SheetContext:
    action: str
    match_id: int
    turn: int
    arg: str | None
    values: tuple[str, ...]


async def _dispatch(interaction: discord.Interaction, ctx: SheetContext) -> None:
    client = interaction.client
    assert isinstance(client, commands.Bot)
    runtime = runtime_of(client)
    try:
        if ctx.action == "type":
            # A modal must be the first answer; its submission is checked like any order.
            await interaction.response.send_modal(TypedOrdersModal(ctx.match_id, ctx.turn))
            return
        await acknowledge(interaction, runtime)
        async with runtime.order_lock(ctx.match_id, str(interaction.user.id)):
            await HANDLERS[ctx.action](interaction, runtime, ctx)
    except Exception as error:
        await handle_interaction_error(interaction, error)


async def _current(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> Sheet:
    sheet = await load_sheet(runtime, ctx.match_id, str(interaction.user.id))
    check_turn(sheet, ctx.turn)
    return sheet


async def _on_cast(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    sheet = await _current(interaction, runtime, ctx)
    cast = find_cast(sheet, ctx.values[0])
    targets = cast.targets
    if len(targets) == 1 and targets[0].kind == "globe":
        order = cast.order(targets[0])
        sheet = await submit(
            runtime, sheet, str(interaction.user.id), add_orders(sheet.orders, [order])
        )
        await refresh(interaction, runtime, sheet)
        return
    await interaction.edit_original_response(view=target_view(runtime, sheet, cast))


async def _on_target(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    sheet = await _current(interaction, runtime, ctx)
    # The menu's row follows the last "x"; a spell id may hold one too.
    cast = find_cast(sheet, (ctx.arg or "").rpartition("x")[0])
    order = cast.order(decode_target(ctx.values[0]))
    sheet = await submit(
        runtime, sheet, str(interaction.user.id), add_orders(sheet.orders, [order])
    )
    await refresh(interaction, runtime, sheet)


async def _on_move(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    sheet = await _current(interaction, runtime, ctx)
    group_id = int(ctx.values[0])
    await interaction.edit_original_response(view=dest_view(sheet, group_id))


async def _on_dest(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    sheet = await _current(interaction, runtime, ctx)
    group_id = int((ctx.arg or "0").split("x")[0])
    value = ctx.values[0]
    if value == "stay":
        kept = tuple(m for m in sheet.orders.moves if m.group_id != group_id)
        orders = replace(sheet.orders, moves=kept)
    else:
        orders = add_orders(sheet.orders, [MoveOrder(group_id, Coord.parse(value))])
    sheet = await submit(runtime, sheet, str(interaction.user.id), orders)
    await refresh(interaction, runtime, sheet)


async def _on_train(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    sheet = await _current(interaction, runtime, ctx)
    value = ctx.values[0]
    if value.startswith(TOWN_PREFIX):
        at = Coord.parse(value.removeprefix(TOWN_PREFIX))
        await interaction.edit_original_response(view=mana_view(sheet, at))
        return
    order = decode_train(value)
    sheet = await submit(
        runtime, sheet, str(interaction.user.id), add_orders(sheet.orders, [order])
    )
    await refresh(interaction, runtime, sheet)


async def _on_mana(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    sheet = await _current(interaction, runtime, ctx)
    at = Coord.parse(ctx.arg or "")
    value = ctx.values[0]
    if value == "default":
        kept = tuple(c for c in sheet.orders.mana_choices if c.structure != at)
        orders = replace(sheet.orders, mana_choices=kept)
    else:
        orders = add_orders(sheet.orders, [ManaChoice(at, value)])
    sheet = await submit(runtime, sheet, str(interaction.user.id), orders)
    await refresh(interaction, runtime, sheet)


async def _on_discard(
    interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext
) -> None:
    sheet = await _current(interaction, runtime, ctx)
    order = DiscardOrder(int(ctx.values[0]))
    sheet = await submit(
        runtime, sheet, str(interaction.user.id), add_orders(sheet.orders, [order])
    )
    await refresh(interaction, runtime, sheet)


async def _on_text_action(
    interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext, text: str
) -> None:
    sheet = await _current(interaction, runtime, ctx)
    outcome = await apply_text(runtime, sheet, str(interaction.user.id), text)
    failed = [line for line in outcome.lines if line.startswith("❌")]
    await refresh(interaction, runtime, outcome.sheet, note="\n".join(failed) or None)


async def _on_confirm(
    interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext
) -> None:
    sheet = await _current(interaction, runtime, ctx)
    result = await runtime.matches.confirm(ctx.match_id, str(interaction.user.id), turn=ctx.turn)
    runtime.poke()
    if result.resolved is not None:
        footer = resolved_footer(ctx.turn)
        sheet = replace(sheet, confirmed=True)
        await interaction.edit_original_response(
            embed=sheet_embed(runtime, sheet).set_footer(text=footer), view=None
        )
        if interaction.guild_id is not None:
            await update_dm_sheet(
                interaction.client, runtime, sheet, str(interaction.user.id), footer=footer
            )
        return
    await refresh(
        interaction, runtime, await load_sheet(runtime, ctx.match_id, str(interaction.user.id))
    )


async def _on_unconfirm(
    interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext
) -> None:
    await _current(interaction, runtime, ctx)
    await runtime.matches.unconfirm(ctx.match_id, str(interaction.user.id), turn=ctx.turn)
    await refresh(
        interaction, runtime, await load_sheet(runtime, ctx.match_id, str(interaction.user.id))
    )


async def _on_clear(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    await _current(interaction, runtime, ctx)
    await runtime.matches.clear_orders(ctx.match_id, str(interaction.user.id), turn=ctx.turn)
    await refresh(
        interaction, runtime, await load_sheet(runtime, ctx.match_id, str(interaction.user.id))
    )


async def _on_undo(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    sheet = await _current(interaction, runtime, ctx)
    listed = all_orders(sheet.orders)
    if not listed:
        raise RefusalError("You have no orders to undo.")
    sheet = await submit(
        runtime, sheet, str(interaction.user.id), remove_order(sheet.orders, len(listed))
    )
    await refresh(interaction, runtime, sheet)


async def _on_back(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    await refresh(interaction, runtime, await _current(interaction, runtime, ctx))


async def _on_help(interaction: discord.Interaction, runtime: Runtime, ctx: SheetContext) -> None:
    await interaction.followup.send(f"```\n{HELP_TEXT}\n```", ephemeral=True)


HANDLERS: dict[str, Handler] = {
    "cast": _on_cast,
    "target": _on_target,
    "move": _on_move,
    "dest": _on_dest,
    "train": _on_train,
    "discard": _on_discard,
    "mana": _on_mana,
    "confirm": _on_confirm,
    "unconfirm": _on_unconfirm,
    "clear": _on_clear,
    "undo": _on_undo,
    "back": _on_back,
    "help": _on_help,
}


def _context(match: re.Match[str], values: tuple[str, ...] = ()) -> SheetContext:
    return SheetContext(
        match["action"], int(match["match"]), int(match["turn"]), match["arg"], values
    )


class SheetSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=SELECT_TEMPLATE):
    """Every menu of every sheet, rebuilt from its custom_id when clicked."""

    def __init__(self, item: discord.ui.Select[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> SheetSelect:
        assert isinstance(item, discord.ui.Select)
        return cls(item)

    async def callback(self, interaction: discord.Interaction) -> None:
        found = re.fullmatch(SELECT_TEMPLATE, self.item.custom_id)
        assert found is not None
        data: Any = interaction.data or {}
        values = tuple(str(v) for v in data.get("values", []))
        if not values or values == ("none",):
            await interaction.response.defer()
            return
        await _dispatch(interaction, _context(found, values))


class SheetButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE):
    """Every button of every sheet, rebuilt from its custom_id when clicked."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> SheetButton:
        assert isinstance(item, discord.ui.Button)
        return cls(item)

    async def callback(self, interaction: discord.Interaction) -> None:
        custom = self.item.custom_id or ""
        found = re.fullmatch(BUTTON_TEMPLATE, custom)
        assert found is not None
        await _dispatch(interaction, _context(found))


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
        found = TYPED_MODAL.fullmatch(str(data.get("custom_id", "")))
        if found is None:
            return
        runtime = runtime_of(self.bot)
        text = _modal_text(data)
        ctx = SheetContext("typed", int(found["match"]), int(found["turn"]), None, ())
        try:
            await acknowledge(interaction, runtime)
            async with runtime.order_lock(ctx.match_id, str(interaction.user.id)):
                await _on_text_action(interaction, runtime, ctx, text)
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
