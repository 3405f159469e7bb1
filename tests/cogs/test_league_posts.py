"""League announcements through the real poster: a first delivery that fails is retried, finds
no earlier post, and the announcement appears exactly once."""

from __future__ import annotations

import asyncio

import pytest

from bot import MatchBot
from cogs.league_posts import LEAGUE_ANNOUNCEMENTS, LeagueDeliverer
from cogs.nonce import mark_of
from cogs.poster import poster_of
from sandbox import Channel, Message
from service.announcements import TurnResolved
from service.clock import to_ms
from service.leagues.summary import SeasonSummary
from storage import OutboxRecord
from tests.cogs.support import TIMEOUT, World, bot_running
from tests.storage.entries import RawEntry

RETRY_SECONDS = 0.2


async def queue(bot: MatchBot, key: str, kind: str, channel: Channel, **extra: str) -> None:
    """A league row as posts were stored before they carried data: finished text."""
    assert bot.store is not None and bot.runtime is not None
    payload = {"channel_id": str(channel.id), "text": extra.get("text", "News")}
    entry = RawEntry(key, kind, payload, recipient=extra.get("recipient"))
    async with bot.store.write() as s:
        await s.add_outbox(entry, now=to_ms(bot.clock.now()))


async def settled(bot: MatchBot, key: str) -> OutboxRecord:
    assert bot.store is not None
    store = bot.store

    async def row() -> OutboxRecord | None:
        async with store.read() as s:
            rows = await s.list_outbox()
        found = next(r for r in rows if r.key == key)
        return found if found.status != "pending" else None

    record: OutboxRecord | None = None
    for _ in range(int(TIMEOUT / 0.05)):
        record = await row()
        if record is not None:
            return record
        await asyncio.sleep(0.05)
    raise AssertionError(f"outbox row {key} never settled")


def keyed(messages: list[Message], key: str) -> list[Message]:
    return [m for m in messages if mark_of(key) in m.content]


@pytest.mark.parametrize("status", [503, 403])
async def test_a_league_post_whose_first_delivery_fails_appears_once(
    world: World, status: int
) -> None:
    route = f"POST /channels/{world.lobby.id}/messages"
    async with bot_running(world, outbox_retry_seconds=RETRY_SECONDS) as bot:
        world.sandbox.faults.inject(route, status)
        seen = len(world.sandbox.requests)
        key = "league:1:notice:test"
        await queue(bot, key, "league_notice", world.lobby, text="Round 1 is open.")
        record = await settled(bot, key)
        assert record.status == "done" and record.attempts == 2
        posted = keyed(world.sandbox.messages(world.lobby), key)
        assert len(posted) == 1 and "Round 1 is open." in posted[0].content
        assert record.delivered_ref == str(posted[0].id)
        statuses = [
            r.status
            for r in world.sandbox.requests[seen:]
            if r.method == "POST" and r.path == f"/channels/{world.lobby.id}/messages"
        ]
        assert statuses == [status, 200]
        assert world.sandbox.faults.pending == 0


async def test_a_league_reminder_by_dm_whose_first_delivery_fails_appears_once(
    world: World,
) -> None:
    async with bot_running(world, outbox_retry_seconds=RETRY_SECONDS) as bot:
        dm = world.alice.dm
        world.sandbox.faults.inject(f"POST /channels/{dm.id}/messages", 503)
        key = "league:1:round:1:board:1:remind:alice"
        await queue(
            bot,
            key,
            "league_reminder",
            world.lobby,
            recipient=str(world.alice.id),
            text="Choose a deck.",
        )
        record = await settled(bot, key)
        assert record.status == "done" and record.attempts == 2
        assert len(keyed(world.alice.dms(), key)) == 1
        assert not keyed(world.sandbox.messages(world.lobby), key)


async def test_a_league_post_whose_reply_is_lost_is_found_and_not_posted_again(
    world: World,
) -> None:
    async with bot_running(world, outbox_retry_seconds=RETRY_SECONDS) as bot:
        world.sandbox.faults.inject(
            f"POST /channels/{world.lobby.id}/messages", 503, lost_reply=True
        )
        key = "league:1:standings:round:1"
        await queue(bot, key, "league_standings", world.lobby, text="Standings after round 1")
        record = await settled(bot, key)
        assert record.status == "done" and record.attempts == 2
        posted = keyed(world.sandbox.messages(world.lobby), key)
        assert len(posted) == 1
        assert record.delivered_ref == str(posted[0].id)


async def test_a_kind_has_one_deliverer(world: World) -> None:
    async with bot_running(world) as bot:
        poster = poster_of(bot)
        assert poster is not None
        for classes in (LEAGUE_ANNOUNCEMENTS, {TurnResolved}):
            with pytest.raises(ValueError, match="delivers these kinds already"):
                poster.register(classes, LeagueDeliverer(bot, no_summary))


async def no_summary(league_id: int) -> SeasonSummary:
    raise AssertionError(f"league {league_id}: no season ends here")


async def test_a_row_of_a_kind_no_announcement_reads_is_given_up_at_once(world: World) -> None:
    async with bot_running(world, outbox_retry_seconds=RETRY_SECONDS) as bot:
        key = "league:1:pigeon"
        await queue(bot, key, "carrier_pigeon", world.lobby, text="Coo.")
        record = await settled(bot, key)
        assert record.status == "dead" and record.attempts == 1
        assert "carrier_pigeon" in (record.last_error or "")
        assert not keyed(world.sandbox.messages(world.lobby), key)
