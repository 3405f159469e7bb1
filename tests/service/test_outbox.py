"""The outbox on both databases: one delivery per row, retries with backoff, no double posts."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest

from service.clock import ManualClock
from service.matches import MatchService
from service.outbox import Outbox, PermanentDeliveryError
from storage import OutboxRecord, Store
from tests.service import outbox_worker
from tests.service.matchkit import started_match
from tests.storage.entries import RawEntry


class Crash(BaseException):
    """Stands for the process dying: nothing after it runs."""


class Channel:
    """A stand-in for the bot's poster: posts carry their key, as the real ones must."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, str]] = []
        self.fail_next = 0
        self.crash_after_post = False
        self.gone = False

    async def find(self, item: OutboxRecord) -> str | None:
        return next((ref for ref, key in self.posts if key == item.key), None)

    async def deliver(self, item: OutboxRecord) -> str:
        if self.gone:
            raise PermanentDeliveryError("channel deleted")
        if self.fail_next:
            self.fail_next -= 1
            raise ConnectionError("discord is down")
        ref = f"msg-{len(self.posts) + 1}"
        self.posts.append((ref, item.key))
        if self.crash_after_post:
            raise Crash
        return ref


async def queue(store: Store, *keys: str) -> None:
    async with store.write() as s:
        for key in keys:
            await s.add_outbox(RawEntry(key), now=0)


async def test_every_row_is_delivered_once(store: Store, clock: ManualClock) -> None:
    service = MatchService(store, clock)
    await started_match(service)
    outbox = Outbox(store, clock)
    channel = Channel()
    stats = await outbox.drain(channel)
    assert stats.delivered == 4 and stats.found == 0
    assert (await outbox.drain(channel)).delivered == 0
    keys = [key for _ref, key in channel.posts]
    assert len(keys) == len(set(keys)) == 4
    async with store.read() as s:
        assert await s.count_outbox("done") == 4


async def test_a_crash_after_posting_never_posts_twice(store: Store, clock: ManualClock) -> None:
    await queue(store, "match:1:turn:1:resolved")
    channel = Channel()
    channel.crash_after_post = True
    first = Outbox(store, clock, node_id="a", lease_seconds=30)
    with pytest.raises(Crash):
        await first.drain(channel)
    channel.crash_after_post = False
    restarted = Outbox(store, clock, node_id="a", lease_seconds=30)
    assert (await restarted.drain(channel)).found == 0, "still leased to the dead run"
    clock.advance(30)
    stats = await restarted.drain(channel)
    assert stats.found == 1 and stats.delivered == 0
    assert channel.posts == [("msg-1", "match:1:turn:1:resolved")]
    async with store.read() as s:
        [row] = await s.list_outbox()
    assert row.status == "done" and row.delivered_ref == "msg-1"


async def test_failures_back_off_then_succeed(store: Store, clock: ManualClock) -> None:
    await queue(store, "k")
    channel = Channel()
    channel.fail_next = 2
    outbox = Outbox(store, clock, base_delay_seconds=5, max_delay_seconds=60)
    assert (await outbox.drain(channel)).retried == 1
    clock.advance(4.9)
    assert (await outbox.drain(channel)).retried == 0
    clock.advance(0.1)
    assert (await outbox.drain(channel)).retried == 1
    clock.advance(9.9)
    assert (await outbox.drain(channel)).delivered == 0
    clock.advance(0.1)
    assert (await outbox.drain(channel)).delivered == 1
    assert [o.backoff_ms(n) for o, n in ((outbox, 1), (outbox, 2), (outbox, 3), (outbox, 9))] == [
        5_000,
        10_000,
        20_000,
        60_000,
    ]


async def test_hopeless_rows_are_given_up(store: Store, clock: ManualClock) -> None:
    await queue(store, "gone", "flaky")
    channel = Channel()
    outbox = Outbox(store, clock, base_delay_seconds=1, max_attempts=3)
    channel.gone = True
    channel.fail_next = 0
    stats = await outbox.drain(channel, limit=1)
    assert stats.dead == 1
    channel.gone = False
    channel.fail_next = 10
    for _ in range(3):
        await outbox.drain(channel)
        clock.advance(60)
    async with store.read() as s:
        rows = {o.key: o for o in await s.list_outbox()}
    assert rows["gone"].status == "dead" and rows["gone"].last_error == "channel deleted"
    assert rows["flaky"].status == "dead" and rows["flaky"].attempts == 3
    assert channel.posts == []


async def test_posted_lists_a_kind_that_reached_discord_with_its_message(
    store: Store, clock: ManualClock
) -> None:
    service = MatchService(store, clock)
    match = await started_match(service)
    outbox = Outbox(store, clock)
    red = match.seats[0].player_id

    class Poster:
        """Posts every announcement as message 1000 + its row id, but red's sheet, which is
        stale by the time it is delivered (nothing is posted)."""

        async def find(self, item: OutboxRecord) -> str | None:
            return None

        async def deliver(self, item: OutboxRecord) -> str:
            stale = item.kind == "order_sheet" and item.recipient == red
            return "stale" if stale else str(1000 + item.id)

    await outbox.drain(Poster())
    sheets = await outbox.posted(match.id, "order_sheet")
    assert [(i.recipient, n) for i, n in sheets] == [(i.recipient, 1000 + i.id) for i, _n in sheets]
    assert [i.recipient for i, _n in sheets] == [match.seats[1].player_id]
    assert await outbox.posted(match.id, "no_such_kind") == []


async def test_the_outbox_calls_back_after_each_commit_that_queued_rows(
    store: Store, clock: ManualClock
) -> None:
    outbox = Outbox(store, clock)
    calls: list[str] = []
    stop = outbox.on_added(lambda: calls.append("added"))
    service = MatchService(store, clock)
    await started_match(service)
    woken = len(calls)
    assert woken >= 1
    async with store.write() as s:
        await s.add_outbox(RawEntry("note:1"), now=0)
        assert len(calls) == woken  # not before the rows are committed
    assert len(calls) == woken + 1
    await queue(store, "note:1")  # the key is taken: nothing was added
    async with store.write() as s:
        await s.count_outbox()
    assert len(calls) == woken + 1
    with pytest.raises(Crash):
        async with store.write() as s:
            await s.add_outbox(RawEntry("note:2"), now=0)
            raise Crash
    assert len(calls) == woken + 1  # rolled back: nothing to deliver
    stop()
    await queue(store, "note:3")
    assert len(calls) == woken + 1


async def test_a_restarted_node_frees_only_its_own_claims(store: Store, clock: ManualClock) -> None:
    await queue(store, "a:1", "b:1")
    dead_a = Outbox(store, clock, node_id="a", lease_seconds=60)
    live_b = Outbox(store, clock, node_id="b", lease_seconds=60)
    assert [i.key for i in await dead_a.claim(limit=1)] == ["a:1"]
    assert [i.key for i in await live_b.claim(limit=1)] == ["b:1"]
    # Node a comes back well inside its old lease: its own claim is due again at once,
    # node b's claim stays b's.
    restarted_a = Outbox(store, clock, node_id="a", lease_seconds=60)
    assert await restarted_a.release_my_claims() == 1
    channel = Channel()
    assert (await restarted_a.drain(channel)).delivered == 1
    assert [key for _ref, key in channel.posts] == ["a:1"]


async def test_a_delivery_renewed_while_it_works_keeps_its_claim(
    store: Store, clock: ManualClock
) -> None:
    await queue(store, "slow")
    a = Outbox(store, clock, node_id="a", lease_seconds=30)
    b = Outbox(store, clock, node_id="b", lease_seconds=30)
    [item] = await a.claim()
    for _ in range(4):
        clock.advance(20)
        assert await a.renew() == 1
        assert await b.claim() == [], "a renewed claim is never taken over"
    assert await a.hold(item)
    assert await a.done(item, "msg-1")


async def test_a_holder_taken_over_neither_posts_nor_finishes(
    store: Store, clock: ManualClock
) -> None:
    """Node a stalls past its lease without renewing (a frozen or cut-off process); node b
    takes the item over and posts it; a, waking, finds it no longer holds the item."""
    await queue(store, "match:1:turn:1:resolved")
    channel = Channel()
    a = Outbox(store, clock, node_id="a", lease_seconds=30)
    b = Outbox(store, clock, node_id="b", lease_seconds=30)
    [stalled] = await a.claim()
    clock.advance(30)
    assert (await b.drain(channel)).delivered == 1
    assert not await a.hold(stalled)
    assert not await a.done(stalled, "msg-a")
    assert not await a.failed(stalled, "late")
    assert channel.posts == [("msg-1", "match:1:turn:1:resolved")]
    async with store.read() as s:
        [row] = await s.list_outbox()
    assert row.status == "done" and row.delivered_ref == "msg-1"


async def test_two_processes_post_each_item_once_and_take_over_a_killed_one(
    db_url: str, tmp_path: Path
) -> None:
    """Two processes drain one outbox with deliveries up to three times as long as the lease;
    one is SIGKILLed in the middle. Every item is posted, and none twice."""
    store = await Store.open(db_url)
    try:
        await queue(store, *(f"item:{n}" for n in range(24)))
    finally:
        await store.close()
    posts = tmp_path / "posts.txt"
    lease = 0.4
    ctx = multiprocessing.get_context("fork")
    until = time.time() + 60
    children = [
        ctx.Process(
            target=outbox_worker.drain,
            args=(db_url, f"node{i}", str(posts)),
            kwargs={"lease": lease, "slowest": 3 * lease, "until": until},
        )
        for i in range(2)
    ]
    for child in children:
        child.start()
    victim = children[0]
    # Both at work for a while (half the items), then one dies in the middle of its batch.
    while len(lines(posts)) < 12 or victim.pid not in {int(x.split()[1]) for x in lines(posts)}:
        await asyncio.sleep(0.05)
        assert time.time() < until
    assert victim.pid is not None
    os.kill(victim.pid, signal.SIGKILL)
    children[1].join(60)
    assert children[1].exitcode == 0
    victim.join(5)
    keys = [line.split()[0] for line in lines(posts)]
    assert sorted(keys) == sorted(f"item:{n}" for n in range(24)), "each posted exactly once"
    store = await Store.open(db_url)
    try:
        async with store.read() as s:
            rows = await s.list_outbox()
    finally:
        await store.close()
    assert {r.status for r in rows} == {"done"}
    taken_over = [r for r in rows if r.attempts > 1]
    assert taken_over, "the killed process held items that the other one took over"


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


async def test_given_up_rows_are_listed_per_server_and_requeued_once(
    store: Store, clock: ManualClock
) -> None:
    service = MatchService(store, clock)
    here = await started_match(service, guild_id="g1")
    there = await started_match(service, ("carol", "dave"), guild_id="g2")
    async with store.write() as s:
        await s.add_outbox(RawEntry("league:1:opened", payload={"guild_id": "g1"}), now=0)
        await s.add_outbox(RawEntry("league:2:opened", payload={"guild_id": "g2"}), now=0)
    outbox = Outbox(store, clock)
    channel = Channel()
    channel.gone = True
    await outbox.drain(channel)
    dead = await outbox.given_up("g1")
    assert {i.match_id for i in dead} == {here.id, None}
    assert all(i.last_error == "channel deleted" for i in dead)
    assert "league:1:opened" in {i.key for i in dead}
    assert there.id in {i.match_id for i in await outbox.given_up("g2")}
    assert len(await outbox.given_up("g1", limit=2)) == 2

    channel.gone = False
    assert await outbox.requeue(dead) == len(dead)
    assert await outbox.requeue(dead) == 0  # pending again, not given up
    stats = await outbox.drain(channel)
    assert stats.delivered == len(dead)
    assert await outbox.given_up("g1") == []
    assert len(await outbox.given_up("g2")) == len(dead)


async def test_a_given_up_sheet_is_requeued_for_its_player_and_turn_only(
    store: Store, clock: ManualClock
) -> None:
    service = MatchService(store, clock)
    match = await started_match(service, guild_id="g1")
    outbox = Outbox(store, clock)
    channel = Channel()
    channel.gone = True
    await outbox.drain(channel)
    assert not await outbox.requeue_sheet(match.id, "alice", 2)
    assert not await outbox.requeue_sheet(match.id, "nobody", 1)
    assert await outbox.requeue_sheet(match.id, "alice", 1)
    channel.gone = False
    await outbox.drain(channel)
    side = next(seat.side for seat in match.seats if seat.player_id == "alice")
    assert [key for _ref, key in channel.posts] == [f"match:{match.id}:turn:1:sheet:{side}"]
