"""The outbox: announcements waiting to be delivered, drained with retries and backoff.

Every row has a unique key (for example `match:12:turn:3:resolved`). The deliverer puts the key
into what it posts and, before posting, asks whether a post with that key exists already; so a
crash after posting but before `done()` finds the earlier post instead of making a second one.

Several processes drain one outbox. A claim is a lease that its holder renews while it works
(`renewing()`), so a slow delivery keeps its row; the holder checks it still holds the claim just
before posting (`hold()`), and `done()` and `failed()` change nothing for a holder that was taken
over. A holder that dies stops renewing, and its rows are taken over once the lease runs out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from service.announcements import OrderSheet
from service.clock import Clock, to_ms
from storage import OutboxRecord, Store
from storage.records import OutboxStatus

log = logging.getLogger(__name__)


class PermanentDeliveryError(Exception):
    """Raised by a deliverer when retrying cannot help (the channel is gone, for example)."""


class Deliverer(Protocol):
    async def find(self, item: OutboxRecord) -> str | None:
        """The reference of an earlier delivery carrying `item.key`, if there is one."""
        ...

    async def deliver(self, item: OutboxRecord) -> str:
        """Deliver the item with its key attached; return a reference (a message id)."""
        ...


@dataclass(frozen=True, slots=True)
class DrainStats:
    delivered: int = 0
    found: int = 0
    retried: int = 0
    dead: int = 0


class Outbox:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        node_id: str = "main",
        lease_seconds: float = 30.0,
        base_delay_seconds: float = 5.0,
        max_delay_seconds: float = 900.0,
        max_attempts: int = 12,
    ) -> None:
        self.store = store
        self.clock = clock
        self.node_id = node_id
        self.lease_ms = int(lease_seconds * 1000)
        self.base_delay_ms = int(base_delay_seconds * 1000)
        self.max_delay_ms = int(max_delay_seconds * 1000)
        self.max_attempts = max_attempts
        # Claims this outbox holds and has not finished: row id -> the attempt (the claim's fence).
        self._held: dict[int, int] = {}

    def on_added(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` after each commit in this process that queued announcements, so a
        deliverer need not poll for them; returns the function that stops the calls. (Rows that
        another process queues, and retries that come due, still wait for a poll.)"""
        return self.store.on_outbox_added(callback)

    def backoff_ms(self, attempts: int) -> int:
        """Delay after the `attempts`-th failed attempt: doubling, capped."""
        return int(min(self.max_delay_ms, self.base_delay_ms * 2 ** max(0, attempts - 1)))

    async def posted(self, match_id: int, kind: str) -> list[tuple[OutboxRecord, int]]:
        """The match's announcements of ``kind`` that were posted, with their message ids,
        oldest first (a delivery that posted nothing, such as a stale sheet, is left out)."""
        async with self.store.read() as s:
            items = await s.list_outbox(match_id=match_id, kind=kind)
        refs = [(i, i.delivered_ref or "") for i in items]
        return [(i, int(ref)) for i, ref in refs if ref.isdigit()]

    async def given_up(self, guild_id: str, *, limit: int = 100) -> list[OutboxRecord]:
        """The server's announcements that were given up on, newest first, with their last
        error; they stay so until a moderator requeues them (:meth:`requeue`)."""
        async with self.store.read() as s:
            return await s.dead_outbox(guild_id, limit)

    async def requeue(self, items: Sequence[OutboxRecord]) -> int:
        """Deliver given-up announcements again, from a first attempt; returns how many."""
        now = to_ms(self.clock.now())
        async with self.store.write() as s:
            return await s.requeue_outbox([i.id for i in items], now)

    async def requeue_sheet(self, match_id: int, player_id: str, turn: int) -> bool:
        """Send the player's order sheet of `turn` again if it was given up on."""
        async with self.store.read() as s:
            sheets = await s.list_outbox(match_id=match_id, kind=OrderSheet.kind)
        dead = [
            i
            for i in sheets
            if i.status == OutboxStatus.DEAD
            and i.recipient == player_id
            and i.payload.get("turn") == turn
        ]
        return await self.requeue(dead) > 0

    async def claim(self, limit: int = 50) -> list[OutboxRecord]:
        """Take due items for a while (the lease); another node will not take them meanwhile,
        nor afterwards while `renewing()` runs."""
        now = to_ms(self.clock.now())
        async with self.store.write() as s:
            items = await s.claim_outbox(now, self.node_id, self.lease_ms, limit)
        self._held.update((i.id, i.attempts) for i in items)
        return items

    async def hold(self, item: OutboxRecord) -> bool:
        """Just before posting: whether this node still holds its claim of ``item``, which is
        renewed for a whole lease if so. False: another node took it over; do not post."""
        # Not renewed meanwhile unless this succeeds: an item left behind by an error here
        # must run out of its lease, not be renewed for ever.
        if self._held.pop(item.id, None) != item.attempts:
            return False
        now = to_ms(self.clock.now())
        async with self.store.write() as s:
            held = await s.hold_outbox([(item.id, item.attempts)], self.node_id, now, self.lease_ms)
        if not held:
            log.warning("outbox %s (%s) was taken over by another node", item.id, item.key)
            return False
        self._held[item.id] = item.attempts
        return True

    async def renew(self) -> int:
        """Renew every unfinished claim of this outbox; returns how many it still holds."""
        claims = list(self._held.items())
        if not claims:
            return 0
        now = to_ms(self.clock.now())
        async with self.store.write() as s:
            held = set(await s.hold_outbox(claims, self.node_id, now, self.lease_ms))
        for item_id, attempts in claims:
            if item_id not in held and self._held.get(item_id) == attempts:
                del self._held[item_id]
        return len(held)

    @contextlib.asynccontextmanager
    async def renewing(self, every_seconds: float | None = None) -> AsyncIterator[None]:
        """Renew the claims in the background (by default three times a lease) while the block
        runs, so that no delivery outlasts its claim however long it waits."""
        period = every_seconds if every_seconds is not None else self.lease_ms / 3000

        async def loop() -> None:
            while True:
                await asyncio.sleep(period)
                try:
                    await self.renew()
                except Exception:
                    # The next renewal tries again; until the lease runs out nothing is lost.
                    log.exception("renewing the outbox claims failed")

        task = asyncio.create_task(loop(), name="sanctum-outbox-leases")
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def release_my_claims(self) -> int:
        """At start-up: what an earlier run of this node claimed and never delivered is due
        again now, not when its lease would have run out."""
        async with self.store.write() as s:
            return await s.release_outbox_claims(self.node_id)

    async def done(self, item: OutboxRecord, ref: str | None) -> bool:
        """Record the delivery; False when this node no longer held the claim (its new holder
        finds the post by its key)."""
        self._held.pop(item.id, None)
        now = to_ms(self.clock.now())
        async with self.store.write() as s:
            return await s.finish_outbox(item.id, self.node_id, item.attempts, ref, now)

    async def failed(self, item: OutboxRecord, error: str, *, permanent: bool = False) -> bool:
        """Schedule a retry; returns False when the item was given up on (or was no longer
        this node's to retry)."""
        self._held.pop(item.id, None)
        now = to_ms(self.clock.now())
        give_up = permanent or item.attempts >= self.max_attempts
        retry_at = None if give_up else now + self.backoff_ms(item.attempts)
        async with self.store.write() as s:
            changed = await s.fail_outbox(
                item.id, self.node_id, item.attempts, error[:500], retry_at=retry_at, now=now
            )
        return changed and not give_up

    async def drain(self, deliverer: Deliverer, *, limit: int = 50) -> DrainStats:
        """Deliver what is due now, once each."""
        delivered = found = retried = dead = 0
        for item in await self.claim(limit):
            if not await self.hold(item):
                continue
            try:
                ref = await deliverer.find(item)
                if ref is not None:
                    found += 1
                else:
                    ref = await deliverer.deliver(item)
                    delivered += 1
            except PermanentDeliveryError as exc:
                log.warning("outbox %s (%s) given up: %s", item.id, item.key, exc)
                await self.failed(item, str(exc), permanent=True)
                dead += 1
                continue
            except Exception as exc:
                log.warning("outbox %s (%s) failed: %r", item.id, item.key, exc)
                if await self.failed(item, repr(exc)):
                    retried += 1
                else:
                    dead += 1
                continue
            await self.done(item, ref)
        return DrainStats(delivered, found, retried, dead)
