"""League tables on both databases: their migration, guards against doing things twice, joins."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from storage import ConflictError, Session, Store
from storage.leagues import LeagueQueries, RatingRecord
from storage.migrate import migrations_for

LEAGUE_TABLES = (
    "leagues",
    "league_players",
    "league_rounds",
    "league_games",
    "league_byes",
    "rated_matches",
    "ratings",
)


@pytest.fixture
async def lstore(db_url: str) -> AsyncIterator[Store]:
    opened = await Store.open(db_url)
    try:
        yield opened
    finally:
        await opened.close()


async def new_league(q: LeagueQueries, name: str = "Spring", guild: str = "g1") -> int:
    return await q.insert_league(
        guild_id=guild,
        channel_id="c1",
        name=name,
        created_by="mod",
        format="swiss",
        rounds=3,
        round_seconds=3600,
        turn_seconds=600,
        start_seconds=1800,
        no_show_limit=3,
        ruleset="classic",
        realm="veldt",
        bye_halves=2,
        missed_halves=0,
        now=1_000,
    )


async def new_match(s: Session, red: str, blue: str, *, guild: str | None = "g1") -> int:
    match_id = await s.insert_match(
        created_by=red,
        guild_id=guild,
        channel_id="c1",
        ruleset="classic",
        realm="veldt",
        board="classic",
        symmetric=False,
        seed=1,
        turn_seconds=60,
        no_show_limit=3,
        grace_seconds=0,
        reminders=[],
        now=1_000,
    )
    await s.insert_seat(match_id, 0, red, None, "war", ["a"])
    await s.insert_seat(match_id, 1, blue, None, None, None)
    return match_id


async def test_a_fresh_database_gets_the_league_tables_from_the_migrations(db_url: str) -> None:
    store = await Store.open(db_url)
    try:
        async with store.read() as s:
            versions = await s.tx.fetchall(
                "SELECT version, name FROM schema_migrations ORDER BY version"
            )
            counts = {t: await s.tx.fetchval(f"SELECT COUNT(*) FROM {t}") for t in LEAGUE_TABLES}
    finally:
        await store.close()
    applied = [(r["version"], r["name"]) for r in versions]
    assert applied[:2] == [(1, "initial"), (2, "leagues")]
    assert applied == [(m.version, m.name) for m in migrations_for(store.dialect)]
    assert counts == dict.fromkeys(LEAGUE_TABLES, 0)


async def test_two_processes_opening_together_create_the_league_tables_once(db_url: str) -> None:
    stores = await asyncio.gather(Store.open(db_url), Store.open(db_url))
    try:
        async with stores[0].read() as s:
            count = await s.tx.fetchval("SELECT COUNT(*) FROM schema_migrations WHERE version = 2")
            assert await s.tx.fetchval("SELECT COUNT(*) FROM leagues") == 0
        assert count == 1
    finally:
        for store in stores:
            await store.close()


async def test_league_round_trip_and_version_guard(lstore: Store) -> None:
    async with lstore.write() as s:
        q = LeagueQueries(s)
        league_id = await new_league(q)
    with pytest.raises(ConflictError):
        async with lstore.write() as s:
            await new_league(LeagueQueries(s))
    async with lstore.write() as s:
        q = LeagueQueries(s)
        league = await q.get_league(league_id, lock=True)
        assert league is not None
        assert (league.status, league.format, league.rounds, league.bye_halves) == (
            "signup",
            "swiss",
            3,
            2,
        )
        assert await q.update_league(league_id, expect_version=league.version, status="running")
        assert not await q.update_league(league_id, expect_version=league.version, rounds=5)
        with pytest.raises(ValueError, match="cannot be updated"):
            await q.update_league(league_id, created_by="someone")
    async with lstore.read() as s:
        q = LeagueQueries(s)
        by_name = await q.get_league_by_name("g1", "spring")
        assert by_name is not None and by_name.status == "running" and by_name.rounds == 3
        assert [x.id for x in await q.list_leagues(guild_id="g1", statuses=["running"])] == [
            league_id
        ]
        assert await q.list_leagues(guild_id="g2") == []


async def test_players_sign_up_once_and_update(lstore: Store) -> None:
    async with lstore.write() as s:
        q = LeagueQueries(s)
        league_id = await new_league(q)
        await q.insert_player(league_id, "p1", "Ann", deck_id=None, now=5)
        await q.insert_player(league_id, "p2", "Bob", deck_id=None, now=6)
    with pytest.raises(ConflictError):
        async with lstore.write() as s:
            await LeagueQueries(s).insert_player(league_id, "p1", "Ann", deck_id=None, now=7)
    async with lstore.write() as s:
        q = LeagueQueries(s)
        assert await q.update_player(league_id, "p2", seed=1, start_mu=25.0, start_sigma=8.0)
        assert await q.update_player(league_id, "p1", seed=2, withdrawn_from_round=3)
        players = await q.list_players(league_id)
        assert [p.player_id for p in players] == ["p2", "p1"]
        assert players[1].withdrawn_from_round == 3 and players[0].start_mu == 25.0
        assert [x.id for x in await q.leagues_of("g1", "p1")] == [league_id]
        assert await q.delete_player(league_id, "p1")
        assert await q.get_player(league_id, "p1") is None


async def test_a_round_opens_once_and_games_take_one_result(lstore: Store) -> None:
    async with lstore.write() as s:
        q = LeagueQueries(s)
        league_id = await new_league(q)
        await q.insert_round(league_id, 1, opened_at=10, start_deadline=20, text="Round 1")
        await q.insert_game(league_id, 1, 1, "p1", "p2")
        assert await q.insert_bye(league_id, 1, "p3", "odd field")
        assert not await q.insert_bye(league_id, 1, "p3", "odd field")
    with pytest.raises(ConflictError):
        async with lstore.write() as s:
            await LeagueQueries(s).insert_round(
                league_id, 1, opened_at=11, start_deadline=21, text="again"
            )
    async with lstore.write() as s:
        q = LeagueQueries(s)
        assert await q.record_result(
            league_id, 1, 1, outcome="red_forfeit", detail="no deck", now=30
        )
        assert not await q.record_result(league_id, 1, 1, outcome="draw", detail="x", now=31)
        assert await q.complete_round(league_id, 1, 32)
        assert not await q.complete_round(league_id, 1, 33)
        (game,) = await q.list_games(league_id, round_no=1)
        assert (game.outcome, game.detail, game.recorded_at) == ("red_forfeit", "no deck", 30)
        (bye,) = await q.list_byes(league_id)
        assert (bye.round_no, bye.player_id) == (1, "p3")
        rounds = await q.list_rounds(league_id)
        assert [(r.round_no, r.completed_at, r.explanation) for r in rounds] == [(1, 32, "Round 1")]


async def test_matches_link_once_and_pending_games_show_the_match(lstore: Store) -> None:
    async with lstore.write() as s:
        q = LeagueQueries(s)
        league_id = await new_league(q)
        await q.insert_round(league_id, 1, opened_at=10, start_deadline=20, text="Round 1")
        await q.insert_game(league_id, 1, 1, "p1", "p2")
        first = await new_match(s, "p1", "p2")
        second = await new_match(s, "p1", "p2")
        assert await q.link_match(league_id, 1, 1, first)
        assert not await q.link_match(league_id, 1, 1, second)
        await s.update_match(first, status="ended", winner="red", end_reason="sanctum_captured")
        await s.update_seat(first, 0, side="red", turns_with_orders=4)
        await s.update_seat(first, 1, side="blue", turns_with_orders=2)
        for turn in (1, 2, 3, 4):
            await s.insert_turn(
                first, turn, orders={}, report={}, state={}, no_shows=[], cause="x", now=1, node="n"
            )
    async with lstore.read() as s:
        q = LeagueQueries(s)
        (linked,) = await q.pending_linked(league_id)
        assert linked.game.match_id == first
        assert (linked.status, linked.winner, linked.turns) == ("ended", "red", 4)
        assert [(x.player_id, x.side, x.has_deck, x.turns_with_orders) for x in linked.seats] == [
            ("p1", "red", True, 4),
            ("p2", "blue", False, 2),
        ]
        game = await q.game_for_match(first)
        assert game is not None and game.board == 1
        tally = await q.turn_tally("p2", "g1")
        assert (tally.turns_played, tally.turns_with_orders) == (4, 2)
        assert (await q.turn_tally("p2", "elsewhere")).turns_played == 0
    async with lstore.write() as s:
        q = LeagueQueries(s)
        assert await q.unlink_match(league_id, 1, 1, first)
        assert await q.pending_linked(league_id) == []
        assert await q.link_match(league_id, 1, 1, second)


async def test_ratings_upsert_per_server(lstore: Store) -> None:
    rating = RatingRecord("g1", "p1", "Ann", 25.0, 8.3, 0, 0, 0, 0, 1)
    async with lstore.write() as s:
        q = LeagueQueries(s)
        await q.put_rating(rating)
        await q.put_rating(
            RatingRecord("g1", "p1", "Ann B", 27.5, 7.0, 1, 1, 0, 0, 2),
        )
        await q.put_rating(RatingRecord("g2", "p1", "Ann", 20.0, 8.0, 1, 0, 0, 1, 2))
    async with lstore.read() as s:
        q = LeagueQueries(s)
        got = await q.get_rating("g1", "p1")
        assert got is not None and (got.name, got.mu, got.games, got.wins) == ("Ann B", 27.5, 1, 1)
        assert [r.guild_id for r in await q.list_ratings("g2")] == ["g2"]
        assert await q.get_rating("g1", "nobody") is None


async def test_finished_matches_wait_for_rating_until_marked_once(lstore: Store) -> None:
    async with lstore.write() as s:
        q = LeagueQueries(s)
        league_id = await new_league(q)
        await q.update_league(league_id, status="running")
        await q.insert_round(league_id, 1, opened_at=10, start_deadline=20, text="Round 1")
        await q.insert_game(league_id, 1, 1, "p1", "p2")
        casual = await new_match(s, "p1", "p2")
        held = await new_match(s, "p1", "p2")
        no_guild = await new_match(s, "p1", "p2", guild=None)
        assert await q.link_match(league_id, 1, 1, held)
        for match_id in (casual, held, no_guild):
            await s.update_match(match_id, status="ended", winner="red", ended_at=50)
        await s.update_seat(casual, 0, side="red")
        await s.update_seat(casual, 1, side="blue")
    async with lstore.write() as s:
        q = LeagueQueries(s)
        (pending,) = await q.unrated_matches(10)
        assert (pending.match_id, pending.guild_id, pending.winner) == (casual, "g1", "red")
        assert [(x.player_id, x.side) for x in pending.seats] == [("p1", "red"), ("p2", "blue")]
        assert await q.mark_rated(casual, "g1", rated=True, now=60)
        assert not await q.mark_rated(casual, "g1", rated=True, now=61)
        assert await q.unrated_matches(10) == []
        await q.update_league(league_id, status="ended")
        # Once its league is over, a match the league never recorded is rated like any other.
        assert [m.match_id for m in await q.unrated_matches(10)] == [held]
