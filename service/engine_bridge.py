"""The engine calls the service makes, on JSON documents.

Working on the stored documents (not engine objects) keeps each call a pure function of plain
data, so a batch of resolutions can run in worker processes with nothing but pickled dicts. Matches
play with the shipped catalogue (``load_content()``, loaded once per process).
"""

from __future__ import annotations

import gc
import json
import traceback
from collections.abc import Mapping, Sequence
from typing import Any

from engine.content import load_content
from engine.orders import Orders, Problem
from engine.report import TurnReport
from engine.setup import MatchConfig, new_game
from engine.state import GameState, Side
from engine.turn import agree_draw, concede, resolve_turn
from engine.validate import validate_orders

JsonDict = dict[str, Any]
SIDES: tuple[str, str] = (str(Side.RED), str(Side.BLUE))


def start_game(
    *,
    seed: int,
    ruleset: str,
    realm: str,
    board: str,
    symmetric: bool,
    houses: Mapping[Side, str],
    decks: Mapping[Side, Sequence[str]],
) -> tuple[JsonDict, JsonDict]:
    """The configuration record and the opening state."""
    config = MatchConfig(
        seed=seed,
        ruleset=ruleset,
        realm=realm,
        board=board,
        symmetric=symmetric,
        houses=dict(houses),
        decks={s: list(d) for s, d in decks.items()},
    )
    state = new_game(config, load_content())
    config_doc: JsonDict = {
        "seed": seed,
        "ruleset": ruleset,
        "realm": realm,
        "board": board,
        "symmetric": symmetric,
        "houses": {str(s): h for s, h in houses.items()},
        "decks": {str(s): list(d) for s, d in decks.items()},
    }
    return config_doc, state.to_dict()


def parse_orders(doc: Mapping[str, Any]) -> Orders:
    return Orders.from_dict(doc)


def check_orders(state_doc: Mapping[str, Any], side: str, orders: Orders) -> list[Problem]:
    return validate_orders(GameState.from_dict(state_doc), Side(side), orders, load_content())


def resolve(
    state_doc: Mapping[str, Any], orders_by_side: Mapping[str, Mapping[str, Any] | None]
) -> tuple[JsonDict, JsonDict]:
    """One turn: the new state and the turn report. A side without orders does nothing."""
    new_state, report = resolve_game(GameState.from_dict(state_doc), orders_by_side)
    return new_state.to_dict(), report.to_dict()


def resolve_game(
    state: GameState, orders_by_side: Mapping[str, Mapping[str, Any] | None]
) -> tuple[GameState, TurnReport]:
    """:func:`resolve` on the engine's values: every resolution the service makes comes here."""
    orders = {
        Side(side): Orders() if doc is None else Orders.from_dict(doc)
        for side, doc in orders_by_side.items()
    }
    for side in SIDES:
        orders.setdefault(Side(side), Orders())
    return resolve_turn(state, orders, content=load_content())


def strike_detail(
    state_doc: Mapping[str, Any],
    orders_by_side: Mapping[str, Mapping[str, Any] | None],
    report_doc: Mapping[str, Any],
) -> JsonDict:
    """A stored turn's report with every strike, recomputed: the turn resolved again from the
    state before it and its orders, with ``strikes=True`` (reports store a record per combat
    round). The stored report as it is when the turn resolves differently now (the rules
    changed since), so the detail never tells another story than the report."""
    state = GameState.from_dict(state_doc)
    orders = {
        Side(side): Orders() if doc is None else Orders.from_dict(doc)
        for side, doc in orders_by_side.items()
    }
    _, report = resolve_turn(state, orders, content=load_content(), strikes=True)
    detail: JsonDict = json.loads(json.dumps(report.to_dict()))
    plain = [e for e in detail["events"] if e["kind"] != "strike"]
    return detail if plain == report_doc.get("events") else dict(report_doc)


# A resolution as the service stores it: the new state and the report as compact JSON text (keys
# sorted, as storage writes them), and the new state's head: its turn and its result, what the
# service reads of it.
Encoded = tuple[str, str, JsonDict]


def resolve_encoded(
    state_text: str, orders_by_side: Mapping[str, Mapping[str, Any] | None]
) -> Encoded:
    """:func:`resolve` from a stored state's JSON text to the texts to store, so that a worker
    process, not the caller, decodes and encodes the documents. The texts are ``json_text`` of
    :func:`resolve`'s documents, written straight from the engine's values."""
    # Decoding and encoding build thousands of short-lived containers, none in a cycle: as in
    # `resolve_turn`, the cyclic collector waits until the texts are made.
    collecting = gc.isenabled()
    gc.disable()
    try:
        state = GameState.from_dict(json.loads(state_text))
        new_state, report = resolve_game(state, orders_by_side)
        result = None if new_state.result is None else new_state.result.to_dict()
        return new_state.to_json(), report.to_json(), {"turn": new_state.turn, "result": result}
    finally:
        if collecting:
            gc.enable()


def resolve_many_encoded(
    jobs: Sequence[tuple[str, Mapping[str, Mapping[str, Any] | None]]],
) -> list[Encoded | str]:
    """Several :func:`resolve_encoded`; the unit of work sent to a worker process. A job that
    raises gives the error's text in its place, so one broken match never fails the others."""
    out: list[Encoded | str] = []
    for state, orders in jobs:
        try:
            out.append(resolve_encoded(state, orders))
        except Exception as exc:
            out.append(error_text(exc))
    return out


def error_text(exc: BaseException) -> str:
    """One line naming an error, for logs and moderators' reports."""
    return "".join(traceback.format_exception_only(exc)).strip()


def end_by_concession(state_doc: Mapping[str, Any], side: str) -> JsonDict:
    return concede(GameState.from_dict(state_doc), Side(side)).to_dict()


def end_by_agreement(state_doc: Mapping[str, Any]) -> JsonDict:
    return agree_draw(GameState.from_dict(state_doc)).to_dict()


def outcome(state_doc: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(winner side or None, reason) when the game is over, else (None, None)."""
    result = state_doc.get("result")
    if not result:
        return None, None
    return result.get("winner"), str(result.get("reason"))
