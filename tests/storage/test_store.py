"""The storage layer on both databases: migrations, constraints, claims, outbox, round trips."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storage import ConflictError, JsonText, Session, Store
from storage.db import open_database
from storage.migrate import migrate, migrations_for
from tests.storage.entries import RawEntry


async def new_match(s: Session, *, seed: int = 7, now: int = 1_000, **fields: Any) -> int:
    """A two-seat match of server g1; ``fields`` override what ``insert_match`` is given."""
    match: dict[str, Any] = {
        "created_by": "alice",
        "guild_id": "g1",
        "channel_id": "c1",
        "ruleset": "classic",
        "realm": "veldt",
        "board": "classic",
        "symmetric": False,
        "seed": seed,
        "turn_seconds": 60,
        "no_show_limit": 3,
        "grace_seconds": 0,
        "reminders": [30],
        "now": now,
    }
    match_id = await s.insert_match(**(match | fields))
    await s.insert_seat(match_id, 0, "alice", None, "war", ["a"] * 30)
    await s.insert_seat(match_id, 1, "bob", None, "life", ["b"] * 30)
    return match_id


async def activate(store: Store, match_id: int, deadline: int, turn: int = 1) -> None:
    async with store.write() as s:
        assert await s.update_match(
            match_id, status="active", turn=turn, deadline_at=deadline, state={"turn": turn}
        )


async def test_migrations_apply_once_and_are_numbered(db_url: str, backend: str) -> None:
    db = open_database(db_url)
    await db.connect()
    try:
        first = await migrate(db)
        again = await migrate(db)
        async with db.transaction(write=False) as tx:
            rows = await tx.fetchall("SELECT version FROM schema_migrations ORDER BY version")
    finally:
        await db.close()
    expected = [m.version for m in migrations_for(backend)]
    assert first == expected
    assert again == []
    assert [r["version"] for r in rows] == expected


async def test_two_processes_starting_together_migrate_once(db_url: str) -> None:
    stores = await asyncio.gather(Store.open(db_url), Store.open(db_url))
    try:
        async with stores[0].read() as s:
            count = await s.tx.fetchval("SELECT COUNT(*) FROM schema_migrations")
        assert count == len(migrations_for(stores[0].dialect))
    finally:
        for store in stores:
            await store.close()


async def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path: Any) -> None:
    store = await Store.open(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        async with store.read() as s:
            assert await s.tx.fetchval("PRAGMA journal_mode") == "wal"
            assert await s.tx.fetchval("PRAGMA foreign_keys") == 1
    finally:
        await store.close()


async def test_foreign_keys_are_enforced(store: Store) -> None:
    with pytest.raises(ConflictError):
        async with store.write() as s:
            await s.insert_seat(999, 0, "alice", None, None, None)


async def test_a_failed_transaction_leaves_nothing_behind(store: Store) -> None:
    with pytest.raises(RuntimeError):
        async with store.write() as s:
            await new_match(s)
            raise RuntimeError("boom")
    async with store.read() as s:
        assert await s.list_matches() == []


async def test_decks_are_unique_per_owner_and_name(store: Store) -> None:
    async with store.write() as s:
        deck = await s.insert_deck("alice", "Fire", "war", ["x"] * 30, 5)
        await s.insert_deck("bob", "Fire", "life", ["y"] * 30, 5)
    with pytest.raises(ConflictError):
        async with store.write() as s:
            await s.insert_deck("alice", "Fire", "war", ["z"] * 30, 6)
    async with store.read() as s:
        assert [d.name for d in await s.list_decks("alice")] == ["Fire"]
        got = await s.get_deck(deck.id)
    assert got is not None and got.spells == ("x",) * 30 and got.house == "war"


async def test_a_match_round_trips_with_its_seats(store: Store) -> None:
    async with store.write() as s:
        match_id = await new_match(s)
        await s.update_match(match_id, state={"k": [1, 2, {"a": None}]}, turn=3)
        await s.update_seat(match_id, 1, side="blue", no_shows=2, grace_used=True)
    async with store.read() as s:
        match = await s.get_match(match_id, with_state=True)
        light = await s.get_match(match_id)
    assert match is not None and light is not None
    assert match.state == {"k": [1, 2, {"a": None}]}
    assert light.state is None
    assert match.turn == 3 and match.version == 1
    assert match.reminders == (30,)
    assert [(x.player_id, x.side) for x in match.seats] == [("alice", None), ("bob", "blue")]
    assert match.seats[1].grace_used and match.seats[1].no_shows == 2
    assert match.seat_of("bob") == match.seats[1]
    assert match.seat_for_side("blue") == match.seats[1]


async def test_update_with_a_stale_version_changes_nothing(store: Store) -> None:
    async with store.write() as s:
        match_id = await new_match(s)
    async with store.write() as s:
        assert await s.update_match(match_id, turn=2, expect_version=0)
        assert not await s.update_match(match_id, turn=9, expect_version=0)
    async with store.read() as s:
        match = await s.get_match(match_id)
    assert match is not None and match.turn == 2 and match.version == 1


async def test_a_turn_can_be_recorded_only_once(store: Store) -> None:
    async with store.write() as s:
        match_id = await new_match(s)
    record: dict[str, Any] = {
        "orders": {"red": None, "blue": {"casts": []}},
        "report": {"turn": 1},
        "state": {"turn": 2},
        "no_shows": ["red"],
        "cause": "deadline",
        "now": 5,
        "node": "n1",
    }
    async with store.write() as s:
        await s.insert_turn(match_id, 1, **record)
    with pytest.raises(ConflictError):
        async with store.write() as s:
            await s.insert_turn(match_id, 1, **record)
    async with store.read() as s:
        turn = await s.get_turn(match_id, 1)
        assert await s.turn_counts() == {(match_id, 1): 1}
    assert turn is not None and turn.no_shows == ("red",) and turn.orders["red"] is None


async def test_orders_are_replaced_and_confirmed_per_side(store: Store) -> None:
    async with store.write() as s:
        match_id = await new_match(s)
        await s.put_orders(match_id, 1, "red", {"moves": [1]}, confirmed=False, now=10)
        await s.put_orders(match_id, 1, "red", {"moves": [2]}, confirmed=False, now=11)
        assert await s.set_confirmed(match_id, 1, "red", True, 12)
        assert not await s.set_confirmed(match_id, 1, "blue", True, 12)
    async with store.read() as s:
        orders = await s.get_orders(match_id, 1)
    assert set(orders) == {"red"}
    assert orders["red"].orders == {"moves": [2]} and orders["red"].confirmed


async def test_due_matches_are_claimed_by_one_node_until_the_lease_ends(db_url: str) -> None:
    first, second = await Store.open(db_url), await Store.open(db_url)
    try:
        ids = []
        async with first.write() as s:
            for seed in range(12):
                ids.append(await new_match(s, seed=seed))
        for i, match_id in enumerate(ids):
            await activate(first, match_id, deadline=100 if i < 10 else 10_000)

        async def claim(store: Store, node: str) -> list[int]:
            async with store.write() as s:
                return [d.id for d in await s.claim_due(500, node, 1_000, 3)]

        batches = await asyncio.gather(
            *(claim(st, f"n{i}") for i, st in enumerate([first, second] * 3))
        )
        claimed = [m for batch in batches for m in batch]
        assert sorted(claimed) == sorted(ids[:10][: len(claimed)])
        assert len(claimed) == len(set(claimed)) == min(10, sum(len(b) for b in batches))
        async with first.write() as s:
            everything = claimed + [d.id for d in await s.claim_due(500, "n9", 1_000, 100)]
        assert sorted(everything) == sorted(ids[:10])
        async with first.write() as s:
            # The leases run until 1_500: nothing before, everything after.
            assert await s.claim_due(1_499, "late", 1_000, 100) == []
            assert len(await s.claim_due(1_500, "late", 1_000, 100)) == 10
            assert await s.release_claims("late") == 10
            assert len(await s.claim_due(1_500, "again", 1_000, 100)) == 10
    finally:
        await first.close()
        await second.close()


async def test_reminder_points_are_marked_once(store: Store) -> None:
    async with store.write() as s:
        match_id = await new_match(s)
        assert await s.mark_reminder(match_id, 1, 100, 30, 50)
        assert not await s.mark_reminder(match_id, 1, 100, 30, 51)
        assert await s.mark_reminder(match_id, 1, 200, 30, 52)
        assert await s.reminders_for(match_id) == [(1, 100, 30), (1, 200, 30)]


async def test_outbox_keys_are_unique_and_claims_exclusive(db_url: str) -> None:
    first, second = await Store.open(db_url), await Store.open(db_url)
    try:
        async with first.write() as s:
            for i in range(6):
                assert await s.add_outbox(RawEntry(f"k{i}", "x", {"i": i}), now=10)
            assert not await s.add_outbox(RawEntry("k0", "x", {"i": 99}), now=10)

        async def claim(store: Store, node: str) -> list[int]:
            async with store.write() as s:
                return [o.id for o in await s.claim_outbox(20, node, 100, 2)]

        batches = await asyncio.gather(
            *(claim(st, f"n{i}") for i, st in enumerate([first, second] * 3))
        )
        ids = [i for b in batches for i in b]
        assert len(ids) == len(set(ids)) == 6
        holders = {o.id: o.claimed_by for o in await claimed(first, ids)}
        async with first.write() as s:
            assert await s.claim_outbox(50, "other", 100, 10) == []
            assert await s.finish_outbox(ids[0], str(holders[ids[0]]), 1, "msg-1", 60)
            assert not await s.finish_outbox(ids[0], str(holders[ids[0]]), 1, "msg-2", 61)
            assert await s.fail_outbox(
                ids[1], str(holders[ids[1]]), 1, "timeout", retry_at=500, now=60
            )
            assert await s.fail_outbox(
                ids[2], str(holders[ids[2]]), 1, "gone", retry_at=None, now=60
            )
            ready = [o.id for o in await s.claim_outbox(200, "later", 1_000, 10)]
        assert sorted(ready) == sorted(ids[3:])
        async with first.write() as s:
            retried = await s.claim_outbox(500, "later", 100, 10)
            done = await s.get_outbox(ids[0])
            dead = await s.get_outbox(ids[2])
        assert [o.id for o in retried] == [ids[1]] and retried[0].attempts == 2
        assert retried[0].last_error == "timeout"
        assert done is not None and done.status == "done" and done.delivered_ref == "msg-1"
        assert dead is not None and dead.status == "dead"
    finally:
        await first.close()
        await second.close()


async def test_outbox_counts_and_given_up_rows_of_one_server(store: Store) -> None:
    async with store.write() as s:
        here = await new_match(s)
        there = await new_match(s, seed=8, created_by="zed", guild_id="g2", channel_id="c2")
        for key, match_id in (("a", here), ("b", here), ("c", there), ("d", None)):
            await s.add_outbox(RawEntry(key, "x", outbox_match_id=match_id), now=10)
        rows = {o.key: o for o in await s.claim_outbox(20, "n", 100, 10)}
        for key in ("a", "c"):
            row = rows[key]
            await s.fail_outbox(row.id, "n", row.attempts, f"{key} is gone", retry_at=None, now=30)
    async with store.read() as s:
        assert await s.count_outbox() == 4
        assert await s.count_outbox(guild_id="g1") == 2
        assert await s.count_outbox("dead", guild_id="g1") == 1
        dead = await s.dead_outbox("g1", 10)
    assert [(o.key, o.last_error) for o in dead] == [("a", "a is gone")]


async def claimed(store: Store, ids: list[int]) -> list[Any]:
    async with store.read() as s:
        return [await s.get_outbox(i) for i in ids]


async def test_an_outbox_claim_taken_over_fences_its_old_holder(db_url: str) -> None:
    """The attempt a claim counts is its fence: once another holder (or another run of the
    same node) claimed the row, the old holder can neither renew, finish nor fail it."""
    first, second = await Store.open(db_url), await Store.open(db_url)
    try:
        async with first.write() as s:
            await s.add_outbox(RawEntry("k", "x", {}), now=0)
            [old] = await s.claim_outbox(10, "a", 100, 1)
        async with first.write() as s:
            # Renewed while it works: nobody can claim it past the first lease.
            assert await s.hold_outbox([(old.id, old.attempts)], "a", 100, 100) == [old.id]
        async with second.write() as s:
            assert await s.claim_outbox(150, "b", 100, 1) == []
            # Not renewed again: the lease runs out at 200 and b takes the row over.
            [new] = await s.claim_outbox(200, "b", 100, 1)
        assert (new.claimed_by, new.attempts) == ("b", 2)
        async with first.write() as s:
            assert await s.hold_outbox([(old.id, old.attempts)], "a", 210, 100) == []
            assert not await s.finish_outbox(old.id, "a", old.attempts, "msg-a", 210)
            assert not await s.fail_outbox(old.id, "a", old.attempts, "slow", retry_at=500, now=210)
        async with second.write() as s:
            # The same node under an older attempt is a stale holder too.
            assert not await s.finish_outbox(old.id, "b", old.attempts, "msg-b", 220)
            assert await s.finish_outbox(new.id, "b", new.attempts, "msg-b", 220)
        [row] = await claimed(first, [old.id])
        assert row.status == "done" and row.delivered_ref == "msg-b" and row.claimed_by is None
    finally:
        await first.close()
        await second.close()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(doc=st.dictionaries(st.text(max_size=6), json_values, max_size=5))
async def test_json_documents_round_trip(store: Store, doc: dict[str, Any]) -> None:
    async with store.write() as s:
        match_id = await new_match(s)
        await s.update_match(match_id, state=doc, config=doc)
        await s.put_orders(match_id, 1, "red", doc, confirmed=False, now=1)
    async with store.read() as s:
        match = await s.get_match(match_id, with_state=True)
        orders = await s.get_orders(match_id, 1)
    assert match is not None and match.state == doc and match.config == doc
    assert orders["red"].orders == doc


async def test_a_document_encoded_elsewhere_is_stored_as_it_is(store: Store) -> None:
    text = JsonText('{"turn":3,"b":[1,2],"a":null}')  # not in storage's own key order
    async with store.write() as s:
        match_id = await new_match(s)
        await s.update_match(match_id, state=text)
    async with store.read() as s:
        stored = await s.get_state_text(match_id)
        match = await s.get_match(match_id, with_state=True)
        missing = await s.get_state_text(match_id + 1)
    assert stored == text and isinstance(stored, JsonText)
    assert match is not None and match.state == {"turn": 3, "b": [1, 2], "a": None}
    assert missing is None


@pytest.mark.parametrize("steps", range(12))
async def test_a_transaction_cancelled_at_any_step_leaves_the_database_usable(
    store: Store, steps: int
) -> None:
    """A task cancelled while it begins, writes or commits (shutdown, a timeout) must not leave
    the shared connection inside a transaction: the next writer works and sees either all of the
    cancelled write or none of it."""
    async with store.write() as s:
        match_id = await new_match(s)

    async def rename() -> None:
        async with store.write() as s:
            await s.update_match(match_id, deadline_at=5_000)
            await asyncio.sleep(0)

    task = asyncio.ensure_future(rename())
    for _ in range(steps):
        await asyncio.sleep(0)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    async with store.write() as s:
        assert await s.update_match(match_id, turn=2)
    async with store.read() as s:
        match = await s.get_match(match_id)
    assert match is not None and match.turn == 2
    assert match.deadline_at in (None, 5_000)


async def test_a_shard_lease_has_one_holder_until_it_runs_out(db_url: str) -> None:
    first, second = await Store.open(db_url), await Store.open(db_url)
    try:

        async def take(store: Store, node: str, now: int) -> list[int]:
            async with store.write() as s:
                return await s.acquire_shards([0, 1], 2, node, now=now, lease_ms=100)

        # Both ask at once for the two free shards: each shard goes to one of them.
        a, b = await asyncio.gather(take(first, "a", 0), take(second, "b", 0))
        assert sorted(a + b) == [0, 1]
        holder = {shard: ("a" if shard in a else "b") for shard in (0, 1)}
        other = {"a": "b", "b": "a"}
        async with first.write() as s:
            # The holder renews (and may take its own shards again: a restart); the other may
            # not take them while the leases last.
            assert await s.renew_shards([0], holder[0], now=50, lease_ms=100) == [0]
            assert await s.acquire_shards([0], 2, holder[0], now=60, lease_ms=100) == [0]
            assert await s.acquire_shards([0], 2, other[holder[0]], now=159, lease_ms=100) == []
            # Unrenewed past its lease, the shard is the other's, and its old holder's
            # heartbeat says it lost it.
            assert await s.acquire_shards([0], 2, other[holder[0]], now=160, lease_ms=100) == [0]
            assert await s.renew_shards([0], holder[0], now=161, lease_ms=100) == []
            # A clean stop gives a shard up at once.
            assert await s.release_shards([1], holder[1], now=170) == 1
            assert await s.acquire_shards([1], 2, other[holder[1]], now=170, lease_ms=100) == [1]
            leases = await s.shard_leases()
        assert [(x.shard_id, x.holder) for x in leases] == [
            (0, other[holder[0]]),
            (1, other[holder[1]]),
        ]
        assert leases[0].acquired_at == 160 and leases[0].lease_until == 260
    finally:
        await first.close()
        await second.close()
