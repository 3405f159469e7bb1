"""Shared fixtures for the core engine tests."""

from __future__ import annotations

import random

import pytest

from engine.content import Content, load_content
from engine.legal import castable, legal_moves, trainable
from engine.orders import CastOrder, MoveOrder, Orders
from engine.setup import MatchConfig, default_deck, new_game
from engine.state import GameState, Side


def classic_config(seed: int = 11, realm: str = "veldt", symmetric: bool = False) -> MatchConfig:
    c = load_content()
    return MatchConfig(
        seed=seed,
        realm=realm,
        symmetric=symmetric,
        houses={Side.RED: "war", Side.BLUE: "life"},
        decks={Side.RED: default_deck("war", c), Side.BLUE: default_deck("life", c)},
    )


@pytest.fixture
def opening(content: Content) -> GameState:
    return new_game(classic_config(), content)


def random_orders(
    state: GameState, rnd: random.Random, content: Content, *, move: float, cast: float
) -> dict[Side, Orders]:
    """Legal random orders for both sides: each group moves with chance ``move``, each castable
    card is cast with chance ``cast``, every novice trains."""
    out = {}
    for side in (Side.RED, Side.BLUE):
        moves = [
            MoveOrder(gid, rnd.choice(dests))
            for gid, dests in legal_moves(state, side, content).items()
            if dests and rnd.random() < move
        ]
        trains = [rnd.choice(opts) for opts in trainable(state, side, content).values()]
        casts = [
            CastOrder(uid, rnd.choice(targets))
            for uid, targets in castable(state, side, content).items()
            if rnd.random() < cast
        ]
        out[side] = Orders(casts=tuple(casts), moves=tuple(moves), trains=tuple(trains))
    return out
