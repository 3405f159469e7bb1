"""The `played` fixture set of ``bench.engine``: the turns of real computer-played matches.

``bench/fixtures/played.json.gz`` holds a few of the longest games of a balance-harness run at
level greedy, each as its opening position and both sides' orders turn by turn (what
``python -m bench.balance --save-turns DIR`` saves, less the positions): the engine is
deterministic, so the positions are found again by resolving the orders in sequence, and the
file stays a few kilobytes. Each game keeps its result, and ``tests/bench/test_played.py`` checks
that replaying the orders still ends that way: when a rules change breaks that, refresh the set
(the refresh checks that replaying the orders gives back every saved position):

    .venv/bin/python -m bench.engine --refresh-played [--played-games 12]
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

from bench import balance
from engine.content import Content
from engine.orders import Orders
from engine.state import SIDES, GameState, Side
from engine.turn import resolve_turn

PATH = Path(__file__).resolve().parent / "fixtures" / "played.json.gz"
LEVEL = "greedy"
KEEP = 4  # the longest games of the run are kept
MAX_TURNS = 60

Turn = tuple[GameState, dict[Side, Orders]]


def load(content: Content, path: Path = PATH) -> tuple[dict[str, Any], list[Turn]]:
    """The set's description and every played turn: the position before it and the orders."""
    doc = json.loads(gzip.decompress(path.read_bytes()))
    turns: list[Turn] = []
    for game in doc["games"]:
        state = GameState.from_dict(game["opening"])
        for line in game["orders"]:
            orders = {side: Orders.from_dict(line[str(side)]) for side in SIDES}
            turns.append((state, orders))
            state, _ = resolve_turn(state, orders, content=content)
    return doc["run"], turns


def refresh(content: Content, games: int, workers: int, path: Path = PATH) -> str:
    """Play ``games`` balance games at level greedy and keep the longest :data:`KEEP`."""
    with tempfile.TemporaryDirectory() as tmp:
        jobs = balance.schedule(
            games, 0, content, level=LEVEL, budget=None, max_turns=MAX_TURNS, save_dir=tmp
        )
        balance.run(jobs, workers, progress=False)
        saved = [
            [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
            for file in sorted(Path(tmp).glob("game-*.jsonl"))
        ]
    finished = [lines for lines in saved if len(lines) > 2 and "result" in lines[-1]]
    longest = sorted(finished, key=lambda lines: (-len(lines), lines[0]["game"]["index"]))[:KEEP]
    kept = []
    for lines in longest:
        turns = lines[1:-1]
        state = GameState.from_dict(turns[0]["state"])
        for line in turns:
            if state.to_dict() != line["state"]:
                raise RuntimeError(f"game {lines[0]['game']['index']}: the replay diverged")
            orders = {side: Orders.from_dict(line["orders"][str(side)]) for side in SIDES}
            state, _ = resolve_turn(state, orders, content=content)
        kept.append(
            {
                "game": lines[0]["game"],
                "opening": turns[0]["state"],
                "orders": [line["orders"] for line in turns],
                "result": lines[-1]["result"],
            }
        )
    run = {"level": LEVEL, "games_played": games, "kept": len(kept), "max_turns": MAX_TURNS}
    data = json.dumps({"run": run, "games": kept}, separators=(",", ":"), sort_keys=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data.encode("utf-8"), mtime=0))
    total = sum(len(g["orders"]) for g in kept)
    return f"{path.name}: {len(kept)} games, {total} turns, {path.stat().st_size / 1024:.0f} KB"
