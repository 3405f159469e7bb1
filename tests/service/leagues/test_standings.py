"""Standings and tie-breaks, each checked against a table worked out by hand."""

from __future__ import annotations

import pytest

from service.leagues.pairing import Pairing, pair_swiss_round
from service.leagues.records import Bye, Entrant, Game, LeagueError, Outcome, ScoringConfig
from service.leagues.standings import Standings, compute_standings

W, L, D = Outcome.RED_WIN, Outcome.BLUE_WIN, Outcome.DRAW


def table(standings: Standings) -> list[tuple[str, float, float, float | None, str | None]]:
    return [
        (r.player_id, r.points, r.sonneborn_berger, r.head_to_head, r.ahead_by)
        for r in standings.rows
    ]


def seeded(order: str) -> list[Entrant]:
    return [Entrant(p, p.upper(), i + 1) for i, p in enumerate(order)]


def test_points_win_draw_loss_and_bye() -> None:
    entrants = seeded("abc")
    games = [Game(1, "a", "b", W), Game(2, "b", "c", D)]
    byes = [Bye(1, "c"), Bye(2, "a")]
    rows = compute_standings(entrants, games, byes).rows
    assert [(r.player_id, r.points) for r in rows] == [("a", 2.0), ("c", 1.5), ("b", 0.5)]
    half = compute_standings(entrants, games, byes, ScoringConfig(bye_points=0.5)).rows
    assert [(r.player_id, r.points) for r in half] == [("a", 1.5), ("c", 1.0), ("b", 0.5)]


def test_sonneborn_berger_wins_and_seed_by_hand() -> None:
    # Games: X beat P, Q beat X, Y drew R, Y drew S, P drew W.
    # Points: Q 1, X 1, Y 1, P 1/2, R 1/2, S 1/2, W 1/2.
    # SB: Q = X's 1 = 1; X = P's 1/2 = 1/2; Y = 1/2 x R's 1/2 + 1/2 x S's 1/2 = 1/2;
    #     R = 1/2 x Y's 1 = 1/2; S = 1/2; P = 1/2 x W's 1/2 = 1/4; W = 1/4.
    # Q tops the 1-point group on SB. X and Y tie on points and SB, never met (h2h 0 each):
    # X has a win, Y none, so X is above Y although Y is the better seed.
    # R and S tie all the way to seed (S 4, R 5). W and P drew each other (h2h 1/2 each): seed.
    entrants = [
        Entrant("y", "Y", 1),
        Entrant("x", "X", 2),
        Entrant("q", "Q", 3),
        Entrant("s", "S", 4),
        Entrant("r", "R", 5),
        Entrant("w", "W", 6),
        Entrant("p", "P", 7),
    ]
    games = [
        Game(1, "x", "p", W),
        Game(1, "y", "r", D),
        Game(2, "q", "x", W),
        Game(2, "s", "y", D),
        Game(2, "p", "w", D),
    ]
    assert table(compute_standings(entrants, games)) == [
        ("q", 1.0, 1.0, None, "Sonneborn-Berger"),
        ("x", 1.0, 0.5, 0.0, "wins"),
        ("y", 1.0, 0.5, 0.0, "points"),
        ("s", 0.5, 0.5, 0.0, "seed"),
        ("r", 0.5, 0.5, 0.0, "Sonneborn-Berger"),
        ("w", 0.5, 0.25, 0.5, "seed"),
        ("p", 0.5, 0.25, 0.5, None),
    ]


def test_head_to_head_by_hand() -> None:
    # A beat B, C beat A, B beat D, D beat E. Points: A, B, C, D 1; E 0.
    # SB: A = B's 1; B = D's 1; C = A's 1; D = E's 0. A, B, C tie on (1, 1).
    # Among them: A beat B, lost to C -> 1; C beat A -> 1; B lost to A -> 0.
    # So B (the top seed) is third of the three; A and C go to seed (C 2 before A 3).
    entrants = [
        Entrant("b", "B", 1),
        Entrant("c", "C", 2),
        Entrant("a", "A", 3),
        Entrant("d", "D", 4),
        Entrant("e", "E", 5),
    ]
    games = [
        Game(1, "a", "b", W),
        Game(1, "d", "e", W),
        Game(2, "c", "a", W),
        Game(2, "b", "d", W),
    ]
    assert table(compute_standings(entrants, games)) == [
        ("c", 1.0, 1.0, 1.0, "seed"),
        ("a", 1.0, 1.0, 1.0, "head-to-head"),
        ("b", 1.0, 1.0, 0.0, "Sonneborn-Berger"),
        ("d", 1.0, 0.0, None, "points"),
        ("e", 0.0, 0.0, None, None),
    ]


def test_a_cycle_falls_through_every_criterion_to_seed() -> None:
    # A beat B, B beat C, C beat A: 1 point, SB 1, head-to-head 1 and 1 win each -> seed.
    entrants = seeded("abc")
    games = [Game(1, "a", "b", W), Game(2, "b", "c", W), Game(3, "c", "a", W)]
    assert table(compute_standings(entrants, games)) == [
        ("a", 1.0, 1.0, 1.0, "seed"),
        ("b", 1.0, 1.0, 1.0, "seed"),
        ("c", 1.0, 1.0, 1.0, None),
    ]


def test_forfeits_count_as_results_flagged_and_add_no_sonneborn_berger() -> None:
    entrants = seeded("abcd")
    games = [
        Game(1, "a", "b", Outcome.BLUE_FORFEIT),
        Game(1, "c", "d", Outcome.DOUBLE_FORFEIT),
        Game(2, "a", "c", W),
    ]
    rows = {r.player_id: r for r in compute_standings(entrants, games).rows}
    assert (rows["a"].points, rows["a"].forfeit_wins, rows["a"].wins) == (2.0, 1, 1)
    assert rows["a"].sonneborn_berger == 0.0  # c scored 0; the forfeit adds nothing
    assert (rows["b"].points, rows["b"].forfeit_losses, rows["b"].played) == (0.0, 1, 0)
    assert (rows["c"].forfeit_losses, rows["d"].forfeit_losses) == (1, 1)
    assert rows["c"].losses == 1


def test_late_joiner_gets_missed_round_points() -> None:
    entrants = [*seeded("ab"), Entrant("z", "Z", 3, joined_round=3)]
    games = [Game(1, "a", "b", W), Game(2, "b", "a", W), Game(3, "z", "a", D)]
    byes = [Bye(3, "b")]
    default = compute_standings(entrants, games, byes).row("z")
    assert default.points == 0.5
    half = compute_standings(entrants, games, byes, ScoringConfig(missed_round_points=0.5))
    assert half.row("z").points == 1.5


def test_bad_input_is_refused() -> None:
    with pytest.raises(LeagueError, match="not an entrant"):
        compute_standings(seeded("ab"), [Game(1, "a", "x", W)])
    with pytest.raises(LeagueError, match="two results"):
        compute_standings(seeded("abc"), [Game(1, "a", "b", W)], [Bye(1, "a")])
    with pytest.raises(LeagueError, match="bye_points"):
        ScoringConfig(bye_points=0.3)


# --------------------------------------------------------------------------- six players

NAMES = ["Ada", "Bram", "Cleo", "Dov", "Eli", "Fay"]
SIX = [Entrant(n.lower(), n, i + 1) for i, n in enumerate(NAMES[:5])] + [
    Entrant("fay", "Fay", 6, withdrawn_from_round=3)
]
SIX_GAMES = [
    Game(1, "ada", "dov", W),
    Game(1, "eli", "bram", D),
    Game(1, "cleo", "fay", Outcome.BLUE_FORFEIT),
    Game(2, "cleo", "ada", L),
    Game(2, "bram", "fay", W),
    Game(2, "dov", "eli", D),
    Game(3, "ada", "bram", L),
    Game(3, "eli", "cleo", L),
    Game(4, "bram", "dov", D),
    Game(4, "eli", "ada", W),
]
SIX_BYES = [Bye(3, "dov"), Bye(4, "cleo")]


def test_six_player_swiss_pairings_by_hand() -> None:
    """Each round as the rules give it, worked out by hand.

    R1 (all 0): top half v bottom half: Ada-Dov, Bram-Eli, Cleo-Fay; board 2 gives the lower
    seed red. Fay forfeits. R2: Ada, Cleo 1; Bram, Eli 1/2 (met); Dov, Fay 0. Cleo-Ada;
    Bram and Eli both float: Bram (due red) meets Fay (no colour history), Eli meets Dov.
    R3: Fay withdrew; five players, so the lowest-ranked without a bye, Dov (1/2), sits out;
    Ada (2) floats to Bram (1 1/2); Cleo-Eli (1). R4: Eli is lowest without a bye but Ada has
    met Bram, Cleo and Dov, so only Eli is left for her: the bye passes to Cleo (2, seed 3
    below Ada, seed 1); then Bram-Dov and Ada-Eli.
    """
    games: list[Game] = []
    byes: list[Bye] = []
    expected = {
        1: ((Pairing(1, "ada", "dov"), Pairing(2, "eli", "bram"), Pairing(3, "cleo", "fay")), ()),
        2: ((Pairing(1, "cleo", "ada"), Pairing(2, "bram", "fay"), Pairing(3, "dov", "eli")), ()),
        3: ((Pairing(1, "ada", "bram"), Pairing(2, "eli", "cleo")), ("dov",)),
        4: ((Pairing(1, "bram", "dov"), Pairing(2, "eli", "ada")), ("cleo",)),
    }
    for round_no in range(1, 5):
        rp = pair_swiss_round(round_no, SIX, games, byes)
        assert (rp.pairings, rp.byes) == expected[round_no]
        games += [g for g in SIX_GAMES if g.round_no == round_no]
        byes += list(rp.bye_records())
    assert byes == SIX_BYES


def test_six_player_standings_by_hand() -> None:
    """Final table after four rounds.

    Points: Bram 1/2+1+1+1/2 = 3; Cleo 1 (forfeit) + 0 + 1 + 1 (bye) = 3; Ada 1+1+0+0 = 2;
    Eli 1/2+1/2+0+1 = 2; Dov 0+1/2+1 (bye)+1/2 = 2; Fay 0 (forfeit) + 0 = 0. Total 12.
    SB (played games only): Bram = 1/2 Eli(2) + Fay(0) + Ada(2) + 1/2 Dov(2) = 4;
    Cleo = Eli(2) = 2; Ada = Dov(2) + Cleo(3) = 5; Eli = 1/2 Bram(3) + 1/2 Dov(2) + Ada(2)
    = 4 1/2; Dov = 1/2 Eli(2) + 1/2 Bram(3) = 2 1/2; Fay = 0.
    """
    standings = compute_standings(SIX, SIX_GAMES, SIX_BYES)
    expected = [
        # id, pts, SB, played, W, D, L, FW, FL, byes, withdrawn, ahead by
        ("bram", 3.0, 4.0, 4, 2, 2, 0, 0, 0, 0, False, "Sonneborn-Berger"),
        ("cleo", 3.0, 2.0, 2, 1, 0, 1, 1, 0, 1, False, "points"),
        ("ada", 2.0, 5.0, 4, 2, 0, 2, 0, 0, 0, False, "Sonneborn-Berger"),
        ("eli", 2.0, 4.5, 4, 1, 2, 1, 0, 0, 0, False, "Sonneborn-Berger"),
        ("dov", 2.0, 2.5, 3, 0, 2, 1, 0, 0, 1, False, "points"),
        ("fay", 0.0, 0.0, 1, 0, 0, 1, 0, 1, 0, True, None),
    ]
    got = [
        (
            r.player_id,
            r.points,
            r.sonneborn_berger,
            r.played,
            r.wins,
            r.draws,
            r.losses,
            r.forfeit_wins,
            r.forfeit_losses,
            r.byes,
            r.withdrawn,
            r.ahead_by,
        )
        for r in standings.rows
    ]
    assert got == expected
    assert [r.rank for r in standings.rows] == [1, 2, 3, 4, 5, 6]
    assert sum(r.points for r in standings.rows) == 12.0
    assert standings.through_round == 4


def test_six_player_table_as_text_and_records() -> None:
    standings = compute_standings(SIX, SIX_GAMES, SIX_BYES)
    lines = standings.to_text().splitlines()
    assert lines[0] == "Standings after round 4"
    assert lines[1] == (
        "  #  Player               Pts     SB  H2H   W   D   L  FW  FL Bye  Ahead by"
    )
    assert (
        lines[3]
        == "  1  Bram                   3      4    -   2   2   0   0   0   0  Sonneborn-Berger"
    )
    assert lines[8] == "  6  Fay (w)                0      0    -   0   0   1   0   1   0"
    records = standings.to_records()
    assert records[1]["name"] == "Cleo"
    assert records[1]["forfeit_wins"] == 1
    assert records[5]["withdrawn"] is True


def test_standings_part_way_through() -> None:
    after_two = compute_standings(SIX, SIX_GAMES, SIX_BYES, through_round=2)
    assert [(r.player_id, r.points) for r in after_two.rows] == [
        ("ada", 2.0),
        ("bram", 1.5),
        ("eli", 1.0),  # SB 1/2 x Bram's 1 1/2 + 1/2 x Dov's 1/2 = 1
        ("cleo", 1.0),  # SB 0: a forfeit win and a loss
        ("dov", 0.5),
        ("fay", 0.0),
    ]
