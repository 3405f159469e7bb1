"""The outbox: announcements written with the change that causes them, then delivered."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from storage.db import Row
from storage.queries import Queries, dumps
from storage.records import OutboxEntry, OutboxRecord, OutboxStatus


def _outbox(row: Row) -> OutboxRecord:
    return OutboxRecord(
        id=row["id"],
        key=row["key"],
        match_id=row["match_id"],
        kind=row["kind"],
        recipient=row["recipient"],
        payload=json.loads(row["payload"]),
        status=OutboxStatus(row["status"]),
        attempts=row["attempts"],
        available_at=row["available_at"],
        claimed_by=row["claimed_by"],
        claimed_until=row["claimed_until"],
        delivered_ref=row["delivered_ref"],
        last_error=row["last_error"],
        created_at=row["created_at"],
        delivered_at=row["delivered_at"],
    )


class OutboxQueries(Queries):
    """Outbox rows: added, claimed, finished, failed and listed."""

    async def add_outbox(self, entry: OutboxEntry, *, now: int) -> bool:
        """Queue an announcement; False when one with the same key exists already."""
        count = await self.tx.execute(
            "INSERT INTO outbox (key, match_id, kind, recipient, payload, status, attempts, "
            "available_at, created_at) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?) "
            "ON CONFLICT (key) DO NOTHING",
            entry.key(),
            entry.outbox_match_id,
            entry.kind,
            entry.recipient,
            dumps(entry.to_payload()),
            now,
            now,
        )
        self.outbox_added = self.outbox_added or count > 0
        return count > 0

    async def claim_outbox(
        self, now: int, node: str, lease_ms: int, limit: int
    ) -> list[OutboxRecord]:
        rows = await self.tx.fetchall(
            "UPDATE outbox SET claimed_by = ?, claimed_until = ?, attempts = attempts + 1 "
            "WHERE id IN (SELECT id FROM outbox WHERE status = 'pending' AND available_at <= ?"
            " AND (claimed_until IS NULL OR claimed_until <= ?)"
            f" ORDER BY id LIMIT ?{self._skip_locked}) RETURNING *",
            node,
            now + lease_ms,
            now,
            now,
            limit,
        )
        items = [_outbox(r) for r in rows]
        items.sort(key=lambda o: o.id)
        return items

    async def release_outbox_claims(self, node: str) -> int:
        """Forget the outbox claims a previous run of this node left behind when it stopped."""
        return await self.tx.execute(
            "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL "
            "WHERE claimed_by = ? AND status = 'pending'",
            node,
        )

    async def finish_outbox(self, item_id: int, node: str, ref: str | None, now: int) -> bool:
        count = await self.tx.execute(
            "UPDATE outbox SET status = 'done', delivered_ref = ?, delivered_at = ?, "
            "claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status = 'pending'",
            ref,
            now,
            item_id,
        )
        return count > 0

    async def fail_outbox(self, item_id: int, error: str, retry_at: int | None, now: int) -> None:
        """Back off until `retry_at`, or give up (`retry_at=None`)."""
        if retry_at is None:
            await self.tx.execute(
                "UPDATE outbox SET status = 'dead', last_error = ?, claimed_by = NULL, "
                "claimed_until = NULL, delivered_at = ? WHERE id = ? AND status = 'pending'",
                error,
                now,
                item_id,
            )
        else:
            await self.tx.execute(
                "UPDATE outbox SET available_at = ?, last_error = ?, claimed_by = NULL, "
                "claimed_until = NULL WHERE id = ? AND status = 'pending'",
                retry_at,
                error,
                item_id,
            )

    async def dead_outbox(self, guild_id: str, limit: int) -> list[OutboxRecord]:
        """The newest `limit` given-up rows of one server: its matches' rows, and its league
        rows (which name their server in the payload)."""
        rows = await self.tx.fetchall(
            "SELECT o.*, m.guild_id AS match_guild FROM outbox o"
            " LEFT JOIN matches m ON m.id = o.match_id WHERE o.status = 'dead' ORDER BY o.id DESC"
        )
        found: list[OutboxRecord] = []
        for row in rows:
            item = _outbox(row)
            guild = (
                row["match_guild"] if item.match_id is not None else item.payload.get("guild_id")
            )
            if guild is not None and str(guild) == guild_id:
                found.append(item)
                if len(found) == limit:
                    break
        return found

    async def requeue_outbox(self, item_ids: Sequence[int], now: int) -> int:
        """Make given-up rows due now, with their attempts counted afresh."""
        if not item_ids:
            return 0
        marks = ", ".join("?" for _ in item_ids)
        count = await self.tx.execute(
            "UPDATE outbox SET status = 'pending', attempts = 0, available_at = ?,"
            " delivered_at = NULL, claimed_by = NULL, claimed_until = NULL"
            f" WHERE status = 'dead' AND id IN ({marks})",
            now,
            *item_ids,
        )
        self.outbox_added = self.outbox_added or count > 0
        return count

    async def get_outbox(self, item_id: int) -> OutboxRecord | None:
        row = await self.tx.fetchone("SELECT * FROM outbox WHERE id = ?", item_id)
        return None if row is None else _outbox(row)

    async def list_outbox(
        self, *, match_id: int | None = None, kind: str | None = None
    ) -> list[OutboxRecord]:
        where: list[str] = []
        args: list[Any] = []
        if match_id is not None:
            where.append("match_id = ?")
            args.append(match_id)
        if kind is not None:
            where.append("kind = ?")
            args.append(kind)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = await self.tx.fetchall(f"SELECT * FROM outbox{clause} ORDER BY id", *args)
        return [_outbox(r) for r in rows]

    async def count_outbox(self, status: str | None = None) -> int:
        if status is None:
            return int(await self.tx.fetchval("SELECT COUNT(*) FROM outbox"))
        return int(await self.tx.fetchval("SELECT COUNT(*) FROM outbox WHERE status = ?", status))
