"""Movement's pass II settles a square that already holds two groups when movement starts."""

from __future__ import annotations

import random

from engine.content import Content
from engine.coords import Coord
from engine.movement import resolve_movement
from engine.spells.hooks import SPELL_HOOKS
from engine.state import GameState, Group, Options, PlayerState, Side, Square
from engine.world import World

C3 = Coord.parse("C3")


def _world(content: Content) -> World:
    minions = tuple(content.make_minion(i, "swordsman", None) for i in (1, 2))
    state = GameState(
        seed=1,
        turn=1,
        options=Options(board="custom"),
        width=5,
        height=5,
        squares=tuple(Square(Coord(x, y), "plains") for y in range(5) for x in range(5)),
        structures=(),
        groups=(Group(3, Side.RED, Side.RED, C3, minions),),
        players=(PlayerState(Side.RED, "war"), PlayerState(Side.BLUE, "life")),
        initiative=Side.RED,
        next_id=20,
    )
    return World(state, random.Random(1), content, SPELL_HOOKS)


def test_G6_a_friendly_group_put_onto_a_group_joins_it_though_nothing_moves(
    content: Content,
) -> None:
    world = _world(content)
    world.create_group(Side.RED, C3, [world.new_minion("archer")])
    resolve_movement(world, {})
    (group,) = world.groups
    assert group.id == 3 and group.coord == C3 and len(group.minions) == 3


def test_G6_a_hostile_group_put_onto_a_group_loses_the_vote_and_is_removed(
    content: Content,
) -> None:
    world = _world(content)
    world.create_group(Side.BLUE, C3, [world.new_minion("archer")])
    resolve_movement(world, {})
    (group,) = world.groups
    assert group.id == 3 and len(group.minions) == 2
    assert "moonwalk_failed" in [e.kind for e in world.report]
