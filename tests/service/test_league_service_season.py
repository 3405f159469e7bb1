"""A whole Swiss season through the service: six players, three rounds, a forfeit by the no-show
limit, a withdrawal and two byes, checked against a table worked out by hand.

Round 1 (all on 0 points, seeds A1..F6; top half meets bottom half, colours alternate down the
boards):  A (red) - D: D concedes.   E (red) - B: E gives no orders for three turns and forfeits
(a forfeit gives neither player a colour).   C (red) - F: agreed draw.
    After: A 1, B 1, C 1/2, F 1/2, D 0, E 0.   D withdraws before round 2.
Round 2 (A, B, C, E, F active; odd, so the lowest-ranked player without a bye sits out: E).
    A, B on 1 point, C, F on 1/2; C and F have met, so both 1-point players float down. A-C and
    A-F are equally near; A is due blue and so is C, F is due red: A-F, with F red, A blue.
    B (no colour yet) - C (due blue): B red.   A beats F; C beats B.   E: bye.
    After: A 2, C 3/2, B 1, E 1, F 1/2, D 0.
Round 3 (bye to the lowest-ranked without one: F). A (2) floats to C (3/2), but then B-E would
    repeat round 1; so A and C both drop to the 1-point group: A-B (B ranked above E), C-E.
    A-B drawn; C beats E.   F: bye.
Final points: A 5/2, C 5/2, B 3/2, F 3/2, E 1, D 0.
Sonneborn-Berger (games played only: the opponent's final score times the points taken):
    C: drew F (3/2 x 1/2) + beat B (3/2) + beat E (1) = 13/4
    A: beat D (0) + beat F (3/2) + drew B (3/2 x 1/2) = 9/4
    B: lost to C + drew A (5/2 x 1/2) = 5/4      (the forfeit win over E adds nothing)
    F: drew C (5/2 x 1/2) + lost to A = 5/4
    E: lost to C = 0;  D: lost to A = 0
C is ahead of A on Sonneborn-Berger. B and F tie on points and Sonneborn-Berger, never met
(head-to-head 0 each), won no game over the board: seed decides (B is seed 2, F seed 6).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from service.leagues.records import Outcome
from tests.service.leagues.harness import DAY, HOUR, Harness, harness
from tests.storage.backends import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def forfeit_by_no_shows(h: Harness, league_id: int, round_no: int, present: str) -> None:
    """`present` confirms every turn; the opponent never gives orders."""
    game = next(g for g in await h.games(league_id, round_no) if present in (g.red_id, g.blue_id))
    assert game.match_id is not None
    for _turn in range(3):
        await h.matches.confirm(game.match_id, present)
        await h.advance(HOUR + 1)


async def test_six_player_swiss_season_matches_the_hand_checked_table(
    backend: str, tmp_path: Path
) -> None:
    async with harness(backend, tmp_path) as h:
        league_id = await h.create(
            rounds=3, round_seconds=7 * DAY, turn_seconds=HOUR, start_seconds=DAY
        )
        await h.sign_up(league_id, "abcdef")
        league, dropped = await h.leagues.start(league_id, by="mod", moderator=True)
        assert (league.status, league.current_round, dropped) == ("running", 1, [])

        # Round 1: every match was created and started, both players having league decks.
        games = await h.games(league_id, 1)
        assert [(g.red_id, g.blue_id) for g in games] == [("pa", "pd"), ("pe", "pb"), ("pc", "pf")]
        for game in games:
            assert game.match_id is not None
            match = await h.matches.get_match(game.match_id)
            red = match.seat_for_side("red")
            assert match.status == "active" and red is not None and red.player_id == game.red_id
            assert (match.guild_id, match.channel_id, match.turn_seconds) == (
                h.guild,
                h.channel,
                HOUR,
            )
        await h.concede(league_id, 1, "pa", "pd")
        await h.draw(league_id, 1, "pc", "pf")
        await forfeit_by_no_shows(h, league_id, 1, "pb")
        outcomes = [(g.red_id, g.outcome, g.detail) for g in await h.games(league_id, 1)]
        assert outcomes == [
            ("pa", Outcome.RED_WIN.value, "concession"),
            ("pe", Outcome.RED_FORFEIT.value, "red reached the no-show limit"),
            ("pc", Outcome.DRAW.value, "agreed"),
        ]
        assert (await h.leagues.get_league(league_id)).current_round == 1

        await h.leagues.withdraw(league_id, "pd", by="pd")

        # Round 2 opens a week after the start, not before.
        report = await h.advance(7 * DAY - 4 * HOUR)
        assert report.opened == []
        report = await h.advance(4 * HOUR)
        assert report.opened == [(league_id, 2)]
        games = await h.games(league_id, 2)
        assert [(g.red_id, g.blue_id) for g in games] == [("pf", "pa"), ("pb", "pc")]
        season = await h.leagues.season(league_id)
        assert [(b.round_no, b.player_id) for b in season.byes] == [(2, "pe")]
        explanation = await h.leagues.pairings(league_id, 2)
        assert "Bye: E" in explanation and "D withdrew and is not paired" in explanation
        await h.concede(league_id, 2, "pa", "pf")
        await h.concede(league_id, 2, "pc", "pb")
        report = await h.leagues.step()
        assert report.completed == [(league_id, 2)] and report.opened == []

        await h.advance(7 * DAY)
        games = await h.games(league_id, 3)
        assert sorted(tuple(sorted((g.red_id, g.blue_id))) for g in games) == [
            ("pa", "pb"),
            ("pc", "pe"),
        ]
        await h.draw(league_id, 3, "pa", "pb")
        await h.concede(league_id, 3, "pc", "pe")
        report = await h.leagues.step()
        assert report.ended == [league_id]

        table = await h.leagues.standings(league_id)
        rows = [
            (
                r.player_id,
                r.points,
                r.sonneborn_berger,
                r.head_to_head,
                r.wins,
                r.draws,
                r.losses,
                r.forfeit_wins,
                r.forfeit_losses,
                r.byes,
                r.withdrawn,
                r.ahead_by,
            )
            for r in table.standings.rows
        ]
        assert rows == [
            ("pc", 2.5, 3.25, None, 2, 1, 0, 0, 0, 0, False, "Sonneborn-Berger"),
            ("pa", 2.5, 2.25, None, 2, 1, 0, 0, 0, 0, False, "points"),
            ("pb", 1.5, 1.25, 0.0, 0, 1, 1, 1, 0, 0, False, "seed"),
            ("pf", 1.5, 1.25, 0.0, 0, 1, 1, 0, 0, 1, False, "points"),
            ("pe", 1.0, 0.0, None, 0, 0, 1, 0, 1, 1, False, "points"),
            ("pd", 0.0, 0.0, None, 0, 0, 1, 0, 0, 0, True, None),
        ]

        # Ratings: only the six games played over the board are rated (not B-E).
        board = {r.player_id: r for r in await h.leagues.leaderboard(h.guild)}
        assert {p: r.games for p, r in board.items()} == {
            "pa": 3,
            "pb": 2,
            "pc": 3,
            "pd": 1,
            "pe": 1,
            "pf": 2,
        }
        assert (board["pb"].wins, board["pb"].draws, board["pb"].losses) == (0, 1, 1)

        summary = await h.leagues.summary(league_id)
        assert summary.champion is not None and summary.champion.player_id == "pc"
        assert summary.most_reliable is not None
        assert summary.most_reliable.player_id == "pb"
        assert summary.most_reliable.reliability.turns_with_orders == 3
        assert (await h.leagues.get_league(league_id)).status == "ended"

        ended = await h.outbox("league_ended")
        (ended_text,) = await h.texts("league_ended")
        assert len(ended) == 1 and "Champion: C with 2.5 points" in ended_text
        standings_posts = await h.outbox("league_standings")
        assert [p.payload["round_no"] for p in standings_posts] == [1, 2, 3]
        opened = await h.outbox("league_round_opened")
        assert [p.payload["round_no"] for p in opened] == [1, 2, 3]
