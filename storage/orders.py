"""Each side's orders for a turn, and the resolved turns."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from storage.db import Row
from storage.queries import JsonText, Queries, dumps
from storage.records import JsonDict, NewTurn, OrdersRecord, TurnRecord

_INSERT_TURN = (
    "INSERT INTO turns (match_id, turn, orders, report, state, no_shows, cause, "
    "resolved_at, resolved_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _turn_row(new: NewTurn, now: int, node: str) -> tuple[Any, ...]:
    return (
        new.match_id,
        new.turn,
        dumps(dict(new.orders)),
        dumps(new.report),
        dumps(new.state),
        json.dumps(list(new.no_shows)),
        new.cause,
        now,
        node,
    )


def _orders(r: Row) -> OrdersRecord:
    return OrdersRecord(
        r["match_id"],
        r["turn"],
        r["side"],
        json.loads(r["orders"]),
        bool(r["confirmed"]),
        r["updated_at"],
    )


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
        return {r["side"]: _orders(r) for r in rows}

    async def get_orders_of_turns(
        self, turns: Sequence[tuple[int, int]]
    ) -> dict[tuple[int, int], dict[str, OrdersRecord]]:
        """`get_orders` of each (match_id, turn), in one query."""
        out: dict[tuple[int, int], dict[str, OrdersRecord]] = {key: {} for key in turns}
        if not turns:
            return out
        where = " OR ".join("(match_id = ? AND turn = ?)" for _ in turns)
        rows = await self.tx.fetchall(
            f"SELECT * FROM orders WHERE {where}", *(v for key in turns for v in key)
        )
        for r in rows:
            out[(r["match_id"], r["turn"])][r["side"]] = _orders(r)
        return out

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
        new = NewTurn(match_id, turn, orders, report, state, no_shows, cause)
        await self.tx.execute(_INSERT_TURN, *_turn_row(new, now, node))

    async def insert_turns(self, turns: Sequence[NewTurn], *, now: int, node: str) -> None:
        """`insert_turn` of each, in one statement; `ConflictError` if any was resolved already
        (and then none is written, the transaction being rolled back)."""
        await self.tx.executemany(_INSERT_TURN, [_turn_row(t, now, node) for t in turns])

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
