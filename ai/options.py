"""What a side may order in a state: moves, trainings and casts, each legal on its own.

Everything here asks the engine's public functions (movement range, terrain entry, spell
targeting, :func:`engine.orders.validate_orders`), so the computer follows the rules the engine
enforces instead of a copy of them. :func:`legalize` is the last gate: it drops whatever the
engine still objects to once the orders are put together.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, TypeVar

from engine.content import Content
from engine.coords import Coord
from engine.legal import legal_moves, trainable
from engine.orders import CastOrder, Orders, Target, TrainOrder, validate_orders
from engine.spells.modifiers import bound_spells
from engine.spells.schema import SpellDef
from engine.spells.targeting import cast_cost, legal_targets
from engine.state import MAX_GROUP_SIZE, GameState, Group, Mana, Side

_T = TypeVar("_T")
_GLOBE: Final = Target("globe")
NOT_FROM_HAND: Final = frozenset({"attribute", "bound", "hereditary"})


@dataclass(frozen=True, slots=True)
class CastOption:
    """One cast the side could give on its own, with what it costs."""

    order: CastOrder
    spell: SpellDef
    cost: Mana


def move_options(state: GameState, side: Side, content: Content) -> dict[int, list[Coord]]:
    """For each group the side commands, the squares worth ordering it to: the engine's legal
    moves minus squares held by a friendly group it could not join (it would bounce back)."""
    occupied = {g.coord: g for g in state.groups if g.owner == side}
    out: dict[int, list[Coord]] = {}
    for gid, dests in legal_moves(state, side, content).items():
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


@dataclass(frozen=True, slots=True)
class Source:
    """Something the side may cast from: a card in hand, its hereditary spell or a bound one."""

    spell: SpellDef
    kind: str  # "hand", "hereditary" or "bound"
    card_uid: int = 0
    carrier_uid: int | None = None
    carrier_minion: int | None = None


def cast_sources(state: GameState, side: Side, content: Content) -> list[Source]:
    """What the side can afford to cast now, before choosing targets."""
    player = state.player(side)
    pool = player.pool
    out: list[Source] = []
    for card in player.hand:
        spell = content.spells.get(card.spell_id)
        if spell is None or spell.helper or spell.spell_class in NOT_FROM_HAND:
            continue
        if spell.once_per_game and spell.id in player.cast_log:
            continue
        if pool.covers(cast_cost(spell, CastOrder(card.uid, _GLOBE), state.turn, "hand")):
            out.append(Source(spell, "hand", card.uid))
    for spell in content.spells.values():
        if spell.spell_class != "hereditary" or spell.house != player.house or spell.helper:
            continue
        probe = CastOrder(0, _GLOBE, spell_id=spell.id)
        if pool.covers(cast_cost(spell, probe, state.turn, "hereditary")):
            out.append(Source(spell, "hereditary"))
    for carrier, bound_id in bound_spells(state, side, content):
        spell = content.spells.get(bound_id)
        if spell is None or spell.power is None:
            continue
        holder = carrier.host.ref if carrier.host.kind == "minion" else None
        minion = holder if isinstance(holder, int) else None
        out.append(Source(spell, "bound", 0, carrier.uid, minion))
    return out


def source_options(
    state: GameState, side: Side, source: Source, content: Content
) -> list[CastOption]:
    """Every affordable cast of ``source`` on a target the engine accepts."""
    pool = state.player(side).pool
    spell = source.spell
    orders: list[CastOrder] = []
    for target in legal_targets(state, side, spell, content, carrier=source.carrier_minion):
        if source.kind == "hand":
            orders.append(CastOrder(source.card_uid, target))
            if spell.boosted_cost is not None:
                orders.append(CastOrder(source.card_uid, target, boosted=True))
        elif source.kind == "hereditary":
            orders.append(CastOrder(0, target, spell_id=spell.id))
        else:
            for power in sorted(set(spell.power or ())):
                orders.append(
                    CastOrder(
                        0, target, power=power, bound_source=source.carrier_uid, spell_id=spell.id
                    )
                )
    out = []
    for order in orders:
        cost = cast_cost(spell, order, state.turn, source.kind)
        if pool.covers(cost):
            out.append(CastOption(order, spell, cost))
    return out


def cast_options(state: GameState, side: Side, content: Content) -> list[CastOption]:
    """Every single cast the side can afford and aim now: hand, hereditary and bound spells."""
    return [
        option
        for source in cast_sources(state, side, content)
        for option in source_options(state, side, source, content)
    ]


def legalize(state: GameState, side: Side, orders: Orders, content: Content) -> Orders:
    """``orders`` minus every part the engine refuses (the whole set is checked again after
    each removal, since one order can make another illegal)."""
    for _ in range(len(orders.casts) + len(orders.moves) + len(orders.trains) + 2):
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
    if section in ("casts", None) and orders.casts:
        at = index if index is not None else len(orders.casts) - 1
        return replace(orders, casts=_without(orders.casts, at))
    return Orders()


def _without(items: tuple[_T, ...], index: int) -> tuple[_T, ...]:
    return items[:index] + items[index + 1 :]
