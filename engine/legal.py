"""What a side may order now: helpers for order sheets, parsers and computer players.

These answer from the position between turns (the same view :func:`engine.orders.validate_orders`
judges against); an order they list is accepted by validation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.content import load_content
from engine.coords import Coord, coord
from engine.movement import king_steps
from engine.orders import CastOrder, Target, TrainOrder
from engine.queries import movable, moves, walks
from engine.setup import turn_rng
from engine.state import GameState, Side
from engine.terrain import can_enter
from engine.training import train_problem
from engine.validate import in_range
from engine.world import World

if TYPE_CHECKING:
    from engine.content import Content


def legal_moves(
    state: GameState, side: Side, content: Content | None = None
) -> dict[int, list[Coord]]:
    """For each group ``side`` controls and may move: the squares it can be ordered to.

    A destination is left out when the group could not get there now: a square on its way
    (every step of a longer move) is off the board, has terrain it cannot enter, or holds a
    hostile group. Such a move would be accepted but could only fail.
    """
    content = content or load_content()
    terrain = state.terrain_map()
    hostile_at = {g.coord for g in state.groups if g.owner != side}
    out: dict[int, list[Coord]] = {}
    for group in state.groups:
        if group.owner != side or group.controller != side or not movable(state, group):
            continue
        reach = moves(state, group)
        group_walks = walks(state, group)
        dests = []
        for dy in range(-reach, reach + 1):
            for dx in range(-reach, reach + 1):
                x, y = group.coord.x + dx, group.coord.y + dy
                if not (0 <= x < state.width and 0 <= y < state.height):
                    continue
                if not in_range(group, x, y, reach):
                    continue
                path = king_steps(group.coord, coord(x, y))
                if all(
                    at in terrain
                    and at not in hostile_at
                    and can_enter(content, terrain[at], group_walks)
                    for at in path
                ):
                    dests.append(path[-1])
        out[group.id] = sorted(dests, key=lambda c: (c.y, c.x))
    return out


def trainable(
    state: GameState, side: Side, content: Content | None = None
) -> dict[Coord, list[TrainOrder]]:
    """For each of ``side``'s structures with a novice: the training orders accepted there now."""
    content = content or load_content()
    world = World(state, turn_rng(state.seed, state.turn), content)
    house = content.houses[state.player(side).house]
    out: dict[Coord, list[TrainOrder]] = {}
    for structure in state.structures:
        if structure.owner != side or not structure.novices:
            continue
        options = [
            TrainOrder(structure.coord, "swordsman"),
            TrainOrder(structure.coord, "archer"),
            TrainOrder(structure.coord, "mana", house.primary),
            TrainOrder(structure.coord, "mana", house.secondary),
        ]
        accepted = [o for o in options if train_problem(world, side, o, 0) is None]
        if accepted:
            out[structure.coord] = accepted
    return out


def castable(
    state: GameState, side: Side, content: Content | None = None
) -> dict[int, list[Target]]:
    """For each card in ``side``'s hand: the targets on which casting it alone is accepted."""
    from engine.spells.targeting import legal_targets, validate_casts

    content = content or load_content()
    out: dict[int, list[Target]] = {}
    for card in state.player(side).hand:
        spell = content.spells.get(card.spell_id)
        if spell is None:
            continue
        targets = [
            t
            for t in legal_targets(state, side, spell, content)
            if not validate_casts(state, side, [CastOrder(card.uid, t)], content)
        ]
        if targets:
            out[card.uid] = targets
    return out
