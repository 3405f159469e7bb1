"""Pairings: round-robin by the circle method, and Swiss by backtracking within score brackets.

Both return a `RoundPairing`: the boards (red player first), the byes, and an explanation that
says, as data and as text, why each pair was made, who floated between score groups and why a
player sat out.

Swiss, in the order the rules are applied (docs/leagues.md says the same for players):

1. Only players active in the round are paired: withdrawn players never, late joiners from the
   round after they joined, with their score so far (missed rounds score `missed_round_points`).
2. With an odd count one player gets the bye: the lowest-ranked player among those with the
   fewest byes for whom the rest of the field can still be paired. A second bye is given only
   when no player without one can take it.
3. Two players never meet twice (a forfeited game counts as a meeting).
4. Players are grouped by score. Going down from the top group, an odd group sends one player
   down to the next group (a "float"): the lowest-ranked player who did not float in the last two
   rounds. More players float only when the group cannot be paired otherwise.
5. Within a group the top half meets the bottom half (1st against the first of the bottom half),
   moving as little as possible away from that to respect rules 3 and 6.
6. Colours: nobody gets the same colour three times in a row, or more than two games more with
   one colour than with the other. Each pair is formed so that these limits hold; only when no
   pairing of the round can keep them are they relaxed, and the explanation says so.

Every step tries its options in a fixed order, so equal inputs always give equal pairings.

The module is long because it is one pure algorithm with its explanation: the rules above, the
backtracking that applies them, and the text that says why; splitting it would scatter one
search across files.
"""

from __future__ import annotations

import enum
import itertools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.leagues.records import (
    Bye,
    Entrant,
    Game,
    LeagueError,
    ScoringConfig,
    check_known,
    scores_before,
)

log = logging.getLogger(__name__)

# A bracket sends at most this many players more than parity requires down to the next bracket
# before the search falls back to pairing the whole field at once; it keeps the bracket search
# polynomial while the fallback keeps the whole search complete.
_MAX_EXTRA_FLOATERS = 2


class PairingError(LeagueError):
    """No pairing exists that respects the hard rules (no repeat pairing, bye limits)."""


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"

    @property
    def other(self) -> Colour:
        return Colour.BLUE if self is Colour.RED else Colour.RED


class Float(enum.Enum):
    DOWN = "down"
    UP = "up"


@dataclass(frozen=True, slots=True)
class Pairing:
    board: int
    red: str
    blue: str


@dataclass(frozen=True, slots=True)
class PairNote:
    """Why one board looks the way it does."""

    board: int
    red: str
    blue: str
    red_score: float | None
    """Points before the round (Swiss); None in a round-robin, where scores play no part."""
    blue_score: float | None
    reasons: tuple[str, ...]
    downfloater: str | None = None
    upfloater: str | None = None


@dataclass(frozen=True, slots=True)
class ByeNote:
    player_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class RoundExplanation:
    round_no: int
    system: str
    pairs: tuple[PairNote, ...]
    byes: tuple[ByeNote, ...]
    notes: tuple[str, ...]
    names: tuple[tuple[str, str], ...]
    colours_relaxed: bool = False

    def name(self, player_id: str) -> str:
        return dict(self.names).get(player_id, player_id)

    def to_text(self) -> str:
        lines = [f"Round {self.round_no} ({self.system})"]
        for pair in self.pairs:
            head = (
                f"Board {pair.board}: {self.name(pair.red)} (red) v {self.name(pair.blue)} (blue)"
            )
            lines.append(head)
            lines.extend(f"  - {reason}" for reason in pair.reasons)
        for bye in self.byes:
            lines.append(f"Bye: {self.name(bye.player_id)}: {bye.reason}")
        lines.extend(f"Note: {note}" for note in self.notes)
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class RoundPairing:
    round_no: int
    pairings: tuple[Pairing, ...]
    byes: tuple[str, ...]
    explanation: RoundExplanation

    def bye_records(self) -> tuple[Bye, ...]:
        return tuple(Bye(self.round_no, player_id) for player_id in self.byes)

    def to_text(self) -> str:
        return self.explanation.to_text()


def _names(entrants: Sequence[Entrant]) -> tuple[tuple[str, str], ...]:
    return tuple((e.player_id, e.name) for e in entrants)


def _fmt(points: float) -> str:
    return f"{points:g} point" + ("" if points == 1 else "s")


# --------------------------------------------------------------------------- round-robin


def round_robin_rounds(count: int) -> int:
    """Rounds a single round-robin of `count` players takes."""
    return count - 1 if count % 2 == 0 else count


def _circle(players: Sequence[str | None], k: int) -> list[tuple[str | None, str | None]]:
    """Round k (0-based) of the circle method: seat 0 stays, the others turn one place a round.

    Seat 0 alternates colours each round and every other board keeps its colour orientation;
    that gives each player at most two equal colours in a row and an even balance at the end
    (with an odd field the empty seat sits at 0, and colours then alternate strictly).
    """
    n = len(players)
    others = list(players[1:])
    shift = k % len(others)
    turned = others[len(others) - shift :] + others[: len(others) - shift]
    circle = [players[0], *turned]
    boards: list[tuple[str | None, str | None]] = []
    for i in range(n // 2):
        a, b = circle[i], circle[n - 1 - i]
        red_first = (k % 2 == 0) if i == 0 else (i % 2 == 0)
        boards.append((a, b) if red_first else (b, a))
    return boards


def round_robin_round(entrants: Sequence[Entrant], round_no: int) -> RoundPairing:
    """Round `round_no` (1-based) of the single round-robin of `entrants`.

    The schedule is fixed from the start by seed, so a withdrawal never moves anyone else: a
    withdrawn player's boards are dropped and their scheduled opponents get a bye, and a
    withdrawn player's own scheduled bye (odd field) is not given. Late joins
    cannot enter a round-robin (they would need games in rounds already played).
    """
    if not entrants:
        raise LeagueError("a round-robin needs entrants")
    late = [e.player_id for e in entrants if e.joined_round > 1]
    if late:
        raise LeagueError(
            "a round-robin schedule is fixed at the start; late joiners cannot enter: "
            + ", ".join(sorted(late))
        )
    ordered = sorted(entrants, key=lambda e: (e.seed, e.player_id))
    total = round_robin_rounds(len(ordered))
    if not 1 <= round_no <= total:
        raise LeagueError(f"a round-robin of {len(ordered)} has rounds 1 to {total}")
    seats: list[str | None] = [e.player_id for e in ordered]
    if len(seats) % 2:
        seats.insert(0, None)
    by_id = {e.player_id: e for e in ordered}
    pairings: list[Pairing] = []
    notes: list[PairNote] = []
    byes: list[ByeNote] = []
    withdrawn: list[str] = []
    for red, blue in _circle(seats, round_no - 1):
        if red is None or blue is None:
            sitter = red if blue is None else blue
            assert sitter is not None
            # A bye is points; one who has left earns none, so their seat simply stays empty.
            if by_id[sitter].active_in(round_no):
                byes.append(
                    ByeNote(sitter, "odd number of players: this round's seat has no opponent")
                )
            else:
                withdrawn.append(sitter)
            continue
        gone = [p for p in (red, blue) if not by_id[p].active_in(round_no)]
        if gone:
            withdrawn.extend(gone)
            for player in (red, blue):
                if player not in gone:
                    byes.append(
                        ByeNote(player, f"scheduled opponent {by_id[gone[0]].name} withdrew")
                    )
            continue
        board = len(pairings) + 1
        pairings.append(Pairing(board, red, blue))
        notes.append(
            PairNote(
                board=board,
                red=red,
                blue=blue,
                red_score=None,
                blue_score=None,
                reasons=(
                    f"round {round_no} of {total} in the fixed circle schedule",
                    "colours follow the schedule so they alternate as evenly as possible",
                ),
            )
        )
    general = tuple(
        f"{by_id[p].name} withdrew and is no longer paired" for p in sorted(set(withdrawn))
    )
    explanation = RoundExplanation(
        round_no, "round-robin", tuple(notes), tuple(byes), general, _names(ordered)
    )
    return RoundPairing(round_no, tuple(pairings), tuple(b.player_id for b in byes), explanation)


def round_robin_schedule(entrants: Sequence[Entrant]) -> tuple[RoundPairing, ...]:
    """Every round of the single round-robin, in order."""
    total = round_robin_rounds(len(entrants))
    return tuple(round_robin_round(entrants, k) for k in range(1, total + 1))


# --------------------------------------------------------------------------- Swiss: history


class _Strength(enum.IntEnum):
    NONE = 0
    MILD = 1
    STRONG = 2
    ABSOLUTE = 3


@dataclass(frozen=True, slots=True)
class _ColourWish:
    colour: Colour | None
    strength: _Strength


def colour_wish(history: Sequence[Colour]) -> tuple[Colour | None, int]:
    """(wanted colour, strength 0-3) from a player's colours in played games, oldest first.

    3 (absolute): the same colour twice running, or a balance of two or more; 2 (strong): a
    balance of one; 1 (mild): balanced, wants the other colour than last time; 0: no games.
    """
    wish = _wish(history)
    return wish.colour, int(wish.strength)


def _wish(history: Sequence[Colour]) -> _ColourWish:
    if not history:
        return _ColourWish(None, _Strength.NONE)
    balance = sum(1 if c is Colour.RED else -1 for c in history)
    if balance >= 2:
        return _ColourWish(Colour.BLUE, _Strength.ABSOLUTE)
    if balance <= -2:
        return _ColourWish(Colour.RED, _Strength.ABSOLUTE)
    if len(history) >= 2 and history[-1] is history[-2]:
        return _ColourWish(history[-1].other, _Strength.ABSOLUTE)
    if balance == 1:
        return _ColourWish(Colour.BLUE, _Strength.STRONG)
    if balance == -1:
        return _ColourWish(Colour.RED, _Strength.STRONG)
    return _ColourWish(history[-1].other, _Strength.MILD)


@dataclass(frozen=True, slots=True)
class _Player:
    player_id: str
    name: str
    rank: int
    score: float
    byes: int
    wish: _ColourWish
    downfloats: tuple[int, ...]
    upfloats: tuple[int, ...]


def colour_histories(games: Sequence[Game]) -> dict[str, list[Colour]]:
    """Colours each player had in games actually played (forfeits give no colour), by round."""
    histories: dict[str, list[Colour]] = {}
    for game in sorted(games, key=lambda g: g.round_no):
        if game.played:
            histories.setdefault(game.red, []).append(Colour.RED)
            histories.setdefault(game.blue, []).append(Colour.BLUE)
    return histories


def float_history(
    entrants: Sequence[Entrant], games: Sequence[Game], byes: Sequence[Bye], config: ScoringConfig
) -> dict[str, list[tuple[int, Float]]]:
    """Rounds in which each player met an opponent with a different score, and which way."""
    floats: dict[str, list[tuple[int, Float]]] = {e.player_id: [] for e in entrants}
    for round_no in sorted({g.round_no for g in games}):
        scores = scores_before(round_no, entrants, games, byes, config)
        for game in games:
            if game.round_no != round_no:
                continue
            red, blue = scores[game.red], scores[game.blue]
            if red > blue:
                floats[game.red].append((round_no, Float.DOWN))
                floats[game.blue].append((round_no, Float.UP))
            elif blue > red:
                floats[game.blue].append((round_no, Float.DOWN))
                floats[game.red].append((round_no, Float.UP))
    return floats


# --------------------------------------------------------------------------- Swiss: search


def _maximum_matching_size(n: int, adj: Sequence[Sequence[int]]) -> int:
    """Size of a maximum matching of the graph on vertices 0..n-1 (Edmonds' blossoms).

    Polynomial, unlike the ordered searches below, which late in a large season can try
    millions of branches that have no pairing at all; this tells them so in one step. Written
    out rather than taken from networkx: a late round of 24 players asks it some 19,000 times,
    and networkx's general weighted matching answers 3 to 4 times slower.
    """
    mate = [-1] * n
    size = 0
    # A greedy start leaves the augmenting search less to do.
    for v in range(n):
        if mate[v] == -1:
            for u in adj[v]:
                if mate[u] == -1:
                    mate[v], mate[u] = u, v
                    size += 1
                    break

    def augment(root: int) -> bool:
        parent = [-1] * n
        base = list(range(n))
        used = [False] * n
        used[root] = True
        queue = [root]

        def common_base(a: int, b: int) -> int:
            seen = [False] * n
            while True:
                a = base[a]
                seen[a] = True
                if mate[a] == -1:
                    break
                a = parent[mate[a]]
            while True:
                b = base[b]
                if seen[b]:
                    return b
                b = parent[mate[b]]

        def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
            while base[v] != b:
                blossom[base[v]] = blossom[base[mate[v]]] = True
                parent[v] = child
                child = mate[v]
                v = parent[mate[v]]

        head = 0
        while head < len(queue):
            v = queue[head]
            head += 1
            for to in adj[v]:
                if base[v] == base[to] or mate[v] == to:
                    continue
                if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                    b = common_base(v, to)
                    blossom = [False] * n
                    mark(v, b, to, blossom)
                    mark(to, b, v, blossom)
                    for i in range(n):
                        if blossom[base[i]]:
                            base[i] = b
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] == -1:
                    parent[to] = v
                    if mate[to] == -1:
                        end = to
                        while end != -1:
                            prev = parent[end]
                            after = mate[prev]
                            mate[end], mate[prev] = prev, end
                            end = after
                        return True
                    used[mate[to]] = True
                    queue.append(mate[to])
        return False

    for v in range(n):
        if mate[v] == -1 and augment(v):
            size += 1
    return size


class _Search:
    """The pairing search for one round: brackets with backtracking, then a complete fallback."""

    def __init__(self, round_no: int, met: set[frozenset[str]]):
        self.round_no = round_no
        self.met = met
        self.keep_colours = True
        self._pairable: dict[tuple[bool, frozenset[str]], bool] = {}

    def pairable(self, members: Sequence[_Player]) -> bool:
        """Whether `members` can all be paired at all under `can_meet`. The ordered searches
        below skip what fails this test: it could only fail there too, after exponentially
        many tries, so they find the same pairing, fast."""
        key = (self.keep_colours, frozenset(p.player_id for p in members))
        known = self._pairable.get(key)
        if known is None:
            n = len(members)
            known = False
            if n % 2 == 0:
                adj: list[list[int]] = [[] for _ in range(n)]
                for i in range(n):
                    for j in range(i + 1, n):
                        if self.can_meet(members[i], members[j]):
                            adj[i].append(j)
                            adj[j].append(i)
                known = 2 * _maximum_matching_size(n, adj) == n
            self._pairable[key] = known
        return known

    def can_meet(self, a: _Player, b: _Player) -> bool:
        if frozenset((a.player_id, b.player_id)) in self.met:
            return False
        if not self.keep_colours:
            return True
        wa, wb = a.wish, b.wish
        both_absolute = wa.strength is _Strength.ABSOLUTE and wb.strength is _Strength.ABSOLUTE
        return not (both_absolute and wa.colour is wb.colour)

    def _recent_float(self, player: _Player, kind: Float) -> int:
        rounds = player.downfloats if kind is Float.DOWN else player.upfloats
        penalty = 0
        if self.round_no - 1 in rounds:
            penalty += 2
        if self.round_no - 2 in rounds:
            penalty += 1
        return penalty

    def _colour_cost(self, a: _Player, b: _Player) -> int:
        wa, wb = a.wish, b.wish
        if wa.colour is None or wb.colour is None or wa.colour is not wb.colour:
            return 0
        return int(min(wa.strength, wb.strength))

    def _candidate_key(
        self, p: _Player, c: _Player, target: dict[str, int]
    ) -> tuple[float, int, int, int, int]:
        float_cost = 0
        if c.score < p.score:
            float_cost = self._recent_float(p, Float.DOWN) + self._recent_float(c, Float.UP)
        elif c.score > p.score:
            float_cost = self._recent_float(c, Float.DOWN) + self._recent_float(p, Float.UP)
        return (
            abs(p.score - c.score),
            float_cost,
            self._colour_cost(p, c),
            abs(target.get(c.player_id, c.rank) - target.get(p.player_id, p.rank)),
            c.rank,
        )

    def match(self, members: Sequence[_Player]) -> list[tuple[_Player, _Player]] | None:
        """The first perfect matching of `members` in preference order, or None."""
        ordered = sorted(members, key=lambda p: (-p.score, p.rank))
        # Dutch fold: in each score group the i-th of the top half aims at the i-th of the
        # bottom half; `target` holds each player's position, shifted so that partners coincide.
        target: dict[str, int] = {}
        for _, group_iter in itertools.groupby(ordered, key=lambda p: p.score):
            group = list(group_iter)
            half = len(group) // 2
            for i, player in enumerate(group):
                target[player.player_id] = i if i < half else i - half
        failed: set[frozenset[str]] = set()

        def solve(rest: tuple[_Player, ...]) -> list[tuple[_Player, _Player]] | None:
            if not rest:
                return []
            key = frozenset(p.player_id for p in rest)
            if key in failed or not self.pairable(rest):
                return None
            first, others = rest[0], rest[1:]
            candidates = [c for c in others if self.can_meet(first, c)]
            candidates.sort(key=lambda c: self._candidate_key(first, c, target))
            for c in candidates:
                tail = solve(tuple(p for p in others if p is not c))
                if tail is not None:
                    return [(first, c), *tail]
            failed.add(key)
            return None

        return solve(tuple(ordered))

    def _floater_sets(
        self, members: Sequence[_Player], incoming: frozenset[str], count: int
    ) -> list[tuple[_Player, ...]]:
        floated = {p.player_id: self._recent_float(p, Float.DOWN) for p in members}

        def key(chosen: tuple[_Player, ...]) -> tuple[int, int, list[int]]:
            again = sum(floated[p.player_id] for p in chosen)
            moved = sum(1 for p in chosen if p.player_id in incoming)
            return (moved, again, sorted(-p.rank for p in chosen))

        return sorted(itertools.combinations(members, count), key=key)

    def brackets(self, field: Sequence[_Player]) -> list[tuple[_Player, _Player]] | None:
        groups = [
            list(g)
            for _, g in itertools.groupby(
                sorted(field, key=lambda p: (-p.score, p.rank)), key=lambda p: p.score
            )
        ]
        failed: set[tuple[int, frozenset[str]]] = set()

        def solve(
            index: int, incoming: tuple[_Player, ...]
        ) -> list[tuple[_Player, _Player]] | None:
            if index == len(groups):
                return [] if not incoming else None
            memo = (index, frozenset(p.player_id for p in incoming))
            if memo in failed:
                return None
            if not self.pairable([*incoming, *itertools.chain.from_iterable(groups[index:])]):
                failed.add(memo)
                return None
            members = [*incoming, *groups[index]]
            below = list(itertools.chain.from_iterable(groups[index + 1 :]))
            last = index == len(groups) - 1
            parity = len(members) % 2
            most = 0 if last else min(len(members), parity + 2 * _MAX_EXTRA_FLOATERS)
            for count in range(parity, most + 1, 2):
                for down in self._floater_sets(members, memo[1], count):
                    floating = {p.player_id for p in down}
                    staying = [p for p in members if p.player_id not in floating]
                    # Cheap tests first (both halves must be pairable at all); the order of
                    # the choices, and so the pairing found, stays the same.
                    if not self.pairable(staying) or not self.pairable([*down, *below]):
                        continue
                    paired = self.match(staying)
                    if paired is None:
                        continue
                    tail = solve(index + 1, down)
                    if tail is not None:
                        return paired + tail
            failed.add(memo)
            return None

        return solve(0, ())

    def pair(self, field: Sequence[_Player]) -> list[tuple[_Player, _Player]] | None:
        found = self.brackets(field)
        if found is None:
            found = self.match(field)
        return found


def _allocate(a: _Player, b: _Player, board: int) -> tuple[_Player, _Player, str]:
    """(red, blue, reason); `a` is the higher-ranked player."""
    wa, wb = a.wish, b.wish
    if wa.colour is not None and (wb.colour is None or wb.colour is not wa.colour):
        red, blue = (a, b) if wa.colour is Colour.RED else (b, a)
        why = "both get the colour they were due" if wb.colour else f"{a.name} gets the colour due"
        return red, blue, why
    if wb.colour is not None and wa.colour is None:
        red, blue = (b, a) if wb.colour is Colour.RED else (a, b)
        return red, blue, f"{b.name} gets the colour due"
    if wa.colour is None and wb.colour is None:
        red, blue = (a, b) if board % 2 == 1 else (b, a)
        return red, blue, "first games for both: colours alternate down the boards"
    assert wa.colour is not None
    if wb.strength > wa.strength:
        winner, loser = b, a
    else:
        winner, loser = a, b
    colour = winner.wish.colour
    assert colour is not None
    red, blue = (winner, loser) if colour is Colour.RED else (loser, winner)
    if wa.strength != wb.strength:
        reason = f"both were due {colour.value}: {winner.name} has the stronger claim"
    else:
        reason = f"both were due {colour.value}: the higher-ranked {winner.name} gets it"
    return red, blue, reason


def pair_swiss_round(
    round_no: int,
    entrants: Sequence[Entrant],
    games: Sequence[Game],
    byes: Sequence[Bye] = (),
    config: ScoringConfig | None = None,
) -> RoundPairing:
    """Pair Swiss round `round_no` from the results of every earlier round.

    Raises PairingError when the active players cannot be paired without a repeat pairing.
    """
    config = config or ScoringConfig()
    if round_no < 1:
        raise LeagueError("rounds start at 1")
    check_known(entrants, games, byes)
    late = [g for g in games if g.round_no >= round_no] + [
        b for b in byes if b.round_no >= round_no
    ]
    if late:
        raise LeagueError(f"results from round {round_no} or later cannot be used to pair it")

    scores = scores_before(round_no, entrants, games, byes, config)
    colours = colour_histories(games)
    floats = float_history(entrants, games, byes, config)
    bye_counts = {e.player_id: 0 for e in entrants}
    for bye in byes:
        bye_counts[bye.player_id] += 1
    met = {frozenset((g.red, g.blue)) for g in games}

    active = [e for e in entrants if e.active_in(round_no)]
    ranked = sorted(active, key=lambda e: (-scores[e.player_id], e.seed, e.player_id))
    players = [
        _Player(
            player_id=e.player_id,
            name=e.name,
            rank=i + 1,
            score=scores[e.player_id],
            byes=bye_counts[e.player_id],
            wish=_wish(colours.get(e.player_id, [])),
            downfloats=tuple(r for r, kind in floats[e.player_id] if kind is Float.DOWN),
            upfloats=tuple(r for r, kind in floats[e.player_id] if kind is Float.UP),
        )
        for i, e in enumerate(ranked)
    ]
    search = _Search(round_no, met)

    if len(players) % 2:
        bye_order = sorted(players, key=lambda p: (p.byes, -p.rank))
        bye_groups = [list(g) for _, g in itertools.groupby(bye_order, key=lambda p: p.byes)]
    else:
        bye_groups = [[]]

    found = _search_with_bye(search, players, bye_groups)
    if found is None:
        raise PairingError(
            f"round {round_no}: the {len(players)} active players cannot all be paired "
            "without someone meeting an opponent for the second time"
        )
    result, bye_player, skipped = found
    pairing = _explain(
        round_no,
        entrants,
        result=result,
        bye_player=bye_player,
        skipped=skipped,
        relaxed=not search.keep_colours,
    )
    log.debug("paired Swiss round %d: %d boards", round_no, len(pairing.pairings))
    return pairing


def _search_with_bye(
    search: _Search, players: Sequence[_Player], bye_groups: Sequence[Sequence[_Player]]
) -> tuple[list[tuple[_Player, _Player]], _Player | None, list[_Player]] | None:
    """(pairs, bye, players passed over for the bye), or None when no pairing exists.

    The bye order is strict: fewer byes first, then the lowest rank; the first candidate for whom
    the rest can be paired gets it. Colour limits give way only for that choice of bye.
    """
    for group in bye_groups:
        candidates: list[_Player | None] = list(group) or [None]
        for i, candidate in enumerate(candidates):
            field = [p for p in players if p is not candidate]
            for keep in (True, False):
                search.keep_colours = keep
                result = search.pair(field)
                if result is not None:
                    passed = [p for p in candidates[:i] if p is not None]
                    return result, candidate, passed
    return None


def _explain(
    round_no: int,
    entrants: Sequence[Entrant],
    *,
    result: Sequence[tuple[_Player, _Player]],
    bye_player: _Player | None,
    skipped: Sequence[_Player],
    relaxed: bool,
) -> RoundPairing:
    ordered = sorted(
        ((a, b) if a.rank < b.rank else (b, a) for a, b in result),
        key=lambda ab: (-max(ab[0].score, ab[1].score), ab[0].rank),
    )
    pairings: list[Pairing] = []
    notes: list[PairNote] = []
    for board, (a, b) in enumerate(ordered, start=1):
        red, blue, colour_reason = _allocate(a, b, board)
        reasons: list[str] = []
        down = up = None
        if a.score == b.score:
            reasons.append(f"same score group ({_fmt(a.score)})")
        else:
            high, low = (a, b) if a.score > b.score else (b, a)
            down, up = high.player_id, low.player_id
            reasons.append(
                f"{high.name} ({_fmt(high.score)}) floats down to meet {low.name} "
                f"({_fmt(low.score)}): the {high.score:g}-point group could not be paired "
                "without a float"
            )
        reasons.append("they have not met before")
        reasons.append(f"colours: {colour_reason}")
        pairings.append(Pairing(board, red.player_id, blue.player_id))
        notes.append(
            PairNote(
                board=board,
                red=red.player_id,
                blue=blue.player_id,
                red_score=red.score,
                blue_score=blue.score,
                reasons=tuple(reasons),
                downfloater=down,
                upfloater=up,
            )
        )
    bye_notes: tuple[ByeNote, ...] = ()
    if bye_player is not None:
        if bye_player.byes == 0:
            why = "lowest-ranked player without a bye"
        else:
            why = "every player without a bye is needed to pair the rest; fewest byes, lowest rank"
        if skipped:
            why += (
                " ("
                + ", ".join(p.name for p in skipped)
                + " passed over: the rest could not be paired)"
            )
        bye_notes = (ByeNote(bye_player.player_id, why),)
    general: list[str] = []
    for e in entrants:
        if e.withdrawn_from_round is not None and e.withdrawn_from_round <= round_no:
            general.append(f"{e.name} withdrew and is not paired")
        elif e.joined_round > round_no:
            general.append(f"{e.name} joins from round {e.joined_round}")
        elif e.joined_round == round_no and round_no > 1:
            general.append(f"{e.name} joins this round")
    if relaxed:
        general.append(
            "no pairing kept every colour limit this round; colours were relaxed to pair everyone"
        )
    explanation = RoundExplanation(
        round_no, "Swiss", tuple(notes), bye_notes, tuple(general), _names(entrants), relaxed
    )
    return RoundPairing(
        round_no,
        tuple(pairings),
        (bye_player.player_id,) if bye_player else (),
        explanation,
    )


def colour_limits_ok(histories: Mapping[str, Sequence[Colour]]) -> bool:
    """No player with three equal colours in a row or a colour balance beyond two, at any time."""
    for history in histories.values():
        if any(len(list(run)) > 2 for _, run in itertools.groupby(history)):
            return False
        balance = 0
        for colour in history:
            balance += 1 if colour is Colour.RED else -1
            if abs(balance) > 2:
                return False
    return True
