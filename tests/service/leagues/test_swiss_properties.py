"""Swiss pairing invariants over many random leagues with withdrawals and late joins."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from functools import cache
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.leagues.pairing import (
    Colour,
    PairingError,
    RoundPairing,
    _maximum_matching_size,
    _Search,
    colour_limits_ok,
    pair_swiss_round,
)
from service.leagues.records import Bye, Entrant, Game, Outcome, ScoringConfig
from tests.service.leagues.helpers import (
    pairable_keeping_colours,
    pairable_without_repeats,
    reference_scores,
)

OUTCOMES = [Outcome.RED_WIN] * 4 + [Outcome.BLUE_WIN] * 4 + [Outcome.DRAW] * 2
FORFEITS = [Outcome.RED_FORFEIT, Outcome.BLUE_FORFEIT, Outcome.DOUBLE_FORFEIT]


@dataclass
class League:
    entrants: list[Entrant]
    rounds: int
    config: ScoringConfig
    seed: int


@st.composite
def leagues(draw: st.DrawFn) -> League:
    count = draw(st.integers(2, 11))
    rounds = draw(st.integers(1, 9))
    seeds = draw(st.permutations(range(1, count + 1)))
    entrants = []
    for i in range(count):
        joined = draw(st.sampled_from([1, 1, 1, 1, 2, 3, 4]))
        withdrawn = draw(st.one_of(st.none(), st.integers(joined + 1, max(joined, rounds) + 2)))
        entrants.append(Entrant(f"p{i:02}", f"Player {i}", seeds[i], joined, withdrawn))
    config = ScoringConfig(
        bye_points=draw(st.sampled_from([1.0, 0.5, 0.0])),
        missed_round_points=draw(st.sampled_from([0.0, 0.5, 1.0])),
    )
    return League(entrants, rounds, config, draw(st.integers(0, 2**32)))


@dataclass
class Season:
    games: list[Game] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)
    pairings: list[RoundPairing] = field(default_factory=list)
    stopped: bool = False


def colour_histories(games: list[Game]) -> dict[str, list[Colour]]:
    histories: dict[str, list[Colour]] = {}
    for g in sorted(games, key=lambda g: g.round_no):
        if g.played:
            histories.setdefault(g.red, []).append(Colour.RED)
            histories.setdefault(g.blue, []).append(Colour.BLUE)
    return histories


def play(league: League) -> Season:
    """Pair and play every round, checking each round's invariants as it goes."""
    rng = random.Random(league.seed)
    season = Season()
    for round_no in range(1, league.rounds + 1):
        active = [e.player_id for e in league.entrants if e.active_in(round_no)]
        met = {frozenset((g.red, g.blue)) for g in season.games}
        byes_before = {e.player_id: 0 for e in league.entrants}
        for b in season.byes:
            byes_before[b.player_id] += 1
        histories = colour_histories(season.games)
        try:
            rp = pair_swiss_round(
                round_no, league.entrants, season.games, season.byes, league.config
            )
        except PairingError:
            # Only when truly impossible: no bye choice leaves a field without repeat pairings.
            choices = active if len(active) % 2 else [None]
            assert not any(
                pairable_without_repeats([p for p in active if p != out], met) for out in choices
            )
            season.stopped = True
            return season

        paired = [p for pair in rp.pairings for p in (pair.red, pair.blue)]
        assert sorted(paired + list(rp.byes)) == sorted(active), "every active player once"
        assert len(rp.byes) == len(active) % 2
        for pair in rp.pairings:
            assert frozenset((pair.red, pair.blue)) not in met, "no pair meets twice"
        check_bye(league, season, round_no, rp, active=active, met=met, byes_before=byes_before)
        check_colours(rp, active, met, histories)

        season.pairings.append(rp)
        season.byes.extend(rp.bye_records())
        for pair in rp.pairings:
            outcome = rng.choice(FORFEITS) if rng.random() < 0.1 else rng.choice(OUTCOMES)
            season.games.append(Game(round_no, pair.red, pair.blue, outcome))
    return season


def check_bye(
    league: League,
    season: Season,
    round_no: int,
    rp: RoundPairing,
    *,
    active: list[str],
    met: set[frozenset[str]],
    byes_before: dict[str, int],
) -> None:
    if not rp.byes:
        return
    (bye,) = rp.byes
    scores = reference_scores(round_no, league.entrants, season.games, season.byes, league.config)
    seed = {e.player_id: e.seed for e in league.entrants}
    rank = {p: i for i, p in enumerate(sorted(active, key=lambda p: (-scores[p], seed[p], p)))}
    for other in active:
        if other == bye:
            continue
        fewer = byes_before[other] < byes_before[bye]
        same_but_lower = byes_before[other] == byes_before[bye] and rank[other] > rank[bye]
        if fewer or same_but_lower:
            # They would have had priority for the bye, so the rest must have been unpairable.
            rest = [p for p in active if p != other]
            assert not pairable_without_repeats(rest, met), (
                f"{bye} got the bye although {other} could have taken it"
            )


def check_colours(
    rp: RoundPairing,
    active: list[str],
    met: set[frozenset[str]],
    histories: dict[str, list[Colour]],
) -> None:
    after = {p: list(h) for p, h in histories.items()}
    for pair in rp.pairings:
        after.setdefault(pair.red, []).append(Colour.RED)
        after.setdefault(pair.blue, []).append(Colour.BLUE)
    if not rp.explanation.colours_relaxed:
        if colour_limits_ok(histories):
            assert colour_limits_ok(after), "colours stay within limits"
        return
    # Relaxing is allowed only when the field left by the bye cannot keep the limits.
    rest = [p for p in active if p not in rp.byes]
    assert not pairable_keeping_colours(rest, met, histories)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(leagues())
def test_swiss_never_repeats_spreads_byes_and_keeps_colours(league: League) -> None:
    season = play(league)
    seen: set[frozenset[str]] = set()
    for g in season.games:
        pair = frozenset((g.red, g.blue))
        assert pair not in seen
        seen.add(pair)
    by_id = {e.player_id: e for e in league.entrants}
    for g in season.games:
        for p in (g.red, g.blue):
            assert by_id[p].active_in(g.round_no), "withdrawn or not-yet-joined players never play"


@settings(max_examples=60, deadline=None)
@given(leagues())
def test_swiss_pairing_is_deterministic(league: League) -> None:
    first = play(league)
    second = play(league)
    assert first.pairings == second.pairings


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32))
def test_full_fields_play_every_possible_round_without_repeats(count: int, seed: int) -> None:
    """Without withdrawals, no one is stuck before the field runs out of new opponents."""
    entrants = [Entrant(f"p{i}", f"P{i}", i + 1) for i in range(count)]
    league = League(entrants, count - 1 if count % 2 == 0 else count, ScoringConfig(), seed)
    season = play(league)
    if not season.stopped:
        assert len(season.pairings) == league.rounds


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, set[tuple[int, int]]]:
    n = draw(st.integers(0, 11))
    pairs = list(itertools.combinations(range(n), 2))
    edges = draw(st.sets(st.sampled_from(pairs))) if pairs else set()
    return n, edges


def largest_matching(n: int, edges: set[tuple[int, int]]) -> int:
    """By exhaustion: the first free vertex is either left out or matched to a neighbour."""

    @cache
    def best(rest: frozenset[int]) -> int:
        if len(rest) < 2:
            return 0
        first = min(rest)
        without = rest - {first}
        options = [best(without)]
        options += [1 + best(without - {v}) for v in without if (first, v) in edges]
        return max(options)

    return best(frozenset(range(n)))


@settings(max_examples=300, deadline=None)
@given(graphs(), st.randoms(use_true_random=False))
def test_the_matching_oracle_agrees_with_exhaustion(
    graph: tuple[int, set[tuple[int, int]]], rnd: random.Random
) -> None:
    n, edges = graph
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    for neighbours in adj:
        rnd.shuffle(neighbours)
    assert _maximum_matching_size(n, adj) == largest_matching(n, edges)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(leagues())
def test_skipping_unpairable_branches_changes_no_pairing(league: League) -> None:
    """The matching oracle only prunes branches the ordered search would exhaust in vain: with
    it answering "pairable" to everything (the plain exhaustive search), the pairings are the
    same."""
    pruned = play(league)
    with patch.object(_Search, "pairable", lambda self, members: True):
        exhaustive = play(league)
    assert pruned.pairings == exhaustive.pairings
    assert pruned.stopped == exhaustive.stopped
