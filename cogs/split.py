"""Discord's size limits, and splitting long content so that nothing is ever refused for size.

Every function here is pure: it takes text or embeds and returns pieces that each fit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

import discord

MESSAGE_LIMIT = 2000
EMBED_TITLE_LIMIT = 256
EMBED_DESCRIPTION_LIMIT = 4096
EMBED_FIELD_NAME_LIMIT = 256
EMBED_FIELD_VALUE_LIMIT = 1024
EMBED_FIELDS_LIMIT = 25
EMBED_TOTAL_LIMIT = 6000
EMBEDS_PER_MESSAGE = 10
SELECT_OPTIONS_LIMIT = 25
SELECT_TEXT_LIMIT = 100

T = TypeVar("T")

_FENCE = "```"


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, marking the cut with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _hard_pieces(line: str, limit: int) -> list[str]:
    """A single line longer than ``limit``, cut at spaces where possible."""
    pieces: list[str] = []
    while len(line) > limit:
        cut = line.rfind(" ", 0, limit + 1)
        if cut <= 0:
            cut = limit
        pieces.append(line[:cut])
        line = line[cut:].lstrip(" ")
    pieces.append(line)
    return pieces


def split_text(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at line ends when possible.

    Joining the pieces with newlines gives back the text, except for spaces lost at forced cuts.
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    if len(text) <= limit:
        return [text] if text else []
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        for part in _hard_pieces(line, limit):
            candidate = part if not current else f"{current}\n{part}"
            if len(candidate) <= limit:
                current = candidate
            else:
                pieces.append(current)
                current = part
    if current:
        pieces.append(current)
    return pieces


def split_code_block(text: str, limit: int = MESSAGE_LIMIT, language: str = "") -> list[str]:
    """``text`` as fenced code blocks, each block (fences included) within ``limit``."""
    overhead = len(_FENCE) * 2 + len(language) + 2
    inner = split_text(text.replace(_FENCE, "ʼʼʼ"), limit - overhead)
    return [f"{_FENCE}{language}\n{piece}\n{_FENCE}" for piece in inner]


def chunked(items: Sequence[T], size: int) -> list[Sequence[T]]:
    """``items`` in consecutive slices of at most ``size`` (select menus: 25 options)."""
    if size < 1:
        raise ValueError("size must be positive")
    return [items[i : i + size] for i in range(0, len(items), size)]


def embed_length(embed: discord.Embed) -> int:
    """The characters Discord counts towards the 6,000 per message."""
    return len(embed)


def paged_embeds(
    title: str,
    lines: Iterable[str],
    *,
    colour: discord.Colour | None = None,
    limit: int = EMBED_DESCRIPTION_LIMIT,
) -> list[discord.Embed]:
    """Embeds holding ``lines`` in order, titled "title (2/3)" when there are several."""
    pages = split_text("\n".join(lines), min(limit, EMBED_DESCRIPTION_LIMIT)) or [""]
    short_title = clip(title, EMBED_TITLE_LIMIT - 8)
    embeds = []
    for number, page in enumerate(pages, start=1):
        page_title = short_title if len(pages) == 1 else f"{short_title} ({number}/{len(pages)})"
        embeds.append(discord.Embed(title=page_title, description=page, colour=colour))
    return embeds


def add_field_safely(embed: discord.Embed, name: str, value: str, *, inline: bool = False) -> bool:
    """Add a field clipped to the field limits; False (and nothing added) when the embed is full."""
    name = clip(name or "\u200b", EMBED_FIELD_NAME_LIMIT)
    value = clip(value or "\u200b", EMBED_FIELD_VALUE_LIMIT)
    if len(embed.fields) >= EMBED_FIELDS_LIMIT or len(embed) + len(name) + len(value) > (
        EMBED_TOTAL_LIMIT
    ):
        return False
    embed.add_field(name=name, value=value, inline=inline)
    return True


async def send_embeds(
    interaction: discord.Interaction, embeds: Sequence[discord.Embed], *, ephemeral: bool = True
) -> None:
    """Follow-ups carrying ``embeds`` in order, in as few messages as Discord's limits allow
    (ten embeds and 6,000 characters a message)."""
    for group in group_embeds(embeds):
        await interaction.followup.send(embeds=group, ephemeral=ephemeral)


def group_embeds(embeds: Sequence[discord.Embed]) -> list[list[discord.Embed]]:
    """``embeds`` grouped into messages: at most 10 each and 6,000 characters in total."""
    messages: list[list[discord.Embed]] = []
    current: list[discord.Embed] = []
    size = 0
    for embed in embeds:
        length = embed_length(embed)
        if length > EMBED_TOTAL_LIMIT:
            raise ValueError(f"an embed of {length} characters can never be sent")
        if current and (len(current) == EMBEDS_PER_MESSAGE or size + length > EMBED_TOTAL_LIMIT):
            messages.append(current)
            current, size = [], 0
        current.append(embed)
        size += length
    if current:
        messages.append(current)
    return messages
