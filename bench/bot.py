"""The bot under load in the sandbox: many matches at once, every player giving orders by clicks.

The bot runs in its own process, as it would against Discord (or in several, each serving its
share of the shards on one database); the sandbox and the scripted players share this one.
Matches are spread over one server per shard. Each player, each turn, opens the move menu of
their DM sheet, picks a destination and clicks Confirm: three interactions, each timed from the
click until the sandbox has the bot's acknowledgement. DMs arrive on shard 0, as on Discord, so
the process holding shard 0 answers the clicks and every process resolves and posts. Printed:
acknowledgement latency p50/p99/max, turns resolved (and posted) per second, posts per second,
peak memory of the bot processes and their workers, and whether every order given reached its
turn's record.

    .venv/bin/python -m bench.bot [--matches 200] [--turns 3]
    .venv/bin/python -m bench.bot --processes 2 --shards 4 [--backend postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import signal
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import discord
import discord.gateway
import discord.http

from bench.service import fresh_database
from bot import default_workers
from bot import serve as serve_bot
from sandbox import (
    Channel,
    Guild,
    InteractionFailedError,
    Message,
    Sandbox,
    ScriptedPlayer,
    walk_components,
)
from sandbox.gateway import shard_of
from service.clock import SystemClock
from service.matches import MatchService
from settings import Settings
from storage import Store

TIMEOUT = 600.0
T = TypeVar("T")


@dataclass
class Figures:
    acks: list[float] = field(default_factory=list)
    given: dict[tuple[int, int, str], str] = field(default_factory=dict)
    # Interactions the sandbox saw go unacknowledged for 3 s (the player then clicks again).
    missed: int = 0
    # Players giving orders at the same instant (the others are reading their sheets).
    active: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(50))


def _component(message: Message, action: str) -> dict[str, object]:
    return next(
        c
        for c in walk_components(message.components)
        if str(c.get("custom_id", "")).startswith(f"sanctum:{action}:")
    )


async def _timed(figures: Figures, action: Callable[[], Awaitable[object]]) -> None:
    for _attempt in range(3):
        start = time.perf_counter()
        try:
            await action()
        except InteractionFailedError:
            figures.missed += 1
            continue
        figures.acks.append(time.perf_counter() - start)
        return
    raise RuntimeError("three clicks in a row went unacknowledged")


async def _poll(check: Callable[[], T | None], interval: float = 0.05) -> T:
    """Wait for ``check``, which reads every match thread, by looking now and then."""
    deadline = time.perf_counter() + TIMEOUT
    while (found := check()) is None:
        if time.perf_counter() > deadline:
            raise TimeoutError("the bot did not answer in time")
        await asyncio.sleep(interval)
    return found


async def _sheet(sandbox: Sandbox, player: ScriptedPlayer, match_id: int, turn: int) -> Message:
    prefix = f"Match #{match_id} · turn {turn} "

    def find() -> Message | None:
        for message in reversed(sandbox.messages(player.dm)):
            if any(str(e.get("title", "")).startswith(prefix) for e in message.embeds):
                return message
        return None

    return await _in_dm(sandbox, player, find)


async def _in_dm(sandbox: Sandbox, player: ScriptedPlayer, check: Callable[[], T | None]) -> T:
    """Wait for ``check``, which reads only the player's DM: the player sleeps until the DM
    changes, so hundreds of waiting players cost the load generator nothing in between."""
    found: T = await sandbox.wait_for(
        check, timeout=TIMEOUT, what=f"the DM of {player.user.name}", channels=[player.dm]
    )
    return found


async def _play(
    sandbox: Sandbox, player: ScriptedPlayer, match_id: int, turn: int, figures: Figures
) -> None:
    sheet = await _sheet(sandbox, player, match_id, turn)
    async with figures.active:
        await _orders(sandbox, player, sheet, match_id=match_id, turn=turn, figures=figures)


async def _orders(
    sandbox: Sandbox,
    player: ScriptedPlayer,
    sheet: Message,
    *,
    match_id: int,
    turn: int,
    figures: Figures,
) -> None:
    live = sandbox.state.messages
    move = _component(sheet, "move")
    options = move.get("options") or []
    assert isinstance(options, list)
    if options and not move.get("disabled"):
        await _timed(
            figures,
            lambda: player.select(sheet, [options[0]["value"]], custom_id=str(move["custom_id"])),
        )
        await _in_dm(
            sandbox,
            player,
            lambda: (
                True
                if any(
                    str(c.get("custom_id", "")).startswith("sanctum:dest:")
                    for c in walk_components(live[sheet.id].components)
                )
                else None
            ),
        )
        dest = _component(live[sheet.id], "dest")
        dest_options = [o for o in dest.get("options") or [] if o["value"] != "stay"]  # type: ignore[attr-defined]
        if dest_options:
            square = str(dest_options[0]["value"])
            await _timed(
                figures,
                lambda: player.select(live[sheet.id], [square], custom_id=str(dest["custom_id"])),
            )
            await _in_dm(
                sandbox,
                player,
                lambda: (
                    True if f"to {square}" in str(live[sheet.id].embeds[0].get("fields")) else None
                ),
            )
            figures.given[(match_id, turn, str(player.id))] = square
    await _timed(figures, lambda: player.click(live[sheet.id], "Confirm"))


async def _create(sandbox: Sandbox, a: ScriptedPlayer, b: ScriptedPlayer, lobby: Channel) -> int:
    result = await a.slash("match create", opponent=b.user, deck="starter:war")
    done = await result.wait_done(timeout=TIMEOUT)
    match_id = int(done.content.split("#")[1].split(" ")[0])
    joined = await b.slash("match join", match=match_id, deck="starter:life")
    await joined.wait_done(timeout=TIMEOUT)
    return match_id


async def serve(args: list[str]) -> None:
    """One bot process, as it runs against Discord (only the address differs): the entry's own
    ``serve``, with its shard leases."""
    api_base, gateway, token, url, workers, shard_count, shard_ids, node = args
    discord.http.Route.BASE = api_base
    old = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = type(old)(gateway)
    settings = Settings(
        discord_token=None,
        database_url=url,
        log_level="WARNING",
        test_guild_id=None,
        default_turn_hours=24.0,
        moderator_role=None,
        sandbox_turns=1,
        shard_count=int(shard_count),
        shard_ids=tuple(int(i) for i in shard_ids.split(",")),
        node_id=node,
    )
    await serve_bot(settings, token, guild_ready_timeout=0.05, workers=int(workers))


def _split(shards: int, processes: int) -> list[list[int]]:
    """Shards 0..n-1 in ``processes`` consecutive runs, as a fleet's SANCTUM_SHARD_IDS."""
    per, extra = divmod(shards, processes)
    runs: list[list[int]] = []
    first = 0
    for p in range(processes):
        size = per + (1 if p < extra else 0)
        runs.append(list(range(first, first + size)))
        first += size
    return runs


async def _guilds(sandbox: Sandbox, shards: int) -> list[Guild]:
    """A server on each shard (ids made in one millisecond share a shard, so wait between)."""
    found: dict[int, Guild] = {}
    n = 0
    while len(found) < shards:
        guild = sandbox.create_guild(f"Bench {n}")
        found.setdefault(shard_of(guild.id, shards), guild)
        n += 1
        await asyncio.sleep(0.002)
    return [found[s] for s in sorted(found)]


def _peak_rss_mb(pids: list[int]) -> float:
    """Peak resident memory of processes and their children (the worker processes), in MB."""
    total = 0.0
    for pid in list(pids):
        children = Path(f"/proc/{pid}/task/{pid}/children")
        if children.exists():
            pids += [int(p) for p in children.read_text().split()]
    for each in pids:
        status = Path(f"/proc/{each}/status")
        if status.exists():
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1]) / 1024
    return total


@dataclass(frozen=True)
class Plan:
    matches: int
    turns: int
    workers: int
    active: int
    processes: int
    shards: int


async def run(plan: Plan, url: str) -> None:
    figures = Figures(active=asyncio.Semaphore(plan.active))
    matches, turns = plan.matches, plan.turns
    async with Sandbox(
        bot_name="Sanctum Host", rate_limit=1_000_000, shards=plan.shards
    ) as sandbox:
        guilds = await _guilds(sandbox, plan.shards)
        lobbies = [sandbox.create_channel(g, "matches") for g in guilds]
        # Players of match i meet in the server of shard i % shards.
        players = [
            sandbox.player(
                sandbox.create_user(f"p{i}", guild=guilds[i // 2 % plan.shards]),
                channel=lobbies[i // 2 % plan.shards],
            )
            for i in range(2 * matches)
        ]
        processes = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.bot",
                "--serve",
                sandbox.api_base,
                sandbox.gateway_url,
                sandbox.token,
                url,
                str(plan.workers),
                str(plan.shards),
                ",".join(map(str, ids)),
                f"bench-{p}",
            )
            for p, ids in enumerate(_split(plan.shards, plan.processes))
        ]
        try:
            await sandbox.wait_for(
                lambda: len(sandbox.connected_shards) == plan.shards and bool(sandbox.commands()),
                timeout=120,
            )
            started = time.perf_counter()
            slots = asyncio.Semaphore(20)

            async def create(i: int) -> int:
                async with slots:
                    lobby = lobbies[i % plan.shards]
                    return await _create(sandbox, players[2 * i], players[2 * i + 1], lobby)

            ids = await asyncio.gather(*(create(i) for i in range(matches)))
            took = time.perf_counter() - started
            print(f"{matches} matches created and started in {took:.1f} s")
            threads = {
                int((t.name or "").split("#")[1].split(":")[0]): t
                for lobby in lobbies
                for t in sandbox.threads(lobby)
                if (t.name or "").startswith("Match #")
            }
            figures.acks.clear()
            posts_before = _bot_posts(sandbox)
            began = time.perf_counter()
            for turn in range(1, turns + 1):
                await asyncio.gather(
                    *(
                        _play(sandbox, players[2 * i + side], match_id, turn, figures)
                        for i, match_id in enumerate(ids)
                        for side in (0, 1)
                    )
                )
                await _poll(functools.partial(_all_posted, sandbox, threads, turn), 0.2)
            elapsed = time.perf_counter() - began
            posted = _bot_posts(sandbox) - posts_before
            peak_mb = _peak_rss_mb([p.pid for p in processes])
        finally:
            for process in processes:
                process.send_signal(signal.SIGTERM)
            for process in processes:
                await process.wait()
    lost = await _lost_orders(url, ids, turns, figures)
    acks = sorted(figures.acks)
    p50 = statistics.median(acks)
    p99 = acks[min(len(acks) - 1, int(len(acks) * 0.99))]
    print(
        f"bot: {plan.processes} process(es), {plan.shards} shard(s), "
        f"{plan.workers} worker(s) each, {url.split(':', 1)[0]}"
    )
    print(f"interactions: {len(acks)} (each timed from the click to the acknowledgement)")
    print(
        f"ack latency: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
        f"max {acks[-1] * 1000:.0f} ms"
    )
    print(
        f"turns resolved and posted: {matches * turns} in {elapsed:.1f} s "
        f"= {matches * turns / elapsed:.1f}/s; messages posted: {posted} "
        f"= {posted / elapsed:.1f}/s"
    )
    print(f"peak memory of the bot processes and their workers: {peak_mb:.0f} MB")
    print(f"orders given: {len(figures.given)}, lost: {lost}")
    print(f"clicks unacknowledged within 3 s (then clicked again): {figures.missed}")


def _bot_posts(sandbox: Sandbox) -> int:
    """Messages created over REST so far (posts, DMs, follow-ups)."""
    return sum(1 for r in sandbox.requests if r.method == "POST" and r.path.endswith("/messages"))


def _all_posted(sandbox: Sandbox, threads: dict[int, Channel], turn: int) -> bool | None:
    """Every match thread has the post of ``turn``: resolved and delivered."""
    for match_id, thread in threads.items():
        prefix = f"Match #{match_id} · turn {turn} resolved"
        if not any(
            str(e.get("title", "")).startswith(prefix)
            for m in reversed(sandbox.messages(thread))
            for e in m.embeds
        ):
            return None
    return True


async def _lost_orders(url: str, ids: list[int], turns: int, figures: Figures) -> int:
    """Orders given (and acknowledged) that the turn's record does not hold."""
    store = await Store.open(url)
    matches = MatchService(store, SystemClock())
    lost = 0
    try:
        for match_id in ids:
            match = await matches.get_match(match_id)
            sides = {s.player_id: s.side for s in match.seats}
            for turn in range(1, turns + 1):
                record = await matches.history(match_id, turn)
                for (m, t, player), square in figures.given.items():
                    if m != match_id or t != turn:
                        continue
                    doc = record.orders.get(str(sides[player])) or {}
                    if not any(move.get("dest") == square for move in doc.get("moves", [])):
                        lost += 1
    finally:
        await store.close()
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--processes", type=int, default=1, help="bot processes (a fleet)")
    parser.add_argument("--shards", type=int, default=1, help="shards, split between them")
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes per bot process (0: threads; default: the spare cores)",
    )
    parser.add_argument(
        "--active", type=int, default=50, help="players giving orders at the same instant"
    )
    parser.add_argument("--serve", nargs=8, help=argparse.SUPPRESS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.serve:
        asyncio.run(serve(args.serve))
        return
    if not 1 <= args.processes <= args.shards:
        parser.error("--processes must be between 1 and --shards")
    workers = args.workers
    if workers is None:
        workers = max(1, default_workers() // args.processes)
    plan = Plan(args.matches, args.turns, workers, args.active, args.processes, args.shards)
    asyncio.run(_with_database(plan, args.backend))


async def _with_database(plan: Plan, backend: str) -> None:
    async with fresh_database(backend) as url:
        await run(plan, url)


if __name__ == "__main__":
    main()
