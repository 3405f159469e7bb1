"""The ``expert`` level: plans scored by two-turn rollouts over determinized worlds.

Each candidate order set is played out in several sampled worlds (the enemy's hidden hand and
deck drawn anew, the enemy's orders what a greedy player would give from its own view there, the
match's ruleset so duel dice are rolled): the candidate's turn is resolved, then both sides play
one more turn with a cheap default policy (:func:`default_orders`), and the position two turns on
is scored by :func:`value`, which adds to :func:`ai.evaluate.evaluate` what lasts: active spells
for the turns they have left, production, and a Sanctum that an enemy raid can reach within two
turns. Candidates come from a wider search than ``strong``'s: two passes over every group's
moves, moves of adjacent groups together, more casts and targets, a guard for a threatened
Sanctum, and a discard of a dead card, or of the weakest while mana floats after the casts.
A large army past the opening starts its move search from the default march, so that the
groups the budget never reaches close on their goals instead of standing still.

The budget counts rollouts (deterministic for a seed); ``seconds`` adds an anytime cap: when the
time is up the best plan found so far is returned.
"""

from __future__ import annotations

import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Final, TypeAlias

from ai import search
from ai.determinize import determinize
from ai.evaluate import (
    WEIGHTS,
    Board,
    damage_per_round,
    evaluate,
    minion_value,
    toughness,
)
from ai.options import CastOption, cast_options, legalize, move_options
from ai.search import (
    Tried,
    _relevance,
    _with_move,
    choose_mana,
    choose_trains,
    scarcest,
    wanted_mana,
)
from engine.content import Content, load_content
from engine.coords import Coord
from engine.mana import production
from engine.orders import CastOrder, DiscardOrder, MoveOrder, Orders, TrainOrder
from engine.position import Position, PositionIndex
from engine.spells.primitives import Effect
from engine.spells.primitives.base import matches_filter
from engine.spells.schema import SpellDef
from engine.spells.targeting import target_host
from engine.state import ActiveSpell, GameState, Group, Mana, Options, Side
from engine.terrain import FLIGHT, has_walk
from engine.turn import resolve_turn
from engine.view import PlayerView, view_for

log = logging.getLogger(__name__)

# Rollouts of two turns each. A rollout costs 6 to 10 ms of CPU, so this keeps a decision
# (with the enemy models of its worlds) within about 2 s on a loaded machine; a late-game
# turn with many groups would otherwise run 350 and more.
EXPERT_BUDGET: Final = 160
EXPERT_WORLDS: Final = 3
ENEMY_BUDGET: Final = 40  # the greedy enemy model's simulations per world
CAST_GAIN: Final = 0.3
MAX_CASTS: Final = 4
TARGETS_PER_SPELL: Final = 4
MAX_CAST_OPTIONS: Final = 30
SHORTLIST: Final = 6
LASTING: Final = 0.8  # worth of one mana spent on a spell still in play, before its decay
FIRST_TURN: Final = 0.35  # weight of the position after the candidate's own turn
INCOME_TURNS: Final = 8  # turns a permanent source of mana is counted for
INCOME_WORTH: Final = 0.8  # worth of one mana it will make
# ... while its owner's pool holds at most INCOME_FULL mana, and nothing from INCOME_NONE on (in
# between, in proportion): mana made on top of a pool that already floats would only float too.
INCOME_FULL: Final = 20
INCOME_NONE: Final = 40
CAUTION: Final = 0.3  # weight of the worst world in a plan's score
THREAT: Final = 1.2  # an unguarded Sanctum against an enemy raid two turns out
THREAT_RADIUS: Final = 4  # two turns of two squares
RAID: Final = 5  # an enemy recruit group this close to the Sanctum calls forces home
DEFEND_RADIUS: Final = 8  # groups this many steps from home or nearer are called
SUPPORT: Final = 0.7  # a recruit group beside the Sanctum, as a share of a guard on it
HOME_SLACK: Final = 2  # the default policy calls home groups at most this much further out
# Mana kept beyond what one spell needs is worth only this much of its face value to the
# expert: floating mana wins nothing, so a cast that does some good beats keeping it.
FLOAT_FROM: Final = 5
FLOAT_WORTH: Final = 0.25
SPEND_FROM: Final = 12  # mana left after the casts that calls for more of them
SPEND_ROUNDS: Final = 2
SPEND_TRIES: Final = 4  # casts scored in every world per round
DOOMED: Final = -1000.0  # the rank of a summoning whose creatures would die where they stand
# Of the budget, the first pass over the moves may use this share: with many groups it would
# use all of it, and the casts after it would be what the budget leaves out.
MOVES_SHARE: Final = 0.5
COPIES_KEPT: Final = 2  # a full hand keeps at most this many copies of one spell
CYCLE_POOL: Final = 8  # mana left after the casts that calls for new cards
# Mana novices, at most, while the scarcer type does not float: every spell needs a little of
# it, so it, not the pool, sets how many spells a turn are cast (docs/ai.md, "Mana where it
# runs out").
EXPERT_MANA_NOVICES: Final = 12
# The expert's scoring: ``evaluate``'s, with a guarded Sanctum's pull restored as the forces
# massed before it outmatch its guard (``Weights.siege``), so that a won field ends in a capture.
EXPERT_WEIGHTS: Final = replace(WEIGHTS, siege=True)
# A large army late in the game starts its move search from the default march, not from standing
# still: the search reaches only some of many groups within its budget, and a group it never
# reaches would stand still, so a won field never closed on the enemy Sanctum. Held back in the
# opening, where marching every group makes the game a race again.
MARCH_TURN: Final = 25
MARCH_GROUPS: Final = 10


@dataclass(frozen=True, slots=True)
class World:
    """A sampled world: the state behind the view, the enemy's orders, the dice seed."""

    state: GameState
    enemy: Orders
    seed: int


class Rollouts:
    """Scores orders by two-turn rollouts in every world; counts rollouts and watches the clock."""

    def __init__(
        self,
        side: Side,
        content: Content,
        worlds: Sequence[World],
        budget: int,
        deadline: float | None,
    ) -> None:
        self.side = side
        self.content = content
        self.worlds = tuple(worlds)
        self.budget = budget
        self.deadline = deadline
        self.used = 0
        self._memo: dict[tuple[Orders, bool], float] = {}
        # Each world's rollout of each orders, kept: a candidate screened in the first world is
        # then scored in all of them, and that first rollout would be played again. The budget
        # still counts it, so the search and its plans are the same, only cheaper.
        self._played: dict[tuple[Orders, int], float] = {}
        # The score of each position after a candidate's turn, by world: different orders
        # often lead to the same position (a move the enemy blocks, a cast that squanders), and
        # the rest of the rollout reads only that position and the world's seed.
        self._after: dict[tuple[GameState, int], float] = {}

    @contextmanager
    def capped(self, share: float) -> Iterator[None]:
        """Within the block the search stops at ``share`` of the budget that is left."""
        full = self.budget
        self.budget = min(full, self.used + int((full - self.used) * share))
        try:
            yield
        finally:
            self.budget = full

    @property
    def exhausted(self) -> bool:
        if self.used + len(self.worlds) > self.budget:
            return True
        return self.deadline is not None and time.monotonic() > self.deadline

    def score(self, orders: Orders, *, quick: bool = False) -> float:
        """The mean two-turn value over the worlds (``quick``: in the first world only)."""
        quick = quick and len(self.worlds) > 1
        known = self._memo.get((orders, quick))
        if known is not None:
            return known
        worlds = self.worlds[:1] if quick else self.worlds
        values = []
        for i, world in enumerate(worlds):
            self.used += 1
            played = self._played.get((orders, i))
            if played is None:
                try:
                    played = rollout(world, self.side, orders, self.content, self._after)
                except Exception:  # the engine must never take the computer player down with it
                    log.exception("rolling out orders failed; treating them as hopeless")
                    values = [float("-inf")]
                    break
                self._played[(orders, i)] = played
            values.append(played)
        # Mostly the mean, partly the worst world: a plan that is fine against the likely enemy
        # but walks into a lost fight against another is worse than one safe in all of them.
        result = (1 - CAUTION) * sum(values) / len(values) + CAUTION * min(values)
        self._memo[(orders, quick)] = result
        return result


def _with_moves(orders: Orders, moves: Iterable[tuple[int, Coord | None]]) -> Orders:
    """``orders`` with each of ``moves`` (group, destination) in place of that group's move."""
    for gid, dest in moves:
        orders = _with_move(orders, gid, dest)
    return orders


def _resolve(
    state: GameState, orders: dict[Side, Orders], seed: int, content: Content
) -> GameState:
    # The one place simulated turns are resolved: only the state is read, so no report is kept.
    after, _ = resolve_turn(state, orders, random.Random(seed), content=content, record=False)
    return after


def rollout(
    world: World,
    side: Side,
    orders: Orders,
    content: Content,
    after: dict[tuple[GameState, int], float],
) -> float:
    """The candidate's turn, then one turn of default play for both sides, scored for ``side``.
    ``after``: the scores of positions after the candidate's turn in this world already rolled
    out, read and filled here (a position equal to one there scores the same)."""
    first = _resolve(world.state, {side: orders, side.other: world.enemy}, world.seed, content)
    key = (first, world.seed)
    found = after.get(key)
    if found is None:
        found = after[key] = _played_on(first, side, world.seed, content)
    return found


def _played_on(first: GameState, side: Side, seed: int, content: Content) -> float:
    """The rest of a rollout from the position after the candidate's turn."""
    if first.result is not None:
        return evaluate(first, side, content)
    # One index of the position between the two turns, for both sides' moves and its score.
    index = PositionIndex(first, content)
    second = _resolve(
        first,
        {s: default_orders(first, s, content, position=index) for s in (side, side.other)},
        seed + 1,
        content,
    )
    return FIRST_TURN * value(first, side, content, position=index) + (1 - FIRST_TURN) * value(
        second, side, content
    )


def default_orders(
    state: GameState, side: Side, content: Content, *, position: PositionIndex | None = None
) -> Orders:
    """Cheap play without simulation: train by rule of thumb; while an enemy raid can reach the
    Sanctum within two turns, keep the guard, send a group to an empty or too weak guard, and
    bring home every recruit group that can be back about as soon as the raid arrives (toward
    the Sanctum or the raider, whichever is nearer); march every other group toward its nearest
    goal (a town it does not own or the enemy Sanctum). ``position``: an index of ``state``
    already built."""
    board = Board(state, content)
    goals = [s.coord for s in state.structures if s.owner != side]
    sanctum = state.sanctum(side)
    threatened = bool(threats(state, side))
    guard_needed = (
        threatened
        and sanctum is not None
        and (state.group_at(sanctum.coord) is None or breach_risk(state, side) > 0)
    )
    raiders = _raiders(state, side, board) if threatened else []
    if raiders and sanctum is not None and not _outmatched(state, side, sanctum.coord, raiders):
        raiders = []
    moves: list[MoveOrder] = []
    taken: set[Coord] = set()
    for gid, dests in sorted(move_options(state, side, content, position=position).items()):
        group = state.group(gid)
        if group is None or not dests:
            continue
        if threatened and sanctum is not None and group.coord == sanctum.coord:
            continue  # the guard stays
        if guard_needed and sanctum is not None and sanctum.coord in dests:
            moves.append(MoveOrder(gid, sanctum.coord))
            guard_needed = False
            continue
        if not group.is_recruit_group:
            targets = [g.coord for g in state.groups if g.owner != side] or goals
        elif raiders and sanctum is not None and _called_home(group, sanctum.coord, raiders, board):
            # Between home and the raid: onto the Sanctum, or into the raid's path.
            home = sanctum.coord
            raid = min(raiders, key=lambda r: (board.dist(r.coord, home), r.id)).coord
            best = min(
                dests,
                key=lambda d: (board.dist(d, home) + board.dist(d, raid), board.dist(d, home)),
            )
            if board.dist(best, home) + board.dist(best, raid) < board.dist(
                group.coord, home
            ) + board.dist(group.coord, raid) or board.dist(best, home) < board.dist(
                group.coord, home
            ):
                moves.append(MoveOrder(gid, best))
                taken.add(best)
            continue
        else:
            targets = goals
        if not targets:
            continue
        near = board.nearest(tuple(targets))
        here = near(group.coord)
        best = min(dests, key=lambda d: (near(d), d in taken, d.y, d.x))
        if near(best) < here:
            moves.append(MoveOrder(gid, best))
            taken.add(best)
    # No town mana choices: a town taken in the rollout's second turn makes its default type,
    # and asking which towns may be taken costs as much as the rest of the policy.
    return Orders(trains=choose_trains(state, side, content), moves=tuple(moves))


def _raiders(state: GameState, side: Side, board: Board) -> list[Group]:
    """Enemy recruit groups within ``RAID`` steps of ``side``'s Sanctum."""
    sanctum = state.sanctum(side)
    if sanctum is None:
        return []
    return [
        g
        for g in state.groups
        if g.owner is side.other
        and g.is_recruit_group
        and board.dist(g.coord, sanctum.coord) <= RAID
    ]


def _outmatched(state: GameState, side: Side, home: Coord, raiders: list[Group]) -> bool:
    """The guard and the recruit groups beside the Sanctum are weaker than the raid."""
    guard = state.group_at(home)
    mine = 0.0 if guard is None or guard.owner is not side else _strength(guard)
    mine += SUPPORT * sum(
        _strength(g)
        for g in state.groups
        if g.owner is side and g.is_recruit_group and g.coord.dist(home) == 1
    )
    return mine < sum(_strength(r) for r in raiders)


def _called_home(group: Group, home: Coord, raiders: list[Group], board: Board) -> bool:
    """A group is called home when it can be there about as soon as the nearest raid."""
    nearest = min(board.dist(r.coord, home) for r in raiders)
    return board.dist(group.coord, home) <= nearest + HOME_SLACK


def threats(state: GameState, side: Side) -> list[tuple[int, float]]:
    """Enemy recruit groups that could reach ``side``'s Sanctum within two turns at two squares
    a turn (the fastest common march): (distance, worth)."""
    sanctum = state.sanctum(side)
    if sanctum is None:
        return []
    out = []
    for g in state.groups:
        if g.owner is not side.other or not g.is_recruit_group:
            continue
        d = g.coord.dist(sanctum.coord)
        if d <= THREAT_RADIUS:
            out.append((d, sum(minion_value(m) for m in g.minions)))
    return out


def value(
    state: GameState, side: Side, content: Content, *, position: PositionIndex | None = None
) -> float:
    """:func:`ai.evaluate.evaluate` plus what lasts: spells in play for the turns they have left,
    less for mana floating beyond one spell's worth, and an unguarded Sanctum within two turns
    of an enemy raid."""
    score = evaluate(state, side, content, EXPERT_WEIGHTS, position=position)
    if state.result is not None:
        return score
    needed = {s: _income_needed(state.player(s).pool.total) for s in (side, side.other)}
    for spell in state.active_spells:
        definition = content.spells.get(spell.spell_id)
        if definition is None:
            continue
        income, ward_uses = _lasting(definition)
        if spell.helper and not income:
            # A helper is part of the spell that left it, and costs nothing itself; one that
            # makes mana (Death Knell's echo) is the lasting part of its spell and counts.
            continue
        share = _share_left(spell, definition, state.turn, ward_uses)
        worth = LASTING * definition.cost.total * share
        if income:
            # A spell that makes mana every turn is worth what it will make (a permanent one
            # for the rest of a usual game) and its owner will spend, not only what it cost.
            turns = INCOME_TURNS if definition.duration == "permanent" else definition.turns
            made = INCOME_WORTH * income * turns * share * needed[spell.owner]
            worth = max(worth, made)
        score += worth if spell.owner is side else -worth
    for s in (side, side.other):
        pool = state.player(s).pool.total
        floating = max(0, min(pool, WEIGHTS.pool_cap) - FLOAT_FROM)
        excess = max(0, pool - WEIGHTS.pool_cap)
        cut = (1 - FLOAT_WORTH) * (WEIGHTS.pool * floating + WEIGHTS.pool_excess * excess)
        score += -cut if s is side else cut
    for s in (side, side.other):
        sanctum = state.sanctum(s)
        if sanctum is None:
            continue
        if state.group_at(sanctum.coord) is None:
            danger = THREAT * sum(worth / max(1, d) for d, worth in threats(state, s))
        else:
            danger = breach_risk(state, s)
        score += -danger if s is side else danger
    return score


def _strength(group: Group) -> float:
    """Lanchester strength from base stats, as :mod:`ai.evaluate` reckons it."""
    return float(toughness(group.minions) * max(damage_per_round(group.minions), 0.1))


def breach_risk(state: GameState, side: Side) -> float:
    """A guard too weak for the enemy recruit groups that can reach the Sanctum next turn is
    little better than none: ``evaluate``'s penalty for an open Sanctum at that distance, times
    the chance the raid wins the fight against the guard and, at ``SUPPORT`` of their strength,
    the side's recruit groups beside the Sanctum (``evaluate`` counts any guard as enough)."""
    sanctum = state.sanctum(side)
    guard = None if sanctum is None else state.group_at(sanctum.coord)
    if sanctum is None or guard is None or guard.owner is not side:
        return 0.0
    raiders = [
        g
        for g in state.groups
        if g.owner is side.other and g.is_recruit_group and g.coord.dist(sanctum.coord) <= 2
    ]
    if not raiders:
        return 0.0
    nearest = min(g.coord.dist(sanctum.coord) for g in raiders)
    # Recruit groups beside the Sanctum join the guard next turn or meet the raid on its way.
    support = [
        g
        for g in state.groups
        if g.owner is side and g.is_recruit_group and g.coord.dist(sanctum.coord) == 1
    ]
    mine = _strength(guard) + SUPPORT * sum(_strength(g) for g in support)
    theirs = sum(_strength(g) for g in raiders)
    held = 1.0 if theirs <= 0 else (mine / theirs) ** 2 / (1 + (mine / theirs) ** 2)
    return WEIGHTS.breach[max(1, nearest)] * (1 - held)


def _income_needed(pool: int) -> float:
    """The share of a lasting source's mana that its owner, holding ``pool``, will spend."""
    return min(1.0, max(0.0, (INCOME_NONE - pool) / (INCOME_NONE - INCOME_FULL)))


# What :func:`value` reads of each definition for every active spell of every position it
# scores: (definition, income, ward uses) by the definition's identity (kept alive here so the
# identity is not reused).
_LASTING: dict[int, tuple[SpellDef, int, int]] = {}


def _lasting(definition: SpellDef) -> tuple[int, int]:
    """The mana a spell in play gives its owner at every start of turn, and the uses of its
    ward if it has one with a limit (0: none)."""
    found = _LASTING.get(id(definition))
    if found is None or found[0] is not definition:
        income = sum(
            e.params.num("amount")
            for t in definition.triggers
            if t.event == "start_of_turn"
            for e in t.effects
            if e.op == "gain_mana"
        )
        found = _LASTING[id(definition)] = (definition, income, definition.ward_uses)
    return found[1], found[2]


def _share_left(spell: ActiveSpell, definition: SpellDef, turn: int, limit: int) -> float:
    """The share of a spell's worth still to come: its turns left (from the expiry the view
    shows, else from its cast turn) times a ward's uses left of its ``limit``."""
    if definition.duration == "permanent":
        share = 1.0
    elif definition.duration == "turns" and definition.turns > 0:
        until = spell.get("expires_turn")
        if not isinstance(until, int) or isinstance(until, bool):
            until = spell.cast_turn + definition.turns
        share = max(0.0, (until - turn) / definition.turns)
    else:
        return 0.0
    uses = spell.get("uses_left")
    if limit and isinstance(uses, int) and not isinstance(uses, bool):
        share *= max(0, min(uses, limit)) / limit
    return share


# --- candidates ------------------------------------------------------------------------------


def improve_moves(
    state: GameState, side: Side, orders: Orders, sim: Rollouts, rng: random.Random
) -> Orders:
    """Each group in turn takes the destination (or staying) that scores best; then groups near
    each other try moving together to each square both can reach. A change is screened in the
    first world and kept only if it scores better in all of them."""
    options = move_options(state, side, sim.content)
    group_ids = sorted(options)
    rng.shuffle(group_ids)
    tries: list[tuple[tuple[int, Coord | None], ...]] = []
    for gid in group_ids:
        dests: list[Coord | None] = [None, *options[gid]]
        rng.shuffle(dests)
        tries += [((gid, dest),) for dest in dests]
    for a, b in _neighbours(state, group_ids):
        both = sorted(set(options[a]) & set(options[b]), key=lambda c: (c.y, c.x))
        tries += [((a, dest), (b, dest)) for dest in both]
    current = sim.score(orders)
    for moves in tries:
        if sim.exhausted:
            break
        candidate = _with_moves(orders, moves)
        if candidate == orders:
            continue
        if sim.score(candidate, quick=True) <= sim.score(orders, quick=True):
            continue
        score = sim.score(candidate)
        if score > current:
            orders, current = candidate, score
    return orders


def _neighbours(state: GameState, group_ids: list[int]) -> list[tuple[int, int]]:
    pairs = []
    for i, a in enumerate(group_ids):
        ga = state.group(a)
        for b in group_ids[i + 1 :]:
            gb = state.group(b)
            if ga is not None and gb is not None and ga.coord.dist(gb.coord) <= 2:
                pairs.append((a, b))
    return pairs


def _rank(
    state: GameState, index: Position, side: Side, option: CastOption, content: Content
) -> float:
    """The shared prior of targets (:func:`ai.search._relevance`), except for a spell that
    dispels on its target: there a target is worth what the dispel would take off it, the
    enemy's visible spells for, the side's own against, so it is tried where it does something
    (the shared prior, which ranks minions by their worth, never found those). A summoning onto
    a square where its creatures would die at the next start of turn (the enemy Sanctum or one
    of its entrances, under the Sanctum's guard; terrain that harms them) ranks last: the shared
    prior, drawn to the enemy Sanctum, filled every shortlist with those squares."""
    summons = [e for e in option.spell.effects if e.op == "summon"]
    at = option.order.target.ref
    if summons and isinstance(at, Coord) and _doomed(state, side, at, summons, content):
        return DOOMED
    dispels = [e for e in option.spell.effects if e.op == "dispel"]
    if not dispels:
        return _relevance(state, side, option, content)
    host = target_host(index, option.spell, option.order.target)
    if host is None:
        return 0.0
    worth = 0.0
    for spell in index.spells_on(host):
        definition = content.spells.get(spell.spell_id)
        if definition is None or not spell.visible:
            continue
        if any(matches_filter(side, spell, definition, e) for e in dispels):
            price = definition.cost.total + 1.0
            worth += price if spell.owner is not side else -price
    return worth


def _doomed(
    state: GameState, side: Side, at: Coord, summons: list[Effect], content: Content
) -> bool:
    """Would creatures summoned on ``at`` be struck at the next start of turn: on the enemy
    Sanctum or one of its entrances (D-SANCTUM-GUARD), or on terrain that harms or kills them
    (D-TERRAIN)?"""
    sanctum = state.sanctum(side.other)
    if sanctum is not None and at.dist(sanctum.coord) <= 1:
        return True
    terrain = content.terrains.get(state.terrain_map().get(at, ""))
    if terrain is None or not (terrain.damage or terrain.fatal):
        return False
    for effect in summons:
        walks = frozenset(effect.params.texts("walks"))
        if FLIGHT not in walks and not (terrain.fatal and has_walk(walks, terrain.fatal_unless)):
            return True
        if FLIGHT not in walks and terrain.damage:
            return True
    return False


def _prune(
    state: GameState, side: Side, options: list[CastOption], content: Content
) -> list[CastOption]:
    """The best-ranked targets of each spell, at most TARGETS_PER_SPELL; every spell's best
    target comes first, so a spell with a low-ranked target (the globe, a square) is still tried.
    """
    index = PositionIndex(state, content)
    ranked = sorted(options, key=lambda o: -_rank(state, index, side, o, content))
    by_spell: dict[tuple[int, str], list[CastOption]] = {}
    for option in ranked:
        kept = by_spell.setdefault((option.order.card_uid, option.spell.id), [])
        if len(kept) < TARGETS_PER_SPELL:
            kept.append(option)
    firsts = [kept[0] for kept in by_spell.values()]
    rest = [o for o in ranked if o not in firsts and o in by_spell[(o.order.card_uid, o.spell.id)]]
    return (firsts + rest)[:MAX_CAST_OPTIONS]


def add_casts(state: GameState, side: Side, orders: Orders, sim: Rollouts, tried: Tried) -> Orders:
    """The shared cast search (:func:`ai.search.add_casts`) over more options and targets, a
    lower bar and a longer shortlist; ``tried`` records each card's best gain for the discard.
    Then, while a big pool is left, :func:`spend` it."""
    options = _prune(state, side, cast_options(state, side, sim.content), sim.content)
    orders = search.add_casts(
        state,
        side,
        orders,
        sim,
        options,
        gain=CAST_GAIN,
        max_casts=MAX_CASTS,
        shortlist=SHORTLIST,
        tried=tried,
    )
    return spend(state, side, orders, sim, options=options, tried=tried)


def spend(
    state: GameState,
    side: Side,
    orders: Orders,
    sim: Rollouts,
    *,
    options: list[CastOption],
    tried: Tried,
) -> Orders:
    """While ``SPEND_FROM`` mana or more would be left, add a cast that scores at least as well
    as keeping the mana in every world: of each card (or other source) its cast with the best
    first-world gain (else its best-ranked target), the few best by that gain, dearest first
    on a tie. A big pool wins nothing and refills every turn, so no gain is asked."""
    pool = state.player(side).pool
    costs = {o.order: o.cost for o in options}
    spells = {o.order: o.spell for o in options}
    current = sim.score(orders)
    for _ in range(SPEND_ROUNDS):
        reserved = sum((costs.get(c, Mana()) for c in orders.casts), Mana())
        if pool.total - reserved.total < SPEND_FROM:
            break
        picks: dict[tuple[int, str, int | None], tuple[float, CastOption]] = {}
        for o in options:
            key = (o.order.card_uid, o.spell.id, o.order.bound_source)
            if search._clashes(o.order, orders.casts, spells) or not pool.covers(reserved + o.cost):
                continue
            known = tried.get(o.order.card_uid) if o.order.card_uid else None
            gain = known[0] if known is not None and known[1] == o.order else float("-inf")
            if key not in picks or gain > picks[key][0]:
                picks[key] = (gain, o)
        ranked = sorted(picks.values(), key=lambda p: (-p[0], -p[1].cost.total))
        best: tuple[float, Orders] | None = None
        for _, o in ranked[:SPEND_TRIES]:
            if sim.exhausted:
                break
            candidate = replace(orders, casts=(*orders.casts, o.order))
            score = sim.score(candidate)
            if score >= current and (best is None or score > best[0]):
                best = (score, candidate)
        if best is None:
            break
        current, orders = best
    return spend_untested(pool, orders, costs, spells, tried) if sim.exhausted else orders


def spend_untested(
    pool: Mana,
    orders: Orders,
    costs: dict[CastOrder, Mana],
    spells: dict[CastOrder, SpellDef],
    tried: Tried,
) -> Orders:
    """With the budget spent and ``SPEND_FROM`` mana or more still left, add the casts whose
    first-world trial showed a gain, best first, unscored in the other worlds: mana left
    floating wins nothing, so a cast that did some good in one world is the better bet."""
    picks = sorted(
        ((gain, order) for gain, order in tried.values() if gain > 0 and order in costs),
        key=lambda p: -p[0],
    )
    for _, order in picks:
        reserved = sum((costs.get(c, Mana()) for c in orders.casts), Mana())
        full = len(orders.casts) >= MAX_CASTS + SPEND_ROUNDS
        if full or pool.total - reserved.total < SPEND_FROM:
            break
        if search._clashes(order, orders.casts, spells) or not pool.covers(reserved + costs[order]):
            continue
        orders = replace(orders, casts=(*orders.casts, order))
    return orders


def guard(state: GameState, side: Side, orders: Orders, sim: Rollouts) -> Orders:
    """If an enemy raid can reach the Sanctum within two turns and no group will stand on it, or
    the guard is too weak for the raid next to it, try sending each group that can get there
    (to stand guard or to join the guard); keep the best if it scores better."""
    sanctum = state.sanctum(side)
    if sanctum is None or not threats(state, side):
        return orders
    staying = state.group_at(sanctum.coord)
    moved = {m.group_id for m in orders.moves}
    held = staying is not None and staying.owner is side and staying.id not in moved
    if held and not breach_risk(state, side):
        return orders
    if not held and any(m.dest == sanctum.coord for m in orders.moves):
        return orders
    current = sim.score(orders)
    best = orders
    for gid, dests in sorted(move_options(state, side, sim.content).items()):
        if sanctum.coord not in dests or sim.exhausted:
            continue
        candidate = _with_move(orders, gid, sanctum.coord)
        score = sim.score(candidate)
        if score > current:
            best, current = candidate, score
    return best


def defend(state: GameState, side: Side, orders: Orders, sim: Rollouts) -> Orders:
    """While an enemy raid can reach the Sanctum within two turns, bring forces home: each
    group's longest step toward the Sanctum, its step toward the nearest raider that does not
    lead away from home, and every group's homeward step together. Each candidate is scored in
    every world, not screened in the first one: there the enemy plays ``greedy``, which may
    not raid at all, and a homeward step would look like a wasted turn."""
    sanctum = state.sanctum(side)
    raiders = (
        [
            g
            for g in state.groups
            if g.owner is side.other and g.is_recruit_group and g.coord.dist(sanctum.coord) <= RAID
        ]
        if sanctum is not None
        else []
    )
    if sanctum is None or not raiders:
        return orders
    board = Board(state, sim.content)
    home = sanctum.coord
    steps: dict[int, list[Coord]] = {}
    for gid, dests in sorted(move_options(state, side, sim.content).items()):
        group = state.group(gid)
        if group is None or not group.is_recruit_group or group.coord == home or not dests:
            continue
        here = board.dist(group.coord, home)
        if here > DEFEND_RADIUS:
            continue
        closer = [d for d in dests if board.dist(d, home) < here]
        if not closer:
            continue
        homeward = min(closer, key=lambda d: (board.dist(d, home), d.y, d.x))
        nearest = min(raiders, key=lambda r: (board.dist(group.coord, r.coord), r.id))
        intercept = min(
            [d for d in dests if board.dist(d, home) <= here],
            key=lambda d: (board.dist(d, nearest.coord), board.dist(d, home), d.y, d.x),
        )
        steps[gid] = list(dict.fromkeys([homeward, intercept]))
    if not steps:
        return orders
    tries = [[(gid, dest)] for gid, dests in steps.items() for dest in dests]
    if len(steps) > 1:
        tries.append([(gid, dests[0]) for gid, dests in steps.items()])
        tries.append([(gid, dests[-1]) for gid, dests in steps.items()])
    current = sim.score(orders)
    best = orders
    for moves in tries:
        if sim.exhausted:
            break
        candidate = _with_moves(orders, moves)
        if candidate == orders:
            continue
        score = sim.score(candidate)
        if score > current:
            best, current = candidate, score
    return best


def cycle_hand(
    state: GameState,
    side: Side,
    orders: Orders,
    content: Content,
    tried: Tried,
) -> Orders:
    """Make room for new cards: a hand refills to its size at the start of a turn, so each card
    cast or dropped is one more drawn, and a dropped card comes back when the deck is reshuffled
    (D-DRAW). Drop a dead card (a once-per-game spell already used, or one whose mana the side
    neither holds nor makes) or a third copy of one spell at once; while mana floats after the
    casts, drop the card whose best cast showed the least gain (one that could be paid for but
    found nothing worth doing first, never one the pool is still saving for). With nothing cast,
    that card is cast instead if that does no more harm than losing it."""
    player = state.player(side)
    if orders.discard is not None or len(player.hand) < state.options.hand_size:
        return orders
    cast = {c.card_uid for c in orders.casts}
    left = [c for c in player.hand if c.uid not in cast]
    if not left:
        return orders
    dead = search.choose_discard(state, side, orders, content).discard
    if dead is None:
        used = [
            c
            for c in left
            if (spell := content.spells.get(c.spell_id)) is not None
            and spell.once_per_game
            and c.spell_id in player.cast_log
        ]
        dead = DiscardOrder(used[0].uid) if used else None
    if dead is None:
        counts = Counter(c.spell_id for c in left)
        spare = [c for c in left if counts[c.spell_id] > COPIES_KEPT]
        dead = DiscardOrder(spare[-1].uid) if spare else None
    if dead is not None:
        return replace(orders, discard=dead)
    reserved = sum(
        spell.cost.total
        for c in player.hand
        if c.uid in cast and (spell := content.spells.get(c.spell_id)) is not None
    )
    free = player.pool.total - reserved
    if free < CYCLE_POOL:
        return orders

    def weakness(card_uid: int, spell_id: str) -> tuple[int, float, int, int]:
        spell = content.spells.get(spell_id)
        cost = spell.cost.total if spell is not None else 99
        if card_uid in tried:
            return (1, -tried[card_uid][0], cost, card_uid)
        # Not tried: affordable, so nothing worth a simulation was found for it (2), or saved for.
        return (2 if cost <= free else 0, 0.0, cost, card_uid)

    weakest = max(left, key=lambda c: weakness(c.uid, c.spell_id))
    if weakness(weakest.uid, weakest.spell_id)[0] == 0:
        return orders
    if not orders.casts and weakest.uid in tried and tried[weakest.uid][0] > -WEIGHTS.card:
        return replace(orders, casts=(tried[weakest.uid][1],))
    return replace(orders, discard=DiscardOrder(weakest.uid))


def trains(state: GameState, side: Side, content: Content) -> tuple[TrainOrder, ...]:
    """``strong``'s trainings (:func:`ai.search.choose_trains`) with three changes: mana
    novices go on past ``strong``'s three, up to ``EXPERT_MANA_NOVICES``; a mana novice makes
    the house's type that runs out first (:func:`ai.search.scarcest`; ``strong`` alternates
    the two types whatever its cards cost); and when even that type already floats
    (``SPEND_FROM`` or more in the pool) the novice fights instead, since more of it would only
    float too."""
    player = state.player(side)
    house = content.houses[player.house]
    wanted = wanted_mana(state, side, content)
    made = dict(production(state, side, content).items())
    chosen: list[TrainOrder] = []
    for order in choose_trains(state, side, content, mana_novices=EXPERT_MANA_NOVICES):
        if order.kind != "mana":
            chosen.append(order)
            continue
        best = scarcest(
            (house.primary, house.secondary), wanted, made, player.pool, first=house.primary
        )
        if player.pool.get(best) >= SPEND_FROM:
            chosen.append(TrainOrder(order.structure, "swordsman"))
            continue
        made[best] += 1
        chosen.append(TrainOrder(order.structure, "mana", best))
    return tuple(chosen)


def plan(
    state: GameState, side: Side, content: Content, sim: Rollouts, rng: random.Random
) -> Orders:
    """Trainings and town mana by rule of thumb, then moves (for a large army past the opening,
    starting from the default march), forces brought home to meet a raid, casts (and more of
    them while a big pool is left), moves again, a guard, a discard; all legal."""
    orders = Orders(
        trains=trains(state, side, content),
        mana_choices=choose_mana(state, side, content, pool=state.player(side).pool),
    )
    if state.turn >= MARCH_TURN and len(state.groups_of(side)) >= MARCH_GROUPS:
        orders = replace(orders, moves=default_orders(state, side, content).moves)
    orders = legalize(state, side, orders, content)
    tried: Tried = {}
    with sim.capped(MOVES_SHARE):
        orders = improve_moves(state, side, orders, sim, rng)
    # Defence before the casts: it must not be what the budget leaves out.
    orders = defend(state, side, orders, sim)
    orders = add_casts(state, side, orders, sim, tried)
    orders = improve_moves(state, side, orders, sim, rng)
    orders = guard(state, side, orders, sim)
    orders = cycle_hand(state, side, orders, content, tried)
    return legalize(state, side, orders, content)


def worlds(
    view: PlayerView,
    rng: random.Random,
    content: Content,
    options: Options | None,
    count: int,
) -> list[World]:
    """``count`` sampled worlds with a greedy enemy in each, and one where the enemy stands
    still (a hedge against an enemy unlike the model)."""
    from ai.players import greedy_orders

    side = view.viewer
    assert side is not None
    out = []
    for i in range(count):
        state = determinize(view, rng, content, options)
        if i == count - 1 and count > 1:
            # The last sampled enemy marches on its goals (an aggressive enemy unlike greedy).
            enemy = default_orders(state, side.other, content)
        else:
            enemy_view = view_for(state, side.other, content)
            enemy = greedy_orders(enemy_view, rng, content, ENEMY_BUDGET, options)
        out.append(World(state, enemy, rng.randrange(1 << 30)))
    out.append(World(out[0].state, Orders(), rng.randrange(1 << 30)))
    return out


Mapper: TypeAlias = Callable[[Callable[["Part"], Orders], list["Part"]], Iterable[Orders]]


@dataclass(frozen=True, slots=True)
class Part:
    """One worker's share of a search: its worlds, its rollouts, its time and its seed."""

    side: Side
    worlds: tuple[World, ...]
    budget: int
    seconds: float | None
    seed: int


def plan_part(part: Part) -> Orders:
    """Search one share of the worlds (run in a worker process; content is loaded there)."""
    content = load_content()
    deadline = None if part.seconds is None else time.monotonic() + part.seconds
    sim = Rollouts(part.side, content, part.worlds, part.budget, deadline)
    return plan(part.worlds[0].state, part.side, content, sim, random.Random(part.seed))


def expert_orders(
    view: PlayerView,
    rng: random.Random,
    content: Content,
    budget: int | None = None,
    *,
    seconds: float | None = None,
    options: Options | None = None,
    mapper: Mapper | None = None,
    workers: int = 1,
) -> Orders:
    """The best plan found by two-turn rollouts within ``budget`` rollouts (and ``seconds`` of
    time, if given).

    With a ``mapper`` (an executor's ``map`` over worker processes) and ``workers`` > 1 the
    worlds are shared out: each worker searches its own worlds with its share of the budget,
    and the plans they return are scored in every world here. With a budget of rollouts this is
    as deterministic as the single search."""
    side = view.viewer
    if side is None:
        raise ValueError("a spectator's view has no side to play")
    started = time.monotonic()
    total = budget or EXPERT_BUDGET
    sampled = worlds(view, rng, content, options, max(EXPERT_WORLDS, workers))
    if mapper is None or workers < 2:
        deadline = None if seconds is None else started + seconds
        sim = Rollouts(side, content, sampled, total, deadline)
        return plan(sampled[0].state, side, content, sim, rng)
    left = None if seconds is None else max(0.0, seconds - (time.monotonic() - started))
    parts = [
        Part(
            side,
            tuple(sampled[i::workers]),
            total // workers,
            None if left is None else left * 0.85,
            rng.randrange(1 << 30),
        )
        for i in range(workers)
    ]
    plans = list(dict.fromkeys(mapper(plan_part, parts)))
    judge = Rollouts(side, content, sampled, len(plans) * len(sampled), None)
    best = max(plans, key=judge.score)
    return legalize(sampled[0].state, side, best, content)
