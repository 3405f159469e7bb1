"""Content data: every shipped file loads; a bad file names the file, the entry and the key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.content import DATA_DIR, Board, Content, ContentError, load_content


def test_shipped_content_loads(content: Content) -> None:
    assert {"swordsman", "archer"} <= set(content.units)
    assert len(content.houses) == 12
    assert len(content.nations) == 12
    assert {"veldt", "volgaria", "badlands", "great_frost", "arboria", "random"} <= set(
        content.realms
    )
    assert "classic" in content.boards


def test_G5_houses_use_two_non_opposed_mana_types(content: Content) -> None:
    pairs = {(h.primary, h.secondary) for h in content.houses.values()}
    assert len(pairs) == 12
    assert len({frozenset(p) for p in pairs}) == 12


@pytest.fixture
def data(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target, ignore=shutil.ignore_patterns("assets"))
    return target


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        (
            "units.toml",
            "hp = 7",
            'hp = "seven"',
            "units.toml: [swordsman] key 'hp': must be an integer",
        ),
        (
            "units.toml",
            "hand = 2",
            "hand = 2\nspeed = 3",
            "units.toml: [swordsman] key 'speed': unknown key",
        ),
        (
            "houses.toml",
            'secondary = "strife"',
            'secondary = "will"',
            "houses.toml: [abomination] key 'secondary'",
        ),
        (
            "houses.toml",
            'nation = "imp"',
            'nation = "orc"',
            "houses.toml: [abomination] key 'nation': no nation 'orc'",
        ),
        (
            "nations.toml",
            'walks = ["mountainwalk"]',
            'walks = ["skywalk"]',
            "nations.toml: [shadow] key 'walks'",
        ),
        ("realms.toml", "towns = [5, 5]", "towns = [5]", "realms.toml: [realm.veldt] key 'towns'"),
        (
            "realms.toml",
            "forest = 19.5, water",
            "lake = 19.5, water",
            "realms.toml: [realm.veldt] key 'weights': unknown terrain 'lake'",
        ),
        (
            "realms.toml",
            'needs = "waterwalk"',
            'needs = "gills"',
            "realms.toml: [terrain.water] key 'needs'",
        ),
        (
            "economy.toml",
            "guard = 21",
            "guard = -1",
            "economy.toml: [sanctum] key 'guard': must be at least 0",
        ),
        (
            "economy.toml",
            "reshuffle = true",
            'reshuffle = "yes"',
            "economy.toml: [deck] key 'reshuffle': must be true or false",
        ),
        (
            "economy.toml",
            'recruits = ["swordsman", "swordsman", "archer", "archer"]',
            'recruits = ["swordsman", "wolf"]',
            "economy.toml: [start] key 'recruits': 'wolf' is not a recruit unit",
        ),
        (
            "economy.toml",
            "blue_novices = 1",
            "blue_novices = -1",
            "economy.toml: [start] key 'blue_novices': must be at least 0",
        ),
        (
            "economy.toml",
            "[town]\nnovice_every = 2",
            "[town]\nnovice_every = 0",
            "economy.toml: [town] key 'novice_every': must be at least 1",
        ),
    ],
)
def test_bad_data_names_file_entry_and_key(
    data: Path, file: str, old: str, new: str, message: str
) -> None:
    path = data / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ContentError) as err:
        load_content(data)
    assert message in str(err.value)


def test_G5_economy_keeps_the_sourced_rates_and_amounts(content: Content) -> None:
    economy = content.economy
    assert economy.start_recruits == ("swordsman", "swordsman", "archer", "archer")  # G3
    assert dict(economy.novice_every) == {"sanctum": 4, "town": 2, "colony": 2}  # digest 9.1
    assert (economy.sanctum_primary, economy.sanctum_secondary) == (1, 1)  # G5
    assert dict(economy.structure_mana) == {"town": 1, "colony": 1}  # G5


def test_broken_toml_is_reported_with_its_file(data: Path) -> None:
    (data / "units.toml").write_text("[swordsman\n", encoding="utf-8")
    with pytest.raises(ContentError, match=r"units\.toml: not valid TOML"):
        load_content(data)


def test_board_masks_are_checked() -> None:
    with pytest.raises(ContentError, match="no blue Sanctum"):
        Board.parse("tiny", "R..\n...\n", "boards/tiny.txt")
    with pytest.raises(ContentError, match="same length"):
        Board.parse("tiny", "R..\n..B.\n", "boards/tiny.txt")
    with pytest.raises(ContentError, match=r"\[tiny\] key 'A2': unknown mask character"):
        Board.parse("tiny", "X.B\nR..\n", "boards/tiny.txt")


def test_D_MOVES_TWICE_nothing_in_the_content_grants_a_second_move(content: Content) -> None:
    from engine.spells.primitives import PRIMITIVES
    from engine.spells.vocab import ABILITIES, STATS

    # A unit trait, a grantable ability or a primitive for it would need the second movement of
    # D-MOVES-TWICE; "moves" (the Moves 2 range) is the only movement stat a spell can change.
    words = {"moves_twice", "move_twice", "second_move", "extra_move"}
    assert not any(words & unit.traits for unit in content.units.values())
    assert not words & set(ABILITIES)
    assert not words & set(PRIMITIVES)
    assert [s for s in STATS if "move" in s] == ["moves"]
    for spell in content.spells.values():
        for effect in spell.effects:
            if effect.op == "grant":
                assert effect.params.text("ability") not in words, spell.id
