"""The closed word lists of the spell system (houses, types, targets, speeds, classes, events)."""

from __future__ import annotations

from typing import Final

MANA_TYPES: Final = ("order", "strife", "clarity", "mystery", "will", "world")

# Digest section 14: house -> (primary, secondary) mana.
HOUSES: Final[dict[str, tuple[str, str]]] = {
    "abomination": ("will", "strife"),
    "body": ("world", "mystery"),
    "death": ("mystery", "will"),
    "despair": ("mystery", "strife"),
    "hope": ("clarity", "order"),
    "justice": ("order", "mystery"),
    "life": ("clarity", "world"),
    "making": ("order", "will"),
    "mind": ("will", "clarity"),
    "nature": ("world", "order"),
    "unmaking": ("strife", "world"),
    "war": ("strife", "clarity"),
}

# S2: the five spell types; the instant ones never become active.
SPELL_TYPES: Final = ("manifestation", "summoning", "hero", "conjuration", "alteration")
INSTANT_TYPES: Final = frozenset({"manifestation", "summoning", "hero"})
ACTIVE_TYPES: Final = frozenset({"conjuration", "alteration"})

# S3: the ten target types.
TARGET_KINDS: Final = (
    "minion",
    "recruit",
    "monster",
    "group",
    "recruit_group",
    "monster_group",
    "square",
    "terrain",
    "structure",
    "globe",
)
MINION_KINDS: Final = frozenset({"minion", "recruit", "monster"})
GROUP_KINDS: Final = frozenset({"group", "recruit_group", "monster_group"})
SQUARE_KINDS: Final = frozenset({"square", "terrain"})

# C1: speed ranks, in execution order (C2).
SPEEDS: Final = ("immediate", "fast", "normal", "slow")

# N1: classes.
CLASSES: Final = ("standard", "learned", "hereditary", "attribute", "bound")

# N11: targeting qualifiers. "range" and "aura" carry a number ("range 3").
ALLEGIANCES: Final = ("augment", "hex", "universal")
FLAG_QUALIFIERS: Final = (
    "focused",
    "ground",
    "caster",
    "caster_unit",
    "direct",
    "missile",
    "damage",
)
NUMBER_QUALIFIERS: Final = ("range", "aura")

STATS: Final = ("max_hp", "armor", "hand", "missile", "attacks", "level", "moves")
WALKS: Final = ("flight", "waterwalk", "mountainwalk", "swampwalk")
ABILITIES: Final = (*WALKS, "terrain_immunity", "invisible")
TERRAINS: Final = (
    "plains",
    "barren",
    "forest",
    "water",
    "mountain",
    "volcano",
    "lava",
    "desert",
    "void",
    "swamp",
    "ice",
    "jungle",
)

# Events an active spell may react to (broadcast by the core; order in docs/spells.md).
EVENTS: Final = (
    "start_of_turn",
    "after_start_of_turn",
    "spell_phase_start",
    "spell_executed",
    "host_dying",
    "host_killed",
    "minion_died",
    "group_entered",
    "combat_round",
    "end_of_turn",
)
