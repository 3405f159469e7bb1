"""The bot under load in the sandbox: many matches at once, every player giving orders by clicks.

The bot runs in its own process, as it would against Discord; the sandbox and the scripted
players share this one. Each player, each turn, opens the move menu of their DM sheet, picks a
destination and clicks Confirm: three interactions, each timed from the click until the sandbox
has the bot's acknowledgement. Printed: acknowledgement latency p50/p99/max, turns resolved
(and posted) per second, peak memory of the bot and its workers, and whether every order given
reached its turn's record.

    .venv/bin/python -m bench.bot [--matches 200] [--turns 3]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import discord
import discord.gateway
import discord.http

from bot import MatchBot, default_workers, run_bot
from sandbox import (
    Channel,
    InteractionFailedError,
    Message,
    Sandbox,
    ScriptedPlayer,
    walk_components,
)
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
    """The bot in its own process, as it runs against Discord: only the address differs."""
    api_base, gateway, token, guild_id, db, workers = args
    discord.http.Route.BASE = api_base
    old = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = type(old)(gateway)
    settings = Settings(
        discord_token=None,
        database_url=f"sqlite:///{db}",
        log_level="WARNING",
        test_guild_id=int(guild_id),
        default_turn_hours=24.0,
        moderator_role=None,
        sandbox_turns=1,
    )
    await run_bot(MatchBot(settings, guild_ready_timeout=0.05, workers=int(workers)), token)


def _peak_rss_mb(pid: int) -> float:
    """Peak resident memory of a process and its children (the worker processes), in MB."""
    total = 0.0
    pids = [pid]
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


async def run(matches: int, turns: int, workers: int, active: int) -> None:
    figures = Figures(active=asyncio.Semaphore(active))
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/bench.db"
        async with Sandbox(bot_name="Sanctum Host", rate_limit=1_000_000) as sandbox:
            guild = sandbox.create_guild("Bench")
            lobby = sandbox.create_channel(guild, "matches")
            players = [
                sandbox.player(sandbox.create_user(f"p{i}", guild=guild), channel=lobby)
                for i in range(2 * matches)
            ]
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.bot",
                "--serve",
                sandbox.api_base,
                sandbox.gateway_url,
                sandbox.token,
                str(guild.id),
                db,
                str(workers),
            )
            try:
                await sandbox.wait_for(
                    lambda: sandbox.bot_connected and bool(sandbox.commands(guild)), timeout=120
                )
                started = time.perf_counter()
                slots = asyncio.Semaphore(20)

                async def create(i: int) -> int:
                    async with slots:
                        return await _create(sandbox, players[2 * i], players[2 * i + 1], lobby)

                ids = await asyncio.gather(*(create(i) for i in range(matches)))
                took = time.perf_counter() - started
                print(f"{matches} matches created and started in {took:.1f} s")
                threads = {
                    int((t.name or "").split("#")[1].split(":")[0]): t
                    for t in sandbox.threads(lobby)
                    if (t.name or "").startswith("Match #")
                }
                figures.acks.clear()
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
                peak_mb = _peak_rss_mb(process.pid)
            finally:
                process.send_signal(signal.SIGTERM)
                await process.wait()
        lost = await _lost_orders(db, ids, turns, figures)
    acks = sorted(figures.acks)
    p50 = statistics.median(acks)
    p99 = acks[min(len(acks) - 1, int(len(acks) * 0.99))]
    print(f"interactions: {len(acks)} (each timed from the click to the acknowledgement)")
    print(
        f"ack latency: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
        f"max {acks[-1] * 1000:.0f} ms"
    )
    print(
        f"turns resolved and posted: {matches * turns} in {elapsed:.1f} s "
        f"= {matches * turns / elapsed:.1f}/s"
    )
    print(f"peak memory of the bot (process and {workers} worker(s)): {peak_mb:.0f} MB")
    print(f"orders given: {len(figures.given)}, lost: {lost}")
    print(f"clicks unacknowledged within 3 s (then clicked again): {figures.missed}")


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


async def _lost_orders(db: str, ids: list[int], turns: int, figures: Figures) -> int:
    """Orders given (and acknowledged) that the turn's record does not hold."""
    store = await Store.open(f"sqlite:///{db}")
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
    parser.add_argument(
        "--workers", type=int, default=default_workers(), help="worker processes (0: threads)"
    )
    parser.add_argument(
        "--active", type=int, default=50, help="players giving orders at the same instant"
    )
    parser.add_argument("--serve", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.serve:
        asyncio.run(serve(args.serve))
        return
    asyncio.run(run(args.matches, args.turns, args.workers, args.active))


if __name__ == "__main__":
    main()
