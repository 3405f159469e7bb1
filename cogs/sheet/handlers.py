"""What a click on a sheet does: each handler changes the player's orders through the service
and returns the :data:`Screen` to show next, which :mod:`cogs.sheet.views` draws."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

import discord

from cogs.errors import RefusalError
from cogs.runtime import Runtime
from cogs.sheet.embed import Sheet, load_sheet, resolved_footer
from cogs.sheet.ids import decode_target, decode_town, decode_train, encode_cast, page_key
from cogs.split import clip
from engine.coords import Coord
from engine.legal import CastOption
from engine.notation import context_for
from engine.orders import (
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    Orders,
    add_orders,
    all_orders,
    remove_order,
)
from service.order_text import apply_lines

# Typed replies: refusals echoed in full before the rest are counted, and the length of a line.
MAX_REFUSALS_SHOWN = 10
REPLY_LINE_LIMIT = 200


@dataclass(frozen=True, slots=True)
class Click:
    """A click on a sheet's component: its action, match, turn and argument, and what a menu
    chose (or the text a typed-orders box was given)."""

    action: str
    match_id: int
    turn: int
    arg: str | None
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ShowSheet:
    """The sheet with its menus (and ``note`` to the player alone)."""

    sheet: Sheet
    note: str | None = None


@dataclass(frozen=True, slots=True)
class ShowTargets:
    sheet: Sheet
    cast: CastOption


@dataclass(frozen=True, slots=True)
class ShowDests:
    sheet: Sheet
    group_id: int


@dataclass(frozen=True, slots=True)
class ShowMana:
    sheet: Sheet
    at: Coord


@dataclass(frozen=True, slots=True)
class CloseSheet:
    """The turn is over: the sheet, final, without components."""

    sheet: Sheet
    footer: str


@dataclass(frozen=True, slots=True)
class ShowHelp:
    pass


Screen = ShowSheet | ShowTargets | ShowDests | ShowMana | CloseSheet | ShowHelp
Handler = Callable[[Runtime, str, Click], Awaitable[Screen]]


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


def find_cast(sheet: Sheet, value: str) -> CastOption:
    option = next((o for o in sheet.legal.casts if encode_cast(o) == value), None)
    if option is None:
        raise RefusalError("That spell cannot be cast now; open a fresh sheet with /orders.")
    return option


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a batch of typed lines did: the reply lines and the sheet after them."""

    lines: list[str]
    sheet: Sheet
    # The turn the lines' confirm completed (the sheet is then that turn's, confirmed).
    resolved: int | None = None


async def apply_text(runtime: Runtime, sheet: Sheet, player_id: str, text: str) -> Outcome:
    """Apply typed lines to the sheet's orders (:func:`service.order_text.apply_lines`)."""
    outcome = await apply_lines(
        runtime.matches,
        sheet.match.id,
        player_id,
        text,
        sheet.view,
        orders=sheet.orders,
        confirmed=sheet.confirmed,
        content=runtime.content,
    )
    ctx = context_for(sheet.view, runtime.content, outcome.orders)
    after = replace(sheet, orders=outcome.orders, confirmed=outcome.confirmed, ctx=ctx)
    return Outcome(brief(outcome.replies), after, outcome.resolved)


def brief(replies: Sequence[str]) -> list[str]:
    """The replies to typed lines as a player reads them: each clipped (an error repeats what
    was typed), and the refusals after the first few counted instead of echoed."""
    shown: list[str] = []
    refused = 0
    for reply in replies:
        if reply.startswith("❌"):
            refused += 1
            if refused > MAX_REFUSALS_SHOWN:
                continue
        shown.extend(clip(line, REPLY_LINE_LIMIT) for line in reply.split("\n"))
    hidden = refused - MAX_REFUSALS_SHOWN
    if hidden > 0:
        shown.append(f"❌ … and {hidden} more line{'s' * (hidden != 1)} refused")
    return shown


async def _current(runtime: Runtime, player_id: str, click: Click) -> Sheet:
    sheet = await load_sheet(runtime, click.match_id, player_id)
    check_turn(sheet, click.turn)
    return sheet


async def _adding(runtime: Runtime, player_id: str, sheet: Sheet, orders: Orders) -> Screen:
    return ShowSheet(await submit(runtime, sheet, player_id, orders))


async def on_cast(runtime: Runtime, player_id: str, click: Click) -> Screen:
    sheet = await _current(runtime, player_id, click)
    cast = find_cast(sheet, click.values[0])
    targets = cast.targets
    if len(targets) == 1 and targets[0].kind == "globe":
        order = cast.order(targets[0])
        return await _adding(runtime, player_id, sheet, add_orders(sheet.orders, [order]))
    return ShowTargets(sheet, cast)


async def on_target(runtime: Runtime, player_id: str, click: Click) -> Screen:
    sheet = await _current(runtime, player_id, click)
    cast = find_cast(sheet, page_key(click.arg))
    order = cast.order(decode_target(click.values[0]))
    return await _adding(runtime, player_id, sheet, add_orders(sheet.orders, [order]))


async def on_move(runtime: Runtime, player_id: str, click: Click) -> Screen:
    sheet = await _current(runtime, player_id, click)
    return ShowDests(sheet, int(click.values[0]))


async def on_dest(runtime: Runtime, player_id: str, click: Click) -> Screen:
    sheet = await _current(runtime, player_id, click)
    group_id = int(page_key(click.arg) or "0")
    value = click.values[0]
    if value == "stay":
        kept = tuple(m for m in sheet.orders.moves if m.group_id != group_id)
        orders = replace(sheet.orders, moves=kept)
    else:
        orders = add_orders(sheet.orders, [MoveOrder(group_id, Coord.parse(value))])
    return await _adding(runtime, player_id, sheet, orders)


async def on_train(runtime: Runtime, player_id: str, click: Click) -> Screen:
    sheet = await _current(runtime, player_id, click)
    value = click.values[0]
    town = decode_town(value)
    if town is not None:
        return ShowMana(sheet, town)
    orders = add_orders(sheet.orders, [decode_train(value)])
    return await _adding(runtime, player_id, sheet, orders)


async def on_mana(runtime: Runtime, player_id: str, click: Click) -> Screen:
    sheet = await _current(runtime, player_id, click)
    at = Coord.parse(click.arg or "")
    value = click.values[0]
    if value == "default":
        kept = tuple(c for c in sheet.orders.mana_choices if c.structure != at)
        orders = replace(sheet.orders, mana_choices=kept)
    else:
        orders = add_orders(sheet.orders, [ManaChoice(at, value)])
    return await _adding(runtime, player_id, sheet, orders)


async def on_discard(runtime: Runtime, player_id: str, click: Click) -> Screen:
    sheet = await _current(runtime, player_id, click)
    order = DiscardOrder(int(click.values[0]))
    return await _adding(runtime, player_id, sheet, add_orders(sheet.orders, [order]))


async def on_typed(runtime: Runtime, player_id: str, click: Click) -> Screen:
    """Orders typed in the sheet's box (``click.values``): only the refused lines are told."""
    sheet = await _current(runtime, player_id, click)
    outcome = await apply_text(runtime, sheet, player_id, "\n".join(click.values))
    failed = [line for line in outcome.lines if line.startswith("❌")]
    return ShowSheet(outcome.sheet, "\n".join(failed) or None)


async def on_confirm(runtime: Runtime, player_id: str, click: Click) -> Screen:
    sheet = await _current(runtime, player_id, click)
    result = await runtime.matches.confirm(click.match_id, player_id, turn=click.turn)
    if result.resolved is not None:
        return CloseSheet(replace(sheet, confirmed=True), resolved_footer(click.turn))
    return ShowSheet(await load_sheet(runtime, click.match_id, player_id))


async def on_unconfirm(runtime: Runtime, player_id: str, click: Click) -> Screen:
    await _current(runtime, player_id, click)
    await runtime.matches.unconfirm(click.match_id, player_id, turn=click.turn)
    return ShowSheet(await load_sheet(runtime, click.match_id, player_id))


async def on_clear(runtime: Runtime, player_id: str, click: Click) -> Screen:
    await _current(runtime, player_id, click)
    await runtime.matches.clear_orders(click.match_id, player_id, turn=click.turn)
    return ShowSheet(await load_sheet(runtime, click.match_id, player_id))


async def on_undo(runtime: Runtime, player_id: str, click: Click) -> Screen:
    sheet = await _current(runtime, player_id, click)
    listed = all_orders(sheet.orders)
    if not listed:
        raise RefusalError("You have no orders to undo.")
    return await _adding(runtime, player_id, sheet, remove_order(sheet.orders, len(listed)))


async def on_back(runtime: Runtime, player_id: str, click: Click) -> Screen:
    return ShowSheet(await _current(runtime, player_id, click))


async def on_help(runtime: Runtime, player_id: str, click: Click) -> Screen:
    return ShowHelp()


HANDLERS: dict[str, Handler] = {
    "cast": on_cast,
    "target": on_target,
    "move": on_move,
    "dest": on_dest,
    "train": on_train,
    "discard": on_discard,
    "mana": on_mana,
    "confirm": on_confirm,
    "unconfirm": on_unconfirm,
    "clear": on_clear,
    "undo": on_undo,
    "back": on_back,
    "help": on_help,
    "typed": on_typed,
}
