"""Decks (rule G3 and house affordability), the text format, and the deck service on both
databases."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.content import load_content
from engine.setup import default_deck
from service.clock import ManualClock
from service.decks import DeckService, check_deck, deck_text, parse_deck_text
from service.errors import InvalidDeckError, NotFoundError, WrongStateError
from storage import Store

CONTENT = load_content()


def own_house_spells(house: str) -> list[str]:
    return sorted(
        s.id
        for s in CONTENT.spells.values()
        if s.house == house and s.spell_class in ("standard", "learned") and not s.helper
    )


def test_g3_the_default_decks_are_valid_and_hold_every_deck_spell_of_their_house() -> None:
    for house in CONTENT.houses:
        deck = default_deck(house, CONTENT)
        checked = check_deck(house, deck, CONTENT)
        assert checked.ok, (house, checked.problems)
        own = {s.id for s in CONTENT.spells.values() if s.house == house and s.deckable}
        assert own <= set(deck), (house, own - set(deck))
        assert len(deck) >= 30


def test_g3_a_deck_needs_thirty_spells_and_at_most_four_copies() -> None:
    deck = default_deck("war", CONTENT)
    small = check_deck("war", deck[:29], CONTENT)
    assert [p.code for p in small.problems] == ["too_small"]
    stacked = check_deck("war", deck[:25] + ["fireball"] * 5, CONTENT)
    assert "too_many_copies" in [p.code for p in stacked.problems]
    assert any("Fireball" in p.message for p in stacked.problems)


def test_n3_n5_hereditary_attribute_and_bound_spells_stay_out_of_decks() -> None:
    deck = default_deck("abomination", CONTENT)
    for spell_id in ("dark_minion", "tithe_of_blood", "dragon_breath"):
        checked = check_deck("abomination", [*deck, spell_id], CONTENT)
        assert [p.code for p in checked.problems] == ["not_deckable"], spell_id


def test_unknown_spells_and_houses_are_named() -> None:
    deck = default_deck("war", CONTENT)
    assert [p.code for p in check_deck("war", [*deck, "nope"], CONTENT).problems] == [
        "unknown_spell"
    ]
    assert [p.code for p in check_deck("chaos", deck, CONTENT).problems] == ["unknown_house"]


def test_spells_needing_mana_the_sanctum_does_not_make_are_flagged() -> None:
    war = own_house_spells("war")
    pure = check_deck("war", (war * 8)[:32], CONTENT)
    assert pure.ok and pure.warnings == () and pure.extra_mana_types == ()
    life = own_house_spells("life")
    # War makes strife and clarity; Life spells cost clarity and world.
    mixed = check_deck("war", (war * 8)[:28] + life[:1] * 2, CONTENT)
    world_costed = CONTENT.spells[life[0]].cost.secondary > 0
    assert mixed.ok
    assert mixed.extra_mana_types == (("world",) if world_costed else ())
    assert bool(mixed.warnings) == world_costed


def test_deck_text_reads_counts_names_and_houses() -> None:
    text = """
    # my deck
    House: War
    4 Fireball
    Volcano x3
    2x mountain_climb
    fingle's folly
    """
    parsed = parse_deck_text(text, CONTENT)
    assert parsed.problems == ()
    assert parsed.house == "war"
    assert Counter(parsed.spells) == {
        "fireball": 4,
        "volcano": 3,
        "mountain_climb": 2,
        "fingles_folly": 1,
    }


def test_deck_text_suggests_a_spell_for_a_typo() -> None:
    parsed = parse_deck_text("4 Firebal\n", CONTENT)
    [problem] = parsed.problems
    assert problem.line == 1 and "did you mean Fireball?" in problem.message


async def test_decks_are_saved_listed_replaced_and_deleted(
    store: Store, clock: ManualClock
) -> None:
    decks = DeckService(store, clock)
    war = await decks.create_deck("alice", "Burn", "war", default_deck("war", CONTENT))
    text = deck_text(war, CONTENT)
    copy = await decks.import_deck("alice", "Burn copy", text)
    assert Counter(copy.spells) == Counter(war.spells) and copy.house == "war"
    with pytest.raises(WrongStateError):
        await decks.create_deck("alice", "Burn", "war", default_deck("war", CONTENT))
    replaced = await decks.create_deck(
        "alice", "Burn", "life", default_deck("life", CONTENT), replace=True
    )
    assert replaced.id == war.id and replaced.house == "life"
    assert [d.name for d in await decks.list_decks("alice")] == ["Burn", "Burn copy"]
    with pytest.raises(NotFoundError):
        await decks.get_deck("bob", war.id)
    with pytest.raises(NotFoundError):
        await decks.delete_deck("bob", war.id)
    await decks.delete_deck("alice", war.id)
    assert [d.name for d in await decks.list_decks("alice")] == ["Burn copy"]


async def test_invalid_decks_are_refused_with_every_problem(
    store: Store, clock: ManualClock
) -> None:
    decks = DeckService(store, clock)
    with pytest.raises(InvalidDeckError) as refused:
        await decks.create_deck("alice", "Bad", "war", ["fireball"] * 6 + ["nope"])
    assert {p.code for p in refused.value.problems} == {
        "too_small",
        "too_many_copies",
        "unknown_spell",
    }
    with pytest.raises(InvalidDeckError) as typo:
        await decks.import_deck("alice", "Typo", "house: war\n30 Firebal\n")
    assert "did you mean Fireball?" in str(typo.value)
    with pytest.raises(InvalidDeckError):
        await decks.import_deck("alice", "No house", "4 Fireball\n")
    assert await decks.list_decks("alice") == []
