"""The engine calls on stored documents: what a worker sends back is what the service stores."""

from __future__ import annotations

import json

from bench.engine import late_game
from engine.content import load_content
from engine.setup import default_deck
from engine.state import Side
from service import engine_bridge as eb


def test_a_worker_resolves_from_the_stored_text_and_sends_back_the_texts_to_store() -> None:
    content = load_content()
    _, state = eb.start_game(
        seed=5,
        ruleset="classic",
        realm="veldt",
        board="classic",
        symmetric=False,
        houses={Side.RED: "war", Side.BLUE: "life"},
        decks={Side.RED: default_deck("war", content), Side.BLUE: default_deck("life", content)},
    )
    orders = {"red": None, "blue": None}
    new_state, report = eb.resolve(state, orders)
    state_text, report_text, head = eb.resolve_encoded(json.dumps(state), orders)
    assert json.loads(state_text) == new_state
    assert json.loads(report_text) == report
    assert head == {"turn": new_state["turn"], "result": new_state["result"]}
    assert eb.resolve_many_encoded([(json.dumps(state), orders)]) == [
        (state_text, report_text, head)
    ]


def test_the_strike_detail_of_a_stored_turn_is_recomputed_from_its_orders() -> None:
    content = load_content()
    state, _ = late_game(content)
    orders: dict[str, dict[str, object] | None] = {"red": None, "blue": None}
    _, stored = eb.resolve(state.to_dict(), orders)
    assert not any(e["kind"] == "strike" for e in stored["events"])
    detail = eb.strike_detail(state.to_dict(), orders, stored)
    assert sum(e["kind"] == "strike" for e in detail["events"]) > 500
    assert [e for e in detail["events"] if e["kind"] != "strike"] == stored["events"]
    # A turn that resolves differently now keeps the report it was told with.
    changed = {**stored, "events": stored["events"][1:]}
    assert eb.strike_detail(state.to_dict(), orders, changed) == changed
