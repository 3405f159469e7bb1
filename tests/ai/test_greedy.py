"""The greedy level prefers obviously better orders in small hand-made positions."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ai import choose_orders
from ai.search import Scenario, Simulator
from engine.content import Content, load_content
from engine.coords import Coord
from engine.orders import Orders
from engine.state import GameState, Mana, Side
from engine.turn import resolve_turn
from engine.validate import validate_orders
from engine.view import view_for
from tests.ai.positions import group, position

SWORDS = ("swordsman",)


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


def greedy(state: GameState, content: Content, seed: int = 1) -> Orders:
    orders = choose_orders(
        view_for(state, Side.RED, content), "greedy", random.Random(seed), content=content
    )
    assert validate_orders(state, Side.RED, orders, content) == []
    return orders


def dest_of(orders: Orders, gid: int) -> Coord | None:
    return next((m.dest for m in orders.moves if m.group_id == gid), None)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_captures_a_free_town_next_to_it(content: Content, seed: int) -> None:
    state = position(
        content,
        [
            group(content, 1, Side.RED, "E6", SWORDS * 4),
            group(content, 2, Side.BLUE, "I9", SWORDS * 4),
        ],
        towns=["F6"],
    )
    assert dest_of(greedy(state, content, seed), 1) == Coord.parse("F6")


def test_does_not_walk_into_a_losing_fight_for_a_town(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "F4", SWORDS * 2),
        group(content, 2, Side.BLUE, "F6", SWORDS * 8),
    ]
    orders = greedy(position(content, groups, towns=["F5"]), content)
    dest = dest_of(orders, 1) or Coord.parse("F4")
    assert dest.dist(Coord.parse("F6")) > 1


def test_takes_the_same_town_when_its_guard_is_weak(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "F4", SWORDS * 4),
        group(content, 2, Side.BLUE, "F6", ("archer",)),
    ]
    assert dest_of(greedy(position(content, groups, towns=["F5"]), content), 1) == Coord.parse("F5")


def test_casts_an_affordable_damage_spell_on_the_biggest_enemy_group(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "F6", SWORDS * 4),  # both enemies within the Fireball's 3
        group(content, 2, Side.BLUE, "H7", ("archer",)),
        group(content, 3, Side.BLUE, "G8", SWORDS * 4),
    ]
    state = position(content, groups, hand=["fireball", "volcano"], pool=Mana(strife=5, clarity=1))
    orders = greedy(state, content)
    fireballs = [c for c in orders.casts if c.card_uid == 9000]
    assert len(fireballs) == 1
    assert fireballs[0].target.ref == 3


def test_keeps_the_mana_when_the_spell_is_not_worth_it(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "F6", SWORDS * 4),  # both enemies within the Fireball's 3
        group(content, 2, Side.BLUE, "H7", ("archer",)),
    ]
    state = position(content, groups, hand=["fireball"], pool=Mana(strife=5, clarity=1))
    # Five damage only wounds a lone archer: not worth six mana.
    assert greedy(state, content).casts == ()


def test_blocks_an_enemy_next_to_its_sanctum(content: Content) -> None:
    # Eight swordsmen outlast the Sanctum's guard (D-SANCTUM-GUARD): only a defender stops them.
    groups = [
        group(content, 1, Side.RED, "E4", SWORDS * 6),
        group(content, 2, Side.BLUE, "D5", SWORDS * 8),
    ]
    for seed in (1, 2, 3):
        assert dest_of(greedy(position(content, groups), content, seed), 1) == Coord.parse("D4")


def test_trains_its_novices(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "E6", SWORDS * 4),
        group(content, 2, Side.BLUE, "I9", SWORDS * 4),
    ]
    orders = greedy(position(content, groups, novices=2), content)
    assert len(orders.trains) == 2


def test_orders_already_simulated_in_a_scenario_are_not_simulated_again(
    content: Content, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Orders screened in the first scenario and then scored in all of them cost one simulation
    a scenario; the budget still counts the first one twice, so the search is unchanged."""
    state = position(content, [group(content, 1, Side.RED, "F4", SWORDS)])
    resolved: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        resolved.append(1)
        return resolve_turn(*args, **kwargs)

    monkeypatch.setattr("ai.search.resolve_turn", counted)
    scenarios = [Scenario(state, Orders(), seed) for seed in (1, 2, 3)]
    sim = Simulator(Side.RED, content, scenarios, 100)
    quick = sim.score(Orders(), quick=True)
    full = sim.score(Orders())
    assert len(resolved) == 3
    assert sim.used == 4
    fresh = Simulator(Side.RED, content, scenarios, 100)
    assert (fresh.score(Orders()), fresh.score(Orders(), quick=True)) == (full, quick)
