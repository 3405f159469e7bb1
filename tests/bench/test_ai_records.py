"""A long pairing runs in parts: each game's figures survive a record file unchanged."""

from __future__ import annotations

import json

from bench.ai import game_from_record, game_record, run, summary


def test_recorded_games_give_the_same_figures() -> None:
    games = run("greedy", "random", 2, 5, max_turns=3, workers=1)
    lines = [json.dumps(game_record(g)) for g in games]
    again = [game_from_record(json.loads(line)) for line in lines]
    assert again == games
    assert summary(again) == summary(games)
