"""Decks, matches and their seats."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.state import Side
from storage.db import Row
from storage.queries import JsonText, Queries, loads_opt, set_clause, set_clauses
from storage.records import DeckRecord, MatchRecord, MatchStatus, SeatRecord

_MATCH_COLUMNS = (
    "id, guild_id, channel_id, created_by, ruleset, realm, board, symmetric_map, seed, "
    "turn_seconds, no_show_limit, grace_seconds, reminders, status, turn, deadline_at, "
    "paused_remaining_ms, deadline_clock, deadline_days, deadline_zone, "
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
    spells = loads_opt(row["spells"])
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
        config=loads_opt(row.get("config")),
        initial_state=loads_opt(row.get("initial_state")),
        state=loads_opt(row.get("state")),
        deadline_clock=row["deadline_clock"],
        deadline_days=row["deadline_days"],
        deadline_zone=row["deadline_zone"],
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


class MatchQueries(Queries):
    """Decks, matches and seats."""

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
        deadline_clock: int | None = None,
        deadline_days: str | None = None,
        deadline_zone: str | None = None,
    ) -> int:
        match_id = await self.tx.fetchval(
            "INSERT INTO matches (guild_id, channel_id, created_by, ruleset, realm, board, "
            "symmetric_map, seed, turn_seconds, no_show_limit, grace_seconds, reminders, status, "
            "turn, created_at, deadline_clock, deadline_days, deadline_zone) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', 0, ?, ?, ?, ?) "
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
            deadline_clock,
            deadline_days,
            deadline_zone,
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

    async def get_state_text(self, match_id: int) -> JsonText | None:
        """The match's current state as stored, not decoded: what a worker process resolves
        from (decoding a late-game state costs the event loop more than the engine's turn)."""
        row = await self.tx.fetchone("SELECT state FROM matches WHERE id = ?", match_id)
        return None if row is None or row["state"] is None else JsonText(row["state"])

    async def get_seats(self, match_ids: Sequence[int]) -> dict[int, list[SeatRecord]]:
        """Each match's seats, in seat order."""
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
        seats = await self.get_seats([match_id])
        return _match(row, seats[match_id])

    async def get_matches_with_state_text(
        self, match_ids: Sequence[int]
    ) -> list[tuple[MatchRecord, JsonText | None]]:
        """The matches that exist of `match_ids`, in that order, each with its state's stored
        text (`get_match` and `get_state_text` of each, in two queries for them all)."""
        if not match_ids:
            return []
        marks = ", ".join("?" for _ in match_ids)
        rows = await self.tx.fetchall(
            f"SELECT {_MATCH_COLUMNS}, state AS state_text FROM matches WHERE id IN ({marks})",
            *match_ids,
        )
        seats = await self.get_seats([r["id"] for r in rows])
        by_id = {r["id"]: r for r in rows}
        out: list[tuple[MatchRecord, JsonText | None]] = []
        for match_id in match_ids:
            row = by_id.get(match_id)
            if row is not None:
                text = row.pop("state_text")
                out.append((_match(row, seats[match_id]), None if text is None else JsonText(text)))
        return out

    async def lock_versions(self, match_ids: Sequence[int]) -> dict[int, int]:
        """The matches' versions, their rows held until the transaction ends (PostgreSQL; on
        SQLite the write transaction already excludes every other writer): the version check
        of a batch of `update_matches`, made once for them all."""
        if not match_ids:
            return {}
        marks = ", ".join("?" for _ in match_ids)
        rows = await self.tx.fetchall(
            f"SELECT id, version FROM matches WHERE id IN ({marks}) ORDER BY id{self._for_update}",
            *match_ids,
        )
        return {r["id"]: r["version"] for r in rows}

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
        seats = await self.get_seats([r["id"] for r in rows])
        return [_match(r, seats[r["id"]]) for r in rows]

    async def matches_in_channel(self, channel_id: str) -> list[MatchRecord]:
        """Every match posting in the channel, newest first (a thread holds one match; a channel
        shared by several is what older league matches left behind)."""
        rows = await self.tx.fetchall(
            f"SELECT {_MATCH_COLUMNS} FROM matches WHERE channel_id = ? ORDER BY id DESC",
            channel_id,
        )
        seats = await self.get_seats([r["id"] for r in rows])
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
        clause, args = set_clause(fields, _MATCH_UPDATABLE)
        sets = f"{clause}, version = version + 1" if clause else "version = version + 1"
        sql = f"UPDATE matches SET {sets} WHERE id = ?"
        args.append(match_id)
        if expect_version is not None:
            sql += " AND version = ?"
            args.append(expect_version)
        return await self.tx.execute(sql, *args) > 0

    async def update_matches(self, changes: Sequence[tuple[int, int, Mapping[str, Any]]]) -> None:
        """`update_match(match_id, expect_version=version, **fields)` of each (match_id, version,
        fields), one statement per set of columns. The caller checked the versions with
        `lock_versions` in this transaction: no row can have moved since."""
        grouped = set_clauses(
            [(fields, (match_id, version)) for match_id, version, fields in changes],
            _MATCH_UPDATABLE,
        )
        for clause, rows in grouped.items():
            await self.tx.executemany(
                f"UPDATE matches SET {clause}, version = version + 1 WHERE id = ? AND version = ?",
                rows,
            )

    async def update_seats(self, changes: Sequence[tuple[int, int, Mapping[str, Any]]]) -> None:
        """`update_seat(match_id, seat, **fields)` of each (match_id, seat, fields), one
        statement per set of columns."""
        grouped = set_clauses(
            [(fields, (match_id, seat)) for match_id, seat, fields in changes], _SEAT_UPDATABLE
        )
        for clause, rows in grouped.items():
            await self.tx.executemany(
                f"UPDATE match_players SET {clause} WHERE match_id = ? AND seat = ?", rows
            )

    async def update_seat(self, match_id: int, seat: int, **fields: Any) -> None:
        clause, args = set_clause(fields, _SEAT_UPDATABLE)
        await self.tx.execute(
            f"UPDATE match_players SET {clause} WHERE match_id = ? AND seat = ?",
            *args,
            match_id,
            seat,
        )
