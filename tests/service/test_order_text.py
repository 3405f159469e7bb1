"""Typed orders through the service: each line answers for itself, the orders are stored as the
replies say, and a confirm that completes the turn ends the message there."""

from __future__ import annotations

from dataclasses import dataclass

from engine.content import load_content
from engine.legal import legal_moves
from engine.notation import HELP_TEXT
from engine.orders import DiscardOrder, Orders
from engine.state import GameState, Side
from engine.view import PlayerView, view_for
from service.matches import MatchService
from service.order_text import TextOutcome, apply_lines
from tests.service.matchkit import player_on, started_match

CONTENT = load_content()


@dataclass(frozen=True)
class Seat:
    """A player of a started match, with what the tests type for them."""

    service: MatchService
    match_id: int
    player_id: str
    view: PlayerView
    discard: str  # "discard <the first card of the hand>"
    move: str  # "move g1 to <a legal square>"

    async def type(self, text: str) -> TextOutcome:
        orders, confirmed = await self.stored()
        return await apply_lines(
            self.service,
            self.match_id,
            self.player_id,
            text,
            self.view,
            orders=orders,
            confirmed=confirmed,
            content=CONTENT,
        )

    async def stored(self) -> tuple[Orders, bool]:
        record = await self.service.current_orders(self.match_id, self.player_id)
        if record is None:
            return Orders(), False
        doc = {k: v for k, v in record.orders.items() if k != "confirmed"}
        return Orders.from_dict(doc), record.confirmed


async def seat(service: MatchService, side: str = "red") -> Seat:
    match = await started_match(service)
    full = await service.get_match(match.id, with_state=True)
    assert full.state is not None
    state = GameState.from_dict(full.state)
    view = view_for(state, Side(side), CONTENT)
    card = CONTENT.spells[view.hand[0].spell_id].name
    group, dests = next(iter(legal_moves(state, Side(side), CONTENT).items()))
    here = next(g.coord for g in view.groups if g.id == group)
    dest = next(d for d in dests if d != here)
    return Seat(
        service, match.id, player_on(match, side), view, f"discard {card}", f"move g1 to {dest}"
    )


async def test_an_added_order_is_stored_and_echoed(service: MatchService) -> None:
    alice = await seat(service)
    outcome = await alice.type(alice.discard)
    assert outcome.replies == (f"✅ {alice.discard}",)
    assert outcome.orders.discard == DiscardOrder(alice.view.hand[0].uid)
    assert not outcome.confirmed and outcome.resolved is None
    assert await alice.stored() == (outcome.orders, False)


async def test_a_bad_line_is_answered_and_the_next_line_still_applies(
    service: MatchService,
) -> None:
    alice = await seat(service)
    outcome = await alice.type(f"cast Nosuchspell on E5\n{alice.move}")
    assert outcome.replies[0].startswith("❌ no spell 'Nosuchspell' in your hand")
    assert outcome.replies[1] == f"✅ {alice.move}"
    assert len(outcome.orders.moves) == 1
    assert (await alice.stored())[0] == outcome.orders


async def test_cancel_removes_the_numbered_order_or_the_last(service: MatchService) -> None:
    alice = await seat(service)
    await alice.type(f"{alice.discard}; {alice.move}")
    outcome = await alice.type("cancel 1")
    assert outcome.replies == (f"✅ cancelled {alice.move}",)
    assert outcome.orders.moves == () and outcome.orders.discard is not None
    outcome = await alice.type("cancel")
    assert outcome.replies == (f"✅ cancelled {alice.discard}",)
    assert await alice.stored() == (Orders(), False)


async def test_cancel_without_orders_or_past_the_last_is_refused(service: MatchService) -> None:
    alice = await seat(service)
    assert (await alice.type("cancel")).replies == ("❌ You have no orders to cancel.",)
    await alice.type(alice.discard)
    outcome = await alice.type("cancel 3")
    assert outcome.replies == ("❌ there is no order 3; you have 1",)
    assert outcome.orders.discard is not None


async def test_clear_removes_every_order(service: MatchService) -> None:
    alice = await seat(service)
    await alice.type(f"{alice.discard}\n{alice.move}")
    outcome = await alice.type("clear")
    assert outcome.replies == ("✅ all orders cleared",)
    assert outcome.orders == Orders()
    assert await alice.stored() == (Orders(), False)


async def test_confirm_then_unconfirm(service: MatchService) -> None:
    alice = await seat(service)
    outcome = await alice.type(f"{alice.discard}\nconfirm")
    assert outcome.replies[1] == "✅ confirmed; waiting for your opponent"
    assert outcome.confirmed and outcome.resolved is None
    assert await alice.stored() == (outcome.orders, True)
    refused = await alice.type(alice.move)
    assert refused.replies[0].startswith("❌ ") and refused.confirmed
    outcome = await alice.type("unconfirm")
    assert outcome.replies == ("✅ unconfirmed; you may change orders",)
    assert not outcome.confirmed
    assert await alice.stored() == (outcome.orders, False)


async def test_a_refusal_of_the_service_is_a_reply(service: MatchService) -> None:
    alice = await seat(service)
    outcome = await alice.type("unconfirm")
    assert outcome.replies == ("❌ Your orders are not confirmed.",)


async def test_show_lists_the_orders_and_help_the_notation(service: MatchService) -> None:
    alice = await seat(service)
    outcome = await alice.type(f"{alice.discard}\norders\nhelp")
    assert outcome.replies[1] == f"Your orders (not confirmed):\n1. {alice.discard}"
    assert outcome.replies[2] == HELP_TEXT
    empty = await seat(service, "blue")
    assert (await empty.type("orders")).replies == ("Your orders (not confirmed):\nnone yet",)


async def test_a_confirm_that_completes_the_turn_ends_the_message(service: MatchService) -> None:
    alice = await seat(service)
    match = await service.get_match(alice.match_id)
    bob = player_on(match, "blue")
    await service.confirm(alice.match_id, bob)
    outcome = await alice.type(f"{alice.discard}\nconfirm\n{alice.move}\nclear")
    assert outcome.replies == (
        f"✅ {alice.discard}",
        "✅ confirmed; both sides are ready, turn 1 is resolved",
        "❌ turn 1 is resolved; give the rest on the next sheet",
    )
    assert outcome.resolved == 1 and outcome.confirmed
    assert outcome.orders.discard is not None and outcome.orders.moves == ()
    assert (await service.get_match(alice.match_id)).turn == 2
    history = await service.history(alice.match_id, 1)
    red = history.orders["red"]
    assert red is not None and red["moves"] == []


async def test_a_confirm_on_the_last_line_adds_no_refusal(service: MatchService) -> None:
    alice = await seat(service)
    match = await service.get_match(alice.match_id)
    await service.confirm(alice.match_id, player_on(match, "blue"))
    outcome = await alice.type("confirm")
    assert outcome.replies == ("✅ confirmed; both sides are ready, turn 1 is resolved",)
    assert outcome.resolved == 1
    assert outcome.orders == Orders()
