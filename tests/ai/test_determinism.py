"""A seed fixes the orders, and orders depend only on what the side may see (G12)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ai import LEVELS, Level, choose_orders
from ai.arena import match_config
from ai.determinize import determinize
from engine.content import Content, load_content
from engine.orders import Orders
from engine.setup import new_game
from engine.state import Card, GameState, Side
from engine.turn import resolve_turn
from engine.view import view_for


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


@pytest.fixture(scope="module")
def midgame(content: Content) -> GameState:
    """A position after a few turns of random play (groups apart, cards used, towns taken)."""
    state = new_game(match_config(5, content), content)
    rng = random.Random(5)
    for _ in range(6):
        orders = {
            side: choose_orders(view_for(state, side, content), "random", rng, content=content)
            for side in Side
        }
        state, _ = resolve_turn(state, orders, content=content)
    assert state.result is None
    return state


def _orders(state: GameState, level: Level, seed: int, content: Content) -> Orders:
    view = view_for(state, Side.RED, content)
    return choose_orders(view, level, random.Random(seed), budget=40, content=content)


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_gives_the_same_orders(
    level: Level, midgame: GameState, content: Content
) -> None:
    assert _orders(midgame, level, 11, content) == _orders(midgame, level, 11, content)


@pytest.mark.parametrize("level", LEVELS)
def test_hidden_enemy_cards_do_not_change_the_orders(
    level: Level, midgame: GameState, content: Content
) -> None:
    blue = midgame.player(Side.BLUE)
    other = "fireball" if blue.hand[0].spell_id != "fireball" else "volcano"
    swapped = replace(
        blue,
        hand=tuple(Card(c.uid, other) for c in blue.hand),
        deck=tuple(reversed(blue.deck)),
    )
    changed = replace(midgame, players=(midgame.player(Side.RED), swapped))
    assert view_for(changed, Side.RED, content) == view_for(midgame, Side.RED, content)
    assert _orders(changed, level, 3, content) == _orders(midgame, level, 3, content)


def test_a_determinized_state_keeps_what_the_side_knows(
    midgame: GameState, content: Content
) -> None:
    view = view_for(midgame, Side.RED, content)
    guess = determinize(view, random.Random(1), content)
    assert guess.player(Side.RED).hand == midgame.player(Side.RED).hand
    assert guess.player(Side.RED).pool == midgame.player(Side.RED).pool
    assert guess.player(Side.RED).mana_novices == midgame.player(Side.RED).mana_novices
    assert guess.groups == midgame.groups
    assert guess.structures == midgame.structures
    blue = guess.player(Side.BLUE)
    assert len(blue.hand) == len(midgame.player(Side.BLUE).hand)
    assert len(blue.deck) == len(midgame.player(Side.BLUE).deck)
    uids = [c.uid for p in guess.players for c in (*p.hand, *p.deck, *p.discard)]
    assert len(uids) == len(set(uids))
    assert guess.next_id > max(uids)


def test_a_spectator_view_has_no_orders(midgame: GameState, content: Content) -> None:
    with pytest.raises(ValueError, match="spectator"):
        choose_orders(view_for(midgame, None, content), "greedy", random.Random(1), content=content)
