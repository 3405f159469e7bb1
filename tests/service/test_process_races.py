"""Proof: the last confirmation of a turn and its deadline, given by two processes at once on
their own connections (a second SQLite writer, a second PostgreSQL client), resolve the turn
once, and an acknowledged confirmation is always in the turn's record."""

from __future__ import annotations

import json
import multiprocessing
import os
from collections import Counter
from pathlib import Path

import pytest

from service.clock import ManualClock
from service.matches import MatchService
from storage import Store
from tests.service import race_worker
from tests.service.matchkit import started_match

pytestmark = pytest.mark.slow

# SANCTUM_PROCESS_RACE_TRIALS changes it for a longer soak.
TRIALS = int(os.environ.get("SANCTUM_PROCESS_RACE_TRIALS", "300"))
MATCHES = 10


async def test_a_confirmation_and_a_deadline_in_two_processes_resolve_the_turn_once(
    db_url: str, tmp_path: Path
) -> None:
    store = await Store.open(db_url)
    service = MatchService(store, ManualClock(), node_id="setup")
    matches = [
        (
            await started_match(
                service, (f"r{i}", f"b{i}"), turn_seconds=3600, reminders=[], no_show_limit=0
            )
        ).id
        for i in range(MATCHES)
    ]
    await store.close()
    ctx = multiprocessing.get_context("fork")
    gate = ctx.Barrier(2, timeout=120)
    outs = {role: tmp_path / f"{role}.jsonl" for role in ("confirmer", "deadline")}
    children = [
        ctx.Process(
            target=race_worker.run,
            kwargs={
                "role": role,
                "url": db_url,
                "seed": 2011,
                "trials": TRIALS,
                "matches": matches,
                "gate": gate,
                "out": str(out),
            },
        )
        for role, out in outs.items()
    ]
    for child in children:
        child.start()
    for child in children:
        child.join(600)
        assert child.exitcode == 0
    confirms = [json.loads(line) for line in outs["confirmer"].read_text().splitlines()]
    fires = [json.loads(line) for line in outs["deadline"].read_text().splitlines()]
    assert len(confirms) == len(fires) == TRIALS

    store = await Store.open(db_url)
    try:
        async with store.read() as s:
            counts = await s.turn_counts()
            records = {key: await s.get_turn(*key) for key in counts}
    finally:
        await store.close()
    assert all(n == 1 for n in counts.values()), "no turn has two records"
    won: Counter[str] = Counter()
    for confirm, fire in zip(confirms, fires, strict=True):
        key = (confirm["match"], confirm["turn"])
        assert fire["turn"] == confirm["turn"], "both processes raced for the same turn"
        by_confirm = confirm["confirm"] == "resolved"
        by_deadline = (
            [m, t] in [[m, t] for m, t, _cause in fire["resolved"]]
            if (m := key[0]) and (t := key[1])
            else False
        )
        assert by_confirm + by_deadline == 1, (confirm, fire)
        won["confirmer" if by_confirm else "deadline"] += 1
        record = records[key]
        assert record is not None
        if confirm["confirm"] in ("resolved", "kept"):
            # Acknowledged: the last side's confirmation is part of what was resolved.
            given = record.orders[confirm["last"]]
            assert given is not None and given["confirmed"], (confirm, fire)
    # Each process won some: the race ran both ways.
    assert won["confirmer"] > 0 and won["deadline"] > 0, won
    print(f"\n{store.dialect}: {TRIALS} trials, {dict(won)}")
