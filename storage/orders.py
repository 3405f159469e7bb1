"""Each side's orders for a turn, and the resolved turns."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from storage.db import Row
from storage.queries import JsonText, Queries, dumps
from storage.records import JsonDict, OrdersRecord, TurnRecord


def _turn(row: Row) -> TurnRecord:
    return TurnRecord(
        match_id=row["match_id"],
        turn=row["turn"],
        orders=json.loads(row["orders"]),
        report=json.loads(row["report"]),
        state=json.loads(row["state"]),
        no_shows=tuple(json.loads(row["no_shows"])),
        cause=row["cause"],
        resolved_at=row["resolved_at"],
        resolved_by=row["resolved_by"],
    )


class OrderQueries(Queries):
    """Orders and resolved turns."""

    # --- orders -----------------------------------------------------------------------------

    async def get_orders(self, match_id: int, turn: int) -> dict[str, OrdersRecord]:
        rows = await self.tx.fetchall(
            "SELECT * FROM orders WHERE match_id = ? AND turn = ?", match_id, turn
        )
        return {
            r["side"]: OrdersRecord(
                r["match_id"],
                r["turn"],
                r["side"],
                json.loads(r["orders"]),
                bool(r["confirmed"]),
                r["updated_at"],
            )
            for r in rows
        }

    async def put_orders(
        self, match_id: int, turn: int, side: str, orders: JsonDict, *, confirmed: bool, now: int
    ) -> None:
        await self.tx.execute(
            "INSERT INTO orders (match_id, turn, side, orders, confirmed, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (match_id, turn, side) DO UPDATE SET "
            "orders = excluded.orders, confirmed = excluded.confirmed, "
            "updated_at = excluded.updated_at",
            match_id,
            turn,
            side,
            dumps(orders),
            int(confirmed),
            now,
        )

    async def set_confirmed(
        self, match_id: int, turn: int, side: str, confirmed: bool, now: int
    ) -> bool:
        count = await self.tx.execute(
            "UPDATE orders SET confirmed = ?, updated_at = ? "
            "WHERE match_id = ? AND turn = ? AND side = ?",
            int(confirmed),
            now,
            match_id,
            turn,
            side,
        )
        return count > 0

    async def delete_orders(self, match_id: int, turn: int, side: str) -> None:
        await self.tx.execute(
            "DELETE FROM orders WHERE match_id = ? AND turn = ? AND side = ?",
            match_id,
            turn,
            side,
        )

    # --- turns ------------------------------------------------------------------------------

    async def insert_turn(
        self,
        match_id: int,
        turn: int,
        *,
        orders: Mapping[str, JsonDict | None],
        report: JsonDict | JsonText,
        state: JsonDict | JsonText,
        no_shows: Sequence[str],
        cause: str,
        now: int,
        node: str,
    ) -> None:
        """Raises `ConflictError` if the turn was already resolved: the last line of defence."""
        await self.tx.execute(
            "INSERT INTO turns (match_id, turn, orders, report, state, no_shows, cause, "
            "resolved_at, resolved_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            match_id,
            turn,
            dumps(dict(orders)),
            dumps(report),
            dumps(state),
            json.dumps(list(no_shows)),
            cause,
            now,
            node,
        )

    async def get_turn(self, match_id: int, turn: int) -> TurnRecord | None:
        row = await self.tx.fetchone(
            "SELECT * FROM turns WHERE match_id = ? AND turn = ?", match_id, turn
        )
        return None if row is None else _turn(row)

    async def list_turns(self, match_id: int) -> list[TurnRecord]:
        rows = await self.tx.fetchall(
            "SELECT * FROM turns WHERE match_id = ? ORDER BY turn", match_id
        )
        return [_turn(r) for r in rows]

    async def turn_counts(self) -> dict[tuple[int, int], int]:
        """How many rows each (match, turn) has; used by audits and tests."""
        rows = await self.tx.fetchall(
            "SELECT match_id, turn, COUNT(*) AS n FROM turns GROUP BY match_id, turn"
        )
        return {(r["match_id"], r["turn"]): int(r["n"]) for r in rows}
