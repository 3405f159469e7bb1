"""Serialization: state, orders and reports round-trip exactly through JSON, with a version."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest

from engine.content import Content
from engine.coords import Coord
from engine.orders import (
    CastOrder,
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    Orders,
    Target,
    TrainOrder,
)
from engine.report import TurnReport
from engine.state import FORMAT_VERSION, GameState, Result, StateFormatError, json_text
from engine.turn import resolve_turn
from tests.engine.conftest import random_orders


def _json(data: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result


def test_state_round_trips_through_json(opening: GameState) -> None:
    data = opening.to_dict()
    assert data["format_version"] == FORMAT_VERSION
    assert GameState.from_dict(_json(data)) == opening


def test_state_after_turns_round_trips(opening: GameState, content: Content) -> None:
    state = opening
    for _ in range(3):
        state, report = resolve_turn(state, {}, content=content)
        assert GameState.from_dict(_json(state.to_dict())) == state
        assert TurnReport.from_dict(_json(report.to_dict())) == report


def test_the_stored_texts_are_the_documents_compact_with_sorted_keys(
    opening: GameState, content: Content
) -> None:
    """``to_json`` writes states and reports directly; to the byte, it is what encoding their
    documents gives: through random games (moves, casts, training, fights, captures, levels),
    and for records with every kind of value (no nation, walks and traits, a name beyond
    ASCII, a result)."""
    rnd = random.Random(5)
    state = opening
    for _ in range(30):
        assert state.to_json() == json_text(state.to_dict())
        orders = random_orders(state, rnd, content, move=0.7, cast=0.5)
        state, report = resolve_turn(state, orders, content=content)
        assert report.to_json() == json_text(report.to_dict())
        if state.over:
            break
    group = state.groups[0]
    odd = group.minions[0]._replace(
        nation=None, walks=frozenset({"swamp", "flight"}), traits=frozenset({"hero"}), name="Æsa"
    )
    unusual = replace(
        state,
        groups=(group.with_minions((odd, *group.minions[1:])), *state.groups[1:]),
        result=Result(None, "agreed"),
    )
    assert unusual.to_json() == json_text(unusual.to_dict())
    assert GameState.from_dict(json.loads(unusual.to_json())) == unusual


def test_orders_round_trip() -> None:
    orders = Orders(
        casts=(
            CastOrder(7, Target("group", 12), boosted=True),
            CastOrder(8, Target("square", Coord.parse("C3"))),
            CastOrder(0, Target("globe"), power=2, bound_source=4, spell_id="x"),
        ),
        moves=(MoveOrder(3, Coord.parse("D5")),),
        trains=(
            TrainOrder(Coord.parse("D4"), "mana", "order"),
            TrainOrder(Coord.parse("D4"), "archer"),
        ),
        discard=DiscardOrder(9),
        confirmed=True,
    )
    assert Orders.from_dict(_json(orders.to_dict())) == orders


def test_unknown_format_version_is_refused(opening: GameState) -> None:
    data = opening.to_dict()
    data["format_version"] = 99
    with pytest.raises(StateFormatError, match="format_version 99"):
        GameState.from_dict(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"moves": [{"group_id": "x", "dest": "C3"}]}, "group_id must be an integer"),
        ({"moves": [{"group_id": 1, "dest": "Z99"}]}, "dest"),
        ({"trains": [{"structure": "D4", "kind": "wizard"}]}, "train kind"),
        ({"casts": [{"card_uid": 1, "target": {"kind": "moon"}}]}, "target kind"),
        ({"casts": [{"card_uid": 1}]}, "missing 'target'"),
        ({"discard": 5}, "discard must be a table"),
        ({"bananas": []}, "unknown order section"),
        ([], "orders must be a table"),
    ],
)
def test_malformed_orders_give_clear_errors(data: object, message: str) -> None:
    with pytest.raises(StateFormatError, match=message):
        Orders.from_dict(data)  # type: ignore[arg-type]


def test_mana_choices_round_trip_and_may_be_left_out() -> None:
    orders = Orders(
        mana_choices=(ManaChoice(Coord.parse("D7"), "order"), ManaChoice(Coord.parse("I6"), "will"))
    )
    data = _json(orders.to_dict())
    assert data["mana_choices"] == [
        {"structure": "D7", "mana_type": "order"},
        {"structure": "I6", "mana_type": "will"},
    ]
    assert Orders.from_dict(data) == orders
    del data["mana_choices"]
    assert Orders.from_dict(data).mana_choices == ()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"mana_choices": {"D7": "order"}}, "mana_choices must be a list"),
        ({"mana_choices": [{"structure": "D7", "mana_type": 3}]}, "mana_type must be"),
        ({"mana_choices": [{"structure": "Z99", "mana_type": "order"}]}, "structure"),
    ],
)
def test_malformed_mana_choices_give_clear_errors(data: object, message: str) -> None:
    with pytest.raises(StateFormatError, match=message):
        Orders.from_dict(data)  # type: ignore[arg-type]
