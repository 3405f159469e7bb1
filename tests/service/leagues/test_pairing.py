"""Round-robin schedules and hand-checked Swiss situations."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.leagues.pairing import (
    Colour,
    Pairing,
    PairingError,
    colour_wish,
    pair_swiss_round,
    round_robin_round,
    round_robin_rounds,
    round_robin_schedule,
)
from service.leagues.records import Bye, Entrant, Game, LeagueError, Outcome, ScoringConfig

W, L, D = Outcome.RED_WIN, Outcome.BLUE_WIN, Outcome.DRAW


def field(count: int) -> list[Entrant]:
    return [Entrant(f"p{i:02}", f"Player {i}", i + 1) for i in range(count)]


def by_name(*names: str, **kwargs: int) -> list[Entrant]:
    return [
        Entrant(n, n.upper(), i + 1, withdrawn_from_round=kwargs.get(n))
        for i, n in enumerate(names)
    ]


# --------------------------------------------------------------------------- round-robin


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 24))
def test_round_robin_every_pair_meets_exactly_once(count: int) -> None:
    entrants = field(count)
    schedule = round_robin_schedule(entrants)
    assert len(schedule) == round_robin_rounds(count)
    meetings = Counter(frozenset((p.red, p.blue)) for rp in schedule for p in rp.pairings)
    expected = {
        frozenset(pair) for pair in itertools.combinations([e.player_id for e in entrants], 2)
    }
    assert set(meetings) == expected
    assert set(meetings.values()) == {1}
    for rp in schedule:
        seated = [p for pair in rp.pairings for p in (pair.red, pair.blue)] + list(rp.byes)
        assert sorted(seated) == sorted(e.player_id for e in entrants)
    byes = Counter(b for rp in schedule for b in rp.byes)
    assert dict(byes) == ({e.player_id: 1 for e in entrants} if count % 2 else {})


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 24))
def test_round_robin_colours_alternate_within_limits(count: int) -> None:
    histories: dict[str, list[Colour]] = {e.player_id: [] for e in field(count)}
    for rp in round_robin_schedule(field(count)):
        for p in rp.pairings:
            histories[p.red].append(Colour.RED)
            histories[p.blue].append(Colour.BLUE)
        for history in histories.values():
            balance = sum(1 if c is Colour.RED else -1 for c in history)
            assert abs(balance) <= 2
    for history in histories.values():
        runs = [len(list(run)) for _, run in itertools.groupby(history)]
        balance = sum(1 if c is Colour.RED else -1 for c in history)
        assert max(runs) <= (1 if count % 2 else 2)
        assert abs(balance) <= 1


def test_round_robin_round_k_matches_the_schedule() -> None:
    entrants = field(7)
    schedule = round_robin_schedule(entrants)
    for k in range(1, 8):
        assert round_robin_round(entrants, k) == schedule[k - 1]


def test_round_robin_first_round_of_four_by_hand() -> None:
    rp = round_robin_round(by_name("a", "b", "c", "d"), 1)
    # Circle: seat 0 (a) holds, a meets the last seat; b meets c.
    assert rp.pairings == (Pairing(1, "a", "d"), Pairing(2, "c", "b"))
    assert rp.byes == ()


def test_round_robin_withdrawal_gives_scheduled_opponents_a_bye() -> None:
    entrants = by_name("a", "b", "c", "d", d=3)
    before = round_robin_round(entrants, 2)
    after = round_robin_round(entrants, 3)
    full = round_robin_round(by_name("a", "b", "c", "d"), 3)
    assert before == round_robin_round(by_name("a", "b", "c", "d"), 2)
    assert all("d" not in (p.red, p.blue) for p in after.pairings)
    (dropped,) = [p for p in full.pairings if "d" in (p.red, p.blue)]
    partner = dropped.red if dropped.blue == "d" else dropped.blue
    assert after.byes == (partner,)
    assert "D withdrew" in after.to_text()
    kept = [p for p in full.pairings if "d" not in (p.red, p.blue)]
    assert [(p.red, p.blue) for p in after.pairings] == [(p.red, p.blue) for p in kept]


def test_round_robin_withdrawn_player_gets_no_scheduled_bye() -> None:
    names = ("a", "b", "c", "d", "e")
    full = round_robin_schedule(by_name(*names))
    sits = {k: rp.byes for k, rp in enumerate(full, start=1) if len(rp.byes) == 1}
    assert len(sits) == 5
    for player in names:
        (own_round,) = [k for k, byes in sits.items() if byes == (player,)]
        gone_from = max(own_round, 2)
        entrants = by_name(*names, **{player: gone_from})
        for k in range(1, 6):
            rp = round_robin_round(entrants, k)
            if k >= gone_from:
                assert player not in rp.byes
                assert all(player not in (p.red, p.blue) for p in rp.pairings)
            else:
                assert rp == full[k - 1]
        left = round_robin_round(entrants, own_round)
        if own_round >= 2:
            # The empty seat stays empty; nobody else's board changes.
            assert left.byes == ()
            assert left.pairings == full[own_round - 1].pairings
            assert f"{player.upper()} withdrew" in left.to_text()


def test_round_robin_refuses_late_joiners_and_bad_rounds() -> None:
    with pytest.raises(LeagueError, match="late joiners"):
        round_robin_round([*field(3), Entrant("late", "Late", 9, joined_round=2)], 2)
    with pytest.raises(LeagueError, match="rounds 1 to 3"):
        round_robin_round(field(4), 4)


# --------------------------------------------------------------------------- Swiss


def test_swiss_first_round_top_half_meets_bottom_half() -> None:
    rp = pair_swiss_round(1, field(6), [])
    pairs = {frozenset((p.red, p.blue)) for p in rp.pairings}
    assert pairs == {
        frozenset(("p00", "p03")),
        frozenset(("p01", "p04")),
        frozenset(("p02", "p05")),
    }
    assert rp.byes == ()


def test_swiss_bye_goes_to_lowest_ranked_player_without_one() -> None:
    entrants = field(5)
    first = pair_swiss_round(1, entrants, [])
    assert first.byes == ("p04",)
    games = [Game(1, p.red, p.blue, W) for p in first.pairings]
    second = pair_swiss_round(2, entrants, games, first.bye_records())
    # p04 now has a point from the bye, so the bye passes to a losing player, the lowest seed.
    losers = sorted((p.blue for p in first.pairings), key=lambda pid: int(pid[1:]))
    assert second.byes == (losers[-1],)
    assert "lowest-ranked player without a bye" in second.to_text()


def test_swiss_bye_goes_to_the_only_player_without_one() -> None:
    entrants = by_name("a", "b", "c")
    games = [Game(1, "a", "b", W), Game(2, "b", "c", W)]
    byes = [Bye(1, "c"), Bye(2, "a")]
    rp = pair_swiss_round(3, entrants, games, byes)
    assert rp.byes == ("b",)
    assert rp.pairings == (Pairing(1, "c", "a"),)


def test_swiss_second_bye_only_when_nobody_without_one_can_take_it() -> None:
    entrants = by_name("a", "b", "c", "d", "e")
    games = [
        Game(1, "a", "b", W),
        Game(1, "c", "e", W),
        Game(2, "a", "c", W),
        Game(2, "d", "e", W),
        Game(3, "a", "d", W),
        Game(3, "b", "e", W),
    ]
    byes = [Bye(1, "d"), Bye(2, "b"), Bye(3, "c")]
    # Only a (3 points) and e (0) have no bye. Without e, a has met everyone else; without a,
    # b-c-d-e cannot be paired (c-e, d-e and b-e have met). So a second bye is unavoidable and
    # goes to the lowest-ranked of b, c, d (2 points each): d, leaving a-e and b-c.
    rp = pair_swiss_round(4, entrants, games, byes)
    assert rp.byes == ("d",)
    assert {frozenset((p.red, p.blue)) for p in rp.pairings} == {
        frozenset(("a", "e")),
        frozenset(("b", "c")),
    }
    (note,) = rp.explanation.byes
    assert note.reason.startswith("every player without a bye is needed to pair the rest")


def test_swiss_raises_when_no_pairing_is_left() -> None:
    entrants = by_name("a", "b")
    with pytest.raises(PairingError, match="second time"):
        pair_swiss_round(2, entrants, [Game(1, "a", "b", D)])


def test_swiss_withdrawn_players_are_never_paired() -> None:
    entrants = by_name("a", "b", "c", "d", c=2)
    rp = pair_swiss_round(2, entrants, [Game(1, "a", "c", W), Game(1, "b", "d", W)])
    seated = {p for pair in rp.pairings for p in (pair.red, pair.blue)} | set(rp.byes)
    assert seated == {"a", "b", "d"}
    assert "C withdrew and is not paired" in rp.to_text()


def test_swiss_late_joiner_enters_next_round_with_missed_round_points() -> None:
    entrants = [*by_name("a", "b", "c", "d"), Entrant("late", "Late", 5, joined_round=2)]
    round1 = pair_swiss_round(1, entrants, [])
    assert all("late" not in (p.red, p.blue) for p in round1.pairings)
    assert round1.byes == ()
    assert "Late joins from round 2" in round1.to_text()
    games = [Game(1, p.red, p.blue, W) for p in round1.pairings]
    config = ScoringConfig(missed_round_points=1.0)
    round2 = pair_swiss_round(2, entrants, games, (), config)
    # Round 1: a beat c, d beat b. With a point for the missed round Late (seed 5) joins a and d
    # on 1 point; c, lowest-ranked without a bye, sits out; the odd 1-point group sends its
    # lowest-ranked player, Late, down to b.
    assert round2.byes == ("c",)
    assert round2.pairings == (Pairing(1, "d", "a"), Pairing(2, "b", "late"))
    late_note = round2.explanation.pairs[1]
    assert (late_note.blue_score, late_note.downfloater, late_note.upfloater) == (1.0, "late", "b")
    assert "Late joins this round" in round2.to_text()


FLOAT_ROUND1 = [
    Game(1, "a", "e", W),
    Game(1, "f", "b", L),
    Game(1, "c", "g", W),
    Game(1, "h", "d", L),
    Game(1, "i", "j", W),
]
GONE_BEFORE_ROUND3 = {n: 3 for n in "efghij"}


def test_swiss_avoids_floating_the_same_player_twice_running() -> None:
    # After round 2 a, b, c have 2 points and d has 1; c reached 2 by floating down to e.
    entrants = by_name(*"abcdefghij", **GONE_BEFORE_ROUND3)
    games = [*FLOAT_ROUND1, Game(2, "d", "a", L), Game(2, "b", "i", W), Game(2, "e", "c", L)]
    rp = pair_swiss_round(3, entrants, games)
    # The lowest-ranked (c) floated last round, so the next one up (b) floats instead.
    assert rp.pairings == (Pairing(1, "a", "c"), Pairing(2, "d", "b"))
    (floated,) = [n for n in rp.explanation.pairs if n.downfloater]
    assert (floated.downfloater, floated.upfloater) == ("b", "d")
    assert "B (2 points) floats down to meet D (1 point)" in rp.to_text()


def test_swiss_floats_the_lowest_ranked_player_otherwise() -> None:
    entrants = by_name(*"abcdefghij", **GONE_BEFORE_ROUND3)
    games = [*FLOAT_ROUND1, Game(2, "d", "a", L), Game(2, "i", "c", L), Game(2, "b", "e", W)]
    rp = pair_swiss_round(3, entrants, games)
    assert rp.pairings == (Pairing(1, "a", "b"), Pairing(2, "c", "d"))


def test_colour_wishes() -> None:
    r, b = Colour.RED, Colour.BLUE
    assert colour_wish([]) == (None, 0)
    assert colour_wish([r]) == (b, 2)
    assert colour_wish([r, b]) == (r, 1)
    assert colour_wish([b, b]) == (r, 3)
    assert colour_wish([r, b, r, r]) == (b, 3)


def test_swiss_colours_follow_due_colours_and_never_give_a_third_in_a_row() -> None:
    entrants = by_name("a", "b", "c", "d")
    games = [
        Game(1, "a", "c", W),
        Game(1, "b", "d", W),
        Game(2, "a", "b", D),
        Game(2, "c", "d", D),
    ]
    # a: red, red -> must have blue; b: red, blue; c: blue, red; d: blue, blue -> must have red.
    # a has met b and c, so a-d and b-c: d takes red, a blue; b (due red) red, c blue.
    rp = pair_swiss_round(3, entrants, games)
    assert rp.pairings == (Pairing(1, "d", "a"), Pairing(2, "b", "c"))


def test_swiss_explanation_reads_as_text_and_data() -> None:
    rp = pair_swiss_round(1, by_name("a", "b", "c"), [])
    text = rp.to_text()
    assert text.splitlines()[0] == "Round 1 (Swiss)"
    assert "Board 1: A (red) v B (blue)" in text
    assert "Bye: C: lowest-ranked player without a bye" in text
    assert rp.explanation.pairs[0].reasons[0] == "same score group (0 points)"


def test_swiss_rejects_results_from_the_round_being_paired() -> None:
    with pytest.raises(LeagueError, match="cannot be used"):
        pair_swiss_round(1, by_name("a", "b"), [Game(1, "a", "b", W)])
