"""A computer side concedes a lost game (G8): at most its Sanctum and one town left, the enemy
holding two structures more, eight times its hit points on the board, and an army that can take a
Sanctum through its guard."""

from __future__ import annotations

import pytest

from ai import Level, concedes
from ai.arena import play_match
from ai.concession import conceded, conceding_side
from engine.content import Content, load_content
from engine.state import Side
from engine.turn import concede
from engine.view import view_for
from tests.ai.positions import standoff

RED, BLUE = Side.RED, Side.BLUE


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


@pytest.mark.parametrize(
    ("red", "blue_towns", "red_towns"),
    [
        (["swordsman", "swordsman"], 2, 0),  # 14 hit points against 224, one structure to three
        ([], 3, 1),  # a Sanctum and a town against four structures
    ],
)
def test_a_side_routed_by_an_army_that_can_take_its_sanctum_concedes(
    content: Content, red: list[str], blue_towns: int, red_towns: int
) -> None:
    state = standoff(content, red, blue_towns, red_towns=red_towns)
    assert concedes(view_for(state, RED, content), content)
    assert not concedes(view_for(state, BLUE, content), content)
    assert conceding_side(state, content) == RED


@pytest.mark.parametrize(
    ("red", "towns", "blue_groups", "why"),
    [
        (["swordsman"] * 5, (2, 0), 4, "35 hit points: more than an eighth of 224"),
        ([], (1, 0), 4, "the enemy holds two structures, not three"),
        ([], (2, 1), 4, "a town besides the Sanctum, against three structures, not four"),
        ([], (5, 2), 4, "two towns besides the Sanctum"),
        ([], (2, 0), 3, "168 hit points: less than ten turns of the guard (210)"),
    ],
)
def test_no_concession_while_the_game_can_still_turn(
    content: Content, red: list[str], towns: tuple[int, int], blue_groups: int, why: str
) -> None:
    blue_towns, red_towns = towns
    state = standoff(content, red, blue_towns, red_towns=red_towns, blue_groups=blue_groups)
    assert not concedes(view_for(state, RED, content), content), why
    assert conceding_side(state, content) is None


def test_a_spectator_or_a_finished_game_never_concedes(content: Content) -> None:
    state = standoff(content, [], blue_towns=2)
    assert not concedes(view_for(state, None, content), content)
    assert not concedes(view_for(concede(state, BLUE), RED, content), content)


def test_a_match_in_a_lost_position_ends_by_concession_before_its_turn(
    content: Content,
) -> None:
    state = standoff(content, ["archer"], blue_towns=3)
    levels: dict[Side, Level] = {side: "greedy" for side in Side}
    record = play_match(7, levels, content, start=state)
    assert (record.winner, record.reason, record.turns) == (BLUE, "concession", state.turn - 1)
    assert record.final is not None and record.final.result is not None


def test_a_concession_ends_a_running_game_inside_the_turn_cap_only(content: Content) -> None:
    state = standoff(content, [], blue_towns=2)
    ended = conceded(state, content, max_turns=state.turn)
    assert ended is not None and ended.result == concede(state, RED).result
    # Past the turn cap the game stopped before this turn, and a finished game stays as it ended.
    assert conceded(state, content, max_turns=state.turn - 1) is None
    assert conceded(concede(state, BLUE), content, max_turns=state.turn) is None
