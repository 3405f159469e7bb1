"""The bot under test in the sandbox: a world of players, the bot started on a database, and the
steps players take (create a match, read a sheet, give orders, wait for a turn post)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ai.players import greedy_orders
from bot import MatchBot
from engine.notation import context_for, format_order
from engine.orders import Orders, all_orders
from sandbox import Channel, Guild, Message, Sandbox, ScriptedPlayer
from settings import Settings
from tests.sandbox.support import running

TIMEOUT = 30.0


@dataclass
class World:
    sandbox: Sandbox
    guild: Guild
    lobby: Channel
    alice: ScriptedPlayer
    bob: ScriptedPlayer
    carol: ScriptedPlayer
    database: Path

    def settings(self) -> Settings:
        return Settings(
            discord_token=None,
            database_url=f"sqlite:///{self.database}",
            log_level="INFO",
            test_guild_id=self.guild.id,
            default_turn_hours=24.0,
            moderator_role=None,
            sandbox_turns=12,
        )


@contextlib.asynccontextmanager
async def bot_running(
    world: World, *, sync_commands: bool = True, outbox_retry_seconds: float = 5.0
) -> AsyncIterator[MatchBot]:
    bot = MatchBot(
        world.settings(),
        sync_commands=sync_commands,
        outbox_retry_seconds=outbox_retry_seconds,
        guild_ready_timeout=0.05,
    )
    async with running(bot, world.sandbox):
        await world.sandbox.wait_for(
            lambda: bool(world.sandbox.commands(world.guild)), timeout=TIMEOUT, what="commands"
        )
        yield bot


def titled(message: Message, prefix: str) -> bool:
    return any(str(e.get("title", "")).startswith(prefix) for e in message.embeds)


def posts(sandbox: Sandbox, channel: Channel, prefix: str) -> list[Message]:
    return [m for m in sandbox.messages(channel) if titled(m, prefix)]


async def create_match(
    world: World, *, alice_deck: str = "starter:war", bob_deck: str = "starter:life"
) -> tuple[Channel, int]:
    """Alice challenges Bob in the lobby; Bob joins; the match starts."""
    result = await world.alice.slash("match create", opponent=world.bob.user, deck=alice_deck)
    await result.wait_done(timeout=TIMEOUT)
    sandbox = world.sandbox

    def thread() -> Channel | None:
        return next(
            (t for t in sandbox.threads(world.lobby) if (t.name or "").startswith("Match #")), None
        )

    found: Channel = await sandbox.wait_for(thread, timeout=TIMEOUT, what="the match thread")
    match_id = int((found.name or "").split("#")[1].split(":")[0])
    joined = await world.bob.slash("match join", match=match_id, deck=bob_deck)
    await joined.wait_done(timeout=TIMEOUT)
    return found, match_id


def is_sheet(match_id: int, turn: int) -> Callable[[Message], bool]:
    return lambda m: titled(m, f"Match #{match_id} · turn {turn} ")


async def dm_sheet(player: ScriptedPlayer, match_id: int, turn: int) -> Message:
    return await player.wait_for_message(
        player.dm, predicate=is_sheet(match_id, turn), timeout=TIMEOUT
    )


async def chosen_orders(bot: MatchBot, player: ScriptedPlayer, match_id: int) -> tuple[Orders, str]:
    """What a player would order from their own view, and the same orders as typed text."""
    assert bot.runtime is not None
    _, view = await bot.runtime.view(match_id, str(player.id))
    rng = random.Random(f"{match_id}:{view.turn}:{player.id}")
    orders = await asyncio.to_thread(greedy_orders, view, rng, bot.runtime.content)
    ctx = context_for(view, bot.runtime.content)
    return orders, "\n".join(format_order(o, ctx) for o in all_orders(orders))


async def wait_turn_post(world: World, thread: Channel, match_id: int, turn: int) -> Message:
    prefix = f"Match #{match_id} · turn {turn} resolved"
    found: Message = await world.sandbox.wait_for(
        lambda: next(iter(posts(world.sandbox, thread, prefix)), None),
        timeout=TIMEOUT,
        what=f"the post of turn {turn}",
    )
    return found


async def wait_final_post(world: World, thread: Channel, match_id: int) -> Message:
    found: Message = await world.sandbox.wait_for(
        lambda: next(iter(posts(world.sandbox, thread, f"Match #{match_id} is over")), None),
        timeout=TIMEOUT * 2,
        what="the final post",
    )
    return found


# What an outbox key looks like (match:1:turn:3:resolved, league:1:round:1:opened), and the
# "key ..." marker posts once ended with; command options such as `match:1` are not keys.
KEY_PATTERN = re.compile(r"\b(?:match|league):\d+:\w|\bkey \S+:")


def readable(message: Message) -> str:
    """What a player reads in a message: its text, its embeds, the labels and options of its
    components and the names of its attachments (not custom_ids, which Discord never shows)."""
    parts = [message.content, json.dumps(message.embeds, ensure_ascii=False)]
    for row in message.components:
        for part in row.get("components", []):
            parts += [str(part.get(k, "")) for k in ("label", "placeholder")]
            parts += [
                f"{o.get('label', '')} {o.get('description', '')}" for o in part.get("options", [])
            ]
    parts += [a.filename for a in message.attachments]
    return "\n".join(parts)


def keys_seen(sandbox: Sandbox, players: Iterable[ScriptedPlayer]) -> list[str]:
    """Every outbox key (or key marker) that one of ``players`` can read anywhere."""
    found: list[str] = []
    for player in players:
        for messages in sandbox.everything_visible_to(player.user).values():
            for message in messages:
                text = readable(message)
                found += [
                    text[max(0, m.start() - 20) : m.end() + 20] for m in KEY_PATTERN.finditer(text)
                ]
    return found
