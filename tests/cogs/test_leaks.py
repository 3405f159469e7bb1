"""Nothing of one side's hand, orders or hidden spells reaches the other side or a spectator.

Matches are played in the sandbox to their end or 25 turns, the twelve houses spread over six
of them. Every turn both players give orders by DM and open /orders in the thread without
confirming; then everything the sandbox delivered that each viewer can see (the lobby, the
match thread, their DMs, their own ephemeral answers) is scanned as text: contents, embeds,
components (buttons, select options, placeholders), attachment names and the text of text
attachments. The drawn images are checked in tests/render/test_hidden.py.

What a side hides is worked out from the game state, never from what was posted: the names of
the spells in its hand and of its non-visible spells, less the names the viewer knows from
the state itself (spells in the viewer's own deck, in either discard pile, cast before by
either side, or visibly in play); and its order lines naming squares or spells, less those the
viewer gave too, in any turn, and those the side gave in an earlier turn (a turn's log tells
what was done: "cast Dark Minion on F5" is public once it has been cast).
"""

from __future__ import annotations

import json

import pytest

from bot import MatchBot
from engine.content import Content
from engine.notation import context_for, format_orders
from engine.state import GameState, Side
from sandbox import Message, ScriptedPlayer, User
from tests.cogs.support import (
    World,
    bot_running,
    chosen_orders,
    create_match,
    dm_sheet,
    wait_turn_post,
)

# Whole matches, or as much of them as keeps each case near a minute: the scan reads
# everything delivered so far at every turn.
WHOLE = 25


def as_text(message: Message) -> str:
    parts = [message.content, json.dumps(message.embeds), json.dumps(message.components)]
    for a in message.attachments:
        parts.append(a.filename)
        if (a.content_type or "").startswith("text/"):
            parts.append(a.data.decode())
    return "\n".join(parts)


def seen_by(world: World, user: User) -> str:
    channels = world.sandbox.everything_visible_to(user)
    return "\n".join(as_text(m) for messages in channels.values() for m in messages)


def public_names(state: GameState, content: Content) -> set[str]:
    """Spell names anyone may know from the match: discards, past casts, visible spells."""
    ids = {s.spell_id for s in state.active_spells if s.visible}
    for p in state.players:
        ids |= {c.spell_id for c in p.discard} | set(p.cast_log)
    return {content.spells[i].name for i in ids}


def hidden_names(state: GameState, side: Side, content: Content) -> set[str]:
    """The names of the spells in ``side``'s hand and of its non-visible spells in play."""
    ids = {c.spell_id for c in state.player(side).hand}
    ids |= {s.spell_id for s in state.active_spells if not s.visible and s.owner is side}
    return {content.spells[i].name for i in ids}


async def order_lines(bot: MatchBot, match_id: int, player: ScriptedPlayer) -> set[str]:
    """A player's order lines as echoed back, less those that read alike for both sides
    ("train mana clarity", "train swordsman at sanctum": Alice's sheet offers them too)."""
    assert bot.runtime is not None
    _, view = await bot.runtime.view(match_id, str(player.id))
    orders, _confirmed = await bot.runtime.orders_of(match_id, str(player.id))
    lines = format_orders(orders, context_for(view, bot.runtime.content))
    echoed = {line.split(". ", 1)[1] for line in lines}
    return {line for line in echoed if not line.startswith("train ")}


@pytest.mark.parametrize(
    ("alice_house", "bob_house", "turns"),
    [
        ("war", "life", 3),
        pytest.param("abomination", "body", WHOLE, marks=pytest.mark.slow),
        pytest.param("death", "despair", WHOLE, marks=pytest.mark.slow),
        pytest.param("hope", "justice", WHOLE, marks=pytest.mark.slow),
        pytest.param("making", "mind", WHOLE, marks=pytest.mark.slow),
        pytest.param("nature", "unmaking", WHOLE, marks=pytest.mark.slow),
        pytest.param("life", "war", WHOLE, marks=pytest.mark.slow),
    ],
)
async def test_nothing_hidden_reaches_the_other_side_or_a_spectator(
    world: World, alice_house: str, bob_house: str, turns: int
) -> None:
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        content = bot.runtime.content
        thread, match_id = await create_match(
            world, alice_deck=f"starter:{alice_house}", bob_deck=f"starter:{bob_house}"
        )
        # Sides are drawn at random when the match starts.
        seats = (await bot.runtime.matches.get_match(match_id)).seats
        by_id = {str(p.id): p for p in (world.alice, world.bob)}
        players = {s.side: by_id[s.player_id] for s in seats if s.side and s.player_id}
        checked = owned = 0
        given: dict[Side, set[str]] = {Side.RED: set(), Side.BLUE: set()}
        for turn in range(1, turns + 1):
            for player in players.values():
                await dm_sheet(player, match_id, turn)
                _orders, text = await chosen_orders(bot, player, match_id)
                await player.send_dm(text or "orders")
                await player.next_dm()
                await (await player.slash("orders", in_channel=thread)).wait_done()

            match = await bot.runtime.matches.get_match(match_id)
            state = bot.runtime.state_of(match)
            public = public_names(state, content)
            current = {side: await order_lines(bot, match_id, p) for side, p in players.items()}
            lines = {side: current[side] - given[side] for side in players}
            for side in players:
                given[side] |= current[side]
            for side, owner in players.items():
                other = side.other
                mine = state.player(other)
                deck = {
                    content.spells[c.spell_id].name for c in mine.hand + mine.deck + mine.discard
                }
                names = hidden_names(state, side, content) - public
                secrets = names | lines[side]
                # The scan finds them where they belong: the owner's sheet names the spells
                # they may cast (not every card in hand) and echoes every order line.
                owner_sees = seen_by(world, owner.user)
                assert sorted(s for s in lines[side] if s not in owner_sees) == []
                owned += sum(1 for s in secrets if s in owner_sees)
                # Group names (g1, g2...) are each side's own, so the viewer may have given
                # the very same line.
                orders = lines[side] - given[other]
                looks = [
                    (players[other].user, names - deck | orders),
                    (world.carol.user, names | orders),
                ]
                for viewer, hidden in looks:
                    text = seen_by(world, viewer)
                    found = sorted(s for s in hidden if s in text)
                    assert found == [], f"turn {turn}: {viewer.name} can see {side}'s {found}"
                    checked += len(hidden)

            for player in players.values():
                await player.send_dm("confirm")
                await player.next_dm()
            await wait_turn_post(world, thread, match_id, turn)
            if (await bot.runtime.matches.get_match(match_id)).status == "ended":
                break
        assert checked > 0
        assert owned > 0
