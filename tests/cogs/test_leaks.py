"""Nothing of Bob's hand or orders reaches Alice or the match thread before a turn resolves.

Everything the sandbox delivered that Alice can see (the lobby, the match thread, her DMs, her
own ephemeral answers) is scanned as text: contents, embeds, file names and components. What
Bob holds and orders must appear nowhere, except the names of spells Alice may know for other
reasons (those in her own deck, and those already cast in public).
"""

from __future__ import annotations

import json

from bot import MatchBot
from engine.notation import context_for, format_orders
from sandbox import Message, User
from tests.cogs.support import (
    World,
    bot_running,
    chosen_orders,
    create_match,
    dm_sheet,
    wait_turn_post,
)

TURNS = 3


def as_text(message: Message) -> str:
    parts = [message.content, json.dumps(message.embeds), json.dumps(message.components)]
    parts += [a.filename for a in message.attachments]
    return "\n".join(parts)


def seen_by(world: World, user: User) -> str:
    channels = world.sandbox.everything_visible_to(user)
    return "\n".join(as_text(m) for messages in channels.values() for m in messages)


async def secrets_of(bot: MatchBot, world: World, match_id: int, public: str) -> set[str]:
    """Bob's hand and orders as text, less what Alice knows anyway."""
    assert bot.runtime is not None
    content = bot.runtime.content
    _, bob_view = await bot.runtime.view(match_id, str(world.bob.id))
    match = await bot.runtime.matches.get_match(match_id)
    alice_seat = next(s for s in match.seats if s.player_id == str(world.alice.id))
    assert alice_seat.deck_id is not None
    alice_deck = await bot.runtime.decks.get_deck(str(world.alice.id), alice_seat.deck_id)
    known = {content.spells[s].name for s in alice_deck.spells}
    hand = {content.spells[c.spell_id].name for c in bob_view.hand}
    orders, _confirmed = await bot.runtime.orders_of(match_id, str(world.bob.id))
    lines = format_orders(orders, context_for(bob_view, content))
    # "train mana clarity" or "train swordsman at sanctum" reads the same for both sides, and
    # Alice's own sheet offers it to her: only orders naming squares or spells can leak.
    echo = {
        line.split(". ", 1)[1] for line in lines if not line.split(". ", 1)[1].startswith("train ")
    }
    return {name for name in hand - known if name not in public} | echo


async def test_nothing_of_bobs_hand_or_orders_reaches_alice_or_the_thread(world: World) -> None:
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        checked = 0
        for turn in range(1, TURNS + 1):
            await dm_sheet(world.alice, match_id, turn)
            _orders, bob_text = await chosen_orders(bot, world.bob, match_id)
            # Bob gives orders by DM and opens /orders in the thread, and does not confirm.
            await world.bob.send_dm(bob_text or "orders")
            await world.bob.next_dm()
            await (await world.bob.slash("orders", in_channel=thread)).wait_done()
            _orders, alice_text = await chosen_orders(bot, world.alice, match_id)
            await world.alice.send_dm(f"{alice_text}\nconfirm")
            await world.alice.next_dm()

            public = "\n".join(as_text(m) for m in world.sandbox.messages(thread))
            secrets = await secrets_of(bot, world, match_id, public)
            assert secrets, "Bob should have something to hide"
            # The scan finds them where they belong: in what Bob himself sees.
            assert all(s in seen_by(world, world.bob.user) for s in secrets)
            for viewer in (world.alice.user, world.carol.user):
                text = seen_by(world, viewer)
                found = sorted(s for s in secrets if s in text)
                assert found == [], f"{viewer.name} can see {found}"
            checked += len(secrets)

            await world.bob.send_dm("confirm")
            await wait_turn_post(world, thread, match_id, turn)
            assert bot.runtime is not None
            if (await bot.runtime.matches.get_match(match_id)).status == "ended":
                break
        assert checked > 0
