"""What a side may order now: helpers for order sheets, parsers and computer players.

These answer from the position between turns (the same view :func:`engine.validate.validate_orders`
judges against); an order they list is accepted by validation.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, TypeAlias

from engine.coords import Coord, coord
from engine.movement import king_steps
from engine.orders import CastOrder, Orders, Target, TrainOrder
from engine.position import PositionIndex
from engine.queries import can_move, walks
from engine.rng import turn_rng
from engine.spells.hooks import SPELL_HOOKS
from engine.spells.modifiers import bound_spells
from engine.spells.targeting import cast_cost, cast_problems, legal_targets
from engine.state import GameState, HostRef, Mana, Side
from engine.terrain import can_enter
from engine.training import train_problem
from engine.validate import in_range, ranges_at_movement
from engine.world import World

if TYPE_CHECKING:
    from engine.content import Content
    from engine.spells.schema import SpellDef

CastSource: TypeAlias = Literal["hand", "hereditary", "bound"]


def legal_moves(
    state: GameState, side: Side, content: Content, *, position: PositionIndex | None = None
) -> dict[int, list[Coord]]:
    """For each group ``side`` controls and may move: the squares it can be ordered to.

    A destination is left out when the group could not get there now: a square on its way
    (every step of a longer move) is off the board, has terrain it cannot enter, or holds a
    hostile group. Such a move would be accepted but could only fail. ``position``: an index
    of ``state`` already built (a search asks both sides' moves, and a score, of one position).
    """
    terrain = state.terrain_map()
    hostile_at = {g.coord for g in state.groups if g.owner != side}
    # The range when movement comes, counting no cast of this turn's (D-MOVE-RANGE).
    if position is None or position.state is not state:
        position = PositionIndex(state, content)
    ranges = ranges_at_movement(state, side, (), content, position=position)
    width, height = state.width, state.height
    out: dict[int, list[Coord]] = {}
    for group in state.groups:
        if group.owner != side or group.controller != side or not can_move(position, group):
            continue
        reach = ranges[group.id]
        group_walks = walks(position, group)
        # Whether the group may enter each terrain, asked once per terrain.
        enters: dict[str, bool] = {}
        gx, gy = group.coord
        if reach == 1:
            # One orthogonal step (in_range): the four neighbours, in (y, x) order.
            squares = [(gx, gy - 1), (gx - 1, gy), (gx + 1, gy), (gx, gy + 1)]
        else:
            squares = [
                (gx + dx, gy + dy)
                for dy in range(-reach, reach + 1)
                for dx in range(-reach, reach + 1)
                if in_range(group, gx + dx, gy + dy, reach)
            ]
        dests = []
        # Squares come row by row, so the destinations are in (y, x) order.
        for x, y in squares:
            if not (0 <= x < width and 0 <= y < height):
                continue
            path = king_steps(group.coord, coord(x, y))
            for at in path:
                kind = terrain.get(at)
                if kind is None or at in hostile_at:
                    break
                enterable = enters.get(kind)
                if enterable is None:
                    enterable = enters[kind] = can_enter(content, kind, group_walks)
                if not enterable:
                    break
            else:
                dests.append(path[-1])
        out[group.id] = dests
    return out


def trainable(state: GameState, side: Side, content: Content) -> dict[Coord, list[TrainOrder]]:
    """For each of ``side``'s structures with a novice: the training orders accepted there now."""
    if not any(s.owner == side and s.novices for s in state.structures):
        return {}  # no novice: the turn's World below would be built for nothing
    world = World(state, turn_rng(state.seed, state.turn), content, SPELL_HOOKS)
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


@dataclass(frozen=True, slots=True)
class CastOption:
    """One thing ``side`` may cast now, with every target on which casting it alone is accepted.

    ``source`` is "hand" (the card ``card_uid``), "hereditary" (the house's own spell, N3, cast
    without a card) or "bound" (a spell carried by the active spell ``bound_source``, cast at
    ``power``, N5 and N8). ``boosted`` is the boosted version (N7). ``label`` names it for a
    player ("Fireball boosted", "Dragon Breath power 4") and ``cost`` is what it takes from
    the pool.
    """

    spell_id: str
    source: CastSource
    label: str
    cost: Mana
    targets: tuple[Target, ...] = ()
    card_uid: int = 0
    boosted: bool = False
    power: int | None = None
    bound_source: int | None = None

    def order(self, target: Target) -> CastOrder:
        """The cast order that casts this option on ``target``."""
        return CastOrder(
            self.card_uid,
            target,
            boosted=self.boosted,
            power=self.power,
            bound_source=self.bound_source,
            spell_id=None if self.source == "hand" else self.spell_id,
        )

    def given(self, orders: Orders, content: Content) -> bool:
        """Whether ``orders`` already use up what this option casts: its card (cast or
        discarded), a hereditary spell tried once a turn unless replicable (N2), a bound spell
        cast once a turn by its holder (N5)."""
        if self.source == "hand":
            discarded = orders.discard is not None and orders.discard.card_uid == self.card_uid
            return discarded or any(c.card_uid == self.card_uid for c in orders.casts)
        given = [c for c in orders.casts if c.card_uid == 0 and c.spell_id == self.spell_id]
        if self.source == "bound":
            return any(c.bound_source == self.bound_source for c in given)
        spell = content.spells.get(self.spell_id)
        replicable = spell is not None and spell.replicable
        return not replicable and any(c.bound_source is None for c in given)


def cast_options(state: GameState, side: Side, content: Content) -> list[CastOption]:
    """Everything ``side`` may cast now: each card in hand, the house's hereditary spells and
    the bound spells it carries, plainly, boosted and at each power level; listed (in that
    order) only when it has a target on which casting it alone is accepted
    (:func:`engine.spells.targeting.validate_casts` decides)."""
    position = PositionIndex(state, content)
    out = _with_targets(position, side, _hand_options(state, side, content, boosts=True))
    house = state.player(side).house
    hereditary = [
        _option(spell, "hereditary", state.turn, boosted=boosted)
        for spell in content.spells.values()
        if spell.spell_class == "hereditary" and spell.house == house and not spell.helper
        for boosted in _boosts(spell)
    ]
    out += _with_targets(position, side, hereditary)
    for carrier, spell_id in bound_spells(position, side):
        spell = content.spells.get(spell_id)
        if spell is None:
            continue
        levels = [
            _option(spell, "bound", state.turn, power=power, bound_source=carrier.uid)
            for power in sorted(set(spell.power or ()))
        ]
        # The carrier's host casts it: a hero carrying it may have to be its target
        # ("caster"), and its range runs from the host's square.
        out += _with_targets(position, side, levels, carrier=carrier.host)
    return out


def castable(state: GameState, side: Side, content: Content) -> dict[int, list[Target]]:
    """For each card in ``side``'s hand: the targets on which casting it (not boosted) alone is
    accepted. :func:`cast_options` lists everything else that may be cast."""
    options = _with_targets(
        PositionIndex(state, content), side, _hand_options(state, side, content, boosts=False)
    )
    return {option.card_uid: list(option.targets) for option in options}


def _boosts(spell: SpellDef) -> tuple[bool, ...]:
    return (False, True) if spell.boosted_cost is not None else (False,)


def _option(
    spell: SpellDef,
    source: CastSource,
    turn: int,
    *,
    card_uid: int = 0,
    boosted: bool = False,
    power: int | None = None,
    bound_source: int | None = None,
) -> CastOption:
    label = spell.name + (" boosted" if boosted else "")
    if power is not None:
        label += f" power {power}"
    probe = CastOrder(card_uid, Target("globe"), boosted=boosted, power=power)
    return CastOption(
        spell.id,
        source,
        label,
        cast_cost(spell, probe, turn, source),
        card_uid=card_uid,
        boosted=boosted,
        power=power,
        bound_source=bound_source,
    )


def _hand_options(
    state: GameState, side: Side, content: Content, *, boosts: bool
) -> list[CastOption]:
    out = []
    for card in state.player(side).hand:
        spell = content.spells.get(card.spell_id)
        if spell is None:
            continue
        for boosted in _boosts(spell) if boosts else (False,):
            out.append(_option(spell, "hand", state.turn, card_uid=card.uid, boosted=boosted))
    return out


def _with_targets(
    position: PositionIndex,
    side: Side,
    options: list[CastOption],
    carrier: HostRef | None = None,
) -> list[CastOption]:
    """``options`` with their accepted targets, those without any left out. The board checks
    (:func:`legal_targets`) depend only on the spell, so they run once per spell; a cast the
    pool cannot pay for is refused on every target (C4), so its targets are not tried. Each
    target is checked as :func:`engine.spells.targeting.validate_casts` checks it, on the one
    index of the position."""
    state, content = position.state, position.content
    pool = state.player(side).pool
    out = []
    board: dict[str, list[Target]] = {}
    for option in options:
        if not pool.covers(option.cost):
            continue
        if option.spell_id not in board:
            spell = content.spells[option.spell_id]
            board[option.spell_id] = legal_targets(state, side, spell, content, carrier=carrier)
        targets = tuple(
            t
            for t in board[option.spell_id]
            if not cast_problems(position, side, [option.order(t)])
        )
        if targets:
            out.append(replace(option, targets=targets))
    return out


def capturable(state: GameState, side: Side, content: Content) -> list[Coord]:
    """The towns and colonies ``side`` does not own that one of its recruit groups stands on or
    may be ordered onto: where a capture at the coming start of turn, and so a mana choice
    (D-TOWN-MANA), is possible. Sorted by row, then column."""
    recruits = {g.id: g.coord for g in state.groups if g.owner == side and g.is_recruit_group}
    reach = set(recruits.values())
    for group_id, dests in legal_moves(state, side, content).items():
        if group_id in recruits:
            reach.update(dests)
    return sorted(
        (
            s.coord
            for s in state.structures
            if s.kind != "sanctum" and s.owner != side and s.coord in reach
        ),
        key=lambda c: (c.y, c.x),
    )
