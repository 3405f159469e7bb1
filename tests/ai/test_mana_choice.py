"""The computer names the mana a town it may take is to make (D-TOWN-MANA): the type its cards
run out of first for what it already makes."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ai import LEVELS, Level, choose_orders
from ai.options import legalize
from ai.search import choose_mana
from engine.content import Content, load_content
from engine.coords import Coord
from engine.orders import ManaChoice, MoveOrder, Orders
from engine.setup import default_deck
from engine.state import Card, GameState, Mana, Side
from engine.turn import resolve_turn
from engine.validate import validate_orders
from engine.view import view_for
from tests.ai.positions import group, position

TOWN = Coord.parse("F6")


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


def next_to_a_town(content: Content, hand: tuple[str, ...]) -> GameState:
    """Red's swordsmen one square from a neutral town, nobody else near; red's cards are the
    hand alone (an empty deck), so the hand is what the choice must serve."""
    state = position(
        content,
        [group(content, 1, Side.RED, "F5", ("swordsman",) * 3)],
        towns=("F6",),
        hand=hand,
    )
    red = replace(state.player(Side.RED), deck=())
    return replace(state, players=(red, state.player(Side.BLUE)))


def test_a_hand_of_nature_cards_asks_for_world_mana(content: Content) -> None:
    # War makes strife and clarity in its Sanctum; Tree Man and Forestation cost world mana.
    state = next_to_a_town(content, ("tree_man", "forestation"))
    assert choose_mana(state, Side.RED, content) == (ManaChoice(TOWN, "world"),)


def test_a_hand_its_sanctum_pays_for_asks_for_its_most_wanted_type(content: Content) -> None:
    # Fireball and Volcano want 8 strife and 1 clarity: strife is the scarcer for what they cost.
    state = next_to_a_town(content, ("fireball", "volcano"))
    assert choose_mana(state, Side.RED, content) == (ManaChoice(TOWN, "strife"),)


def test_no_town_in_reach_gives_no_choice(content: Content) -> None:
    state = position(content, [group(content, 1, Side.RED, "F5", ("swordsman",))], towns=("A1",))
    assert choose_mana(state, Side.RED, content) == ()


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_names_the_towns_mana_with_legal_orders(level: Level, content: Content) -> None:
    state = next_to_a_town(content, ("tree_man", "forestation"))
    orders = choose_orders(
        view_for(state, Side.RED, content), level, random.Random(3), budget=20, content=content
    )
    assert [c.structure for c in orders.mana_choices] == [TOWN]
    assert validate_orders(state, Side.RED, orders, content) == []


def test_the_chosen_type_is_what_the_captured_town_makes(content: Content) -> None:
    state = next_to_a_town(content, ("tree_man", "forestation"))
    orders = Orders(moves=(MoveOrder(1, TOWN),), mana_choices=choose_mana(state, Side.RED, content))
    for turn_orders in ({Side.RED: orders}, {}):
        state, _ = resolve_turn(state, turn_orders, content=content)
    town = state.structure_at(TOWN)
    assert town is not None
    assert (town.owner, town.mana_type) == (Side.RED, "world")


def test_legalize_drops_only_a_refused_mana_choice(content: Content) -> None:
    state = next_to_a_town(content, ())
    move = MoveOrder(1, TOWN)
    orders = Orders(moves=(move,), mana_choices=(ManaChoice(Coord.parse("A1"), "world"),))
    assert legalize(state, Side.RED, orders, content) == Orders(moves=(move,))


def test_the_whole_deck_counts_for_a_town_that_makes_mana_all_game(content: Content) -> None:
    # Two Nature cards in hand, War's starter deck behind them: strife is wanted most.
    state = position(
        content,
        [group(content, 1, Side.RED, "F5", ("swordsman",) * 3)],
        towns=("F6",),
        hand=("tree_man", "forestation"),
    )
    assert choose_mana(state, Side.RED, content) == (ManaChoice(TOWN, "strife"),)


def test_the_town_makes_the_type_casting_stops_at_not_the_most_wanted(content: Content) -> None:
    """Despair's cards cost mystery 120 and strife 36 in all. A Sanctum and three novices
    making mystery (4 a turn) against the Sanctum's one strife: every spell needs a strife, so
    casting stops there and mystery floats. The town makes strife, though mystery is the type
    the cards want most."""
    state = next_to_a_town(content, ())
    deck = default_deck("despair", content)
    red = replace(
        state.player(Side.RED),
        house="despair",
        hand=(),
        deck=tuple(Card(9000 + i, spell_id) for i, spell_id in enumerate(deck)),
        mana_novices=Mana(mystery=3),
    )
    state = replace(state, players=(red, state.player(Side.BLUE)))
    assert choose_mana(state, Side.RED, content) == (ManaChoice(TOWN, "strife"),)
