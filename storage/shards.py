"""Shard leases: which process serves each gateway shard, and until when."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from storage.queries import Queries


@dataclass(frozen=True, slots=True)
class ShardLease:
    shard_id: int
    shard_count: int
    holder: str
    lease_until: int
    heartbeat_at: int
    acquired_at: int


class ShardQueries(Queries):
    """Taking, renewing and giving back shard leases."""

    async def acquire_shards(
        self, shard_ids: Sequence[int], shard_count: int, node: str, *, now: int, lease_ms: int
    ) -> list[int]:
        """Take each shard that nobody holds, whose lease ran out, or that `node` holds already
        (a restart of the same node); returns the shards now `node`'s. Two processes asking at
        once for one free shard: the row's lock (PostgreSQL) or the single writer (SQLite)
        makes the second see the first's fresh lease and pass."""
        taken: list[int] = []
        for shard_id in shard_ids:
            row = await self.tx.fetchone(
                "INSERT INTO shard_leases (shard_id, shard_count, holder, lease_until, "
                "heartbeat_at, acquired_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (shard_id) DO UPDATE SET shard_count = excluded.shard_count, "
                "holder = excluded.holder, lease_until = excluded.lease_until, "
                "heartbeat_at = excluded.heartbeat_at, acquired_at = CASE "
                "WHEN shard_leases.holder = excluded.holder THEN shard_leases.acquired_at "
                "ELSE excluded.acquired_at END "
                "WHERE shard_leases.holder = excluded.holder OR shard_leases.lease_until <= ? "
                "RETURNING shard_id",
                shard_id,
                shard_count,
                node,
                now + lease_ms,
                now,
                now,
                now,
            )
            if row is not None:
                taken.append(int(row["shard_id"]))
        return taken

    async def renew_shards(
        self, shard_ids: Sequence[int], node: str, *, now: int, lease_ms: int
    ) -> list[int]:
        """The heartbeat: extend `node`'s leases of the shards; returns those it still holds."""
        if not shard_ids:
            return []
        marks = ", ".join("?" for _ in shard_ids)
        rows = await self.tx.fetchall(
            "UPDATE shard_leases SET lease_until = ?, heartbeat_at = ? "
            f"WHERE holder = ? AND shard_id IN ({marks}) RETURNING shard_id",
            now + lease_ms,
            now,
            node,
            *shard_ids,
        )
        return sorted(int(r["shard_id"]) for r in rows)

    async def release_shards(self, shard_ids: Sequence[int], node: str, *, now: int) -> int:
        """Give the shards up at once (a clean stop), so a standby need not wait out the lease."""
        if not shard_ids:
            return 0
        marks = ", ".join("?" for _ in shard_ids)
        return await self.tx.execute(
            f"UPDATE shard_leases SET lease_until = ? WHERE holder = ? AND shard_id IN ({marks})",
            now,
            node,
            *shard_ids,
        )

    async def shard_leases(self) -> list[ShardLease]:
        rows = await self.tx.fetchall("SELECT * FROM shard_leases ORDER BY shard_id")
        return [
            ShardLease(
                r["shard_id"],
                r["shard_count"],
                r["holder"],
                r["lease_until"],
                r["heartbeat_at"],
                r["acquired_at"],
            )
            for r in rows
        ]
