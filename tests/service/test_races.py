"""Proofs: a deadline and a last confirmation arriving together resolve the turn once; two
service processes sharing one database resolve each turn once."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
from pathlib import Path
from typing import Any

import pytest

from service.clock import ManualClock, from_ms, to_ms
from service.errors import DeadlinePassedError, NotYourTurnError
from service.matches import MatchService, ResolvedTurn
from storage import Store
from tests.service import crash_worker
from tests.service.matchkit import discard_orders, player_on, started_match

pytestmark = pytest.mark.slow

# 1,000 per database; SANCTUM_RACE_TRIALS changes it for a longer soak or a quick look.
TRIALS = int(os.environ.get("SANCTUM_RACE_TRIALS", "1000"))


async def yields(rng: random.Random) -> None:
    for _ in range(rng.randint(0, 4)):
        await asyncio.sleep(0)


async def test_deadline_and_last_confirmation_together_resolve_once(db_url: str) -> None:
    # On PostgreSQL two pools, as two processes would have: one confirms, one fires the
    # deadline. SQLite is served by one process, whose tasks share its one connection (two
    # processes on one SQLite file are the next test's business).
    store_c = await Store.open(db_url)
    store_d = store_c if store_c.dialect == "sqlite" else await Store.open(db_url)
    clock_c, clock_d = ManualClock(), ManualClock()
    confirmer = MatchService(store_c, clock_c, node_id="confirmer")
    alarm = MatchService(store_d, clock_d, node_id="alarm")
    rng = random.Random(1130)
    outcomes: dict[str, int] = {}
    try:
        match = await started_match(confirmer, turn_seconds=3600, reminders=[], no_show_limit=0)
        sides = {side: player_on(match, side) for side in ("red", "blue")}
        for _trial in range(TRIALS):
            give = rng.random() < 0.3
            full = await confirmer.get_match(match.id, with_state=give)
            turn, deadline = full.turn, full.deadline_at
            assert deadline is not None and full.status == "active"
            clock_c.set(from_ms(deadline - rng.choice([1, 1, 2, 30])))
            clock_d.set(from_ms(deadline + rng.choice([0, 0, 1])))
            first, last = rng.sample(["red", "blue"], 2)
            if rng.random() < 0.8:
                if give:
                    orders = discard_orders(full, first)
                    await confirmer.submit_orders(match.id, sides[first], orders)
                await confirmer.confirm(match.id, sides[first])
            if give and rng.random() < 0.5:
                await confirmer.submit_orders(match.id, sides[last], discard_orders(full, last, 1))

            async def confirm_last(player: str, turn: int) -> ResolvedTurn | str | None:
                await yields(rng)
                try:
                    return (await confirmer.confirm(match.id, player, turn=turn)).resolved
                except (NotYourTurnError, DeadlinePassedError) as exc:
                    return exc.code

            async def fire_deadline() -> list[ResolvedTurn]:
                await yields(rng)
                if rng.random() < 0.5:
                    return await alarm.run_due()
                one = await alarm.resolve_match(match.id)
                return [] if one is None else [one]

            confirmed, fired = await asyncio.gather(
                confirm_last(sides[last], turn), fire_deadline()
            )
            async with store_c.read() as s:
                counts = await s.turn_counts()
                record = await s.get_turn(match.id, turn)
                after = await s.get_match(match.id)
            assert counts[(match.id, turn)] == 1 and record is not None and after is not None
            assert after.turn == turn + 1
            winners = [r for r in fired if r.turn == turn]
            if isinstance(confirmed, ResolvedTurn):
                winners.append(confirmed)
            assert len(winners) == 1, (confirmed, fired)
            if confirmed is None or isinstance(confirmed, ResolvedTurn):
                given = record.orders[last]
                assert given is not None and given["confirmed"]
            key = f"{winners[0].cause}/{confirmed if isinstance(confirmed, str) else 'ok'}"
            outcomes[key] = outcomes.get(key, 0) + 1
        async with store_c.read() as s:
            counts = await s.turn_counts()
            resolved = await s.list_outbox(kind="turn_resolved")
        assert sorted(t for _m, t in counts) == list(range(1, TRIALS + 1))
        assert len(resolved) == TRIALS
    finally:
        await store_c.close()
        if store_d is not store_c:
            await store_d.close()
    # Both orders of arrival happened, so the race was really run both ways.
    assert any(k.startswith("confirmed/") for k in outcomes), outcomes
    assert any(k.startswith("deadline/") for k in outcomes), outcomes


async def test_two_processes_sharing_a_database_resolve_each_turn_once(
    db_url: str, tmp_path: Path
) -> None:
    clock = ManualClock()
    store = await Store.open(db_url)
    service = MatchService(store, clock, node_id="setup")
    for i in range(60):
        await started_match(
            service, (f"r{i}", f"b{i}"), turn_seconds=600, reminders=[], no_show_limit=0
        )
    await store.close()
    ctx = multiprocessing.get_context("fork")
    go = ctx.Event()
    outs = [tmp_path / f"node{i}.json" for i in range(2)]
    children = [
        ctx.Process(
            target=crash_worker.sweep_steps,
            kwargs={
                "url": db_url,
                "node": f"node{i}",
                "start_ms": to_ms(clock.now()),
                "steps": 4,
                "step_seconds": 600,
                "out_path": str(outs[i]),
                "go": go,
            },
        )
        for i in range(2)
    ]
    for child in children:
        child.start()
    go.set()
    for child in children:
        child.join(120)
        assert child.exitcode == 0
    reported: list[list[Any]] = [json.loads(p.read_text()) for p in outs]
    pairs = [tuple(x) for part in reported for x in part]
    assert len(pairs) == len(set(pairs)), "no turn was resolved by both processes"
    store = await Store.open(db_url)
    try:
        async with store.read() as s:
            counts = await s.turn_counts()
            resolved = await s.list_outbox(kind="turn_resolved")
            matches = await s.list_matches()
    finally:
        await store.close()
    assert set(counts) == set(pairs) and all(n == 1 for n in counts.values())
    assert len(resolved) == len(pairs)
    assert len(matches) == 60 and all(m.turn >= 2 for m in matches)
    assert len(pairs) >= 60
