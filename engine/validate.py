"""Order validation: every problem at once, each with a code and a message for a player.

Training is checked first and applied to a working copy, because casts may target what training
creates (a new group, named by its square) and spend mana it adds (digest 4.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from engine.coords import Coord
from engine.orders import CastOrder, ManaChoice, MoveOrder, Orders, Problem
from engine.position import PositionIndex
from engine.queries import can_move, moves
from engine.rng import turn_rng
from engine.spells.hooks import SPELL_HOOKS
from engine.spells.targeting import validate_casts
from engine.state import MANA_TYPES, ActiveSpell, GameState, Group, Side, evolve
from engine.training import apply_training
from engine.world import World

if TYPE_CHECKING:
    from engine.content import Content


def validate_orders(
    state: GameState, side: Side, orders: Orders, content: Content
) -> list[Problem]:
    """Every problem with ``orders`` for ``side`` in ``state`` (empty when they are legal)."""
    if state.result is not None:
        return [Problem("game_over", "the game is over; no more orders are taken")]
    world = World(state, turn_rng(state.seed, state.turn), content, SPELL_HOOKS)
    problems = apply_training(world, side, orders.trains)
    problems += _discard_problems(state, side, orders)
    seen: set[int] = set()
    reach = ranges_at_movement(world.state, side, orders.casts, content)
    for index, move in enumerate(orders.moves):
        problem = move_problem(world, side, move, index, seen, reach=reach)
        if problem is not None:
            problems.append(problem)
    problems += validate_casts(world.state, side, list(orders.casts), content)
    problems += mana_choice_problems(world, side, orders.mana_choices)
    return problems


def mana_choice_problems(
    world: World, side: Side, choices: tuple[ManaChoice, ...]
) -> list[Problem]:
    """A choice names a town or colony the side does not own, once, and one of the six types."""
    problems = []
    seen: set[Coord] = set()
    for index, choice in enumerate(choices):
        at = choice.structure
        structure = world.structure_at(at)
        if structure is None or structure.kind == "sanctum":
            code, message = "no_town", f"there is no town or colony on {at.name}"
        elif structure.owner == side:
            code, message = "own_structure", f"the structure on {at.name} is already yours"
        elif at in seen:
            code, message = "duplicate_choice", f"{at.name} already has a mana choice"
        elif choice.mana_type not in MANA_TYPES:
            code = "bad_mana_type"
            message = f"{choice.mana_type!r} is not a mana type ({', '.join(MANA_TYPES)})"
        else:
            seen.add(at)
            continue
        seen.add(at)
        problems.append(Problem(code, message, index, "mana_choices"))
    return problems


def _discard_problems(state: GameState, side: Side, orders: Orders) -> list[Problem]:
    if orders.discard is None:
        return []
    uid = orders.discard.card_uid
    if state.player(side).card(uid) is None:
        return [Problem("card_not_in_hand", f"card {uid} is not in your hand", 0, "discard")]
    if any(c.card_uid == uid for c in orders.casts):
        return [
            Problem(
                "discard_and_cast",
                "the same card cannot be cast and discarded in one turn",
                0,
                "discard",
            )
        ]
    return []


def in_range(group: Group, dest_x: int, dest_y: int, moves: int) -> bool:
    """One orthogonal step; with 2 or more moves, any square within that many king steps."""
    dx, dy = abs(dest_x - group.coord.x), abs(dest_y - group.coord.y)
    if moves <= 1:
        return dx + dy == 1
    return 0 < max(dx, dy) <= moves


def ranges_at_movement(
    state: GameState,
    side: Side,
    casts: Sequence[CastOrder],
    content: Content,
    *,
    position: PositionIndex | None = None,
) -> dict[int, int]:
    """Each of ``side``'s groups' range when this turn's movement comes (D-MOVE-RANGE, N12).

    The spell phase runs before movement: the one-turn speed spells that end at its start no
    longer help, and a speed spell the side casts on its own group this turn (Forced March) does,
    if it lands; a move that counted on it is blocked as too far when it does not.
    ``position``: an index of ``state`` already built, used when no spell ends before movement;
    it keeps the position at movement for the next question when one does.
    """
    bonus = _speed_casts(state, side, casts, content)
    if position is None or position.state is not state:
        changed = _at_movement(state, content)
        at_movement = PositionIndex(state, content) if changed is None else changed
    else:
        # Both sides' moves are asked of one index: the position at movement is worked out
        # once (None: no spell ends before movement, the index itself).
        found = position.memo.get(_AT_MOVEMENT, _UNKNOWN)
        if found is _UNKNOWN:
            found = position.memo[_AT_MOVEMENT] = _at_movement(state, content)
        at_movement = found if isinstance(found, PositionIndex) else position
    return {
        g.id: moves(at_movement, g) + bonus.get(g.id, 0) for g in state.groups if g.owner == side
    }


_AT_MOVEMENT: Final = ("position_at_movement",)
_UNKNOWN: Final = object()


def _at_movement(state: GameState, content: Content) -> PositionIndex | None:
    """The position as movement will find it when one-turn spells end before it (None when no
    spell does)."""
    lasting = tuple(s for s in state.active_spells if not _expires_by(s, state.turn))
    if len(lasting) == len(state.active_spells):
        return None
    return PositionIndex(evolve(state, active_spells=lasting), content)


def _expires_by(spell: ActiveSpell, turn: int) -> bool:
    until = spell.get("expires_turn")
    return isinstance(until, int) and not isinstance(until, bool) and until <= turn


def _speed_casts(
    state: GameState, side: Side, casts: Sequence[CastOrder], content: Content
) -> dict[int, int]:
    """Group id -> the moves that ``side``'s casts on its own groups add this turn."""
    hand = {c.uid: c.spell_id for c in state.player(side).hand}
    bonus: dict[int, int] = {}
    for cast in casts:
        spell_id = cast.spell_id if cast.spell_id is not None else hand.get(cast.card_uid)
        spell = content.spells.get(spell_id) if spell_id is not None else None
        if spell is None or cast.target.kind != "group":
            continue
        ref = cast.target.ref
        group = state.group_at(ref) if isinstance(ref, Coord) else None
        group_id = group.id if group is not None else ref
        if not isinstance(group_id, int):
            continue
        added = sum(
            e.params.num("amount")
            for e in spell.effects
            if e.op == "modify"
            and e.params.text("stat") == "moves"
            and e.params.text("op", "add") == "add"
            and e.params.num("amount") > 0
        )
        if added:
            bonus[group_id] = bonus.get(group_id, 0) + added
    return bonus


def move_problem(
    world: World,
    side: Side,
    move: MoveOrder,
    index: int,
    seen: set[int],
    *,
    reach: dict[int, int],
) -> Problem | None:
    def problem(code: str, message: str) -> Problem:
        return Problem(code, message, index, "moves")

    group = world.group(move.group_id)
    if group is None:
        return problem("unknown_group", f"there is no group {move.group_id}")
    # Players know their groups by square (the sheet's g-labels are its own), never by id.
    if group.owner != side:
        return problem("not_your_group", f"the group on {group.coord.name} is not yours")
    if group.controller != side:
        return problem(
            "not_controlled", f"the group on {group.coord.name} is not under your control"
        )
    if group.id in seen:
        return problem(
            "duplicate_move", f"the group on {group.coord.name} already has a move order"
        )
    seen.add(group.id)
    if not world.on_board(move.dest):
        return problem("off_board", f"{move.dest.name} is not on the board")
    if move.dest == group.coord:
        return problem("same_square", f"the group is already on {move.dest.name}")
    if not can_move(world, group):
        return problem("cannot_move", f"the group on {group.coord.name} cannot move this turn")
    steps = reach.get(group.id, 1)
    if not in_range(group, move.dest.x, move.dest.y, steps):
        where = "one square up, down, left or right" if steps <= 1 else f"{steps} squares"
        return problem(
            "too_far",
            f"the group on {group.coord.name} can move {where}, not to {move.dest.name}",
        )
    return None
