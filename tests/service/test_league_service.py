"""The league service's rules one by one: permissions, windows, check-in, late join, withdrawal,
unstarted matches, reminders, round-robin byes, idempotent steps, ratings views, the alarm."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from cogs.leagues import profile_text, table_text
from service.clock import to_ms
from service.errors import NotAllowedError, NotFoundError, WrongStateError
from service.leagues.records import Outcome
from service.leagues.scheduler import NUDGE_JOB, SWEEP_JOB, WAKE_JOB, LeagueAlarm
from service.leagues.service import (
    LeagueActionError,
    LeagueRecord,
    LeagueService,
    LeagueSettings,
    StepReport,
)
from service.leagues.timespec import (
    TimeSpecError,
    describe_duration,
    parse_duration,
    parse_duration_or_default,
    parse_when,
)
from storage.leagues import LeagueQueries
from tests.service.jobs import EVENT_JOB_EXECUTED, job_outcome
from tests.service.leagues.harness import DAY, HOUR, Harness, harness
from tests.storage.backends import BACKENDS


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness("sqlite", tmp_path) as made:
        yield made


async def started(h: Harness, players: str, **settings: Any) -> int:
    league_id = await h.create(**settings)
    await h.sign_up(league_id, players)
    await h.leagues.start(league_id, by="mod", moderator=True)
    return league_id


# --- settings and permissions -----------------------------------------------------------------


async def test_only_moderators_manage_leagues(h: Harness) -> None:
    with pytest.raises(NotAllowedError):
        await h.leagues.create_league(
            guild_id=h.guild, channel_id=None, name="X", by="p1", moderator=False
        )
    league_id = await h.create()
    for action in (
        h.leagues.configure(league_id, by="p1", moderator=False, rounds=2),
        h.leagues.start(league_id, by="p1", moderator=False),
        h.leagues.end(league_id, by="p1", moderator=False),
        h.leagues.withdraw(league_id, "p2", by="p1"),
    ):
        with pytest.raises(NotAllowedError):
            await action


async def test_settings_are_checked_and_every_problem_named(h: Harness) -> None:
    with pytest.raises(LeagueActionError) as caught:
        await h.create(realm="atlantis", round_seconds=DAY, start_seconds=2 * DAY, bye_points=0.3)
    message = str(caught.value)
    assert "realm" in message and "fit within the round" in message and "bye points" in message
    league_id = await h.create()
    with pytest.raises(LeagueActionError, match="already has a league named"):
        await h.create("spring")
    changed = await h.leagues.configure(
        league_id, by="mod", moderator=True, format="round_robin", realm="badlands"
    )
    assert (changed.format, changed.realm) == ("round_robin", "badlands")
    with pytest.raises(LeagueActionError, match="Unknown league settings"):
        await h.leagues.configure(league_id, by="mod", moderator=True, colour="red")
    assert (await h.leagues.find_league(h.guild, " SPRING ")).id == league_id
    with pytest.raises(NotFoundError):
        await h.leagues.find_league(h.guild, "Autumn")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_default_start_window_follows_the_round_length(
    backend: str, tmp_path: Path
) -> None:
    async with harness(backend, tmp_path) as h:
        league_id = await h.create()
        league = await h.leagues.get_league(league_id)
        assert (league.start_seconds, league.start_chosen) == (2 * DAY, False)
        assert LeagueSettings.of(league).start_seconds == 0

        async def configure(**changes: int) -> LeagueRecord:
            return await h.leagues.configure(league_id, by="mod", moderator=True, **changes)

        assert (await configure(round_seconds=DAY)).start_seconds == 12 * HOUR
        assert (await configure(round_seconds=7 * DAY)).start_seconds == 2 * DAY
        chosen = await configure(start_seconds=3 * HOUR)
        assert (chosen.start_seconds, chosen.start_chosen) == (3 * HOUR, True)
        assert (await configure(round_seconds=DAY)).start_seconds == 3 * HOUR
        with pytest.raises(LeagueActionError, match="fit within the round"):
            await configure(round_seconds=HOUR)
        back = await configure(start_seconds=0)
        assert (back.start_seconds, back.start_chosen) == (12 * HOUR, False)
        assert (await configure(round_seconds=HOUR)).start_seconds == HOUR // 2
        await h.sign_up(league_id, "ab")
        await h.leagues.start(league_id, by="mod", moderator=True)
        (first,) = (await h.leagues.season(league_id)).rounds
        assert first.start_deadline - first.opened_at == HOUR // 2 * 1000


async def test_settings_cannot_change_after_the_start(h: Harness) -> None:
    league_id = await started(h, "ab")
    with pytest.raises(WrongStateError):
        await h.leagues.configure(league_id, by="mod", moderator=True, rounds=5)


# --- sign-up, check-in, start -----------------------------------------------------------------


async def test_signup_window_and_checkin_decide_who_is_entered(h: Harness) -> None:
    now = to_ms(h.clock.now())
    league_id = await h.create(
        signup_opens_at=now + HOUR * 1000,
        signup_closes_at=now + 3 * HOUR * 1000,
        checkin_opens_at=now + 2 * HOUR * 1000,
    )
    with pytest.raises(LeagueActionError, match="opens"):
        await h.leagues.signup(league_id, "pa", "A")
    h.clock.advance(HOUR)
    await h.sign_up(league_id, "abc")
    with pytest.raises(LeagueActionError, match=r"Check-in .* opens"):
        await h.leagues.checkin(league_id, "pa")
    h.clock.advance(HOUR)
    await h.leagues.checkin(league_id, "pa")
    await h.leagues.checkin(league_id, "pc")
    with pytest.raises(LeagueActionError, match="already checked in"):
        await h.leagues.checkin(league_id, "pa")
    with pytest.raises(LeagueActionError, match="not signed up"):
        await h.leagues.checkin(league_id, "pz")
    h.clock.advance(HOUR)
    with pytest.raises(LeagueActionError, match="closed"):
        await h.leagues.signup(league_id, "pd", "D")
    league, dropped = await h.leagues.start(league_id, by="mod", moderator=True)
    assert dropped == ["B"]
    season = await h.leagues.season(league_id)
    assert [p.player_id for p in season.players] == ["pa", "pc"]
    (started_text,) = await h.texts("league_started")
    assert "Not checked in, so not entered: B" in started_text
    assert league.rounds == 1  # two players: one round of Swiss is all there is


async def test_sign_up_closes_with_check_in_and_the_hint_follows_the_window(h: Harness) -> None:
    now = to_ms(h.clock.now())
    league_id = await h.create(
        checkin_opens_at=now + HOUR * 1000, checkin_closes_at=now + 2 * HOUR * 1000
    )
    league = await h.leagues.get_league(league_id)
    first = await h.leagues.signup(league_id, "pa", "A")
    assert "when check-in opens" in h.leagues.checkin_hint(league, first)
    h.clock.advance(HOUR)
    second = await h.leagues.signup(league_id, "pb", "B")
    assert "Check-in is open" in h.leagues.checkin_hint(league, second)
    checked = await h.leagues.checkin(league_id, "pa")
    assert h.leagues.checkin_hint(league, checked) == ""
    await h.leagues.checkin(league_id, "pb")
    h.clock.advance(HOUR)
    with pytest.raises(LeagueActionError, match=r"Check-in .* has closed, so sign-up"):
        await h.leagues.signup(league_id, "pc", "C", deck_id=await h.deck("pc"))
    # Those already in may still change their deck.
    changed = await h.leagues.signup(league_id, "pb", "B", deck_id=await h.deck("pb"))
    assert changed.deck_id is not None and h.leagues.checkin_hint(league, changed) == ""
    _, dropped = await h.leagues.start(league_id, by="mod", moderator=True)
    assert dropped == []
    season = await h.leagues.season(league_id)
    assert sorted(p.player_id for p in season.players) == ["pa", "pb"]


async def test_a_league_needs_two_players_and_starts_once(h: Harness) -> None:
    league_id = await h.create()
    await h.sign_up(league_id, "a")
    with pytest.raises(LeagueActionError, match="at least two"):
        await h.leagues.start(league_id, by="mod", moderator=True)
    await h.sign_up(league_id, "b")
    await h.leagues.start(league_id, by="mod", moderator=True)
    with pytest.raises(WrongStateError):
        await h.leagues.start(league_id, by="mod", moderator=True)
    with pytest.raises(WrongStateError, match="league join"):
        await h.leagues.signup(league_id, "pc", "C")


async def test_seeds_follow_ratings_then_sign_up_order(h: Harness) -> None:
    first = await started(h, "ab", rounds=1)
    await h.concede(first, 1, "pb", "pa")
    await h.leagues.step()
    second = await h.create("Summer")
    await h.sign_up(second, "cab")
    await h.leagues.start(second, by="mod", moderator=True)
    season = await h.leagues.season(second)
    seeds = {p.player_id: p.seed for p in season.players}
    # B won a rated game and A lost one: B above the unrated C, A below.
    assert seeds == {"pb": 1, "pc": 2, "pa": 3}


async def test_a_scheduled_start_happens_in_the_step(h: Harness) -> None:
    when = to_ms(h.clock.now() + timedelta(hours=5))
    league_id = await h.create(starts_at=when)
    await h.sign_up(league_id, "abcd")
    assert (await h.advance(4 * HOUR)).started == []
    report = await h.advance(HOUR)
    assert report.started == [league_id] and report.opened == [(league_id, 1)]
    assert len(await h.games(league_id, 1)) == 2


async def test_a_scheduled_start_without_players_is_announced_not_retried(h: Harness) -> None:
    league_id = await h.create(starts_at=to_ms(h.clock.now()))
    await h.sign_up(league_id, "a")
    assert (await h.leagues.step()).started == []
    (notice,) = await h.texts("league_notice")
    assert "could not start" in notice
    assert (await h.leagues.get_league(league_id)).starts_at is None


# --- unstarted matches, reminders, forfeits ---------------------------------------------------


async def test_players_without_a_deck_are_reminded_once_then_forfeit(h: Harness) -> None:
    league_id = await h.create(start_seconds=2 * DAY, round_seconds=7 * DAY)
    await h.sign_up(league_id, "ab")
    await h.sign_up(league_id, "c", decks=False)
    await h.sign_up(league_id, "d")
    await h.leagues.start(league_id, by="mod", moderator=True)
    game = await h.game_between(league_id, 1, "pb", "pd")
    assert game.match_id is not None
    other = await h.game_between(league_id, 1, "pa", "pc")
    assert other.match_id is not None
    assert (await h.matches.get_match(other.match_id)).status == "open"
    assert (await h.matches.get_match(game.match_id)).status == "active"

    assert (await h.advance(DAY - 60)).reminders == 0
    report = await h.advance(60)
    assert report.reminders == 1
    assert (await h.advance(60)).reminders == 0
    (reminder,) = await h.outbox("league_reminder")
    assert reminder.recipient == "pc" and reminder.payload["match_id"] == other.match_id
    assert (await h.advance(DAY - HOUR - 60)).reminders == 1
    assert [text.count("forfeited") for text in await h.texts("league_reminder")] == [
        1,
        1,
    ]

    report = await h.advance(HOUR)
    forfeits = [r for r in report.recorded if r[2] == other.board]
    expected = Outcome.RED_FORFEIT if other.red_id == "pc" else Outcome.BLUE_FORFEIT
    assert forfeits == [(league_id, 1, other.board, expected.value)]
    assert (await h.matches.get_match(other.match_id)).status == "cancelled"
    (recorded,) = [g for g in await h.games(league_id, 1) if g.board == other.board]
    assert recorded.detail == "not started by the deadline"


async def test_a_deck_chosen_later_starts_the_match(h: Harness) -> None:
    league_id = await h.create()
    await h.sign_up(league_id, "a")
    await h.sign_up(league_id, "b", decks=False)
    await h.leagues.start(league_id, by="mod", moderator=True)
    (game,) = await h.games(league_id, 1)
    assert game.match_id is not None
    await h.matches.choose_deck(game.match_id, "pb", await h.deck("pb"))
    report = await h.leagues.step()
    assert report.matches_started == [game.match_id]
    assert (await h.matches.get_match(game.match_id)).status == "active"


async def test_a_match_cancelled_before_the_deadline_is_made_again(h: Harness) -> None:
    league_id = await h.create()
    await h.sign_up(league_id, "a")
    await h.sign_up(league_id, "b", decks=False)
    await h.leagues.start(league_id, by="mod", moderator=True)
    (game,) = await h.games(league_id, 1)
    assert game.match_id is not None
    await h.matches.cancel_match(game.match_id, "pa")
    report = await h.leagues.step()
    (again,) = await h.games(league_id, 1)
    assert again.match_id is not None and again.match_id != game.match_id
    assert report.matches_created == [again.match_id]


# --- withdrawal and late join -----------------------------------------------------------------


async def test_withdrawing_mid_round_forfeits_the_game_and_ends_the_match(h: Harness) -> None:
    league_id = await started(h, "abcd", rounds=3)
    game = await h.game_between(league_id, 1, "pa", "pc")
    assert game.match_id is not None
    message = await h.leagues.withdraw(league_id, "pc", by="pc")
    assert "round 1 game is forfeited" in message
    (recorded,) = [g for g in await h.games(league_id, 1) if g.board == game.board]
    loser_is_red = game.red_id == "pc"
    assert recorded.outcome == (
        Outcome.RED_FORFEIT.value if loser_is_red else Outcome.BLUE_FORFEIT.value
    )
    assert (await h.matches.get_match(game.match_id)).status == "ended"
    await h.leagues.step()
    (again,) = [g for g in await h.games(league_id, 1) if g.board == game.board]
    assert again.outcome == recorded.outcome and again.detail == "withdrew"
    with pytest.raises(LeagueActionError, match="already withdrawn"):
        await h.leagues.withdraw(league_id, "pc", by="mod", moderator=True)


async def test_withdrawing_before_the_start_removes_the_signup(h: Harness) -> None:
    league_id = await h.create()
    await h.sign_up(league_id, "ab")
    assert "no longer signed up" in await h.leagues.withdraw(league_id, "pa", by="pa")
    assert [p.player_id for p in (await h.leagues.season(league_id)).players] == ["pb"]


async def test_late_joiners_enter_swiss_from_the_next_round(h: Harness) -> None:
    league_id = await started(h, "abcd", rounds=3, round_seconds=DAY)
    joined = await h.leagues.join(league_id, "pe", "E", deck_id=await h.deck("pe"))
    assert (joined.joined_round, joined.seed) == (2, 5)
    with pytest.raises(LeagueActionError, match="already in"):
        await h.leagues.join(league_id, "pe", "E")
    for a, b in (("pa", "pc"), ("pb", "pd")):
        await h.concede(league_id, 1, a, b)
    await h.advance(DAY)
    season = await h.leagues.season(league_id)
    in_round_2 = {p for g in season.games_of(2) for p in (g.red_id, g.blue_id)}
    in_round_2 |= {b.player_id for b in season.byes if b.round_no == 2}
    assert in_round_2 == {"pa", "pb", "pc", "pd", "pe"}
    assert "E joins this round" in await h.leagues.pairings(league_id, 2)


async def test_round_robin_refuses_late_joins_and_gives_byes_for_withdrawals(h: Harness) -> None:
    league_id = await started(h, "abcd", format="round_robin", round_seconds=DAY)
    assert (await h.leagues.get_league(league_id)).rounds == 3
    with pytest.raises(LeagueActionError, match="round-robin"):
        await h.leagues.join(league_id, "pe", "E")
    for game in await h.games(league_id, 1):
        await h.concede(league_id, 1, game.red_id, game.blue_id)
    await h.leagues.withdraw(league_id, "pd", by="pd")
    await h.advance(DAY)
    season = await h.leagues.season(league_id)
    assert len(season.games_of(2)) == 1
    (bye,) = [b for b in season.byes if b.round_no == 2]
    met_d = {
        g.red_id if g.blue_id == "pd" else g.blue_id
        for g in season.games_of(1)
        if "pd" in (g.red_id, g.blue_id)
    }
    assert bye.player_id not in met_d and bye.player_id != "pd"


async def test_a_withdrawn_player_scores_no_scheduled_round_robin_bye(h: Harness) -> None:
    league_id = await started(h, "abcde", format="round_robin", round_seconds=DAY)
    await h.leagues.withdraw(league_id, "pa", by="pa")
    for round_no in range(1, 6):
        for game in await h.games(league_id, round_no):
            if game.outcome is None:
                await h.concede(league_id, round_no, game.red_id, game.blue_id)
        await h.advance(DAY)
    season = await h.leagues.season(league_id)
    assert season.league.status == "ended"
    assert all(b.player_id != "pa" for b in season.byes)
    # Four byes: the other players' own seats, and nothing for the empty seat pa left.
    assert sorted(b.player_id for b in season.byes if "odd number" in b.reason) == [
        "pb",
        "pc",
        "pd",
        "pe",
    ]
    row = (await h.leagues.standings(league_id)).standings.row("pa")
    assert (row.byes, row.points, row.withdrawn) == (0, 0, True)


# --- steps are idempotent ---------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
async def test_repeated_and_concurrent_steps_do_everything_once(
    backend: str, tmp_path: Path
) -> None:
    async with harness(backend, tmp_path) as h:
        await _steps_do_everything_once(h)


async def _steps_do_everything_once(h: Harness) -> None:
    league_id = await started(h, "abcdef", rounds=2, round_seconds=DAY)
    twin = LeagueService(h.store, h.clock, h.matches)
    for game in await h.games(league_id, 1):
        await h.concede(league_id, 1, game.red_id, game.blue_id)
    h.clock.advance(DAY)
    reports = await asyncio.gather(h.leagues.step(), twin.step(), h.leagues.step())
    assert sum(len(r.opened) for r in reports) == 1
    assert sum(len(r.completed) for r in reports) == 1
    games = await h.games(league_id, 2)
    assert len(games) == 3 and all(g.match_id is not None for g in games)
    open_matches = await h.matches.list_matches(guild_id=h.guild, statuses=["active", "open"])
    linked = sorted(g.match_id for g in games if g.match_id is not None)
    assert sorted(m.id for m in open_matches) == linked
    before = len(await h.outbox())
    await h.leagues.step()
    await twin.step()
    assert len(await h.outbox()) == before


async def test_an_orphan_match_from_an_interrupted_step_is_adopted(h: Harness) -> None:
    league_id = await h.create(rounds=1)
    await h.sign_up(league_id, "ab", decks=False)
    casual = await h.matches.create_match(
        "pa", opponent_id="pb", guild_id=h.guild, channel_id=h.channel
    )
    h.clock.advance(1)
    await h.leagues.start(league_id, by="mod", moderator=True)
    (game,) = await h.games(league_id, 1)
    assert game.match_id is not None and game.match_id != casual.id
    async with h.store.write() as s:
        assert await LeagueQueries(s).unlink_match(league_id, 1, game.board, game.match_id)
    report = await h.leagues.step()
    (again,) = await h.games(league_id, 1)
    assert again.match_id == game.match_id and report.matches_created == [game.match_id]


async def test_a_league_match_puts_the_paired_red_player_on_red_whatever_its_seed(
    h: Harness,
) -> None:
    league_id = await started(h, "abcd", rounds=1)
    games = await h.games(league_id, 1)
    assert len(games) == 2
    for game in games:
        assert game.match_id is not None
        match = await h.matches.get_match(game.match_id)
        assert match.status == "active"
        assert match.seat_for_side("red").player_id == game.red_id  # type: ignore[union-attr]
        assert match.seat_for_side("blue").player_id == game.blue_id  # type: ignore[union-attr]


# --- ending, views ----------------------------------------------------------------------------


async def test_ending_early_posts_a_summary_and_ending_in_signup_cancels(h: Harness) -> None:
    idle = await h.create("Idle")
    await h.leagues.end(idle, by="mod", moderator=True)
    assert (await h.leagues.get_league(idle)).status == "cancelled"
    league_id = await started(h, "abcd", rounds=3)
    await h.concede(league_id, 1, "pa", "pc")
    await h.leagues.step()
    summary = await h.leagues.end(league_id, by="mod", moderator=True)
    assert summary.champion is not None and summary.champion.player_id == "pa"
    assert (await h.leagues.get_league(league_id)).status == "ended"
    (post,) = await h.outbox("league_ended")
    (text,) = await h.texts("league_ended")
    assert post.payload["early"] is True and "Season summary: Spring" in text
    with pytest.raises(WrongStateError):
        await h.leagues.end(league_id, by="mod", moderator=True)


async def test_profile_leaderboard_schedule_and_table_rows(h: Harness) -> None:
    league_id = await started(h, "abc", rounds=2)
    await h.concede(league_id, 1, "pa", "pb")
    await h.leagues.step()
    board = await h.leagues.leaderboard(h.guild)
    assert [(r.rank, r.player_id, r.games) for r in board] == [(1, "pa", 1), (2, "pb", 1)]
    assert board[0].display > board[1].display
    profile = await h.leagues.profile(h.guild, "pa", "A")
    assert profile.rank == 1 and profile.wins == 1 and "Spring (running)" in profile_text(profile)
    newcomer = await h.leagues.profile(h.guild, "nobody", "Nobody")
    assert newcomer.rank is None and newcomer.rating.display == 1000
    assert "no turns yet" in profile_text(newcomer)
    schedule = await h.leagues.schedule(league_id)
    assert [(g.round_no, g.result) for g in schedule] == [(1, "1-0"), (1, "bye")] or [
        (g.round_no, g.result) for g in schedule
    ] == [(1, "0-1"), (1, "bye")]
    table = await h.leagues.standings(league_id)
    assert [r.player_id for r in table.rows] == ["pa", "pc", "pb"]
    assert table.rows[0].rating == board[0].display
    assert "Standings after round 1" in table_text(table)


async def test_the_table_counts_completed_rounds_and_names_the_one_in_progress(
    h: Harness,
) -> None:
    league_id = await started(h, "abc", rounds=2, round_seconds=DAY)
    season = await h.leagues.season(league_id)
    (first_bye,) = [b.player_id for b in season.byes if b.round_no == 1]
    table = await h.leagues.standings(league_id)
    assert table.standings.through_round == 0
    assert table.label == "before any round is complete; round 1 in progress"
    assert all(r.points == 0 and r.byes == 0 for r in table.standings.rows)
    assert "Standings before any round is complete; round 1 in progress" in table_text(table)
    (game,) = await h.games(league_id, 1)
    await h.concede(league_id, 1, game.red_id, game.blue_id)
    await h.advance(DAY)
    assert (await h.leagues.get_league(league_id)).current_round == 2
    table = await h.leagues.standings(league_id)
    assert table.label == "after round 1; round 2 in progress"
    assert "Standings after round 1; round 2 in progress" in table_text(table)
    rows = {r.player_id: r for r in table.standings.rows}
    assert rows[first_bye].byes == 1 and rows[game.red_id].points == 1
    # Round 2's bye (the bye goes to someone else now) waits for the round to be complete.
    assert sum(r.byes for r in table.standings.rows) == 1
    for game in await h.games(league_id, 2):
        await h.concede(league_id, 2, game.red_id, game.blue_id)
    await h.leagues.step()
    table = await h.leagues.standings(league_id)
    assert (await h.leagues.get_league(league_id)).status == "ended"
    assert table.label == "after round 2"
    assert sum(r.byes for r in table.standings.rows) == 2


# --- the alarm --------------------------------------------------------------------------------


async def test_the_alarm_catches_up_on_start_and_wakes_at_the_next_due_moment(
    h: Harness,
) -> None:
    league_id = await started(h, "abc", rounds=2, round_seconds=DAY)
    await h.concede(league_id, 1, "pa", "pb")
    h.clock.advance(DAY + 5)
    alarm = LeagueAlarm(h.leagues)
    await alarm.start()
    try:
        assert (await h.leagues.get_league(league_id)).current_round == 2
        assert alarm.job_ids() == [SWEEP_JOB, WAKE_JOB]
        wake = alarm.scheduler.get_job(WAKE_JOB)
        assert wake is not None
        expected = await h.leagues.next_wake()
        assert expected is not None
        assert wake.next_run_time == datetime.fromtimestamp(expected / 1000, UTC)
        (game, *_rest) = [g for g in await h.games(league_id, 2) if g.match_id is not None]
        assert game.match_id is not None and game.outcome is None
        # A pause clears the deadline as an end does; only the end matters to the league.
        await h.matches.pause(game.match_id, "mod", moderator=True)
        assert NUDGE_JOB not in alarm.job_ids()
        nudged = job_outcome(alarm.scheduler, lambda job_id: job_id == NUDGE_JOB)
        await h.matches.concede(game.match_id, game.red_id)
        # The result is recorded before the concession returns; the step is asked to run next,
        # and it closes the last round.
        assert NUDGE_JOB in alarm.job_ids()
        (recorded,) = [g for g in await h.games(league_id, 2) if g.board == game.board]
        assert recorded.outcome == Outcome.BLUE_WIN.value
        # However late a loaded machine runs it, the nudge runs, once, to its end.
        assert await asyncio.wait_for(nudged, timeout=60) == EVENT_JOB_EXECUTED
        assert (await h.leagues.get_league(league_id)).status == "ended"
        assert NUDGE_JOB not in alarm.job_ids()
    finally:
        await alarm.stop()
    # A stopped alarm no longer listens: the result waits for the step.
    other = await started(h, "de", name="Summer", rounds=1)
    await h.concede(other, 1, "pd", "pe")
    (unheard,) = await h.games(other, 1)
    assert unheard.outcome is None


async def test_stopping_the_alarm_lets_a_running_step_finish(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    league_id = await started(h, "ab", rounds=1)
    alarm = LeagueAlarm(h.leagues)
    await alarm.start()
    real_step = h.leagues.step
    inside, release = asyncio.Event(), asyncio.Event()

    async def held_step() -> StepReport:
        inside.set()
        await release.wait()
        return await real_step()

    monkeypatch.setattr(h.leagues, "step", held_step)
    await h.concede(league_id, 1, "pa", "pb")
    await asyncio.wait_for(inside.wait(), timeout=60)
    stopping = asyncio.create_task(alarm.stop())
    for _ in range(20):
        await asyncio.sleep(0)
    # Shutting the scheduler down would cancel the step, perhaps inside a transaction.
    assert not stopping.done()
    release.set()
    await asyncio.wait_for(stopping, timeout=60)
    assert (await h.leagues.get_league(league_id)).status == "ended"
    # The database is left outside any transaction: the next write goes through.
    assert await started(h, "cd", name="Summer", rounds=1)


# --- time phrases -----------------------------------------------------------------------------


def test_durations_and_moments_as_typed() -> None:
    assert parse_duration("7d") == 7 * DAY
    assert parse_duration("1d12h") == 36 * HOUR
    assert parse_duration("90m") == 5400
    assert parse_duration("36") == 36 * HOUR
    for bad in ("", "soon", "3x", "0h"):
        with pytest.raises(TimeSpecError):
            parse_duration(bad)
    now = datetime(2031, 1, 1, tzinfo=UTC)
    assert parse_when("in 2d", now) == now + timedelta(days=2)
    assert parse_when("+1h", now) == now + timedelta(hours=1)
    assert parse_when("2031-03-01 18:00", now) == datetime(2031, 3, 1, 18, tzinfo=UTC)
    assert parse_when("1900000000", now) == datetime.fromtimestamp(1900000000, UTC)
    with pytest.raises(TimeSpecError):
        parse_when("next tuesday", now)
    assert describe_duration(DAY + 2 * HOUR) == "1d 2h"
    assert parse_duration_or_default(" Default ") == 0
    assert parse_duration_or_default("2d") == 2 * DAY


@pytest.mark.parametrize(
    "typed", ["in 999999999d", "+99999999w", "99999999999999", "9" * 40, "in 9999999999999999999d"]
)
def test_a_moment_out_of_range_is_refused_as_a_time(typed: str) -> None:
    with pytest.raises(TimeSpecError, match="too far away"):
        parse_when(typed, datetime(2031, 1, 1, tzinfo=UTC))


async def test_a_round_that_cannot_be_paired_is_reported_once_and_waits(h: Harness) -> None:
    league_id = await started(h, "abc", rounds=2, round_seconds=DAY)
    await h.concede(league_id, 1, "pa", "pb")
    await h.leagues.withdraw(league_id, "pc", by="pc")
    report = await h.advance(DAY)
    assert report.blocked == [(league_id, 2)] and report.opened == []
    await h.advance(DAY)
    (notice,) = await h.texts("league_notice")
    assert "round 2 cannot be paired" in notice
    league = await h.leagues.get_league(league_id)
    assert (league.status, league.current_round) == ("running", 1)


# --- ratings of every match -------------------------------------------------------------------


async def casual(h: Harness, red: str, blue: str, *, guild: str | None = "guild-1") -> int:
    match = await h.matches.create_match(
        red,
        deck_id=await h.deck(red),
        opponent_id=blue,
        guild_id=guild,
        turn_seconds=HOUR,
        no_show_limit=2,
    )
    await h.matches.choose_deck(match.id, blue, await h.deck(blue))
    await h.matches.start_match(match.id, red)
    return match.id


async def test_matches_outside_leagues_are_rated_once_and_forfeits_not_at_all(h: Harness) -> None:
    conceded = await casual(h, "px", "py")
    await h.matches.concede(conceded, "py")
    elsewhere = await casual(h, "px", "py", guild=None)
    await h.matches.concede(elsewhere, "py")
    no_shows = await casual(h, "px", "pz")
    for _turn in range(2):
        await h.matches.confirm(no_shows, "px")
        await h.advance(HOUR + 1)
    assert (await h.matches.get_match(no_shows)).end_reason == "forfeit"
    await h.leagues.step()
    assert (await h.leagues.step()).rated_matches == 0
    board = {r.player_id: (r.games, r.wins, r.losses) for r in await h.leagues.leaderboard(h.guild)}
    assert board == {"px": (1, 1, 0), "py": (1, 0, 1)}


async def test_league_games_are_rated_by_the_league_only(h: Harness) -> None:
    league_id = await started(h, "abcd", rounds=3)
    await h.concede(league_id, 1, "pa", "pc")
    await h.leagues.withdraw(league_id, "pb", by="pb")
    await h.leagues.step()
    await h.leagues.end(league_id, by="mod", moderator=True)
    await h.leagues.step()
    board = {r.player_id: r.games for r in await h.leagues.leaderboard(h.guild)}
    # B's withdrawal conceded the B-D match: a forfeit, never rated, even after the season.
    assert board == {"pa": 1, "pc": 1}
