"""Sanctum Host entry point: settings, logging, the MatchBot, and sandbox mode without a token."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import random
import shutil
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
from discord.ext import commands

from ai.players import greedy_orders
from cogs import EXTENSIONS
from cogs.errors import ErrorHandlingTree
from cogs.runtime import Runtime
from engine.content import load_content
from engine.notation import context_for, format_order
from engine.orders import all_orders
from sandbox import Sandbox
from sandbox.models import Channel, Guild, Message
from sandbox.players import ScriptedPlayer
from sandbox.transcript import render_message, render_transcript, save_images
from service.clock import Clock, SystemClock
from service.deadlines import DeadlineAlarm
from service.decks import DeckService
from service.matches import MatchService
from service.outbox import Outbox
from service.shards import LeaseLostError, ShardLeases
from settings import PROJECT_ROOT, Settings, SettingsError, load_settings
from storage import Store

log = logging.getLogger("sanctum")

NO_TOKEN_HELP = """\
No Discord token is configured (DISCORD_TOKEN is empty), so Sanctum Host starts in sandbox mode.

Sandbox mode runs this same bot against a local stand-in for Discord on 127.0.0.1 and plays a
demo match between two scripted players; nothing goes over the network.

To run on real Discord:
  1. Create an application at https://discord.com/developers/applications and add a Bot.
  2. Copy the bot token into .env as DISCORD_TOKEN=... (see .env.example for every setting).
  3. Invite the bot with the scopes "bot" and "applications.commands" and the permissions listed
     in docs/operations.md. No privileged intents are needed.
  4. Run `make run` again.
"""

SANDBOX_DIR = PROJECT_ROOT / "var" / "sandbox"
# The demo prints and saves each player's order sheets of this many first turns.
DEMO_SHEET_TURNS = 2


def configure_logging(level: str) -> None:
    """Configure the root logger once, for the whole process."""
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
        datefmt="%Y-%m-%d %H:%M:%S",
    )
    # discord.py logs every gateway frame at DEBUG; keep our own DEBUG output readable.
    if level == "DEBUG":
        logging.getLogger("discord").setLevel(logging.INFO)
    # The alarm clock logs every job it adds and removes: one line per deadline change.
    logging.getLogger("apscheduler").setLevel(max(logging.WARNING, logging.getLevelName(level)))


def bot_intents() -> discord.Intents:
    """Only what the bot uses; none of these are privileged."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.dm_messages = True
    return intents


def default_workers() -> int:
    """Worker processes for turn resolution, rule queries and images: one core is left to
    the event loop, which must stay free to acknowledge interactions."""
    return max(1, (os.cpu_count() or 1) - 1)


class MatchBot(commands.AutoShardedBot):
    """The bot: services built in ``setup_hook``, cogs loaded, commands synced, alarms started.

    It runs the shards of the settings (by default every shard Discord recommends); processes
    running other shards of the same bot share the matches through the database's claims,
    each under its own ``node_id`` (by default the settings').

    ``store`` and ``clock`` may be given (tests, benchmarks); otherwise the database of the
    settings is opened and closed with the bot. ``sync_commands=False`` skips the command sync
    when a restarted process knows its commands are registered already.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        clock: Clock | None = None,
        node_id: str | None = None,
        sync_commands: bool = True,
        outbox_retry_seconds: float = 5.0,
        workers: int | None = None,
        **options: object,
    ) -> None:
        # No shard ids: every shard of the count runs here.
        shards: dict[str, object] = {}
        if settings.shard_ids is not None:
            shards["shard_ids"] = list(settings.shard_ids)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=bot_intents(),
            tree_cls=ErrorHandlingTree,
            help_command=None,
            shard_count=settings.shard_count,
            **shards,  # type: ignore[arg-type]
            **options,  # type: ignore[arg-type]
        )
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        self.node_id = node_id if node_id is not None else settings.node_id
        self.sync_commands = sync_commands
        self.outbox_retry_seconds = outbox_retry_seconds
        self.workers = workers if workers is not None else default_workers()
        self.pool: ProcessPoolExecutor | None = None
        self._given_store = store
        self.store: Store | None = None
        self.runtime: Runtime | None = None
        self.alarm: DeadlineAlarm | None = None

    async def setup_hook(self) -> None:
        self.store = self._given_store or await Store.open(self.settings.database_url)
        if self.workers > 0:
            # A fresh server process forks the workers: forking this process, with its event
            # loop and database threads, could copy a lock held mid-operation.
            context = multiprocessing.get_context("forkserver")
            self.pool = ProcessPoolExecutor(self.workers, mp_context=context)
        matches = MatchService(
            self.store,
            self.clock,
            node_id=self.node_id,
            executor=self.pool,
            workers=max(1, self.workers),
            challenge_seconds=round(self.settings.challenge_hours * 3600),
        )
        self.runtime = Runtime(
            matches=matches,
            decks=DeckService(self.store, self.clock),
            outbox=Outbox(
                self.store,
                self.clock,
                node_id=self.node_id,
                base_delay_seconds=self.outbox_retry_seconds,
            ),
            content=load_content(),
            moderator_role=self.settings.moderator_role,
            default_turn_hours=self.settings.default_turn_hours,
            max_open_challenges=self.settings.max_open_challenges,
            pool=self.pool,
        )
        # Before the poster starts: what a dead run of this node claimed is due again now.
        await self.runtime.outbox.release_my_claims()
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        # One process of a fleet registers the commands: the one holding shard 0.
        if self.sync_commands and (self.shard_ids is None or 0 in self.shard_ids):
            await self.sync_tree()
        self.alarm = DeadlineAlarm(matches)
        await self.alarm.start()

    async def sync_tree(self) -> None:
        guild_id = self.settings.test_guild_id
        if guild_id is not None:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to test guild %s", len(synced), guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d commands globally", len(synced))

    async def close(self) -> None:
        if self.alarm is not None:
            await self.alarm.stop()
            self.alarm = None
        if self.runtime is not None:
            await self.runtime.cancel_redraws()
        # Unloads the extensions too, which stops the poster before the database closes.
        await super().close()
        if self.store is not None and self._given_store is None:
            await self.store.close()
            self.store = None
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


async def run_bot(bot: MatchBot, token: str, *, leases: ShardLeases | None = None) -> None:
    """Run until the connection ends, SIGINT/SIGTERM asks for a clean shutdown, or (with
    ``leases``) a shard lease is lost, which raises LeaseLostError once the bot has stopped."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    runner = asyncio.create_task(bot.start(token))
    stopper = asyncio.create_task(stop.wait())
    waits: set[asyncio.Task[Any]] = {runner, stopper}
    keeper = asyncio.create_task(leases.keep()) if leases is not None else None
    if keeper is not None:
        waits.add(keeper)
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        log.info("shutting down")
        await bot.close()
        stopper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
    if keeper is not None:
        if keeper.done():
            keeper.result()  # raises the LeaseLostError that ended the run
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeper


# -- sandbox mode


@contextlib.contextmanager
def pointed_at(sandbox: Sandbox) -> Iterator[None]:
    """discord.py talks to the sandbox instead of Discord until the block ends."""
    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = sandbox.api_base
    # The gateway address is a URL object of the type discord.py uses (yarl's, via aiohttp).
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = type(old_gateway)(sandbox.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway


async def _sheet_for(player: ScriptedPlayer, match_id: int, turn: int) -> Message:
    def is_sheet(message: Message) -> bool:
        title = str(message.embeds[0].get("title", "")) if message.embeds else ""
        return title.startswith(f"Match #{match_id} · turn {turn} ")

    return await player.wait_for_message(player.dm, predicate=is_sheet, timeout=60)


async def play_turn(bot: MatchBot, player: ScriptedPlayer, match_id: int, turn: int) -> None:
    """One scripted player reads the sheet, picks orders as a player would, types them, confirms.

    The orders come from the computer player of ``ai`` looking at this player's own view, and
    travel as typed text through the DM parser, as a person's would.
    """
    assert bot.runtime is not None
    await _sheet_for(player, match_id, turn)
    _, view = await bot.runtime.view(match_id, str(player.id))
    rng = random.Random(f"{match_id}:{turn}:{player.id}")
    content = bot.runtime.content
    orders = await asyncio.to_thread(greedy_orders, view, rng, content)
    ctx = context_for(view, content)
    lines = [format_order(order, ctx) for order in all_orders(orders)]
    lines.append("confirm")
    await player.send_dm("\n".join(lines))


async def run_demo(settings: Settings, out_dir: Path) -> int:
    """The same bot against the sandbox: two scripted players play a match through Discord."""
    await asyncio.to_thread(_fresh_directory, out_dir)
    async with Sandbox(bot_name="Sanctum Host") as sandbox:
        guild = sandbox.create_guild("Sanctum Sandbox")
        lobby = sandbox.create_channel(guild, "matches")
        demo = Demo(
            sandbox,
            sandbox.player(sandbox.create_user("Alice", guild=guild), channel=lobby),
            sandbox.player(sandbox.create_user("Bob", guild=guild), channel=lobby),
            lobby,
            guild,
        )
        demo_settings = replace(
            settings,
            database_url=f"sqlite:///{out_dir / 'demo.db'}",
            test_guild_id=guild.id,
        )
        bot = MatchBot(demo_settings, guild_ready_timeout=0.05)
        with pointed_at(sandbox):
            return await demo.run(bot, out_dir, settings.sandbox_turns)


def _fresh_directory(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)


def _titled(messages: list[Message], prefix: str) -> bool:
    return any(str(e.get("title", "")).startswith(prefix) for m in messages for e in m.embeds)


class Demo:
    """Two scripted players and the lobby where they meet."""

    def __init__(
        self,
        sandbox: Sandbox,
        alice: ScriptedPlayer,
        bob: ScriptedPlayer,
        lobby: Channel,
        guild: Guild,
    ) -> None:
        self.sandbox = sandbox
        self.alice = alice
        self.bob = bob
        self.lobby = lobby
        self.guild = guild

    async def run(self, bot: MatchBot, out_dir: Path, max_turns: int) -> int:
        """Start ``bot``, play, print the thread and save its images; then stop the bot."""
        runner = asyncio.create_task(bot.start(self.sandbox.token))
        try:
            await self.sandbox.wait_for(
                lambda: bot.is_ready() and self.sandbox.commands(self.guild),
                timeout=30,
                what="the bot",
            )
            thread, match_id = await self.create_match()
            turns = await self.play(bot, thread, match_id, max_turns)
            print(render_transcript(self.sandbox, thread))
            saved = await asyncio.to_thread(save_images, self.sandbox, thread, out_dir)
            sheets = 0
            for player in (self.alice, self.bob):
                text, images = await asyncio.to_thread(
                    self.dm_sheets, player, match_id, out_dir / f"dm-{player.user.name.lower()}"
                )
                print(text)
                sheets += len(images)
            print(
                f"Played {turns} turn(s); {len(saved)} image(s) of the thread saved under "
                f"{out_dir}, and {sheets} of the players' order sheets under its dm-* folders."
            )
        finally:
            await bot.close()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
        return 0

    def dm_sheets(
        self, player: ScriptedPlayer, match_id: int, directory: Path
    ) -> tuple[str, list[Path]]:
        """The player's DMs for the first turns as text (each sheet as it ended its turn, with
        the bot's replies to the typed orders), and the sheets' images saved."""
        lines = [f"== DM with {player.user.name}: the order sheets of the first turns =="]
        directory.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        last = f"Match #{match_id} · turn {DEMO_SHEET_TURNS + 1} "
        for message in self.sandbox.state.channel_history(player.dm.id):
            if _titled([message], last):
                break
            lines.extend(render_message(self.sandbox, message))
            for attachment in message.attachments:
                if attachment.filename.endswith(".png"):
                    turn = len(written) + 1
                    path = directory / f"{turn:03d}-turn-{turn}-{attachment.filename}"
                    path.write_bytes(attachment.data)
                    written.append(path)
        return "\n".join(lines) + "\n", written

    def _thread(self) -> Channel | None:
        return next(
            (t for t in self.sandbox.threads(self.lobby) if (t.name or "").startswith("Match #")),
            None,
        )

    async def create_match(self) -> tuple[Channel, int]:
        result = await self.alice.slash("match create", opponent=self.bob.user, deck="starter:war")
        await result.wait_done(timeout=30)
        thread: Channel = await self.sandbox.wait_for(
            self._thread, timeout=30, what="the match thread"
        )
        match_id = int((thread.name or "").split("#")[1].split(":")[0])
        joined = await self.bob.slash("match join", match=match_id, deck="starter:life")
        await joined.wait_done(timeout=30)
        return thread, match_id

    def _posted(self, thread: Channel, title: str) -> bool:
        return _titled(self.sandbox.messages(thread), title)

    async def play(self, bot: MatchBot, thread: Channel, match_id: int, max_turns: int) -> int:
        """Play until the match ends or ``max_turns`` turns are resolved; returns the turns."""
        assert bot.runtime is not None
        turns = 0
        for turn in range(1, max_turns + 1):
            await asyncio.gather(
                play_turn(bot, self.alice, match_id, turn),
                play_turn(bot, self.bob, match_id, turn),
            )
            await self.sandbox.wait_for(
                functools.partial(
                    self._posted, thread, f"Match #{match_id} · turn {turn} resolved"
                ),
                timeout=60,
                what=f"the post of turn {turn}",
            )
            turns = turn
            match = await bot.runtime.matches.get_match(match_id)
            if match.status == "ended":
                await self.sandbox.wait_for(
                    functools.partial(self._posted, thread, f"Match #{match_id} is over"),
                    timeout=120,
                    what="the final post",
                )
                break
        return turns


class StartupError(Exception):
    """The bot cannot start; the message is one line naming the cause."""


def _without_password(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at:
        return url
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:***@{host}"


async def open_store(url: str) -> Store:
    """The database of the settings, or a StartupError saying why it cannot be opened."""
    try:
        return await asyncio.wait_for(Store.open(url), 30)
    except TimeoutError:
        raise StartupError(
            f"the database {_without_password(url)} did not answer within 30 s"
        ) from None
    except Exception as error:
        # Refused connections, unknown hosts, wrong passwords, missing databases, unreadable
        # files: whatever the driver says is the cause, on one line.
        cause = " ".join(str(error).split()) or type(error).__name__
        raise StartupError(f"cannot open the database {_without_password(url)}: {cause}") from None


async def serve(settings: Settings, token: str, **options: Any) -> None:
    """Open the database first (its errors need no network to show), then run the bot.

    With a shard count, the bot serves only the shards whose leases this process holds: it
    waits (a standby, or a process whose shards a standby serves) until some are free, and
    gives them up when it stops. ``options`` go to the MatchBot."""
    store = await open_store(settings.database_url)
    leases: ShardLeases | None = None
    try:
        if settings.shard_count is not None:
            leases = ShardLeases(
                store,
                SystemClock(),
                node_id=settings.node_id,
                shard_count=settings.shard_count,
                lease_seconds=settings.shard_lease_seconds,
            )
            wanted = settings.shard_ids or tuple(range(settings.shard_count))
            held = await leases.wait_for_shards(wanted, standby=settings.standby)
            settings = replace(settings, shard_ids=held)
        try:
            await run_bot(MatchBot(settings, store=store, **options), token, leases=leases)
        except aiohttp.ClientConnectionError as error:
            raise StartupError(f"cannot reach Discord ({error}); check the network") from None
    finally:
        if leases is not None:
            with contextlib.suppress(Exception):
                await leases.release()
        await store.close()


def main() -> int:
    try:
        settings = load_settings()
    except SettingsError as error:
        print(f"Configuration error: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    if settings.discord_token is None:
        print(NO_TOKEN_HELP)
        return asyncio.run(run_demo(settings, SANDBOX_DIR))
    try:
        asyncio.run(serve(settings, settings.discord_token))
    except StartupError as error:
        print(f"Start-up error: {error}", file=sys.stderr)
        return 1
    except LeaseLostError as error:
        # Another process serves the shards now; a restart waits for them as a standby would.
        print(f"Stopped serving: {error}", file=sys.stderr)
        return 1
    except discord.LoginFailure:
        print(
            "Configuration error: Discord refused DISCORD_TOKEN; copy the token again from the "
            "Bot page of your Discord application",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
