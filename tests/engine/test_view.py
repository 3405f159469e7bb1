"""view_for: what a side may see (G12)."""

from __future__ import annotations

import json
from dataclasses import replace

from engine.content import Content
from engine.state import ActiveSpell, GameState, HostRef, Side
from engine.view import view_for


def _with_spells(state: GameState) -> GameState:
    red_group = state.groups_of(Side.RED)[0].id
    spells = (
        ActiveSpell(900, "fortitude", Side.RED, HostRef.group(red_group), 1, visible=True),
        ActiveSpell(901, "pact_sealed", Side.RED, HostRef.globe(), 1, visible=False),
        ActiveSpell(902, "embargo", Side.BLUE, HostRef.globe(), 1, visible=False),
    )
    return replace(state, active_spells=spells, next_id=903)


def test_G12_own_hand_never_the_enemy_hand(opening: GameState, content: Content) -> None:
    red = view_for(opening, Side.RED, content)
    assert red.hand == opening.player(Side.RED).hand
    assert red.player(Side.BLUE).hand_size == 5
    assert red.player(Side.BLUE).deck_count == len(opening.player(Side.BLUE).deck)
    text = json.dumps(red.to_dict())
    for card in opening.player(Side.BLUE).hand + opening.player(Side.BLUE).deck:
        assert f'"uid": {card.uid},' not in text


def test_G12_enemy_non_visible_spells_are_hidden(opening: GameState, content: Content) -> None:
    state = _with_spells(opening)
    red = {s.uid for s in view_for(state, Side.RED, content).spells}
    blue = {s.uid for s in view_for(state, Side.BLUE, content).spells}
    public = {s.uid for s in view_for(state, None, content).spells}
    assert red == {900, 901}
    assert blue == {900, 902}
    assert public == {900}


def test_G12_board_groups_structures_pools_are_public(opening: GameState, content: Content) -> None:
    view = view_for(opening, None, content)
    assert view.groups == opening.groups
    assert view.structures == opening.structures
    assert view.hand == ()
    assert view.player(Side.RED).pool == opening.player(Side.RED).pool
    assert view.player(Side.RED).production.total == 2
    assert json.loads(json.dumps(view.to_dict()))["viewer"] is None


def test_G12_no_deck_order_in_any_view(opening: GameState, content: Content) -> None:
    for side in (Side.RED, Side.BLUE, None):
        data = view_for(opening, side, content).to_dict()
        assert all("deck" not in key for key in data["players"][0] if key != "deck_count")
