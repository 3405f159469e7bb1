"""Proof: a process resolving turns is killed (SIGKILL) at random points; after every restart
each due turn is resolved exactly once, atomically with its outbox rows, and no acknowledged
confirmation is lost."""

from __future__ import annotations

import json
import multiprocessing
import random
from pathlib import Path

import pytest

from service.clock import ManualClock, from_ms, to_ms
from service.matches import MatchService
from storage import Store
from tests.service import crash_worker
from tests.service.matchkit import started_match

KILLS = 50
MATCHES = 10
NODE = "crashy"

pytestmark = pytest.mark.slow


def forker() -> multiprocessing.context.ForkContext:
    """Children forked from this process start working at once: everything is imported and the
    content is loaded. No database connection is open in this process while they are forked."""
    return multiprocessing.get_context("fork")


async def check(service: MatchService, acks: list[dict[str, int | str]]) -> int:
    """Everything the proof promises; returns the number of resolved turns."""
    now = to_ms(service.clock.now())
    async with service.store.read() as s:
        counts = await s.turn_counts()
        keys = [o.key for o in await s.list_outbox()]
        matches = await s.list_matches()
        current = {m.id: await s.get_orders(m.id, m.turn) for m in matches}
        last = {m.id: await s.get_match(m.id, with_state=True) for m in matches}
        needed = {(int(a["match"]), int(a["turn"])) for a in acks}
        needed |= {(m.id, m.turn - 1) for m in matches if m.turn > 1}
        turns = {(m, t): await s.get_turn(m, t) for m, t in needed if (m, t) in counts}
    assert all(n == 1 for n in counts.values()), "no turn has two records"
    assert len(keys) == len(set(keys))
    key_set = set(keys)
    total = 0
    by_id = {m.id: m for m in matches}
    for match in matches:
        numbers = sorted(t for m, t in counts if m == match.id)
        assert numbers == list(range(1, match.turn)), "turns are contiguous"
        assert match.status == "active" and match.deadline_at is not None
        assert match.deadline_at > now, "nothing due is left unresolved"
        confirmed = [o for o in current[match.id].values() if o.confirmed]
        assert len(confirmed) < 2, "no turn both sides confirmed is left unresolved"
        if numbers:
            record = turns[(match.id, numbers[-1])]
            full = last[match.id]
            assert record is not None and full is not None
            assert full.state == record.state, "state and report commit together"
        for turn in numbers:
            assert f"match:{match.id}:turn:{turn}:resolved" in key_set
        for turn in range(1, match.turn + 1):
            for side in ("red", "blue"):
                assert f"match:{match.id}:turn:{turn}:sheet:{side}" in key_set
        resolved_keys = [k for k in keys if k.startswith(f"match:{match.id}:turn:")]
        assert len([k for k in resolved_keys if k.endswith(":resolved")]) == len(numbers)
        total += len(numbers)
    for ack in acks:
        match_id, turn, side = int(ack["match"]), int(ack["turn"]), str(ack["side"])
        if turn < by_id[match_id].turn:
            done = turns[(match_id, turn)]
            assert done is not None
            given = done.orders[side]
        else:
            pending = current[match_id][side]
            assert pending.confirmed
            given = pending.orders
        assert given is not None and given["confirmed"], ack
        assert given["discard"] == {"card_uid": ack["uid"]}, ack
    return total


async def test_killed_resolvers_lose_nothing_and_repeat_nothing(
    db_url: str, tmp_path: Path
) -> None:
    clock = ManualClock()
    store = await Store.open(db_url)
    service = MatchService(store, clock, node_id=NODE)
    players = [(f"r{i}", f"b{i}") for i in range(MATCHES)]
    for pair in players:
        await started_match(service, pair, turn_seconds=600, reminders=[300], no_show_limit=0)
    await store.close()

    ctx = forker()
    rng = random.Random(20261130)
    log_path = tmp_path / "acks.jsonl"
    now_ms = to_ms(clock.now())
    resolved = 0
    for _kill in range(KILLS):
        ready = ctx.Event()
        child = ctx.Process(
            target=crash_worker.churn,
            kwargs={
                "url": db_url,
                "log_path": str(log_path),
                "seed": rng.randrange(2**32),
                "node": NODE,
                "start_ms": now_ms,
                "ready": ready,
            },
        )
        child.start()
        assert ready.wait(60), "the child started"
        child.join(rng.uniform(0.0, 0.4))
        assert child.is_alive(), "the child was still working when killed"
        child.kill()
        child.join(10)
        lines = [json.loads(x) for x in log_path.read_text().splitlines() if x.strip()]
        acks = [x for x in lines if "match" in x]
        now_ms = max([now_ms] + [x["now"] for x in lines if "now" in x])
        restarted = await Store.open(db_url)
        try:
            service = MatchService(restarted, ManualClock(from_ms(now_ms)), node_id=NODE)
            await service.release_my_claims()
            await service.run_due()
            resolved = await check(service, acks)
        finally:
            await restarted.close()
    assert resolved > KILLS, f"the children resolved turns between kills ({resolved})"
