"""League queries: seasons, entrants, rounds, games, byes and ratings.

The tables come from migration 0002 (`storage/migrations/<dialect>/0002_leagues.sql`; 0004 adds
`leagues.start_chosen`): the same portable types as the match tables (TEXT, INTEGER, BIGINT,
times in milliseconds since the epoch, points in halves so that every score stays an exact
integer).

`LeagueQueries` binds the queries to an open `Session`, so a caller composes league changes with
match queries and outbox rows in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

from storage.db import Row
from storage.league_records import (
    FinishedMatch,
    LeagueByeRecord,
    LeagueGameRecord,
    LeaguePlayerRecord,
    LeagueRecord,
    LeagueRoundRecord,
    LinkedMatch,
    MatchSeatFacts,
    RatingRecord,
    TurnTally,
)
from storage.records import LeagueStatus, MatchStatus
from storage.store import Session

# The records are imported from here too: this module is the league tables' one interface.
__all__ = [
    "FinishedMatch",
    "LeagueByeRecord",
    "LeagueGameRecord",
    "LeaguePlayerRecord",
    "LeagueQueries",
    "LeagueRecord",
    "LeagueRoundRecord",
    "LinkedMatch",
    "MatchSeatFacts",
    "RatingRecord",
    "TurnTally",
]


_LEAGUE_UPDATABLE = frozenset(
    {
        "channel_id",
        "status",
        "format",
        "rounds",
        "round_seconds",
        "turn_seconds",
        "start_seconds",
        "start_chosen",
        "no_show_limit",
        "ruleset",
        "realm",
        "deadline_clock",
        "deadline_days",
        "deadline_zone",
        "bye_halves",
        "missed_halves",
        "signup_opens_at",
        "signup_closes_at",
        "checkin_opens_at",
        "checkin_closes_at",
        "starts_at",
        "current_round",
        "started_at",
        "ended_at",
    }
)
_PLAYER_UPDATABLE = frozenset(
    {
        "name",
        "deck_id",
        "seed",
        "checked_in_at",
        "joined_round",
        "withdrawn_from_round",
        "start_mu",
        "start_sigma",
    }
)


def _build(cls: Any, row: Row) -> Any:
    return cls(**{f.name: row[f.name] for f in fields(cls)})


def _league(row: Row) -> LeagueRecord:
    record: LeagueRecord = _build(LeagueRecord, row)
    return replace(
        record, status=LeagueStatus(record.status), start_chosen=bool(record.start_chosen)
    )


def _player(row: Row) -> LeaguePlayerRecord:
    record: LeaguePlayerRecord = _build(LeaguePlayerRecord, row)
    return record


def _round(row: Row) -> LeagueRoundRecord:
    record: LeagueRoundRecord = _build(LeagueRoundRecord, row)
    return record


def _game(row: Row) -> LeagueGameRecord:
    record: LeagueGameRecord = _build(LeagueGameRecord, row)
    return record


def _rating(row: Row) -> RatingRecord:
    record: RatingRecord = _build(RatingRecord, row)
    return record


def _sets(fields: dict[str, Any], allowed: frozenset[str]) -> tuple[str, list[Any]]:
    parts: list[str] = []
    args: list[Any] = []
    for name, value in fields.items():
        if name not in allowed:
            raise ValueError(f"column {name!r} cannot be updated")
        parts.append(f"{name} = ?")
        args.append(value)
    return ", ".join(parts), args


class LeagueQueries:
    """The league queries, bound to one open transaction."""

    def __init__(self, session: Session) -> None:
        self.tx = session.tx
        self._for_update = " FOR UPDATE" if session.dialect == "postgres" else ""

    # --- leagues ----------------------------------------------------------------------------

    async def insert_league(
        self,
        *,
        guild_id: str,
        channel_id: str | None,
        name: str,
        created_by: str,
        format: str,
        rounds: int,
        round_seconds: int,
        turn_seconds: int,
        start_seconds: int,
        no_show_limit: int,
        ruleset: str,
        realm: str,
        bye_halves: int,
        missed_halves: int,
        now: int,
        start_chosen: bool = True,
    ) -> int:
        league_id = await self.tx.fetchval(
            "INSERT INTO leagues (guild_id, channel_id, name, created_by, status, format, rounds, "
            "round_seconds, turn_seconds, start_seconds, start_chosen, no_show_limit, ruleset, "
            "realm, bye_halves, missed_halves, created_at) "
            "VALUES (?, ?, ?, ?, 'signup', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            guild_id,
            channel_id,
            name,
            created_by,
            format,
            rounds,
            round_seconds,
            turn_seconds,
            start_seconds,
            int(start_chosen),
            no_show_limit,
            ruleset,
            realm,
            bye_halves,
            missed_halves,
            now,
        )
        return int(league_id)

    async def get_league(self, league_id: int, *, lock: bool = False) -> LeagueRecord | None:
        suffix = self._for_update if lock else ""
        row = await self.tx.fetchone(f"SELECT * FROM leagues WHERE id = ?{suffix}", league_id)
        return None if row is None else _league(row)

    async def get_league_by_name(self, guild_id: str, name: str) -> LeagueRecord | None:
        row = await self.tx.fetchone(
            "SELECT * FROM leagues WHERE guild_id = ? AND LOWER(name) = LOWER(?)", guild_id, name
        )
        return None if row is None else _league(row)

    async def list_leagues(
        self, *, guild_id: str | None = None, statuses: Sequence[str] | None = None
    ) -> list[LeagueRecord]:
        where: list[str] = []
        args: list[Any] = []
        if guild_id is not None:
            where.append("guild_id = ?")
            args.append(guild_id)
        if statuses is not None:
            where.append(f"status IN ({', '.join('?' for _ in statuses)})")
            args.extend(statuses)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = await self.tx.fetchall(f"SELECT * FROM leagues{clause} ORDER BY id", *args)
        return [_league(r) for r in rows]

    async def update_league(
        self, league_id: int, *, expect_version: int | None = None, **fields: Any
    ) -> bool:
        """Set columns and bump the version; with `expect_version`, only if unchanged since."""
        clause, args = _sets(fields, _LEAGUE_UPDATABLE)
        sets = f"{clause}, version = version + 1" if clause else "version = version + 1"
        sql = f"UPDATE leagues SET {sets} WHERE id = ?"
        args.append(league_id)
        if expect_version is not None:
            sql += " AND version = ?"
            args.append(expect_version)
        return await self.tx.execute(sql, *args) > 0

    # --- players ----------------------------------------------------------------------------

    async def insert_player(
        self,
        league_id: int,
        player_id: str,
        name: str,
        *,
        deck_id: int | None,
        now: int,
        joined_round: int = 1,
        checked_in_at: int | None = None,
    ) -> None:
        """Raises `ConflictError` when the player is in this league already."""
        await self.tx.execute(
            "INSERT INTO league_players (league_id, player_id, name, deck_id, signed_up_at, "
            "checked_in_at, joined_round) VALUES (?, ?, ?, ?, ?, ?, ?)",
            league_id,
            player_id,
            name,
            deck_id,
            now,
            checked_in_at,
            joined_round,
        )

    async def get_player(self, league_id: int, player_id: str) -> LeaguePlayerRecord | None:
        row = await self.tx.fetchone(
            "SELECT * FROM league_players WHERE league_id = ? AND player_id = ?",
            league_id,
            player_id,
        )
        return None if row is None else _player(row)

    async def list_players(self, league_id: int) -> list[LeaguePlayerRecord]:
        rows = await self.tx.fetchall(
            "SELECT * FROM league_players WHERE league_id = ? "
            "ORDER BY seed IS NULL, seed, signed_up_at, player_id",
            league_id,
        )
        return [_player(r) for r in rows]

    async def update_player(self, league_id: int, player_id: str, **fields: Any) -> bool:
        clause, args = _sets(fields, _PLAYER_UPDATABLE)
        count = await self.tx.execute(
            f"UPDATE league_players SET {clause} WHERE league_id = ? AND player_id = ?",
            *args,
            league_id,
            player_id,
        )
        return count > 0

    async def delete_player(self, league_id: int, player_id: str) -> bool:
        count = await self.tx.execute(
            "DELETE FROM league_players WHERE league_id = ? AND player_id = ?",
            league_id,
            player_id,
        )
        return count > 0

    async def leagues_of(self, guild_id: str, player_id: str) -> list[LeagueRecord]:
        rows = await self.tx.fetchall(
            "SELECT l.* FROM leagues l JOIN league_players p ON p.league_id = l.id "
            "WHERE l.guild_id = ? AND p.player_id = ? ORDER BY l.id",
            guild_id,
            player_id,
        )
        return [_league(r) for r in rows]

    # --- rounds, games, byes ----------------------------------------------------------------

    async def insert_round(
        self, league_id: int, round_no: int, *, opened_at: int, start_deadline: int, text: str
    ) -> None:
        """Raises `ConflictError` when the round is open already: the guard against opening it
        twice."""
        await self.tx.execute(
            "INSERT INTO league_rounds (league_id, round_no, opened_at, start_deadline, "
            "explanation) VALUES (?, ?, ?, ?, ?)",
            league_id,
            round_no,
            opened_at,
            start_deadline,
            text,
        )

    async def list_rounds(self, league_id: int) -> list[LeagueRoundRecord]:
        rows = await self.tx.fetchall(
            "SELECT * FROM league_rounds WHERE league_id = ? ORDER BY round_no", league_id
        )
        return [_round(r) for r in rows]

    async def complete_round(self, league_id: int, round_no: int, now: int) -> bool:
        """Mark the round complete; False when it was already."""
        count = await self.tx.execute(
            "UPDATE league_rounds SET completed_at = ? "
            "WHERE league_id = ? AND round_no = ? AND completed_at IS NULL",
            now,
            league_id,
            round_no,
        )
        return count > 0

    async def insert_game(
        self, league_id: int, round_no: int, board: int, red_id: str, blue_id: str
    ) -> None:
        await self.tx.execute(
            "INSERT INTO league_games (league_id, round_no, board, red_id, blue_id) "
            "VALUES (?, ?, ?, ?, ?)",
            league_id,
            round_no,
            board,
            red_id,
            blue_id,
        )

    async def list_games(
        self, league_id: int, *, round_no: int | None = None
    ) -> list[LeagueGameRecord]:
        if round_no is None:
            rows = await self.tx.fetchall(
                "SELECT * FROM league_games WHERE league_id = ? ORDER BY round_no, board",
                league_id,
            )
        else:
            rows = await self.tx.fetchall(
                "SELECT * FROM league_games WHERE league_id = ? AND round_no = ? ORDER BY board",
                league_id,
                round_no,
            )
        return [_game(r) for r in rows]

    async def game_for_match(self, match_id: int) -> LeagueGameRecord | None:
        row = await self.tx.fetchone("SELECT * FROM league_games WHERE match_id = ?", match_id)
        return None if row is None else _game(row)

    async def link_match(self, league_id: int, round_no: int, board: int, match_id: int) -> bool:
        """Attach a match to a game that has none; False when another one was attached first."""
        count = await self.tx.execute(
            "UPDATE league_games SET match_id = ? WHERE league_id = ? AND round_no = ? "
            "AND board = ? AND match_id IS NULL AND outcome IS NULL",
            match_id,
            league_id,
            round_no,
            board,
        )
        return count > 0

    async def unlink_match(self, league_id: int, round_no: int, board: int, match_id: int) -> bool:
        count = await self.tx.execute(
            "UPDATE league_games SET match_id = NULL WHERE league_id = ? AND round_no = ? "
            "AND board = ? AND match_id = ? AND outcome IS NULL",
            league_id,
            round_no,
            board,
            match_id,
        )
        return count > 0

    async def record_result(
        self,
        league_id: int,
        round_no: int,
        board: int,
        *,
        outcome: str,
        detail: str,
        red_turns: int = 0,
        red_turns_with_orders: int = 0,
        blue_turns: int = 0,
        blue_turns_with_orders: int = 0,
        now: int,
    ) -> bool:
        """Set a game's result once; False when it already had one."""
        count = await self.tx.execute(
            "UPDATE league_games SET outcome = ?, detail = ?, red_turns = ?, "
            "red_turns_with_orders = ?, blue_turns = ?, blue_turns_with_orders = ?, "
            "recorded_at = ? WHERE league_id = ? AND round_no = ? AND board = ? "
            "AND outcome IS NULL",
            outcome,
            detail,
            red_turns,
            red_turns_with_orders,
            blue_turns,
            blue_turns_with_orders,
            now,
            league_id,
            round_no,
            board,
        )
        return count > 0

    async def insert_bye(self, league_id: int, round_no: int, player_id: str, reason: str) -> bool:
        count = await self.tx.execute(
            "INSERT INTO league_byes (league_id, round_no, player_id, reason) VALUES (?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            league_id,
            round_no,
            player_id,
            reason,
        )
        return count > 0

    async def list_byes(self, league_id: int) -> list[LeagueByeRecord]:
        rows = await self.tx.fetchall(
            "SELECT * FROM league_byes WHERE league_id = ? ORDER BY round_no, player_id",
            league_id,
        )
        return [
            LeagueByeRecord(r["league_id"], r["round_no"], r["player_id"], r["reason"])
            for r in rows
        ]

    async def _seat_facts(self, match_ids: list[int]) -> dict[int, list[MatchSeatFacts]]:
        """The seats of each match, in seat order."""
        marks = ", ".join("?" for _ in match_ids)
        rows = await self.tx.fetchall(
            "SELECT match_id, player_id, side, spells IS NOT NULL AS has_deck, "
            f"turns_with_orders FROM match_players WHERE match_id IN ({marks}) "
            "ORDER BY match_id, seat",
            *match_ids,
        )
        seats: dict[int, list[MatchSeatFacts]] = {i: [] for i in match_ids}
        for r in rows:
            seats[r["match_id"]].append(
                MatchSeatFacts(
                    r["player_id"], r["side"], bool(r["has_deck"]), r["turns_with_orders"]
                )
            )
        return seats

    async def pending_linked(self, league_id: int) -> list[LinkedMatch]:
        """Games without a result whose match exists, with the match's status and seats."""
        rows = await self.tx.fetchall(
            "SELECT g.*, m.status AS m_status, m.winner AS m_winner, "
            "m.end_reason AS m_end_reason, "
            "(SELECT COUNT(*) FROM turns t WHERE t.match_id = m.id) AS m_turns "
            "FROM league_games g JOIN matches m ON m.id = g.match_id "
            "WHERE g.league_id = ? AND g.outcome IS NULL ORDER BY g.round_no, g.board",
            league_id,
        )
        if not rows:
            return []
        seats = await self._seat_facts([r["match_id"] for r in rows])
        return [
            LinkedMatch(
                game=_game(r),
                status=MatchStatus(r["m_status"]),
                winner=r["m_winner"],
                end_reason=r["m_end_reason"],
                turns=int(r["m_turns"]),
                seats=tuple(seats[r["match_id"]]),
            )
            for r in rows
        ]

    # --- ratings ----------------------------------------------------------------------------

    async def unrated_matches(self, limit: int) -> list[FinishedMatch]:
        """Ended matches of a server that no running league holds and no rating has counted
        (a running league rates its own games when it records them)."""
        rows = await self.tx.fetchall(
            "SELECT m.id, m.guild_id, m.winner, m.end_reason FROM matches m "
            "WHERE m.status = 'ended' AND m.guild_id IS NOT NULL "
            "AND NOT EXISTS (SELECT 1 FROM rated_matches r WHERE r.match_id = m.id) "
            "AND NOT EXISTS (SELECT 1 FROM league_games g JOIN leagues l ON l.id = g.league_id "
            "WHERE g.match_id = m.id AND l.status = 'running') "
            "ORDER BY m.ended_at, m.id LIMIT ?",
            limit,
        )
        if not rows:
            return []
        seats = await self._seat_facts([r["id"] for r in rows])
        return [
            FinishedMatch(
                r["id"], r["guild_id"], r["winner"], r["end_reason"], tuple(seats[r["id"]])
            )
            for r in rows
        ]

    async def mark_rated(self, match_id: int, guild_id: str, *, rated: bool, now: int) -> bool:
        """Note that the ratings have counted a match (or decided not to); False when they
        already had: the guard that rates each match once."""
        count = await self.tx.execute(
            "INSERT INTO rated_matches (match_id, guild_id, rated, rated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            match_id,
            guild_id,
            int(rated),
            now,
        )
        return count > 0

    async def get_rating(
        self, guild_id: str, player_id: str, *, lock: bool = False
    ) -> RatingRecord | None:
        suffix = self._for_update if lock else ""
        row = await self.tx.fetchone(
            f"SELECT * FROM ratings WHERE guild_id = ? AND player_id = ?{suffix}",
            guild_id,
            player_id,
        )
        return None if row is None else _rating(row)

    async def put_rating(self, rating: RatingRecord) -> None:
        await self.tx.execute(
            "INSERT INTO ratings (guild_id, player_id, name, mu, sigma, games, wins, draws, "
            "losses, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (guild_id, player_id) DO UPDATE SET name = excluded.name, "
            "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
            "wins = excluded.wins, draws = excluded.draws, losses = excluded.losses, "
            "updated_at = excluded.updated_at",
            rating.guild_id,
            rating.player_id,
            rating.name,
            rating.mu,
            rating.sigma,
            rating.games,
            rating.wins,
            rating.draws,
            rating.losses,
            rating.updated_at,
        )

    async def list_ratings(self, guild_id: str) -> list[RatingRecord]:
        rows = await self.tx.fetchall(
            "SELECT * FROM ratings WHERE guild_id = ? ORDER BY player_id", guild_id
        )
        return [_rating(r) for r in rows]

    async def turn_tally(self, player_id: str, guild_id: str | None = None) -> TurnTally:
        """Turns the player's matches resolved, and how many of them the player gave orders in.

        Counts every match with at least one resolved turn (league or not), in one server when
        `guild_id` is given.
        """
        where = "mp.player_id = ?"
        args: list[Any] = [player_id]
        if guild_id is not None:
            where += " AND m.guild_id = ?"
            args.append(guild_id)
        row = await self.tx.fetchone(
            "SELECT COALESCE(SUM(mp.turns_with_orders), 0) AS with_orders, "
            "COALESCE(SUM((SELECT COUNT(*) FROM turns t WHERE t.match_id = m.id)), 0) AS played "
            f"FROM match_players mp JOIN matches m ON m.id = mp.match_id WHERE {where}",
            *args,
        )
        assert row is not None
        return TurnTally(int(row["played"]), int(row["with_orders"]))
