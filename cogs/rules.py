"""/rules: the rules in short, by topic, and the order notation."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from engine.notation import HELP_TEXT

TOPICS: dict[str, tuple[str, str]] = {
    "overview": (
        "The game",
        "Two wizards, Red and Blue, each with a Sanctum, a group of recruits and a deck of spells, "
        "give hidden orders at the same time each turn. Capture the enemy Sanctum with a recruit "
        "group to win. Towns you capture give mana and novices; novices train into swordsmen, "
        "archers or mana. Red starts with the initiative (it moves and strikes first); Blue "
        "starts with one more novice in its Sanctum to make up for it. New to the game? "
        "`/tutorial` plays a guided practice match.",
    ),
    "turn": (
        "A turn",
        "Start of turn: levels, start-of-turn effects, terrain, draw to 5 cards (an empty deck "
        "takes your shuffled discard pile), captures, "
        "novices, initiative, mana, and the Sanctum check. Then both players give orders until "
        "they confirm or the deadline passes. Then spells execute (by speed, the initiative side "
        "first within a speed), groups move (initiative side first), and adjacent enemies fight.",
    ),
    "orders": (
        "Orders",
        "Cast as many spells as your pool pays for, move each group one square (north, south, "
        "east or west), train novices in your structures, and discard at most one spell. Orders "
        "can change until you confirm; a confirmed player may unconfirm before the deadline. "
        "Orders given but not confirmed still count at the deadline.\n\n"
        f"```\n{HELP_TEXT}\n```",
    ),
    "spells": (
        "Spells",
        "Every spell has a house, a cost (primary+secondary mana), a type (manifestation, "
        "summoning, hero, conjuration, alteration), a target type and a speed. A spell must still "
        "be legal when it executes or it squanders (its mana is spent for nothing); one whose "
        "mana was drained by an earlier spell fizzles (nothing paid). `/spell info` shows a card.",
    ),
    "combat": (
        "Combat",
        "Enemy groups on orthogonally adjacent squares fight after movement, for up to 6 rounds. "
        "Round 1 is missiles only; the initiative side strikes first each round; armor soaks "
        "damage; a fight ends when a side has no one left, when no one left can strike, or "
        "when a round from round 2 on has no miss and takes no hit point (all soaked).",
    ),
    "deadlines": (
        "Deadlines",
        "Each turn has a deadline, shown in your own time. Reminders go to players who have not "
        "confirmed. A side with no orders at the deadline does nothing that turn; by default "
        "three such turns in a row forfeit the match. Both players (or a moderator) may pause. "
        "A match created with `clock` and `days` moves each deadline on to that time of day "
        "on the next allowed weekday (`/match info` shows them).",
    ),
}


class RulesCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="rules", description="The rules in short")
    @app_commands.describe(topic="What to read about")
    @app_commands.choices(
        topic=[app_commands.Choice(name=title, value=key) for key, (title, _) in TOPICS.items()]
    )
    async def rules(self, interaction: discord.Interaction, topic: str = "overview") -> None:
        title, text = TOPICS[topic]
        embed = discord.Embed(title=title, description=text)
        embed.set_footer(text="Other topics: " + ", ".join(t for t in TOPICS if t != topic))
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(RulesCog(bot))
