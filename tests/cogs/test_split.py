"""Splitting long content within Discord's limits: nothing is refused for size, nothing lost."""

from __future__ import annotations

import discord
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogs.split import (
    EMBED_FIELDS_LIMIT,
    EMBED_TOTAL_LIMIT,
    MESSAGE_LIMIT,
    add_field_safely,
    chunked,
    clip,
    group_embeds,
    paged_embeds,
    split_code_block,
    split_text,
)

LINES = st.lists(st.text(alphabet="ab cd\u00e9", min_size=0, max_size=300), max_size=40)


@given(LINES, st.integers(min_value=20, max_value=2000))
def test_pieces_fit_and_keep_every_character(lines: list[str], limit: int) -> None:
    text = "\n".join(lines)
    pieces = split_text(text, limit)
    assert all(0 < len(p) <= limit for p in pieces) or not text.strip()
    # Only the whitespace at a cut may go.
    assert "".join("".join(pieces).split()) == "".join(text.split())


def test_short_text_is_one_piece_and_empty_text_none() -> None:
    assert split_text("hello") == ["hello"]
    assert split_text("") == []


def test_cuts_prefer_line_ends() -> None:
    text = "\n".join(["x" * 1500, "y" * 1500])
    assert split_text(text, MESSAGE_LIMIT) == ["x" * 1500, "y" * 1500]


def test_code_blocks_are_fenced_within_the_limit() -> None:
    blocks = split_code_block("\n".join(f"line {i}" for i in range(600)), 500, "text")
    assert len(blocks) > 1
    assert all(len(b) <= 500 and b.startswith("```text\n") and b.endswith("\n```") for b in blocks)


def test_paged_embeds_number_their_pages() -> None:
    embeds = paged_embeds("Log", [f"event {i} " + "z" * 80 for i in range(200)])
    assert len(embeds) > 1
    assert embeds[0].title == f"Log (1/{len(embeds)})"
    assert all(len(e.description or "") <= 4096 for e in embeds)


def test_grouped_embeds_respect_the_message_total() -> None:
    embeds = [discord.Embed(description="d" * 2500) for _ in range(7)]
    messages = group_embeds(embeds)
    assert [len(m) for m in messages] == [2, 2, 2, 1]
    assert all(sum(len(e) for e in m) <= EMBED_TOTAL_LIMIT for m in messages)
    with pytest.raises(ValueError, match="can never be sent"):
        group_embeds(
            [
                discord.Embed(description="d" * 4096, title="t" * 256)
                .add_field(name="n", value="v" * 1024)
                .add_field(name="m", value="w" * 1024)
            ]
        )


def test_fields_are_clipped_and_refused_when_the_embed_is_full() -> None:
    embed = discord.Embed()
    assert add_field_safely(embed, "name", "v" * 5000)
    assert len(embed.fields[0].value or "") == 1024
    for _ in range(EMBED_FIELDS_LIMIT - 1):
        add_field_safely(embed, "n", "v")
    assert not add_field_safely(embed, "one too many", "v")


def test_chunks_and_clip() -> None:
    assert [list(c) for c in chunked(list(range(60)), 25)] == [
        list(range(25)),
        list(range(25, 50)),
        list(range(50, 60)),
    ]
    assert clip("abcdef", 4) == "abc…"
    assert clip("abc", 4) == "abc"
