"""The bot asks only for what it has: it runs on the invite permissions of docs/operations.md
(the sandbox's default bot role), and a refusal stays a refusal when a permission is missing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sandbox import Permission
from sandbox.permissions import INVITE_PERMISSIONS
from tests.cogs.support import TIMEOUT, World, bot_running

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
