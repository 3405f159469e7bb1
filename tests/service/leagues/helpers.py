"""Independent reference checks for the league tests: brute force, small fields only."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cache

from service.leagues.pairing import Colour
from service.leagues.records import Bye, Entrant, Game, ScoringConfig


def perfect_matching_exists(players: Collection[str], allowed: Callable[[str, str], bool]) -> bool:
    """Whether `players` can all be paired with `allowed(a, b)` pairs (exhaustive search)."""
    order = tuple(sorted(players))

    @cache
    def solve(rest: frozenset[str]) -> bool:
        if not rest:
            return True
        first = min(rest)
        return any(
            allowed(first, other) and solve(rest - {first, other}) for other in rest - {first}
        )

    return len(order) % 2 == 0 and solve(frozenset(order))


def pairable_without_repeats(players: Collection[str], met: set[frozenset[str]]) -> bool:
    return perfect_matching_exists(players, lambda a, b: frozenset((a, b)) not in met)


def absolute_colour(history: Sequence[Colour]) -> Colour | None:
    """The colour a player must get: after two equal colours running, or a balance of two."""
    balance = sum(1 if c is Colour.RED else -1 for c in history)
    if balance >= 2:
        return Colour.BLUE
    if balance <= -2:
        return Colour.RED
    if len(history) >= 2 and history[-1] is history[-2]:
        return Colour.BLUE if history[-1] is Colour.RED else Colour.RED
    return None


def pairable_keeping_colours(
    players: Collection[str], met: set[frozenset[str]], histories: dict[str, list[Colour]]
) -> bool:
    def allowed(a: str, b: str) -> bool:
        if frozenset((a, b)) in met:
            return False
        need_a = absolute_colour(histories.get(a, []))
        need_b = absolute_colour(histories.get(b, []))
        return need_a is None or need_a is not need_b

    return perfect_matching_exists(players, allowed)


def reference_scores(
    round_no: int,
    entrants: Iterable[Entrant],
    games: Iterable[Game],
    byes: Iterable[Bye],
    config: ScoringConfig,
) -> dict[str, float]:
    """Scores before `round_no`, written out independently of the library's ledger."""
    scores: dict[str, float] = {}
    for e in entrants:
        missed = len([r for r in range(1, round_no) if r < e.joined_round])
        scores[e.player_id] = missed * config.missed_round_points
    for g in games:
        if g.round_no >= round_no:
            continue
        red, blue = {
            "red_win": (1.0, 0.0),
            "blue_win": (0.0, 1.0),
            "draw": (0.5, 0.5),
            "red_forfeit": (0.0, 1.0),
            "blue_forfeit": (1.0, 0.0),
            "double_forfeit": (0.0, 0.0),
        }[g.outcome.value]
        scores[g.red] += red
        scores[g.blue] += blue
    for b in byes:
        if b.round_no < round_no:
            scores[b.player_id] += config.bye_points
    return scores
