"""Mana production (G5): the Sanctum's house types, novices trained as mana, towns and colonies."""

from __future__ import annotations

from engine.content import Content, Economy
from engine.state import GameState, Mana, Side, Structure


def structure_yield(
    structure: Structure,
    house_primary: str,
    house_secondary: str,
    economy: Economy,
) -> tuple[tuple[str, int], ...]:
    """What one owned structure makes per turn, before spells, as ``(mana type, amount)``
    pairs (``economy``: the content's ``data/economy.toml``)."""
    if structure.kind == "sanctum":
        return (
            (house_primary, economy.sanctum_primary),
            (house_secondary, economy.sanctum_secondary),
        )
    if structure.mana_type is None:
        return ()
    return ((structure.mana_type, economy.structure_mana[structure.kind]),)


def structure_output(
    structure: Structure,
    house_primary: str,
    house_secondary: str,
    economy: Economy,
) -> Mana:
    """What one owned structure makes per turn, before spells."""
    return Mana().plus(structure_yield(structure, house_primary, house_secondary, economy))


def production(state: GameState, side: Side, content: Content) -> Mana:
    """The side's production per turn as shown to players (spells' own gains and drains aside)."""
    player = state.player(side)
    house = content.houses[player.house]
    made: list[tuple[str, int]] = []
    for s in state.structures:
        if s.owner == side:
            made += structure_yield(s, house.primary, house.secondary, content.economy)
    return player.mana_novices.plus(made)
