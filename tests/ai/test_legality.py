"""Every level gives only legal orders: many seeded computer matches, each order set checked with
``validate_orders`` on the real state before the engine resolves it."""

from __future__ import annotations

import pytest

from ai import LEVELS, Level
from ai.arena import play_match
from engine.content import Content, load_content
from engine.state import Side


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


def _assert_legal(
    seed: int, red: Level, blue: Level, turns: int, content: Content, *, budget: int | None = None
) -> int:
    record = play_match(
        seed,
        {Side.RED: red, Side.BLUE: blue},
        content,
        max_turns=turns,
        budgets={Side.RED: budget, Side.BLUE: budget},
    )
    assert record.illegal == [], f"seed {seed}: {record.illegal[:3]}"
    return record.turns


def test_random_orders_are_always_legal(content: Content) -> None:
    played = sum(_assert_legal(seed, "random", "random", 12, content) for seed in range(120))
    assert played > 120 * 8


def test_greedy_orders_are_always_legal(content: Content) -> None:
    played = sum(
        _assert_legal(1000 + seed, "greedy", "random", 6, content, budget=16) for seed in range(40)
    )
    assert played > 40 * 4


def test_strong_orders_are_always_legal(content: Content) -> None:
    played = sum(
        _assert_legal(2000 + seed, "strong", "greedy", 4, content, budget=30) for seed in range(10)
    )
    assert played > 10 * 3


def test_levels_are_the_four_of_the_issue() -> None:
    assert LEVELS == ("random", "greedy", "strong", "expert")
