"""Deadlines, the claims that keep two processes off one overdue match, and reminders."""

from __future__ import annotations

import json
from collections.abc import Sequence

from engine.state import Side
from storage.queries import Queries
from storage.records import DueMatch, PendingDeadline

# A turn is confirmed when this many orders rows of it are (one per side).
SIDE_COUNT = len(Side)


class ClaimQueries(Queries):
    """Due matches, claims and reminders."""

    async def claim_due(self, now: int, node: str, lease_ms: int, limit: int) -> list[DueMatch]:
        """Take up to `limit` due matches nobody else holds; two processes never get the
        same one (row locks on PostgreSQL, the single writer on SQLite). A match is due when its
        deadline passed or when both sides confirmed its current turn: a confirmation commits
        before its resolution runs, so a process that died (or a resolution that failed) in
        between leaves a turn that only this sweep will pick up before its deadline. A turn
        whose resolution keeps failing waits for its retry time (`resolution_failures`).

        Not SKIP LOCKED: a match row is also locked, briefly, by a player giving orders, and a
        sweep that skipped it would leave the overdue turn for the next sweep. A second sweeper
        waits for the first one's claim to commit, then sees the claim and passes over the row."""
        rows = await self.tx.fetchall(
            "UPDATE matches SET claimed_by = ?, claimed_until = ? WHERE id IN ("
            " SELECT id FROM matches WHERE status = 'active'"
            " AND (deadline_at <= ? OR (SELECT COUNT(*) FROM orders o"
            "  WHERE o.match_id = matches.id AND o.turn = matches.turn AND o.confirmed = 1) = ?)"
            " AND (claimed_until IS NULL OR claimed_until <= ?)"
            " AND NOT EXISTS (SELECT 1 FROM resolution_failures f WHERE f.match_id = matches.id"
            "  AND f.turn = matches.turn AND f.retry_at > ?)"
            f" ORDER BY deadline_at, id LIMIT ?{self._for_update})"
            " RETURNING id, turn, deadline_at",
            node,
            now + lease_ms,
            now,
            SIDE_COUNT,
            now,
            now,
            limit,
        )
        due = [DueMatch(r["id"], r["turn"], r["deadline_at"]) for r in rows]
        due.sort(key=lambda d: (d.deadline_at, d.id))
        return due

    async def release_claim(self, match_ids: Sequence[int], node: str) -> None:
        if not match_ids:
            return
        marks = ", ".join("?" for _ in match_ids)
        await self.tx.execute(
            "UPDATE matches SET claimed_by = NULL, claimed_until = NULL "
            f"WHERE claimed_by = ? AND id IN ({marks})",
            node,
            *match_ids,
        )

    async def release_claims(self, node: str) -> int:
        """Forget the claims a previous run of this node left behind when it stopped."""
        return await self.tx.execute(
            "UPDATE matches SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?",
            node,
        )

    async def pending_deadlines(self, after: int, before: int) -> list[PendingDeadline]:
        rows = await self.tx.fetchall(
            "SELECT id, turn, deadline_at, reminders FROM matches WHERE status = 'active' "
            "AND deadline_at > ? AND deadline_at <= ? ORDER BY deadline_at, id",
            after,
            before,
        )
        return [
            PendingDeadline(r["id"], r["turn"], r["deadline_at"], tuple(json.loads(r["reminders"])))
            for r in rows
        ]

    async def next_deadlines(self, limit: int) -> list[PendingDeadline]:
        rows = await self.tx.fetchall(
            "SELECT id, turn, deadline_at, reminders FROM matches WHERE status = 'active' "
            "AND deadline_at IS NOT NULL ORDER BY deadline_at, id LIMIT ?",
            limit,
        )
        return [
            PendingDeadline(r["id"], r["turn"], r["deadline_at"], tuple(json.loads(r["reminders"])))
            for r in rows
        ]

    async def mark_reminder(
        self, match_id: int, turn: int, deadline_at: int, point_seconds: int, now: int
    ) -> bool:
        """Record a reminder point as handled; False when it already was."""
        count = await self.tx.execute(
            "INSERT INTO reminders_sent (match_id, turn, deadline_at, point_seconds, sent_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            match_id,
            turn,
            deadline_at,
            point_seconds,
            now,
        )
        return count > 0

    async def reminders_for(self, match_id: int) -> list[tuple[int, int, int]]:
        rows = await self.tx.fetchall(
            "SELECT turn, deadline_at, point_seconds FROM reminders_sent WHERE match_id = ? "
            "ORDER BY turn, deadline_at, point_seconds DESC",
            match_id,
        )
        return [(r["turn"], r["deadline_at"], r["point_seconds"]) for r in rows]
