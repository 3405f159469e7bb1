"""The levels: ``random`` (legal orders at random), ``greedy`` (one-turn lookahead against an
enemy that stands still), ``strong`` (the same search scored against sampled enemy orders) and
``expert`` (two-turn rollouts, :mod:`ai.expert`).

Each takes only a :class:`PlayerView`, so it cannot see what its side may not (G12).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Final, Literal, TypeAlias

from ai.determinize import determinize
from ai.options import cast_groups, legalize, move_options, train_options
from ai.search import Scenario, Simulator, plan
from engine.content import Content
from engine.legal import capturable
from engine.orders import DiscardOrder, ManaChoice, MoveOrder, Orders
from engine.state import MANA_TYPES, Mana, Options, Side
from engine.view import PlayerView, view_for

Level: TypeAlias = Literal["random", "greedy", "strong", "expert"]
LEVELS: Final[tuple[Level, ...]] = ("random", "greedy", "strong", "expert")
# One line each, offered to players when they pick a computer opponent.
DESCRIPTIONS: Final[dict[Level, str]] = {
    "random": "legal moves at random (for testing)",
    "greedy": "looks one turn ahead, assumes you stand still",
    "strong": "looks one turn ahead against your likely moves",
    "expert": "plays each plan two turns on in several sampled worlds",
}

GREEDY_BUDGET: Final = 60
STRONG_BUDGET: Final = 300
STRONG_ENEMY_BUDGET: Final = 50
STRONG_WORLDS: Final = 2


def _side(view: PlayerView) -> Side:
    if view.viewer is None:
        raise ValueError("a spectator's view has no side to play")
    return view.viewer


def random_orders(view: PlayerView, rng: random.Random, content: Content) -> Orders:
    """Legal orders picked at random (each group moves or not, casts while mana lasts)."""
    side = _side(view)
    state = determinize(view, rng, content)
    moves = []
    for gid, dests in sorted(move_options(state, side, content).items()):
        if dests and rng.random() < 0.7:
            moves.append(MoveOrder(gid, rng.choice(dests)))
    trains = [rng.choice(choices) for choices in train_options(state, side, content)]
    sources = cast_groups(state, side, content)
    rng.shuffle(sources)
    pool = state.player(side).pool
    reserved = Mana()
    casts = []
    for options in sources:
        if rng.random() < 0.5:
            continue
        affordable = [o for o in options if pool.covers(reserved + o.cost)]
        if not affordable:
            continue
        option = rng.choice(affordable)
        reserved = reserved + option.cost
        casts.append(option.order)
    choices = tuple(
        ManaChoice(at, rng.choice(MANA_TYPES)) for at in capturable(state, side, content)
    )
    orders = Orders(
        casts=tuple(casts), moves=tuple(moves), trains=tuple(trains), mana_choices=choices
    )
    cast_cards = {c.card_uid for c in casts}
    spare = [c.uid for c in state.player(side).hand if c.uid not in cast_cards]
    if spare and rng.random() < 0.2:
        orders = replace(orders, discard=DiscardOrder(rng.choice(spare)))
    return legalize(state, side, orders, content)


def greedy_orders(
    view: PlayerView,
    rng: random.Random,
    content: Content,
    budget: int | None = None,
    options: Options | None = None,
) -> Orders:
    """The best orders found by one-turn lookahead, assuming the enemy stands still
    (``options``: the match's ruleset, classic if not given)."""
    side = _side(view)
    state = determinize(view, rng, content, options)
    scenario = Scenario(state, Orders(), rng.randrange(1 << 30))
    sim = Simulator(side, content, [scenario], budget or GREEDY_BUDGET)
    return plan(state, side, content, sim, rng)


def strong_orders(
    view: PlayerView, rng: random.Random, content: Content, budget: int | None = None
) -> Orders:
    """One-turn lookahead scored over sampled worlds: the enemy's hidden hand is drawn anew in
    each, and its orders there are what a greedy player would give from its own view; in one
    more world the enemy stands still (a hedge against an enemy unlike the model)."""
    side = _side(view)
    total = budget or STRONG_BUDGET
    enemy_budget = max(10, min(STRONG_ENEMY_BUDGET, total // (3 * STRONG_WORLDS)))
    scenarios = []
    for _ in range(STRONG_WORLDS):
        state = determinize(view, rng, content)
        enemy_view = view_for(state, side.other, content)
        enemy = greedy_orders(enemy_view, rng, content, enemy_budget)
        scenarios.append(Scenario(state, enemy, rng.randrange(1 << 30)))
    first = scenarios[0]
    scenarios.append(Scenario(first.state, Orders(), rng.randrange(1 << 30)))
    spent = STRONG_WORLDS * enemy_budget
    sim = Simulator(side, content, scenarios, max(len(scenarios), total - spent))
    return plan(first.state, side, content, sim, rng)
