"""Two bot instances in one test process, two shards each of four, on one database: matches in
several servers and by DM, every command, button and DM answered once across the fleet.

Two instances rather than two processes: the sandbox runs on the test's event loop, and the
instances share nothing but the sandbox and the database, as two processes would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot import MatchBot
from sandbox import Channel, Guild, Sandbox, ScriptedPlayer
from sandbox.gateway import shard_of
from settings import PROJECT_ROOT as ROOT
from settings import Settings
from storage import Store
from tests.cogs.support import TIMEOUT, is_sheet, posts
from tests.sandbox.support import pointed_at
from tests.storage.backends import database_url

pytestmark = pytest.mark.slow

SHARDS = 4
# The standby's take-over time in the standby test, in seconds.
LEASE = 3.0


def base_settings(url: str) -> Settings:
    return Settings(None, url, "INFO", None, 24.0, None, 12, shard_count=SHARDS)


@contextlib.asynccontextmanager
async def fleet(sandbox: Sandbox, url: str) -> AsyncIterator[list[MatchBot]]:
    bots = [
        MatchBot(
            replace(base_settings(url), shard_ids=ids, node_id=node),
            guild_ready_timeout=0.05,
            workers=0,
        )
        for ids, node in (((0, 1), "node-a"), ((2, 3), "node-b"))
    ]
    with pointed_at(sandbox):
        tasks = [asyncio.create_task(b.start(sandbox.token)) for b in bots]
        try:
            await sandbox.wait_for(
                lambda: all(b.is_ready() for b in bots) and sandbox.commands(),
                timeout=TIMEOUT,
                what="both bots",
            )
            yield bots
        finally:
            for b in bots:
                await b.close()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait_for(task, 5)


async def guilds_on_every_shard(sandbox: Sandbox, shards: int = SHARDS) -> list[Guild]:
    """A guild on each shard: ids made in one millisecond share a shard, so wait between."""
    found: dict[int, Guild] = {}
    for n in range(500):
        guild = sandbox.create_guild(f"Server {n}")
        found.setdefault(shard_of(guild.id, shards), guild)
        if len(found) == shards:
            break
        await asyncio.sleep(0.002)
    assert len(found) == shards
    return [found[s] for s in sorted(found)]


async def confirm_turn(
    sandbox: Sandbox, thread: Channel, match_id: int, players: list[ScriptedPlayer], turn: int
) -> None:
    for player in players:
        sheet = await player.wait_for_message(
            player.dm, predicate=is_sheet(match_id, turn), timeout=TIMEOUT
        )
        # The sheet's button (an interaction in a DM: shard 0) and typed DM text alike.
        if player is players[0]:
            await player.click(sheet, "Confirm")
        else:
            await player.send_dm(f"#{match_id} confirm")
    await sandbox.wait_for(
        lambda: posts(sandbox, thread, f"Match #{match_id} · turn {turn} resolved"),
        timeout=TIMEOUT,
        what=f"turn {turn} of match {match_id}",
    )


async def play_a_match(sandbox: Sandbox, guild: Guild) -> tuple[Channel, int, list[ScriptedPlayer]]:
    lobby = sandbox.create_channel(guild, "matches")
    alice, bob = (
        sandbox.player(sandbox.create_user(f"{who} of {guild.name}", guild=guild), channel=lobby)
        for who in ("Alice", "Bob")
    )
    created = await alice.slash("match create", opponent=bob.user, deck="starter:war")
    await created.wait_done(timeout=TIMEOUT)
    thread: Channel = await sandbox.wait_for(
        lambda: next(iter(sandbox.threads(lobby)), None), timeout=TIMEOUT, what="the thread"
    )
    match_id = int((thread.name or "").split("#")[1].split(":")[0])
    joined = await bob.slash("match join", match=match_id, deck="starter:life")
    await joined.wait_done(timeout=TIMEOUT)
    await confirm_turn(sandbox, thread, match_id, [alice, bob], 1)
    return thread, match_id, [alice, bob]


@pytest.mark.postgres
async def test_two_processes_of_two_shards_answer_everything_once(tmp_path: Path) -> None:
    async with (
        database_url("postgres", tmp_path) as url,
        Sandbox(bot_name="Sanctum Host", shards=SHARDS) as sandbox,
    ):
        guilds = await guilds_on_every_shard(sandbox)
        async with fleet(sandbox, url) as bots:
            assert sandbox.connected_shards == [(s, SHARDS) for s in range(SHARDS)]
            # Each process has only its own shards' guilds.
            for bot, shard_ids in zip(bots, ((0, 1), (2, 3)), strict=True):
                assert {g.id for g in bot.guilds} == {
                    g for g in sandbox.state.guilds if shard_of(g, SHARDS) in shard_ids
                }
            played = await asyncio.gather(*(play_a_match(sandbox, g) for g in guilds))
            for _thread, match_id, players in played:
                for player in players:
                    await player.wait_for_message(
                        player.dm, predicate=is_sheet(match_id, 2), timeout=TIMEOUT
                    )
        for thread, match_id, players in played:
            assert len(posts(sandbox, thread, f"Match #{match_id} · turn 1 resolved")) == 1
            for player in players:
                sheets = [m for m in sandbox.messages(player.dm) if is_sheet(match_id, 2)(m)]
                assert len(sheets) == 1
        # An interaction answered twice, or a DM handled twice, would meet Discord's refusals
        # (40060 already acknowledged, 10062 unknown interaction); 429s are retried waits.
        refused = [r for r in sandbox.requests if r.status >= 400 and r.status != 429]
        assert refused == []


async def test_a_second_identify_for_a_connected_shard_is_refused(tmp_path: Path) -> None:
    async with Sandbox(bot_name="Sanctum Host", shards=2) as sandbox:
        url = f"sqlite:///{tmp_path / 'a.db'}"
        settings = replace(base_settings(url), shard_count=2, shard_ids=(0,))
        first = MatchBot(settings, guild_ready_timeout=0.05, workers=0, sync_commands=False)
        second = MatchBot(
            replace(settings, database_url=f"sqlite:///{tmp_path / 'b.db'}"),
            guild_ready_timeout=0.05,
            workers=0,
            sync_commands=False,
        )
        with pointed_at(sandbox):
            runner = asyncio.create_task(first.start(sandbox.token))
            try:
                await sandbox.wait_for(first.is_ready, timeout=TIMEOUT, what="the first bot")
                with pytest.raises(Exception, match="4010"):
                    await asyncio.wait_for(second.start(sandbox.token), TIMEOUT)
                assert sandbox.connected_shards == [(0, 2)]
            finally:
                await second.close()
                await first.close()
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait_for(runner, 5)


async def start_node(
    sandbox: Sandbox, url: str, node: str, *, standby: bool
) -> asyncio.subprocess.Process:
    env = {
        **os.environ,
        "SANCTUM_DATABASE_URL": url,
        "SANCTUM_SHARD_COUNT": "2",
        "SANCTUM_NODE_ID": node,
        "SANCTUM_STANDBY": "1" if standby else "0",
        "SANCTUM_SHARD_LEASE_SECONDS": str(LEASE),
        "SANCTUM_LOG_LEVEL": "WARNING",
    }
    env.pop("DISCORD_TOKEN", None)
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.cogs.shard_node",
        sandbox.api_base,
        sandbox.gateway_url,
        sandbox.token,
        env=env,
        cwd=ROOT,
    )


async def holders(url: str) -> dict[int, str]:
    store = await Store.open(url)
    try:
        async with store.read() as s:
            return {lease.shard_id: lease.holder for lease in await s.shard_leases()}
    finally:
        await store.close()


@pytest.mark.postgres
async def test_a_standby_takes_over_the_shards_of_a_killed_process(tmp_path: Path) -> None:
    """The active process holds both shards; a standby waits. The active one is SIGKILLed:
    within its lease the standby holds the shards, connects them, and the match in a server
    and its DMs go on; nothing is posted twice."""
    async with (
        database_url("postgres", tmp_path) as url,
        Sandbox(bot_name="Sanctum Host", shards=2) as sandbox,
    ):
        guild = (await guilds_on_every_shard(sandbox, 2))[1]
        active = await start_node(sandbox, url, "active", standby=False)
        standby: asyncio.subprocess.Process | None = None
        try:
            await sandbox.wait_for(
                lambda: sandbox.connected_shards == [(0, 2), (1, 2)] and sandbox.commands(),
                timeout=60,
                what="the active process",
            )
            thread, match_id, players = await play_a_match(sandbox, guild)
            standby = await start_node(sandbox, url, "standby", standby=True)
            for player in players:
                await player.wait_for_message(
                    player.dm, predicate=is_sheet(match_id, 2), timeout=TIMEOUT
                )
            await asyncio.sleep(2 * LEASE)
            assert await holders(url) == {0: "active", 1: "active"}, "the standby waits"
            assert standby.returncode is None

            active.kill()
            await active.wait()
            killed = time.monotonic()
            while await holders(url) != {0: "standby", 1: "standby"}:
                assert time.monotonic() - killed <= LEASE + LEASE / 3 + 1.5, "taken in time"
                await asyncio.sleep(0.1)
            await sandbox.wait_for(
                lambda: sandbox.connected_shards == [(0, 2), (1, 2)],
                timeout=60,
                what="the standby's shards",
            )
            await confirm_turn(sandbox, thread, match_id, players, 2)
            for player in players:
                await player.wait_for_message(
                    player.dm, predicate=is_sheet(match_id, 3), timeout=TIMEOUT
                )
        finally:
            for process in (active, standby):
                if process is not None and process.returncode is None:
                    process.send_signal(signal.SIGTERM)
                    await asyncio.wait_for(process.wait(), 30)
        for turn in (1, 2):
            assert len(posts(sandbox, thread, f"Match #{match_id} · turn {turn} resolved")) == 1
        for player in players:
            for turn in (1, 2, 3):
                sheets = [m for m in sandbox.messages(player.dm) if is_sheet(match_id, turn)(m)]
                assert len(sheets) == 1, (player.user.name, turn)
