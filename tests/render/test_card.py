"""Spell cards for every shipped spell, and the words they show."""

from __future__ import annotations

from dataclasses import replace
from io import BytesIO

from PIL import Image

from engine.content import load_content
from engine.spells.schema import Cost, SpellDef, TargetSpec
from render import render_card
from render.card import CARD_HEIGHT, CARD_WIDTH, card_image, duration_text, flag_words
from render.theme import mana_colour


def spell(**changes: object) -> SpellDef:
    base = SpellDef(
        id="test_spell",
        name="Test Spell",
        house="death",
        cost=Cost(3, 1),
        type="alteration",
        target=TargetSpec("group", allegiance="hex"),
        rules="Does a thing.",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_every_shipped_spell_has_a_card() -> None:
    spells = load_content().spells
    assert spells
    for definition in spells.values():
        assert card_image(definition).size == (CARD_WIDTH, CARD_HEIGHT), definition.id
    png = render_card(next(iter(spells.values())))
    assert Image.open(BytesIO(png)).size == (CARD_WIDTH, CARD_HEIGHT)


def test_the_card_wears_its_house_colours() -> None:
    image = card_image(spell(house="nature")).convert("RGB")
    # nature: world (primary) then order (secondary)
    assert image.getpixel((CARD_WIDTH // 2, 5)) == mana_colour("world")
    assert image.getpixel((CARD_WIDTH // 2, 30)) == mana_colour("world")
    assert image.getpixel((CARD_WIDTH // 2, 66)) == mana_colour("order")


def test_long_rules_text_shrinks_to_fit_the_card() -> None:
    long_text = " ".join(["Every minion of the target group takes one damage."] * 20)
    short = card_image(spell())
    long = card_image(spell(rules=long_text))
    assert short.size == long.size
    bottom_band = (20, CARD_HEIGHT - 40, CARD_WIDTH - 20, CARD_HEIGHT - 30)
    assert long.crop(bottom_band).tobytes() == short.crop(bottom_band).tobytes()


def test_durations_and_flags_in_words() -> None:
    assert duration_text(spell(duration="turns", turns=3)) == "3 turns"
    assert duration_text(spell(duration="turns", turns=1)) == "1 turn"
    assert duration_text(spell(duration="one_turn")) == "one turn"
    assert duration_text(spell(duration="permanent", expires_on="end_of_turn")) == (
        "permanent, ends end of turn"
    )
    assert flag_words(spell()) == []
    words = flag_words(
        spell(
            boosted_cost=Cost(5, 1),
            cumulative=True,
            once_per_game=True,
            dispellable=False,
            power=(4, 8),
        )
    )
    assert words == [
        "boosted 5+1",
        "power 4/8",
        "cumulative",
        "once per game",
        "cannot be dispelled",
    ]
