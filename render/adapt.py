"""Reading an engine PlayerView into a BoardScene: the one place that knows the view's shape.

Only what the view holds can reach an image, so a side's picture never shows what it may not
see (G12).
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.content import load_content
from engine.coords import Coord
from engine.report import TurnReport
from engine.spells.schema import SpellDef
from engine.state import Group, Mana
from engine.view import PlayerView, SpellView
from render.marks import SpellLookup, TurnMarks, marks_from_report
from render.scene import BoardScene, GroupMark, SideInfo, SpellBadge, SquareMark, StructureMark

SpellBook = Mapping[str, SpellDef]


def default_spells() -> SpellBook:
    """The spells of the shipped content (for the names and house colours of badges)."""
    return load_content().spells


def spell_lookup(spells: SpellBook) -> SpellLookup:
    def lookup(spell_id: str) -> tuple[str, str]:
        spell = spells.get(spell_id)
        if spell is None:
            return (spell_id.replace("_", " ").title(), "")
        return (spell.name, spell.house)

    return lookup


def _badge(spell: SpellView, spells: SpellBook) -> SpellBadge:
    name, house = spell_lookup(spells)(spell.spell_id)
    if not spell.visible:
        name += " (hidden)"
    return SpellBadge(spell.spell_id, name, str(spell.owner), house)


def _mana(mana: Mana) -> tuple[tuple[str, int], ...]:
    return tuple((name, amount) for name, amount in mana.items() if amount)


def _group_mark(group: Group, badges: tuple[SpellBadge, ...]) -> GroupMark:
    return GroupMark(
        group_id=group.id,
        owner=str(group.owner),
        size=len(group.minions),
        monsters=any(m.kind == "monster" for m in group.minions),
        heroes=sum(1 for m in group.minions if "hero" in m.traits),
        spells=badges,
        minion_ids=tuple(m.id for m in group.minions),
    )


# How a match ends when a Sanctum is taken (one, or both at once).
CAPTURE_REASONS = frozenset({"sanctum", "both_sancta"})


def captured_sancta(view: PlayerView) -> tuple[tuple[int, int], ...]:
    """The squares of the Sancta taken when the view's match ended by capture: each holds a
    group of the other side (the Sanctum keeps its owner; the winner stands on it)."""
    if view.result is None or view.result.reason not in CAPTURE_REASONS:
        return ()
    return tuple(
        (s.coord.x, s.coord.y)
        for s in view.structures
        if s.kind == "sanctum"
        and any(g.coord == s.coord and g.owner != s.owner for g in view.groups)
    )


def result_text(view: PlayerView) -> str:
    """The header's result: who won and how, naming a taken Sanctum's square."""
    if view.result is None:
        return ""
    taken = [s for s in view.structures if (s.coord.x, s.coord.y) in captured_sancta(view)]
    if view.result.winner is None:
        if len(taken) == 2:
            return "Draw: both Sancta taken"
        return f"Draw ({view.result.reason})"
    winner = str(view.result.winner).capitalize()
    if len(taken) == 1:
        loser = str(taken[0].owner).capitalize()
        return f"{winner} wins: {loser}'s Sanctum {taken[0].coord.name} taken"
    return f"{winner} wins ({view.result.reason})"


def scene_from_view(
    view: PlayerView,
    spells: SpellBook | None = None,
    names: Mapping[str, str] | None = None,
) -> BoardScene:
    """The scene of a view. ``names`` may give each side's player name for the header."""
    book = default_spells() if spells is None else spells
    names = names or {}
    on_square: dict[Coord, list[SpellBadge]] = {}
    on_group: dict[int, list[SpellBadge]] = {}
    globe: list[SpellBadge] = []
    structure_at = {s.id: s.coord for s in view.structures}
    group_of_minion = {m.id: g.id for g in view.groups for m in g.minions}
    for spell in view.spells:
        badge = _badge(spell, book)
        host = spell.host
        if host.kind == "globe":
            globe.append(badge)
        elif host.kind == "square" and isinstance(host.ref, Coord):
            on_square.setdefault(host.ref, []).append(badge)
        elif host.kind == "structure" and isinstance(host.ref, int) and host.ref in structure_at:
            on_square.setdefault(structure_at[host.ref], []).append(badge)
        elif host.kind == "group" and isinstance(host.ref, int):
            on_group.setdefault(host.ref, []).append(badge)
        elif host.kind == "minion" and isinstance(host.ref, int) and host.ref in group_of_minion:
            on_group.setdefault(group_of_minion[host.ref], []).append(badge)
    structures = {s.coord: s for s in view.structures}
    groups: dict[Coord, list[GroupMark]] = {}
    for group in view.groups:
        mark = _group_mark(group, tuple(on_group.get(group.id, ())))
        groups.setdefault(group.coord, []).append(mark)
    squares = []
    for square in view.squares:
        at = square.coord
        structure = structures.get(at)
        squares.append(
            SquareMark(
                x=at.x,
                y=at.y,
                terrain=square.terrain,
                structure=None
                if structure is None
                else StructureMark(
                    kind=structure.kind,
                    owner=str(structure.owner),
                    novices=len(structure.novices),
                    mana_type=structure.mana_type or "",
                    structure_id=structure.id,
                ),
                groups=tuple(groups.get(at, ())),
                spells=tuple(on_square.get(at, ())),
            )
        )
    sides = tuple(
        SideInfo(
            side=str(p.side),
            pool=_mana(p.pool),
            production=_mana(p.production),
            hand_size=p.hand_size,
            deck_size=p.deck_count,
            house=p.house,
            name=names.get(str(p.side), ""),
        )
        for p in view.players
    )
    return BoardScene(
        columns=view.width,
        rows=view.height,
        squares=tuple(squares),
        turn=view.turn,
        initiative=str(view.initiative),
        sides=sides,
        globe=tuple(globe),
        viewer=None if view.viewer is None else str(view.viewer),
        result=result_text(view),
        captured=captured_sancta(view),
    )


def report_marks(
    report: TurnReport, scene: BoardScene, spells: SpellBook | None = None
) -> TurnMarks:
    book = default_spells() if spells is None else spells
    return marks_from_report(report, scene, spell_lookup(book))
