"""A town mana choice (D-TOWN-MANA) is an order like any other: stored, read back, and enough
for a player not to count as a no-show."""

from __future__ import annotations

import pytest

from engine.orders import ManaChoice, Orders
from engine.state import GameState, Side
from service.clock import ManualClock
from service.errors import InvalidOrdersError
from service.matches import MatchService, gave_nothing
from tests.service.matchkit import player_on, started_match


async def test_a_mana_choice_alone_is_stored_and_counts_as_orders(
    service: MatchService, clock: ManualClock
) -> None:
    match = await started_match(service)
    full = await service.get_match(match.id, with_state=True)
    assert full.state is not None
    state = GameState.from_dict(full.state)
    town = next(s for s in state.structures if s.kind != "sanctum" and s.owner != Side.RED)
    red = player_on(match, "red")
    choice = ManaChoice(town.coord, "will")
    await service.submit_orders(match.id, red, Orders(mana_choices=(choice,)))

    record = await service.current_orders(match.id, red)
    assert record is not None and not record.confirmed
    assert Orders.from_dict(record.orders).mana_choices == (choice,)
    assert not gave_nothing(record)

    clock.advance(3600)
    [resolved] = await service.run_due()
    assert [n.side for n in resolved.no_shows] == ["blue"]
    history = await service.history(match.id, 1)
    assert history.no_shows == ("blue",)
    red_orders = history.orders["red"]
    assert red_orders is not None
    assert red_orders["mana_choices"] == [{"structure": town.coord.name, "mana_type": "will"}]


async def test_a_mana_choice_for_ones_own_structure_is_refused(service: MatchService) -> None:
    match = await started_match(service)
    full = await service.get_match(match.id, with_state=True)
    assert full.state is not None
    sanctum = next(s for s in GameState.from_dict(full.state).structures if s.owner == Side.RED)
    red = player_on(match, "red")
    doc = {"mana_choices": [{"structure": sanctum.coord.name, "mana_type": "will"}]}
    with pytest.raises(InvalidOrdersError, match=f"no town or colony on {sanctum.coord}"):
        await service.submit_orders(match.id, red, doc)
    assert await service.current_orders(match.id, red) is None
