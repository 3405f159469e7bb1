"""OpenSkill ratings, reliability and the season summary."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.leagues.ratings import (
    NEW_PLAYER,
    Rating,
    Reliability,
    rate_game,
    rate_games,
    win_chance,
)
from service.leagues.records import Bye, Entrant, Game, LeagueError, Outcome
from service.leagues.summary import summarize_season

W, L, D = Outcome.RED_WIN, Outcome.BLUE_WIN, Outcome.DRAW


def test_new_player_rating_and_display() -> None:
    assert NEW_PLAYER.mu == 25.0
    assert NEW_PLAYER.sigma == pytest.approx(25.0 / 3.0)
    assert NEW_PLAYER.ordinal == pytest.approx(0.0)
    assert NEW_PLAYER.display == 1000


def test_win_raises_the_winner_and_lowers_the_loser() -> None:
    red, blue = rate_game(NEW_PLAYER, NEW_PLAYER, W)
    assert red.mu > 25.0 > blue.mu
    assert red.sigma < NEW_PLAYER.sigma and blue.sigma < NEW_PLAYER.sigma
    assert red.games == blue.games == 1
    flipped_blue, flipped_red = rate_game(NEW_PLAYER, NEW_PLAYER, L)
    assert (flipped_blue.mu, flipped_red.mu) == pytest.approx((blue.mu, red.mu))


def test_draw_between_equals_moves_neither_mean() -> None:
    red, blue = rate_game(NEW_PLAYER, NEW_PLAYER, D)
    assert red.mu == pytest.approx(25.0) and blue.mu == pytest.approx(25.0)
    assert red.sigma < NEW_PLAYER.sigma


def test_draw_pulls_ratings_together() -> None:
    strong, weak = Rating(30.0, 4.0), Rating(20.0, 4.0)
    new_strong, new_weak = rate_game(strong, weak, D)
    assert new_strong.mu < 30.0 and new_weak.mu > 20.0


def test_an_upset_moves_more_than_an_expected_result() -> None:
    strong, weak = Rating(32.0, 4.0), Rating(20.0, 4.0)
    expected, _ = rate_game(strong, weak, W)
    _, upset = rate_game(strong, weak, L)
    assert upset.mu - 20.0 > expected.mu - 32.0 > 0
    assert win_chance(strong, weak) > 0.5 > win_chance(weak, strong)


def test_forfeits_are_not_rated() -> None:
    with pytest.raises(LeagueError, match="not rated"):
        rate_game(NEW_PLAYER, NEW_PLAYER, Outcome.RED_FORFEIT)
    ledger = rate_games([Game(1, "a", "b", Outcome.BLUE_FORFEIT), Game(2, "a", "b", W)])
    assert len(ledger.changes) == 1
    assert ledger.rating("a").games == 1


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from([W, L, D])),
        max_size=15,
    )
)
def test_ratings_are_deterministic_and_follow_results(
    raw: list[tuple[int, int, Outcome]],
) -> None:
    games = [Game(i + 1, f"p{a}", f"p{b}", o) for i, (a, b, o) in enumerate(raw) if a != b]
    first, second = rate_games(games), rate_games(list(games))
    assert first == second
    for change in first.changes:
        red_delta = change.red_after.mu - change.red_before.mu
        if change.game.outcome is W:
            assert red_delta > 0
        elif change.game.outcome is L:
            assert red_delta < 0
        assert 0.0 < change.red_win_chance < 1.0


def test_reliability_share() -> None:
    assert Reliability(10, 7).share == pytest.approx(0.7)
    assert Reliability(10, 7).to_text() == "70% (7/10 turns with orders)"
    assert Reliability(0, 0).share is None
    assert Reliability(0, 0).to_text() == "no turns yet"
    with pytest.raises(LeagueError, match="turns with orders"):
        Reliability(3, 4)
    with pytest.raises(LeagueError):
        Reliability(-1, 0)


def test_season_summary() -> None:
    entrants = [Entrant(p, p.title(), i + 1) for i, p in enumerate(["ann", "ben", "col", "dee"])]
    games = [
        Game(1, "ann", "ben", W),
        Game(1, "col", "dee", W),
        Game(2, "ann", "col", W),
        Game(2, "ben", "dee", D),
        # Dee has lost and drawn; Ann has won twice: Dee's win is the season's upset.
        Game(3, "dee", "ann", W),
        Game(3, "ben", "col", Outcome.RED_FORFEIT),
    ]
    turns = {
        "ann": Reliability(30, 27),
        "ben": Reliability(20, 20),
        "col": Reliability(25, 25),
        "dee": Reliability(0, 0),
    }
    summary = summarize_season("Autumn", entrants, games, turns=turns)
    assert summary.champion is not None and summary.champion.player_id == "ann"
    upset = summary.biggest_upset
    assert upset is not None
    assert (upset.game.round_no, upset.winner, upset.loser) == (3, "dee", "ann")
    ledger = rate_games(games)
    before = ledger.changes[4]
    assert upset.winner_chance == pytest.approx(before.chance_of("dee"))
    assert upset.winner_chance < 0.5
    assert upset.winner_display < upset.loser_display
    # Ben and Col both gave orders every turn; Col did so in more turns.
    assert summary.most_reliable is not None
    assert summary.most_reliable.player_id == "col"
    text = summary.to_text()
    assert text.splitlines()[:4] == [
        "Season summary: Autumn",
        "Champion: Ann with 2 points",
        f"Biggest upset: round 3, Dee ({upset.winner_display}) beat Ann ({upset.loser_display}) "
        f"with a {upset.winner_chance:.0%} chance",
        "Most reliable: Col, 100% (25/25 turns with orders)",
    ]
    assert "Standings after round 3" in text


def test_summary_without_games_or_turns() -> None:
    entrants = [Entrant("a", "A", 1), Entrant("b", "B", 2)]
    summary = summarize_season("Empty", entrants, [], [Bye(1, "a")])
    assert summary.champion is not None and summary.champion.player_id == "a"
    assert summary.biggest_upset is None
    assert summary.most_reliable is None
    assert "Biggest upset: none" in summary.to_text()
