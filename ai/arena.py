"""Computer-versus-computer matches: the benchmark's and the tests' playing field.

:func:`play_match` runs a seeded match between two levels, each side playing its house's own deck
(``engine.setup.default_deck``), through the engine, checking every order set with
``validate_orders`` on the real state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from ai.concession import conceded
from ai.players import Level
from engine.content import Content
from engine.orders import Orders, Problem
from engine.report import TurnReport
from engine.setup import MatchConfig, default_deck, new_game
from engine.state import SIDES, GameState, Side
from engine.turn import resolve_turn
from engine.validate import validate_orders
from engine.view import view_for

Chooser = Callable[..., Orders]


@dataclass(slots=True)
class MatchRecord:
    """How one computer match went."""

    seed: int
    levels: dict[Side, Level]
    winner: Side | None = None
    reason: str = "turn_limit"
    turns: int = 0
    illegal: list[tuple[int, Side, Problem]] = field(default_factory=list)
    final: GameState | None = None


def match_config(seed: int, content: Content) -> MatchConfig:
    """A seeded configuration: two different houses drawn from the seed, starter decks."""
    rng = random.Random(f"ai-match:{seed}")
    houses = rng.sample(sorted(content.houses), 2)
    return MatchConfig(
        seed=seed,
        houses={Side.RED: houses[0], Side.BLUE: houses[1]},
        decks={
            Side.RED: default_deck(houses[0], content),
            Side.BLUE: default_deck(houses[1], content),
        },
    )


def play_match(
    seed: int,
    levels: dict[Side, Level],
    content: Content,
    *,
    max_turns: int = 60,
    budgets: dict[Side, int | None] | None = None,
    choose: Chooser | None = None,
    observe: Callable[[GameState, dict[Side, Orders]], None] | None = None,
    config: MatchConfig | None = None,
    after_turn: Callable[[GameState, TurnReport], None] | None = None,
    start: GameState | None = None,
    rngs: dict[Side, random.Random] | None = None,
) -> MatchRecord:
    """Play one match; every order set is validated on the real state before it is resolved.

    ``choose`` replaces :func:`ai.choose_orders` (the benchmark wraps it in a timer); ``observe``
    sees each position with the orders given in it, ``after_turn`` each turn's report with the
    position it led to. ``config`` replaces the seed's :func:`match_config` (to choose houses,
    decks or realm); ``seed`` still seeds the players' generators unless ``rngs`` replaces them.
    ``start`` plays on from a position of a match instead of a new one (``config`` unused).
    A side that concedes at the start of a turn (:func:`ai.concedes`) ends the match there."""
    from ai import choose_orders

    pick = choose or choose_orders
    state = start or new_game(config or match_config(seed, content), content)
    record = MatchRecord(seed, dict(levels))
    if rngs is None:
        rngs = {side: random.Random(f"ai-player:{seed}:{side}") for side in SIDES}
    while state.result is None and state.turn <= max_turns:
        ended = conceded(state, content, max_turns)
        if ended is not None:
            state = ended
            break
        orders: dict[Side, Orders] = {}
        for side in SIDES:
            view = view_for(state, side, content)
            orders[side] = pick(
                view,
                levels[side],
                rngs[side],
                budget=(budgets or {}).get(side),
                content=content,
            )
            for problem in validate_orders(state, side, orders[side], content):
                record.illegal.append((state.turn, side, problem))
        if observe is not None:
            observe(state, orders)
        state, report = resolve_turn(state, orders, content=content)
        if after_turn is not None:
            after_turn(state, report)
    record.turns = state.turn - 1
    record.final = state
    if state.result is not None:
        record.winner = state.result.winner
        record.reason = state.result.reason
    return record
