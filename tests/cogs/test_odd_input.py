"""Odd numbers and oversized text in options and DMs get a refusal that says why and always
arrives: never an incident, never a reply too long for Discord to deliver."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox import ScriptedPlayer
from tests.cogs.support import TIMEOUT, World, bot_running

INCIDENT = "Something went wrong"
# Discord's longest string option.
LONGEST = "x" * 6000


def moderator(world: World) -> ScriptedPlayer:
    user = world.sandbox.create_user("Mia", guild=world.guild, manage_server=True)
    return world.sandbox.player(user, channel=world.lobby)


@pytest.mark.parametrize("deck", ["²", "#²", "١٢", "１２", "9" * 23, "9" * 5000, LONGEST])
async def test_an_odd_deck_option_is_refused(world: World, deck: str) -> None:
    async with bot_running(world):
        answer = await (await world.alice.slash("deck show", deck=deck)).wait_done(TIMEOUT)
        assert INCIDENT not in answer.content
        assert answer.content.startswith(("You have no deck named", "There is no deck"))
        assert len(answer.content) < 200


async def test_odd_league_times_are_refused_and_the_refusal_arrives(world: World) -> None:
    mia = moderator(world)
    async with bot_running(world):
        odd: tuple[dict[str, Any], ...] = (
            {"round_length": "²"},
            {"round_length": "9" * 5000},
            {"turn_length": "١٢h"},
            {"round_length": "99999999999999999999d"},
            {"starts_at": LONGEST},
            {"starts_at": "²"},
        )
        for options in odd:
            result = await mia.slash("league create", name="Odd", **options)
            answer = await result.wait_done(TIMEOUT)
            assert INCIDENT not in answer.content, options
            assert "duration" in answer.content or "time" in answer.content, options
            assert len(answer.content) < 300


async def test_an_odd_match_number_in_a_dm_is_refused(world: World) -> None:
    async with bot_running(world):
        for typed, answer in (
            ("#99999999999999999999 confirm", "❌ There is no match #99999999999999999999."),
            ("#" + "9" * 1900 + " confirm", "❌ There is no match #" + "9" * 29 + "…."),
            ("#12 confirm", "❌ There is no match #12 of yours."),
        ):
            before = len(world.alice.dms())
            await world.alice.send_dm(typed)

            def answered(before: int = before) -> bool:
                return len(world.alice.dms()) > before

            await world.sandbox.wait_for(answered, timeout=TIMEOUT, what="the answer")
            assert world.alice.dms()[-1].content == answer


async def test_a_refusal_quoting_an_oversized_spell_name_still_arrives(world: World) -> None:
    async with bot_running(world):
        answer = await (await world.alice.slash("spell info", name=LONGEST)).wait_done(TIMEOUT)
        assert INCIDENT not in answer.content and "xxxx" in answer.content
        assert len(answer.content) <= 2000
