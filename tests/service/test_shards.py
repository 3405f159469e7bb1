"""Shard leases on both databases: a standby serves nothing while the holder's heartbeat goes
on, takes the shards over within a lease once it stops, and the old holder then learns it lost
them."""

from __future__ import annotations

import asyncio
import time

import pytest

from service.clock import SystemClock
from service.shards import LeaseLostError, ShardLeases
from storage import Store

LEASE = 0.6


def leases(store: Store, node: str) -> ShardLeases:
    return ShardLeases(store, SystemClock(), node_id=node, shard_count=2, lease_seconds=LEASE)


async def test_a_standby_takes_over_once_the_heartbeat_stops(store: Store) -> None:
    active, standby = leases(store, "active"), leases(store, "standby")
    assert await active.acquire([0, 1]) == (0, 1)
    heartbeat = asyncio.create_task(active.keep())
    waiting = asyncio.create_task(standby.wait_for_shards([0, 1], standby=True))
    await asyncio.sleep(3 * LEASE)
    assert not waiting.done(), "no shard is taken while its holder renews it"
    heartbeat.cancel()  # the active process dies
    stopped = time.monotonic()
    taken = await asyncio.wait_for(waiting, 5 * LEASE)
    # The last heartbeat was at most a third of a lease before; the standby looks every third.
    assert taken == (0, 1)
    assert time.monotonic() - stopped <= LEASE + active.heartbeat_seconds + 0.3
    with pytest.raises(LeaseLostError, match=r"took over shards \[0, 1\]"):
        await asyncio.wait_for(active.keep(), 2 * LEASE)


async def test_a_returning_holder_waits_while_the_standby_serves(store: Store) -> None:
    standby, returning = leases(store, "standby"), leases(store, "active")
    assert await standby.acquire([0, 1]) == (0, 1)
    assert await returning.acquire([0, 1]) == ()
    await standby.release()
    assert await returning.acquire([0, 1]) == (0, 1)
