"""The bot asks only for what it has: it runs on the invite permissions of docs/operations.md
(the sandbox's default bot role), and a refusal stays a refusal when a permission is missing."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot import MatchBot
from sandbox import InteractionResult, Permission
from sandbox.permissions import INVITE_PERMISSIONS
from storage import OutboxRecord
from tests.cogs.support import TIMEOUT, World, bot_running
from tests.service.leagues.harness import deck_spells

OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def test_the_sandbox_bot_role_is_the_documented_invite() -> None:
    found = re.search(r"permissions=(\d+)", OPERATIONS.read_text(encoding="utf-8"))
    assert found is not None
    assert int(found.group(1)) == INVITE_PERMISSIONS


async def test_a_refused_match_create_says_why_and_leaves_no_thread(world: World) -> None:
    # Without Manage Threads the bot cannot delete the thread it opened (Discord answers 403):
    # the player must still read the refusal, not an incident, and no empty thread stays open.
    async with bot_running(world):
        result = await world.alice.slash("match create", opponent=world.alice.user)
        answer = await result.wait_done(timeout=TIMEOUT)
        assert "You cannot play against yourself" in answer.content
        assert "incident" not in answer.content
        assert all(t.archived for t in world.sandbox.threads(world.lobby))


@pytest.mark.parametrize(
    "permission",
    [p for p in Permission if p & INVITE_PERMISSIONS],
    ids=lambda p: p.name.lower(),
)
async def test_without_each_invite_permission_match_create_answers_clearly(
    world: World, permission: Permission
) -> None:
    # A moderator denies the bot one permission in the lobby (and so in its threads).
    world.sandbox.set_overwrite(world.lobby, world.sandbox.bot, deny=permission)
    async with bot_running(world):
        result = await world.alice.slash("match create", opponent=world.bob.user)
        answer = await result.wait_done(timeout=TIMEOUT)
        assert "incident" not in answer.content, (permission.name, answer.content)
        assert answer.content


async def answered(result: InteractionResult) -> str:
    """The bot's answer to a command, which must be a clear one, never an incident."""
    message = await result.wait_done(timeout=TIMEOUT)
    text = "\n".join([message.content, *(str(e.get("description", "")) for e in message.embeds)])
    assert text.strip(), "an empty answer"
    assert "incident" not in text.lower(), text
    return text


async def outbox_settled(bot: MatchBot) -> list[OutboxRecord]:
    """Every announcement, once none is waiting any more."""
    assert bot.runtime is not None
    outbox = bot.runtime.outbox

    async def rows() -> list[OutboxRecord] | None:
        async with outbox.store.read() as s:
            found = await s.list_outbox()
        return None if any(r.status == "pending" for r in found) else found

    deadline = asyncio.get_running_loop().time() + 3 * TIMEOUT
    while (found := await rows()) is None:
        assert asyncio.get_running_loop().time() < deadline, "announcements still waiting"
        await asyncio.sleep(0.2)
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    "permission",
    [p for p in Permission if p & INVITE_PERMISSIONS],
    ids=lambda p: p.name.lower(),
)
async def test_a_whole_match_without_each_permission_loses_nothing(
    world: World, permission: Permission
) -> None:
    """With one invite permission denied in the lobby, a match is created (or refused with a
    clear answer), played through a turn by DM and conceded: every command is answered clearly,
    the turn and the result are recorded, and once the permission is given back every
    announcement that waited is posted; one given up on keeps the reason."""
    sandbox = world.sandbox
    sandbox.set_overwrite(world.lobby, sandbox.bot, deny=permission)
    async with bot_running(world, outbox_retry_seconds=0.2) as bot:
        assert bot.runtime is not None
        matches = bot.runtime.matches
        await answered(
            await world.alice.slash("match create", opponent=world.bob.user, deck="starter:war")
        )
        created = await matches.list_matches()
        if not created:
            # Refused outright: nothing half-made is left behind.
            assert list(sandbox.threads(world.lobby)) == [] or all(
                t.archived for t in sandbox.threads(world.lobby)
            )
            return
        (match,) = created
        await answered(await world.bob.slash("match join", match=match.id, deck="starter:life"))
        assert (await matches.get_match(match.id)).status == "active"
        for player in (world.alice, world.bob):
            await player.send_dm(f"#{match.id} confirm")
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while (await matches.get_match(match.id)).turn < 2:
            assert asyncio.get_running_loop().time() < deadline, "turn 1 never resolved"
            await asyncio.sleep(0.1)
        await answered(await world.alice.slash("match concede", match=match.id))
        ended = await matches.get_match(match.id)
        assert ended.status == "ended" and ended.winner is not None
        record = await matches.history(match.id, 1)
        assert set(record.orders) == {"red", "blue"}

        # Given back, the permission lets every waiting announcement through.
        sandbox.set_overwrite(world.lobby, sandbox.bot)
        rows = await outbox_settled(bot)
        assert all(r.status == "done" or r.last_error for r in rows), [
            (r.key, r.status) for r in rows
        ]
        keys = [r.key for r in rows]
        assert len(keys) == len(set(keys))
        assert any(r.kind == "match_ended" for r in rows)


@pytest.mark.slow
@pytest.mark.parametrize(
    "permission",
    [p for p in Permission if p & INVITE_PERMISSIONS],
    ids=lambda p: p.name.lower(),
)
async def test_a_league_round_without_each_permission_loses_nothing(
    world: World, permission: Permission
) -> None:
    """A one-round league of two in the lobby with one invite permission denied: created,
    signed up for and started with clear answers; its game played (conceded) and its result
    announced once the permission is back, nothing posted twice."""
    sandbox = world.sandbox
    moderator = sandbox.player(
        sandbox.create_user("Mod", guild=world.guild, manage_server=True), channel=world.lobby
    )
    sandbox.set_overwrite(world.lobby, sandbox.bot, deny=permission)
    async with bot_running(world, outbox_retry_seconds=0.2) as bot:
        assert bot.runtime is not None
        await answered(
            await moderator.slash(
                "league create",
                name="Spring",
                rounds=1,
                round_length="7d",
                turn_length="1h",
                start_within="1d",
            )
        )
        for player in (world.alice, world.bob):
            deck = await bot.runtime.decks.create_deck(str(player.id), "main", "war", deck_spells())
            await answered(await player.slash("league signup", league="Spring", deck=deck.id))
        await answered(await moderator.slash("league start", league="Spring"))
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while not (games := await bot.runtime.matches.list_matches(statuses=["active"])):
            assert asyncio.get_running_loop().time() < deadline, "the round's game never began"
            await asyncio.sleep(0.1)
        (game,) = games
        await answered(await world.alice.slash("match concede", match=game.id))
        assert (await bot.runtime.matches.get_match(game.id)).status == "ended"

        sandbox.set_overwrite(world.lobby, sandbox.bot)
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while not any(r.kind == "league_result" for r in await outbox_settled(bot)):
            assert asyncio.get_running_loop().time() < deadline, "the result was never queued"
            await asyncio.sleep(0.1)
        rows = await outbox_settled(bot)
        assert all(r.status == "done" or r.last_error for r in rows), [
            (r.key, r.status) for r in rows
        ]
        assert len({r.key for r in rows}) == len(rows)
        assert any(r.kind == "league_round_opened" and r.status == "done" for r in rows)
