"""`strong` is the yardstick the expert is measured against: the cast search it shares with the
expert must choose exactly what its own loop chose before the two were merged."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ai import choose_orders
from ai.arena import match_config
from ai.determinize import determinize
from ai.options import CastOption, cast_options
from ai.players import greedy_orders
from ai.search import (
    CAST_GAIN,
    MAX_CASTS,
    SHORTLIST,
    Scenario,
    Simulator,
    _clashes,
    _prune,
    add_casts,
)
from engine.content import Content, load_content
from engine.orders import Orders
from engine.setup import new_game
from engine.state import GameState, Mana, Side
from engine.turn import resolve_turn
from engine.view import view_for


def reference_add_casts(state: GameState, side: Side, orders: Orders, sim: Simulator) -> Orders:
    """The cast loop as `strong` ran it on its own, kept verbatim as the reference."""
    options = _prune(state, side, cast_options(state, side, sim.content), sim.content)
    pool = state.player(side).pool
    spells = {o.order: o.spell for o in options}

    def cost(order: object, options: list[CastOption]) -> Mana:
        return next((o.cost for o in options if o.order == order), Mana())

    for _ in range(MAX_CASTS):
        current = sim.score(orders)
        first = sim.score(orders, quick=True)
        reserved = sum((cost(o, options) for o in orders.casts), Mana())
        promising: list[tuple[float, Orders]] = []
        for option in options:
            if sim.exhausted:
                break
            if _clashes(option.order, orders.casts, spells) or not pool.covers(
                reserved + option.cost
            ):
                continue
            candidate = replace(orders, casts=(*orders.casts, option.order))
            value = sim.score(candidate, quick=True)
            if value > first + CAST_GAIN:
                promising.append((value, candidate))
        promising.sort(key=lambda pair: -pair[0])
        best: tuple[float, Orders] | None = None
        for _, candidate in promising[:SHORTLIST]:
            if sim.exhausted:
                break
            value = sim.score(candidate)
            if value > current + CAST_GAIN and (best is None or value > best[0]):
                best = (value, candidate)
        if best is None:
            break
        orders = best[1]
    return orders


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


def positions(content: Content, seed: int, turns: int) -> list[GameState]:
    state = new_game(match_config(seed, content), content)
    rng = random.Random(seed)
    out = []
    for _ in range(turns):
        out.append(state)
        orders = {
            side: choose_orders(view_for(state, side, content), "greedy", rng, content=content)
            for side in Side
        }
        state, _ = resolve_turn(state, orders, content=content)
        if state.result is not None:
            break
    return out


@pytest.mark.parametrize("seed", [11, 13])
def test_the_shared_cast_search_chooses_what_strong_chose(content: Content, seed: int) -> None:
    compared = 0
    for state in positions(content, seed, 8)[4:]:
        for side in Side:
            rng = random.Random(f"{seed}:{state.turn}:{side}")
            view = view_for(state, side, content)
            world = determinize(view, rng, content)
            enemy = greedy_orders(view_for(world, side.other, content), rng, content, 20)
            scenarios = [Scenario(world, enemy, 1), Scenario(world, Orders(), 2)]

            shared = add_casts(world, side, Orders(), Simulator(side, content, scenarios, 120))
            reference = Simulator(side, content, scenarios, 120)
            assert shared == reference_add_casts(world, side, Orders(), reference)
            compared += bool(shared.casts)
    assert compared >= 1  # the positions do exercise casting
