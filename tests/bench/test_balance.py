"""The balance harness (bench/balance.py): a two-game smoke run whose figures must add up, the
saved turns replaying to the same positions, and the schedule and helpers it relies on."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import statistics
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ai import LEVELS
from bench.balance import (
    PAIR_GAMES,
    STRONGEST,
    GameResult,
    Job,
    Progress,
    Tally,
    main,
    mana_total,
    percentile,
    play_one,
    print_report,
    replay_saved,
    schedule,
    summarize,
    wilson,
)
from engine.content import Content, load_content
from engine.orders import Orders
from engine.report import Event, TurnReport
from engine.setup import default_deck
from engine.state import GameState, Mana, Side
from engine.turn import resolve_turn
from tests.ai.positions import standoff

REQUIRED_KEYS = {
    "games",
    "median_turns",
    "share_decided_before_15",
    "median_casts_per_side",
    "peak_active_median",
    "peak_active_p90",
    "share_peak_50",
    "share_peak_100",
    "house_win_share",
    "red_win_share",
    "cast_share",
    "caster_win_share",
}
MAX_TURNS = 14


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str, Path]:
    """Two games at the default (strongest) level with a tiny budget, turns saved."""
    turns_dir = tmp_path_factory.mktemp("turns")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(
            [
                "--games",
                "2",
                "--seed",
                "7",
                "--budget",
                "4",
                "--max-turns",
                str(MAX_TURNS),
                "--workers",
                "1",
                "--json",
                "--save-turns",
                str(turns_dir),
            ]
        )
    return json.loads(out.getvalue()), err.getvalue(), turns_dir


def test_smoke_run_prints_every_documented_key(smoke: tuple[dict[str, Any], str, Path]) -> None:
    summary, progress, _ = smoke
    assert set(summary) >= REQUIRED_KEYS
    assert summary["games"] == 2
    assert summary["run"]["level"] == STRONGEST == LEVELS[-1]
    assert summary["illegal_orders"] == 0
    # The progress bar went to stderr only; stdout parsed as one JSON object.
    assert "2/2 games" in progress


def test_smoke_run_figures_add_up(smoke: tuple[dict[str, Any], str, Path]) -> None:
    summary, _, _ = smoke
    games = summary["games"]
    assert summary["red_wins"] + summary["blue_wins"] + summary["undecided"] == games
    assert sum(summary["endings"].values()) == games
    assert summary["endings"]["sanctum"] == summary["red_wins"] + summary["blue_wins"]
    assert summary["red_win_share"] == pytest.approx(
        (summary["red_wins"] + summary["undecided"] / 2) / games
    )
    # Each game gives two houses one point between them.
    assert sum(summary["house_games"].values()) == 2 * games
    points = sum(
        share * summary["house_games"][h] for h, share in summary["house_win_share"].items()
    )
    assert points == pytest.approx(games)
    for house, share in summary["house_win_share"].items():
        low, high = summary["house_win_interval"][house]
        assert low <= share <= high
        row = summary["house_matrix"][house]
        assert sum(cell["n"] for cell in row.values()) == summary["house_games"][house]
    assert 1 <= summary["median_turns"] <= MAX_TURNS
    assert summary["p10_turns"] <= summary["median_turns"] <= summary["p90_turns"]
    assert 0 <= summary["share_decided_before_15"] <= 1
    assert summary["peak_active_median"] <= summary["peak_active_p90"]
    assert summary["share_peak_100"] <= summary["share_peak_50"] <= 1


def test_smoke_run_spell_figures_agree(
    smoke: tuple[dict[str, Any], str, Path], content: Content
) -> None:
    summary, _, turns_dir = smoke
    spells = summary["deck_spells"]
    assert set(spells) == {s.id for s in content.spells.values() if s.deckable}
    # Each side of each game holds its house's starter deck.
    headers = [
        json.loads(path.read_text(encoding="utf-8").splitlines()[0])["game"]
        for path in sorted(turns_dir.glob("game-*.jsonl"))
    ]
    held = sum(len(set(default_deck(h[s], content))) for h in headers for s in ("red", "blue"))
    assert sum(row["in_deck"] for row in spells.values()) == held
    for spell_id, share in summary["cast_share"].items():
        row = spells[spell_id]
        assert share == pytest.approx(row["cast_in"] / row["in_deck"])
        assert row["cast_in"] <= row["in_deck"] <= 4
    for spell_id, caster in summary["caster_win_share"].items():
        assert spells[spell_id]["casts"] >= caster["n"] >= 1
        assert 0 <= caster["share"] <= 1
    deck_casts = sum(row["casts"] for row in spells.values())
    assert deck_casts <= sum(summary["casts_by_type"].values())
    never = set(summary["never_cast"])
    assert never == {s for s, row in spells.items() if row["in_deck"] and not row["casts"]}
    assert set(summary["never_in_deck"]) == {s for s, row in spells.items() if not row["in_deck"]}


def test_saved_turns_replay_to_the_next_position(
    smoke: tuple[dict[str, Any], str, Path], content: Content
) -> None:
    summary, _, turns_dir = smoke
    files = sorted(turns_dir.glob("game-*.jsonl"))
    assert [f.name for f in files] == ["game-0000.jsonl", "game-0001.jsonl"]
    lengths, peaks = [], []
    by_type: Counter[str] = Counter()
    for path in files:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        header, turns, footer = lines[0]["game"], lines[1:-1], lines[-1]
        assert header["level"] == STRONGEST and header["budget"] == 4
        assert footer["turns"] == len(turns)
        lengths.append(len(turns))
        for before, after in itertools.pairwise([*turns, None]):
            state = GameState.from_dict(before["state"])
            orders = {side: Orders.from_dict(before["orders"][str(side)]) for side in Side}
            resolved, _ = resolve_turn(state, orders, content=content)
            if after is not None:
                assert resolved.to_dict() == after["state"]
            else:
                result = resolved.result
                assert footer["result"] == (None if result is None else result.to_dict())
                for player in resolved.players:
                    by_type.update(content.spells[s].type for s in player.cast_log)
        states = [GameState.from_dict(t["state"]) for t in turns] + [resolved]
        peaks.append(max(sum(not a.helper for a in st.active_spells) for st in states))
    assert summary["median_turns"] == sum(lengths) / 2
    assert summary["peak_active_median"] == sum(peaks) / 2
    # cast_log holds every successful cast a player chose (S12): the harness counted the same.
    assert summary["casts_by_type"] == dict(by_type)


def test_the_house_profile_is_each_sides_board_and_pool_at_turn_ten(
    smoke: tuple[dict[str, Any], str, Path],
) -> None:
    """Read from the saved positions: at the start of turn 10 each side's structures, its
    minions' hit points and its pool; the smoke games stop before turn 20."""
    summary, _, turns_dir = smoke
    seen: dict[str, list[tuple[int, int, int]]] = {}
    for path in sorted(turns_dir.glob("game-*.jsonl")):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        header = lines[0]["game"]
        tenth = next((ln["state"] for ln in lines[1:-1] if ln["state"]["turn"] == 10), None)
        if tenth is None:
            continue  # a game over before turn 10 has no profile
        for player in tenth["players"]:
            side = player["side"]
            seen.setdefault(header[side], []).append(
                (
                    sum(s["owner"] == side for s in tenth["structures"]),
                    sum(
                        m["hp"]
                        for g in tenth["groups"]
                        if g["controller"] == side
                        for m in g["minions"]
                    ),
                    sum(player["pool"].values()),
                )
            )
    profile = summary["house_profile"]
    assert seen, "the smoke games reach turn 10"
    for house, rows in seen.items():
        assert profile[house]["10"] == {
            "games": len(rows),
            "structures": statistics.median(r[0] for r in rows),
            "hit_points": statistics.median(r[1] for r in rows),
            "pool": statistics.median(r[2] for r in rows),
        }
        assert (
            profile[house]["20"]
            == profile[house]["30"]
            == {"games": 0, "structures": None, "hit_points": None, "pool": None}
        )


def test_a_game_is_the_same_whenever_it_is_played() -> None:
    job = Job(0, 12345, "war", "hope", "badlands", "greedy", 8, 6)
    first, second = play_one(job), play_one(job)
    first.seconds = second.seconds = first.cpu_seconds = second.cpu_seconds = 0.0
    assert first == second
    assert first.turns == 6 or first.winner is not None
    assert first.decks["red"] != first.decks["blue"]


def test_schedule_plays_every_pair_both_ways_each_round(content: Content) -> None:
    houses = sorted(content.houses)
    pairs = len(houses) * (len(houses) - 1)
    jobs = schedule(2 * pairs, 3, content, level="greedy", budget=None, max_turns=60)
    assert [j.index for j in jobs] == list(range(2 * pairs))
    for start in (0, pairs):
        block = jobs[start : start + pairs]
        assert {(j.red, j.blue) for j in block} == {
            (a, b) for a in houses for b in houses if a != b
        }
        realms = Counter(j.realm for j in block)
        assert max(realms.values()) - min(realms.values()) <= 1
        assert "random" not in realms
    assert len({j.seed for j in jobs}) == len(jobs)
    again = schedule(2 * pairs, 3, content, level="greedy", budget=None, max_turns=60)
    assert again == jobs
    assert schedule(10, 4, content, level="greedy", budget=None, max_turns=60) != jobs[:10]


def test_a_schedule_for_one_house_plays_it_against_every_other_both_ways(
    content: Content,
) -> None:
    others = sorted(h for h in content.houses if h != "justice")
    jobs = schedule(
        2 * len(others), 3, content, level="greedy", budget=None, max_turns=60, house="justice"
    )
    assert {(j.red, j.blue) for j in jobs} == {("justice", h) for h in others} | {
        (h, "justice") for h in others
    }


def test_a_schedule_for_one_pair_plays_it_both_ways_each_round(content: Content) -> None:
    jobs = schedule(
        6, 3, content, level="greedy", budget=None, max_turns=60, house="hope", against="life"
    )
    assert [(j.red, j.blue) for j in jobs].count(("hope", "life")) == 3
    assert [(j.red, j.blue) for j in jobs].count(("life", "hope")) == 3
    for start in (0, 2, 4):
        assert {(j.red, j.blue) for j in jobs[start : start + 2]} == {
            ("hope", "life"),
            ("life", "hope"),
        }
    assert len({j.realm for j in jobs}) > 1


def test_every_pair_plays_the_games_of_its_own_pair_run(content: Content) -> None:
    """--pairs plays, for each pair of houses, the very games --house A --against B plays (the
    same whichever house is named first), each pair saved in its own folder: a pair measured
    on its own counts in the run of every pair, and the other way round."""
    houses = sorted(content.houses)
    options: dict[str, Any] = {"level": "greedy", "budget": None, "max_turns": 60}
    jobs = schedule(4, 3, content, save_dir="runs", each_pair=True, **options)
    assert len(jobs) == 4 * len(houses) * (len(houses) - 1) // 2
    for first, second in itertools.combinations(houses, 2):
        mine = [j for j in jobs if {j.red, j.blue} == {first, second}]
        folder = str(Path("runs") / f"{first}-{second}")
        assert mine == schedule(
            4, 3, content, house=first, against=second, save_dir=folder, **options
        )
        assert [(j.red, j.blue, j.seed, j.realm) for j in mine] == [
            (j.red, j.blue, j.seed, j.realm)
            for j in schedule(4, 3, content, house=second, against=first, **options)
        ]


def test_game_i_of_every_pair_run_on_a_seed_is_one_map(
    smoke: tuple[dict[str, Any], str, Path], content: Content
) -> None:
    """A game's map is its seed and realm (G2). Pair runs on one seed play their game i on the
    same map, so a house's games over its pairs are few maps many times over; the report counts
    the maps of the run and of each house, and a run of the whole schedule gives every game its
    own."""
    _, _, turns_dir = smoke
    options: dict[str, Any] = {"level": "greedy", "budget": None, "max_turns": 60}
    pairs = [
        schedule(4, 0, content, house="war", against=rival, **options)
        for rival in ("body", "nature")
    ]
    assert [(j.seed, j.realm) for j in pairs[0]] == [(j.seed, j.realm) for j in pairs[1]]
    full = schedule(24, 0, content, **options)
    assert len({(j.seed, j.realm) for j in full}) == 24
    game = replay_saved(turns_dir / "game-0000.jsonl", content)
    assert game is not None
    results = [
        replace(game, index=k, red=job.red, blue=job.blue, seed=job.seed, realm=job.realm)
        for k, job in enumerate(pairs[0] + pairs[1])
    ]
    summary = summarize(results, content)
    assert summary["maps"] == 4
    assert summary["house_games"]["war"] == 8 and summary["house_maps"]["war"] == 4
    assert summary["house_maps"]["body"] == summary["house_maps"]["nature"] == 4


# The first line of a text report, for a summary made without a run.
_RUN = {"level": "greedy", "budget": None, "seed": 0, "max_turns": 60, "seconds": 0, "workers": 1}


def _pair_results(content: Content, turns_dir: Path, wins: int, games: int) -> list[GameResult]:
    """``games`` copies of the smoke run's first game between hope (red) and life (blue), hope
    winning the first ``wins`` of them and life the rest."""
    game = replay_saved(turns_dir / "game-0000.jsonl", content)
    assert game is not None
    return [
        replace(game, index=k, red="hope", blue="life", winner="red" if k < wins else "blue")
        for k in range(games)
    ]


def test_a_pair_beyond_30_70_on_30_games_is_out(
    smoke: tuple[dict[str, Any], str, Path], content: Content
) -> None:
    """The pair target (docs/balance.md): a pair is out when its first house's share over at
    least 30 games lies beyond 30-70%; on fewer games it is not yet measured."""
    _, _, turns_dir = smoke
    assert PAIR_GAMES == 30
    inside = summarize(_pair_results(content, turns_dir, 21, 30), content)
    assert inside["pair_share"]["hope-life"]["share"] == pytest.approx(0.7)
    assert inside["pairs_measured"] == 1 and inside["pairs_out"] == []
    out = summarize(_pair_results(content, turns_dir, 22, 30), content)
    cell = out["pair_share"]["hope-life"]
    assert out["pairs_out"] == ["hope-life"]
    assert cell["n"] == 30 and cell["interval"] == pytest.approx(list(wilson(22 / 30, 30)))
    few = summarize(_pair_results(content, turns_dir, 29, 29), content)
    assert few["pairs_measured"] == 0 and few["pairs_out"] == []
    text = io.StringIO()
    print_report(out | {"run": _RUN}, text)
    assert "pairs on 30+ games: 1 of 1, 1 beyond 30%-70%" in text.getvalue()
    assert "hope-life" in text.getvalue() and "73%  56%-86%  n 30" in text.getvalue()


def test_a_run_of_every_pair_saves_each_pair_in_its_folder(
    smoke: tuple[dict[str, Any], str, Path],
    content: Content,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import bench.balance

    _, _, turns_dir = smoke
    template = _pair_results(content, turns_dir, 1, 1)[0]
    folders: set[str] = set()

    def quick(job: Job) -> GameResult:
        assert job.save_dir is not None and Path(job.save_dir).is_dir()
        folders.add(Path(job.save_dir).name)
        return replace(template, index=job.index, red=job.red, blue=job.blue)

    monkeypatch.setattr(bench.balance, "play_one", quick)
    out = io.StringIO()
    args = ["--pairs", "--games", "2", "--workers", "1", "--json", "--no-progress"]
    with contextlib.redirect_stdout(out):
        main([*args, "--save-turns", str(tmp_path)])
    summary = json.loads(out.getvalue())
    houses = sorted(content.houses)
    pairs = {f"{a}-{b}" for a, b in itertools.combinations(houses, 2)}
    assert folders == pairs == set(summary["pair_share"])
    assert summary["games"] == 2 * len(pairs) and summary["run"]["pairs"] is True
    assert all(cell["n"] == 2 for cell in summary["pair_share"].values())


def test_a_report_on_saved_turns_reads_the_pair_folders(
    smoke: tuple[dict[str, Any], str, Path], tmp_path: Path
) -> None:
    """--from-turns on the folder of a --pairs run reports on every pair's saved games."""
    summary, _, turns_dir = smoke
    for k, path in enumerate(sorted(turns_dir.glob("game-*.jsonl"))):
        folder = tmp_path / f"pair-{k}"
        folder.mkdir()
        (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    timing = {"run", "seconds_per_game", "cpu_seconds_per_game"}
    again = _from_turns(tmp_path)
    assert again["games"] == 2
    assert {k: v for k, v in again.items() if k not in timing} == {
        k: v for k, v in summary.items() if k not in timing
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--against", "life"], "--against needs --house"),
        (["--house", "hope", "--against", "hope"], "--against must name another house"),
        (["--house", "hope", "--against", "hopes"], "unknown house 'hopes' for --against"),
        (
            ["--house", "hope", "--against", "life", "--from-turns", "x"],
            "--house chooses games to play; --from-turns plays none",
        ),
        (["--house", "hope", "--from-turns", "x"], "--house chooses games to play"),
        (["--pairs", "--house", "hope"], "--pairs plays every pair"),
        (["--pairs", "--from-turns", "x"], "--pairs plays every pair"),
    ],
)
def test_a_pair_run_refuses_what_is_not_a_pair(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(argv)
    assert message in capsys.readouterr().err


def test_mana_total_reads_the_mana_events_text() -> None:
    assert mana_total(str(Mana())) == 0
    assert mana_total(str(Mana(order=3, will=12))) == 15


def test_percentile_and_wilson() -> None:
    assert percentile([5, 1, 3], 0.5) == 3
    assert percentile([0, 10], 0.9) == pytest.approx(9)
    assert percentile([4], 0.1) == 4
    low, high = wilson(0.5, 100)
    assert low == pytest.approx(0.404, abs=1e-3) and high == pytest.approx(0.596, abs=1e-3)
    assert wilson(1.0, 10)[1] == 1.0


def test_progress_prints_plain_lines_when_not_on_a_terminal() -> None:
    stream = io.StringIO()
    bar = Progress(20, enabled=True, stream=stream)
    for _ in range(20):
        bar.advance()
    bar.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[-1].startswith("[" + "#" * Progress.WIDTH + "] 20/20 games")


def test_the_text_report_shows_the_same_figures(smoke: tuple[dict[str, Any], str, Path]) -> None:
    summary, _, _ = smoke
    out = io.StringIO()
    print_report(summary, out)
    text = out.getvalue()
    assert (
        f"{summary['games']} games on {summary['maps']} maps, level {STRONGEST}, budget 4, seed 7"
        in text
    )
    assert f"game length: median {summary['median_turns']}" in text
    assert f"red won {summary['red_wins']}, blue {summary['blue_wins']}" in text
    for house in summary["house_win_share"]:
        games, maps = summary["house_games"][house], summary["house_maps"][house]
        assert f"\n{house:<13} {games:>5}  {maps:>5}" in text
    for spell_id in summary["deck_spells"]:
        assert f"\n{spell_id:<24}" in text
    for house, causes in summary["losses_per_game"].items():
        assert f"\n{house:<13} {sum(causes.values()):>5.1f}" in text
    for house, by_turn in summary["house_profile"].items():
        if by_turn["10"]["games"]:
            assert f"\n{house:<13} {by_turn['10']['structures']:g} / - / - " in text


def test_every_death_of_a_side_is_counted_once_under_one_cause(
    smoke: tuple[dict[str, Any], str, Path], content: Content
) -> None:
    summary, _, turns_dir = smoke
    deaths = 0
    for path in sorted(turns_dir.glob("game-*.jsonl")):
        lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
        for line in lines[1:-1]:
            state = GameState.from_dict(line["state"])
            orders = {side: Orders.from_dict(line["orders"][str(side)]) for side in Side}
            _, report = resolve_turn(state, orders, content=content)
            died = [e for e in report.events if e.kind == "died"]
            deaths += sum(e.get("side") in ("red", "blue") for e in died)
    losses = summary["losses_per_game"]
    assert set(losses) == set(summary["house_games"])
    counted = sum(sum(causes.values()) * summary["house_games"][h] for h, causes in losses.items())
    assert counted == pytest.approx(deaths)


def test_a_death_is_put_down_to_what_killed_it(content: Content) -> None:
    def event(kind: str, **fields: object) -> Event:
        return Event.make(kind, **fields)

    def died(minion: int, side: str = "red", cause: str = "died") -> Event:
        return event("died", minion=minion, side=side, cause=cause, by=None, group=1, at="A1")

    tally = Tally(content)
    events = (
        died(1),  # before any spell executes: the spell phase's own bookkeeping
        event("spell_executed", spell="blood_pact", side="blue", card=3, target="group:1"),
        died(2),
        died(3, side="neutral"),  # nobody's loss
        event("damaged", minion=4, group=1, amount=2, source="fire_storm"),
        event("spell_executed", spell="ruin", side="blue", card=4, target="structure:9"),
        died(4),  # the fire storm's damage, though another spell executes now
        event("moved", group=1, side="red", to="A2", at="A1"),
        event("terrain_fatal", minion=5, group=1, at="A2", terrain="water", fate="dies"),
        died(5),
        died(6),  # on the move, with no damage taken
        event("combat", at="A2", groups=[1, 2]),
        died(7, cause="killed"),
        event("turn_started", turn=2),
        event("damaged", minion=8, group=1, amount=21, source="sanctum"),
        died(8),
        event("damaged", minion=9, group=1, amount=1, source="desert"),
        died(9, side="blue"),
    )
    tally.after(standoff(content, [], blue_towns=1), TurnReport(1, events, Side.RED, Side.RED))
    assert tally.losses["red"] == {
        "spells": 1,
        "blood_pact": 1,
        "fire_storm": 1,
        "terrain": 1,
        "movement": 1,
        "combat": 1,
        "sanctum guard": 1,
    }
    assert tally.losses["blue"] == {"terrain": 1}


def test_saved_turns_give_the_same_report_again(smoke: tuple[dict[str, Any], str, Path]) -> None:
    summary, _, turns_dir = smoke
    (turns_dir / "game-0002.jsonl").write_text(
        '{"game":{"index":2}}\n', encoding="utf-8"
    )  # a game still being played when the run stopped: left out
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["--from-turns", str(turns_dir), "--workers", "1", "--json", "--no-progress"])
    (turns_dir / "game-0002.jsonl").unlink()
    again = json.loads(out.getvalue())
    timing = {"run", "seconds_per_game", "cpu_seconds_per_game"}
    assert {k: v for k, v in again.items() if k not in timing} == {
        k: v for k, v in summary.items() if k not in timing
    }
    assert again["run"]["level"] == STRONGEST and again["run"]["budget"] == 4


def _from_turns(turns_dir: Path, *extra: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["--from-turns", str(turns_dir), "--workers", "1", "--json", "--no-progress", *extra])
    summary: dict[str, Any] = json.loads(out.getvalue())
    return summary


def test_saved_games_play_on_from_a_turn(smoke: tuple[dict[str, Any], str, Path]) -> None:
    """--play-on TURN replays each saved game to TURN and plays the games still in play on from
    there, reproducibly, to the saved cap; a TURN past the cap leaves the saved games as they
    were."""
    summary, _, turns_dir = smoke
    timing = {"run", "seconds_per_game", "cpu_seconds_per_game"}
    past_cap = _from_turns(turns_dir, "--play-on", str(MAX_TURNS + 5))
    assert {k: v for k, v in past_cap.items() if k not in timing} == {
        k: v for k, v in summary.items() if k not in timing
    }
    played_on = _from_turns(turns_dir, "--play-on", str(MAX_TURNS - 1))
    assert played_on["run"]["play_on"] == MAX_TURNS - 1
    assert played_on["games"] == summary["games"]
    assert sum(played_on["endings"].values()) == summary["games"]
    assert played_on["illegal_orders"] == 0
    again = _from_turns(turns_dir, "--play-on", str(MAX_TURNS - 1))
    assert {k: v for k, v in again.items() if k not in timing} == {
        k: v for k, v in played_on.items() if k not in timing
    }


def test_play_on_needs_saved_turns() -> None:
    with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
        main(["--play-on", "30"])


def test_playing_on_asks_the_players_for_every_turn_left(
    smoke: tuple[dict[str, Any], str, Path], content: Content, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ai

    _, _, turns_dir = smoke
    asked: list[int] = []
    choose = ai.choose_orders

    def counting(view: Any, *args: Any, **kwargs: Any) -> Orders:
        asked.append(view.turn)
        return choose(view, *args, **kwargs)

    monkeypatch.setattr(ai, "choose_orders", counting)
    path = sorted(turns_dir.glob("game-*.jsonl"))[0]
    result = replay_saved(path, content, play_on=MAX_TURNS - 1)
    assert result is not None
    if result.reason == "turn_limit":
        # Turns 13 and 14, both sides; the saved turns before them are replayed, not chosen.
        assert sorted(asked) == [MAX_TURNS - 1] * 2 + [MAX_TURNS] * 2
    else:
        assert asked and min(asked) == MAX_TURNS - 1


def _resume(turns_dir: Path, games: int) -> dict[str, Any]:
    out = io.StringIO()
    args = ["--games", str(games), "--seed", "7", "--budget", "4", "--max-turns", str(MAX_TURNS)]
    args += ["--workers", "1", "--json", "--no-progress", "--save-turns", str(turns_dir)]
    with contextlib.redirect_stdout(out):
        main([*args, "--resume"])
    summary: dict[str, Any] = json.loads(out.getvalue())
    return summary


def test_resume_plays_only_the_games_not_yet_finished(
    smoke: tuple[dict[str, Any], str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stopped run goes on where it stopped: the finished games of the same run are read back
    from their saved turns, an unfinished one is played again from its start, and the report
    is the report of every saved game."""
    import bench.balance

    _, _, turns_dir = smoke
    for path in turns_dir.glob("game-*.jsonl"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    header = (tmp_path / "game-0000.jsonl").read_text(encoding="utf-8").splitlines()[0]
    unfinished = json.loads(header)
    unfinished["game"]["index"] = 2
    (tmp_path / "game-0002.jsonl").write_text(json.dumps(unfinished) + "\n", encoding="utf-8")
    played: list[int] = []

    def counting(job: Job) -> Any:
        played.append(job.index)
        return play_one(job)

    monkeypatch.setattr(bench.balance, "play_one", counting)
    resumed = _resume(tmp_path, 3)
    assert played == [2]
    assert resumed["games"] == 3 and resumed["run"]["resumed"] == 2
    timing = {"run", "seconds_per_game", "cpu_seconds_per_game"}
    saved = _from_turns(tmp_path)
    assert {k: v for k, v in resumed.items() if k not in timing} == {
        k: v for k, v in saved.items() if k not in timing
    }
    # Nothing left to play: the whole report comes from the saved turns.
    played.clear()
    assert _resume(tmp_path, 3)["games"] == 3 and played == []


def test_resume_refuses_games_saved_by_another_build(
    smoke: tuple[dict[str, Any], str, Path], tmp_path: Path
) -> None:
    _, _, turns_dir = smoke
    text = (turns_dir / "game-0000.jsonl").read_text(encoding="utf-8")
    lines = text.splitlines()
    first = json.loads(lines[0])
    first["game"]["build"] = "0" * 16
    (tmp_path / "game-0000.jsonl").write_text(
        "\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8"
    )
    err = io.StringIO()
    with pytest.raises(SystemExit), contextlib.redirect_stderr(err):
        _resume(tmp_path, 2)
    assert "game-0000.jsonl was saved by another run (build: '0000000000000000'" in err.getvalue()


def test_resume_needs_save_turns() -> None:
    with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
        main(["--resume"])


def test_a_replay_ends_where_a_side_concedes(tmp_path: Path, content: Content) -> None:
    """Resolving saved turns again applies the computer's concession (ai.concession) as a game
    played does, so games saved before the rule give today's result."""
    lost = standoff(content, [], blue_towns=2)
    header = {"index": 0, "seed": 1, "red": "war", "blue": "war", "realm": "veldt"}
    header |= {"level": STRONGEST, "budget": None, "max_turns": 60}
    lines = [
        {"game": header},
        {"turn": lost.turn, "state": lost.to_dict(), "orders": {"red": {}, "blue": {}}},
        {"result": None, "turns": lost.turn},
    ]
    path = tmp_path / "game-0000.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = replay_saved(path, content)
    assert result is not None
    assert (result.winner, result.reason, result.turns) == ("blue", "concession", lost.turn)
