"""Small hand-made positions for the computer player's tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.content import Content
from engine.coords import Coord
from engine.setup import MatchConfig, default_deck, new_game
from engine.state import NEUTRAL, Card, GameState, Group, Mana, Owner, Side, Square, Structure

HOUSE = "war"


def group(content: Content, gid: int, owner: Owner, at: str, units: Sequence[str]) -> Group:
    nation = content.houses[HOUSE].nation
    minions = tuple(content.make_minion(gid * 100 + i, u, nation) for i, u in enumerate(units))
    return Group(gid, owner, owner, Coord.parse(at), minions)


def position(
    content: Content,
    groups: Sequence[Group],
    *,
    towns: Sequence[str] = (),
    hand: Sequence[str] = (),
    pool: Mana | None = None,
    novices: int = 0,
) -> GameState:
    """Red to play on an all-plains classic board (Sancta D4 and I9), both sides of War."""
    deck = default_deck(HOUSE, content)
    base = new_game(
        MatchConfig(
            seed=7, houses={Side.RED: HOUSE, Side.BLUE: HOUSE}, decks={s: deck for s in Side}
        ),
        content,
    )
    sancta = [s for s in base.structures if s.kind == "sanctum"]
    structures = [
        replace(s, novices=("human",) * novices if s.owner == Side.RED else ()) for s in sancta
    ]
    structures += [Structure(10 + i, "town", Coord.parse(t), NEUTRAL) for i, t in enumerate(towns)]
    red = base.player(Side.RED)
    cards = tuple(Card(9000 + i, spell_id) for i, spell_id in enumerate(hand))
    red = replace(red, hand=cards or red.hand, pool=pool or Mana())
    return replace(
        base,
        turn=5,
        squares=tuple(Square(sq.coord, "plains") for sq in base.squares),
        structures=tuple(structures),
        groups=tuple(groups),
        players=(red, replace(base.player(Side.BLUE), pool=Mana())),
        next_id=20000,
    )


def standoff(
    content: Content,
    red: list[str],
    blue_towns: int,
    *,
    red_towns: int = 0,
    blue_groups: int = 4,
) -> GameState:
    """Red with ``red`` on D5 and its Sanctum (and ``red_towns`` towns); blue with
    ``blue_groups`` full groups of swordsmen (56 hit points each, 224 for four) around its
    Sanctum and ``blue_towns`` towns: with nothing on red's side and two blue towns, a game red
    concedes (``ai.concession``)."""
    squares = ["I8", "H9", "J9", "I10"][:blue_groups]
    groups = [
        group(content, 2 + i, Side.BLUE, at, ["swordsman"] * 8) for i, at in enumerate(squares)
    ]
    if red:
        groups.append(group(content, 1, Side.RED, "D5", red))
    towns = ["F3", "G3", "F10", "G10", "B7", "F6", "G7"][: blue_towns + red_towns]
    state = position(content, groups, towns=towns)
    owners = [Side.BLUE] * blue_towns + [Side.RED] * red_towns
    structures = list(state.structures)
    for at, owner in zip(towns, owners, strict=True):
        index = next(i for i, s in enumerate(structures) if s.coord.name == at)
        structures[index] = replace(structures[index], owner=owner)
    return replace(state, structures=tuple(structures))
