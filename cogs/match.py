"""/match: create a match in its own thread, join, and everything a player does outside orders."""

from __future__ import annotations

import contextlib
import io
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from cogs.deck import deck_choices, resolve_deck
from cogs.errors import RefusalError, handle_interaction_error
from cogs.runtime import (
    MatchLike,
    Runtime,
    display_name,
    draw_board,
    escaped,
    mention,
    runtime_of,
    seat_of,
    side_name,
    timestamp,
    write_log,
)
from cogs.sheet.ids import JOIN, JOIN_DECK, ComponentId, PersistentItem
from cogs.split import (
    EMBED_FIELD_VALUE_LIMIT,
    SELECT_OPTIONS_LIMIT,
    clip,
    paged_embeds,
    send_embeds,
)
from engine.state import RULESETS
from service.deadline_anchor import anchor_of, parse_anchor, zone_names
from service.errors import NotFoundError
from service.matches import (
    COMPUTER_DESCRIPTIONS,
    COMPUTER_LEVELS,
    COMPUTER_PREFIX,
    is_computer,
)

REALMS = ("veldt", "volgaria", "badlands", "great_frost", "arboria", "random")
OPEN_STATUSES = ("open", "active", "paused")
# A week without posts before Discord hides the thread.
THREAD_MINUTES: Literal[60, 1440, 4320, 10080] = 10080
# A turn's log longer than an embed field travels as a file.
HISTORY_LOG_INLINE = EMBED_FIELD_VALUE_LIMIT


async def find_match(
    runtime: Runtime, interaction: discord.Interaction, match_id: int | None
) -> MatchLike:
    """The match meant: the one given, the one of this thread, or the player's only one;
    always one of this server's matches (in a DM, one of the player's own)."""
    player = str(interaction.user.id)
    guild = _guild_of(interaction)
    if match_id is not None:
        return await scoped_match(runtime, interaction, match_id)
    if guild is not None and interaction.channel_id is not None:
        here = await _match_here(runtime, str(interaction.channel_id), player)
        if here is not None:
            return here
    mine = await runtime.matches.list_matches(
        player_id=player, guild_id=guild, statuses=OPEN_STATUSES
    )
    if len(mine) == 1:
        return mine[0]
    if not mine:
        raise RefusalError("You are in no match in progress; name one with the `match` option.")
    listing = ", ".join(f"#{m.id}" for m in mine[:10])
    raise RefusalError(f"You are in several matches ({listing}); name one with the `match` option.")


def _guild_of(interaction: discord.Interaction) -> str | None:
    return str(interaction.guild_id) if interaction.guild_id is not None else None


async def scoped_match(
    runtime: Runtime, interaction: discord.Interaction, match_id: int
) -> MatchLike:
    """Match ``match_id`` if the one asking may act on it (:meth:`Runtime.scoped_match`)."""
    return await runtime.scoped_match(_guild_of(interaction), str(interaction.user.id), match_id)


async def _match_here(runtime: Runtime, channel_id: str, player_id: str) -> MatchLike | None:
    """The match of this channel: its only one, or, in a channel that older league matches
    shared, the player's only match in progress there."""
    here = await runtime.matches.matches_in_channel(channel_id)
    if len(here) == 1:
        return here[0]
    playing = [
        m
        for m in here
        if m.status in OPEN_STATUSES and any(s.player_id == player_id for s in m.seats)
    ]
    return playing[0] if len(playing) == 1 else None


async def match_choices(
    runtime: Runtime, interaction: discord.Interaction, current: str, statuses: tuple[str, ...]
) -> list[app_commands.Choice[int]]:
    player_id = str(interaction.user.id)
    found = await runtime.matches.list_matches(
        player_id=player_id, guild_id=_guild_of(interaction), statuses=statuses, limit=25
    )
    out = []
    for match in found:
        others = [s.player_id for s in match.seats if s.player_id and s.player_id != player_id]
        label = f"#{match.id} {match.status}, turn {match.turn}"
        if others:
            label += f" vs {display_name(interaction, runtime, others[0])}"
        if current.strip("#") in str(match.id):
            out.append(app_commands.Choice(name=clip(label, 100), value=match.id))
    return out


async def start_if_ready(runtime: Runtime, match: MatchLike, player_id: str) -> MatchLike:
    """Start the match once both seats have a player and a deck."""
    if match.status == "open" and all(
        s.player_id and (s.deck_id or is_computer(s.player_id)) for s in match.seats
    ):
        match = await runtime.matches.start_match(match.id, player_id)
    return match


async def join(runtime: Runtime, match_id: int, player_id: str, deck: str | None) -> MatchLike:
    """Take the open seat, with ``deck`` if given (else the deck is chosen later, and the
    match starts then)."""
    deck_id = await resolve_deck(runtime, player_id, deck)
    match = await runtime.matches.join_match(match_id, player_id, deck_id)
    return await start_if_ready(runtime, match, player_id)


async def discard_thread(thread: discord.Thread) -> None:
    """Remove a thread the bot just opened: delete it where the bot may (Manage Threads, which
    the invite does not ask for), else archive it, as its creator always may. The caller's own
    error is what the player must read, so a failure here is never raised over it."""
    try:
        await thread.delete()
    except discord.Forbidden:
        with contextlib.suppress(discord.HTTPException):
            await thread.edit(archived=True)


class JoinButton(PersistentItem[discord.ui.Button[Any]], actions=(JOIN,)):
    """ "Join" on a match's first post; survives restarts like the sheet's buttons."""

    @classmethod
    def make(cls, match_id: int) -> JoinButton:
        return cls(
            discord.ui.Button(
                label="Join",
                style=discord.ButtonStyle.success,
                # Turn 0: the match has not begun.
                custom_id=ComponentId(JOIN, match_id, 0).encode(),
            )
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        """Ask the player for the deck to join with (BOT.md: both players pick decks)."""
        runtime, match_id = _clicked(interaction, self.component_id)
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)
            player = str(interaction.user.id)
            runtime.names[player] = interaction.user.display_name
            await scoped_match(runtime, interaction, match_id)
            match = await runtime.matches.check_join(match_id, player)
            options = [
                discord.SelectOption(label=choice.name, value=str(choice.value))
                for choice in await deck_choices(runtime, player, "")
            ]
            view = discord.ui.View(timeout=None)
            view.add_item(JoinDeckSelect.make(match.id, options))
            await interaction.followup.send(
                f"Which deck do you join match #{match.id} with?", view=view, ephemeral=True
            )
        except Exception as error:
            await handle_interaction_error(interaction, error)


class JoinDeckSelect(PersistentItem[discord.ui.Select[Any]], actions=(JOIN_DECK,)):
    """The deck menu a Join button opens: picking a deck joins the match with it."""

    @classmethod
    def make(cls, match_id: int, options: list[discord.SelectOption]) -> JoinDeckSelect:
        return cls(
            discord.ui.Select(
                custom_id=ComponentId(JOIN_DECK, match_id).encode(),
                placeholder="Your deck…",
                options=options[:SELECT_OPTIONS_LIMIT],
            )
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        runtime, match_id = _clicked(interaction, self.component_id)
        data: Any = interaction.data or {}
        values = [str(v) for v in data.get("values", [])]
        try:
            await interaction.response.defer()
            await scoped_match(runtime, interaction, match_id)
            match = await join(runtime, match_id, str(interaction.user.id), values[0])
            await interaction.edit_original_response(content=_joined_text(match), view=None)
        except Exception as error:
            await handle_interaction_error(interaction, error)


def _clicked(interaction: discord.Interaction, found: ComponentId) -> tuple[Runtime, int]:
    """The runtime, and the match a component's custom_id names."""
    client = interaction.client
    return runtime_of(client), found.match_id


def _joined_text(match: MatchLike) -> str:
    if match.status == "active":
        return f"You joined match #{match.id}; it has begun. Your order sheet comes by DM."
    return (
        f"You joined match #{match.id}; it starts when both players have a deck "
        "(`/match deck` chooses yours)."
    )


class MatchCog(commands.GroupCog, group_name="match", group_description="Play a match"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def runtime(self) -> Runtime:
        return runtime_of(self.bot)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(JoinButton, JoinDeckSelect)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(JoinButton, JoinDeckSelect)

    @app_commands.command(name="create", description="Start a match in a new thread here")
    @app_commands.guild_only()
    @app_commands.describe(
        opponent="Who you challenge (leave empty for an open seat anyone may take)",
        computer="Play the computer at this level instead of a person",
        deck="Your deck (or a ready-made starter deck)",
        ruleset="classic, or duel (magic dice)",
        realm="The land the board is drawn from",
        turn_hours="Hours per turn before the deadline",
        no_shows="Turns in a row without orders that forfeit the match (0: never; default 3)",
        grace_hours="Hours added once per player to the first deadline they miss (default 0)",
        clock="Deadlines fall at this time of day, 24-hour HH:MM (e.g. 20:00; UTC by default)",
        days="Deadlines fall only on these weekdays (e.g. mon-fri, or sat,sun)",
        timezone="The timezone the deadline clock and days are read in (e.g. Europe/Paris)",
    )
    @app_commands.choices(
        ruleset=[app_commands.Choice(name=r, value=r) for r in RULESETS],
        realm=[app_commands.Choice(name=r.replace("_", " ").title(), value=r) for r in REALMS],
        computer=[
            app_commands.Choice(name=f"{level}: {COMPUTER_DESCRIPTIONS[level]}", value=level)
            for level in COMPUTER_LEVELS
        ],
    )
    async def create(  # noqa: PLR0917 (slash command options are positional)
        self,
        interaction: discord.Interaction,
        opponent: discord.User | None = None,
        deck: str | None = None,
        ruleset: str = "classic",
        realm: str = "veldt",
        turn_hours: app_commands.Range[float, 0.0167, 336.0] | None = None,
        computer: str | None = None,
        no_shows: app_commands.Range[int, 0, 20] = 3,
        grace_hours: app_commands.Range[float, 0.0, 168.0] = 0.0,
        clock: app_commands.Range[str, 1, 5] | None = None,
        days: app_commands.Range[str, 1, 60] | None = None,
        timezone: app_commands.Range[str, 1, 64] | None = None,
    ) -> None:
        # Private from the start: a refusal is for the player alone, and everything is checked
        # before the thread opens, so a refused match leaves nothing behind.
        await interaction.response.defer(ephemeral=True, thinking=True)
        runtime = self.runtime
        player = str(interaction.user.id)
        runtime.names[player] = interaction.user.display_name
        if opponent is not None:
            runtime.names[str(opponent.id)] = opponent.display_name
        if opponent is not None and computer is not None:
            raise RefusalError("Choose either an opponent or the computer, not both.")
        if opponent is not None and opponent.id == interaction.user.id:
            raise RefusalError(
                "You cannot play against yourself: challenge someone else, choose a `computer` "
                "level, or leave `opponent` empty for an open seat."
            )
        if opponent is not None and opponent.bot:
            raise RefusalError("Bots cannot play; challenge a person or leave the seat open.")
        anchor = parse_anchor(clock, days, timezone)
        rival_id = f"{COMPUTER_PREFIX}{computer}" if computer else None
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            channel = channel.parent
        if not isinstance(channel, discord.TextChannel):
            raise RefusalError("Create matches in a text channel, where a thread can be opened.")
        deck_id = await resolve_deck(runtime, player, deck)
        waiting = [
            m
            for m in await runtime.matches.list_matches(
                player_id=player, guild_id=str(interaction.guild_id), statuses=("open",)
            )
            if m.created_by == player
        ]
        if len(waiting) >= runtime.max_open_challenges:
            listing = ", ".join(f"#{m.id}" for m in waiting[:10])
            raise RefusalError(
                f"You have {len(waiting)} open challenges already ({listing}); wait for them to "
                "be taken, or withdraw one with `/match cancel`."
            )
        hours = turn_hours if turn_hours is not None else runtime.default_turn_hours
        rival = (
            opponent.display_name
            if opponent
            else f"the computer ({computer})"
            if computer
            else "open seat"
        )
        title = f"{interaction.user.display_name} vs {rival}"
        try:
            thread = await channel.create_thread(
                name=clip(title, 100),
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_MINUTES,
            )
        except discord.Forbidden:
            raise RefusalError(
                f"I may not open a thread in {channel.mention}: a moderator can give me View "
                "Channels and Create Public Threads there, or create the match in another channel."
            ) from None
        try:
            match = await runtime.matches.create_match(
                player,
                deck_id=deck_id,
                opponent_id=str(opponent.id) if opponent else rival_id,
                ruleset=ruleset,
                realm=realm,
                turn_seconds=max(1, round(hours * 3600)),
                no_show_limit=no_shows,
                grace_seconds=round(grace_hours * 3600),
                guild_id=str(interaction.guild_id),
                channel_id=str(thread.id),
                anchor=anchor,
            )
        except Exception:
            await discard_thread(thread)
            raise
        await thread.edit(name=clip(f"Match #{match.id}: {title}", 100))
        for person in (interaction.user, opponent):
            if person is not None:
                # The thread is public: a player the bot may not add can still open it.
                with contextlib.suppress(discord.Forbidden):
                    await thread.add_user(person)
        if computer is not None:
            await self._start_against_computer(interaction, match, thread, deck_id)
            return
        who = mention(str(opponent.id)) if opponent else "Anyone"
        invitation = f"{who} can join there with the Join button or `/match join match:{match.id}`."
        await interaction.followup.send(
            f"Match #{match.id} is in {thread.mention}. {invitation}"
            + ("" if deck_id else " Pick your deck with `/match deck` before it starts."),
            ephemeral=True,
        )
        # The challenge itself is public, for the channel to see.
        with contextlib.suppress(discord.HTTPException):
            await channel.send(
                f"{interaction.user.mention} opened match #{match.id} in {thread.mention}. "
                + invitation
            )

    async def _start_against_computer(
        self,
        interaction: discord.Interaction,
        match: MatchLike,
        thread: discord.Thread,
        deck_id: int | None,
    ) -> None:
        if deck_id is None:
            await interaction.followup.send(
                f"Match #{match.id} against the computer is in {thread.mention}. Pick your deck "
                "with `/match deck`; it starts then.",
                ephemeral=True,
            )
            return
        await start_if_ready(self.runtime, match, str(interaction.user.id))
        await interaction.followup.send(
            f"Match #{match.id} against the computer is in {thread.mention} and has begun. "
            "Your order sheet comes by DM.",
            ephemeral=True,
        )

    @app_commands.command(name="join", description="Join an open match")
    @app_commands.describe(match="The match number", deck="Your deck (or a ready-made one)")
    async def join_(
        self, interaction: discord.Interaction, match: int, deck: str | None = None
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await scoped_match(self.runtime, interaction, match)
        joined = await join(self.runtime, found.id, str(interaction.user.id), deck)
        await interaction.followup.send(_joined_text(joined), ephemeral=True)

    @app_commands.command(name="deck", description="Choose your deck for a match not yet begun")
    async def deck_(
        self, interaction: discord.Interaction, deck: str, match: int | None = None
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        runtime = self.runtime
        player = str(interaction.user.id)
        runtime.names[player] = interaction.user.display_name
        found = await find_match(runtime, interaction, match)
        deck_id = await resolve_deck(runtime, player, deck)
        assert deck_id is not None
        chosen = await runtime.matches.choose_deck(found.id, player, deck_id)
        updated = await start_if_ready(runtime, chosen, player)
        await interaction.followup.send(
            f"Deck #{deck_id} chosen for match #{updated.id}."
            + (" The match has begun." if updated.status == "active" else ""),
            ephemeral=True,
        )

    @app_commands.command(
        name="info", description="Where a match stands, and whose orders it waits for"
    )
    async def info(self, interaction: discord.Interaction, match: int | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await find_match(self.runtime, interaction, match)
        lines = [
            f"Status: {found.status}; turn {found.turn}; deadline {timestamp(found.deadline_at)}",
            f"Ruleset {found.ruleset}, realm {found.realm}",
        ]
        anchored = anchor_of(found).describe()
        if anchored:
            lines.append(f"Deadlines fall {anchored}")
        playing = found.status in ("active", "paused")
        waiting = []
        for seat in found.seats:
            state = ""
            who = (
                display_name(interaction, self.runtime, seat.player_id)
                if seat.player_id is not None and is_computer(seat.player_id)
                else mention(seat.player_id)
            )
            if playing and seat.player_id is not None:
                ready, detail = await self._turn_state(found, seat.player_id, interaction)
                state = f" — {detail}"
                if not ready:
                    waiting.append(who)
            lines.append(
                f"{side_name(seat.side) if seat.side else 'Seat'}: {who}"
                + (f" ({seat.house})" if seat.house else "")
                + state
            )
        if playing:
            lines.append(
                f"Waiting for {' and '.join(waiting)}; the turn resolves at the deadline or "
                "once both confirm."
                if waiting
                else "Both have confirmed; the turn is resolving."
            )
        if found.status == "ended":
            winner = f"{side_name(found.winner)} wins" if found.winner else "a draw"
            lines.append(f"Result: {winner} ({found.end_reason})")
        if found.channel_id:
            lines.append(f"Thread: <#{found.channel_id}>")
        await interaction.followup.send(
            embeds=paged_embeds(f"Match #{found.id}", lines), ephemeral=True
        )

    async def _turn_state(
        self, match: MatchLike, player_id: str, interaction: discord.Interaction
    ) -> tuple[bool, str]:
        """Whether the player has confirmed this turn, and how to say it to the one asking:
        whether orders were given at all is the player's own to know (as their reminders)."""
        record = await self.runtime.matches.current_orders(match.id, player_id)
        if record is not None and record.confirmed:
            return True, "✅ confirmed"
        if player_id != str(interaction.user.id):
            return False, "⏳ not confirmed yet"
        given = record is not None and any(v for k, v in record.orders.items() if k != "confirmed")
        return False, "⏳ your orders are given, not confirmed" if given else "⏳ no orders yet"

    @app_commands.command(name="list", description="Your matches")
    async def list_(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self.runtime.matches.list_matches(
            player_id=str(interaction.user.id), limit=50
        )
        lines = [
            f"#{m.id} · {m.status} · turn {m.turn}"
            + (f" · <#{m.channel_id}>" if m.channel_id else "")
            for m in found
        ] or ["You have no matches; `/match create` starts one."]
        await send_embeds(interaction, paged_embeds("Your matches", lines))

    @app_commands.command(
        name="board", description="The public board of a match, now or after a turn"
    )
    @app_commands.describe(
        match="The match (by default the one of this thread)",
        turn="A resolved turn: the board after it, with its moves and its log",
    )
    async def board(
        self,
        interaction: discord.Interaction,
        match: int | None = None,
        turn: app_commands.Range[int, 1, 10_000] | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        runtime = self.runtime
        found = await find_match(runtime, interaction, match)
        if turn is None:
            current, view = await runtime.view(found.id, None)
            png = await runtime.compute(draw_board, runtime.state_doc(current))
            await interaction.followup.send(
                f"Match #{found.id}, turn {view.turn}",
                file=discord.File(io.BytesIO(png), filename="board.png"),
                ephemeral=True,
            )
            return
        try:
            record = await runtime.matches.history(found.id, turn)
        except NotFoundError:
            raise RefusalError(
                f"Turn {turn} of match #{found.id} has not been resolved; `/match history` "
                "lists the turns that have."
            ) from None
        before: dict[str, Any] | None
        if turn > 1:
            before = (await runtime.matches.history(found.id, turn - 1)).state
        else:
            before = (await runtime.matches.get_match(found.id, with_state=True)).initial_state
        names = {
            str(seat.side): display_name(interaction, runtime, seat.player_id)
            for seat in found.seats
            if seat.side
        }
        png = await runtime.compute(draw_board, record.state, record.report, names)
        summary, log_lines, _full = await runtime.compute(
            write_log,
            before,
            record.state,
            record.report,
            {k: escaped(v) for k, v in names.items()},
        )
        embed = discord.Embed(
            title=f"Match #{found.id} · turn {turn}",
            description=clip("\n".join(summary) or "Nothing happened.", 2000),
        )
        embed.set_image(url=f"attachment://turn-{turn}.png")
        files = [discord.File(io.BytesIO(png), filename=f"turn-{turn}.png")]
        log_text = "\n".join(log_lines) or "Nothing happened."
        if len(log_text) <= HISTORY_LOG_INLINE:
            embed.add_field(name="Log", value=log_text, inline=False)
        else:
            embed.add_field(name="Log", value="attached (long)", inline=False)
            files.append(
                discord.File(io.BytesIO(log_text.encode()), filename=f"turn-{turn}-log.txt")
            )
        await interaction.followup.send(embed=embed, files=files, ephemeral=True)

    @app_commands.command(name="history", description="The resolved turns of a match")
    async def history(self, interaction: discord.Interaction, match: int | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await find_match(self.runtime, interaction, match)
        turns = await self.runtime.matches.turns(found.id)
        causes = {"confirmed": "both confirmed", "deadline": "at the deadline"}
        lines = [
            f"Turn {record.turn} · {causes.get(record.cause, record.cause)} · "
            f"<t:{record.resolved_at // 1000}:f>"
            + (
                f" · no orders from {', '.join(side_name(s) for s in record.no_shows)}"
                if record.no_shows
                else ""
            )
            for record in turns
        ] or ["No turn has been resolved yet."]
        if turns:
            lines.append("`/match board turn:N` shows the board and the log of turn N.")
        await send_embeds(interaction, paged_embeds(f"Match #{found.id} · turns", lines))

    @app_commands.command(name="concede", description="Give up a match")
    async def concede(self, interaction: discord.Interaction, match: int | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await find_match(self.runtime, interaction, match)
        await self.runtime.matches.concede(found.id, str(interaction.user.id))
        await interaction.followup.send(f"You conceded match #{found.id}.", ephemeral=True)

    @app_commands.command(name="draw", description="Offer a draw, or accept your opponent's offer")
    async def draw(self, interaction: discord.Interaction, match: int | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await find_match(self.runtime, interaction, match)
        updated = await self.runtime.matches.offer_draw(found.id, str(interaction.user.id))
        text = "The draw is agreed." if updated.status == "ended" else "Your draw offer is posted."
        await interaction.followup.send(text, ephemeral=True)

    @app_commands.command(name="pause", description="Ask to pause a match (both players must ask)")
    async def pause(self, interaction: discord.Interaction, match: int | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await find_match(self.runtime, interaction, match)
        updated = await self.runtime.matches.pause(found.id, str(interaction.user.id))
        text = "The match is paused." if updated.status == "paused" else "Your request is posted."
        await interaction.followup.send(text, ephemeral=True)

    @app_commands.command(name="resume", description="Ask to resume a paused match")
    async def resume(self, interaction: discord.Interaction, match: int | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await find_match(self.runtime, interaction, match)
        updated = await self.runtime.matches.resume(found.id, str(interaction.user.id))
        text = "The match resumes." if updated.status == "active" else "Your request is posted."
        await interaction.followup.send(text, ephemeral=True)

    @app_commands.command(name="cancel", description="Withdraw a match that has not begun")
    async def cancel(self, interaction: discord.Interaction, match: int | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await find_match(self.runtime, interaction, match)
        await self.runtime.matches.cancel_match(found.id, str(interaction.user.id))
        await interaction.followup.send(f"Match #{found.id} is cancelled.", ephemeral=True)

    @app_commands.command(name="export", description="Download a finished match to replay it")
    async def export(self, interaction: discord.Interaction, match: int | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await find_match(self.runtime, interaction, match)
        data = await self.runtime.matches.export_match(found.id)
        await interaction.followup.send(
            file=discord.File(io.BytesIO(data), filename=f"match-{found.id}.json"), ephemeral=True
        )

    @create.autocomplete("timezone")
    async def _timezone_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=n, value=n) for n in zone_names(current)]

    @create.autocomplete("deck")
    @join_.autocomplete("deck")
    @deck_.autocomplete("deck")
    async def _deck_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await deck_choices(self.runtime, str(interaction.user.id), current)

    @join_.autocomplete("match")
    async def _open_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        found = await self.runtime.matches.list_matches(
            guild_id=str(interaction.guild_id) if interaction.guild_id else None,
            statuses=("open",),
            limit=25,
        )
        player = str(interaction.user.id)
        return [
            app_commands.Choice(
                name=clip(
                    f"#{m.id} by {display_name(interaction, self.runtime, m.created_by)}", 100
                ),
                value=m.id,
            )
            for m in found
            if current.strip("#") in str(m.id)
            and (m.seats[1].player_id in (None, player))
            and seat_of(m, player) is None
        ]

    @deck_.autocomplete("match")
    @info.autocomplete("match")
    @board.autocomplete("match")
    @concede.autocomplete("match")
    @draw.autocomplete("match")
    @pause.autocomplete("match")
    @resume.autocomplete("match")
    @cancel.autocomplete("match")
    @export.autocomplete("match")
    @history.autocomplete("match")
    async def _match_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        statuses = ("open", "active", "paused", "ended")
        return await match_choices(self.runtime, interaction, current, statuses)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(MatchCog(bot))
