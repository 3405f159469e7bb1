"""The played fixture set still replays the games the computer players played."""

from __future__ import annotations

import gzip
import json

from ai.concession import conceded
from bench import _played
from engine.content import Content
from engine.orders import Orders
from engine.state import SIDES, GameState
from engine.turn import resolve_turn


def test_the_saved_orders_still_play_the_saved_games_to_their_end(content: Content) -> None:
    doc = json.loads(gzip.decompress(_played.PATH.read_bytes()))
    assert doc["run"]["level"] == "greedy" and len(doc["games"]) == doc["run"]["kept"] > 0
    for game in doc["games"]:
        state = GameState.from_dict(game["opening"])
        for line in game["orders"]:
            orders = {side: Orders.from_dict(line[str(side)]) for side in SIDES}
            state, _ = resolve_turn(state, orders, content=content)
        # A conceded game ends after its last turn, when the computer side concedes before the
        # next one inside the turn cap (as ai.arena.play_match does): the replayed position must
        # make it concede.
        ended = conceded(state, content, doc["run"]["max_turns"])
        if ended is not None:
            state = ended
        # A game the turn cap stopped keeps no result (null), and must still be running.
        assert (None if state.result is None else state.result.to_dict()) == game["result"]


def test_every_played_turn_is_loaded_with_the_position_before_it(content: Content) -> None:
    run, turns = _played.load(content)
    assert len(turns) == sum(
        len(g["orders"]) for g in json.loads(gzip.decompress(_played.PATH.read_bytes()))["games"]
    )
    assert turns[0][0].turn == 1
    assert run["kept"] == sum(1 for state, _ in turns if state.turn == 1)
