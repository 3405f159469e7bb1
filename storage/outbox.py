"""The outbox: announcements written with the change that causes them, then delivered."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from storage.db import Row
from storage.queries import Queries, dumps
from storage.records import OutboxEntry, OutboxRecord, OutboxStatus

_INSERT_OUTBOX = (
    "INSERT INTO outbox (key, match_id, kind, recipient, payload, status, attempts, "
    "available_at, created_at) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?) "
    "ON CONFLICT (key) DO NOTHING"
)


def _outbox_row(entry: OutboxEntry, now: int) -> tuple[Any, ...]:
    return (
        entry.key(),
        entry.outbox_match_id,
        entry.kind,
        entry.recipient,
        dumps(entry.to_payload()),
        now,
        now,
    )


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
        count = await self.tx.execute(_INSERT_OUTBOX, *_outbox_row(entry, now))
        self.outbox_added = self.outbox_added or count > 0
        return count > 0

    async def add_outbox_many(self, entries: Sequence[OutboxEntry], *, now: int) -> None:
        """`add_outbox` of each, in order, in one statement. Which ones were already there is
        not told: the commit wakes the outbox's listeners even when none was new."""
        if entries:
            await self.tx.executemany(_INSERT_OUTBOX, [_outbox_row(e, now) for e in entries])
            self.outbox_added = True

    async def claim_outbox(
        self, now: int, node: str, lease_ms: int, limit: int
    ) -> list[OutboxRecord]:
        """Take up to `limit` due rows nobody holds (or whose holder's lease ran out).

        Each claim counts one more attempt, and that count is the claim's fence: the holder
        names it in every later call (`hold_outbox`, `finish_outbox`, `fail_outbox`), so a holder
        whose lease ran out and was taken over, even by another run of the same node, changes
        nothing."""
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

    async def hold_outbox(
        self, claims: Sequence[tuple[int, int]], node: str, now: int, lease_ms: int
    ) -> list[int]:
        """Renew the claims (row id, attempt) that `node` still holds for `lease_ms` from now;
        returns the ids renewed. A claim whose lease ran out but that nobody took over is still
        the holder's: no other claim can have happened in between."""
        held: list[int] = []
        for item_id, attempts in claims:
            count = await self.tx.execute(
                "UPDATE outbox SET claimed_until = ? WHERE id = ? AND status = 'pending' "
                "AND claimed_by = ? AND attempts = ?",
                now + lease_ms,
                item_id,
                node,
                attempts,
            )
            if count:
                held.append(item_id)
        return held

    async def release_outbox_claims(self, node: str) -> int:
        """Forget the outbox claims a previous run of this node left behind when it stopped."""
        return await self.tx.execute(
            "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL "
            "WHERE claimed_by = ? AND status = 'pending'",
            node,
        )

    async def finish_outbox(
        self, item_id: int, node: str, attempts: int, ref: str | None, now: int
    ) -> bool:
        """Mark the row delivered; False unless `node` still holds this claim of it (a holder
        that was taken over leaves the row to its new holder, which finds the post by key)."""
        count = await self.tx.execute(
            "UPDATE outbox SET status = 'done', delivered_ref = ?, delivered_at = ?, "
            "claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status = 'pending' "
            "AND claimed_by = ? AND attempts = ?",
            ref,
            now,
            item_id,
            node,
            attempts,
        )
        return count > 0

    async def fail_outbox(
        self,
        item_id: int,
        node: str,
        attempts: int,
        error: str,
        *,
        retry_at: int | None,
        now: int,
    ) -> bool:
        """Back off until `retry_at`, or give up (`retry_at=None`); False (and nothing changed)
        unless `node` still holds this claim, so a stale holder never frees another's claim."""
        if retry_at is None:
            count = await self.tx.execute(
                "UPDATE outbox SET status = 'dead', last_error = ?, claimed_by = NULL, "
                "claimed_until = NULL, delivered_at = ? WHERE id = ? AND status = 'pending' "
                "AND claimed_by = ? AND attempts = ?",
                error,
                now,
                item_id,
                node,
                attempts,
            )
        else:
            count = await self.tx.execute(
                "UPDATE outbox SET available_at = ?, last_error = ?, claimed_by = NULL, "
                "claimed_until = NULL WHERE id = ? AND status = 'pending' "
                "AND claimed_by = ? AND attempts = ?",
                retry_at,
                error,
                item_id,
                node,
                attempts,
            )
        return count > 0

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
        where, args = _outbox_filter(match_id=match_id, kind=kind)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = await self.tx.fetchall(f"SELECT * FROM outbox{clause} ORDER BY id", *args)
        return [_outbox(r) for r in rows]

    async def count_outbox(self, status: str | None = None, *, guild_id: str | None = None) -> int:
        """Rows (of ``status``); with ``guild_id``, only those of that server's matches."""
        where, args = _outbox_filter(status=status, guild_id=guild_id)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        return int(await self.tx.fetchval(f"SELECT COUNT(*) FROM outbox{clause}", *args))


def _outbox_filter(
    *,
    status: str | None = None,
    guild_id: str | None = None,
    match_id: int | None = None,
    kind: str | None = None,
) -> tuple[list[str], list[Any]]:
    """The WHERE conditions and their arguments for the filters given (None: any)."""
    where: list[str] = []
    args: list[Any] = []
    if match_id is not None:
        where.append("match_id = ?")
        args.append(match_id)
    if kind is not None:
        where.append("kind = ?")
        args.append(kind)
    if status is not None:
        where.append("status = ?")
        args.append(status)
    if guild_id is not None:
        where.append("match_id IN (SELECT id FROM matches WHERE guild_id = ?)")
        args.append(guild_id)
    return where, args
