"""A long pairing runs in parts: each game's figures survive a record file unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from bench.ai import game_from_record, game_record, run, summary


def test_recorded_games_give_the_same_figures() -> None:
    games = run("greedy", "random", 2, 5, max_turns=3, workers=1)
    lines = [json.dumps(game_record(g)) for g in games]
    again = [game_from_record(json.loads(line)) for line in lines]
    assert again == games
    assert summary(again) == summary(games)


def test_a_run_records_each_game_in_its_file(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    record.write_text("")
    games = run("greedy", "random", 2, 5, max_turns=3, workers=1, record=record)
    lines = record.read_text().splitlines()
    assert [game_from_record(json.loads(line)) for line in lines] == games
