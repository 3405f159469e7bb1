"""Shared set-up for the match service tests: decks, started matches, simple legal orders."""

from __future__ import annotations

from typing import Any

from engine.content import load_content
from engine.setup import default_deck
from service.clock import Clock
from service.decks import DeckService
from service.matches import MatchService
from storage import MatchRecord, Store

HOUSES = ("war", "life")


async def make_decks(store: Store, clock: Clock, players: tuple[str, str]) -> tuple[int, int]:
    decks = DeckService(store, clock)
    content = load_content()
    ids = []
    for player, house in zip(players, HOUSES, strict=True):
        existing = {d.name: d for d in await decks.list_decks(player)}
        if "main" in existing:
            ids.append(existing["main"].id)
            continue
        deck = await decks.create_deck(player, "main", house, default_deck(house, content))
        ids.append(deck.id)
    return ids[0], ids[1]


async def started_match(
    service: MatchService,
    players: tuple[str, str] = ("alice", "bob"),
    **options: Any,
) -> MatchRecord:
    red_deck, blue_deck = await make_decks(service.store, service.clock, players)
    options.setdefault("turn_seconds", 3600)
    options.setdefault("reminders", [600])
    match = await service.create_match(
        players[0], deck_id=red_deck, opponent_id=players[1], **options
    )
    await service.join_match(match.id, players[1], blue_deck)
    return await service.start_match(match.id, players[0])


def player_on(match: MatchRecord, side: str) -> str:
    seat = match.seat_for_side(side)
    assert seat is not None and seat.player_id is not None
    return seat.player_id


def discard_orders(match: MatchRecord, side: str, index: int = 0) -> dict[str, Any]:
    """Legal orders for `side`: discard one card of its hand (needs `with_state`); no orders
    once the hand is empty."""
    assert match.state is not None
    player = next(p for p in match.state["players"] if p["side"] == side)
    hand = player["hand"]
    discard = {"card_uid": hand[index % len(hand)]["uid"]} if hand else None
    return {"casts": [], "moves": [], "trains": [], "discard": discard}
