"""The evaluation's path distances (``ai.evaluate.Board``)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai.arena import match_config
from ai.evaluate import Board
from engine.content import Content
from engine.coords import coord
from engine.setup import new_game
from engine.state import GameState


def _board(content: Content, seed: int) -> tuple[GameState, Board]:
    state = new_game(match_config(seed, content), content)
    return state, Board(state, content)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 20),
    goals=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=6),
)
def test_the_nearest_goal_is_the_least_distance_to_any_of_them(
    content: Content, seed: int, goals: list[tuple[int, int]]
) -> None:
    """``Board.nearest`` answers, for every square, what the least ``Board.dist`` to the goals
    is, unreachable squares (far from all) included, asked once or again from its memo."""
    state, board = _board(content, seed)
    targets = tuple(coord(x, y) for x, y in goals)
    for _ in range(2):
        near = board.nearest(targets)
        for sq in state.squares:
            assert near(sq.coord) == min(board.dist(sq.coord, t) for t in targets)
