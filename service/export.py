"""A finished match as one JSON file that replays locally.

The file holds the match settings, the engine configuration (seed, houses, decks), the opening
state and every turn's orders and report. `replay` runs the engine over it again and checks each
state against the recorded one, so an export is also an audit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.state import Side
from service import engine_bridge as eb
from storage import MatchRecord, TurnRecord

EXPORT_FORMAT = "sanctum-host-match"
EXPORT_VERSION = 1


class ReplayMismatchError(ValueError):
    """A replayed turn does not give the recorded state."""


def build_export(match: MatchRecord, turns: list[TurnRecord]) -> dict[str, Any]:
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "match": {
            "id": match.id,
            "ruleset": match.ruleset,
            "realm": match.realm,
            "board": match.board,
            "symmetric": match.symmetric,
            "seed": match.seed,
            "turn_seconds": match.turn_seconds,
            "created_at": match.created_at,
            "started_at": match.started_at,
            "ended_at": match.ended_at,
            "result": match.result,
            "winner": match.winner,
            "end_reason": match.end_reason,
        },
        "players": [
            {"side": seat.side, "player_id": seat.player_id, "house": seat.house}
            for seat in match.seats
        ],
        "config": match.config,
        "initial_state": match.initial_state,
        "turns": [
            {
                "turn": t.turn,
                "orders": t.orders,
                "report": t.report,
                "state": t.state,
                "no_shows": list(t.no_shows),
                "cause": t.cause,
                "resolved_at": t.resolved_at,
            }
            for t in turns
        ],
        "final_state": match.state,
    }


def dumps(doc: Mapping[str, Any]) -> bytes:
    return json.dumps(doc, indent=1, sort_keys=True).encode("utf-8")


def loads(data: bytes | str) -> dict[str, Any]:
    doc = json.loads(data)
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise ValueError("not a Sanctum Host match export")
    if doc.get("version") != EXPORT_VERSION:
        raise ValueError(f"unsupported export version {doc.get('version')!r}")
    return doc


def _ended_by_service(state: dict[str, Any], match: Mapping[str, Any]) -> dict[str, Any] | None:
    """The state after the service ended the match outside the engine's turn (a concession,
    a forfeit for no-shows, an agreed or abandoned draw), or None for any other ending."""
    reason = match.get("end_reason")
    winner = match.get("winner")
    if reason in ("concession", "forfeit") and winner in eb.SIDES:
        loser = eb.SIDES[1] if winner == eb.SIDES[0] else eb.SIDES[0]
        return eb.end_by_concession(state, loser)
    if reason in ("agreed", "abandoned"):
        return eb.end_by_agreement(state)
    return None


def replay(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Re-run every turn from the opening state; returns the final state.

    Raises `ReplayMismatchError` naming the first turn whose result differs from the record."""
    config = doc["config"]
    match = doc["match"]
    _config, state = eb.start_game(
        seed=config["seed"],
        ruleset=config["ruleset"],
        realm=config["realm"],
        board=config["board"],
        symmetric=config["symmetric"],
        houses={Side(s): h for s, h in config["houses"].items()},
        decks={Side(s): d for s, d in config["decks"].items()},
    )
    if state != doc["initial_state"]:
        raise ReplayMismatchError("the opening state differs from the recorded one")
    turns = doc["turns"]
    for index, turn in enumerate(turns):
        new_state, report = eb.resolve(state, turn["orders"])
        if report != turn["report"]:
            raise ReplayMismatchError(
                f"turn {turn['turn']}: the report differs from the recorded one"
            )
        if new_state != turn["state"] and not (
            index == len(turns) - 1 and _ended_by_service(new_state, match) == turn["state"]
        ):
            raise ReplayMismatchError(
                f"turn {turn['turn']}: the state differs from the recorded one"
            )
        state = turn["state"]
    final = doc["final_state"]
    if final != state and _ended_by_service(state, match) != final:
        raise ReplayMismatchError("the final state differs from the recorded one")
    return dict(final)
