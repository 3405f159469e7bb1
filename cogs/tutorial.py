"""/tutorial: a newcomer's first match against the computer, with a lesson by DM each turn.

The match is an ordinary one against the computer (the same service calls as `/match create
computer:`), in its own thread and never announced in the channel. Each turn's lesson follows
that turn's order sheet, so a lesson moves on when the player confirms (or the deadline
passes): turn 1 teaches the Sanctum, moving and confirming, turn 2 casting, turn 3 training,
turn 4 initiative, combat and capture. Which match teaches whom, and the last lesson sent,
are in the database (`service.tutorials`): a restarted bot goes on with the next lesson, and
sends none twice.
"""

from __future__ import annotations

import contextlib
import logging

import discord
from discord import app_commands
from discord.ext import commands

from cogs.deck import resolve_deck
from cogs.errors import RefusalError
from cogs.match import THREAD_MINUTES, discard_thread, start_if_ready
from cogs.runtime import Runtime, runtime_of, side_name, timestamp
from cogs.split import clip
from engine.state import Side
from service import MatchRecord
from service.matches import COMPUTER_PREFIX, MatchEnded
from service.tutorials import Tutorials

log = logging.getLogger(__name__)

# The computer levels a newcomer meets: one that plays at random and one that takes what it can.
LEVELS: tuple[str, ...] = ("random", "greedy")
DECK = "starter:war"
# A lesson needs time to read: a day per turn, and a tutorial is never forfeited by absence.
TURN_HOURS = 24.0


def lessons(sanctum: str, deadline: str) -> dict[int, tuple[str, str]]:
    """Each turn's lesson (title, text), given the player's Sanctum square and the deadline."""
    confirm = (
        f"When you are done, press **Confirm** (or type `confirm`). The turn ends {deadline} "
        "or as soon as you confirm, since the computer confirms at once."
    )
    return {
        1: (
            "Your Sanctum, and your first move",
            f"Your **Sanctum** is on **{sanctum}**: your wizard's tower. Lose it and you lose the "
            "match; take the enemy's and you win. Your order sheet, sent only to you, shows "
            "the board as your side sees it.\n\n"
            "**Move:** pick a group in the sheet's Move menu and a direction, or type a line "
            "here, such as `move g1 north` (north is up on every board). A group moves one "
            f"square a turn.\n\n{confirm}",
        ),
        2: (
            "Casting a spell",
            "Your hand is the row of cards on the sheet. A card's cost is paid from your mana "
            "pool, shown in the header.\n\n**Cast:** choose a card in the Cast menu and its "
            "target, or type `cast <spell> on <square>`, such as `cast Fireball on E5`. A spell "
            "that needs no target is just `cast <spell>`. `/spell info` shows any card in "
            f"full.\n\n{confirm}",
        ),
        3: (
            "Training novices",
            "Towns you hold and your Sanctum gather **novices**. Train them into swordsmen, "
            "archers or mana: the Train menu, or type `train swordsman at sanctum`. Capture "
            "towns (move a group onto them) for more mana and novices.\n\n"
            f"Type `orders` to see what you have given so far, `clear` to start over.\n\n{confirm}",
        ),
        4: (
            "Initiative, combat and capture",
            "The side with the **initiative** (shown in each turn's post) moves and strikes "
            "first. Groups that end next to an enemy fight; the turn's post in the thread tells "
            "each fight in a line, with the full log attached.\n\n"
            "That is all you need: march on the enemy Sanctum and capture it. `/rules` explains "
            f"more, `/match concede` ends this practice match.\n\n{confirm}",
        ),
    }


class TutorialCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def runtime(self) -> Runtime:
        return runtime_of(self.bot)

    @property
    def tutorials(self) -> Tutorials:
        return Tutorials(self.runtime.matches.store)

    async def cog_load(self) -> None:
        self.runtime.sheet_listeners.append(self._after_sheet)
        self.runtime.matches.add_end_listener(self._ended)

    async def cog_unload(self) -> None:
        self.runtime.sheet_listeners.remove(self._after_sheet)
        self.runtime.matches.remove_end_listener(self._ended)

    @app_commands.command(
        name="tutorial", description="Learn the game: a guided practice match against the computer"
    )
    @app_commands.guild_only()
    @app_commands.describe(level="How the computer plays (random is the gentlest)")
    @app_commands.choices(level=[app_commands.Choice(name=level, value=level) for level in LEVELS])
    async def tutorial(self, interaction: discord.Interaction, level: str = "random") -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        runtime = self.runtime
        player = str(interaction.user.id)
        runtime.names[player] = interaction.user.display_name
        for running_tutorial in await self.tutorials.of_player(player):
            running = await runtime.matches.get_match(running_tutorial.match_id)
            if running.status in ("active", "paused"):
                raise RefusalError(
                    f"Your tutorial (match #{running.id}) is still going in "
                    f"<#{running.channel_id}>; finish it there, or end it with "
                    f"`/match concede match:{running.id}` and start again."
                )
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            channel = channel.parent
        if not isinstance(channel, discord.TextChannel):
            raise RefusalError(
                "Start the tutorial in a text channel, where a thread can be opened."
            )
        deck_id = await resolve_deck(runtime, player, DECK)
        title = f"{interaction.user.display_name} vs the computer ({level})"
        try:
            thread = await channel.create_thread(
                name=clip(f"Tutorial: {title}", 100),
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_MINUTES,
            )
        except discord.Forbidden:
            raise RefusalError(
                f"I may not open a thread in {channel.mention}: a moderator can give me View "
                "Channels and Create Public Threads there, or try another channel."
            ) from None
        try:
            match = await runtime.matches.create_match(
                player,
                deck_id=deck_id,
                opponent_id=f"{COMPUTER_PREFIX}{level}",
                turn_seconds=round(TURN_HOURS * 3600),
                no_show_limit=0,
                guild_id=str(interaction.guild_id),
                channel_id=str(thread.id),
            )
        except Exception:
            await discard_thread(thread)
            raise
        await thread.edit(name=clip(f"Tutorial #{match.id}: {title}", 100))
        with contextlib.suppress(discord.Forbidden):
            await thread.add_user(interaction.user)
        # Known before the match starts: its first sheet, and so its first lesson, may follow
        # at once.
        await self.tutorials.start(match.id, player)
        await start_if_ready(runtime, match, player)
        await interaction.followup.send(
            f"Your practice match #{match.id} has begun in {thread.mention}. Your order sheet "
            "and the first lesson come by DM; each turn brings the next lesson.",
            ephemeral=True,
        )

    async def _after_sheet(
        self, channel: discord.abc.Messageable, match: MatchRecord, player_id: str
    ) -> None:
        """The lesson of the turn, right after the turn's sheet (in the DM, or in the thread
        when the player's DMs are closed)."""
        tutorial = await self.tutorials.get(match.id)
        if tutorial is None or tutorial.player_id != player_id:
            return
        _, view = await self.runtime.view(match.id, player_id)
        side = next(s.side for s in match.seats if s.player_id == player_id)
        own = Side(str(side))
        sanctum = next(
            (s.coord.name for s in view.structures if s.kind == "sanctum" and s.owner == own),
            "?",
        )
        lesson = lessons(sanctum, timestamp(match.deadline_at)).get(match.turn)
        # Recorded before it is sent: a sheet delivered again (after a restart, or answered from
        # its nonce) does not bring its lesson twice.
        if lesson is None or not await self.tutorials.taught(match.id, match.turn):
            return
        title, text = lesson
        embed = discord.Embed(
            title=f"Tutorial · step {match.turn} of {len(lessons('', ''))}: {title}",
            description=text,
        )
        embed.set_footer(text=f"Practice match #{match.id} · you play {side_name(own)}")
        await channel.send(embed=embed)

    async def _ended(self, ended: MatchEnded) -> None:
        tutorial = await self.tutorials.end(ended.match_id)
        if tutorial is None:
            return
        player = tutorial.player_id
        won = ended.winner_id == player
        text = (
            "You captured the enemy Sanctum and won your first match!"
            if won and ended.reason == "sanctum"
            else "You won your first match!"
            if won
            else "The practice match is over."
        )
        text += (
            " When you are ready: `/match create opponent:@friend` challenges a person, "
            "`/match create computer:greedy` a stronger computer, and `/rules` has the details."
        )
        try:
            user = self.bot.get_user(int(player)) or await self.bot.fetch_user(int(player))
            await user.send(embed=discord.Embed(title="Tutorial complete", description=text))
        except discord.HTTPException as error:
            log.info("tutorial %s: the closing DM failed: %s", ended.match_id, error)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(TutorialCog(bot))
