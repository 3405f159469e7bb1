"""What a side may order in a state: moves, trainings and casts, each legal on its own.

Everything here asks the engine's public functions (movement range, terrain entry,
:func:`engine.legal.cast_options`, :func:`engine.validate.validate_orders`), so the computer follows
the rules the engine enforces instead of a copy of them. :func:`legalize` is the last gate: it
drops whatever the engine still objects to once the orders are put together.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from engine import legal
from engine.content import Content
from engine.coords import Coord
from engine.legal import legal_moves, trainable
from engine.orders import CastOrder, Orders, TrainOrder
from engine.position import PositionIndex
from engine.spells.schema import SpellDef
from engine.state import MAX_GROUP_SIZE, GameState, Group, Mana, Side
from engine.validate import validate_orders

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class CastOption:
    """One cast the side could give on its own, with what it costs."""

    order: CastOrder
    spell: SpellDef
    cost: Mana


def move_options(
    state: GameState, side: Side, content: Content, *, position: PositionIndex | None = None
) -> dict[int, list[Coord]]:
    """For each group the side commands, the squares worth ordering it to: the engine's legal
    moves minus squares held by a friendly group it could not join (it would bounce back).
    ``position``: an index of ``state`` already built."""
    occupied = {g.coord: g for g in state.groups if g.owner == side}
    out: dict[int, list[Coord]] = {}
    for gid, dests in legal_moves(state, side, content, position=position).items():
        group = state.group(gid)
        if group is None:
            continue
        out[gid] = [
            d
            for d in dests
            if d != group.coord and ((other := occupied.get(d)) is None or _may_join(group, other))
        ]
    return out


def _may_join(a: Group, b: Group) -> bool:
    return (
        a.is_recruit_group
        and b.is_recruit_group
        and len(a.minions) + len(b.minions) <= MAX_GROUP_SIZE
    )


def train_options(state: GameState, side: Side, content: Content) -> list[list[TrainOrder]]:
    """For each owned structure with novices, the trainings the engine accepts there."""
    return [choices for _, choices in sorted(trainable(state, side, content).items())]


def cast_groups(state: GameState, side: Side, content: Content) -> list[list[CastOption]]:
    """The engine's castable things (:func:`engine.legal.cast_options`: hand cards, the
    hereditary spell, bound spells; plain, boosted and at each power level), one list per thing
    cast (a card, a hereditary spell, a bound spell's holder), each cast on each accepted target.
    """
    groups: dict[tuple[int, str | None, int | None], list[CastOption]] = {}
    for option in legal.cast_options(state, side, content):
        spell = content.spells[option.spell_id]
        key = (option.card_uid, None if option.card_uid else option.spell_id, option.bound_source)
        groups.setdefault(key, []).extend(
            CastOption(option.order(target), spell, option.cost) for target in option.targets
        )
    return list(groups.values())


def cast_options(state: GameState, side: Side, content: Content) -> list[CastOption]:
    """Every single cast the side can afford and aim now: hand, hereditary and bound spells."""
    return [option for group in cast_groups(state, side, content) for option in group]


def legalize(state: GameState, side: Side, orders: Orders, content: Content) -> Orders:
    """``orders`` minus every part the engine refuses (the whole set is checked again after
    each removal, since one order can make another illegal)."""
    parts = len(orders.casts) + len(orders.moves) + len(orders.trains) + len(orders.mana_choices)
    for _ in range(parts + 2):
        problems = validate_orders(state, side, orders, content)
        if not problems:
            return orders
        orders = _drop(orders, problems[0].section, problems[0].order_index)
    return Orders()


def _drop(orders: Orders, section: str | None, index: int | None) -> Orders:
    if section == "discard":
        return replace(orders, discard=None)
    if section == "moves" and index is not None:
        return replace(orders, moves=_without(orders.moves, index))
    if section == "trains" and index is not None:
        return replace(orders, trains=_without(orders.trains, index))
    if section == "mana_choices" and index is not None:
        return replace(orders, mana_choices=_without(orders.mana_choices, index))
    if section in ("casts", None) and orders.casts:
        at = index if index is not None else len(orders.casts) - 1
        return replace(orders, casts=_without(orders.casts, at))
    return Orders()


def _without(items: tuple[_T, ...], index: int) -> tuple[_T, ...]:
    return items[:index] + items[index + 1 :]
