"""Orders typed in the notation: a message of lines, each applied in turn to a player's orders.

A DM, the ``orders`` option of ``/orders`` and the sheet's "Type orders" box all end here. Every
line answers for itself (``✅ ...`` or ``❌ ...``) and a refused line stops nothing else, except a
``confirm`` that completes the turn: the turn is then resolved, so the lines after it are
answered with a refusal instead of being applied to a turn that is over.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.content import Content
from engine.notation import (
    HELP_TEXT,
    Action,
    Command,
    NotationError,
    context_for,
    format_order,
    format_orders,
    parse_lines,
)
from engine.orders import OrderNumberError, Orders, add_orders, all_orders, remove_order
from engine.view import PlayerView
from service.errors import ServiceError
from service.matches import MatchService

# Lines read from one message: more than any turn's orders need.
MAX_LINES = 40


@dataclass(frozen=True, slots=True)
class TextOutcome:
    """What a message of typed lines did: one reply per line that asked for something, and the
    player's orders after it. ``resolved`` is the turn a ``confirm`` in it completed (the orders
    are then that turn's, confirmed and final)."""

    replies: tuple[str, ...]
    orders: Orders
    confirmed: bool
    resolved: int | None = None


@dataclass(frozen=True, slots=True)
class _Step:
    """One line's effect: its reply, and the orders after it."""

    reply: str
    orders: Orders
    confirmed: bool
    resolved: bool = False


async def apply_lines(
    matches: MatchService,
    match_id: int,
    player_id: str,
    text: str,
    view: PlayerView,
    *,
    orders: Orders,
    confirmed: bool,
    content: Content,
) -> TextOutcome:
    """Apply the lines of ``text`` in order to the player's ``orders`` (as ``view``'s turn has
    them, ``confirmed`` or not), through ``matches``."""
    player = _Player(matches, match_id, player_id, view, content)
    replies: list[str] = []
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        # Each line may write the orders: a pasted wall of text must not become hundreds of
        # writes (and replies).
        text = "\n".join(lines[:MAX_LINES])
    commands = parse_lines(text, context_for(view, content, orders))
    for position, command in enumerate(commands, start=1):
        if isinstance(command, NotationError):
            replies.append(f"❌ {command.message}")
            continue
        try:
            step = await player.apply(command, orders, confirmed)
        except (ServiceError, NotationError, OrderNumberError) as refusal:
            replies.append(f"❌ {refusal.message}")
            continue
        replies.append(step.reply)
        orders, confirmed = step.orders, step.confirmed
        if step.resolved:
            if position < len(commands):
                replies.append(f"❌ turn {view.turn} is resolved; give the rest on the next sheet")
            return TextOutcome(tuple(replies), orders, confirmed, resolved=view.turn)
    if len(lines) > MAX_LINES:
        replies.append(
            f"⚠️ only the first {MAX_LINES} lines are read; send the rest in another message"
        )
    return TextOutcome(tuple(replies), orders, confirmed)


@dataclass(frozen=True, slots=True)
class _Player:
    """Whose orders the lines change, in which match and turn."""

    matches: MatchService
    match_id: int
    player_id: str
    view: PlayerView
    content: Content

    async def apply(self, command: Command, orders: Orders, confirmed: bool) -> _Step:
        turn = self.view.turn
        ctx = context_for(self.view, self.content, orders)
        action = command.action
        if action is Action.ADD:
            given = add_orders(orders, command.orders)
            await self.matches.submit_orders(self.match_id, self.player_id, given, turn=turn)
            described = "; ".join(format_order(o, ctx) for o in command.orders)
            replaced = [o for o in all_orders(orders) if o not in all_orders(given)]
            if replaced:
                described += f" (replaces {'; '.join(format_order(o, ctx) for o in replaced)})"
            return _Step(f"✅ {described}", given, False)
        if action is Action.CANCEL:
            listed = all_orders(orders)
            number = command.index if command.index is not None else len(listed)
            if number == 0:
                return _Step("❌ You have no orders to cancel.", orders, confirmed)
            kept = remove_order(orders, number)
            removed = format_order(listed[number - 1], ctx)
            await self.matches.submit_orders(self.match_id, self.player_id, kept, turn=turn)
            return _Step(f"✅ cancelled {removed}", kept, False)
        if action is Action.CLEAR:
            await self.matches.clear_orders(self.match_id, self.player_id, turn=turn)
            return _Step("✅ all orders cleared", Orders(), False)
        if action is Action.CONFIRM:
            result = await self.matches.confirm(self.match_id, self.player_id, turn=turn)
            if result.resolved is not None:
                reply = f"✅ confirmed; both sides are ready, turn {turn} is resolved"
                return _Step(reply, orders, True, resolved=True)
            return _Step("✅ confirmed; waiting for your opponent", orders, True)
        if action is Action.UNCONFIRM:
            await self.matches.unconfirm(self.match_id, self.player_id, turn=turn)
            return _Step("✅ unconfirmed; you may change orders", orders, False)
        if action is Action.SHOW:
            echo = "\n".join(format_orders(orders, ctx)) or "none yet"
            state = "confirmed" if confirmed else "not confirmed"
            return _Step(f"Your orders ({state}):\n{echo}", orders, confirmed)
        return _Step(HELP_TEXT, orders, confirmed)
