"""/deck: list, show, import, starter decks and deletion; deck autocomplete for other commands."""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from cogs.errors import RefusalError
from cogs.runtime import Runtime, runtime_of
from cogs.split import clip, paged_embeds, send_embeds
from engine.content import Content
from engine.setup import MAX_COPIES, MIN_DECK
from service.decks import deck_text
from service.errors import quoted
from service.numbers import plain_number

STARTER_PREFIX = "starter:"
# Every mana type beyond the Sanctum's two must come from a captured town; a first deck needing
# more than two such types would leave most of its hand uncastable.
STARTER_EXTRA_TYPES = 2


def starter_spells(house: str, content: Content) -> list[str]:
    """A playable first deck for ``house``: its own spells first, then the cheapest others that
    keep the deck within its Sanctum's two mana types plus two from towns."""
    if house not in content.houses:
        raise RefusalError(f"There is no house {house!r}.")
    own = {content.houses[house].primary, content.houses[house].secondary}

    def needs(spell_house: str, primary: int, secondary: int) -> set[str]:
        h = content.houses[spell_house]
        return {t for t, n in ((h.primary, primary), (h.secondary, secondary)) if n}

    deckable = [s for s in content.spells.values() if s.deckable]
    deckable.sort(
        key=lambda s: (
            s.house != house,
            len(needs(s.house, s.cost.primary, s.cost.secondary) - own),
            s.cost.total,
            s.id,
        )
    )
    spells: list[str] = []
    extra: set[str] = set()
    for spell in deckable:
        more = needs(spell.house, spell.cost.primary, spell.cost.secondary) - own
        if len(extra | more) > STARTER_EXTRA_TYPES:
            continue
        extra |= more
        spells += [spell.id] * min(MAX_COPIES, MIN_DECK - len(spells))
        if len(spells) >= MIN_DECK:
            break
    return spells


def starter_name(house: str, content: Content) -> str:
    return f"Starter {content.houses[house].name}"


async def ensure_starter(runtime: Runtime, player_id: str, house: str) -> int:
    """The id of the player's starter deck of ``house``, made on first use."""
    if house not in runtime.content.houses:
        houses = ", ".join(f"`{STARTER_PREFIX}{h}`" for h in sorted(runtime.content.houses))
        raise RefusalError(f"There is no starter deck {house!r}; choose one of {houses}.")
    name = starter_name(house, runtime.content)
    for deck in await runtime.decks.list_decks(player_id):
        if deck.name == name:
            return deck.id
    deck = await runtime.decks.create_deck(
        player_id, name, house, starter_spells(house, runtime.content)
    )
    return deck.id


async def resolve_deck(runtime: Runtime, player_id: str, value: str | None) -> int | None:
    """A deck option's value ("12" or "starter:war") as a deck id; None when not given."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.lower().startswith(STARTER_PREFIX):
        return await ensure_starter(runtime, player_id, value[len(STARTER_PREFIX) :].lower())
    number = plain_number(value.lstrip("#"))
    if number is not None:
        if not any(d.id == number for d in await runtime.decks.list_decks(player_id)):
            raise RefusalError(
                f"You have no deck #{number}: `/deck list` shows yours, or choose a "
                "ready-made `starter:` deck."
            )
        return number
    for deck in await runtime.decks.list_decks(player_id):
        if deck.name.lower() == value.lower():
            return deck.id
    raise RefusalError(f"You have no deck named {quoted(value)}; see /deck list.")


async def deck_choices(
    runtime: Runtime, player_id: str, current: str
) -> list[app_commands.Choice[str]]:
    """The player's decks, then a starter deck of every house."""
    typed = current.lower()
    choices = [
        app_commands.Choice(name=clip(f"#{d.id} {d.name} ({d.house})", 100), value=str(d.id))
        for d in await runtime.decks.list_decks(player_id)
        if typed in d.name.lower() or typed in str(d.id)
    ]
    for house in sorted(runtime.content.houses):
        label = f"{starter_name(house, runtime.content)} (ready-made)"
        if typed in label.lower():
            choices.append(app_commands.Choice(name=label, value=f"{STARTER_PREFIX}{house}"))
    return choices[:25]


def house_choices() -> list[app_commands.Choice[str]]:
    from engine.spells.vocab import HOUSES

    return [app_commands.Choice(name=h.title(), value=h) for h in sorted(HOUSES)]


class DeckCog(commands.GroupCog, group_name="deck", group_description="Your spell decks"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def runtime(self) -> Runtime:
        return runtime_of(self.bot)

    @app_commands.command(name="list", description="List your decks")
    async def list_(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        decks = await self.runtime.decks.list_decks(str(interaction.user.id))
        lines = [f"#{d.id} **{d.name}** · {d.house} · {len(d.spells)} spells" for d in decks]
        if not lines:
            lines = [
                "You have no decks yet: `/deck starter` makes one, `/deck import` reads a list."
            ]
        await send_embeds(interaction, paged_embeds("Your decks", lines))

    @app_commands.command(name="show", description="Show a deck as a list you can import again")
    @app_commands.describe(deck="Which deck")
    async def show(self, interaction: discord.Interaction, deck: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        runtime = self.runtime
        deck_id = await resolve_deck(runtime, str(interaction.user.id), deck)
        assert deck_id is not None
        record = await runtime.decks.get_deck(str(interaction.user.id), deck_id)
        text = deck_text(record, runtime.content)
        await send_embeds(
            interaction, paged_embeds(f"Deck #{record.id} {record.name}", [f"```\n{text}```"])
        )

    @app_commands.command(name="starter", description="Make a ready-made deck of one house")
    @app_commands.describe(house="The deck's house (its Sanctum's mana and its recruits)")
    @app_commands.choices(house=house_choices())
    async def starter(self, interaction: discord.Interaction, house: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        deck_id = await ensure_starter(self.runtime, str(interaction.user.id), house)
        await interaction.followup.send(
            f"Your deck #{deck_id} **{starter_name(house, self.runtime.content)}** is ready.",
            ephemeral=True,
        )

    @app_commands.command(name="import", description="Save a deck from a list of spells")
    @app_commands.describe(
        name="A name for the deck",
        spells="One spell per line or comma-separated, with counts: 4 Fireball, Plague x2",
        house="The deck's house (or a line 'house: war' in the list)",
        file="A text file with the list, instead of typing it",
    )
    @app_commands.choices(house=house_choices())
    async def import_(
        self,
        interaction: discord.Interaction,
        name: str,
        spells: str | None = None,
        house: str | None = None,
        file: discord.Attachment | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = (spells or "").replace(",", "\n")
        if file is not None:
            if file.size > 64 * 1024:
                raise RefusalError("A deck list file must be smaller than 64 KB.")
            text += "\n" + (await file.read()).decode("utf-8", errors="replace")
        if not text.strip():
            raise RefusalError("Give the spells as text or as a file.")
        deck = await self.runtime.decks.import_deck(
            str(interaction.user.id), name, text, house=house
        )
        await interaction.followup.send(
            f"Saved deck #{deck.id} **{deck.name}** ({deck.house}, {len(deck.spells)} spells).",
            ephemeral=True,
        )

    @app_commands.command(name="export", description="Download a deck as a text file")
    async def export(self, interaction: discord.Interaction, deck: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        deck_id = await resolve_deck(self.runtime, str(interaction.user.id), deck)
        assert deck_id is not None
        record = await self.runtime.decks.get_deck(str(interaction.user.id), deck_id)
        data = deck_text(record, self.runtime.content).encode()
        await interaction.followup.send(
            file=discord.File(io.BytesIO(data), filename=f"deck-{record.id}.txt"), ephemeral=True
        )

    @app_commands.command(name="delete", description="Delete one of your decks")
    async def delete(self, interaction: discord.Interaction, deck: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        deck_id = await resolve_deck(self.runtime, str(interaction.user.id), deck)
        assert deck_id is not None
        await self.runtime.decks.delete_deck(str(interaction.user.id), deck_id)
        await interaction.followup.send(f"Deck #{deck_id} is deleted.", ephemeral=True)

    @show.autocomplete("deck")
    @export.autocomplete("deck")
    @delete.autocomplete("deck")
    async def _deck_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        runtime = self.runtime
        return [
            c
            for c in await deck_choices(runtime, str(interaction.user.id), current)
            if not str(c.value).startswith(STARTER_PREFIX)
        ]


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(DeckCog(bot))
