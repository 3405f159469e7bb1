"""A child process draining a shared outbox into a shared "channel" (a file of posts), for the
proof that two processes never post one item twice and take over a dead one's items."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

from service.clock import SystemClock
from service.outbox import Outbox
from storage import OutboxRecord, Store


class SharedChannel:
    """Posts are lines `key pid` appended to one file; slow posts outlast the lease."""

    def __init__(self, path: Path, rng: random.Random, slowest: float) -> None:
        self.path = path
        self.rng = rng
        self.slowest = slowest

    def _lines(self) -> list[str]:
        return self.path.read_text().splitlines() if self.path.exists() else []

    async def find(self, item: OutboxRecord) -> str | None:
        for n, line in enumerate(self._lines()):
            if line.split()[0] == item.key:
                return str(n)
        return None

    async def deliver(self, item: OutboxRecord) -> str:
        await asyncio.sleep(self.rng.uniform(0, self.slowest))
        with self.path.open("a") as handle:
            handle.write(f"{item.key} {os.getpid()}\n")
        return item.key


async def _drain(
    url: str, node: str, posts: str, *, lease: float, slowest: float, until: float
) -> None:
    store = await Store.open(url)
    outbox = Outbox(store, SystemClock(), node_id=node, lease_seconds=lease)
    channel = SharedChannel(Path(posts), random.Random(node), slowest)
    try:
        async with outbox.renewing(lease / 4):
            while time.time() < until:
                async with store.read() as s:
                    if await s.count_outbox("pending") == 0:
                        return
                await outbox.drain(channel, limit=4)
                await asyncio.sleep(0.02)
    finally:
        await store.close()


def drain(url: str, node: str, posts: str, *, lease: float, slowest: float, until: float) -> None:
    asyncio.run(_drain(url, node, posts, lease=lease, slowest=slowest, until=until))
