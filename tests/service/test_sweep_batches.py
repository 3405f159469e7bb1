"""The sweep writes a batch of resolutions together (one statement per kind of row); what it
stores is what resolving each match alone stores, to the byte."""

from __future__ import annotations

import json
from typing import Any

from engine.state import json_text
from service import engine_bridge as eb
from service.clock import ManualClock
from service.matches import MatchService
from storage import MatchRecord, Store
from tests.service.matchkit import discard_orders, player_on, started_match

# (no-show limit, whether red gives orders): a turn that goes on, a no-show, a forfeit, an
# abandoned match.
CASES = [(3, True), (3, False), (1, True), (1, False)]


async def _stored(store: Store, match: MatchRecord) -> dict[str, Any]:
    """Everything the turn's resolution wrote for the match, its id left out."""
    async with store.read() as s:
        state = await s.get_state_text(match.id)
        after = await s.get_match(match.id)
        turn = await s.get_turn(match.id, match.turn)
        outbox = await s.list_outbox(match_id=match.id)
    assert after is not None and turn is not None
    return {
        "state": state,
        "match": (after.status, after.turn, after.deadline_at, after.winner, after.end_reason),
        "seats": [(x.side, x.no_shows, x.turns_with_orders) for x in after.seats],
        "turn": (turn.orders, turn.report, turn.state, turn.no_shows, turn.cause),
        "outbox": [
            (o.kind, o.recipient, {k: v for k, v in o.payload.items() if k != "match_id"})
            for o in outbox
        ],
    }


async def test_a_batch_stores_what_each_resolution_alone_stores(
    service: MatchService, store: Store, clock: ManualClock
) -> None:
    alone: list[MatchRecord] = []
    batched: list[MatchRecord] = []
    for seed, (limit, red_orders) in enumerate(CASES):
        for group in (alone, batched):
            match = await started_match(
                service, turn_seconds=60, seed=seed, red_seat=0, no_show_limit=limit
            )
            if red_orders:
                full = await service.get_match(match.id, with_state=True)
                await service.submit_orders(
                    match.id, player_on(match, "red"), discard_orders(full, "red")
                )
            group.append(await service.get_match(match.id, with_state=True))
    clock.advance(61)
    for match in alone:
        assert await service.resolve_match(match.id) is not None
    resolved = await service.run_due()
    assert sorted(r.match_id for r in resolved) == sorted(m.id for m in batched)

    for one, other in zip(alone, batched, strict=True):
        stored = await _stored(store, one)
        assert stored == await _stored(store, other)
        # And the stored texts are those of the documents the engine's plain call gives.
        assert one.state is not None
        async with store.read() as s:
            orders = await s.get_orders(one.id, one.turn)
        docs = {side: orders[side].orders if side in orders else None for side in eb.SIDES}
        state, report = eb.resolve(one.state, docs)
        if stored["match"][0] == "active":
            assert stored["state"] == json_text(state)
        assert stored["turn"][1] == report == json.loads(json_text(report))
    kinds = {o[0] for one in alone for o in (await _stored(store, one))["outbox"]}
    assert {"turn_resolved", "order_sheet", "match_ended"} <= kinds
