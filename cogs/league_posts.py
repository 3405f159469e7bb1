"""The league's announcements as Discord messages: their wording, and their delivery for the
poster (by DM for a reminder, else in the league's channel), with the search before a retry.

Every post ends with an invisible mark of its outbox key (`cogs.nonce.mark_of`), so a retry finds
an earlier post and players never read the key.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from cogs.nonce import mark_of, nonce_of
from cogs.runtime import escaped, timestamp
from cogs.split import MESSAGE_LIMIT, split_code_block, split_text
from render.tables import StandingRow, render_standings
from service import OutboxRecord
from service.announcements import (
    LEAGUE_KINDS,
    Announcement,
    LeagueEnded,
    LeagueNotice,
    LeagueReminder,
    LeagueResult,
    LeagueStarted,
    LeagueText,
    RoundOpened,
    RoundStandings,
    Withdrawal,
    decode,
)
from service.leagues.standings import Standings
from service.leagues.summary import SeasonSummary
from service.leagues.views import result_text
from service.outbox import PermanentDeliveryError

__all__ = [
    "LEAGUE_ANNOUNCEMENTS",
    "LEAGUE_KINDS",
    "LeagueDeliverer",
    "LeaguePost",
    "deliver_league_item",
    "find_league_item",
    "league_post",
    "league_text",
    "message_pieces",
    "standing_rows",
]

# Every class of league announcement, and rows stored before league posts carried data.
LEAGUE_ANNOUNCEMENTS: frozenset[type[Announcement]] = frozenset(
    {
        LeagueStarted,
        RoundOpened,
        LeagueResult,
        RoundStandings,
        LeagueEnded,
        LeagueReminder,
        Withdrawal,
        LeagueNotice,
        LeagueText,
    }
)

_TABLE_KINDS = frozenset({RoundStandings.kind, LeagueEnded.kind})
# The summary of a season that is over, for its last post.
SummaryOf = Callable[[int], Awaitable[SeasonSummary]]


def message_pieces(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """`text` in messages of at most `limit` characters, never cutting through a code block:
    a long table goes on in a new block in the next message."""
    segments: list[str] = []
    for i, part in enumerate(text.split("```")):
        body = part.strip("\n")
        if not body:
            continue
        segments.extend(split_code_block(body, limit) if i % 2 else split_text(body, limit))
    pieces: list[str] = []
    current = ""
    for segment in segments:
        candidate = f"{current}\n{segment}" if current else segment
        if len(candidate) <= limit:
            current = candidate
        else:
            pieces.append(current)
            current = segment
    if current:
        pieces.append(current)
    return pieces


def standing_rows(records: Sequence[Any]) -> list[StandingRow]:
    """Rows of a standings image from `Standings.to_records()` dictionaries."""
    return [
        StandingRow(
            name=str(r["name"]) + (" (w)" if r.get("withdrawn") else ""),
            played=int(r["played"]),
            wins=int(r["wins"]),
            draws=int(r["draws"]),
            losses=int(r["losses"]),
            points=float(r["points"]),
            tiebreaks=(float(r["sonneborn_berger"]),),
            rank=int(r["rank"]),
        )
        for r in records
    ]


def league_text(told: Announcement, summary: SeasonSummary | None = None) -> str:
    """What a league announcement says; the end of a season needs its `summary`."""
    if isinstance(told, LeagueText):
        return told.text
    if isinstance(told, LeagueStarted):
        lines = [
            f"**{told.league}** has started: {len(told.seeds)} players, {told.rounds} rounds "
            f"({told.format.replace('_', '-')}), a new round every "
            f"{told.round_seconds // 3600}h.",
            "Seeds: " + ", ".join(f"{i}. {name}" for i, name in enumerate(told.seeds, 1)),
        ]
        if told.dropped:
            lines.append("Not checked in, so not entered: " + ", ".join(told.dropped))
        return "\n".join(lines)
    if isinstance(told, RoundOpened):
        return (
            f"**{told.league}**: round {told.round_no} of {told.rounds} is open. Choose a deck "
            f"in your match thread; matches not started by {timestamp(told.start_deadline)} "
            f"are forfeited.\n```\n{told.pairings}\n```"
        )
    if isinstance(told, LeagueResult):
        return (
            f"{told.league}, round {told.round_no}: {told.red} {result_text(told.outcome)} "
            f"{told.blue} ({told.detail})."
        )
    if isinstance(told, RoundStandings):
        table = Standings.from_records(told.round_no, told.rows)
        return f"```\n{table.to_text()}\n```"
    if isinstance(told, LeagueEnded):
        if summary is None:
            raise ValueError("the end of a season is told with its summary")
        return f"```\n{summary.to_text()}\n```"
    if isinstance(told, LeagueReminder):
        return (
            f"{told.league}, round {told.round_no}: choose a deck for match #{told.match_id} "
            f"(`/match deck`) before <t:{told.start_deadline // 1000}:f>, or the game is "
            "forfeited."
        )
    if isinstance(told, Withdrawal):
        return (
            f"{escaped(told.name)} has withdrawn from {told.league} and will not be paired "
            "again; their results so far still count."
        )
    if isinstance(told, LeagueNotice):
        if told.round_no is not None:
            return (
                f"{told.league}: round {told.round_no} cannot be paired ({told.reason}). A "
                "moderator can end the league with `/league end`."
            )
        return f"{told.league} could not start at its scheduled time: {told.reason}"
    raise TypeError(f"not a league announcement: {type(told).__name__}")


@dataclass(frozen=True, slots=True)
class LeaguePost:
    """What to send for one league outbox row: to a player (`recipient_id`, falling back to
    the channel) or to the league channel, the text pieces, and an optional image."""

    channel_id: int | None
    recipient_id: int | None
    pieces: tuple[str, ...]
    image: bytes | None
    filename: str


def league_post(item: OutboxRecord, summary: SeasonSummary | None = None) -> LeaguePost:
    """Turn a league outbox row into a message; the key's mark goes last so a retry can find
    it."""
    told = decode(item)
    image: bytes | None = None
    title = ""
    if isinstance(told, RoundStandings):
        title = f"{told.league}: standings after round {told.round_no}"
    elif isinstance(told, LeagueEnded):
        title = f"{told.league}: final standings"
    elif isinstance(told, LeagueText) and told.stored_kind in _TABLE_KINDS:
        title = told.title or "Standings"
    if title and isinstance(told, RoundStandings | LeagueEnded | LeagueText) and told.rows:
        image = render_standings(standing_rows(told.rows), title=title, tiebreak_names=("SB",))
    mark = mark_of(item.key)
    pieces = message_pieces(league_text(told, summary), MESSAGE_LIMIT - len(mark))
    pieces[-1] += mark
    recipient, channel = league_post_target(item)
    return LeaguePost(
        channel_id=channel,
        recipient_id=recipient,
        pieces=tuple(pieces),
        image=image,
        filename=f"{item.kind}.png",
    )


async def deliver_league_item(
    client: discord.Client, item: OutboxRecord, summary_of: SummaryOf
) -> str:
    """Send a league outbox row (for the poster); returns the id of the last message sent.

    A reminder goes by DM; when the player's DMs are closed it goes to the league channel with a
    mention instead, so a closed inbox never loses it.
    """
    told = decode(item)
    summary = await summary_of(told.league_id) if isinstance(told, LeagueEnded) else None
    post = await asyncio.to_thread(league_post, item, summary)
    pieces = list(post.pieces)
    if post.recipient_id is not None:
        try:
            user = await client.fetch_user(post.recipient_id)
            return await _send(user, pieces, post, item.key)
        except discord.Forbidden:
            if post.channel_id is None:
                raise PermanentDeliveryError(
                    f"{item.key}: DMs closed and no league channel to fall back to"
                ) from None
            pieces[0] = f"<@{post.recipient_id}> (your DMs are closed) {pieces[0]}"
    if post.channel_id is None:
        raise PermanentDeliveryError(f"league post {item.key} has nowhere to go")
    try:
        channel = client.get_channel(post.channel_id) or await client.fetch_channel(post.channel_id)
    except discord.NotFound:
        raise PermanentDeliveryError(f"the league channel {post.channel_id} is gone") from None
    if not isinstance(channel, discord.abc.Messageable):
        raise PermanentDeliveryError(f"channel {post.channel_id} cannot take messages")
    return await _send(channel, pieces, post, item.key)


async def find_league_item(
    client: discord.Client, item: OutboxRecord, *, scan: int = 50
) -> str | None:
    """The id of an earlier post of this row (the poster asks before retrying), found by the
    mark every league post ends with."""
    post = league_post_target(item)
    marker = mark_of(item.key)
    places: list[discord.abc.Messageable] = []
    if post[0] is not None:
        places.append(await client.fetch_user(post[0]))
    if post[1] is not None:
        channel = client.get_channel(post[1])
        if isinstance(channel, discord.abc.Messageable):
            places.append(channel)
    me = client.user
    for place in places:
        async for message in place.history(limit=scan):
            if me is not None and message.author.id != me.id:
                continue
            if marker in message.content:
                return str(message.id)
    return None


def league_post_target(item: OutboxRecord) -> tuple[int | None, int | None]:
    """(recipient id, channel id) of a league row."""
    channel = item.payload.get("channel_id")
    return (
        int(item.recipient) if item.recipient else None,
        int(channel) if channel else None,
    )


async def _send(
    target: discord.abc.Messageable, pieces: Sequence[str], post: LeaguePost, key: str
) -> str:
    last: discord.Message | None = None
    for i, piece in enumerate(pieces):
        if i == len(pieces) - 1 and post.image is not None:
            image = discord.File(io.BytesIO(post.image), filename=post.filename)
            last = await target.send(piece, file=image, nonce=nonce_of(key, i))
        else:
            last = await target.send(piece, nonce=nonce_of(key, i))
    assert last is not None
    return str(last.id)


class LeagueDeliverer:
    """League announcements for the poster (a :class:`cogs.poster.KindDeliverer`)."""

    def __init__(self, client: discord.Client, summary_of: SummaryOf) -> None:
        self.client = client
        self.summary_of = summary_of

    async def target(self, item: OutboxRecord) -> discord.abc.Messageable | None:
        recipient, channel_id = league_post_target(item)
        if recipient is not None:
            return self.client.get_user(recipient) or await self.client.fetch_user(recipient)
        if channel_id is None:
            return None
        channel = self.client.get_channel(channel_id)
        return channel if isinstance(channel, discord.abc.Messageable) else None

    async def deliver(self, item: OutboxRecord) -> str:
        return await deliver_league_item(self.client, item, self.summary_of)

    async def find(self, item: OutboxRecord) -> str | None:
        return await find_league_item(self.client, item)
