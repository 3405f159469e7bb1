"""The poster: drains the service's outbox into Discord, once each, with retries.

Each announcement carries an invisible mark of its outbox key at the end of its first embed's
footer (players never read the key), and is sent with a nonce made from the key (`cogs.nonce`),
so a request repeated within minutes, by discord.py or by any attempt of the outbox in any
process, gets back the message Discord already made. Before a retry the poster also looks for a
message with that mark in the target channel, so a crash (or a lost reply) after a post but
before the outbox heard of it finds the earlier post however long ago it was made.
Announcements of one match go out in order; different matches are delivered concurrently.
Images are drawn in worker threads so that the event loop keeps answering interactions.
Each row is read back as its typed announcement (`service.announcements`) and handed to the
handler for its class; announcements that belong to another cog (league posts) are delivered by
what that cog registers for their classes (:meth:`Poster.register`), including the search before
a retry. Every word of a match announcement is composed here, so this file is long: it is one
handler per announcement class, around the delivery loop they share.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import weakref
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

import discord
from discord.ext import commands

from cogs.log import REASONS
from cogs.match import THREAD_MINUTES, JoinButton
from cogs.nonce import mark_of, nonce_of
from cogs.runtime import (
    Runtime,
    draw_board,
    draw_replay,
    escaped,
    mention,
    runtime_of,
    side_name,
    timestamp,
    write_log,
)
from cogs.sheet import (
    Sheet,
    close_dm_sheet,
    load_sheet,
    resolved_footer,
    sheet_embed,
    sheet_image,
    sheet_view,
    update_dm_sheet,
)
from cogs.split import (
    EMBED_DESCRIPTION_LIMIT,
    EMBED_TOTAL_LIMIT,
    add_field_safely,
    clip,
    split_text,
)
from service import MatchRecord, MatchStatus, OutboxRecord
from service.announcements import (
    Announcement,
    DrawOffered,
    Extended,
    Grace,
    MatchCancelled,
    MatchCreated,
    MatchOver,
    MatchStarted,
    OrderSheet,
    Paused,
    PauseRequested,
    Reminder,
    Resumed,
    ResumeRequested,
    SeatHandedOver,
    TurnResolved,
    UnknownAnnouncementError,
    decode,
)
from service.deadline_anchor import anchor_of
from service.matches import is_computer
from service.outbox import PermanentDeliveryError

log = logging.getLogger(__name__)

# Discord's error code for "Cannot send messages to this user" (closed DMs).
CANNOT_DM = 50007
HISTORY_SCAN = 50
POLL_SECONDS = 0.5
CONCURRENT_MATCHES = 16
CONCURRENT_DMS = 8
# More frames than this make a replay too large to attach; the last ones matter most.
REPLAY_FRAMES = 120

Item = OutboxRecord
A = TypeVar("A", bound=Announcement)
# A handler posts one announcement (the row it came in, and the row read as its class).
Handler = Callable[[Item, Any], Awaitable[str]]


class KindDeliverer(Protocol):
    """The delivery of the announcements a cog owns (registered with :meth:`Poster.register`).

    A cog's announcements need not belong to a match, so the poster leaves finding their place,
    posting them and recognising an earlier post of them to the cog.
    """

    async def target(self, item: Item) -> discord.abc.Messageable | None:
        """Where the item would be posted first, without creating anything (None: nowhere)."""
        ...

    async def deliver(self, item: Item) -> str:
        """Post the item; the id of the message that carries its key."""
        ...

    async def find(self, item: Item) -> str | None:
        """The id of an earlier post of the item, if there is one."""
        ...


class Poster:
    """Delivers outbox items; the service's :class:`~service.outbox.Deliverer`."""

    def __init__(self, bot: commands.Bot, runtime: Runtime) -> None:
        self.bot = bot
        self.runtime = runtime
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        # Set by the outbox after each commit that queued announcements, instead of a poll.
        self._ready = asyncio.Event()
        self._stop_listening: Callable[[], None] | None = None
        self._dm_slots = asyncio.Semaphore(CONCURRENT_DMS)
        self._match_slots = asyncio.Semaphore(CONCURRENT_MATCHES)
        # Per match: deliveries that may open its thread take turns (a lock lives as long as
        # some delivery holds or awaits it), and a thread opened but not yet stored as its home.
        self._thread_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._threads_opened: dict[int, discord.Thread] = {}
        self.delivered = 0
        self._registered: dict[type[Announcement], KindDeliverer] = {}
        self._handlers: dict[type[Announcement], Handler] = {
            MatchCreated: self._match_created,
            MatchCancelled: self._and_closed(
                self._simple(
                    lambda t: (
                        "This match was cancelled before it began."
                        if t.expired_after_hours is None
                        else f"Nobody took the seat within {t.expired_after_hours:g} hours, so "
                        "the challenge has expired; `/match create` opens a new one."
                    )
                )
            ),
            MatchStarted: self._and_closed(self._match_started),
            OrderSheet: self._order_sheet,
            TurnResolved: self._turn_resolved,
            MatchOver: self._match_ended,
            Reminder: self._reminder,
            Grace: self._simple(_grace_text),
            DrawOffered: self._simple(
                lambda t: (
                    f"{mention(t.player_id)} offers a draw. Accept with `/match draw` or play on."
                )
            ),
            PauseRequested: self._simple(
                lambda t: (
                    f"{mention(t.player_id)} asks to pause; `/match pause` "
                    "from the other player pauses the match."
                )
            ),
            ResumeRequested: self._simple(
                lambda t: (
                    f"{mention(t.player_id)} asks to resume; `/match resume` "
                    "from the other player resumes the match."
                )
            ),
            Paused: self._and_sheets(
                self._simple(
                    lambda t: (
                        "The match is paused"
                        + (" by a moderator" if t.moderator else "")
                        + "; the deadline is on hold."
                    )
                )
            ),
            Resumed: self._and_sheets(
                self._simple(
                    lambda t: (
                        "The match resumes"
                        + (" (moderator)" if t.moderator else "")
                        + f"; the deadline is {timestamp(t.deadline_at)}."
                    )
                )
            ),
            Extended: self._and_sheets(self._simple(_extended_text)),
            SeatHandedOver: self._seat_handed_over,
        }

    # -- kinds owned by other cogs

    def register(self, classes: Iterable[type[Announcement]], deliverer: KindDeliverer) -> None:
        """Let `deliverer` post, find and place the announcements of `classes`."""
        classes = frozenset(classes)
        taken = sorted(c.kind for c in classes if c in self._handlers or c in self._registered)
        if taken:
            raise ValueError(f"the poster delivers these kinds already: {', '.join(taken)}")
        for cls in classes:
            self._registered[cls] = deliverer

    def unregister(self, classes: Iterable[type[Announcement]]) -> None:
        for cls in classes:
            self._registered.pop(cls, None)

    # -- the loop

    def start(self) -> None:
        if self._task is None:
            self._stop_listening = self.runtime.outbox.on_added(self._ready.set)
            self._task = asyncio.create_task(self._run(), name="sanctum-poster")

    async def stop(self) -> None:
        self._stopping.set()
        self._ready.set()
        if self._stop_listening is not None:
            self._stop_listening()
            self._stop_listening = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        await self.bot.wait_until_ready()
        async with self.runtime.outbox.renewing():
            await self._drain_until_stopped()

    async def _drain_until_stopped(self) -> None:
        while not self._stopping.is_set():
            # Cleared before the drain: rows queued while it runs wake the next wait at once.
            self._ready.clear()
            try:
                busy = await self.drain_once()
            except Exception:
                log.exception("the poster failed; it tries again shortly")
                busy = 0
            if busy:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), POLL_SECONDS)

    async def drain_once(self, limit: int = 100) -> int:
        """Deliver what is due now; returns how many items were claimed."""
        items = await self.runtime.outbox.claim(limit)
        by_match: dict[int | None, list[Item]] = defaultdict(list)
        for item in items:
            by_match[item.match_id].append(item)
        await asyncio.gather(*(self._deliver_in_order(group) for group in by_match.values()))
        return len(items)

    async def _deliver_in_order(self, items: Sequence[Item]) -> None:
        async with self._match_slots:
            for item in items:
                await self._deliver_one(item)

    async def _deliver_one(self, item: Item) -> None:
        outbox = self.runtime.outbox
        # Waiting its turn, the item may have been taken over by another process.
        if not await outbox.hold(item):
            return
        try:
            ref = await self.find(item)
            if ref is None:
                ref = await self.deliver(item)
                self.delivered += 1
        except PermanentDeliveryError as error:
            log.warning("outbox %s (%s) given up: %s", item.id, item.key, error)
            await outbox.failed(item, str(error), permanent=True)
            return
        except Exception as error:
            log.warning("outbox %s (%s) failed: %r", item.id, item.key, error, exc_info=True)
            await outbox.failed(item, repr(error))
            return
        await outbox.done(item, ref)

    # -- Deliverer

    async def find(self, item: Item) -> str | None:
        """The id of an earlier post of this item (only after an earlier attempt)."""
        if item.attempts <= 1:
            return None
        owner = self._registered.get(type(self._read(item)))
        if owner is not None:
            return await owner.find(item) if await owner.target(item) is not None else None
        if item.match_id is None:
            return None
        channel = await self._target(item, create=False)
        if channel is None:
            return None
        marker = mark_of(item.key)
        me = self.bot.user
        async for message in channel.history(limit=HISTORY_SCAN):
            if me is not None and message.author.id != me.id:
                continue
            for embed in message.embeds:
                if embed.footer.text and marker in embed.footer.text:
                    return str(message.id)
        return None

    async def deliver(self, item: Item) -> str:
        told = self._read(item)
        owner = self._registered.get(type(told))
        if owner is not None:
            return await owner.deliver(item)
        handler = self._handlers.get(type(told))
        if handler is None:
            raise PermanentDeliveryError(f"no delivery for announcements of kind {item.kind!r}")
        return await handler(item, told)

    @staticmethod
    def _read(item: Item) -> Announcement:
        try:
            return decode(item)
        except UnknownAnnouncementError as error:
            raise PermanentDeliveryError(str(error)) from None

    # -- where things go

    async def _target(self, item: Item, *, create: bool = True) -> discord.abc.Messageable | None:
        if item.recipient is not None and isinstance(self._read(item), OrderSheet | Reminder):
            return await self._dm(item.recipient, create=create)
        if item.match_id is None:
            return None
        match = await self.runtime.matches.get_match(item.match_id)
        return await self._channel(match)

    async def _channel(self, match: MatchRecord) -> discord.abc.Messageable:
        channel = await self._posting_channel(match)
        if isinstance(channel, discord.TextChannel):
            # A match made in a plain channel (a league's round) gets its own thread on its first
            # post, as /match create gives one from the start, so that each match's posts and
            # the commands typed among them stay apart.
            return await self._own_thread(match, channel)
        return channel

    async def _posting_channel(self, match: MatchRecord) -> discord.abc.Messageable:
        """The channel the match is stored to post in, as it is."""
        if match.channel_id is None:
            raise PermanentDeliveryError(f"match {match.id} has no channel")
        channel_id = int(match.channel_id)
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except discord.NotFound:
                raise PermanentDeliveryError(f"the channel of match {match.id} is gone") from None
        if not isinstance(channel, discord.abc.Messageable):
            raise PermanentDeliveryError(f"the channel of match {match.id} cannot take messages")
        return channel

    async def _own_thread(
        self, match: MatchRecord, channel: discord.TextChannel
    ) -> discord.abc.Messageable:
        """The match's own thread in `channel`, opened and stored as its channel when needed.

        Discord names the thread's id, so the thread exists before the match can point at it.
        In this process a thread made for a match is remembered until the move is stored, and
        deliveries for one match take turns here, so a match never gets two threads from one
        process. A thread whose creation answered with an error (a lost reply) or whose move was
        not stored before a restart is found again among the channel's active threads by its
        name and owner. What a crash in between can still leave is one empty thread, when it
        was archived (a week without posts) before the bot came back.
        """
        lock = self._thread_locks.get(match.id)
        if lock is None:
            lock = self._thread_locks[match.id] = asyncio.Lock()
        async with lock:
            current = await self.runtime.matches.get_match(match.id)
            if current.channel_id != str(channel.id):
                # Moved by the delivery this one waited for.
                return await self._posting_channel(current)
            thread = self._threads_opened.get(match.id) or self._left_thread(match, channel)
            if thread is None:
                try:
                    thread = await self._open_thread(current, channel)
                except discord.Forbidden as error:
                    log.warning(
                        "cannot open a thread for match %s in channel %s (%s); posting there",
                        match.id,
                        channel.id,
                        error.text,
                    )
                    return channel
                self._threads_opened[match.id] = thread
            await self._add_players(thread, current)
            moved = await self.runtime.matches.move_to_channel(
                match.id, str(thread.id), from_channel_id=str(channel.id)
            )
            self._threads_opened.pop(match.id, None)
            if moved.channel_id != str(thread.id):
                # Another process moved the match first: its thread is the one.
                with contextlib.suppress(discord.HTTPException):
                    await thread.delete()
                return await self._posting_channel(moved)
            log.info("match %s posts in its thread %s from now on", match.id, thread.id)
            return thread

    def _left_thread(
        self, match: MatchRecord, channel: discord.TextChannel
    ) -> discord.Thread | None:
        """An active thread this bot opened for the match earlier, its move not stored."""
        me = self.bot.user
        prefix = f"Match #{match.id}:"
        return next(
            (
                t
                for t in channel.threads
                if me is not None and t.owner_id == me.id and t.name.startswith(prefix)
            ),
            None,
        )

    async def _open_thread(
        self, match: MatchRecord, channel: discord.TextChannel
    ) -> discord.Thread:
        names = [
            await self.name_of(seat.player_id) if seat.player_id else "open seat"
            for seat in match.seats
        ]
        return await channel.create_thread(
            name=clip(f"Match #{match.id}: {' vs '.join(names)}", 100),
            type=(
                discord.ChannelType.news_thread
                if channel.is_news()
                else discord.ChannelType.public_thread
            ),
            auto_archive_duration=THREAD_MINUTES,
        )

    async def _add_players(self, thread: discord.Thread, match: MatchRecord) -> None:
        for seat in match.seats:
            if seat.player_id is None or is_computer(seat.player_id):
                continue
            try:
                await thread.add_user(discord.Object(int(seat.player_id)))
            except discord.HTTPException as error:
                # Someone who left the server cannot be added; the thread is public anyway.
                log.warning(
                    "match %s: player %s not added to thread %s: %s",
                    match.id,
                    seat.player_id,
                    thread.id,
                    error.text,
                )

    async def _dm(self, user_id: str, *, create: bool = True) -> discord.DMChannel | None:
        user = self.bot.get_user(int(user_id))
        if user is None:
            user = await self.bot.fetch_user(int(user_id))
        if user.dm_channel is not None:
            return user.dm_channel
        return await user.create_dm() if create else None

    async def name_of(self, player_id: str | None) -> str:
        if player_id is None:
            return "nobody"
        known = self.runtime.known_name(player_id)
        if known is not None:
            return known
        user = self.bot.get_user(int(player_id))
        if user is None:
            try:
                user = await self.bot.fetch_user(int(player_id))
            except discord.HTTPException:
                return f"player {player_id}"
        self.runtime.names[player_id] = user.display_name
        return user.display_name

    async def side_names(self, match: MatchRecord) -> dict[str, str]:
        return {
            str(seat.side): await self.name_of(seat.player_id) for seat in match.seats if seat.side
        }

    # -- posting

    @staticmethod
    def _keyed(embed: discord.Embed, item: Item, extra: str = "") -> discord.Embed:
        mark = mark_of(item.key)
        embed.set_footer(text=clip(extra, 2048 - len(mark)) + mark)
        return embed

    def _simple(self, text: Callable[[A], str]) -> Callable[[Item, A], Awaitable[str]]:
        """A post in the match's channel that is `text` of the announcement."""

        async def post(item: Item, told: A) -> str:
            match = await self._match_of(told)
            channel = await self._channel(match)
            embed = discord.Embed(description=text(told))
            message = await channel.send(
                embed=self._keyed(embed, item, f"match #{match.id}"), nonce=nonce_of(item.key)
            )
            return str(message.id)

        return post

    def _and_sheets(
        self, post: Callable[[Item, A], Awaitable[str]]
    ) -> Callable[[Item, A], Awaitable[str]]:
        """``post``, then the players' DM sheets of the turn shown anew: a pause, a resume or an
        extension moves the deadline each of them shows (and locks or unlocks the menus)."""

        async def post_and_refresh(item: Item, told: A) -> str:
            ref = await post(item, told)
            match = await self._match_of(told)
            if match.status not in (MatchStatus.ACTIVE, MatchStatus.PAUSED):
                return ref
            for seat in match.seats:
                if seat.player_id is None or is_computer(seat.player_id):
                    continue
                sheet = await load_sheet(self.runtime, match.id, seat.player_id)
                await update_dm_sheet(self.bot, self.runtime, sheet, seat.player_id)
            return ref

        return post_and_refresh

    def _and_closed(
        self, post: Callable[[Item, A], Awaitable[str]]
    ) -> Callable[[Item, A], Awaitable[str]]:
        """``post``, then the match's first post loses its Join button: the seat is taken (or
        the match is gone), and a button that can only refuse is a trap."""

        async def post_and_close(item: Item, told: A) -> str:
            ref = await post(item, told)
            match = await self._match_of(told)
            posted = await self.runtime.outbox.posted(match.id, MatchCreated.kind)
            for _created, message_id in posted:
                with contextlib.suppress(discord.HTTPException):
                    channel = await self._channel(match)
                    first = await channel.fetch_message(message_id)
                    await first.edit(view=None)
            return ref

        return post_and_close

    async def _seat_handed_over(self, item: Item, told: SeatHandedOver) -> str:
        match = await self._match_of(told)
        channel = await self._channel(match)
        new, old = told.new_player_id, told.old_player_id
        text = (
            f"A moderator gave {side_name(str(told.side))}'s seat to {self._who(new)}"
            + (f" (it was {self._who(old)}'s)" if old else "")
            + "; the side's position and this turn's orders so far stay."
        )
        if not is_computer(new):
            text += (
                f" {mention(new)}: `/orders` in this thread opens your sheet for turn "
                f"{told.turn}; from the next turn it comes by DM."
            )
            if isinstance(channel, discord.Thread):
                with contextlib.suppress(discord.HTTPException):
                    await channel.add_user(discord.Object(int(new)))
        embed = discord.Embed(description=text)
        message = await channel.send(
            content=None if is_computer(new) else mention(new),
            embed=self._keyed(embed, item, f"match #{match.id}"),
            allowed_mentions=discord.AllowedMentions(users=True),
            nonce=nonce_of(item.key),
        )
        if old is not None and not is_computer(old):
            await close_dm_sheet(
                self.bot,
                self.runtime,
                match.id,
                old,
                turn=told.turn,
                footer=f"A moderator gave your seat in match #{match.id} to another player.",
            )
        return str(message.id)

    def _who(self, player_id: str | None) -> str:
        if player_id is not None and is_computer(player_id):
            return self.runtime.known_name(player_id) or "the computer"
        return mention(player_id)

    async def _match_of(self, told: Any) -> MatchRecord:
        """The match a match announcement is about, as it is now."""
        match_id: int = told.match_id
        return await self.runtime.matches.get_match(match_id)

    async def _match_created(self, item: Item, told: MatchCreated) -> str:
        match = await self._match_of(told)
        channel = await self._channel(match)
        opponent = told.opponent_id
        embed = discord.Embed(
            title=f"Match #{match.id}",
            description=(
                f"**{escaped(await self.name_of(told.creator_id))}** challenges "
                + (f"**{escaped(await self.name_of(opponent))}**" if opponent else "anyone")
                + f".\nRuleset {match.ruleset}, realm {match.realm}, "
                f"{_duration(match.turn_seconds)} per turn{_anchor_words(match)}; "
                f"{_absence_rules(match)}."
            ),
        )
        view = discord.ui.View(timeout=None)
        view.add_item(JoinButton.make(match.id))
        message = await channel.send(
            embed=self._keyed(embed, item), view=view, nonce=nonce_of(item.key)
        )
        return str(message.id)

    async def _match_started(self, item: Item, told: MatchStarted) -> str:
        match, view = await self.runtime.view(told.match_id, None)
        channel = await self._channel(match)
        names = await self.side_names(match)
        png = await self.runtime.compute(draw_board, self.runtime.state_doc(match), None, names)
        sides = "\n".join(
            f"{side_name(seat.side)}: **{escaped(names.get(str(seat.side), '?'))}** ({seat.house})"
            for seat in sorted(match.seats, key=lambda s: str(s.side) != "red")
        )
        embed = discord.Embed(
            title=f"Match #{match.id} begins",
            description=(
                f"{sides}\nInitiative: {side_name(str(view.initiative))}. Turn 1 deadline: "
                f"{timestamp(told.deadline_at)}.\nEach player gets an order sheet "
                "by DM; `/orders` here opens it too."
            ),
        )
        embed.set_image(url="attachment://board.png")
        message = await channel.send(
            embed=self._keyed(embed, item),
            file=discord.File(io.BytesIO(png), filename="board.png"),
            nonce=nonce_of(item.key),
        )
        return str(message.id)

    async def _order_sheet(self, item: Item, told: OrderSheet) -> str:
        player_id = told.player_id
        match = await self._match_of(told)
        if match.status not in (MatchStatus.ACTIVE, MatchStatus.PAUSED) or match.turn != told.turn:
            return "stale"
        sheet = await load_sheet(self.runtime, match.id, player_id)
        key = (match.id, player_id)
        # Tried every turn even after a refusal: a player who opens their DMs again gets the
        # next sheet there.
        try:
            async with self._dm_slots:
                channel = await self._dm(player_id)
                assert channel is not None
                message = await self._send_sheet(channel, sheet, item)
        except discord.Forbidden as error:
            if error.code != CANNOT_DM:
                raise
            await self._dms_closed(match, player_id)
            await self._after_sheet(await self._channel(match), match, player_id)
            return "dm-closed"
        self.runtime.dm_closed.discard(key)
        self.runtime.sheet_messages[key] = (match.turn, message.id)
        await self._after_sheet(channel, match, player_id)
        return str(message.id)

    async def _after_sheet(
        self, channel: discord.abc.Messageable, match: MatchRecord, player_id: str
    ) -> None:
        # The sheet is delivered whatever follows it: a failing listener is logged, and the
        # sheet is not sent again for it.
        for listener in list(self.runtime.sheet_listeners):
            try:
                await listener(channel, match, player_id)
            except Exception:
                log.exception("sheet listener failed for match %s", match.id)

    async def _send_sheet(
        self, channel: discord.abc.Messageable, sheet: Sheet, item: Item
    ) -> discord.Message:
        embed = sheet_embed(self.runtime, sheet)
        footer = embed.footer.text or ""
        self._keyed(embed, item, footer)
        return await channel.send(
            embed=embed,
            file=await sheet_image(self.runtime, sheet),
            view=sheet_view(self.runtime, sheet),
            nonce=nonce_of(item.key),
        )

    async def _dms_closed(self, match: MatchRecord, player_id: str) -> None:
        """Tell the player once, in the thread, to use /orders there."""
        if (match.id, player_id) in self.runtime.dm_closed:
            return
        self.runtime.dm_closed.add((match.id, player_id))
        channel = await self._channel(match)
        key = f"match:{match.id}:dm-closed:{player_id}"
        marker = mark_of(key)
        async for message in channel.history(limit=HISTORY_SCAN):
            if any(marker in (e.footer.text or "") for e in message.embeds):
                return
        embed = discord.Embed(
            description=(
                f"{mention(player_id)}, I cannot send you direct messages, so your order sheet "
                "lives here: use `/orders` in this thread each turn (only you see it)."
            )
        )
        embed.set_footer(text=f"match #{match.id}{marker}")
        await channel.send(
            content=mention(player_id),
            embed=embed,
            allowed_mentions=discord.AllowedMentions(users=True),
            nonce=nonce_of(key),
        )

    async def _reminder(self, item: Item, told: Reminder) -> str:
        player_id = told.player_id
        match = await self._match_of(told)
        if match.status != MatchStatus.ACTIVE or match.turn != told.turn:
            return "stale"
        given = (
            "Your orders are given but not confirmed"
            if told.has_orders
            else ("You have given no orders yet")
        )
        warning = (
            f"\n⚠️ **Missing this deadline without orders forfeits the match** "
            f"({match.no_show_limit} turn(s) in a row without orders forfeit)."
            if told.forfeits_if_missed
            else ""
        )
        embed = discord.Embed(
            title=f"Match #{match.id}, turn {match.turn}",
            description=f"{given}; the deadline is {timestamp(told.deadline_at)}.{warning}",
        )
        self._keyed(embed, item)
        try:
            async with self._dm_slots:
                channel = await self._dm(player_id)
                assert channel is not None
                message = await channel.send(embed=embed, nonce=nonce_of(item.key))
            self.runtime.dm_closed.discard((match.id, player_id))
            return str(message.id)
        except discord.Forbidden as error:
            if error.code != CANNOT_DM:
                raise
            await self._dms_closed(match, player_id)
        # In public, only that the deadline is near: whether the player has given orders is
        # theirs to know (a DM reminder says it).
        public = discord.Embed(
            title=f"Match #{match.id}, turn {match.turn}",
            description=(
                f"The deadline is {timestamp(told.deadline_at)}; `/orders` here opens your "
                "sheet (only you see it)."
            ),
        )
        self._keyed(public, item)
        thread = await self._channel(match)
        message = await thread.send(
            content=mention(player_id),
            embed=public,
            allowed_mentions=discord.AllowedMentions(users=True),
            nonce=nonce_of(item.key),
        )
        return str(message.id)

    async def _turn_resolved(self, item: Item, told: TurnResolved) -> str:
        turn = told.turn
        match = await self._match_of(told)
        # The stored report records each fight per round; the full log's strikes are recomputed.
        record = await self.runtime.matches.turn_detail(match.id, turn)
        before: dict[str, Any] | None
        if turn > 1:
            before = (await self.runtime.matches.history(match.id, turn - 1)).state
        else:
            before = (await self.runtime.matches.get_match(match.id, with_state=True)).initial_state
        names = await self.side_names(match)
        png = await self.runtime.compute(draw_board, record.state, record.report, names)
        summary, brief, full = await self.runtime.compute(
            write_log, before, record.state, record.report, _escaped_all(names)
        )
        embed = discord.Embed(
            title=f"Match #{match.id} · turn {turn} resolved",
            description="\n".join(summary),
        )
        cause = "both players confirmed" if record.cause == "confirmed" else "the deadline passed"
        absent = ", ".join(
            f"{side_name(n.side)} ({escaped(names.get(str(n.side), '?'))})" for n in told.no_shows
        )
        add_field_safely(embed, "Why now", cause + (f"; no orders from {absent}" if absent else ""))
        if told.next_turn is not None:
            add_field_safely(
                embed, "Next", f"turn {told.next_turn}, deadline {timestamp(told.deadline_at)}"
            )
        self._keyed(embed, item)
        files = [discord.File(io.BytesIO(png), filename=f"turn-{turn}.png")]
        embed.set_image(url=f"attachment://turn-{turn}.png")
        # The post reads on a phone: one line per fight. The strike-by-strike log, when there
        # is more to it, travels as a file in the same post.
        brief_text = "\n".join(brief) or "Nothing happened."
        full_text = "\n".join(full) or "Nothing happened."
        embeds = [embed]
        pages = split_text(brief_text, EMBED_DESCRIPTION_LIMIT)
        fits = len(pages) == 1 and len(embed) + len(pages[0]) + 40 <= EMBED_TOTAL_LIMIT
        head = (
            pages[0] if fits else clip(brief_text, min(1500, EMBED_TOTAL_LIMIT - len(embed) - 40))
        )
        attached = full_text != brief_text or not fits
        title = f"Turn {turn} log" + (
            " (strike by strike in the attached file)" if attached else ""
        )
        embeds.append(discord.Embed(title=title, description=head))
        if attached:
            files.append(
                discord.File(io.BytesIO(full_text.encode()), filename=f"turn-{turn}-log.txt")
            )
        channel = await self._channel(match)
        message = await channel.send(embeds=embeds, files=files, nonce=nonce_of(item.key))
        await self._close_sheets(match, turn, resolved_footer(turn))
        return str(message.id)

    async def _close_sheets(self, match: MatchRecord, turn: int, footer: str) -> None:
        """Close every player's DM sheet of ``turn``: the turn ended for both, however it
        ended (a confirm, the deadline, a concession, a withdrawal)."""
        for seat in match.seats:
            if seat.player_id is not None and not is_computer(seat.player_id):
                await close_dm_sheet(
                    self.bot, self.runtime, match.id, seat.player_id, turn=turn, footer=footer
                )

    async def _match_ended(self, item: Item, told: MatchOver) -> str:
        match = await self.runtime.matches.get_match(told.match_id, with_state=True)
        names = await self.side_names(match)
        winner = told.winner
        code = told.reason or match.end_reason
        reason = "the game ended" if code is None else REASONS.get(code, code)
        if winner:
            result = f"**{side_name(winner)}** ({escaped(names.get(winner, '?'))}) wins"
        else:
            result = "**A draw**"
        embed = discord.Embed(
            title=f"Match #{match.id} is over",
            description=f"{result} — {reason}, turn {match.turn}.",
        )
        files: list[discord.File] = []
        if match.state is not None:
            png = await self.runtime.compute(draw_board, match.state, None, names)
            files.append(discord.File(io.BytesIO(png), filename="final.png"))
            embed.set_image(url="attachment://final.png")
            replay = await self._replay(match, names)
            if replay is not None:
                files.append(discord.File(io.BytesIO(replay), filename=f"match-{match.id}.gif"))
                add_field_safely(embed, "Replay", f"match-{match.id}.gif, one frame per turn")
        self._keyed(embed, item)
        channel = await self._channel(match)
        message = await channel.send(embed=embed, files=files, nonce=nonce_of(item.key))
        await self._close_sheets(match, match.turn, f"Match #{match.id} is over: {reason}.")
        return str(message.id)

    async def _replay(self, match: MatchRecord, names: dict[str, str]) -> bytes | None:
        records = await self.runtime.matches.turns(match.id)
        full = await self.runtime.matches.get_match(match.id, with_state=True)
        initial = getattr(full, "initial_state", None)
        if initial is None:
            return None
        frames: list[tuple[dict[str, Any], dict[str, Any] | None]] = [(initial, None)]
        frames += [(record.state, record.report) for record in records[-REPLAY_FRAMES:]]
        return await self.runtime.compute(draw_replay, frames, names)


def _escaped_all(names: dict[str, str]) -> dict[str, str]:
    """Names for text (the images draw them as they are)."""
    return {side: escaped(name) for side, name in names.items()}


def _grace_text(told: Grace) -> str:
    return (
        f"{side_name(told.side)} ({mention(told.player_id)}) gave no orders; the deadline moves "
        f"once, to {timestamp(told.deadline_at)}."
    )


def _extended_text(told: Extended) -> str:
    text = f"A moderator extended turn {told.turn} by {_duration(told.seconds)}"
    if told.deadline_at:
        return text + f"; the deadline is now {timestamp(told.deadline_at)}."
    return text + "."


def _anchor_words(match: MatchRecord) -> str:
    anchored = anchor_of(match).describe()
    return f", deadlines falling {anchored}" if anchored else ""


def _absence_rules(match: MatchRecord) -> str:
    """What missing a deadline costs in this match, in a few words."""
    limit = match.no_show_limit
    text = (
        f"{limit} turn(s) in a row without orders forfeit"
        if limit > 0
        else "no orders never forfeit"
    )
    if match.grace_seconds > 0:
        text += f"; a first missed deadline gets {_duration(match.grace_seconds)} more, once"
    return text


def _duration(seconds: int) -> str:
    if seconds % 86400 == 0:
        return f"{seconds // 86400} day(s)"
    if seconds % 3600 == 0:
        return f"{seconds // 3600} hour(s)"
    if seconds % 60 == 0:
        return f"{seconds // 60} minute(s)"
    return f"{seconds} second(s)"


def poster_of(bot: commands.Bot | commands.AutoShardedBot) -> Poster | None:
    """The loaded poster, for cogs that register their announcements with it."""
    poster: Poster | None = getattr(bot.get_cog("PosterCog"), "poster", None)
    return poster


class PosterCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.poster = Poster(bot, runtime_of(bot))

    async def cog_load(self) -> None:
        self.poster.start()

    async def cog_unload(self) -> None:
        await self.poster.stop()


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PosterCog(bot))
