"""Proof: the real bot process, with its worker process, is killed (SIGKILL) at random moments
while scripted players play whole matches through the sandbox, and started again on the same
database each time. Afterwards every acknowledged confirmation is kept, every turn replays
exactly from its recorded orders, each turn was posted once, each player got one sheet per
turn, and no turn both sides confirmed is left unresolved."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engine.content import load_content
from sandbox import Message, ScriptedPlayer
from service import engine_bridge as eb
from service.clock import SystemClock
from service.matches import MatchService
from storage import Store
from tests.cogs.support import World, posts
from tests.service.matchkit import started_match

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# 50 per database; SANCTUM_BOT_KILLS changes it for a longer soak or a quick look.
KILLS = int(os.environ.get("SANCTUM_BOT_KILLS", "50"))
PAIRS = 3
# One kill in five comes during start-up (this long after the process started); the others
# this long after it connected to the gateway, while it resolves, posts and answers.
STARTING = 0.2
START_SECONDS = (0.2, 3.0)
LIFE_SECONDS = (1.0, 8.0)
SETTLE_SECONDS = 90.0


@dataclass
class Seat:
    player: ScriptedPlayer
    match_id: int
    side: str
    # The turns the bot acknowledged a confirmation of, in the reply it sent.
    acknowledged: list[int] = field(default_factory=list)
    # The turns the player is done with (acknowledged, or found confirmed when no reply came).
    done: set[int] = field(default_factory=set)


def sheet_turns(seat: Seat) -> list[int]:
    """The turns of the order sheets the player got by DM, one entry per sheet."""
    prefix = f"Match #{seat.match_id} · turn "
    turns = []
    for message in seat.player.dms():
        title = str(message.embeds[0].get("title", "")) if message.embeds else ""
        if title.startswith(prefix):
            turns.append(int(title[len(prefix) :].split()[0]))
    return turns


def acknowledges(reply: Message, turn: int) -> bool:
    text = reply.content
    return f"Turn {turn} is resolved" in text or f"turn {turn}** (confirmed)" in text


async def typed_orders(service: MatchService, seat: Seat) -> str:
    """Discard the first card of the hand (as the player's own view shows it), then confirm."""
    match = await service.get_match(seat.match_id, with_state=True)
    assert match.state is not None
    me = next(p for p in match.state["players"] if p["side"] == seat.side)
    if not me["hand"]:
        return "confirm"
    name = load_content().spells[me["hand"][0]["spell_id"]].name
    return f"discard {name}\nconfirm"


async def still_open(service: MatchService, seat: Seat, turn: int) -> bool:
    """Whether the seat's orders for `turn` are still to confirm. A player who got no answer
    looks at the match before typing again: typed orders go to the match's current turn, and
    a confirmation the bot kept before it died may have let the turn resolve."""
    async with service.store.read() as s:
        match = await s.get_match(seat.match_id)
        orders = await s.get_orders(seat.match_id, turn)
    assert match is not None
    mine = orders.get(seat.side)
    return match.turn == turn and match.status == "active" and not (mine and mine.confirmed)


async def play(service: MatchService, seat: Seat, stop: asyncio.Event) -> None:
    """Confirm each turn once its sheet arrives; try again when no answer comes (the bot was
    down, or died before answering)."""
    while not stop.is_set():
        turns = sheet_turns(seat)
        turn = max(turns, default=0)
        if turn == 0 or turn in seat.done:
            await asyncio.sleep(0.1)
            continue
        if not await still_open(service, seat, turn):
            seat.done.add(turn)
            continue
        before = len(seat.player.dms())
        await seat.player.send_dm(await typed_orders(service, seat))
        for _ in range(30):
            replies = [m for m in seat.player.dms()[before:] if not m.embeds]
            if replies:
                if acknowledges(replies[0], turn):
                    seat.acknowledged.append(turn)
                    seat.done.add(turn)
                break
            await asyncio.sleep(0.1)


async def spawn(world: World, db_url: str, log: Path) -> asyncio.subprocess.Process:
    sandbox = world.sandbox
    with log.open("ab") as out:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.cogs.bot_process",
            sandbox.api_base,
            sandbox.gateway_url,
            sandbox.token,
            db_url,
            str(world.guild.id),
            cwd=ROOT,
            stdout=out,
            stderr=out,
            start_new_session=True,
        )


def kill(process: asyncio.subprocess.Process) -> None:
    """SIGKILL the bot and its worker processes (its session)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


async def settled(service: MatchService) -> bool:
    """Nothing left to do: no announcement pending, no turn both sides confirmed."""
    async with service.store.read() as s:
        pending = await s.count_outbox("pending")
        active = await s.list_matches(statuses=["active"])
        both = [
            m.id
            for m in active
            if sum(o.confirmed for o in (await s.get_orders(m.id, m.turn)).values()) == 2
        ]
    return pending == 0 and not both


async def test_the_real_bot_killed_at_random_moments_loses_and_doubles_nothing(
    world: World, db_url: str, tmp_path: Path
) -> None:
    sandbox = world.sandbox
    store = await Store.open(db_url)
    service = MatchService(store, SystemClock(), node_id="players")
    rng = random.Random(1201)
    seats: list[Seat] = []
    try:
        for pair in range(PAIRS):
            red, blue = (
                sandbox.player(
                    sandbox.create_user(f"{side}{pair}", guild=world.guild), channel=world.lobby
                )
                for side in ("Red", "Blue")
            )
            match = await started_match(
                service,
                (str(red.id), str(blue.id)),
                guild_id=str(world.guild.id),
                channel_id=str(world.lobby.id),
                turn_seconds=86400,
                no_show_limit=0,
                reminders=[],
            )
            sides = {seat.player_id: seat.side for seat in match.seats}
            seats += [Seat(p, match.id, str(sides[str(p.id)])) for p in (red, blue)]

        log = tmp_path / "bot.log"
        stop = asyncio.Event()
        players = [asyncio.create_task(play(service, seat, stop)) for seat in seats]
        killed = 0
        gateway = sandbox.state.gateway
        for _ in range(KILLS):
            process = await spawn(world, db_url, log)
            if rng.random() < STARTING:
                await asyncio.sleep(rng.uniform(*START_SECONDS))
            else:
                await sandbox.wait_for(
                    lambda: gateway.connected, timeout=120, what="the bot online"
                )
                await asyncio.sleep(rng.uniform(*LIFE_SECONDS))
            alive = process.returncode is None
            kill(process)
            await process.wait()
            killed += alive
            # The next process connects once the sandbox saw this one's connection drop.
            await sandbox.wait_for(lambda: not gateway.connected, timeout=30, what="the drop")
        stop.set()
        await asyncio.gather(*players)

        process = await spawn(world, db_url, log)
        try:
            for _ in range(int(SETTLE_SECONDS / 0.2)):
                if await settled(service):
                    break
                await asyncio.sleep(0.2)
            assert await settled(service), "the restarted bot leaves nothing to do"
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                kill(process)
        assert killed == KILLS, "every kill hit a live process"

        resolved = 0
        for match_id in sorted({seat.match_id for seat in seats}):
            match = await service.get_match(match_id, with_state=True)
            records = await service.turns(match_id)
            numbers = [r.turn for r in records]
            assert numbers == list(range(1, len(records) + 1)), "turns are contiguous"
            resolved += len(records)
            state = match.initial_state
            for record in records:
                assert state is not None
                # Replays exactly: the recorded orders on the state before give this turn.
                new_state, report = eb.resolve(state, record.orders)
                assert (new_state, report) == (record.state, record.report), record.turn
                state = record.state
            channel = sandbox.state.channels[int(match.channel_id or 0)]
            for record in records:
                title = f"Match #{match_id} · turn {record.turn} resolved"
                assert len(posts(sandbox, channel, title)) == 1, title
            async with store.read() as s:
                current = await s.get_orders(match_id, match.turn)
            by_turn = {r.turn: r for r in records}
            for seat in (s for s in seats if s.match_id == match_id):
                # One sheet per turn, every turn: no sheet doubled, none lost.
                assert sorted(sheet_turns(seat)) == list(range(1, match.turn + 1)), seat.side
                for turn in seat.acknowledged:
                    # Acknowledged: in the turn's record, or confirmed in the open turn.
                    if turn in by_turn:
                        given = by_turn[turn].orders[seat.side]
                        assert given is not None and given["confirmed"], (seat.side, turn)
                    else:
                        assert turn == match.turn and current[seat.side].confirmed
        assert resolved >= KILLS // 5, f"only {resolved} turns resolved across {KILLS} kills"
        acks = sum(len(s.acknowledged) for s in seats)
        print(f"\n{store.dialect}: {killed} kills, {resolved} turns, {acks} acknowledged")
    finally:
        await store.close()
