"""One-turn lookahead over the engine: score candidate orders by resolving the turn.

A :class:`Simulator` resolves a side's candidate orders against one or more scenarios (a
determinized state, the enemy's orders in it, and the seed of the turn's dice) and averages the
resulting :func:`ai.evaluate.evaluate` scores. The :func:`plan` search is shared by the greedy and
strong levels: training by rule of thumb, then each group's move, then casts one at a time, each
step kept only when the simulated result improves. Budgets count simulations, so a seed always
gives the same orders whatever the machine.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeAlias

from ai.evaluate import Board, evaluate, minion_value
from ai.options import CastOption, cast_options, legalize, move_options, train_options
from engine.content import Content
from engine.coords import Coord
from engine.legal import capturable
from engine.mana import production
from engine.orders import CastOrder, DiscardOrder, ManaChoice, MoveOrder, Orders, TrainOrder
from engine.spells.schema import SpellDef
from engine.state import MANA_TYPES, GameState, Mana, Side
from engine.turn import resolve_turn

log = logging.getLogger(__name__)

CAST_GAIN = 0.5  # a cast must beat holding the mana by this much
MAX_CASTS = 3
TARGETS_PER_SPELL = 3
MAX_CAST_OPTIONS = 18
SHORTLIST = 4  # casts that look good in the first scenario and are tried in all of them
HELD_TURNS = 8  # mana held counts as a make of one per turn over this many turns
MANA_NOVICES = 3  # mana novices trained before every novice fights


@dataclass(frozen=True, slots=True)
class Scenario:
    """A possible world: the determinized state, what the enemy orders in it, the dice seed."""

    state: GameState
    enemy: Orders
    seed: int


class Simulator:
    """Scores orders by resolving the turn in every scenario; counts simulations."""

    def __init__(
        self, side: Side, content: Content, scenarios: Sequence[Scenario], budget: int
    ) -> None:
        self.side = side
        self.content = content
        self.scenarios = tuple(scenarios)
        self.budget = budget
        self.used = 0
        self._memo: dict[tuple[Orders, bool], float] = {}
        # Each scenario's score of each orders, kept: orders screened in the first scenario are
        # then scored in all of them. The budget still counts the first one again, so the search
        # is the same, only cheaper.
        self._played: dict[tuple[Orders, int], float] = {}

    @property
    def exhausted(self) -> bool:
        return self.used + len(self.scenarios) > self.budget

    def score(self, orders: Orders, *, quick: bool = False) -> float:
        """The average score over the scenarios (``quick``: over the first one only)."""
        quick = quick and len(self.scenarios) > 1
        known = self._memo.get((orders, quick))
        if known is not None:
            return known
        scenarios = self.scenarios[:1] if quick else self.scenarios
        total = 0.0
        for i, sc in enumerate(scenarios):
            self.used += 1
            played = self._played.get((orders, i))
            if played is None:
                orders_by_side = {self.side: orders, self.side.other: sc.enemy}
                try:
                    # Only the state is scored: the turn keeps no report (the same state either
                    # way).
                    after, _ = resolve_turn(
                        sc.state,
                        orders_by_side,
                        random.Random(sc.seed),
                        content=self.content,
                        record=False,
                    )
                except Exception:  # the engine must never take the computer player down with it
                    log.exception("simulating orders failed; treating them as hopeless")
                    total = float("-inf")
                    break
                played = evaluate(after, self.side, self.content)
                self._played[(orders, i)] = played
            total += played
        result = total / len(scenarios)
        self._memo[(orders, quick)] = result
        return result


def choose_trains(
    state: GameState, side: Side, content: Content, *, mana_novices: int = MANA_NOVICES
) -> tuple[TrainOrder, ...]:
    """Train every novice: mana in a safe Sanctum while fewer than ``mana_novices`` make it,
    else fighters (mostly swordsmen, an archer for every two of them)."""
    board = Board(state, content)
    sanctum = state.sanctum(side)
    danger = sanctum is not None and any(
        g.owner != side and g.is_recruit_group and board.dist(g.coord, sanctum.coord) <= 4
        for g in state.groups
    )
    production = state.player(side).mana_novices.total
    trains: list[TrainOrder] = []
    for choices in train_options(state, side, content):
        at = choices[0].structure
        structure = state.structure_at(at)
        novices = len(structure.novices) if structure is not None else 0
        here = state.group_at(at)
        swords = sum(1 for m in here.minions if m.unit == "swordsman") if here else 0
        archers = sum(1 for m in here.minions if m.unit == "archer") if here else 0
        size = len(here.minions) if here else 0
        for _ in range(novices):
            mana = [c for c in choices if c.kind == "mana"]
            fighters = [c for c in choices if c.kind != "mana"]
            if mana and (not fighters or (not danger and production < mana_novices and size >= 4)):
                trains.append(mana[production % len(mana)])
                production += 1
                continue
            if not fighters or size >= 8:
                break
            if archers * 2 < swords:
                trains.append(TrainOrder(at, "archer"))
                archers += 1
            else:
                trains.append(TrainOrder(at, "swordsman"))
                swords += 1
            size += 1
    return tuple(trains)


def _relevance(state: GameState, side: Side, option: CastOption, content: Content) -> float:
    """A cheap prior for which targets of a spell deserve a simulation."""
    ref = option.order.target.ref
    kind = option.order.target.kind
    if kind == "group" and isinstance(ref, int):
        group = state.group(ref)
        if group is None:
            return 0.0
        value = sum(minion_value(m) for m in group.minions)
        return value if group.owner != side else value * 0.6 + _front(state, side, group.coord)
    if kind == "minion" and isinstance(ref, int):
        holder = state.group_of(ref)
        minion = state.minion(ref)
        if holder is None or minion is None:
            return 0.0
        bonus = 10.0 if holder.owner != side else _front(state, side, holder.coord)
        return minion_value(minion) + bonus
    if isinstance(ref, Coord):
        return _front(state, side, ref) * 2
    return 5.0


def _front(state: GameState, side: Side, at: Coord) -> float:
    """Higher near enemy forces and the enemy Sanctum."""
    hostile = [g.coord for g in state.groups if g.owner != side]
    sanctum = state.sanctum(side.other)
    if sanctum is not None:
        hostile.append(sanctum.coord)
    if not hostile:
        return 0.0
    return 20.0 / (1.0 + min(at.dist(h) for h in hostile))


def _prune(
    state: GameState, side: Side, options: list[CastOption], content: Content
) -> list[CastOption]:
    ranked = sorted(options, key=lambda o: -_relevance(state, side, o, content))
    per_spell: dict[tuple[int, str], int] = {}
    kept: list[CastOption] = []
    for option in ranked:
        key = (option.order.card_uid, option.spell.id)
        if per_spell.get(key, 0) >= TARGETS_PER_SPELL:
            continue
        per_spell[key] = per_spell.get(key, 0) + 1
        kept.append(option)
    return kept[:MAX_CAST_OPTIONS]


def _with_move(orders: Orders, group_id: int, dest: Coord | None) -> Orders:
    moves = tuple(m for m in orders.moves if m.group_id != group_id)
    if dest is not None:
        moves += (MoveOrder(group_id, dest),)
    return replace(orders, moves=moves)


def improve_moves(
    state: GameState, side: Side, orders: Orders, sim: Scorer, rng: random.Random
) -> Orders:
    """Each group in turn takes the destination (or staying) that scores best."""
    current = sim.score(orders)
    options = move_options(state, side, sim.content)
    group_ids = sorted(options)
    rng.shuffle(group_ids)
    for gid in group_ids:
        dests = list(options[gid])
        rng.shuffle(dests)
        for dest in [None, *dests]:
            if sim.exhausted:
                return orders
            candidate = _with_move(orders, gid, dest)
            if candidate == orders:
                continue
            value = sim.score(candidate)
            if value > current:
                orders, current = candidate, value
    return orders


# For each card, its cast that showed the best gain in the first scenario, and that gain.
Tried: TypeAlias = dict[int, tuple[float, CastOrder]]


class Scorer(Protocol):
    """What the cast and move searches need from a simulator: scores, a budget, the content."""

    content: Content

    @property
    def exhausted(self) -> bool: ...

    def score(self, orders: Orders, *, quick: bool = False) -> float: ...


def add_casts(
    state: GameState,
    side: Side,
    orders: Orders,
    sim: Scorer,
    options: list[CastOption] | None = None,
    *,
    gain: float = CAST_GAIN,
    max_casts: int = MAX_CASTS,
    shortlist: int = SHORTLIST,
    tried: Tried | None = None,
) -> Orders:
    """Add the best cast while it improves the simulated result by more than ``gain``.

    Every affordable cast among ``options`` (by default the pruned castable ones) is tried in the
    first scenario; the ``shortlist`` best are then scored in all. ``tried``, if given, records
    for each card its cast with the best first-scenario gain, and that gain."""
    if options is None:
        options = _prune(state, side, cast_options(state, side, sim.content), sim.content)
    pool = state.player(side).pool
    spells = {o.order: o.spell for o in options}
    for _ in range(max_casts):
        current = sim.score(orders)
        first = sim.score(orders, quick=True)
        reserved = sum((_cost(o, orders, options) for o in orders.casts), Mana())
        promising: list[tuple[float, Orders]] = []
        for option in options:
            if sim.exhausted:
                break
            if _clashes(option.order, orders.casts, spells) or not pool.covers(
                reserved + option.cost
            ):
                continue
            candidate = replace(orders, casts=(*orders.casts, option.order))
            value = sim.score(candidate, quick=True)
            uid = option.order.card_uid
            if tried is not None and uid and (uid not in tried or value - first > tried[uid][0]):
                tried[uid] = (value - first, option.order)
            if value > first + gain:
                promising.append((value, candidate))
        promising.sort(key=lambda pair: -pair[0])
        best: tuple[float, Orders] | None = None
        for _, candidate in promising[:shortlist]:
            if sim.exhausted:
                break
            value = sim.score(candidate)
            if value > current + gain and (best is None or value > best[0]):
                best = (value, candidate)
        if best is None:
            break
        orders = best[1]
    return orders


def _cost(order: CastOrder, orders: Orders, options: list[CastOption]) -> Mana:
    for option in options:
        if option.order == order:
            return option.cost
    return Mana()


def _clashes(
    order: CastOrder, chosen: tuple[CastOrder, ...], spells: Mapping[CastOrder, SpellDef]
) -> bool:
    """Whether the engine would refuse ``order`` beside ``chosen`` (``spells`` names the spell
    of each): the same card or hereditary or bound spell twice, a learned spell tried twice in
    a turn (N2), a non-cumulative spell twice on one target (S6). A refused cast changes
    nothing in a rollout, so without this a no-op copy could take a cast's place and its
    mana's, to be dropped when the orders are made legal."""
    spell = spells.get(order)
    for other in chosen:
        if order.card_uid and other.card_uid == order.card_uid:
            return True
        if (
            not order.card_uid
            and order.spell_id == other.spell_id
            and order.bound_source == other.bound_source
        ):
            return True
        same = spells.get(other)
        if spell is None or same is None or same.id != spell.id:
            continue
        if order.bound_source is not None or other.bound_source is not None:
            continue
        if spell.spell_class in ("learned", "hereditary") and not spell.replicable:
            return True
        if not spell.cumulative and other.target == order.target:
            return True
    return False


def choose_discard(state: GameState, side: Side, orders: Orders, content: Content) -> Orders:
    """Drop a card the side cannot pay for with what it makes (a dead card blocks a draw)."""
    player = state.player(side)
    cast = {c.card_uid for c in orders.casts}
    produced = {name for name, n in player.pool.items() if n} | {
        name for name, n in _production_types(state, side, content).items() if n
    }
    for card in player.hand:
        spell = content.spells.get(card.spell_id)
        if spell is None or card.uid in cast:
            continue
        primary, secondary = spell.mana
        needs = {primary} if spell.cost.primary else set()
        if spell.cost.secondary:
            needs.add(secondary)
        if not needs <= produced:
            return replace(orders, discard=DiscardOrder(card.uid))
    return orders


def _production_types(state: GameState, side: Side, content: Content) -> dict[str, int]:
    house = content.houses[state.player(side).house]
    made = {house.primary: 1, house.secondary: 1}
    for s in state.structures:
        if s.owner == side and s.mana_type is not None:
            made[s.mana_type] = made.get(s.mana_type, 0) + 1
    return made


def wanted_mana(state: GameState, side: Side, content: Content) -> dict[str, int]:
    """Each mana type's share of the costs of the side's cards (hand, deck and discard pile)."""
    player = state.player(side)
    wanted = dict.fromkeys(MANA_TYPES, 0)
    for card in (*player.hand, *player.deck, *player.discard):
        spell = content.spells.get(card.spell_id)
        if spell is None:
            continue
        primary, secondary = spell.mana
        wanted[primary] += spell.cost.primary
        wanted[secondary] += spell.cost.secondary
    return wanted


def scarcest(
    types: Sequence[str],
    wanted: dict[str, int],
    made: dict[str, int],
    pool: Mana,
    *,
    first: str,
) -> str:
    """Of ``types``, the one that runs out first: the cards' costs in it (:func:`wanted_mana`)
    over what the side makes of it a turn, mana held counting as a make of one a turn over
    ``HELD_TURNS`` and a type it makes none of as if it made one. Nearly every spell costs
    some of both its house's types, so casting stops at the scarcer one and the other floats:
    a Sanctum's one mana of each with three novices making the primary left the secondary
    spent the turn it came and the primary piling up (docs/ai.md, "Mana where it runs out").
    Ties go to ``first``, then to the order given."""

    def need(t: str) -> float:
        return wanted.get(t, 0) / max(1.0, made.get(t, 0) + pool.get(t) / HELD_TURNS)

    return max(types, key=lambda t: (need(t), t == first, -types.index(t)))


def choose_mana(
    state: GameState, side: Side, content: Content, *, pool: Mana | None = None
) -> tuple[ManaChoice, ...]:
    """For each town or colony the side may take this turn (D-TOWN-MANA), the :func:`scarcest`
    mana type for what it makes (and, given a ``pool``, what it holds); ties go to the house's
    primary type, then to the order of the six types. A second town counts the first one's
    choice as made."""
    squares = capturable(state, side, content)
    if not squares:
        return ()
    player = state.player(side)
    wanted = wanted_mana(state, side, content)
    made = dict(production(state, side, content).items())
    first = content.houses[player.house].primary
    choices = []
    for at in squares:
        best = scarcest(MANA_TYPES, wanted, made, pool or Mana(), first=first)
        made[best] += 1
        choices.append(ManaChoice(at, best))
    return tuple(choices)


def plan(
    state: GameState, side: Side, content: Content, sim: Simulator, rng: random.Random
) -> Orders:
    """Orders for ``side``: trainings, moves, casts, moves again, a discard, the mana of the
    towns it may take; all legal."""
    orders = Orders(
        trains=choose_trains(state, side, content),
        mana_choices=choose_mana(state, side, content),
    )
    orders = legalize(state, side, orders, content)
    orders = improve_moves(state, side, orders, sim, rng)
    orders = add_casts(state, side, orders, sim)
    if orders.casts:
        orders = improve_moves(state, side, orders, sim, rng)
    orders = choose_discard(state, side, orders, content)
    return legalize(state, side, orders, content)
