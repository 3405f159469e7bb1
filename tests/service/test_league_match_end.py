"""A league records a game's result when its match ends, not when the step next looks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from service.leagues.records import Outcome
from service.matches import MatchEnded
from storage.leagues import LeagueQueries
from tests.service.leagues.harness import Harness, harness
from tests.storage.backends import BACKENDS


@pytest.fixture(params=BACKENDS)
async def h(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness(str(request.param), tmp_path) as made:
        made.matches.add_end_listener(made.leagues.record_match_end)
        yield made


async def two_player_league(h: Harness, **settings: object) -> int:
    league_id = await h.create("Spring", rounds=1, **settings)
    await h.sign_up(league_id, "ab")
    await h.leagues.start(league_id, by="mod", moderator=True)
    return league_id


async def test_a_concession_is_recorded_and_rated_at_once(h: Harness) -> None:
    league_id = await two_player_league(h)
    await h.concede(league_id, 1, "pa", "pb")
    (game,) = await h.games(league_id, 1)
    winner_side = "red" if game.red_id == "pa" else "blue"
    assert game.outcome == (Outcome.RED_WIN if winner_side == "red" else Outcome.BLUE_WIN).value
    assert game.detail == "concession" and game.recorded_at is not None
    (result,) = await h.texts("league_result")
    assert "(concession)" in result
    async with h.store.read() as s:
        ratings = {r.player_id: r for r in await LeagueQueries(s).list_ratings(h.guild)}
    assert ratings["pa"].wins == 1 and ratings["pb"].losses == 1
    report = await h.leagues.step()
    assert report.recorded == [] and report.completed == [(league_id, 1)]
    assert len(await h.outbox("league_result")) == 1
    async with h.store.read() as s:
        again = {r.player_id: r for r in await LeagueQueries(s).list_ratings(h.guild)}
    assert again == ratings


async def test_a_no_show_limit_is_recorded_as_a_forfeit_at_once(h: Harness) -> None:
    league_id = await two_player_league(h, turn_seconds=60, no_show_limit=2)
    (game,) = await h.games(league_id, 1)
    assert game.match_id is not None
    for turn in (1, 2):
        await h.matches.confirm(game.match_id, game.red_id, turn=turn)
        h.clock.advance(60)
        await h.matches.run_due()
    (game,) = await h.games(league_id, 1)
    assert game.outcome == Outcome.BLUE_FORFEIT.value
    assert game.detail == "blue reached the no-show limit"
    assert (game.red_turns, game.red_turns_with_orders) == (2, 2)
    assert (game.blue_turns, game.blue_turns_with_orders) == (2, 0)
    async with h.store.read() as s:
        assert await LeagueQueries(s).list_ratings(h.guild) == []
    assert (await h.leagues.step()).recorded == []


async def test_the_notice_and_the_step_together_record_once(h: Harness) -> None:
    league_id = await two_player_league(h)
    heard: list[MatchEnded] = []

    async def keep(ended: MatchEnded) -> None:
        heard.append(ended)

    h.matches.remove_end_listener(h.leagues.record_match_end)
    h.matches.add_end_listener(keep)
    await h.draw(league_id, 1, "pa", "pb")
    (game,) = await h.games(league_id, 1)
    assert game.outcome is None
    (ended,) = heard
    report, recorded = await asyncio.gather(h.leagues.step(), h.leagues.record_match_end(ended))
    (game,) = await h.games(league_id, 1)
    assert game.outcome == Outcome.DRAW.value
    assert len(report.recorded) + int(recorded) == 1
    assert len(await h.outbox("league_result")) == 1
    assert await h.leagues.record_match_end(ended) is False


async def test_a_match_outside_the_leagues_is_left_to_the_ratings_step(h: Harness) -> None:
    await two_player_league(h)
    a_deck, b_deck = await h.deck("pa"), await h.deck("pb")
    match = await h.matches.create_match(
        "pa", deck_id=a_deck, opponent_id="pb", guild_id=h.guild, channel_id=h.channel
    )
    await h.matches.join_match(match.id, "pb", b_deck)
    await h.matches.start_match(match.id, "pa")
    await h.matches.concede(match.id, "pb")
    assert await h.outbox("league_result") == []
    assert (await h.leagues.step()).rated_matches == 1
