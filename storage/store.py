"""Every query of the application, written once for both databases.

`Store.write()` / `Store.read()` open a transaction and hand out a `Session` whose methods are the
queries. The service composes them: one resolution is one `write()` block, so its new state, turn
report, next deadline and outbox rows commit together or not at all.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from engine.state import Side
from storage.db import Database, Row, Tx, open_database
from storage.migrate import migrate
from storage.records import (
    DeckRecord,
    DueMatch,
    JsonDict,
    MatchRecord,
    MatchStatus,
    OrdersRecord,
    OutboxEntry,
    OutboxRecord,
    OutboxStatus,
    PendingDeadline,
    SeatRecord,
    TurnRecord,
)

# A turn is confirmed when this many orders rows of it are (one per side).
SIDE_COUNT = len(Side)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _loads_opt(text: str | None) -> Any:
    return None if text is None else json.loads(text)


_MATCH_COLUMNS = (
    "id, guild_id, channel_id, created_by, ruleset, realm, board, symmetric_map, seed, "
    "turn_seconds, no_show_limit, grace_seconds, reminders, status, turn, deadline_at, "
    "paused_remaining_ms, "
    "version, claimed_by, claimed_until, draw_offer_side, result, winner, end_reason, "
    "created_at, started_at, ended_at"
)
_MATCH_STATE_COLUMNS = ", config, initial_state, state"

# Columns `update_match` may set, and whether they hold JSON.
_MATCH_UPDATABLE = {
    "status": False,
    "turn": False,
    "config": True,
    "initial_state": True,
    "state": True,
    "deadline_at": False,
    "paused_remaining_ms": False,
    "claimed_by": False,
    "claimed_until": False,
    "draw_offer_side": False,
    "result": False,
    "winner": False,
    "end_reason": False,
    "started_at": False,
    "ended_at": False,
}
_SEAT_UPDATABLE = {
    "player_id": False,
    "side": False,
    "deck_id": False,
    "house": False,
    "spells": True,
    "no_shows": False,
    "grace_used": False,
    "toggle_request": False,
    "turns_with_orders": False,
}


def _seat(row: Row) -> SeatRecord:
    spells = _loads_opt(row["spells"])
    return SeatRecord(
        match_id=row["match_id"],
        seat=row["seat"],
        player_id=row["player_id"],
        side=None if row["side"] is None else Side(row["side"]),
        deck_id=row["deck_id"],
        house=row["house"],
        spells=None if spells is None else tuple(spells),
        no_shows=row["no_shows"],
        grace_used=bool(row["grace_used"]),
        toggle_request=bool(row["toggle_request"]),
        turns_with_orders=row["turns_with_orders"],
    )


def _match(row: Row, seats: Sequence[SeatRecord]) -> MatchRecord:
    return MatchRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        created_by=row["created_by"],
        ruleset=row["ruleset"],
        realm=row["realm"],
        board=row["board"],
        symmetric=bool(row["symmetric_map"]),
        seed=row["seed"],
        turn_seconds=row["turn_seconds"],
        no_show_limit=row["no_show_limit"],
        grace_seconds=row["grace_seconds"],
        reminders=tuple(json.loads(row["reminders"])),
        status=MatchStatus(row["status"]),
        turn=row["turn"],
        deadline_at=row["deadline_at"],
        paused_remaining_ms=row["paused_remaining_ms"],
        version=row["version"],
        claimed_by=row["claimed_by"],
        claimed_until=row["claimed_until"],
        draw_offer_side=row["draw_offer_side"],
        result=row["result"],
        winner=row["winner"],
        end_reason=row["end_reason"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        seats=tuple(seats),
        config=_loads_opt(row.get("config")),
        initial_state=_loads_opt(row.get("initial_state")),
        state=_loads_opt(row.get("state")),
    )


def _deck(row: Row) -> DeckRecord:
    return DeckRecord(
        id=row["id"],
        owner_id=row["owner_id"],
        name=row["name"],
        house=row["house"],
        spells=tuple(json.loads(row["spells"])),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
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


def _set_clause(fields: Mapping[str, Any], allowed: Mapping[str, bool]) -> tuple[str, list[Any]]:
    parts: list[str] = []
    args: list[Any] = []
    for name, value in fields.items():
        if name not in allowed:
            raise ValueError(f"column {name!r} cannot be updated")
        parts.append(f"{name} = ?")
        if allowed[name] and value is not None:
            args.append(_dumps(value))
        elif isinstance(value, bool):
            args.append(int(value))
        else:
            args.append(value)
    return ", ".join(parts), args


class Session:
    """The queries, bound to one open transaction."""

    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.dialect = tx.dialect
        # SQLite serialises writers with BEGIN IMMEDIATE; PostgreSQL needs row locks.
        self._for_update = " FOR UPDATE" if tx.dialect == "postgres" else ""
        self._skip_locked = " FOR UPDATE SKIP LOCKED" if tx.dialect == "postgres" else ""

    # --- decks ------------------------------------------------------------------------------

    async def insert_deck(
        self, owner_id: str, name: str, house: str, spells: Sequence[str], now: int
    ) -> DeckRecord:
        row = await self.tx.fetchone(
            "INSERT INTO decks (owner_id, name, house, spells, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?) RETURNING *",
            owner_id,
            name,
            house,
            json.dumps(list(spells)),
            now,
            now,
        )
        assert row is not None
        return _deck(row)

    async def update_deck(
        self, deck_id: int, house: str, spells: Sequence[str], now: int
    ) -> DeckRecord | None:
        row = await self.tx.fetchone(
            "UPDATE decks SET house = ?, spells = ?, updated_at = ? WHERE id = ? RETURNING *",
            house,
            json.dumps(list(spells)),
            now,
            deck_id,
        )
        return None if row is None else _deck(row)

    async def get_deck(self, deck_id: int) -> DeckRecord | None:
        row = await self.tx.fetchone("SELECT * FROM decks WHERE id = ?", deck_id)
        return None if row is None else _deck(row)

    async def get_deck_by_name(self, owner_id: str, name: str) -> DeckRecord | None:
        row = await self.tx.fetchone(
            "SELECT * FROM decks WHERE owner_id = ? AND name = ?", owner_id, name
        )
        return None if row is None else _deck(row)

    async def list_decks(self, owner_id: str) -> list[DeckRecord]:
        rows = await self.tx.fetchall(
            "SELECT * FROM decks WHERE owner_id = ? ORDER BY name", owner_id
        )
        return [_deck(r) for r in rows]

    async def delete_deck(self, deck_id: int) -> bool:
        return await self.tx.execute("DELETE FROM decks WHERE id = ?", deck_id) > 0

    # --- matches ----------------------------------------------------------------------------

    async def insert_match(
        self,
        *,
        created_by: str,
        guild_id: str | None,
        channel_id: str | None,
        ruleset: str,
        realm: str,
        board: str,
        symmetric: bool,
        seed: int,
        turn_seconds: int,
        no_show_limit: int,
        grace_seconds: int,
        reminders: Sequence[int],
        now: int,
    ) -> int:
        match_id = await self.tx.fetchval(
            "INSERT INTO matches (guild_id, channel_id, created_by, ruleset, realm, board, "
            "symmetric_map, seed, turn_seconds, no_show_limit, grace_seconds, reminders, status, "
            "turn, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', 0, ?) "
            "RETURNING id",
            guild_id,
            channel_id,
            created_by,
            ruleset,
            realm,
            board,
            int(symmetric),
            seed,
            turn_seconds,
            no_show_limit,
            grace_seconds,
            json.dumps(list(reminders)),
            now,
        )
        return int(match_id)

    async def insert_seat(  # noqa: PLR0917 - (match, seat, player, deck, house, spells) reads as a row
        self,
        match_id: int,
        seat: int,
        player_id: str | None,
        deck_id: int | None,
        house: str | None,
        spells: Sequence[str] | None,
    ) -> None:
        await self.tx.execute(
            "INSERT INTO match_players (match_id, seat, player_id, deck_id, house, spells) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            match_id,
            seat,
            player_id,
            deck_id,
            house,
            None if spells is None else json.dumps(list(spells)),
        )

    async def _seats(self, match_ids: Sequence[int]) -> dict[int, list[SeatRecord]]:
        out: dict[int, list[SeatRecord]] = {m: [] for m in match_ids}
        if not match_ids:
            return out
        marks = ", ".join("?" for _ in match_ids)
        rows = await self.tx.fetchall(
            f"SELECT * FROM match_players WHERE match_id IN ({marks}) ORDER BY match_id, seat",
            *match_ids,
        )
        for row in rows:
            out[row["match_id"]].append(_seat(row))
        return out

    async def get_match(
        self, match_id: int, *, lock: bool = False, with_state: bool = False
    ) -> MatchRecord | None:
        """`lock=True` holds the row until the transaction ends (PostgreSQL; on SQLite the
        write transaction already excludes every other writer)."""
        columns = _MATCH_COLUMNS + (_MATCH_STATE_COLUMNS if with_state else "")
        suffix = self._for_update if lock else ""
        row = await self.tx.fetchone(
            f"SELECT {columns} FROM matches WHERE id = ?{suffix}", match_id
        )
        if row is None:
            return None
        seats = await self._seats([match_id])
        return _match(row, seats[match_id])

    async def list_matches(
        self,
        *,
        player_id: str | None = None,
        player_prefix: str | None = None,
        guild_id: str | None = None,
        statuses: Iterable[str] | None = None,
        limit: int = 100,
    ) -> list[MatchRecord]:
        where: list[str] = []
        args: list[Any] = []
        if player_id is not None:
            where.append("id IN (SELECT match_id FROM match_players WHERE player_id = ?)")
            args.append(player_id)
        if player_prefix is not None:
            where.append(
                "id IN (SELECT match_id FROM match_players WHERE substr(player_id, 1, ?) = ?)"
            )
            args += [len(player_prefix), player_prefix]
        if guild_id is not None:
            where.append("guild_id = ?")
            args.append(guild_id)
        if statuses is not None:
            wanted = list(statuses)
            where.append(f"status IN ({', '.join('?' for _ in wanted)})")
            args.extend(wanted)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = await self.tx.fetchall(
            f"SELECT {_MATCH_COLUMNS} FROM matches{clause} ORDER BY id DESC LIMIT ?",
            *args,
            limit,
        )
        seats = await self._seats([r["id"] for r in rows])
        return [_match(r, seats[r["id"]]) for r in rows]

    async def matches_in_channel(self, channel_id: str) -> list[MatchRecord]:
        """Every match posting in the channel, newest first (a thread holds one match; a channel
        shared by several is what older league matches left behind)."""
        rows = await self.tx.fetchall(
            f"SELECT {_MATCH_COLUMNS} FROM matches WHERE channel_id = ? ORDER BY id DESC",
            channel_id,
        )
        seats = await self._seats([r["id"] for r in rows])
        return [_match(r, seats[r["id"]]) for r in rows]

    async def move_match_channel(
        self, match_id: int, from_channel_id: str, to_channel_id: str
    ) -> bool:
        """Move the match's posts to another channel, only if it still posts in `from_channel_id`
        (False otherwise). The version stays: where a match posts is no part of its game."""
        count = await self.tx.execute(
            "UPDATE matches SET channel_id = ? WHERE id = ? AND channel_id = ?",
            to_channel_id,
            match_id,
            from_channel_id,
        )
        return count > 0

    async def update_match(
        self, match_id: int, *, expect_version: int | None = None, **fields: Any
    ) -> bool:
        """Set columns and bump the version. With `expect_version`, only if nobody changed the
        match since it was read at that version (the compare-and-set of every resolution)."""
        clause, args = _set_clause(fields, _MATCH_UPDATABLE)
        sets = f"{clause}, version = version + 1" if clause else "version = version + 1"
        sql = f"UPDATE matches SET {sets} WHERE id = ?"
        args.append(match_id)
        if expect_version is not None:
            sql += " AND version = ?"
            args.append(expect_version)
        return await self.tx.execute(sql, *args) > 0

    async def update_seat(self, match_id: int, seat: int, **fields: Any) -> None:
        clause, args = _set_clause(fields, _SEAT_UPDATABLE)
        await self.tx.execute(
            f"UPDATE match_players SET {clause} WHERE match_id = ? AND seat = ?",
            *args,
            match_id,
            seat,
        )

    # --- deadlines and claims ---------------------------------------------------------------

    async def claim_due(self, now: int, node: str, lease_ms: int, limit: int) -> list[DueMatch]:
        """Take up to `limit` due matches nobody else holds; two processes never get the
        same one (row locks on PostgreSQL, the single writer on SQLite). A match is due when its
        deadline passed or when both sides confirmed its current turn: a confirmation commits
        before its resolution runs, so a process that died (or a resolution that failed) in
        between leaves a turn that only this sweep will pick up before its deadline.

        Not SKIP LOCKED: a match row is also locked, briefly, by a player giving orders, and a
        sweep that skipped it would leave the overdue turn for the next sweep. A second sweeper
        waits for the first one's claim to commit, then sees the claim and passes over the row."""
        rows = await self.tx.fetchall(
            "UPDATE matches SET claimed_by = ?, claimed_until = ? WHERE id IN ("
            " SELECT id FROM matches WHERE status = 'active'"
            " AND (deadline_at <= ? OR (SELECT COUNT(*) FROM orders o"
            "  WHERE o.match_id = matches.id AND o.turn = matches.turn AND o.confirmed = 1) = ?)"
            " AND (claimed_until IS NULL OR claimed_until <= ?)"
            f" ORDER BY deadline_at, id LIMIT ?{self._for_update})"
            " RETURNING id, turn, deadline_at",
            node,
            now + lease_ms,
            now,
            SIDE_COUNT,
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
            _dumps(orders),
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
        report: JsonDict,
        state: JsonDict,
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
            _dumps(dict(orders)),
            _dumps(report),
            _dumps(state),
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

    # --- outbox -----------------------------------------------------------------------------

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
            _dumps(entry.to_payload()),
            now,
            now,
        )
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


class Store:
    """A connected, migrated database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def dialect(self) -> str:
        return self.db.dialect

    @classmethod
    async def open(cls, url: str, *, pool_size: int = 8) -> Store:
        db = open_database(url, pool_size=pool_size)
        await db.connect()
        try:
            await migrate(db)
        except BaseException:
            await db.close()
            raise
        return cls(db)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Session]:
        async with self.db.transaction(write=True) as tx:
            yield Session(tx)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Session]:
        async with self.db.transaction(write=False) as tx:
            yield Session(tx)

    async def close(self) -> None:
        await self.db.close()
