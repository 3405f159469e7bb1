"""Opening a round while players act: a join or withdrawal that commits between the read the
pairing comes from and the write that opens the round is paired from, and pairing (CPU-heavy
for a large Swiss field) runs off the event loop so the bot keeps answering meanwhile."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

import service.leagues.step as league_step
from service.leagues.pairing import RoundPairing, pair_swiss_round, round_robin_round
from service.leagues.views import Season
from storage import Session, Store
from storage.leagues import LeagueQueries
from tests.service.leagues.harness import DAY, Harness, harness
from tests.storage.backends import BACKENDS


class InterleavingStore:
    """The real store, except that the first write after `arm()` first runs `action`: the
    moment an interaction's own transaction would commit between the step's read and write."""

    def __init__(self, real: Store) -> None:
        self.real = real
        self.action: Callable[[], Awaitable[None]] | None = None

    def arm(self, action: Callable[[], Awaitable[None]]) -> None:
        self.action = action

    def read(self) -> Any:
        return self.real.read()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Session]:
        action, self.action = self.action, None
        if action is not None:
            await action()
        async with self.real.write() as s:
            yield s

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@pytest.fixture(params=BACKENDS)
async def h(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness(str(request.param), tmp_path) as made:
        yield made


async def round_one_played(
    h: Harness, monkeypatch: pytest.MonkeyPatch, action: Callable[[], Awaitable[None]]
) -> int:
    """A four-player Swiss league with round 1 decided; pairing round 2 lets `action` commit
    just before the step writes the round."""
    league_id = await h.create(rounds=3, round_seconds=DAY)
    await h.sign_up(league_id, "abcd")
    await h.leagues.start(league_id, by="mod", moderator=True)
    for game in await h.games(league_id, 1):
        await h.concede(league_id, 1, game.red_id, game.blue_id)
    await h.leagues.step()
    interleaving = InterleavingStore(h.leagues.store)
    h.leagues.store = interleaving  # type: ignore[assignment]
    pair = pair_swiss_round
    paired: list[int] = []

    def pair_then_interleave(*args: Any, **kwargs: Any) -> RoundPairing:
        result = pair(*args, **kwargs)
        if not paired:
            interleaving.arm(action)
        paired.append(result.round_no)
        return result

    monkeypatch.setattr(league_step, "pair_swiss_round", pair_then_interleave)
    return league_id


def round_players(season: Season, round_no: int) -> set[str]:
    playing = {p for g in season.games_of(round_no) for p in (g.red_id, g.blue_id)}
    return playing | {b.player_id for b in season.byes if b.round_no == round_no}


async def test_a_join_committed_while_the_round_is_paired_is_in_that_round(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck = await h.deck("pe")
    joined: list[int] = []

    async def join() -> None:
        joined.append((await h.leagues.join(league_id, "pe", "E", deck_id=deck)).joined_round)

    league_id = await round_one_played(h, monkeypatch, join)
    report = await h.advance(DAY)
    assert joined == [2]
    assert report.opened == [(league_id, 2)]
    season = await h.leagues.season(league_id)
    assert season.league.current_round == 2
    assert round_players(season, 2) == {"pa", "pb", "pc", "pd", "pe"}
    assert len([b for b in season.byes if b.round_no == 2]) == 1


async def test_a_withdrawal_committed_while_the_round_is_paired_is_not_paired(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = h.leagues.store
    withdrawals: list[asyncio.Task[str]] = []

    async def withdraw() -> None:
        # The interaction runs as its own task: its write commits, then it waits for the step
        # lock the running step holds.
        withdrawals.append(asyncio.create_task(h.leagues.withdraw(league_id, "pa", by="pa")))
        for _ in range(500):
            await asyncio.sleep(0.01)
            async with store.read() as s:
                player = await LeagueQueries(s).get_player(league_id, "pa")
            if player is not None and player.withdrawn_from_round is not None:
                return
        raise AssertionError("the withdrawal never committed")

    league_id = await round_one_played(h, monkeypatch, withdraw)
    report = await h.advance(DAY)
    assert "has withdrawn" in await withdrawals[0]
    assert report.opened == [(league_id, 2)]
    season = await h.leagues.season(league_id)
    assert round_players(season, 2) == {"pb", "pc", "pd"}


@pytest.mark.parametrize("fmt", ["swiss", "round_robin"])
async def test_pairing_runs_off_the_event_loop(
    h: Harness, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    name, pair = (
        ("round_robin_round", round_robin_round)
        if fmt == "round_robin"
        else ("pair_swiss_round", pair_swiss_round)
    )
    threads: list[int] = []

    def slow_pairing(*args: Any, **kwargs: Any) -> RoundPairing:
        threads.append(threading.get_ident())
        # Stands for a search that takes seconds; a busy wait holds the thread like one.
        until = time.monotonic() + 1.0
        while time.monotonic() < until:
            pass
        result: RoundPairing = pair(*args, **kwargs)
        return result

    monkeypatch.setattr(league_step, name, slow_pairing)
    league_id = await h.create(format=fmt, round_seconds=DAY)
    await h.sign_up(league_id, "abcd")
    gaps: list[float] = []

    async def heartbeat() -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.02)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    beat = asyncio.create_task(heartbeat())
    try:
        await h.leagues.start(league_id, by="mod", moderator=True)
    finally:
        beat.cancel()
    assert threads and threading.get_ident() not in threads
    assert len(gaps) >= 10
    assert max(gaps) < 0.5
    season = await h.leagues.season(league_id)
    assert len(season.games_of(1)) == 2
