"""The engine calls on stored documents: what a worker sends back is what the service stores."""

from __future__ import annotations

import json

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
