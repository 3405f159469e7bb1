"""A small discord.py bot runs unmodified against the sandbox while scripted players drive it."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from sandbox import (
    CallbackType,
    Channel,
    ChannelType,
    Guild,
    InteractionFailedError,
    PlayerError,
    Sandbox,
    ScriptedPlayer,
    Upload,
    User,
    render_all,
    render_transcript,
    save_images,
    walk_components,
)
from sandbox.transcript import readable
from tests.sandbox.support import pointed_at, running

BOARD_PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
REALMS = ["Ember Wastes", "Emerald Vale", "Frost Reach"]


@dataclass
class Seen:
    """What the bot under test observed, for assertions."""

    dms: list[str] = field(default_factory=list)
    forbidden_codes: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class ChallengeView(discord.ui.View):
    def __init__(self, opponent_id: int) -> None:
        super().__init__(timeout=None)
        self.opponent_id = opponent_id

    @discord.ui.button(label="Join", style=discord.ButtonStyle.green, custom_id="challenge:join")
    async def join(
        self, interaction: discord.Interaction, button: discord.ui.Button[ChallengeView]
    ) -> None:
        if interaction.user.id != self.opponent_id:
            await interaction.response.send_message("This seat is not yours.", ephemeral=True)
            return
        await interaction.response.defer()
        await interaction.edit_original_response(
            content=f"{interaction.user.mention} joined the match.", view=None
        )

    @discord.ui.button(
        label="Decline", style=discord.ButtonStyle.red, custom_id="challenge:decline"
    )
    async def decline(
        self, interaction: discord.Interaction, button: discord.ui.Button[ChallengeView]
    ) -> None:
        button.disabled = True
        await interaction.response.edit_message(content="Challenge declined.", view=self)


class ConfirmView(discord.ui.View):
    @discord.ui.button(label="Confirm", custom_id="sheet:confirm")
    async def confirm(
        self, interaction: discord.Interaction, button: discord.ui.Button[ConfirmView]
    ) -> None:
        assert interaction.guild is None
        await interaction.response.edit_message(
            content=f"Orders confirmed by {interaction.user.name}", view=None
        )


class NotesModal(discord.ui.Modal, title="Match notes"):
    note: discord.ui.TextInput[NotesModal] = discord.ui.TextInput(
        label="Note", custom_id="notes:text", max_length=200
    )
    mood: discord.ui.TextInput[NotesModal] = discord.ui.TextInput(
        label="Mood", custom_id="notes:mood", required=False
    )

    def __init__(self, seen: Seen) -> None:
        super().__init__()
        self.seen = seen

    async def on_submit(self, interaction: discord.Interaction) -> None:
        self.seen.notes.append(self.note.value)
        await interaction.response.send_message(
            f"Noted: {self.note.value} ({self.mood.value or 'no mood'})", ephemeral=True
        )


class DeckSelect(discord.ui.Select["DeckView"]):
    def __init__(self) -> None:
        options = [
            discord.SelectOption(label=name, value=name.lower())
            for name in ("Fire", "Water", "Earth")
        ]
        super().__init__(placeholder="Pick a deck", options=options, custom_id="deck:pick")

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(content=f"Deck chosen: {self.values[0]}", view=None)


class DeckView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=30)
        self.add_item(DeckSelect())


class QuickBot(commands.Bot):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py waits 5 s before re-identifying; one local client need not."""


def build_bot(seen: Seen) -> commands.Bot:
    intents = discord.Intents.none()
    intents.guilds = True
    intents.dm_messages = True
    bot = QuickBot(command_prefix="!", intents=intents, guild_ready_timeout=0.05)
    bot.add_view(ChallengeView(opponent_id=0))

    match = app_commands.Group(name="match", description="Matches")
    moderate = app_commands.Group(name="moderate", description="Match moderation", parent=match)

    @match.command(name="create", description="Challenge someone")
    @app_commands.describe(opponent="Who you challenge", realm="Where", turns="Turn limit")
    async def create(
        interaction: discord.Interaction,
        opponent: discord.Member,
        realm: str,
        turns: app_commands.Range[int, 1, 50] = 20,
    ) -> None:
        await interaction.response.send_message(
            f"{interaction.user.mention} challenges {opponent.mention} in {realm} ({turns} turns)",
            view=ChallengeView(opponent.id),
        )
        message = await interaction.original_response()
        thread = await message.create_thread(name=f"{realm} match")
        await thread.send(
            "Turn 1 board",
            embed=discord.Embed(title="Turn 1", description="Both sides deploy.").add_field(
                name="Initiative", value=interaction.user.display_name
            ),
            file=discord.File(io.BytesIO(BOARD_PNG), filename="board.png"),
        )

    @create.autocomplete("realm")
    async def realm_choices(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=r, value=r)
            for r in REALMS
            if r.lower().startswith(current.lower())
        ]

    @match.command(name="private", description="A private match room")
    async def private(interaction: discord.Interaction) -> None:
        assert isinstance(interaction.channel, discord.TextChannel)
        thread = await interaction.channel.create_thread(
            name="secret room", type=discord.ChannelType.private_thread
        )
        await thread.add_user(interaction.user)
        await thread.send(f"Welcome {interaction.user.mention}")
        await interaction.response.send_message(f"Room: {thread.mention}", ephemeral=True)

    @match.command(name="watch", description="Spectate a channel")
    async def watch(interaction: discord.Interaction, channel: discord.TextChannel) -> None:
        await interaction.response.send_message(f"Watching #{channel.name}", ephemeral=True)

    @match.command(name="import", description="Import a match export")
    async def import_(interaction: discord.Interaction, export: discord.Attachment) -> None:
        data = await export.read()
        await interaction.response.send_message(f"Imported {export.filename}: {data.decode()}")

    @moderate.command(name="pause", description="Pause a match")
    async def pause(interaction: discord.Interaction, reason: str) -> None:
        if not interaction.permissions.manage_guild:
            await interaction.response.send_message("Moderators only.", ephemeral=True)
            return
        await interaction.response.send_message(f"Paused: {reason}")

    bot.tree.add_command(match)

    @bot.tree.command(name="orders", description="Your secret orders")
    async def orders(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await asyncio.sleep(0.05)
        await interaction.followup.send(
            f"Secret orders for {interaction.user.display_name}", ephemeral=True
        )

    @bot.tree.command(name="notes", description="Write match notes")
    async def notes(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NotesModal(seen))

    @bot.tree.command(name="deck", description="Choose a deck")
    async def deck(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Choose your deck", view=DeckView())

    @bot.tree.command(name="remind", description="DM a player")
    async def remind(interaction: discord.Interaction, player: discord.User) -> None:
        await interaction.response.defer(ephemeral=True)
        try:
            await player.send("Your turn!", view=ConfirmView())
        except discord.Forbidden as exc:
            seen.forbidden_codes.append(exc.code)
            await interaction.followup.send(
                f"{player.display_name} has closed DMs.", ephemeral=True
            )
        else:
            await interaction.followup.send("Reminded.", ephemeral=True)

    @bot.tree.command(name="board", description="Show the board")
    async def board(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            "Board", file=discord.File(io.BytesIO(BOARD_PNG), filename="turn1.png")
        )
        note = await interaction.followup.send("Log follows", wait=True)
        await note.edit(content="Log: nothing happened")
        await interaction.edit_original_response(
            content="Board (turn 2)",
            attachments=[discord.File(io.BytesIO(BOARD_PNG[:100]), filename="turn2.png")],
        )
        extra = await interaction.followup.send("temporary", wait=True)
        await extra.delete()

    @bot.tree.command(name="slow", description="Forgets to defer")
    async def slow(interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.5)
        try:
            await interaction.response.send_message("too late")
        except discord.NotFound as exc:
            seen.forbidden_codes.append(exc.code)

    @bot.tree.command(name="wipe", description="Server admins only")
    @app_commands.default_permissions(manage_guild=True)
    async def wipe(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Wiped.", ephemeral=True)

    @bot.event
    async def on_message(message: discord.Message) -> None:
        if message.author.bot or message.guild is not None:
            return
        seen.dms.append(message.content)
        sizes = [len(await a.read()) for a in message.attachments]
        suffix = f" with {sizes[0]} bytes" if sizes else ""
        await message.channel.send(f"Order received: {message.content}{suffix}")

    return bot


@dataclass
class World:
    sandbox: Sandbox
    bot: commands.Bot
    seen: Seen
    guild: Guild
    lobby: Channel
    alice: ScriptedPlayer
    bob: ScriptedPlayer
    carol: ScriptedPlayer
    mod: ScriptedPlayer


@pytest.fixture
async def world(sandbox: Sandbox) -> AsyncIterator[World]:
    guild = sandbox.create_guild("Sanctum Test")
    lobby = sandbox.create_channel(guild, "lobby")
    users: dict[str, User] = {
        "alice": sandbox.create_user("alice", guild=guild),
        "bob": sandbox.create_user("bob", guild=guild),
        "carol": sandbox.create_user("carol", guild=guild, dms_open=False),
        "mod": sandbox.create_user("mod", guild=guild, manage_server=True),
    }
    seen = Seen()
    bot = build_bot(seen)
    async with running(bot, sandbox):
        await bot.tree.sync()
        players = {name: sandbox.player(user, channel=lobby) for name, user in users.items()}
        yield World(sandbox, bot, seen, guild, lobby, **players)


async def test_login_gateway_ready_and_guild_create(world: World) -> None:
    bot = world.bot
    assert bot.user is not None and bot.user.id == world.sandbox.bot.id
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    assert [c.name for c in guild.text_channels] == ["lobby"]
    assert guild.member_count == 6  # the bot, its owner and four people
    assert guild.owner_id != bot.user.id
    stats = world.sandbox.gateway_stats
    assert stats["identify"] == 1
    assert stats["heartbeats"] >= 1


async def test_guild_and_global_command_sync(world: World) -> None:
    registered = world.sandbox.commands()
    names = {"match", "orders", "notes", "deck", "remind", "board", "slow", "wipe"}
    assert {c["name"] for c in registered} == names
    assert world.sandbox.commands(world.guild) == []
    fetched = await world.bot.tree.fetch_commands()
    assert {c.id for c in fetched} == {int(c["id"]) for c in registered}
    again = await world.bot.tree.sync()
    assert {c.id for c in again} == {c.id for c in fetched}, "bulk overwrite keeps ids"
    world.bot.tree.copy_global_to(guild=discord.Object(world.guild.id))
    in_guild = await world.bot.tree.sync(guild=discord.Object(world.guild.id))
    assert {c.guild_id for c in in_guild} == {world.guild.id}
    assert "match" in {c["name"] for c in world.sandbox.commands(world.guild)}


async def test_slash_command_with_options_posts_message_thread_and_file(world: World) -> None:
    result = await world.alice.slash(
        "match create", opponent=world.bob, realm="Frost Reach", turns=5
    )
    assert result.response_type is CallbackType.CHANNEL_MESSAGE
    message = result.message
    assert message is not None and not message.ephemeral
    assert (
        message.content
        == f"{world.alice.mention} challenges {world.bob.mention} in Frost Reach (5 turns)"
    )
    labels = [c.get("label") for c in walk_components(message.components) if c.get("type") == 2]
    assert labels == ["Join", "Decline"]
    thread = world.sandbox.channel(await world.sandbox.wait_for(lambda: message.thread_id))
    assert thread.type is ChannelType.PUBLIC_THREAD and thread.name == "Frost Reach match"
    posted = await world.bob.wait_for_message(thread)
    assert posted.content == "Turn 1 board"
    assert posted.embeds[0]["title"] == "Turn 1"
    assert [(a.filename, a.data, a.content_type) for a in posted.attachments] == [
        ("board.png", BOARD_PNG, "image/png")
    ]


async def test_slash_defaults_and_choices_are_enforced_like_the_client(world: World) -> None:
    with pytest.raises(PlayerError, match="missing required"):
        await world.alice.slash("match create", opponent=world.bob)
    with pytest.raises(PlayerError, match="out of range"):
        await world.alice.slash("match create", opponent=world.bob, realm="x", turns=99)
    with pytest.raises(PlayerError, match="no subcommand"):
        await world.alice.slash("match destroy")


async def test_autocomplete_returns_the_bots_choices(world: World) -> None:
    choices = await world.alice.autocomplete("match create", "realm", "em", opponent=world.bob)
    assert [c["value"] for c in choices] == ["Ember Wastes", "Emerald Vale"]


async def test_button_defer_then_edit_original(world: World) -> None:
    created = await world.alice.slash("match create", opponent=world.bob, realm="Ember Wastes")
    assert created.message is not None
    refused = await world.alice.click(created.message, "Join")
    assert refused.response_type is CallbackType.CHANNEL_MESSAGE
    assert refused.message is not None and refused.message.ephemeral
    clicked = await world.bob.click(created.message, "Join")
    assert clicked.response_type is CallbackType.DEFERRED_UPDATE_MESSAGE
    edited = await clicked.wait_edit()
    assert edited.id == created.message.id
    assert edited.content == f"{world.bob.mention} joined the match."
    assert edited.components == []


async def test_button_update_message_disables_the_button(world: World) -> None:
    created = await world.alice.slash("match create", opponent=world.bob, realm="Ember Wastes")
    assert created.message is not None
    result = await world.bob.click(created.message, custom_id="challenge:decline")
    assert result.response_type is CallbackType.UPDATE_MESSAGE
    assert created.message.content == "Challenge declined."
    with pytest.raises(PlayerError, match="disabled"):
        await world.bob.click(created.message, "Decline")


async def test_ephemeral_deferred_reply_is_seen_only_by_its_user(world: World) -> None:
    result = await world.alice.slash("orders")
    assert result.response_type is CallbackType.DEFERRED_CHANNEL_MESSAGE
    done = await result.wait_done()
    assert done.content == "Secret orders for alice"
    assert done.ephemeral_for == world.alice.id
    secret = "Secret orders"
    for other in (world.bob, world.carol, world.mod):
        everything = world.sandbox.everything_visible_to(other.user)
        texts = [m.content for messages in everything.values() for m in messages]
        assert not any(secret in text for text in texts), other.user.name
    assert [m.content for m in world.alice.visible()] == ["Secret orders for alice"]
    assert world.bob.visible() == []


async def test_private_thread_is_visible_to_its_members_only(world: World) -> None:
    # The test bot opens private threads: the server grants it that in the lobby only.
    allowed = int(discord.Permissions(create_private_threads=True).value)
    world.sandbox.set_overwrite(world.lobby, world.sandbox.bot_role(world.guild), allow=allowed)
    result = await world.alice.slash("match private")
    assert result.message is not None and result.message.ephemeral
    [thread] = world.sandbox.threads(world.lobby)
    assert thread.type is ChannelType.PRIVATE_THREAD
    welcome = await world.alice.wait_for_message(thread)
    assert welcome.content == f"Welcome {world.alice.mention}"
    assert not world.sandbox.can_view(world.bob.user, thread)
    assert thread.id not in world.sandbox.everything_visible_to(world.bob.user)
    members = await world.bot.get_channel(world.lobby.id).get_thread(thread.id).fetch_members()  # type: ignore[union-attr]
    assert {m.id for m in members} == {world.sandbox.bot.id, world.alice.id}


async def test_modal_opens_and_submits(world: World) -> None:
    opened = await world.alice.slash("notes")
    assert opened.response_type is CallbackType.MODAL
    assert opened.modal is not None and opened.modal.title == "Match notes"
    with pytest.raises(PlayerError, match="required"):
        await world.alice.submit_modal({"Mood": "calm"})
    submitted = await world.alice.submit_modal(
        {"Note": "watch the left flank", "notes:mood": "tense"}
    )
    assert submitted.message is not None
    assert submitted.message.content == "Noted: watch the left flank (tense)"
    assert submitted.message.ephemeral_for == world.alice.id
    assert world.seen.notes == ["watch the left flank"]


async def test_select_menu_updates_the_message(world: World) -> None:
    shown = await world.bob.slash("deck")
    assert shown.message is not None
    with pytest.raises(PlayerError, match="no option"):
        await world.bob.select(shown.message, ["Air"])
    picked = await world.bob.select(shown.message, ["Water"], custom_id="deck:pick")
    assert picked.response_type is CallbackType.UPDATE_MESSAGE
    assert shown.message.content == "Deck chosen: water"


async def test_dm_to_closed_user_raises_forbidden_50007_and_open_dm_arrives(world: World) -> None:
    closed = await world.alice.slash("remind", player=world.carol)
    assert (await closed.wait_done()).content == "carol has closed DMs."
    assert world.seen.forbidden_codes == [50007]
    assert world.carol.dms() == []
    opened = await world.alice.slash("remind", player=world.bob)
    assert (await opened.wait_done()).content == "Reminded."
    [sheet] = world.bob.dms()
    assert sheet.content == "Your turn!"
    confirmed = await world.bob.click(sheet, "Confirm")
    assert confirmed.response_type is CallbackType.UPDATE_MESSAGE
    assert sheet.content == "Orders confirmed by bob" and sheet.components == []


async def test_player_dm_reaches_the_bot_without_message_content_intent(world: World) -> None:
    await world.alice.send_dm("cast Fireball on E5")
    reply = await world.alice.next_dm()
    assert reply.content == "Order received: cast Fireball on E5"
    assert world.seen.dms == ["cast Fireball on E5"]


async def test_guild_message_content_needs_the_intent(world: World) -> None:
    assert world.sandbox.state.gateway.sessions
    [session] = world.sandbox.state.gateway.sessions.values()
    before = session.seq
    await world.alice.send("hello lobby")
    assert session.seq == before, "no GUILD_MESSAGES intent: the event is not dispatched"


async def test_429_and_500_are_retried_and_the_message_is_posted_once(world: World) -> None:
    channel = world.bot.get_channel(world.lobby.id)
    assert isinstance(channel, discord.TextChannel)
    world.sandbox.faults.server_error("POST /channels/*/messages")
    world.sandbox.faults.rate_limit("POST /channels/*/messages", retry_after=0.05)
    sent = await channel.send("Deadline in one hour")
    messages = world.sandbox.messages(world.lobby)
    assert [m.content for m in messages] == ["Deadline in one hour"]
    assert messages[0].id == sent.id
    statuses = [
        r.status
        for r in world.sandbox.requests
        if r.method == "POST" and r.path.endswith("/messages")
    ]
    assert statuses == [500, 429, 200]
    assert world.sandbox.faults.pending == 0


async def test_injected_429_on_an_interaction_callback_is_retried(world: World) -> None:
    world.sandbox.faults.rate_limit("POST /interactions/*/callback", retry_after=0.05)
    result = await world.bob.slash("deck")
    assert result.message is not None and result.message.content == "Choose your deck"
    callbacks = [r.status for r in world.sandbox.requests if r.path.endswith("/callback")]
    assert callbacks == [429, 200]


async def test_message_limits_are_enforced(world: World) -> None:
    channel = world.bot.get_channel(world.lobby.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as too_long:
        await channel.send("x" * 2001)
    assert too_long.value.code == 50035
    view = discord.ui.View()
    select = discord.ui.Select[discord.ui.View](custom_id="big")
    for index in range(25):
        select.add_option(label=f"o{index}")
    select.options.append(discord.SelectOption(label="o25"))
    view.add_item(select)
    with pytest.raises(discord.HTTPException) as too_many:
        await channel.send("pick", view=view)
    assert too_many.value.code == 50035
    assert world.sandbox.messages(world.lobby) == []
    # These requests break Discord's description on purpose; the refusals themselves conform.
    assert world.sandbox.contract is not None
    broken = world.sandbox.contract.take_violations()
    assert {(v.side, v.field, v.rule) for v in broken} == {
        ("request", "components.0.components.0.options", "maxItems")
    }


async def test_command_with_default_permissions_is_hidden_from_non_moderators(world: World) -> None:
    with pytest.raises(PlayerError, match="lacks the permissions"):
        await world.alice.slash("wipe")
    result = await world.mod.slash("wipe")
    assert result.message is not None and result.message.content == "Wiped."
    refused = await world.alice.slash("match moderate pause", reason="storm")
    assert refused.message is not None and refused.message.content == "Moderators only."
    allowed = await world.mod.slash("match moderate pause", reason="storm")
    assert allowed.message is not None and allowed.message.content == "Paused: storm"


async def test_resume_after_reconnect_request_and_dropped_socket(world: World) -> None:
    sandbox = world.sandbox
    sandbox.request_reconnect()
    await sandbox.wait_for(lambda: sandbox.gateway_stats["resume"] == 1 and sandbox.bot_connected)
    await world.alice.send_dm("after reconnect")
    assert (await world.alice.next_dm()).content == "Order received: after reconnect"
    await sandbox.drop_connections()
    await world.bob.send_dm("sent while the bot was away")
    await sandbox.wait_for(lambda: sandbox.gateway_stats["resume"] == 2 and sandbox.bot_connected)
    assert (await world.bob.next_dm()).content == "Order received: sent while the bot was away"
    assert sandbox.gateway_stats["identify"] == 1


async def test_invalid_session_leads_to_a_fresh_identify(world: World) -> None:
    sandbox = world.sandbox
    sandbox.invalidate_sessions()
    await sandbox.wait_for(
        lambda: sandbox.gateway_stats["identify"] == 2 and sandbox.bot_connected, timeout=10
    )
    await world.alice.send_dm("fresh session")
    assert (await world.alice.next_dm()).content == "Order received: fresh session"


async def test_transcript_and_saved_images(world: World, tmp_path: Path) -> None:
    created = await world.alice.slash("match create", opponent=world.bob, realm="Emerald Vale")
    assert created.message is not None
    thread = world.sandbox.channel(
        await world.sandbox.wait_for(lambda: created.message and created.message.thread_id)
    )
    await world.alice.wait_for_message(thread)
    await world.alice.send("good luck", channel=thread, files=[Upload("plan.txt", b"flank left")])
    assert world.alice.id in thread.member_ids, "posting in a public thread joins it"
    text = render_transcript(world.sandbox, thread)
    assert "thread 'Emerald Vale match' in #lobby" in text
    assert "Test Bot (bot): Turn 1 board" in text
    assert "[embed] Turn 1 — Both sides deploy." in text
    assert "[file] board.png" in text
    assert "alice: good luck" in text and "[file] plan.txt" in text
    lobby = render_transcript(world.sandbox, world.lobby)
    assert "alice used /match create" in lobby and "[Join] [Decline]" in lobby
    as_bob = render_all(world.sandbox, viewer=world.bob.id)
    assert "== #lobby ==" in as_bob and "good luck" in as_bob and "DM with" not in as_bob
    saved = save_images(world.sandbox, thread, tmp_path)
    assert [p.name for p in saved] == ["001-board.png"]
    assert saved[0].read_bytes() == BOARD_PNG


def test_transcripts_show_times_and_mentions_as_the_client_does(world: World) -> None:
    text = f"{world.alice.mention}, your turn ends <t:1796163516:R>"
    assert readable(world.sandbox, text) == "@alice, your turn ends 2026-12-01 22:18 UTC"


async def test_response_with_file_followups_edits_and_deletes(world: World) -> None:
    result = await world.alice.slash("board")
    original = await world.sandbox.wait_for(
        lambda: result.message if result.message and result.message.edited_timestamp else None
    )
    assert original.content == "Board (turn 2)"
    assert [(a.filename, a.data) for a in original.attachments] == [("turn2.png", BOARD_PNG[:100])]
    await world.sandbox.wait_for(lambda: len(world.sandbox.messages(world.lobby)) == 2)
    assert [m.content for m in world.sandbox.messages(world.lobby)] == [
        "Board (turn 2)",
        "Log: nothing happened",
    ]
    assert [m.content for m in result.followups] == ["Log: nothing happened"]


async def test_player_files_reach_the_bot(world: World) -> None:
    await world.alice.send_dm("my deck", files=[Upload("deck.txt", b"Fireball x3")])
    reply = await world.alice.next_dm()
    assert reply.content == "Order received: my deck with 11 bytes"
    [sent] = [m for m in world.alice.visible(world.alice.dm) if m.author_id == world.alice.id]
    assert sent.attachments[0].data == b"Fireball x3"


async def test_unacknowledged_interaction_fails_and_late_answer_is_refused() -> None:
    async with Sandbox(ack_timeout=0.2) as sandbox:
        guild = sandbox.create_guild()
        lobby = sandbox.create_channel(guild, "lobby")
        alice = sandbox.player(sandbox.create_user("alice", guild=guild), channel=lobby)
        seen = Seen()
        async with running(build_bot(seen), sandbox) as bot:
            await bot.tree.sync()
            with pytest.raises(InteractionFailedError):
                await alice.slash("slow")
            await sandbox.wait_for(lambda: seen.forbidden_codes)
            assert seen.forbidden_codes == [10062]
            assert sandbox.messages(lobby) == []


async def test_buttons_survive_a_bot_restart(sandbox: Sandbox) -> None:
    guild = sandbox.create_guild()
    lobby = sandbox.create_channel(guild, "lobby")
    alice = sandbox.player(sandbox.create_user("alice", guild=guild), channel=lobby)
    bob = sandbox.create_user("bob", guild=guild)
    async with running(build_bot(Seen()), sandbox) as first:
        await first.tree.sync()
        created = await alice.slash("match create", opponent=bob, realm="Ember Wastes")
        challenge = created.message
        assert challenge is not None
        thread = sandbox.channel(await sandbox.wait_for(lambda: challenge.thread_id))
        await alice.wait_for_message(thread)
    await sandbox.wait_for(lambda: not sandbox.bot_connected, what="the first bot to leave")
    async with running(build_bot(Seen()), sandbox):
        clicked = await alice.click(challenge, "Decline")
        assert clicked.response_type is CallbackType.UPDATE_MESSAGE
        assert challenge.content == "Challenge declined."
    assert sandbox.gateway_stats["identify"] == 2


async def test_member_chunking_with_the_members_intent(sandbox: Sandbox) -> None:
    guild = sandbox.create_guild()
    for name in ("alice", "bob", "carol"):
        sandbox.create_user(name, guild=guild)
    intents = discord.Intents.none()
    intents.guilds = True
    intents.members = True
    client = discord.Client(intents=intents, guild_ready_timeout=0.05)
    async with running(client, sandbox):
        seen_guild = client.get_guild(guild.id)
        assert seen_guild is not None and seen_guild.chunked
        names = sorted(m.name for m in seen_guild.members)
        assert names == ["Sandbox owner", "Test Bot", "alice", "bob", "carol"]
        assert sandbox.gateway_stats["compressed_connections"] == 1


async def test_privileged_intents_not_enabled_are_refused() -> None:
    async with Sandbox(privileged_intents=0) as sandbox:
        sandbox.create_guild()
        client = discord.Client(intents=discord.Intents.all(), guild_ready_timeout=0.05)
        with pytest.raises(discord.PrivilegedIntentsRequired):
            async with running(client, sandbox):
                pass


async def test_wrong_token_is_refused(sandbox: Sandbox) -> None:
    client = discord.Client(intents=discord.Intents.none())
    with pointed_at(sandbox), pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()


async def test_channels_and_guilds_created_later_reach_the_bot(world: World) -> None:
    news = world.sandbox.create_channel(world.guild, "news")
    await world.sandbox.wait_for(lambda: world.bot.get_channel(news.id))
    other = world.sandbox.create_guild("Second Server")
    await world.sandbox.wait_for(lambda: world.bot.get_guild(other.id))
    assert {g.name for g in world.bot.guilds} == {"Sanctum Test", "Second Server"}


async def test_attachments_are_saved_to_a_directory(tmp_path: Path) -> None:
    async with Sandbox(attachment_dir=tmp_path / "files") as sandbox:
        guild = sandbox.create_guild()
        lobby = sandbox.create_channel(guild, "lobby")
        async with running(build_bot(Seen()), sandbox) as bot:
            channel = bot.get_channel(lobby.id)
            assert isinstance(channel, discord.TextChannel)
            await channel.send(file=discord.File(io.BytesIO(BOARD_PNG), filename="board.png"))
        [stored] = sandbox.messages(lobby)[0].attachments
        assert (tmp_path / "files" / f"{stored.id}-board.png").read_bytes() == BOARD_PNG


async def test_channel_and_attachment_options(world: World) -> None:
    news = world.sandbox.create_channel(world.guild, "news")
    await world.sandbox.wait_for(lambda: world.bot.get_channel(news.id))
    watched = await world.alice.slash("match watch", channel=news)
    assert watched.message is not None and watched.message.content == "Watching #news"
    assert watched.message.channel_id == world.lobby.id
    elsewhere = await world.alice.slash("match watch", channel=world.lobby, in_channel=news)
    assert elsewhere.message is not None and elsewhere.message.channel_id == news.id
    imported = await world.bob.slash("match import", export=Upload("m.json", b'{"turn": 3}'))
    assert imported.message is not None
    assert imported.message.content == 'Imported m.json: {"turn": 3}'


async def test_a_lost_reply_leaves_the_message_posted_and_the_client_told_of_an_error(
    world: World,
) -> None:
    channel = world.bot.get_channel(world.lobby.id)
    assert isinstance(channel, discord.TextChannel)
    world.sandbox.faults.inject("POST /channels/*/messages", 503, lost_reply=True)
    with pytest.raises(discord.DiscordServerError):
        await channel.send("Round 2 is open")
    assert [m.content for m in world.sandbox.messages(world.lobby)] == ["Round 2 is open"]
    assert world.sandbox.faults.pending == 0
