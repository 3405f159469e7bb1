"""Shard leases: each gateway shard is served by one process, and a standby steps in for a
process that is gone.

A process holds a lease per shard it serves and renews it (its heartbeat) three times a lease.
Another process takes a shard only once its lease has run out: a standby polls for such shards
and then serves them; a process that comes back while a standby serves its shards waits in turn.
A process that cannot renew in time (its database is unreachable, its event loop stalled) must
stop serving before its lease runs out, so no two processes ever serve one shard.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

from service.clock import Clock, to_ms
from storage import Store

log = logging.getLogger(__name__)


class LeaseLostError(Exception):
    """This process no longer holds (or can no longer prove it holds) all its shards."""


class ShardLeases:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        node_id: str,
        shard_count: int,
        lease_seconds: float = 30.0,
    ) -> None:
        self.store = store
        self.clock = clock
        self.node_id = node_id
        self.shard_count = shard_count
        self.lease_seconds = lease_seconds
        self.lease_ms = int(lease_seconds * 1000)
        self.held: tuple[int, ...] = ()

    @property
    def heartbeat_seconds(self) -> float:
        return self.lease_seconds / 3

    async def acquire(self, candidates: Sequence[int]) -> tuple[int, ...]:
        """Take whichever of ``candidates`` are free (or already this node's)."""
        now = to_ms(self.clock.now())
        async with self.store.write() as s:
            taken = await s.acquire_shards(
                candidates, self.shard_count, self.node_id, now=now, lease_ms=self.lease_ms
            )
        self.held = tuple(sorted(set(self.held) | set(taken)))
        return tuple(sorted(taken))

    async def wait_for_shards(
        self, candidates: Sequence[int], *, standby: bool = False
    ) -> tuple[int, ...]:
        """Wait until this node holds some of ``candidates``; returns those it holds then.

        A standby first lets one lease go by, so that the processes meant to serve the shards,
        started at the same time, take them; afterwards it takes what nobody renews."""
        if standby:
            log.info("standby: waiting for shards of %s to fall free", list(candidates))
            await asyncio.sleep(self.lease_seconds)
        while True:
            taken = await self.acquire(candidates)
            if taken:
                log.info("holding the leases of shards %s", list(taken))
                return taken
            await asyncio.sleep(self.heartbeat_seconds)

    async def renew(self) -> tuple[int, ...]:
        """One heartbeat; returns the shards still held."""
        now = to_ms(self.clock.now())
        async with self.store.write() as s:
            kept = await s.renew_shards(self.held, self.node_id, now=now, lease_ms=self.lease_ms)
        return tuple(kept)

    async def keep(self) -> None:
        """Renew the held leases until one is lost: then raise LeaseLostError (the process must
        stop serving). A renewal that keeps failing counts as lost well before the lease runs
        out, since by then another process may take the shards over."""
        last_renewed = time.monotonic()
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            try:
                kept = await self.renew()
            except Exception as error:
                silent = time.monotonic() - last_renewed
                if silent >= 2 * self.heartbeat_seconds:
                    raise LeaseLostError(
                        f"could not renew the leases of shards {list(self.held)} for "
                        f"{silent:.0f} s ({error})"
                    ) from error
                log.warning("renewing the shard leases failed; trying again: %r", error)
                continue
            lost = sorted(set(self.held) - set(kept))
            if lost:
                raise LeaseLostError(f"another process took over shards {lost}")
            last_renewed = time.monotonic()

    async def release(self) -> None:
        """Give the leases up (a clean stop): a standby may take the shards at once."""
        if not self.held:
            return
        now = to_ms(self.clock.now())
        async with self.store.write() as s:
            await s.release_shards(self.held, self.node_id, now=now)
        self.held = ()
