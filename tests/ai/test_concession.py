"""A computer side concedes a lost game (G8): nothing but its Sanctum left, while the enemy
holds at least three structures and eight times its hit points on the board."""

from __future__ import annotations

import pytest

from ai import Level, concedes
from ai.arena import play_match
from ai.concession import conceding_side
from engine.content import Content, load_content
from engine.state import Side
from engine.turn import concede
from engine.view import view_for
from tests.ai.positions import standoff

RED, BLUE = Side.RED, Side.BLUE


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


def test_a_side_with_only_its_sanctum_and_an_eighth_of_the_hit_points_concedes(
    content: Content,
) -> None:
    state = standoff(content, ["swordsman", "swordsman"], blue_towns=2)  # 14 against 112
    assert concedes(view_for(state, RED, content))
    assert not concedes(view_for(state, BLUE, content))
    assert conceding_side(state, content) == RED


@pytest.mark.parametrize(
    ("red", "blue_towns", "red_towns", "why"),
    [
        (["swordsman"] * 3, 2, 0, "21 hit points: more than an eighth of 112"),
        ([], 1, 0, "the enemy holds two structures, not three"),
        ([], 2, 1, "a town besides the Sanctum"),
    ],
)
def test_no_concession_while_the_game_can_still_turn(
    content: Content, red: list[str], blue_towns: int, red_towns: int, why: str
) -> None:
    state = standoff(content, red, blue_towns, red_towns=red_towns)
    assert not concedes(view_for(state, RED, content)), why
    assert conceding_side(state, content) is None


def test_a_spectator_or_a_finished_game_never_concedes(content: Content) -> None:
    state = standoff(content, [], blue_towns=2)
    assert not concedes(view_for(state, None, content))
    assert not concedes(view_for(concede(state, BLUE), RED, content))


def test_a_match_in_a_lost_position_ends_by_concession_before_its_turn(
    content: Content,
) -> None:
    state = standoff(content, ["archer"], blue_towns=3)
    levels: dict[Side, Level] = {side: "greedy" for side in Side}
    record = play_match(7, levels, content, start=state)
    assert (record.winner, record.reason, record.turns) == (BLUE, "concession", state.turn - 1)
    assert record.final is not None and record.final.result is not None
