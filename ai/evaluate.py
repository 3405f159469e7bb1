"""How good a position is for one side: material, structures, mana, threats and progress.

The score is a difference (the side's terms minus the enemy's), so it reads the same from both
chairs. Position terms give a one-turn search a sense of direction: recruit groups are drawn to
towns they do not own and to the enemy Sanctum, an enemy recruit group near an unguarded Sanctum
is a danger, and two hostile groups that can meet next turn count the fight they would have
(a Lanchester estimate: strength is hit points times damage per round).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final, TypeAlias

from engine.content import Content
from engine.coords import Coord
from engine.position import Position, PositionIndex
from engine.queries import effective_group
from engine.state import GameState, Group, Minion, Side, Square

WIN: Final = 100_000.0


@dataclass(frozen=True, slots=True)
class Weights:
    """The scoring constants (one place to tune them)."""

    hp: float = 1.0
    damage: float = 3.0
    armor: float = 2.0
    town: float = 32.0
    novice: float = 7.0
    pool: float = 1.2
    pool_cap: int = 10
    pool_excess: float = 0.3
    production: float = 6.0
    card: float = 1.0
    town_pull: float = 30.0
    attack: float = 2.2
    guard: float = 0.35
    breach: tuple[float, ...] = (0.0, 400.0, 80.0, 20.0)
    fight: float = 0.45
    reach: int = 2
    # A guarded enemy Sanctum draws recruit groups at only ``guard`` of the usual pull, so that
    # a lone raid does not walk into its guard. With ``siege`` on, the pull comes back as the
    # forces massed within ``siege_radius`` steps outmatch the guard (``siege_margin`` times
    # over, after the Sanctum has struck each group once): a side that has won the field
    # closes in instead of waiting two squares out until the turn cap; and an open Sanctum's
    # breach is worth only what a group can carry through its strikes (``_survives``).
    siege: bool = False
    siege_radius: int = 3
    siege_margin: float = 2.0


WEIGHTS: Final = Weights()


def minion_value(m: Minion, w: Weights = WEIGHTS) -> float:
    strike = max(m.hand, m.missile) + m.level
    return max(0, m.hp) * w.hp + strike * max(1, m.attacks) * w.damage + m.armor * w.armor


def toughness(minions: Iterable[Minion]) -> int:
    """Hit points and armor together: what a group can take (Lanchester's "numbers")."""
    return sum(max(0, m.hp) + m.armor for m in minions)


def damage_per_round(minions: Iterable[Minion]) -> int:
    """Each minion's better strike, with its level, times its attacks."""
    return sum((max(m.hand, m.missile) + m.level) * max(1, m.attacks) for m in minions)


@dataclass(slots=True)
class _Force:
    group: Group
    value: float
    _strength: float | None = None

    def strength(self, view: Position | None) -> float:
        if self._strength is None:
            minions = self.group.minions
            if view is not None:
                minions = effective_group(view, self.group)
            self._strength = float(toughness(minions) * max(damage_per_round(minions), 0.1))
        return self._strength


def _forces(state: GameState, w: Weights) -> list[_Force]:
    """Each group's worth, from base stats: a passing spell is no lasting asset. Its fighting
    strength, with every active spell folded in as combat will see it, is worked out only for
    groups that may fight."""
    return [_Force(g, sum(minion_value(m, w) for m in g.minions)) for g in state.groups]


def _distances(
    squares: tuple[Square, ...], goal: Coord, blocked: frozenset[str]
) -> dict[Coord, int]:
    """Orthogonal steps from every square to ``goal`` avoiding impassable terrain."""
    open_squares = {sq.coord for sq in squares if sq.terrain not in blocked}
    open_squares.add(goal)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        at = queue.popleft()
        for n in at.neighbours():
            if n in open_squares and n not in dist:
                dist[n] = dist[at] + 1
                queue.append(n)
    return dist


# Distance maps per terrain layout: to each goal, and to the nearest of each set of goals.
# Resolved turns reuse the squares tuple while the terrain stays the same, so the tuple's
# identity is a cheap key; the entry keeps the tuple alive so the identity cannot be reused by
# another object.
_Layout: TypeAlias = tuple[
    tuple[Square, ...], dict[Coord, dict[Coord, int]], dict[tuple[Coord, ...], dict[Coord, int]]
]
_MAPS: dict[int, _Layout] = {}
_MAPS_LIMIT: Final = 64
_NEAREST_LIMIT: Final = 64  # sets of goals kept per layout (enemy groups' squares change)


class Board:
    """Path distances on one position's terrain (unreachable squares count as far away)."""

    def __init__(self, state: GameState, content: Content) -> None:
        self.squares = state.squares
        self.blocked = content.blocking
        self.far = state.width + state.height
        entry = _MAPS.get(id(self.squares))
        if entry is None or entry[0] is not self.squares:
            if len(_MAPS) >= _MAPS_LIMIT:
                _MAPS.clear()
            entry = (self.squares, {}, {})
            _MAPS[id(self.squares)] = entry
        self.maps = entry[1]
        self._nearest = entry[2]

    def dist(self, a: Coord, goal: Coord) -> int:
        found = self.maps.get(goal)
        if found is None:
            found = _distances(self.squares, goal, self.blocked)
            self.maps[goal] = found
        return found.get(a, self.far)

    def nearest(self, goals: tuple[Coord, ...]) -> Callable[[Coord], int]:
        """The distance from a square to the nearest of ``goals`` (``min`` of :meth:`dist` over
        them), kept per set of goals and layout: the default policy asks it of every square a
        group may move to, and the same goals come back in position after position."""
        memo = self._nearest.get(goals)
        if memo is None:
            if len(self._nearest) >= _NEAREST_LIMIT:
                self._nearest.clear()
            memo = self._nearest[goals] = {}
        for goal in goals:
            self.dist(goal, goal)  # the goal's map, made once
        maps = [self.maps[goal] for goal in goals]
        far = self.far

        def distance(at: Coord) -> int:
            found = memo.get(at)
            if found is None:
                found = memo[at] = min(m.get(at, far) for m in maps)
            return found

        return distance


def _win_chance(mine: float, theirs: float) -> float:
    if mine <= 0:
        return 0.0
    if theirs <= 0:
        return 1.0
    r = (mine / theirs) ** 2
    return r / (1.0 + r)


def evaluate(
    state: GameState,
    side: Side,
    content: Content,
    w: Weights = WEIGHTS,
    *,
    position: PositionIndex | None = None,
) -> float:
    """The position's worth to ``side`` (positive: ``side`` is ahead). ``position``: an index
    of ``state`` already built."""
    if state.result is not None:
        if state.result.winner is None:
            return 0.0
        return WIN + state.turn * -1.0 if state.result.winner is side else -WIN + state.turn
    board = Board(state, content)
    forces = _forces(state, w)
    score = 0.0
    for s in (side, side.other):
        sign = 1.0 if s is side else -1.0
        score += sign * _side_terms(state, s, forces, board, w, content=content)
    view = None
    if state.active_spells:
        ready = position is not None and position.state is state
        view = position if ready else PositionIndex(state, content)
    score += _fights(forces, side, view, w)
    return score


def _side_terms(
    state: GameState,
    side: Side,
    forces: list[_Force],
    board: Board,
    w: Weights,
    *,
    content: Content,
) -> float:
    player = state.player(side)
    mine = [f for f in forces if f.group.owner == side]
    total = sum(f.value for f in mine)
    pool = player.pool.total
    total += len(player.hand) * w.card + min(pool, w.pool_cap) * w.pool
    total += max(0, pool - w.pool_cap) * w.pool_excess
    total += player.mana_novices.total * w.production
    enemy_sanctum = state.sanctum(side.other)
    recruits = [f for f in mine if f.group.is_recruit_group]
    for s in state.structures:
        if s.owner == side:
            total += len(s.novices) * w.novice
            if s.kind != "sanctum":
                total += w.town
        elif s.kind != "sanctum" and recruits:
            nearest = min(board.dist(f.group.coord, s.coord) for f in recruits)
            total += w.town_pull / (1.0 + nearest)
    if enemy_sanctum is not None:
        guard = state.group_at(enemy_sanctum.coord)
        guarded = guard is not None and guard.owner != side
        held = w.guard
        if guarded and w.siege and guard is not None:
            chance = _siege_chance(
                state, recruits, guard, board, w, sanctum_guard=content.economy.sanctum_guard
            )
            held = w.guard + (1.0 - w.guard) * chance
        strike = content.economy.sanctum_guard if w.siege else 0
        for f in recruits:
            d = board.dist(f.group.coord, enemy_sanctum.coord)
            push = f.value * w.attack / (1.0 + d)
            if d < len(w.breach):
                if guarded:
                    push *= held
                else:
                    push += w.breach[d] * _survives(f.group, strike)
            total += push
    return total


def _survives(group: Group, strike: int) -> float:
    """How much of a breach a group can make good against a Sanctum that strikes ``strike``
    at every start of turn: none if it would die on the entrance, all of it if it would outlast
    the entrance and the Sanctum. Two groups too small to get through apart are worth a breach
    together, which draws them into one."""
    if strike <= 0:
        return 1.0
    return min(1.0, max(0.0, (toughness(group.minions) - strike) / (strike + 1)))


def _siege_chance(
    state: GameState,
    recruits: list[_Force],
    guard: Group,
    board: Board,
    w: Weights,
    *,
    sanctum_guard: int,
) -> float:
    """How surely the recruit groups within ``w.siege_radius`` of a guarded Sanctum would take
    it: a Lanchester estimate of them together, each less the Sanctum's strike on an entrance,
    against the guard and the defender's groups beside it, ``w.siege_margin`` times over."""
    at = guard.coord
    hp = 0.0
    dps = 0.0
    for f in recruits:
        if board.dist(f.group.coord, at) > w.siege_radius:
            continue
        hp += max(0, toughness(f.group.minions) - sanctum_guard)
        dps += damage_per_round(f.group.minions)
    if hp <= 0:
        return 0.0
    defenders = [
        m
        for g in state.groups
        if g.owner == guard.owner and g.coord.dist(at) <= 1
        for m in g.minions
    ]
    theirs = toughness(defenders) * max(damage_per_round(defenders), 0.1)
    return _win_chance(hp * dps, w.siege_margin * theirs)


def _fights(forces: list[_Force], side: Side, view: Position | None, w: Weights) -> float:
    """Expected material swing of fights that can happen next turn (adjacent now or soon)."""
    total = 0.0
    # Every group not the side's is hostile to it (neutral ones included), so the pairs are
    # the side's groups against all the others, each list in the forces' order.
    theirs = [(b, b.group.coord) for b in forces if b.group.owner != side]
    limit = w.reach + 1
    for a in forces:
        if a.group.owner != side:
            continue
        ax, ay = a.group.coord
        for b, (bx, by) in theirs:
            d = abs(ax - bx) + abs(ay - by)
            if d > limit:
                continue
            p = _win_chance(a.strength(view), b.strength(view))
            swing = p * b.value - (1.0 - p) * a.value
            total += w.fight * swing / d
    return total
