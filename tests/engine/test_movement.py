"""Movement's pass II settles a square that already holds two groups when movement starts."""

from __future__ import annotations

from engine.content import Content
from engine.movement import resolve_movement
from engine.state import Side
from engine.world import World
from tests.engine.spells.helpers import Board, at, world_of


def _two_on_c3(content: Content, newcomer: Side) -> tuple[World, int]:
    """Red's two swordsmen on C3 and, put there before movement, ``newcomer``'s archer."""
    board = Board(width=5, height=5)
    gid = board.group(Side.RED, "C3", "swordsman", "swordsman")
    world = world_of(board.state(), content)
    world.create_group(newcomer, at("C3"), [world.new_minion("archer")])
    resolve_movement(world, {})
    return world, gid


def test_G6_a_friendly_group_put_onto_a_group_joins_it_though_nothing_moves(
    content: Content,
) -> None:
    world, gid = _two_on_c3(content, Side.RED)
    (group,) = world.groups
    assert group.id == gid and group.coord == at("C3") and len(group.minions) == 3


def test_G6_a_hostile_group_put_onto_a_group_loses_the_vote_and_is_removed(
    content: Content,
) -> None:
    world, gid = _two_on_c3(content, Side.BLUE)
    (group,) = world.groups
    assert group.id == gid and len(group.minions) == 2
    assert "moonwalk_failed" in [e.kind for e in world.report]
