"""Shared fixtures for the core engine tests."""

from __future__ import annotations

import pytest

from engine.content import Content, load_content
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
